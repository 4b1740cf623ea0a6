"""GPIO in a running game: a mock-pin edge becomes a journaled press, the winner's lamp lights,
a host button gives the signal, and a stuck button is an alert on the panel."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from buzzer.app.inputs import attach_gpio
from buzzer.arbiter.events import ReadingStart, Select
from buzzer.journal.store import JournalStore
from buzzer.runtime.controller import Controller
from buzzer.runtime.runtime import Runtime
from hardware.pinmap import example_path, load_pinmap

S = 1_000_000_000
HEADER = {"rules": "tv-modern", "players": ["А", "Б", "В", "Г"], "chooser": 1}


class Alerts:
    def __init__(self) -> None:
        self.stuck: list[tuple[int, Any]] = []

    def stuck_button(self, seat: int, held_ms: int | None = None) -> None:
        self.stuck.append((seat, held_ms))

    def button_released(self, seat: int) -> None:
        self.stuck.append((seat, "freed"))


def lamp_becomes(attached: Any, lamp: int | str, state: str) -> None:
    """The lamps follow a decision on the runtime's thread just after the state moves:
    a test that saw the state waits (up to 10 s) for the lamp, then asserts it."""
    deadline = time.monotonic() + 10
    while attached.lamps.state[lamp] != state and time.monotonic() < deadline:
        time.sleep(0.002)
    assert attached.lamps.state[lamp] == state


def host(runtime: Runtime, *makes: Any) -> None:
    """Host commands, each stamped now and applied by the running runtime."""
    for make in makes:
        runtime.wait(runtime.command(make))


def wait_for(check: Any, controller: Controller) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        snapshot = controller.snapshot()
        if check(snapshot) or time.monotonic() > deadline:
            return snapshot
        time.sleep(0.005)


def test_a_mock_pin_edge_is_journaled_decided_and_lights_the_lamp(tmp_path: Path) -> None:
    pinmap = load_pinmap(example_path())
    factory = MockFactory()
    controller = Controller.new(HEADER, JournalStore(tmp_path / "g.sqlite"))
    runtime = Runtime(controller).start()
    alerts = Alerts()
    attached = attach_gpio(runtime, pinmap, factory, alerts)
    try:
        host(runtime, lambda t: Select(t, 1, 100), ReadingStart)
        signal_pin = factory.pin(pinmap.host["reading_end"].pin)
        signal_pin.drive_low()  # the host's signal button (active low)
        wait_for(lambda s: s["phase"] == "open", controller)
        seat_two = factory.pin(pinmap.players[2].pin)
        seat_two.drive_low()  # player 2 presses
        snapshot = wait_for(lambda s: s["answering"] == 2, controller)
        assert snapshot["answering"] == 2
        lamp_becomes(attached, 2, "on")
        assert attached.lamps.state[1] == "off"
        types = [line.split('"type": "')[1].split('"')[0] for line in controller.store.lines()]
        types = [kind for kind in types if kind != "tick"]
        assert types[:3] == ["game", "select", "reading_start"]
        assert "reading_end" in types and "press" in types
    finally:
        attached.close()
        runtime.stop()


def test_a_press_on_the_pico_emulator_is_journaled_decided_and_lights_its_lamp(
    tmp_path: Path,
) -> None:
    from buzzer.app.inputs import attach_bridge
    from buzzer.arbiter.events import ReadingEnd
    from firmware_bridge.emulator import Emulator

    controller = Controller.new(HEADER, JournalStore(tmp_path / "g.sqlite"))
    runtime = Runtime(controller).start()
    with Emulator() as emulator:
        attached = attach_bridge(runtime, emulator.path)
        try:
            assert attached.link.wait_connected(10)
            host(runtime, lambda t: Select(t, 2, 200), ReadingStart, ReadingEnd)
            wait_for(lambda s: s["phase"] == "open", controller)  # after the signal
            emulator.press(2)  # button 2 is seat 3
            snapshot = wait_for(lambda s: s["answering"] == 3, controller)
            assert snapshot["answering"] == 3
            deadline = time.monotonic() + 10
            while emulator.lamp_levels[2] != 1 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert emulator.lamp_levels[2] == 1 and emulator.lamp_levels[0] == 0
            assert any('"press"' in line for line in controller.store.lines())
        finally:
            attached.close()
            runtime.stop()


def test_lamps_go_out_when_a_sport_question_closes_with_nobody_right(tmp_path: Path) -> None:
    """The sport systems have no chooser, so no `chooser` line closes the question:
    the lamps follow the snapshot back to the board."""
    from buzzer.arbiter.events import Judge, ReadingEnd

    pinmap = load_pinmap(example_path())
    factory = MockFactory()
    head = {"rules": "sport-false-start", "players": ["А", "Б"]}
    controller = Controller.new(head, JournalStore(tmp_path / "g.sqlite"))
    runtime = Runtime(controller).start()
    attached = attach_gpio(runtime, pinmap, factory, Alerts())
    try:
        host(runtime, lambda t: Select(t, 1, 10), ReadingStart, ReadingEnd)
        wait_for(lambda s: s["phase"] == "open", controller)
        factory.pin(pinmap.players[1].pin).drive_low()
        wait_for(lambda s: s["answering"] == 1, controller)
        lamp_becomes(attached, 1, "on")
        host(runtime, lambda t: Judge(t, False))
        factory.pin(pinmap.players[2].pin).drive_low()
        wait_for(lambda s: s["answering"] == 2, controller)
        host(runtime, lambda t: Judge(t, False))  # both wrong: the question closes
        wait_for(lambda s: s["stage"] == "board", controller)
        lamp_becomes(attached, 1, "off")
        lamp_becomes(attached, 2, "off")
        lamp_becomes(attached, "signal", "off")  # it was lit at the signal
    finally:
        attached.close()
        runtime.stop()


def test_a_host_button_pressed_while_paused_is_refused(tmp_path: Path) -> None:
    """The host's GPIO buttons go through the one host-command service: while the
    game is paused (A-G-D1) the signal button is refused with the pause's sentence
    and never journaled, like the panel's tap; after the resume it gives the signal."""
    pinmap = load_pinmap(example_path())
    factory = MockFactory()
    controller = Controller.new(HEADER, JournalStore(tmp_path / "g.sqlite"))
    runtime = Runtime(controller).start()
    attached = attach_gpio(runtime, pinmap, factory, Alerts())
    sink = attached.sink
    assert sink is not None
    try:
        host(runtime, lambda t: Select(t, 1, 100), ReadingStart)
        # Accepted is journaled, not yet applied: the engine holds the reading's start
        # for its settle window (A-G1), which a loaded machine's ticks can stretch.
        assert wait_for(lambda s: s["phase"] == "reading", controller)["phase"] == "reading"
        assert runtime.commands.execute({"type": "pause"}).accepted
        signal_pin = factory.pin(pinmap.host["reading_end"].pin)
        signal_pin.drive_low()  # the signal, pressed during the pause
        deadline = time.monotonic() + 10
        while not sink.refused and time.monotonic() < deadline:
            time.sleep(0.005)
        assert [r.code for r in sink.refused] == ["paused"]
        assert sink.refused[0].ru.startswith("Игра на паузе")
        assert controller.snapshot()["phase"] == "reading"
        assert not any('"reading_end"' in line for line in controller.store.lines())
        signal_pin.drive_high()
        assert runtime.commands.execute({"type": "resume"}).accepted
        time.sleep(0.01)  # the release is confirmed (the pin map's glitch time)
        signal_pin.drive_low()  # pressed again, now the game runs
        assert wait_for(lambda s: s["phase"] == "open", controller)["phase"] == "open"
        assert len(sink.refused) == 1
    finally:
        attached.close()
        runtime.stop()


def test_A_G_D2_a_press_on_the_board_is_journaled_lights_its_lamp_and_decides_nothing(
    tmp_path: Path,
) -> None:
    """Is my button working? (issue 38): before the first question a real edge is a
    journaled press, the engine's button check lights that podium (the lamp policy's
    0.3 s), no score moves, and a question chosen puts the lamp out."""
    pinmap = load_pinmap(example_path())
    factory = MockFactory()
    controller = Controller.new(HEADER, JournalStore(tmp_path / "g.sqlite"))
    runtime = Runtime(controller).start()
    attached = attach_gpio(runtime, pinmap, factory, Alerts())
    try:
        factory.pin(pinmap.players[3].pin).drive_low()  # player 3 tries the button
        lamp_becomes(attached, 3, "on")
        assert any('"type": "press"' in line for line in controller.store.lines())
        snapshot = controller.snapshot()
        assert snapshot["stage"] == "board" and set(snapshot["scores"].values()) == {0}
        host(runtime, lambda t: Select(t, 1, 100))
        wait_for(lambda s: s["stage"] == "question", controller)
        lamp_becomes(attached, 3, "off")
    finally:
        attached.close()
        runtime.stop()
