"""The written qualifier (TOUR-2.9): scoring, ranking, and the cut at 27.

Ties are broken by the Blue round only; players still tied at the cut all
advance, and the 1/9 final absorbs them as fours (TOUR-3.1.2). Ties below or
above the cut change nothing, so places are shared rather than broken.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rules.tournament.stages import (
    MAX_WITHOUT_QUALIFIER,
    NINTH_FINAL_PLAYERS,
    CommitteeDecision,
    StagePlan,
    plan_games,
)

#: TOUR-2.9 DEFAULT: a wrong or blank written answer costs nothing.
QUALIFIER_WRONG_PENALTY = 0


def written_points(
    answers: Iterable[tuple[int, bool]], wrong_penalty: int = QUALIFIER_WRONG_PENALTY
) -> int:
    """One round's points from (question value, right?) pairs (TOUR-2.9 DEFAULT)."""
    return sum(value if right else -wrong_penalty for value, right in answers)


@dataclass(frozen=True, slots=True)
class QualifierScore:
    """One player's qualifier result; both rounds start from 0 (TOUR-2.9)."""

    name: str
    blue: int
    red: int

    @property
    def total(self) -> int:
        return self.blue + self.red


@dataclass(frozen=True, slots=True)
class QualifierPlace:
    """A ranked row: players equal on points and Blue round share the better place."""

    place: int
    score: QualifierScore
    advances: bool


@dataclass(frozen=True, slots=True)
class QualifierOutcome:
    table: tuple[QualifierPlace, ...]

    @property
    def advancing(self) -> tuple[str, ...]:
        return tuple(row.score.name for row in self.table if row.advances)

    def plan(self) -> StagePlan:
        """The 1/9 final for those who advanced (TOUR-3.1.2: extra players make fours)."""
        return plan_games(len(self.advancing))


def rank_qualifier(
    scores: Iterable[QualifierScore], quota: int = NINTH_FINAL_PLAYERS
) -> QualifierOutcome:
    """TOUR-2.9: rank by points, then by the Blue round; everyone tied at the cut advances.

    A player's place is 1 + the number of players strictly ahead, so a tie
    at the cut gives every tied player a place ≤ ``quota``. More than 36
    advancing is the TOUR-N-D case the committee decides.
    """
    rows = sorted(scores, key=lambda s: (-s.total, -s.blue, s.name))
    names = [s.name for s in rows]
    if len(set(names)) != len(names):
        raise ValueError("a player has two qualifier results")
    table: list[QualifierPlace] = []
    for index, score in enumerate(rows):
        if index and (score.total, score.blue) == (rows[index - 1].total, rows[index - 1].blue):
            place = table[-1].place
        else:
            place = index + 1
        table.append(QualifierPlace(place=place, score=score, advances=place <= quota))
    outcome = QualifierOutcome(table=tuple(table))
    if len(outcome.advancing) > MAX_WITHOUT_QUALIFIER:
        raise CommitteeDecision(
            f"{len(outcome.advancing)} players tie into the 1/9 final (TOUR-N-D)"
        )
    return outcome
