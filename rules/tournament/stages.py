"""Stage sizes: whether a qualifier is held and how the 1/9 final is split.

TOUR-1.6 fixes the bracket at 27 → 9 → 3 → 1; TOUR-2.9, TOUR-3.1.2 and the
TOUR-N-D defaults say what happens to entrant counts that do not fit it.
Later stages always have the bracket's slots (9, then 3); TOUR-3.2 fills the
slots the game winners leave empty.
"""

from __future__ import annotations

from dataclasses import dataclass

from buzzer.errors import SvoyakError

#: TOUR-1.6: players in a full 1/9 final (nine triples).
NINTH_FINAL_PLAYERS = 27
#: TOUR-1.6: games in the 1/9 final.
NINTH_FINAL_GAMES = 9
#: TOUR-2.9 / TOUR-3.1.2 / TOUR-N-D: the largest field the 1/9 final takes (nine fours).
MAX_WITHOUT_QUALIFIER = 36
#: TOUR-1.6: slots after the 1/9 final (third-finalists) and after the third-final (finalists).
THIRD_FINAL_SLOTS = 9
FINAL_SLOTS = 3


class CommitteeDecision(SvoyakError, ValueError):
    """A case the regulations leave to the organising committee (TOUR-1.9, TOUR-N-D)."""


@dataclass(frozen=True, slots=True)
class StagePlan:
    """The first stage of one standings table."""

    #: TOUR-2.9: a written qualifier precedes the 1/9 final.
    qualifier: bool
    #: Games of four and of three in the 1/9 final (after the qualifier, if any).
    fours: int
    triples: int

    @property
    def games(self) -> int:
        return self.fours + self.triples

    @property
    def players(self) -> int:
        return 4 * self.fours + 3 * self.triples

    def sizes(self) -> tuple[int, ...]:
        """Game sizes, fours first; the draw fills games in this order."""
        return (4,) * self.fours + (3,) * self.triples


def plan_games(players: int) -> StagePlan:
    """The 1/9 final for ``players`` who all play it (no qualifier in between).

    - 27: nine triples (TOUR-1.6).
    - 28–35: N − 27 fours, the rest triples, nine games (TOUR-3.1.2).
    - 36: nine fours (TOUR-N-D, not covered by §2.9 or §3.1.2).
    - < 27: ⌊N/3⌋ games, N mod 3 of them fours (TOUR-N-D).
    """
    if players > MAX_WITHOUT_QUALIFIER:
        raise CommitteeDecision(
            f"{players} players do not fit nine fours (TOUR-N-D: the committee decides)"
        )
    if players >= NINTH_FINAL_PLAYERS:
        fours = players - NINTH_FINAL_PLAYERS
        return StagePlan(qualifier=False, fours=fours, triples=NINTH_FINAL_GAMES - fours)
    games, fours = divmod(players, 3)
    if fours > games:
        # N = 2 or 5: there are not enough games to hold the extra players.
        who = "1 player" if players == 1 else f"{players} players"
        raise CommitteeDecision(f"{who} cannot be split into triples and fours")
    return StagePlan(qualifier=False, fours=fours, triples=games - fours)


def plan_first_stage(entrants: int, qualifier: bool | None = None) -> StagePlan:
    """The first stage for ``entrants`` registered players of one age group.

    TOUR-2.9: a qualifier is held if more than 36 applied; it then selects 27
    (ties at the cut may add more: re-plan with :func:`plan_games` on the
    actual count). ``qualifier`` is the manual override of the TOUR-N-D
    CONFLICT (§1.6 lets the committee skip it, §2.9 ties it to the count).
    """
    held = entrants > MAX_WITHOUT_QUALIFIER if qualifier is None else qualifier
    if held:
        return StagePlan(qualifier=True, fours=0, triples=NINTH_FINAL_GAMES)
    return plan_games(entrants)
