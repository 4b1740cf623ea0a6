"""``svoyak check-buttons``: press each button in turn; its lamp lights; the missing are listed.

For the technician setting up the hall: the command names one button at a
time ("press seat 2 (GPIO27)"), waits for it, lights that podium's lamp (the
signal lamp for a host button) and goes on. A button that does not answer
within the timeout is listed as missing at the end; a different button
answering instead is reported (two wires swapped?); a button already down
at the start is reported as stuck or shorted. ``--simulate`` presses the
buttons itself on gpiozero's mock pins (``--simulate-missing`` leaves some
out, as a broken wire would).
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, TextIO

from hardware.buttons import PRESS_INPUTS, ButtonBank, ButtonEvent, key_of
from hardware.lamps import LampBoard
from hardware.pinmap import PinMap, describe_key


@dataclass
class ButtonCheck:
    """What ``check-buttons`` found."""

    seen: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    #: (the button asked for, the button that answered instead)
    out_of_turn: list[tuple[str, str]] = field(default_factory=list)
    held_at_start: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.missing and not self.held_at_start


def mock_presser(
    pinmap: PinMap, pin_factory: Any, missing: Collection[str] = (), hold_s: float | None = None
) -> Callable[[str], None]:
    """Presses a button on a ``MockFactory`` pin (and releases it), except those in ``missing``."""
    buttons = pinmap.buttons()
    held = hold_s if hold_s is not None else pinmap.hold_off_ns / 1e9 + 0.01

    def press(key: str) -> None:
        if key in missing:
            return
        spec = buttons[key]
        pin = pin_factory.pin(spec.pin)
        if spec.active_low:
            pin.drive_low()
            time.sleep(held)
            pin.drive_high()
        else:
            pin.drive_high()
            time.sleep(held)
            pin.drive_low()

    return press


def check_buttons(
    pinmap: PinMap,
    pin_factory: Any,
    *,
    out: TextIO,
    timeout_s: float = 15.0,
    press: Callable[[str], None] | None = None,
    lamps: bool = True,
    linger_s: float = 1.0,
) -> ButtonCheck:
    """Ask for each button in turn (``press`` does it when scripted); see the module docstring."""
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    result = ButtonCheck()
    bank = ButtonBank(pinmap, pin_factory, inputs.put)
    board: LampBoard | None = None
    try:
        board = LampBoard(pinmap, pin_factory) if lamps else None
        if board is not None:
            board.all_off()
        result.held_at_start = sorted(bank.held_at_start())
        specs = pinmap.buttons()
        print(
            f"check-buttons: {len(specs)} buttons from {pinmap.source}; press each one when "
            f"asked ({timeout_s:g} s each). Its lamp lights.",
            file=out,
        )
        for key in result.held_at_start:
            print(
                f"  {describe_key(key)} (GPIO{specs[key].pin}) is down already: stuck, or its "
                "wire shorted to GND?",
                file=out,
            )
        for key, spec in specs.items():
            if key in result.held_at_start:
                continue
            print(f"  press {describe_key(key)} (GPIO{spec.pin}) … ", end="", file=out, flush=True)
            if press is not None:
                press(key)
            answered = _wait_for(inputs, key, timeout_s, result)
            if answered:
                result.seen.append(key)
                if board is not None:
                    if key.isdigit():
                        board.podium(int(key), True)
                    else:
                        board.set_signal(True)
                print("ok", file=out)
            else:
                result.missing.append(key)
                print("no press", file=out)
            if board is not None and not key.isdigit():
                board.set_signal(False)
        for asked, got in result.out_of_turn:
            print(
                f"  {describe_key(got)} answered while {describe_key(asked)} was asked for: "
                "are two wires swapped?",
                file=out,
            )
        if result.ok:
            print(f"all {len(result.seen)} buttons work", file=out)
        else:
            names = [f"{describe_key(k)} (GPIO{specs[k].pin})" for k in result.missing]
            if names:
                print(f"missing: {', '.join(names)}", file=out)
            if result.held_at_start:
                stuck = [describe_key(k) for k in result.held_at_start]
                print(f"down from the start: {', '.join(stuck)}", file=out)
        if board is not None:
            time.sleep(linger_s)
            board.all_off()
    finally:
        if board is not None:
            board.close()
        bank.close()
    return result


def _wait_for(
    inputs: queue.SimpleQueue[ButtonEvent], key: str, timeout_s: float, result: ButtonCheck
) -> bool:
    deadline = time.monotonic() + timeout_s
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        try:
            event = inputs.get(timeout=left)
        except queue.Empty:
            return False
        if not isinstance(event, PRESS_INPUTS):
            continue
        got = key_of(event)
        if got == key:
            return True
        if (key, got) not in result.out_of_turn:
            result.out_of_turn.append((key, got))
