"""The laptop keyboard as buttons: digit keys press, host keys drive the question."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame

from buzzer.arbiter.events import Input, Judge, Press, ReadingEnd, ReadingStart, Release
from display.keyboard import KeyboardButtons


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


def test_digit_keys_are_the_players_buttons_stamped_by_their_source() -> None:
    recorder = Recorder()
    got = recorder.got
    keys = KeyboardButtons(recorder, seats=3)
    keys.handle(key(pygame.KEYDOWN, pygame.K_2))
    keys.handle(key(pygame.KEYDOWN, pygame.K_2, repeat=True))  # auto-repeat: not a press
    keys.handle(key(pygame.KEYUP, pygame.K_2))
    keys.handle(key(pygame.KEYDOWN, pygame.K_7))  # no seat 7 in a game of three
    assert [type(x) for x in got] == [Press, Release]
    assert got[0].seat == 2 and got[0].t < got[1].t
    assert recorder.trials == [False, False]  # presses are never tried on a copy


def test_host_keys_are_host_commands_tried_before_the_journal() -> None:
    recorder = Recorder()
    got = recorder.got
    keys = KeyboardButtons(recorder, seats=3)
    for code in (pygame.K_RETURN, pygame.K_SPACE, pygame.K_y, pygame.K_n):
        keys.handle(key(pygame.KEYDOWN, code))
    assert [type(x) for x in got] == [ReadingStart, ReadingEnd, Judge, Judge]
    judges = [x for x in got if isinstance(x, Judge)]
    assert [j.correct for j in judges] == [True, False]
    assert recorder.trials == [True] * 4


def test_a_refused_host_key_is_reported_not_raised() -> None:
    errors: list[Exception] = []

    def refuse(make: Callable[[int], Input], trial: bool) -> Future[None]:
        future: Future[None] = Future()
        future.set_exception(ValueError("nobody is answering"))
        return future

    keys = KeyboardButtons(refuse, seats=3, on_error=errors.append)
    keys.handle(key(pygame.KEYDOWN, pygame.K_y))
    assert [str(e) for e in errors] == ["nobody is answering"]
