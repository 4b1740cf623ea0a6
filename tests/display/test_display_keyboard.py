"""The laptop keyboard as buttons: digit keys press, host keys drive the question
through the host-command service (refused while the game is paused)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame

from buzzer.arbiter.commands import Sender
from buzzer.arbiter.events import Input, Press, Release
from buzzer.panel.demo import demo_header
from buzzer.runtime.controller import Controller
from buzzer.runtime.host_commands import Outcome
from buzzer.runtime.refusals import Message
from buzzer.runtime.results import CommandRefused
from buzzer.runtime.runtime import Runtime
from display.keyboard import KeyboardButtons

S = 1_000_000_000


def key(kind: int, code: int, repeat: bool = False) -> pygame.event.Event:
    return pygame.event.Event(kind, key=code, repeat=repeat)


class Recorder:
    """A source: stamps each input from a counter, as the runtime's keyboard source does."""

    def __init__(self) -> None:
        self.got: list[Input] = []
        self.trials: list[bool] = []

    def __call__(self, make: Callable[[int], Input], trial: bool) -> None:
        self.got.append(make(1000 + len(self.got)))
        self.trials.append(trial)


class Commands:
    """The host-command service's door: records each command, answers ``outcome``."""

    def __init__(self, outcome: Outcome | None = None) -> None:
        self.sent: list[Mapping[str, Any]] = []
        self.outcome = outcome or Outcome(None, 2)

    def __call__(self, wire: Mapping[str, Any]) -> Future[Outcome]:
        self.sent.append(wire)
        future: Future[Outcome] = Future()
        future.set_result(self.outcome)
        return future


def test_digit_keys_are_the_players_buttons_stamped_by_their_source() -> None:
    recorder = Recorder()
    got = recorder.got
    keys = KeyboardButtons(recorder, seats=3, command=Commands())
    keys.handle(key(pygame.KEYDOWN, pygame.K_2))
    keys.handle(key(pygame.KEYDOWN, pygame.K_2, repeat=True))  # auto-repeat: not a press
    keys.handle(key(pygame.KEYUP, pygame.K_2))
    keys.handle(key(pygame.KEYDOWN, pygame.K_7))  # no seat 7 in a game of three
    assert [type(x) for x in got] == [Press, Release]
    assert got[0].seat == 2 and got[0].t < got[1].t
    assert recorder.trials == [False, False]  # presses are never tried on a copy


def test_host_keys_are_host_commands_for_the_service() -> None:
    recorder = Recorder()
    commands = Commands()
    keys = KeyboardButtons(recorder, seats=3, command=commands)
    for code in (pygame.K_RETURN, pygame.K_SPACE, pygame.K_y, pygame.K_n):
        keys.handle(key(pygame.KEYDOWN, code))
        keys.handle(key(pygame.KEYUP, code))  # a host key going up means nothing
    assert commands.sent == [
        {"type": "reading_start"},
        {"type": "reading_end"},
        {"type": "judge", "verdict": "correct"},
        {"type": "judge", "verdict": "wrong"},
    ]
    assert recorder.got == []  # never past the service


def test_a_refused_host_key_is_reported_not_raised() -> None:
    errors: list[Exception] = []
    said = Message(
        "refused", "Сейчас никто не отвечает.", "Nobody is answering.", "nobody is answering"
    )
    refused = Commands(Outcome(None, refusal=said))
    keys = KeyboardButtons(Recorder(), seats=3, on_error=errors.append, command=refused)
    keys.handle(key(pygame.KEYDOWN, pygame.K_y))
    assert [str(e) for e in errors] == ["nobody is answering"]
    assert isinstance(errors[0], CommandRefused) and errors[0].refusal is not None


class Clock:
    def __init__(self) -> None:
        self.ns = 100 * S

    def __call__(self) -> int:
        return self.ns


def test_a_host_key_pressed_while_paused_is_refused_by_the_service() -> None:
    """As `svoyak run` wires it (buzzer/app/board.py): the host's keys are the
    host's buttons to the one service; during a pause (A-G-D1) the signal key is
    refused with the pause's sentence and nothing is journaled."""
    clock = Clock()
    controller = Controller.new({**demo_header(), "settle_ms": 0}, None, clock)
    runtime = Runtime(controller)  # stepped by hand: the clock is the test's
    keyboard = runtime.clock_source("keyboard")
    errors: list[Exception] = []

    def command(wire: Mapping[str, Any]) -> Future[Outcome]:
        return runtime.commands.submit(wire, sender=Sender.BUTTONS, source=keyboard)

    keys = KeyboardButtons(
        lambda make, trial: keyboard.put(make, trial=trial), 3, errors.append, command=command
    )

    def settle() -> None:
        clock.ns += 10_000_000
        runtime.settle()

    def panel(wire: dict[str, Any]) -> Outcome:
        sent = runtime.commands.submit(wire)
        settle()
        return sent.result(0)

    assert panel({"type": "select", "theme": 1, "price": 100}).accepted
    keys.handle(key(pygame.KEYDOWN, pygame.K_RETURN))
    settle()
    assert controller.snapshot()["phase"] == "reading" and errors == []
    assert panel({"type": "pause"}).accepted
    lines = len(controller._memory)
    keys.handle(key(pygame.KEYDOWN, pygame.K_SPACE))
    settle()
    assert len(errors) == 1 and isinstance(errors[0], CommandRefused)
    refusal = errors[0].refusal
    assert refusal is not None and refusal.code == "paused"
    assert len(controller._memory) == lines  # nothing journaled
    assert controller.snapshot()["phase"] == "reading"
    assert panel({"type": "resume"}).accepted
    keys.handle(key(pygame.KEYDOWN, pygame.K_SPACE))
    settle()
    assert controller.snapshot()["phase"] == "open" and len(errors) == 1
