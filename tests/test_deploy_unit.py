"""The appliance's systemd unit (deploy/svoyak.service): what keeps a press fast on a busy Pi.

Parsed as systemd reads it; each assertion is a setting whose loss a
technician would only notice as a slow or lost decision on a tournament day.
"""

from __future__ import annotations

import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def service() -> configparser.SectionProxy:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(ROOT / "deploy" / "svoyak.service", encoding="utf-8")
    return unit["Service"]


def test_every_thread_runs_at_real_time_priority_below_the_interrupt_threads() -> None:
    s = service()
    assert s["CPUSchedulingPolicy"] == "rr"
    # Above every ordinary task, below the kernel's interrupt threads (FIFO 50).
    assert 1 <= int(s["CPUSchedulingPriority"]) < 50
    # Reset-on-fork applies to every clone(), threads included: on, it would
    # leave the GPIO callback, runtime and link threads at ordinary priority.
    assert s.get("CPUSchedulingResetOnFork", "no") == "no"

