"""From a pin factory's edge ``ticks`` to the host's monotonic clock in integer ns.

gpiozero hands each edge to the device with ``ticks``: a number in the pin
factory's own time base, meant only for :meth:`Factory.ticks_diff`. Which
time base that is depends on the factory, so this module names the ones the
arbiter may trust:

``LGPIOFactory`` (Raspberry Pi OS since Bookworm, Pi 4 and Pi 5)
    The kernel stamps each edge in its interrupt handler and delivers it in
    a ``gpio_v2_line_event`` (``timestamp_ns``). lgpio copies that stamp into
    its alert report and gpiozero passes ``timestamp_ns / 1e9`` as ``ticks``.
    The GPIO character device's v2 API stamps with ``CLOCK_MONOTONIC``
    unless a line asks for ``GPIO_V2_LINE_FLAG_EVENT_CLOCK_REALTIME``, and
    lgpio does not ask (its flag for it is commented out) — even though
    lgpio's documentation still says "nanoseconds since the epoch". So the
    stamp is ``time.monotonic_ns()``'s clock: ``round(ticks * 1e9)``.
    Because documentation and builds disagree, the first edge is checked
    against both clocks (:class:`DetectedTicks`) and a realtime stamp is
    converted by the current realtime − monotonic offset.

``MockFactory`` (tests, ``--simulate``)
    A mock pin stamps a change with ``time.monotonic()`` taken when its
    state changed (``drive_low``/``drive_high``, or a connected output's
    write) — before any handler runs: ``round(ticks * 1e9)``.

Other factories (``RPiGPIOFactory``, ``NativeFactory``) fill ``ticks`` with
the time the callback *ran* (``Factory.ticks()`` in the callback thread), and
``PiGPIOFactory`` with the pigpio daemon's wrapping 32-bit µs tick: neither is
a kernel edge stamp on the host clock, so :func:`edge_clock_for` refuses them.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from buzzer.errors import SvoyakError

NS_PER_S = 1_000_000_000


class EdgeClock(Protocol):
    """Turns an edge's ``ticks`` into host monotonic nanoseconds."""

    @property
    def name(self) -> str: ...

    def to_ns(self, ticks: float) -> int: ...


class MonotonicTicks:
    """``ticks`` are ``CLOCK_MONOTONIC`` seconds (lgpio's kernel stamps, mock pins)."""

    name = "monotonic"

    def to_ns(self, ticks: float) -> int:
        return round(ticks * NS_PER_S)


class RealtimeTicks:
    """``ticks`` are ``CLOCK_REALTIME`` seconds: shifted by the realtime − monotonic offset.

    The offset is read at conversion, a few µs after the edge: a clock step
    (NTP) between the edge and its conversion would move the stamp by the
    step. Run NTP slewing only (chrony's default) when this clock is in use.
    """

    name = "realtime"

    def to_ns(self, ticks: float) -> int:
        offset = time.time_ns() - time.monotonic_ns()
        return round(ticks * NS_PER_S) - offset


class DetectedTicks:
    """Decides on the first edge whether ``ticks`` are monotonic or realtime seconds.

    An edge stamp lies a little before "now" on its own clock; the two clocks
    differ by decades, so the closer one is the stamp's.
    """

    def __init__(self) -> None:
        self._clock: EdgeClock | None = None

    @property
    def name(self) -> str:
        return "detect" if self._clock is None else self._clock.name

    def to_ns(self, ticks: float) -> int:
        clock = self._clock
        if clock is None:
            stamp = ticks * NS_PER_S
            mono = abs(time.monotonic_ns() - stamp)
            real = abs(time.time_ns() - stamp)
            clock = self._clock = MonotonicTicks() if mono <= real else RealtimeTicks()
        return clock.to_ns(ticks)


class UnsupportedPinFactory(SvoyakError, RuntimeError):
    """The pin factory does not stamp edges where they happen (see the module docstring)."""


def _class_names(factory: Any) -> set[str]:
    return {cls.__name__ for cls in type(factory).__mro__}


def edge_clock_for(factory: Any) -> EdgeClock:
    """The :class:`EdgeClock` for a factory's edge ticks, or :class:`UnsupportedPinFactory`."""
    names = _class_names(factory)
    if "MockFactory" in names:
        return MonotonicTicks()
    if "LGPIOFactory" in names:
        return DetectedTicks()
    raise UnsupportedPinFactory(
        f"the {type(factory).__name__} pin factory does not stamp edges in the kernel: "
        "the arbiter would see the time a callback ran, not the time of the press. "
        "Use gpiozero's LGPIOFactory (python3-lgpio) on the Pi, or --simulate."
    )
