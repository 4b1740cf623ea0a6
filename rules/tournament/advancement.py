"""Advancement from one stage to the next (TOUR-3.2).

Game winners go first. The slots left over, when the stage's count is not a
power of three, go to the best non-winners by place tier, then by points in
the last game; a tie straddling the cut is not broken here but reported, since
the regulations settle it at the table with a one-theme shootout.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from types import MappingProxyType


class Tier(IntEnum):
    """TOUR-3.2 key 1: a non-winner's place tier (lower ranks first)."""

    #: 2nd places in fours and triples; also 1st place of a game with no winner (TOUR-3.2 DEFAULT).
    SECOND = 1
    #: 3rd places in fours.
    THIRD_IN_FOUR = 2
    #: 3rd places in triples and 4th places in fours.
    LAST = 3


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game: final scores without any shootout (TOUR-3.2 DEFAULT).

    ``winner`` is whoever won, by score or by shootout (C2003-2.8); None for
    a game with no winner (C2003-2.6b).
    """

    scores: Mapping[str, int]
    winner: str | None

    def __post_init__(self) -> None:
        if len(self.scores) not in (3, 4):
            raise ValueError("a game has three or four players (C2003-2.1, TOUR-3.1.2)")
        if self.winner is not None and self.winner not in self.scores:
            raise ValueError(f"winner {self.winner!r} did not play")
        object.__setattr__(self, "scores", MappingProxyType(dict(self.scores)))

    def places(self) -> Mapping[str, int]:
        """Places by score; the winner is 1st; tied players share the better place.

        TOUR-3.2 DEFAULT: a player tied with the winner (beaten in the
        shootout) is 2nd; a game with no winner places everyone by score.
        """
        result: dict[str, int] = {}
        others = dict(self.scores)
        offset = 1
        if self.winner is not None:
            result[self.winner] = 1
            del others[self.winner]
            offset = 2
        for name, score in others.items():
            result[name] = offset + sum(1 for s in others.values() if s > score)
        return MappingProxyType(result)

    def tier(self, name: str) -> Tier | None:
        """The TOUR-3.2 tier of a non-winner; None for the winner."""
        if name == self.winner:
            return None
        place = self.places()[name]
        if place <= 2:
            return Tier.SECOND
        if place == 3 and len(self.scores) == 4:
            return Tier.THIRD_IN_FOUR
        return Tier.LAST


@dataclass(frozen=True, slots=True)
class Contender:
    """A non-winner in the TOUR-3.2 list."""

    name: str
    tier: Tier
    points: int


@dataclass(frozen=True, slots=True)
class Advancement:
    """Who is through, and whether a shootout must settle the last slots."""

    #: Game winners, then the non-winners above the cut, in ranked order.
    advancing: tuple[str, ...]
    #: TOUR-3.2 key 3: players tied at the cut, who play one theme for ``shootout_slots``.
    shootout: tuple[str, ...] = ()
    shootout_slots: int = 0
    #: Every non-winner in TOUR-3.2 order, for the printed table.
    ranking: tuple[Contender, ...] = ()

    @property
    def complete(self) -> bool:
        return not self.shootout


def rank_non_winners(games: Iterable[GameResult]) -> tuple[Contender, ...]:
    """TOUR-3.2 keys 1 and 2: tier, then points in the last game."""
    contenders = [
        Contender(name=name, tier=tier, points=game.scores[name])
        for game in games
        for name in game.scores
        if (tier := game.tier(name)) is not None
    ]
    return tuple(sorted(contenders, key=lambda c: (c.tier, -c.points, c.name)))


def advance(games: Iterable[GameResult], slots: int) -> Advancement:
    """Fill ``slots`` of the next stage from a stage's ``games`` (TOUR-3.2)."""
    played = tuple(games)
    winners = tuple(g.winner for g in played if g.winner is not None)
    if len(winners) > slots:
        raise ValueError(f"{len(winners)} winners for {slots} slots")
    ranking = rank_non_winners(played)
    free = slots - len(winners)
    if free > len(ranking):
        raise ValueError(f"{free} open slots but only {len(ranking)} non-winners")
    if free == 0:
        return Advancement(advancing=winners, ranking=ranking)

    def key(c: Contender) -> tuple[Tier, int]:
        return (c.tier, -c.points)

    cut = key(ranking[free - 1])
    above = [c.name for c in ranking if key(c) < cut]
    tied = [c.name for c in ranking if key(c) == cut]
    if len(above) + len(tied) == free:
        return Advancement(advancing=winners + tuple(above + tied), ranking=ranking)
    return Advancement(
        advancing=winners + tuple(above),
        shootout=tuple(tied),
        shootout_slots=free - len(above),
        ranking=ranking,
    )
