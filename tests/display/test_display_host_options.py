"""The board shows what the engine says the host may do now, never its own derivation.

Whose turn it is to remove a final theme and the cat's value options are the
engine's ``HostOptions``, published with each snapshot: the board reads them
there, as the host's panel does. The decisions carry notes about the same
facts (``final_turn``, ``cat_prices``); a board that read those instead would
part ways with the engine after an undo, a resume or a change in the rules.
Each test here feeds notes that say one thing and options that say another.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pygame
import pytest

from buzzer.arbiter import events as ev
from display import view
from display.app import BoardApp
from display.i18n import tr
from display.renderer import render
from display.replay import JournalPlayer
from display.scene import Facts, Memory, Scene
from tests.support.display_support import NS, ScriptedGame, host_options

SIZE = (640, 360)
PLAYERS = ["Аня", "Борис", "Вера"]
FINAL = {"seats": [1, 2, 3], "themes_left": [1, 2, 3], "staked": [], "judge_order": [3, 2, 1]}


def snapshot(stage: str, **changes: Any) -> dict[str, Any]:
    """A hand-made snapshot of ``stage`` (only what the screens read)."""
    snap: dict[str, Any] = {
        "rules": "tv-modern",
        "players": PLAYERS,
        "stage": stage,
        "round": 1,
        "round_name": "Первый раунд",
        "themes": ["История"],
        "prices": [100, 200, 300, 400, 500],
        "played": [],
        "cell": None,
        "special": None,
        "scores": {"1": 300, "2": 200, "3": 100},
        "chooser": 1,
        "phase": "idle",
        "answering": None,
        "closes_at": None,
        "answer_deadline": None,
        "locked_until": {},
        "answered": [],
        "margins_us": {},
        "bidding": None,
        "value": None,
        "special_deadline": None,
        "final": None,
        "shootout": None,
        "winner": None,
        "over": False,
        "version": 7,
        "now": 10 * NS,
    }
    snap.update(changes)
    return snap


def pixels(scene: Scene) -> bytes:
    return pygame.image.tobytes(render(scene, SIZE, 10 * NS), "RGB")


def turn_marks(scene: Scene) -> list[int]:
    """The seats whose podium says it is their turn."""
    podiums = view.podiums(scene, 10 * NS, "ru")
    return [seat for seat, p in enumerate(podiums, 1) if p.status == tr("turn", "ru")]


@pytest.fixture
def app() -> Iterator[BoardApp]:
    board = BoardApp({"size": list(SIZE)}, sounds=False)
    board.open()
    yield board
    board.close()


# -- the board's facts come from the options, whatever the notes say ------------------


def test_the_memory_reads_no_final_turn_and_no_cat_prices() -> None:
    """The notes that narrate the host options are not the board's source."""
    facts = Memory().feed(
        [
            {"type": "final_started", "seats": [1, 2, 3], "themes": 3},
            {"type": "final_turn", "seat": 2},
            {"type": "special", "kind": "cat", "opener": 1},
            {"type": "cat_given", "from": 1, "to": 3},
            {"type": "cat_prices", "options": [100, 500]},
        ]
    )
    assert facts.final_turn is None and facts.cat_options == ()
    assert (facts.final_total, facts.cat_from, facts.cat_to) == (3, 1, 3)  # these it keeps


def test_the_final_turn_shown_is_the_options_turn(app: BoardApp) -> None:
    """Options say seat 2 with no ``final_turn`` note at all; then seat 3, while the
    notes still say seat 1: the board follows the options each time."""
    final = snapshot("final_remove", final=FINAL)
    app.publish(
        [{"type": "final_started", "seats": [1, 2, 3], "themes": 3}],
        final,
        host_options(final_turn=2),
    )
    app.frame()
    assert app.facts.final_turn == 2
    assert turn_marks(app.scene()) == [2]
    app.publish([{"type": "final_turn", "seat": 1}], final, host_options(final_turn=3))
    app.frame()
    assert app.facts.final_turn == 3 and turn_marks(app.scene()) == [3]
    # The screen is the one drawn for seat 3's turn, not seat 1's.
    drawn = pixels(app.scene())
    assert drawn == pixels(Scene(final, Facts(final_total=3, final_turn=3)))
    assert drawn != pixels(Scene(final, Facts(final_total=3, final_turn=1)))
    # Nobody said whose turn it is: the board names nobody rather than guess.
    app.publish([{"type": "final_turn", "seat": 1}], final)
    app.frame()
    assert app.facts.final_turn is None and turn_marks(app.scene()) == []


