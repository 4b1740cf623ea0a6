"""GPIO buttons and lamps in a running game: the hardware side of ``svoyak run``.

gpiozero's callbacks only stamp and enqueue (``ButtonBank``'s sink is a
queue's ``put``); one pump thread takes the inputs in arrival order, moves
their source timestamps onto the game clock, and submits them to the
controller. Host buttons are tried on a copy of the core first, like the
panel's taps, so a refused one never reaches the journal. Lamps follow the
controller's decisions; a stuck button is an alert on the host's panel.
"""

from __future__ import annotations

import dataclasses
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any

from buzzer.arbiter.events import Input, Press, Release
from buzzer.controller import Controller

_STOP = object()


class InputPump:
    """One thread between the input callbacks and the controller."""

    def __init__(
        self,
        controller: Controller,
        poke: Callable[[], None] = lambda: None,
        stuck: Callable[[int, int | None], None] | None = None,
        freed: Callable[[int], None] | None = None,
    ) -> None:
        self.controller = controller
        self.poke = poke
        self.stuck = stuck
        self.freed = freed
        self.queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.refused: list[str] = []
        self._thread = threading.Thread(target=self._run, name="svoyak-inputs", daemon=True)
        self._thread.start()

    def put(self, item: Any) -> None:
        """The sink for input callbacks: quick and thread-safe."""
        self.queue.put(item)

    def close(self) -> None:
        self.queue.put(_STOP)
        self._thread.join(timeout=5)

    def drain(self, timeout: float = 5.0) -> None:
        """Wait until every input put so far has been submitted (tests)."""
        done = threading.Event()
        self.queue.put(done)
        done.wait(timeout)

    def _run(self) -> None:
        from buzzer.panel.trial import Refused, try_input
        from hardware.buttons import ButtonFreed, ButtonStuck

        controller = self.controller
        while True:
            item = self.queue.get()
            if item is _STOP:
                return
            if isinstance(item, threading.Event):
                item.set()
                continue
            if isinstance(item, ButtonStuck):
                if self.stuck is not None and item.seat is not None:
                    self.stuck(item.seat, (item.t - item.down_since) // 1_000_000)
                continue
            if isinstance(item, ButtonFreed):
                if self.freed is not None and item.seat is not None:
                    self.freed(item.seat)
                continue
            # The source stamp is on the monotonic clock; the game's clock starts at t0.
            stamped: Input = dataclasses.replace(item, t=controller.game_time(item.t))
            try:
                if isinstance(stamped, Press | Release):
                    controller.submit(stamped)
                else:
                    with controller.lock:
                        try_input(controller.core, stamped)
                        controller.submit(stamped)
            except Refused as exc:
                self.refused.append(exc.message)
                print(f"svoyak: host button refused: {exc.message}", file=sys.stderr)
            self.poke()


def attach_gpio(controller: Controller, pinmap: Any, pin_factory: Any, panel: Any = None) -> Any:
    """Buttons and lamps of ``pinmap`` on ``pin_factory``, wired into the game.

    Returns an object whose ``close()`` releases the pins and stops the pump.
    """
    from hardware.buttons import ButtonBank
    from hardware.lamps import LampBoard

    ticker = getattr(panel, "ticker", None)
    pump = InputPump(
        controller,
        poke=ticker.poke if ticker is not None else (lambda: None),
        stuck=getattr(panel, "stuck_button", None),
        freed=getattr(panel, "button_released", None),
    )
    lamps = LampBoard(pinmap, pin_factory)
    controller.subscribe(lambda decisions, snapshot: _follow(lamps, decisions, snapshot))
    bank = ButtonBank(pinmap, pin_factory, pump.put)
    return _Attached(pump, bank, lamps)


def _follow(lamps: Any, decisions: list[Any], snapshot: dict[str, Any]) -> None:
    """Lamps follow the decisions; and whenever the game is back on the board (a
    question closed, whatever closed it: the systems without a chooser emit no
    `chooser` line), every lamp goes out."""
    lamps.apply(decisions)
    if decisions and snapshot.get("stage") in ("board", "over"):
        lamps.all_off()


@dataclasses.dataclass
class _Attached:
    pump: InputPump
    bank: Any
    lamps: Any

    def close(self) -> None:
        self.bank.close()
        self.pump.close()
        self.lamps.close()


class BridgeLamps:
    """Podium lamps on the Pico (lamp ``seat - 1``), following the decisions like
    :class:`hardware.lamps.LampBoard`: the recognized player's lamp on, a false
    start blinking, all off when the question closes."""

    def __init__(self, link: Any, seats: int) -> None:
        self.link = link
        self.seats = seats

    def apply(self, decisions: list[Any]) -> None:
        from buzzer.arbiter.decisions import Chooser, FalseStart, Recognized, WindowClosed
        from firmware_bridge.protocol import LampMode

        for decision in decisions:
            if isinstance(decision, Recognized):
                for seat in range(1, self.seats + 1):
                    mode = LampMode.ON if seat == decision.seat else LampMode.OFF
                    self.link.set_lamp(seat - 1, mode)
            elif isinstance(decision, FalseStart):
                self.link.set_lamp(decision.seat - 1, LampMode.BLINK, 250)
            elif isinstance(decision, WindowClosed | Chooser):
                self.all_off()

    def all_off(self) -> None:
        from firmware_bridge.protocol import LampMode

        for seat in range(1, self.seats + 1):
            self.link.set_lamp(seat - 1, LampMode.OFF)


def attach_bridge(controller: Controller, url: str, panel: Any = None) -> Any:
    """The Pico at ``url`` (a pyserial URL: /dev/ttyACM0, a pty) wired into the game."""
    from firmware_bridge.link import BridgeLink, LinkConfig

    ticker = getattr(panel, "ticker", None)
    pump = InputPump(controller, poke=ticker.poke if ticker is not None else (lambda: None))
    link = BridgeLink(LinkConfig(url), sink=pump.put).start()
    lamps = BridgeLamps(link, len(controller.core.setup.players))
    controller.subscribe(lambda decisions, snapshot: _follow(lamps, decisions, snapshot))
    return _BridgeAttached(pump, link)


@dataclasses.dataclass
class _BridgeAttached:
    pump: InputPump
    link: Any

    def close(self) -> None:
        self.link.stop()
        self.pump.close()
