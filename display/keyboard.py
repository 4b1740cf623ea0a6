"""The laptop's keyboard as buttons: `svoyak run` with no GPIO and no Pico.

Digit keys 1–9 are the players' buttons; the host has the signal (Space:
the end of reading), Enter (start or resume reading), Y / N (correct /
wrong). A player's key is turned into the same timestamped input a GPIO edge
would give; a host key is a host command in its wire form, handed to the
runtime's host-command service like the panel's taps (refused while the game
is paused; a refusal is told, never raised).

SDL's key events carry no timestamp pygame exposes, so a key is stamped
when the board's loop reads it (within a frame, about 16 ms at 60 fps), by
the runtime's keyboard source (``buzzer/runtime/sources.py``), which stamps
and hands over in one step so that its watermark is exact. The keyboard is
the demo fallback; for a fair game use the GPIO buttons or the Pico.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any

import pygame

from buzzer.arbiter.events import Input, Press, Release
from buzzer.runtime.host_commands import Outcome
from buzzer.runtime.results import CommandRefused

#: Keys of the host's commands, in their wire form (docs/panel.md's commands).
HOST_KEYS: dict[int, Mapping[str, str]] = {
    pygame.K_SPACE: {"type": "reading_end"},
    pygame.K_RETURN: {"type": "reading_start"},
    pygame.K_KP_ENTER: {"type": "reading_start"},
    pygame.K_y: {"type": "judge", "verdict": "correct"},
    pygame.K_n: {"type": "judge", "verdict": "wrong"},
}


#: ``put(make, trial)``: stamp ``make(t)`` now and hand it over (a player's key).
Put = Callable[[Callable[[int], Input], bool], Any]
#: ``command(wire)``: a host command for the host-command service (stamped now by the
#: keyboard's source, sent as the host's buttons), its future the service's outcome.
Command = Callable[[Mapping[str, Any]], "Future[Outcome]"]


class KeyboardButtons:
    """Turns pygame key events into inputs, stamped by the source they are put to."""

    def __init__(
        self,
        put: Put,
        seats: int,
        on_error: Callable[[Exception], None] | None = None,
        *,
        command: Command,
    ) -> None:
        self.put = put
        self.command = command
        self.seat_keys = {pygame.K_1 + i: i + 1 for i in range(min(seats, 9))}
        self.seat_keys.update({pygame.K_KP1 + i: i + 1 for i in range(min(seats, 9))})
        self.on_error = on_error

    def handle(self, event: pygame.event.Event) -> None:
        if event.type not in (pygame.KEYDOWN, pygame.KEYUP):
            return
        seat = self.seat_keys.get(event.key)
        if seat is not None:
            if event.type == pygame.KEYDOWN and not getattr(event, "repeat", False):
                self._put(lambda t: Press(t, seat), False)
            elif event.type == pygame.KEYUP:
                self._put(lambda t: Release(t, seat), False)
            return
        wire = HOST_KEYS.get(event.key)
        if wire is not None and event.type == pygame.KEYDOWN:
            self._command(wire)

    def _put(self, make: Callable[[int], Input], trial: bool) -> None:
        try:
            result = self.put(make, trial)
        except Exception as exc:  # a host key that makes no sense now: tell, don't crash
            self._failed(exc)
            return
        if isinstance(result, Future):
            result.add_done_callback(self._done)

    def _command(self, wire: Mapping[str, Any]) -> None:
        try:
            sent = self.command(wire)
        except Exception as exc:  # a host key that makes no sense now: tell, don't crash
            self._failed(exc)
            return
        sent.add_done_callback(self._answered)

    def _done(self, future: Future[Any]) -> None:
        exc = future.exception()
        if exc is not None:
            self._failed(exc)

    def _answered(self, future: Future[Outcome]) -> None:
        refusal = future.result().refusal
        if refusal is not None:
            self._failed(CommandRefused(refusal.engine or refusal.en, refusal))

    def _failed(self, exc: BaseException) -> None:
        if self.on_error is None or not isinstance(exc, Exception):
            raise exc
        self.on_error(exc)
