"""Team standings (TOUR-3.3–3.6, TOUR-3-D).

Team points come from places, but places here ignore any shootout: players
level on points share the mean of the points for the places they cover
(TOUR-3.5). Fractions keep 4/3 exact, so equal teams compare equal and the
§3.6 tie-break decides, not a rounding error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

#: TOUR-3.3/3.4: team points by place, for triples and for fours.
PLACE_POINTS: Mapping[int, tuple[int, ...]] = MappingProxyType({3: (3, 1, 0), 4: (3, 1, 1, 0)})


def place_points(size: int, place: int, tied: int = 1) -> Fraction:
    """Points for ``tied`` players level from ``place`` on in a game of ``size`` (TOUR-3.5)."""
    table = PLACE_POINTS[size]
    covered = table[place - 1 : place - 1 + tied]
    if len(covered) != tied:
        raise ValueError(f"places {place}..{place + tied - 1} do not exist in a game of {size}")
    return Fraction(sum(covered), tied)


def game_team_points(scores: Mapping[str, int]) -> Mapping[str, Fraction]:
    """Each player's team points from one game's final scores, shootout excluded (TOUR-3.5)."""
    size = len(scores)
    result: dict[str, Fraction] = {}
    for name, score in scores.items():
        place = 1 + sum(1 for s in scores.values() if s > score)
        tied = sum(1 for s in scores.values() if s == score)
        result[name] = place_points(size, place, tied)
    return MappingProxyType(result)


@dataclass(frozen=True, slots=True)
class TeamStanding:
    rank: int
    team: str
    #: TOUR-3.3/3.4: the team's total divided by its participating players.
    points: Fraction
    #: TOUR-3.6: the sum of its players' individual points over all games.
    individual_sum: int
    players: int


def team_standings(
    games: Iterable[Mapping[str, int]],
    teams: Mapping[str, Iterable[str]],
    participants: Iterable[str],
    *,
    points: Iterable[Mapping[str, Fraction]] | None = None,
) -> tuple[TeamStanding, ...]:
    """The team table from every triple and four of the tournament (TOUR-3-D).

    ``games`` are final scores without shootouts (qualifier excluded);
    ``teams`` are the teams with team standings (TOUR-1.3/1.4: ≥ 3 players);
    ``participants`` are everyone who played any stage, the qualifier
    included, which sets each team's divisor (TOUR-3-D). ``points``: each
    game's team points, game by game, when not those of its scores — a game
    whose places the committee set (TOUR-1.9) counts by those places.
    """
    games = list(games)
    per_game = [game_team_points(scores) for scores in games] if points is None else list(points)
    if len(per_game) != len(games):
        raise ValueError("points must give one mapping per game")
    played = set(participants)
    member_of: dict[str, str] = {}
    for team, members in teams.items():
        for name in members:
            if name in member_of:
                raise ValueError(f"{name!r} counts for two teams (TOUR-1.3/1.4)")
            member_of[name] = team
    totals = {team: Fraction(0) for team in teams}
    sums = dict.fromkeys(teams, 0)
    for scores, earned in zip(games, per_game, strict=True):
        for name, value in earned.items():
            owner = member_of.get(name)
            if owner is not None:
                totals[owner] += value
                sums[owner] += scores[name]
    rows = []
    for team, members in teams.items():
        divisor = sum(1 for name in set(members) if name in played)
        share = totals[team] / divisor if divisor else Fraction(0)
        rows.append((share, sums[team], team, divisor))
    rows.sort(key=lambda r: (-r[0], -r[1], r[2]))
    result: list[TeamStanding] = []
    for index, (share, total, team, divisor) in enumerate(rows):
        if result and (result[-1].points, result[-1].individual_sum) == (share, total):
            rank = result[-1].rank
        else:
            rank = index + 1
        result.append(
            TeamStanding(rank=rank, team=team, points=share, individual_sum=total, players=divisor)
        )
    return tuple(result)