def test_the_cat_s_values_shown_are_the_options_values(app: BoardApp) -> None:
    cat = snapshot("cat_price", cell=[1, 300], special="cat", answering=3)
    choosing = tr("cat_price", "ru")
    notes = [
        {"type": "special", "kind": "cat", "opener": 1},
        {"type": "cat_given", "from": 1, "to": 3},
        {"type": "cat_prices", "options": [100, 500]},
    ]
    app.publish(notes, cat, host_options(cat_options=[200, 400]))
    app.frame()
    assert app.facts.cat_options == (200, 400)
    shown = view.cat_value(app.scene(), "ru")
    assert shown == f"{choosing}: {tr('cat_options', 'ru', a='200', b='400')}"
    # The note's 100 or 500 is never shown: without options there is no choice to name.
    app.publish([], cat, host_options())
    app.frame()
    assert app.facts.cat_options == () and view.cat_value(app.scene(), "ru") == choosing
    assert app.facts.cat_to == 3  # the hand-over is the decisions' (the memory's) fact


# -- every path that feeds the board passes the engine's options ------------------------


def final_game() -> ScriptedGame:
    """A one-question game of tv-modern into its final (three themes, three finalists)."""
    game = ScriptedGame(
        {
            "rules": "tv-modern",
            "players": PLAYERS,
            "seed": 5,
            "chooser": 1,
            "board": {"themes": ["История"], "prices": [100]},
            "final_themes": 3,
        }
    )
    for seat, score in ((1, 300), (2, 200), (3, 100)):
        game.do(lambda t, s=seat, v=score: ev.Correction(t, s, v, "start"))
    game.do(lambda t: ev.Select(t, 1, 100))
    game.do(lambda t: ev.Timeout(t))
    assert game.snap["stage"] == "final_remove"
    return game


def test_the_live_board_follows_the_turn_through_an_undo(app: BoardApp) -> None:
    """An undone removal gives the turn back with no ``final_turn`` note (only
    ``undone``): the last note names the next remover, the engine the previous one."""
    game = final_game()
    app.attach(game.controller)
    app.frame()
    first = game.controller.host_options()["final_turn"]
    assert first is not None and app.facts.final_turn == first
    game.do(lambda t: ev.FinalRemove(t, 3))
    app.frame()
    second = game.controller.host_options()["final_turn"]
    assert second not in (None, first) and app.facts.final_turn == second
    history = game.controller.core.history
    line = next(i.ref for i in reversed(history) if isinstance(i, ev.FinalRemove))
    game.do(lambda t: ev.Undo(t, line))
    app.frame()
    assert game.snap["final"]["themes_left"] == [1, 2, 3]
    notes = [d for frame in game.frames for d in frame.decisions]
    last_note = [d.get("seat") for d in notes if getattr(d, "type", None) == "final_turn"][-1]
    assert last_note == second  # what a board reading the notes would still show
    assert app.facts.final_turn == first == game.controller.host_options()["final_turn"]
    assert turn_marks(app.scene()) == [first]


def test_the_replay_shows_the_core_s_options() -> None:
    """``svoyak display replay`` and ``shot`` take the facts from the replayed core."""
    game = final_game()
    game.do(lambda t: ev.FinalRemove(t, 3))
    history = game.controller.core.history
    line = next(i.ref for i in reversed(history) if isinstance(i, ev.FinalRemove))
    game.do(lambda t: ev.Undo(t, line))
    player = JournalPlayer(game.controller.journal_lines())
    player.advance(game.t)
    assert player.snapshot()["stage"] == "final_remove"
    expected = player.core.host_options(player.now)["final_turn"]
    assert expected == game.controller.host_options()["final_turn"]
    assert player.facts().final_turn == expected
    assert player.host_options() is player.host_options()  # kept per version
