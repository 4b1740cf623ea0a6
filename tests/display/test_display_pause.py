"""A-G-D1 on the board: a paused game shows a full «Пауза» screen with its timers frozen.

Driven through the real controller (``ScriptedGame``): the snapshot's
``paused_at`` puts up the pause screen, every countdown and lockout shows what
was left at the pause however long it lasts, nothing animates, the question's
sound holds; after the resume the question's screen is back with the same
time left. The pictures themselves are golden images (``pause``,
``pause_english`` in test_display_golden.py).
"""

from __future__ import annotations

import pygame

from buzzer.arbiter import events as ev
from display import scene as screens
from display import view
from display.media import PAUSE, PLAY, audio_wanted
from display.renderer import render
from display.scene import screen_kind
from tests.support.display_support import MS, NS, ScriptedGame

SIZE = (640, 360)


def pixels(surface: pygame.Surface) -> bytes:
    return pygame.image.tobytes(surface, "RGB")


def test_A_G_D1_the_board_shows_the_pause_with_its_clocks_frozen_then_the_game_again() -> None:
    game = ScriptedGame({"type": "game", "rules": "tv-modern", "players": ["Анна", "Борис", "Вера"],
                         "chooser": 1, "settle_ms": 0})  # fmt: skip
    game.do(lambda t: ev.Select(t, 1, 100))
    game.do(lambda t: ev.ReadingStart(t))
    game.do(lambda t: ev.Press(t, 2), gap=0.2)  # a false start: Борис is locked for 2 s
    game.do(lambda t: ev.ReadingEnd(t), gap=0.3)
    game.do(lambda t: ev.Pause(t), gap=1.0)
    scene = game.frames[-1].scene(question_text="Вопрос")
    paused_at = game.snap["paused_at"]
    assert paused_at is not None and screen_kind(scene) == screens.PAUSE
    at_pause = view.countdown(scene, paused_at)
    assert at_pause is not None and at_pause.remaining == game.snap["closes_at"] - paused_at
    game.wait(20.0)  # far longer than the window
    later = game.t
    assert view.countdown(scene, later) == at_pause  # frozen
    assert not view.animating(scene, later)
    assert audio_wanted(scene.snapshot) == PAUSE
    clocks = dict(view.paused_clocks(scene, "ru"))
    assert clocks == {"Окно для ответа": "2,0 с", "Фальстарт: Борис": "0,7 с"}
    assert pixels(render(scene, SIZE, later)) == pixels(render(scene, SIZE, paused_at + MS))
    game.do(lambda t: ev.Resume(t), gap=0.0)
    back = game.frames[-1].scene(question_text="Вопрос")
    assert screen_kind(back) == screens.QUESTION and audio_wanted(back.snapshot) == PLAY
    timer = view.countdown(back, game.t)
    assert timer is not None and abs(timer.remaining - at_pause.remaining) < 20 * MS
    game.do(lambda t: ev.Press(t, 3), gap=1.5)
    assert game.snap["answering"] == 3  # the window open at the pause was still open
    assert game.t - paused_at > 20 * NS


def test_A_G_D1_the_pause_screen_says_pause_in_english() -> None:
    game = ScriptedGame({"type": "game", "rules": "tv-modern", "players": ["A", "B", "C"],
                         "chooser": 1, "settle_ms": 0})  # fmt: skip
    game.do(lambda t: ev.Pause(t))
    scene = game.frames[-1].scene()
    assert screen_kind(scene) == screens.PAUSE and view.paused_clocks(scene, "en") == []
    english = render(scene, SIZE, game.t, "en")
    assert pixels(english) != pixels(render(scene, SIZE, game.t, "ru"))
