"""The podium lamps and the signal lamp on the Pico, behind its serial link.

The rules of which lamp shows what live once, in
:class:`buzzer.runtime.lamps.LampPolicy`; this adapter only executes the
policy's changes as LAMP frames, as :class:`hardware.lamps.LampBoard` does on
the Pi's GPIO. It lives here, with the link it drives, so that the runtime
never imports the wire protocol.

Podium lamp ``seat - 1``; the signal lamp at a configurable index, by default
the one right after the last podium (lamp ``seats``: GP13 with three players on
the stock firmware's pin map), used only if the device says (its HELLO's
``lamps``) it has that many lamps. The firmware blinks a lamp until told
otherwise, while the policy's blinks are finite: so a blink is a ``BLINK``
command followed, ``blinks × period`` later, by an ``OFF`` from a timer of the
adapter (cancelled if the lamp is switched first); a button check's timed lamp
(an ``ON`` with ``for_ms``) is an ``ON`` ended by the same timer. The policy says ``OFF`` too
at its first decision after the blink's end; LAMP commands are idempotent, so
that costs a frame, nothing else.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Final, Literal, Protocol

from buzzer.runtime.lamps import (
    BLINK,
    BLINK_PERIOD_MS,
    ON,
    SIGNAL,
    LampChange,
    LampKey,
    LampPolicy,
    PolicyLamps,
    Scheduler,
    thread_timer,
)
from firmware_bridge.protocol import LampMode

#: ``signal_lamp`` default: the lamp right after the last podium, if the device has it.
AUTO: Final = "auto"


class LampLink(Protocol):
    """What the adapter needs of :class:`firmware_bridge.link.BridgeLink`."""

    def set_lamp(self, lamp: int, mode: LampMode, period_ms: int = 0) -> None: ...


class BridgeLamps(PolicyLamps):
    """The podium lamps (and a signal lamp) on the Pico behind ``link``, run by
    a :class:`LampPolicy` (see the module docstring).

    ``signal_lamp``: a lamp index, ``None`` for no signal lamp, or
    :data:`AUTO` (lamp ``seats``, skipped while the device's HELLO says it
    has fewer lamps than that). The constructor puts every lamp it drives out:
    the Pico may still show the lamps of a previous run of the host, and the
    link remembers the command until the device is there to take it.
    """

    def __init__(
        self,
        link: LampLink,
        seats: int,
        signal_lamp: int | Literal["auto"] | None = AUTO,
        *,
        blink_period_ms: int = BLINK_PERIOD_MS,
        schedule: Scheduler = thread_timer,
    ) -> None:
        self.link = link
        self.policy = LampPolicy(
            seats, signal=signal_lamp is not None, blink_period_ms=blink_period_ms
        )
        self.index: dict[LampKey, int] = {seat: seat - 1 for seat in self.policy.seats}
        self._auto = signal_lamp == AUTO
        if isinstance(signal_lamp, str) and signal_lamp != AUTO:
            raise ValueError(f"signal_lamp must be an index, None or {AUTO!r}")
        if signal_lamp is not None:
            index = seats if isinstance(signal_lamp, str) else signal_lamp
            if not 0 <= index < 0xFF or index in self.index.values():
                raise ValueError(f"signal lamp {index}: not a free lamp index")
            self.index[SIGNAL] = index
        self._schedule = schedule
        self._lock = threading.Lock()
        #: lamp index → (token, cancel) of the timer that ends its blink.
        self._blink_timers: dict[int, tuple[int, Callable[[], None]]] = {}
        self._token = 0
        self.all_off()

    def close(self) -> None:
        """Cancel the timers of blinks still running (their lamps keep blinking)."""
        with self._lock:
            for _, cancel in self._blink_timers.values():
                cancel()
            self._blink_timers.clear()

    # -- executing ---------------------------------------------------------------------

    def _run(self, changes: list[LampChange]) -> None:
        for change in changes:
            index = self.index[change.lamp]
            if change.lamp == SIGNAL and self._auto and not self._device_has(index):
                continue
            timer = self._blink_timers.pop(index, None)
            if timer is not None:
                timer[1]()
            if change.mode is BLINK:
                self.link.set_lamp(index, LampMode.BLINK, change.period_ms)
            else:
                self.link.set_lamp(index, LampMode.ON if change.mode is ON else LampMode.OFF)
            if change.duration_ms:  # a blink, or a button check's timed lamp: dark after it
                self._token += 1
                token = self._token
                cancel = self._schedule(
                    change.duration_ms / 1000, functools.partial(self._blink_over, index, token)
                )
                self._blink_timers[index] = (token, cancel)

    def _blink_over(self, index: int, token: int) -> None:
        with self._lock:
            timer = self._blink_timers.get(index)
            if timer is None or timer[0] != token:
                return  # the lamp was switched since: that command stands
            del self._blink_timers[index]
            self.link.set_lamp(index, LampMode.OFF)

    def _device_has(self, index: int) -> bool:
        """Whether the device has lamp ``index``; True while it is not known yet
        (a lamp it lacks costs one BAD_ARGUMENT acknowledgement, nothing more)."""
        device = getattr(self.link, "device", None)
        lamps = getattr(device, "lamps", None)
        return not isinstance(lamps, int) or index < lamps


__all__ = ["AUTO", "BridgeLamps", "LampLink"]
