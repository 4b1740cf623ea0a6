"""The committee's override (TOUR-1.9) as plain rules: buzzer/tournament/overrides.py."""

from __future__ import annotations

import pytest

from buzzer.tournament.errors import TournamentError
from buzzer.tournament.overrides import OverriddenGame, fed_next_draw, plan_override

GAME = OverriddenGame(
    game_id=7,
    recorded="2003-02-01T10:00:00+00:00",
    size=3,
    seats=((1, 1, 11), (2, 2, 12), (3, 3, 13)),
    winner=11,
    fed_next_draw=False,
)


@pytest.mark.parametrize(
    ("kind", "later", "superfinal", "final", "fed"),
    [
        ("stage", False, False, False, False),
        ("stage", True, False, False, True),  # the next stage is drawn
        ("stage", False, True, False, False),  # a semi-final with the superfinal drawn
        ("stage", False, True, True, True),  # the final fed the superfinal (TOUR-1.7)
        ("stage", False, False, True, False),
        ("superfinal", True, True, True, False),  # the superfinal feeds nothing
    ],
)
def test_what_has_fed_the_next_draw(
    kind: str, later: bool, superfinal: bool, final: bool, fed: bool
) -> None:
    assert fed_next_draw(kind, later, superfinal, final) is fed


def test_the_one_seat_placed_first_wins_and_the_journal_says_before_and_after() -> None:
    plan = plan_override(GAME, 7, {1: 2, 2: 1}, "  the jury accepted B's objection ")
    assert plan.winner == 12
    assert plan.places == {1: 2, 2: 1}
    assert plan.reason == "the jury accepted B's objection"
    assert plan.before == {"places": {"1": 1, "2": 2, "3": 3}, "winner_seat": 1}
    assert plan.after == {"places": {"1": 2, "2": 1, "3": 3}, "winner_seat": 2}


def test_two_seats_placed_first_leave_no_winner() -> None:
    plan = plan_override(GAME, 7, {2: 1}, "a tie by the jury")
    assert plan.winner is None
    assert plan.after["winner_seat"] is None


@pytest.mark.parametrize(
    ("game", "places", "reason", "words"),
    [
        (GAME, {1: 2}, " ", "needs --reason"),
        (GAME, {}, "why", "nothing to override"),
        (None, {1: 2}, "why", "there is no game 7"),
        (
            OverriddenGame(7, None, 3, (), None, False),
            {1: 2},
            "why",
            "has no result yet",
        ),
        (
            OverriddenGame(7, "x", 3, GAME.seats, 11, True),
            {1: 2},
            "why",
            "already fed the next draw",
        ),
        (GAME, {4: 1}, "why", "has no seat 4"),
        (GAME, {1: 4}, "why", "place 4 does not exist"),
    ],
)
def test_refusals_in_their_order(
    game: OverriddenGame | None, places: dict[int, int], reason: str, words: str
) -> None:
    with pytest.raises(TournamentError, match=words):
        plan_override(game, 7, places, reason)
