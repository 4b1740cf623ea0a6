"""Podium lamps and the signal lamp on GPIO: the shared lamp policy, executed.

What each lamp shows, and when, is decided by
:class:`buzzer.runtime.lamps.LampPolicy` (its docstring has the table of
decision → lamps), the same policy that runs the Pico's lamps; this module
only turns its changes into gpiozero calls. :meth:`LampBoard.apply` takes the
decisions the core just made, and the snapshot after them when there is one.

Lamps are gpiozero ``LED`` devices on an injected pin factory (a transistor
driver per lamp: see ``docs/raspberry-pi-gpio.md``). Blinking runs on
gpiozero's background thread for that LED, for the number of blinks the
policy asked for; ``on``/``off`` stop it. A button check's timed lamp (an
``ON`` with ``for_ms``, A-G-D2) is put out by a timer from the injected
``schedule`` (a daemon thread's timer by default; a test's own clock in tests),
cancelled when the lamp is switched first.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from typing import Any

from gpiozero import LED  # type: ignore[import-untyped]

from buzzer.runtime.lamps import (
    BLINK,
    LOCKED_BLINKS,
    OFF,
    ON,
    SIGNAL,
    LampChange,
    LampKey,
    LampPolicy,
    PolicyLamps,
    Scheduler,
    thread_timer,
)
from hardware.factory import claim_error
from hardware.pinmap import LampPin, PinMap

__all__ = ["BLINK", "BLINK_OFF_S", "BLINK_ON_S", "LOCKED_BLINKS", "OFF", "ON", "LampBoard"]

BLINK_ON_S = 0.12
BLINK_OFF_S = 0.12


def _led(lamp: LampPin, pin_factory: Any) -> Any:
    try:
        return LED(
            lamp.pin, active_high=not lamp.active_low, initial_value=False, pin_factory=pin_factory
        )
    except Exception as exc:
        raise claim_error(exc, lamp.pin, "a lamp") from exc


class LampBoard(PolicyLamps):
    """The podium lamps (by seat) and the signal lamp of a pin map.

    :attr:`state` is what each lamp is doing (``off``/``on``/``blink``), keyed by
    seat and ``"signal"``: what the policy decided, for the panel and for tests.
    Calls may come from several threads (the controller's listeners run on the
    submitter's): a lock keeps the policy and the pins in step.
    """

    def __init__(
        self,
        pinmap: PinMap,
        pin_factory: Any,
        *,
        blink_on_s: float = BLINK_ON_S,
        blink_off_s: float = BLINK_OFF_S,
        schedule: Scheduler = thread_timer,
    ) -> None:
        if pin_factory is None:
            raise ValueError("LampBoard needs a pin factory (never the global default)")
        self.blink_on_s = blink_on_s
        self.blink_off_s = blink_off_s
        self.policy = LampPolicy(
            tuple(sorted(pinmap.podium_lamps)),
            signal=pinmap.signal_lamp is not None,
            blink_period_ms=max(1, round((blink_on_s + blink_off_s) * 1000)),
        )
        self._lock = threading.RLock()
        self._schedule = schedule
        #: lamp → (token, cancel) of the timer that ends its timed lamp.
        self._timers: dict[LampKey, tuple[int, Callable[[], None]]] = {}
        self._token = 0
        self.podiums: dict[int, Any] = {}
        self.signal: Any = None
        try:
            for seat, lamp in sorted(pinmap.podium_lamps.items()):
                self.podiums[seat] = _led(lamp, pin_factory)
            if pinmap.signal_lamp is not None:
                self.signal = _led(pinmap.signal_lamp, pin_factory)
        except BaseException:
            self.close()
            raise

    # -- decisions -----------------------------------------------------------------

    # -- single lamps --------------------------------------------------------------

    def podium(self, seat: int, on: bool) -> None:
        with self._lock:
            self._run(self.policy.set(seat, ON if on else OFF))

    def blink(self, seat: int, times: int) -> None:
        with self._lock:
            self._run(self.policy.set(seat, BLINK, blinks=times))

    def set_signal(self, on: bool) -> None:
        with self._lock:
            self._run(self.policy.set(SIGNAL, ON if on else OFF))

    def _only(self, seat: int) -> None:
        with self._lock:
            self.podium(seat, True)
            for other in self.podiums:
                if other != seat:
                    self.podium(other, False)

    def _run(self, changes: list[LampChange]) -> None:
        for change in changes:
            led = self.signal if change.lamp == SIGNAL else self.podiums.get(change.lamp)
            if led is None:
                continue
            timer = self._timers.pop(change.lamp, None)
            if timer is not None:
                timer[1]()
            if change.mode is ON:
                led.on()
                if change.for_ms:
                    self._token += 1
                    token = self._token
                    cancel = self._schedule(
                        change.for_ms / 1000,
                        functools.partial(self._timed_over, change.lamp, token),
                    )
                    self._timers[change.lamp] = (token, cancel)
            elif change.mode is OFF:
                led.off()
            else:
                led.blink(
                    on_time=self.blink_on_s,
                    off_time=self.blink_off_s,
                    n=change.blinks,
                    background=True,
                )

    def _timed_over(self, lamp: LampKey, token: int) -> None:
        with self._lock:
            timer = self._timers.get(lamp)
            if timer is None or timer[0] != token:
                return  # the lamp was switched since: that command stands
            del self._timers[lamp]
            led = self.signal if lamp == SIGNAL else self.podiums.get(lamp)
            if led is not None:
                led.off()

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
        with self._lock:
            for _, cancel in self._timers.values():
                cancel()
            self._timers.clear()
        for led in [*self.podiums.values(), self.signal]:
            if led is not None:
                led.close()

    def __enter__(self) -> LampBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
