"""Lamps react to the core's decisions, on gpiozero mock pins; the owner loop lights them."""

from __future__ import annotations

import time
from collections.abc import Callable

from gpiozero.pins.mock import MockFactory

from buzzer.arbiter.decisions import (
    Chooser,
    Decision,
    FalseStart,
    Ignored,
    Note,
    NoteKind,
    QuestionSelected,
    Recognized,
    Score,
    WindowClosed,
    WindowOpened,
)
from buzzer.arbiter.events import Input, Judge, Press, ReadingEnd, ReadingStart, Select, Tick
from buzzer.core import GameCore
from hardware.lamps import BLINK, OFF, ON, LampBoard
from hardware.pinmap import PinMap, parse_pinmap
from rules.game import GameSetup
from rules.profiles import find_rules

S = 1_000_000_000
LAMP_PINS = {1: 16, 2: 20, 3: 21}
SIGNAL = 12


def pinmap() -> PinMap:
    return parse_pinmap(
        {
            "players": {"1": 17, "2": 27, "3": 22},
            "host": {"reading_start": 5, "reading_end": 6},
            "lamps": {
                "signal": SIGNAL,
                "podiums": {"1": 16, "2": 20, "3": {"pin": 21, "active_low": True}},
            },
        }
    )


def lit(factory: MockFactory) -> dict[int | str, bool]:
    """What the lamps show, from the pins' levels (seat 3's driver is active low)."""
    shown: dict[int | str, bool] = {
        seat: bool(factory.pin(pin).state) for seat, pin in LAMP_PINS.items()
    }
    shown[3] = not shown[3]
    shown["signal"] = bool(factory.pin(SIGNAL).state)
    return shown


def wait_until(condition: Callable[[], bool], timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.002)
    return condition()


def test_recognized_lights_that_podium_only() -> None:
    factory = MockFactory()
    with LampBoard(pinmap(), factory) as lamps:
        assert lit(factory) == {1: False, 2: False, 3: False, "signal": False}
        lamps.apply([WindowOpened(1 * S, 4 * S), Recognized(2 * S, 3)])
        assert lit(factory) == {1: False, 2: False, 3: True, "signal": True}
        lamps.apply([Recognized(2 * S, 1)])
        assert lit(factory) == {1: True, 2: False, 3: False, "signal": True}


def test_a_false_start_blinks_that_podium() -> None:
    factory = MockFactory()
    with LampBoard(pinmap(), factory, blink_on_s=0.01, blink_off_s=0.01) as lamps:
        pin = factory.pin(LAMP_PINS[2])
        pin.clear_states()
        lamps.apply([FalseStart(1 * S, 2, 1 * S + S // 10)])
        assert lamps.state[2] == BLINK
        # on, off, on, off...: the pin goes through several changes by itself
        assert wait_until(lambda: len(pin.states) >= 4)
        assert lit(factory)[1] is False
        lamps.apply([Recognized(2 * S, 2)])  # lit steadily: the blinking stops
        assert lamps.state[2] == ON and lit(factory)[2]


def test_a_press_inside_the_lockout_blinks_again() -> None:
    factory = MockFactory()
    with LampBoard(pinmap(), factory, blink_on_s=0.01, blink_off_s=0.01) as lamps:
        lamps.apply([Ignored(1 * S, 1, "locked")])
        assert lamps.state[1] == BLINK
        lamps.apply([Ignored(1 * S, 2, "someone_answering", 30)])
        assert lamps.state[2] == OFF


def test_the_signal_and_the_end_of_a_question() -> None:
    factory = MockFactory()
    with LampBoard(pinmap(), factory) as lamps:
        lamps.apply([WindowOpened(1 * S, 4 * S)])
        assert lit(factory)["signal"]
        lamps.apply([Recognized(2 * S, 2), Score(3 * S, 2, -100, -100)])
        assert lit(factory) == {1: False, 2: False, 3: False, "signal": True}
        for closing in (
            WindowClosed(4 * S),
            Chooser(4 * S, 1),
            QuestionSelected(5 * S, 1, 1, 100),
            Note(6 * S, NoteKind.GAME_OVER, (("winner", 1),)),
            Score(7 * S, 1, 100, 100),
        ):
            lamps.apply([WindowOpened(1 * S, 4 * S), Recognized(2 * S, 1)])
            assert lit(factory)[1] and lit(factory)["signal"]
            lamps.apply([closing])
            assert lit(factory) == {1: False, 2: False, 3: False, "signal": False}, closing


def test_a_real_game_drives_the_lamps() -> None:
    factory = MockFactory()
    core = GameCore(GameSetup(find_rules("tv-modern"), ("a", "b", "c"), chooser=1))

    def push(lamps: LampBoard, *items: Input) -> None:
        out: list[Decision] = []
        for item in items:
            core.push(item, out)
        lamps.apply(out)

    with LampBoard(pinmap(), factory, blink_on_s=0.01, blink_off_s=0.01) as lamps:
        # A press during the reading is a false start under tv-modern: seat 2 blinks.
        push(lamps, Select(1 * S, 1, 100), ReadingStart(2 * S), Press(3 * S, 2), Tick(4 * S))
        assert lamps.state[2] == BLINK and not lit(factory)["signal"]
        # The signal, then seat 1 is recognized: its lamp only, and the signal lamp.
        push(lamps, ReadingEnd(4 * S), Press(5 * S, 1), Tick(6 * S))
        assert lit(factory) == {1: True, 2: False, 3: False, "signal": True}
        # A right answer ends the question: all off.
        push(lamps, Judge(7 * S, True), Tick(8 * S))
        assert lit(factory) == {1: False, 2: False, 3: False, "signal": False}


def test_the_lamp_test_pattern() -> None:
    factory = MockFactory()
    seen: list[dict[int | str, bool]] = []
    with LampBoard(pinmap(), factory) as lamps:
        steps = lamps.test_pattern(step_s=0, sleep=lambda _: seen.append(lit(factory)))
    assert steps == ["seat 1", "seat 2", "seat 3", "signal", "all", "off"]
    assert seen == [
        {1: True, 2: False, 3: False, "signal": False},
        {1: False, 2: True, 3: False, "signal": False},
        {1: False, 2: False, 3: True, "signal": False},
        {1: False, 2: False, 3: False, "signal": True},
        {1: True, 2: True, 3: True, "signal": True},
    ]
    assert lit(factory) == {1: False, 2: False, 3: False, "signal": False}
