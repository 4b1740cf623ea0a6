"""The board's game-over screen (issue 38): the report's QR code and the journal's seal.

``svoyak run``'s board (SDL's dummy driver) over a finished game with a real,
sealed journal: the screen it draws names ``/report`` on the panel's address
(the QR code anyone may scan once the game is over) and the seal in its short
form, the very one ``svoyak journal verify`` recomputes, for the host to copy
onto the paper scoresheet. Before the game is over there is no such corner.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pygame
import pytest

import display.app
from buzzer.app.board import run_with_board
from buzzer.arbiter.events import Judge, ReadingEnd, ReadingStart, Select
from buzzer.journal.seal import short
from buzzer.journal.store import JournalStore
from buzzer.journal.verify import verify_file
from buzzer.runtime.controller import Controller
from buzzer.runtime.runtime import Runtime
from display.renderer import Renderer
from display.scene import AfterGame, screen_kind
from tests.support.live_run import IdleServer

HEADER = {
    "rules": "sport-false-start",
    "players": ["Аня", "Борис", "Вера"],
    "board": {"rounds": [{"name": "Раунд", "themes": ["Реки"], "prices": [100]}]},
    "settle_ms": 0,
}


#: The board's own frame, before any test wraps it.
FRAME = display.app.BoardApp.frame


def boards_drawn(monkeypatch: pytest.MonkeyPatch, runtime: Runtime, url: str) -> list[Any]:
    """Run ``svoyak run``'s board for a moment; every scene it drew."""
    drawn: list[Any] = []
    original = FRAME

    def frame(self: Any) -> Any:
        dirty = original(self)
        drawn.append(self.scene())
        return dirty

    monkeypatch.setattr(display.app.BoardApp, "frame", frame)
    with socket.socket() as sock:
        assert run_with_board(IdleServer(0.5), sock, runtime, url) == 0
    return drawn


def test_the_game_over_screen_shows_the_report_s_address_and_the_seal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = JournalStore(tmp_path / "game.sqlite")
    controller = Controller.new(HEADER, store)
    runtime = Runtime(controller).start()
    url = "http://192.168.1.23:8000/"
    try:
        before = boards_drawn(monkeypatch, runtime, url)
        runtime.wait(runtime.command(lambda t: Select(t, 1, 100)))
        runtime.wait(runtime.command(ReadingStart))
        runtime.wait(runtime.command(ReadingEnd))
        runtime.wait(runtime.press(2))
        runtime.wait(runtime.command(lambda t: Judge(t, True)))
        assert controller.snapshot()["stage"] == "over"
        after = boards_drawn(monkeypatch, runtime, url)
    finally:
        runtime.stop()
        store.close()
    assert before and all(scene.after is None for scene in before)
    seal = verify_file(tmp_path / "game.sqlite").seal
    assert seal is not None
    expected = AfterGame("http://192.168.1.23:8000/report", short(seal))
    assert after and after[-1].after == expected
    scene = after[-1]
    widgets = Renderer(pygame.Surface((1280, 720)))._widgets(screen_kind(scene), scene, 0)
    corner = [w for w in widgets if w.name == "after"]
    assert corner and corner[0].key == (expected.report_url, expected.seal)
