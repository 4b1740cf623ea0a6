"""The laptop's keyboard as buttons: `svoyak run` with no GPIO and no Pico.

Digit keys 1–9 are the players' buttons; the host has the signal (Space:
the end of reading), Enter (start or resume reading), Y / N (correct /
wrong). Each key is turned into the same timestamped input a GPIO edge
would give.

SDL's key events carry no timestamp pygame exposes, so a key is stamped
when the board's loop reads it (within a frame, about 16 ms at 60 fps). Two
keys read in the same frame get the same stamp: an exact tie, settled by a
journaled draw — never by the order SDL listed them. The keyboard is the
demo fallback; for a fair game use the GPIO buttons or the Pico.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pygame

from buzzer.arbiter.events import Input, Judge, Press, ReadingEnd, ReadingStart, Release

#: Keys of the host's commands.
HOST_KEYS: dict[int, Callable[[int], Input]] = {
    pygame.K_SPACE: ReadingEnd,
    pygame.K_RETURN: ReadingStart,
    pygame.K_KP_ENTER: ReadingStart,
    pygame.K_y: lambda t: Judge(t, True),
    pygame.K_n: lambda t: Judge(t, False),
}


class KeyboardButtons:
    """Turns pygame key events into inputs for the controller."""

    def __init__(
        self,
        submit: Callable[[Input], Any],
        game_time: Callable[[int], int],
        seats: int,
        on_error: Callable[[Exception], None] | None = None,
    ) -> None:
        self.submit = submit
        self.game_time = game_time
        self.seat_keys = {pygame.K_1 + i: i + 1 for i in range(min(seats, 9))}
        self.seat_keys.update({pygame.K_KP1 + i: i + 1 for i in range(min(seats, 9))})
        self.on_error = on_error

    def handle(self, event: pygame.event.Event) -> None:
        if event.type not in (pygame.KEYDOWN, pygame.KEYUP):
            return
        t = self.game_time(time.monotonic_ns())
        seat = self.seat_keys.get(event.key)
        if seat is not None:
            if event.type == pygame.KEYDOWN and not getattr(event, "repeat", False):
                self._submit(Press(t, seat))
            elif event.type == pygame.KEYUP:
                self._submit(Release(t, seat))
            return
        make = HOST_KEYS.get(event.key)
        if make is not None and event.type == pygame.KEYDOWN:
            self._submit(make(t))

    def _submit(self, item: Input) -> None:
        try:
            self.submit(item)
        except Exception as exc:  # a host key that makes no sense now: tell, don't crash
            if self.on_error is None:
                raise
            self.on_error(exc)
