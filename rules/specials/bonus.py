"""The bonus contest of Mar – Aug 1995 (TV-H-1995-03), as a small state machine.

After the Blue round the leader is offered five questions of one theme; if
the leader declines, second place, then third (DEFAULT). Whoever accepts
answers alone: all right wins a prize outside the game (a trip, no points),
and the first wrong answer ends it (DEFAULT) with the player's score set to
0 for the Red round. :class:`rules.game.Game` wires it to the journal's
``bonus`` and ``judge`` lines; this module decides, and holds no clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from buzzer.arbiter.machine import SequenceError
from rules.specials.params import BonusRules


class BonusResult(Enum):
    """What one judged answer of the contest leads to."""

    GOES_ON = "goes_on"
    WON = "won"  # every question right: the prize
    LOST = "lost"  # a wrong answer: the score becomes 0


class BonusContest:
    """Who is offered the contest, who plays it, and how far they got."""

    def __init__(self, rules: BonusRules, offer_order: Sequence[int]) -> None:
        self.rules = rules
        #: Still to be asked, in order (the leader first); the first is asked now.
        self.offers = list(offer_order)
        #: The offer's place (1: the leader) of the player asked now.
        self.place = 1
        self.player: int | None = None
        self.right = 0

    @property
    def offered(self) -> int | None:
        """The player being asked now; None once someone accepted or all declined."""
        if self.player is not None or not self.offers:
            return None
        return self.offers[0]

    def reply(self, accept: bool) -> int:
        """The player asked now accepts or declines; returns that seat."""
        seat = self.offered
        if seat is None:
            raise SequenceError("the bonus contest is not being offered to anybody now")
        if accept:
            self.player = seat
        else:
            self.offers.pop(0)
            self.place += 1
        return seat

    def answer(self, correct: bool) -> BonusResult:
        """The player's answer to the next question was judged."""
        if self.player is None:
            raise SequenceError("nobody is playing the bonus contest: there is nothing to judge")
        if not correct:
            return BonusResult.LOST
        self.right += 1
        return BonusResult.WON if self.right == self.rules.questions else BonusResult.GOES_ON
