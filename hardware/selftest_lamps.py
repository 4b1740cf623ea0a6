"""The lamps the self-test's phantom check switches: those of the path under test.

A lamp's MOSFET switching a few hundred milliamps beside a button cable is
where a real rig picks up spikes, so the phantom check switches every lamp
on and off while nobody presses, and counts the presses that come anyway.
Which lamps those are depends on the input path: the Pi's own GPIO lamps
(``hardware/lamps.py``), or the Pico's, which its firmware drives on the
host's LAMP frames through the same ``BridgeLink`` a game uses.

Why a protocol of two methods rather than the lamp policy: the check wants
every lamp at once, nothing a game would show, and the same loop for both
paths.
"""

from __future__ import annotations

from typing import Any, Protocol


class LampSwitch(Protocol):
    """Every lamp of one input path, switched together."""

    #: How many lamps a switch moves (the report says so).
    lamps: int

    def switch_all(self, on: bool) -> None: ...

    def close(self) -> None: ...


class GpioLampSwitch:
    """The pin map's podium lamps and signal lamp, on the rig's pin factory."""

    def __init__(self, pinmap: Any, pin_factory: Any) -> None:
        from hardware.lamps import LampBoard

        self.board = LampBoard(pinmap, pin_factory)
        self.lamps = len(self.board.podiums) + (self.board.signal is not None)

    def switch_all(self, on: bool) -> None:
        if on:
            for seat in self.board.podiums:
                self.board.podium(seat, True)
            self.board.set_signal(True)
        else:
            self.board.all_off()

    def close(self) -> None:
        self.board.close()


class PicoLampSwitch:
    """The Pico's lamps, every one by one LAMP frame (``Lamp.ALL``), resent until acknowledged.

    On the chip model no lamp couples into a button line, so there the check
    proves the software path only (the firmware switching its outputs while
    its capture runs); on a real Pico with its MOSFETs and cables, the wiring.
    """

    def __init__(self, link: Any) -> None:
        from firmware_bridge.protocol import Lamp, LampMode

        self._link = link
        self._all = Lamp.ALL
        self._modes = (LampMode.OFF, LampMode.ON)
        hello = link.device
        self.lamps = 0 if hello is None else int(hello.lamps)

    def switch_all(self, on: bool) -> None:
        self._link.set_lamp(self._all, self._modes[on])

    def close(self) -> None:
        self._link.set_lamp(self._all, self._modes[False])
