"""A host clock for a dilated chip model: the wall clock slowed by the chip's own factor.

The chip model runs the firmware at the RP2040's true 125 MHz, but the
emulation manages that only at a fraction of real time. Paced to the wall
clock (``ChipModel(pace=True)``) it must slow the CPU instead, and its time
then wanders off any straight line by as much as the machine's load makes
it: milliseconds, which hide what the firmware and the clock fit do.

Dilated (``ChipModel(dilate=K)``), the chip's time runs at K x the wall
clock on a straight line and its CPU at full speed; a host that reads
:class:`DilatedClock` (K x ``time.monotonic_ns()``) instead of the wall clock
sees a Pico as it is: a crystal off by its ``drift_ppm`` only, a main loop
at its real pace. Everything that host does on the wall clock (Python's own
work, the pipe, the pty) looks K times quicker on its clock than it is,
which is why figures measured this way describe the firmware and the
link's algorithms, not the host's CPU (BENCHMARKS.md says which is which).

Why this is a clock and not a flag somewhere in the runtime: every part of
the host that keeps time (``Controller``, ``BridgeLink``) already takes an
injected clock, so a dilated host is only a different clock handed in.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from buzzer.errors import SvoyakError


class DilationError(SvoyakError, ValueError):
    """A dilation factor the chip model cannot keep."""


def dilation_factor(value: float | Fraction | str) -> Fraction:
    """``value`` as an exact fraction in (0, 1] (a chip model cannot run faster than time)."""
    try:
        factor = Fraction(value).limit_denominator(1_000_000)
    except (ValueError, ZeroDivisionError, TypeError) as exc:
        raise DilationError(f"dilation {value!r} is not a number") from exc
    if not 0 < factor <= 1:
        raise DilationError(
            f"dilation {value} must be above 0 and at most 1 (the chip's time runs "
            "at that fraction of the wall clock's)"
        )
    return factor


@dataclass(frozen=True)
class DilatedClock:
    """Host ns running at ``factor`` x the wall clock: ``factor * time.monotonic_ns()``.

    Callable as a clock (``Controller(clock=...)``, ``BridgeLink(clock=...)``);
    :meth:`host_ns` puts a wall-clock instant the harness reported (an
    edge's ``wall_ns``) on it.
    """

    factor: Fraction
    wall: Callable[[], int] = field(default=time.monotonic_ns, repr=False)

    def __call__(self) -> int:
        return self.host_ns(self.wall())

    def host_ns(self, wall_ns: int) -> int:
        return wall_ns * self.factor.numerator // self.factor.denominator

    def wall_s(self, host_s: float) -> float:
        """How long ``host_s`` seconds on this clock take on the wall clock."""
        return host_s / float(self.factor)
