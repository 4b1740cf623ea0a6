"""The whole self-test: the options, the checks chosen, the report and its histogram."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from buzzer.runtime.runtime import DEFAULT_WAIT_BOUND_NS
from hardware.pinmap import describe_key
from hardware.report import SelftestReport
from hardware.selftest.checks import (
    PHANTOM_PERIOD_S,
    PHANTOM_SWITCHES,
    check_bounce,
    check_fairness,
    check_glitch,
    check_latency,
    check_phantom,
    check_stuck,
)
from hardware.selftest.progress import Progress
from hardware.selftest.pulses import NS_PER_MS, NS_PER_US
from hardware.selftest.rigs import Rig, SelftestUnavailable

DEFAULT_OFFSETS_US = (0, 10, 100, 1000)
FAIRNESS_RULES = ("tv-modern", "championship-2003")
CHECKS = ("latency", "fairness", "bounce", "glitch", "phantom", "stuck")
#: Why the phantom check cannot run on a rig with no lamps of its own (the report says so).
NO_LAMPS = "this input path has no lamps the self-test can switch"


def default_png_path(now: float | None = None) -> Path:
    """Where the histogram goes when ``--png`` is not given: the user's state folder.

    ``$XDG_STATE_HOME/svoyak/selftest/selftest-latency-YYYYmmdd-HHMMSS.png``
    (``~/.local/state`` when the variable is unset or not absolute, as the XDG
    spec asks). Not the current folder: a self-test run from a checkout or
    from ``/`` by the appliance's unit must not leave images where nobody
    looks, and each run keeps its own picture to compare with the last.
    """
    import platformdirs

    name = time.strftime("selftest-latency-%Y%m%d-%H%M%S.png", time.localtime(now))
    return platformdirs.user_state_path("svoyak") / "selftest" / name


@dataclass
class SelftestOptions:
    checks: tuple[str, ...] = CHECKS
    count: int = 100
    trials: int = 40
    offsets_us: tuple[int, ...] = DEFAULT_OFFSETS_US
    rules: str = "tv-modern"
    pair: tuple[str, str] | None = None
    #: The phantom check: how many times every lamp goes on and off, and the period.
    phantom_switches: int = PHANTOM_SWITCHES
    phantom_period_ms: float = PHANTOM_PERIOD_S * 1000
    #: Where to write the latency histogram; None: no histogram. Its folder is
    #: created if missing (``svoyak selftest`` passes :func:`default_png_path`).
    png: str | Path | None = None


def run_selftest(
    rig: Rig,
    options: SelftestOptions,
    *,
    mode: str,
    stderr: TextIO | None = None,
    progress: bool = True,
) -> SelftestReport:
    """Run the chosen checks on ``rig`` and write the histogram (if asked)."""
    keys = rig.keys
    seats = [k for k in keys if k.isdigit()]
    pair = options.pair or (tuple(seats[:2]) if len(seats) >= 2 else None)
    checks = options.checks
    if "fairness" in checks and (pair is None or len(pair) != 2):
        raise SelftestUnavailable("fairness needs two player buttons the rig can press")
    total = 0
    if "latency" in checks and rig.no_latency_check is None:
        total += options.count
    if "fairness" in checks:
        total += options.trials * len(options.offsets_us)
    if "bounce" in checks:
        total += len(keys)
    glitch_runs = "glitch" in checks
    if glitch_runs:
        total += len(keys)
    lamps = rig.lamp_switch() if "phantom" in checks else None
    if lamps is not None:
        total += 1
    if "stuck" in checks:
        total += max(1, len(keys))
    bar = Progress(total, sys.stderr if stderr is None else stderr, progress)
    report = SelftestReport(
        mode=mode,
        source=rig.source.label,
        pinmap=rig.pinmap.source,
        hold_off_ms=rig.hold_off_ns / NS_PER_MS,
        glitch_ms=None if rig.glitch_ns is None else rig.glitch_ns / NS_PER_MS,
        stuck_threshold_s=None if rig.stuck_ns is None else rig.stuck_ns / 1e9,
    )
    if "stuck" in checks and rig.bank is not None:
        report.held_at_start = sorted(rig.bank.held_at_start())
    if "latency" in checks:
        if rig.no_latency_check is None:
            report.latency = check_latency(rig, options.count, bar)
        else:
            report.not_run["latency"] = rig.no_latency_check
    if "fairness" in checks and pair is not None:
        report.fairness_rules = options.rules
        report.fairness_pair = (pair[0], pair[1])
        bound = DEFAULT_WAIT_BOUND_NS if rig.wait_bound_ns is None else rig.wait_bound_ns
        report.fairness_wait_bound_ms = bound / NS_PER_MS
        report.fairness_offsets_exact = bool(getattr(rig.source, "exact_offsets", False))
        report.fairness = check_fairness(
            rig, options.rules, report.fairness_pair, options.offsets_us, options.trials, bar
        )
    if "bounce" in checks:
        report.bounce = check_bounce(rig, bar)
    if glitch_runs:
        report.glitch = check_glitch(rig, bar)
    if lamps is not None:
        report.phantom = check_phantom(
            rig, lamps, bar, options.phantom_switches, options.phantom_period_ms / 1000
        )
    elif "phantom" in checks:
        report.not_run["phantom"] = NO_LAMPS
    if "stuck" in checks:
        report.stuck, held = check_stuck(rig, bar)
        report.held_at_start = sorted(set(report.held_at_start) | set(held))
        if rig.bank is None or rig.stuck_ns is None:
            report.not_run["stuck"] = rig.no_stuck_check or "this input path has no stuck detection"
    bar.finish()
    if rig.stand_in_starved is not None:
        report.stand_in_starved = rig.stand_in_starved()
    if options.png and report.latency:
        from hardware.histogram import write_histogram

        series = [
            (f"{describe_key(r.key)} (GPIO{r.pin})", [s / NS_PER_US for s in r.samples_ns])
            for r in report.latency
        ]
        # The report names the file by its absolute path: the technician is told
        # exactly where it went, whatever folder the command was started from.
        png = Path(options.png).expanduser().absolute()
        png.parent.mkdir(parents=True, exist_ok=True)
        report.png_size = write_histogram(
            png, series, f"svoyak selftest: edge stamp − drive time ({mode})"
        )
        report.png = str(png)
    return report
