"""The draw into games (TOUR-3.1), keeping teammates apart where possible.

Separation is a soft constraint. Teams are placed largest first, and each
member goes to a game with the fewest teammates already in it, then with the
most free seats: filling the roomiest games first is the Gale–Ryser greedy,
which separates every team whenever a separating draw exists. Every other
choice is left to the lot, which is a seeded ``random.Random`` passed in so
that the draw can be journaled and replayed.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player as the draw sees them: the team matters only for separation."""

    name: str
    team: str | None = None


@dataclass(frozen=True, slots=True)
class Draw:
    """One stage's games; game ``i`` has ``sizes[i]`` players."""

    games: tuple[tuple[str, ...], ...]

    def game_of(self, name: str) -> int:
        for index, game in enumerate(self.games):
            if name in game:
                return index
        raise KeyError(name)


def draw_games(entrants: Sequence[Entrant], sizes: Sequence[int], rng: random.Random) -> Draw:
    """Seat ``entrants`` into games of ``sizes`` (TOUR-3.1; later stages too, §3.2).

    Players without a team are singletons: they can never clash, so they go
    last and fill whatever seats remain.
    """
    if sum(sizes) != len(entrants):
        raise ValueError(f"{len(entrants)} players for {sum(sizes)} seats")
    names = [e.name for e in entrants]
    if len(set(names)) != len(names):
        raise ValueError("a player is entered twice")
    groups: dict[str, list[str]] = {}
    loners: list[str] = []
    for entrant in entrants:
        if entrant.team is None:
            loners.append(entrant.name)
        else:
            groups.setdefault(entrant.team, []).append(entrant.name)
    # The lot decides the order among equal-sized teams and within a team.
    teams = sorted(groups.items(), key=lambda kv: kv[0])
    rng.shuffle(teams)
    teams.sort(key=lambda kv: -len(kv[1]))
    batches: list[list[str]] = [members for _, members in teams]
    batches.extend([name] for name in loners)

    seats: list[list[str]] = [[] for _ in sizes]
    for members in batches:
        rng.shuffle(members)
        here = [0] * len(sizes)
        for name in members:
            order = list(range(len(sizes)))
            rng.shuffle(order)
            best = min(
                (i for i in order if len(seats[i]) < sizes[i]),
                key=lambda i: (here[i], len(seats[i]) - sizes[i]),
            )
            seats[best].append(name)
            here[best] += 1
    return Draw(games=tuple(tuple(game) for game in seats))


def clashes(draw: Draw, teams: Mapping[str, str | None]) -> int:
    """Pairs of teammates sharing a game: 0 means every team is separated."""
    total = 0
    for game in draw.games:
        seen: dict[str, int] = {}
        for name in game:
            team = teams.get(name)
            if team is not None:
                total += seen.get(team, 0)
                seen[team] = seen.get(team, 0) + 1
    return total


def separable(team_sizes: Iterable[int], sizes: Sequence[int]) -> bool:
    """Whether a draw with no teammates sharing a game exists (Gale–Ryser).

    Rows are teams (singletons included), columns are games; each team puts
    at most one player in each game.
    """
    rows = sorted(team_sizes, reverse=True)
    if sum(rows) != sum(sizes):
        return False
    running = 0
    for k, row in enumerate(rows, start=1):
        running += row
        if running > sum(min(size, k) for size in sizes):
            return False
    return True
