"""The tournament's tables, computed from plain records (TOUR-3.3–3.6, TOUR-1.9).

The store (:mod:`buzzer.tournament.store`) reads the registry, the drawn
games and each recorded seat; the tables made from them (a seat's team
points, the individual table of each age group, the team table) are here,
with no SQLite and no I/O, so they can be tested without a database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from buzzer.tournament.records import DrawnGame, SeatResult
from rules.tournament.registration import AgeGroup, Player, Registry
from rules.tournament.team_points import (
    TeamStanding,
    game_team_points,
    place_points,
    team_standings,
)


@dataclass(frozen=True, slots=True)
class PlayerStanding:
    """One line of an age group's individual table."""

    rank: int
    name: str
    age_group: AgeGroup
    team: str | None
    #: The last stage the player was drawn into (1 = the first stage).
    stage: int
    games: int
    #: Place in the last recorded game (None until a game of theirs is recorded).
    last_place: int | None
    points: int


def game_points(
    scores: Mapping[str, int], overridden_places: Mapping[str, int] | None = None
) -> Mapping[str, Fraction]:
    """One game's team points by player.

    They come from the scores (TOUR-3.5: a tie shares the places' points,
    whatever a shootout decided); a game whose result the committee overrode
    (TOUR-1.9) counts by the places it set, ``overridden_places``.
    """
    if overridden_places is None:
        return game_team_points(scores)
    ps = overridden_places
    return {
        name: place_points(len(ps), place, sum(1 for p in ps.values() if p == place))
        for name, place in ps.items()
    }


def individual_table(
    registry: Registry, games: Iterable[DrawnGame], seats: Iterable[SeatResult]
) -> tuple[PlayerStanding, ...]:
    """Per age group: furthest stage, then place in the last game, then points."""
    stage_of: dict[str, int] = {}
    for game in games:
        if game.superfinal:
            continue
        for name in game.players:
            stage_of[name] = max(stage_of.get(name, 0), game.stage)
    played: dict[str, list[SeatResult]] = {}
    for result in seats:
        if result.superfinal:
            continue
        played.setdefault(result.name, []).append(result)
    table: list[PlayerStanding] = []
    for group in AgeGroup:
        rows: list[tuple[int, int | None, int, Player, int]] = []
        for player in registry.group(group):
            mine = played.get(player.name, [])
            last = mine[-1].place if mine and mine[-1].stage == stage_of.get(player.name) else None
            rows.append(
                (
                    stage_of.get(player.name, 0),
                    last,
                    sum(r.score for r in mine),
                    player,
                    len(mine),
                )
            )
        rows.sort(key=lambda r: (-r[0], r[1] if r[1] is not None else 99, -r[2], r[3].name))
        for index, (stage, last, total, player, count) in enumerate(rows, start=1):
            table.append(
                PlayerStanding(
                    rank=index,
                    name=player.name,
                    age_group=group,
                    team=player.team,
                    stage=stage,
                    games=count,
                    last_place=last,
                    points=total,
                )
            )
    return tuple(table)


def team_table(
    registry: Registry,
    games: Iterable[DrawnGame],
    seats: Sequence[SeatResult],
    qualifier: Iterable[str],
) -> tuple[TeamStanding, ...]:
    """TOUR-3.3–3.6 over every recorded seat; divisor: the team's players who played.

    The team points are the seats' own, so a game the committee overrode
    counts by its places here as in the export (TOUR-1.9). Who played is
    everyone drawn into a game and everyone in the written qualifier
    (TOUR-3-D): a member cut there still counts in the team's divisor.
    """
    by_game: dict[int, dict[str, int]] = {}
    earned: dict[int, dict[str, Fraction]] = {}
    for result in seats:
        by_game.setdefault(result.game_id, {})[result.name] = result.score
        earned.setdefault(result.game_id, {})[result.name] = result.team_points
    participants = {n for g in games for n in g.players} | set(qualifier)
    return team_standings(
        list(by_game.values()),
        registry.ranked_teams(),
        participants,
        points=[earned[g] for g in by_game],
    )
