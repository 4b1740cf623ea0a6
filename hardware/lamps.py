"""Podium lamps and the signal lamp, driven by the arbiter's decisions.

:meth:`LampBoard.apply` takes the decisions the core just made and sets the
lamps; it decides nothing itself:

=============================  ===============================================
decision                       lamps
=============================  ===============================================
``question`` (selected)        all off (a new question)
``recognized`` (seat)          that podium on, every other podium off
``false_start`` (seat)         that podium blinks through its lockout
``ignored`` ``locked``         that podium blinks (a press inside the lockout)
``window_opened``              the signal lamp on (the signal, TV rules);
                               podiums that were lit steadily go off
``reading_resumed``            podiums that were lit steadily go off
``score`` with delta < 0       that podium off (a wrong answer)
``score`` with delta > 0       all off (a right answer ends the question)
``window_closed``, ``chooser``, all off: the question is over
``game_over``
=============================  ===============================================

Lamps are gpiozero ``LED`` devices on an injected pin factory (a transistor
driver per lamp: see ``docs/raspberry-pi-gpio.md``). Blinking runs on
gpiozero's background thread for that LED; ``on``/``off`` stop it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from gpiozero import LED  # type: ignore[import-untyped]

from buzzer.arbiter.decisions import (
    Chooser,
    Decision,
    FalseStart,
    Ignored,
    Note,
    QuestionSelected,
    ReadingResumed,
    Recognized,
    Score,
    WindowClosed,
    WindowOpened,
)
from hardware.pinmap import LampPin, PinMap

OFF = "off"
ON = "on"
BLINK = "blink"

BLINK_ON_S = 0.12
BLINK_OFF_S = 0.12
#: Blinks for a press inside a lockout (the lockout's end is not in that decision).
LOCKED_BLINKS = 3

_CLOSING_NOTES = frozenset({"game_over"})


def _led(lamp: LampPin, pin_factory: Any) -> Any:
    return LED(
        lamp.pin, active_high=not lamp.active_low, initial_value=False, pin_factory=pin_factory
    )


class LampBoard:
    """The podium lamps (by seat) and the signal lamp of a pin map.

    :attr:`state` is what each lamp is doing (``off``/``on``/``blink``), keyed by
    seat and ``"signal"``: what the board decided, for the panel and for tests.
    """

    def __init__(
        self,
        pinmap: PinMap,
        pin_factory: Any,
        *,
        blink_on_s: float = BLINK_ON_S,
        blink_off_s: float = BLINK_OFF_S,
    ) -> None:
        if pin_factory is None:
            raise ValueError("LampBoard needs a pin factory (never the global default)")
        self.blink_on_s = blink_on_s
        self.blink_off_s = blink_off_s
        self.podiums: dict[int, Any] = {}
        self.signal: Any = None
        self.state: dict[int | str, str] = {}
        try:
            for seat, lamp in sorted(pinmap.podium_lamps.items()):
                self.podiums[seat] = _led(lamp, pin_factory)
                self.state[seat] = OFF
            if pinmap.signal_lamp is not None:
                self.signal = _led(pinmap.signal_lamp, pin_factory)
                self.state["signal"] = OFF
        except BaseException:
            self.close()
            raise

    # -- decisions -----------------------------------------------------------------

    def apply(self, decisions: Iterable[Decision]) -> None:
        """Set the lamps for decisions just made, in order."""
        for decision in decisions:
            if isinstance(decision, Recognized):
                self._only(decision.seat)
            elif isinstance(decision, FalseStart):
                period = self.blink_on_s + self.blink_off_s
                blinks = max(1, round((decision.locked_until - decision.t) / 1e9 / period))
                self.blink(decision.seat, blinks)
            elif isinstance(decision, Ignored):
                if decision.reason == "locked" and self.state.get(decision.seat) != BLINK:
                    self.blink(decision.seat, LOCKED_BLINKS)
            elif isinstance(decision, WindowOpened):
                self._steady_off()
                self.set_signal(True)
            elif isinstance(decision, ReadingResumed):
                self._steady_off()
            elif isinstance(decision, Score):
                if decision.delta > 0:
                    self.all_off()
                elif decision.delta < 0:
                    self.podium(decision.seat, False)
            elif isinstance(decision, QuestionSelected | WindowClosed | Chooser) or (
                isinstance(decision, Note) and decision.type in _CLOSING_NOTES
            ):
                self.all_off()

    # -- single lamps --------------------------------------------------------------

    def podium(self, seat: int, on: bool) -> None:
        led = self.podiums.get(seat)
        if led is None:
            return
        if on:
            led.on()
        else:
            led.off()
        self.state[seat] = ON if on else OFF

    def blink(self, seat: int, times: int) -> None:
        led = self.podiums.get(seat)
        if led is None:
            return
        led.blink(on_time=self.blink_on_s, off_time=self.blink_off_s, n=times, background=True)
        self.state[seat] = BLINK

    def all_off(self) -> None:
        for seat in self.podiums:
            self.podium(seat, False)
        self.set_signal(False)

    def _only(self, seat: int) -> None:
        for other in self.podiums:
            if other != seat:
                self.podium(other, False)
        self.podium(seat, True)

    def _steady_off(self) -> None:
        for seat in self.podiums:
            if self.state.get(seat) == ON:
                self.podium(seat, False)

    def set_signal(self, on: bool) -> None:
        if self.signal is None:
            return
        if on:
            self.signal.on()
        else:
            self.signal.off()
        self.state["signal"] = ON if on else OFF

    # -- the lamp test -------------------------------------------------------------

    def test_pattern(
        self, step_s: float = 0.3, sleep: Callable[[float], None] = time.sleep
    ) -> list[str]:
        """Light every lamp in turn, then all together, then all off.

        Returns the steps in order (``"seat 1"``, …, ``"signal"``, ``"all"``,
        ``"off"``) so a technician (or a test) can follow along.
        """
        steps: list[str] = []
        self.all_off()
        for seat in self.podiums:
            self._only(seat)
            steps.append(f"seat {seat}")
            sleep(step_s)
        self.all_off()
        if self.signal is not None:
            self.set_signal(True)
            steps.append("signal")
            sleep(step_s)
            self.set_signal(False)
        for seat in self.podiums:
            self.podium(seat, True)
        self.set_signal(True)
        steps.append("all")
        sleep(step_s * 2)
        self.all_off()
        steps.append("off")
        return steps

    def close(self) -> None:
        for led in [*self.podiums.values(), self.signal]:
            if led is not None:
                led.close()

    def __enter__(self) -> LampBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
