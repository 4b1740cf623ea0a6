"""The appliance's systemd unit (deploy/svoyak.service): what keeps a press fast on a busy Pi.

Parsed as systemd reads it; each assertion is a setting whose loss a
technician would only notice as a slow or lost decision on a tournament day.
"""

from __future__ import annotations

import configparser
import os
import subprocess
import sys
from pathlib import Path

import pytest

from buzzer.app.run_command import EXIT_BAD_CONFIG
from tests.support.paths import REPO

ROOT = REPO


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


@pytest.mark.parametrize(
    ("pin_map", "named"),
    [
        # gpiozero would raise PinFixedPull at every start.
        ('[players]\n1 = { pin = 3, pull = "none" }\n2 = 27\n', "GPIO3"),
        # The board's pull-up would light this lamp at boot (issue 34).
        ("[players]\n1 = 17\n2 = 27\n[lamps]\nsignal = 2\n", "lit at boot"),
    ],
    ids=["button-on-gpio3-floating", "lamp-on-gpio2"],
)
def test_a_pin_map_it_cannot_use_stops_the_service_rather_than_looping(
    tmp_path: Path, pin_map: str, named: str
) -> None:
    """A pin map that cannot work: a real `svoyak run` exits with EX_CONFIG,
    naming the file and the key, and the unit does not restart on that status."""
    pins = tmp_path / "pins.toml"
    pins.write_text(pin_map + "[host]\nreading_start = 5\nreading_end = 6\n")
    env = {
        **os.environ,
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "GPIOZERO_PIN_FACTORY": "mock",
    }
    command = [sys.executable, "-m", "buzzer.cli", "run", "--headless", "--host", "127.0.0.1"]
    done = subprocess.run(
        [*command, "--port", "0", "--no-mdns", "--pins", str(pins)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == EXIT_BAD_CONFIG, done.stderr
    assert str(pins) in done.stderr and named in done.stderr
    assert str(EXIT_BAD_CONFIG) in service()["RestartPreventExitStatus"].split()
