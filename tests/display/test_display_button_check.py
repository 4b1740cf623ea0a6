"""A-G-D2 on the board: a press while no question is open names the player for a moment.

The engine marks the press a button check (``Ignored.check``); the board only
words it — «Кнопка работает: Анна» in the header's right-hand side (where a
question's price stands), or on the start screen, which stays up through
checks — for :data:`display.view.CHECK_SHOWN_NS` of game time. Driven by the
real controller with its clock advanced by hand (no sleeps), SDL's dummy driver.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from buzzer.arbiter import events as ev
from buzzer.arbiter.decisions import Ignored, QuestionSelected
from display import view
from display.app import BoardApp
from display.scene import Memory, Scene, StartInfo
from tests.support.display_support import NS, ScriptedGame

PLAYERS = ["Анна", "Борис", "Вера"]


@pytest.fixture
def app() -> Iterator[BoardApp]:
    board = BoardApp(
        {"size": [640, 360], "sound": {"mute": True}},
        start=StartInfo(url="http://10.0.0.5:8000/panel"),
        sounds=False,
    )
    board.open()
    yield board
    board.close()


def header(app: BoardApp) -> tuple[str, str]:
    """The header's key as last drawn: its (left, right) texts."""
    assert app.renderer is not None
    left, right = app.renderer._drawn["header"][1]
    return str(left), str(right)


def test_A_G_D2_before_the_game_a_press_is_named_and_the_start_screen_stays(
    app: BoardApp,
) -> None:
    game = ScriptedGame({"rules": "tv-modern", "players": PLAYERS, "chooser": 1})
    app.attach(game.controller)
    app.frame()
    game.do(lambda t: ev.Press(t, 2))
    app.frame()
    assert app.show_start  # the host may still be scanning the panel's code
    assert view.button_check(app.scene(), app.now(), "ru") == "Кнопка работает: Борис"
    assert app.renderer is not None and app.renderer._drawn["start"][1][3] == (
        "Кнопка работает: Борис"
    )
    game.wait(2.0)  # two seconds of game time later the line is gone
    app.frame()
    assert app.renderer._drawn["start"][1][3] == ""
    # The first real input of the game takes the start screen away, as before.
    game.do(lambda t: ev.Select(t, 1, 100))
    app.frame()
    assert not app.show_start


def test_A_G_D2_between_questions_the_header_names_who_pressed_for_two_seconds(
    app: BoardApp,
) -> None:
    game = ScriptedGame({"rules": "tv-modern", "players": PLAYERS, "chooser": 1})
    app.attach(game.controller)
    game.do(lambda t: ev.Select(t, 1, 100))
    game.do(lambda t: ev.ReadingStart(t))
    game.do(lambda t: ev.ReadingEnd(t))
    game.do(lambda t: ev.Press(t, 1), gap=0.2)
    game.do(lambda t: ev.Judge(t, True))
    app.frame()
    assert app.snapshot is not None and app.snapshot["stage"] == "board"
    assert header(app)[1] == ""
    scores = dict(app.snapshot["scores"])
    game.do(lambda t: ev.Press(t, 3), gap=1.0)
    app.frame()
    assert header(app)[1] == "Кнопка работает: Вера"
    assert app.snapshot["scores"] == scores  # it decided nothing
    game.wait(1.9)
    app.frame()
    assert header(app)[1] == "Кнопка работает: Вера"
    game.wait(0.2)
    app.frame()
    assert header(app)[1] == ""


def test_A_G_D2_a_press_inside_a_question_is_not_named(app: BoardApp) -> None:
    game = ScriptedGame({"rules": "tv-modern", "players": PLAYERS, "chooser": 1})
    app.attach(game.controller)
    game.do(lambda t: ev.Select(t, 1, 100))
    game.do(lambda t: ev.Press(t, 2))  # chosen, not read yet: ignored, no check
    app.frame()
    assert app.facts.checked is None
    assert view.button_check(app.scene(), app.now(), "ru") == ""


def test_A_G_D2_a_question_chosen_ends_the_line_and_json_lines_carry_no_check() -> None:
    memory = Memory()
    facts = memory.feed([Ignored(3 * NS, 2, "not_open", check=True)])
    assert facts.checked == (2, 3 * NS)
    assert memory.feed([QuestionSelected(3 * NS + 1, 1, 1, 100)]).checked is None
    # A journal's JSON line says only "ignored": a replayed file names nobody.
    line = {"t": 5.0, "type": "ignored", "seat": 1, "reason": "not_open"}
    assert Memory().feed([line]).checked is None


def test_A_G_D2_the_words_in_english_and_only_on_the_board() -> None:
    snapshot = {"stage": "board", "players": PLAYERS, "now": 10 * NS}
    facts = Memory().feed([Ignored(9 * NS, 1, "window_closed", check=True)])
    scene = Scene(snapshot, facts)  # type: ignore[arg-type]
    assert view.button_check(scene, 10 * NS, "en") == "Button works: Анна"
    assert view.button_check(scene, 11 * NS, "en") == ""  # 2 s after the press
    question = Scene({**snapshot, "stage": "question"}, facts)  # type: ignore[arg-type]
    assert view.button_check(question, 10 * NS, "en") == ""
    # paused on the board (A-G-D1): named on real time, not the pause's frozen instant
    paused = Scene({**snapshot, "paused_at": 5 * NS}, facts)  # type: ignore[arg-type]
    assert view.button_check(paused, 10 * NS, "en") == "Button works: Анна"
