"""The superfinal's composition (TOUR-1.7).

Two champions always play; the third seat goes to the senior runner-up only
if that player finished the final above zero, else to the junior runner-up.
A seat nobody qualifies for is reported as a vacancy for the committee
(TOUR-1.9) rather than filled by a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FinalOutcome:
    """One standings table's final: scores without shootout, and its champion.

    ``champion`` is None when the final had no winner (E10: the title is not
    awarded). ``runner_up`` records the result of a runner-up shootout
    (TOUR-1.7 DEFAULT) when two non-champions are level.
    """

    scores: Mapping[str, int]
    champion: str | None
    runner_up: str | None = None

    def runner_up_candidates(self) -> tuple[str, ...]:
        """The non-champions with the best final score (more than one: a shootout)."""
        if self.runner_up is not None:
            return (self.runner_up,)
        others = {n: s for n, s in self.scores.items() if n != self.champion}
        if not others:
            return ()
        best = max(others.values())
        return tuple(sorted(n for n, s in others.items() if s == best))


@dataclass(frozen=True, slots=True)
class Superfinal:
    players: tuple[str, ...]
    #: Seats the committee fills or leaves empty (TOUR-1.7 DEFAULT).
    vacancies: int
    #: Runner-ups level on points who must play one theme first (TOUR-1.7 DEFAULT).
    shootout: tuple[str, ...] = ()


def _positive_runner_up(final: FinalOutcome) -> tuple[str, ...] | None:
    """The runner-up candidates if their final score is positive, else None."""
    candidates = final.runner_up_candidates()
    if candidates and final.scores[candidates[0]] > 0:
        return candidates
    return None


def superfinal(senior: FinalOutcome, junior: FinalOutcome) -> Superfinal:
    """TOUR-1.7: senior champion, junior champion, then the third seat."""
    players = [c for c in (senior.champion, junior.champion) if c is not None]
    third = _positive_runner_up(senior) or _positive_runner_up(junior)
    if third is None:
        return Superfinal(players=tuple(players), vacancies=3 - len(players))
    if len(third) > 1:
        return Superfinal(players=tuple(players), vacancies=3 - len(players), shootout=third)
    players.append(third[0])
    return Superfinal(players=tuple(players), vacancies=3 - len(players))
