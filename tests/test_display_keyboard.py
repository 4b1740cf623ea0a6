"""The laptop keyboard as buttons: digit keys press, host keys drive the question."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame

from buzzer.arbiter.events import Input, Judge, Press, ReadingEnd, ReadingStart, Release
from display.keyboard import KeyboardButtons


def key(kind: int, code: int, repeat: bool = False) -> pygame.event.Event:
    return pygame.event.Event(kind, key=code, repeat=repeat)


def test_digit_keys_are_the_players_buttons_stamped_on_the_game_clock() -> None:
    got: list[Input] = []
    keys = KeyboardButtons(got.append, lambda ns: ns - 1000, seats=3)
    keys.handle(key(pygame.KEYDOWN, pygame.K_2))
    keys.handle(key(pygame.KEYDOWN, pygame.K_2, repeat=True))  # auto-repeat: not a press
    keys.handle(key(pygame.KEYUP, pygame.K_2))
    keys.handle(key(pygame.KEYDOWN, pygame.K_7))  # no seat 7 in a game of three
    assert [type(x) for x in got] == [Press, Release]
    assert got[0].seat == 2 and got[0].t <= got[1].t


def test_host_keys() -> None:
    got: list[Input] = []
    keys = KeyboardButtons(got.append, lambda ns: ns, seats=3)
    for code in (pygame.K_RETURN, pygame.K_SPACE, pygame.K_y, pygame.K_n):
        keys.handle(key(pygame.KEYDOWN, code))
    assert [type(x) for x in got] == [ReadingStart, ReadingEnd, Judge, Judge]
    judges = [x for x in got if isinstance(x, Judge)]
    assert [j.correct for j in judges] == [True, False]


def test_a_refused_host_key_is_reported_not_raised() -> None:
    errors: list[Exception] = []

    def refuse(item: Input) -> None:
        raise ValueError("nobody is answering")

    keys = KeyboardButtons(refuse, lambda ns: ns, seats=3, on_error=errors.append)
    keys.handle(key(pygame.KEYDOWN, pygame.K_y))
    assert [str(e) for e in errors] == ["nobody is answering"]
