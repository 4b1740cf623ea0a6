"""The committee's override of a recorded game's places (TOUR-1.9), from plain data.

The store (:mod:`buzzer.tournament.store`) reads the game as it is recorded
(:class:`OverriddenGame`: its size, its seats' places and players, its winner,
whether its stage has fed a later draw) and writes what :func:`plan_override`
returns (the new places and winner, the journal entry's before and after).
The rules themselves are here, with no SQLite: who may be overridden, which
seats and places exist, and who wins once the places change. A game whose
places the committee set counts by those places in the standings
(:func:`buzzer.tournament.standings.game_points`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from buzzer.tournament.errors import TournamentError


@dataclass(frozen=True, slots=True)
class OverriddenGame:
    """A game as the store has it recorded, before the override."""

    game_id: int
    #: When its result was recorded (None: not yet).
    recorded: str | None
    size: int
    #: ``(seat, place, player id)`` of each seat with a result, in seat order.
    seats: tuple[tuple[int, int, int], ...]
    #: The winner's player id (None: no winner).
    winner: int | None
    #: Its stage is a stage (not the superfinal) and has fed a later draw: a later
    #: stage of its age group is drawn, or it is the final and the superfinal is.
    fed_next_draw: bool


@dataclass(frozen=True, slots=True)
class OverridePlan:
    """What the store writes: the places of the seats given, the new winner (a player
    id, or None), and the journal entry (``before``/``after``, the reason)."""

    places: Mapping[int, int]
    winner: int | None
    before: dict[str, Any]
    after: dict[str, Any]
    reason: str


def fed_next_draw(kind: str, later_stage: bool, superfinal_drawn: bool, final: bool) -> bool:
    """Whether a stage's games have fed a later draw, so that an override would not
    change it: a later stage of the age group is drawn, or the stage is the final (one
    game) and the superfinal is drawn (TOUR-1.7). The superfinal feeds nothing."""
    return kind == "stage" and (later_stage or (final and superfinal_drawn))


def check_request(places: Mapping[int, int], reason: str) -> str:
    """The request's own refusals (before the game is looked up); the reason, stripped."""
    if not reason.strip():
        raise TournamentError("an override needs --reason (TOUR-1.9: the committee's decision)")
    if not places:
        raise TournamentError("nothing to override: give --place SEAT=PLACE")
    return reason.strip()


def plan_override(
    game: OverriddenGame | None, game_id: int, places: Mapping[int, int], reason: str
) -> OverridePlan:
    """TOUR-1.9: the committee sets places of a recorded game.

    The winner becomes the one seat placed 1st (none if no seat or several
    are). Refused for a game not recorded yet, once the game's stage has fed a
    later draw, and for a seat or a place the game does not have.
    """
    reason = check_request(places, reason)
    if game is None:
        raise TournamentError(f"there is no game {game_id}")
    if game.recorded is None:
        raise TournamentError(f"game {game_id} has no result yet: record it first")
    if game.fed_next_draw:
        raise TournamentError(
            f"game {game_id}'s stage already fed the next draw; the override would not change it"
        )
    size = game.size
    for seat, place in places.items():
        if not 1 <= seat <= size:
            raise TournamentError(f"game {game_id} has no seat {seat} (seats 1–{size})")
        if not 1 <= place <= size:
            raise TournamentError(f"place {place} does not exist in a game of {size}")
    before = {str(seat): place for seat, place, _ in game.seats}
    after = {**before, **{str(s): p for s, p in places.items()}}
    firsts = [s for s, p in after.items() if p == 1]
    player_of = {str(seat): pid for seat, _, pid in game.seats}
    new_winner = player_of[firsts[0]] if len(firsts) == 1 else None
    seat_of = {pid: seat for seat, _, pid in game.seats}
    return OverridePlan(
        places=dict(places),
        winner=new_winner,
        before={
            "places": before,
            "winner_seat": None if game.winner is None else seat_of.get(game.winner),
        },
        after={"places": after, "winner_seat": None if new_winner is None else seat_of[new_winner]},
        reason=reason,
    )
