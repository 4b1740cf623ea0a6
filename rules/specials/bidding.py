"""Bidding for the stake question (C2003-2.4.6) and the TV auction (TV-S-AUC-*).

One state machine serves every era; what differs between them is data in
:class:`BiddingRules` (the step, the minimum, who may beat an all-in, whether
the others may bid at all). Errors are :class:`BidError` with a message the
host can read out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from buzzer.errors import SvoyakError


class BidError(SvoyakError, ValueError):
    """A bid or pass the rules do not allow; the message says why."""


class AllInBeaten(Enum):
    """Who may outbid an all-in (ва-банк)."""

    #: Only a strictly larger all-in (C2003-2.4.6d/D5, TV-H-1998-08, TV-S-AUC-1).
    BY_LARGER_ALL_IN = "larger_all_in"
    #: Any larger sum; the all-in's author leaves the bidding (TV-H-1995-01).
    BY_ANY_LARGER = "any_larger"
    #: Nobody: the all-in's author plays (TV-H-1996-09).
    NEVER = "never"


@dataclass(frozen=True, slots=True)
class BiddingRules:
    """The parameters of a stake question or an auction."""

    #: Bids are multiples of this (C2003-2.4.6-D2: 10; TV-S-AUC-1: 100; TV-94-OWN: 10).
    step: int
    #: The lowest opening bid: the nominal (C2003-2.4.6-D1, TV-H-2002-04), else ``min_bid``.
    min_is_nominal: bool = True
    min_bid: int = 10
    all_in_beaten: AllInBeaten = AllInBeaten.BY_LARGER_ALL_IN
    #: Only the opener stakes; nobody else bids (TV-94-OWN).
    opener_only: bool = False
    #: TV-94-OWN: an opener at a negative score may stake what brings them to 0
    #: (or play for the nominal), with or without the others bidding after them:
    #: TV-94 until Sep 1996 (TV-H-1995-01 does not end it; TV-H-1996-09 does).
    offer_to_zero: bool = False
    #: TV-H-1995-01: after each bid the others buy the question by pressing the
    #: button within this window (DEFAULT 3 s); the first press gets the floor
    #: and must bid higher. None: the bidding goes by turns.
    buy_window_ns: int | None = None
    #: TV-S-AUC-3: «игрока выбирает ведущий» — among players with equal scores
    #: the host picks who bids next (``bidder_pick``); until the host does, the
    #: order drawn by lot stands (TV-S-AUC-3-D1). False: the lot alone
    #: (C2003-2.4.6-D4, the 2003 championship's default).
    host_picks_ties: bool = False


@dataclass(frozen=True, slots=True)
class BidOutcome:
    """Who plays the question, for how much."""

    seat: int
    stake: int


def bidding_order(opener: int, scores: Mapping[int, int], tie_break: Sequence[int]) -> list[int]:
    """TV-S-AUC-3 (C2003-2.4.6-D4): from the opener, on to the next higher score;
    from the leader, round to the trailing player.

    ``tie_break`` orders players with equal scores (the host's pick; a draw).
    """
    rank = {seat: i for i, seat in enumerate(tie_break)}
    ordered = sorted(scores, key=lambda s: (scores[s], rank.get(s, s)))
    i = ordered.index(opener)
    return ordered[i:] + ordered[:i]


class Bidding:
    """The bidding for one stake question or auction."""

    def __init__(
        self,
        rules: BiddingRules,
        opener: int,
        nominal: int,
        scores: Mapping[int, int],
        order: Sequence[int],
    ) -> None:
        self.rules = rules
        self.opener = opener
        self.nominal = nominal
        self.scores = dict(scores)
        self.order = list(order)
        self.bid: int | None = None
        self.leader: int | None = None
        self.leader_all_in = False
        self.passed: set[int] = set()
        #: Who has bid or passed (TV-S-AUC-3-D1: a tie is picked among the others).
        self.moved: set[int] = set()
        #: Who bids now: the opener first; by turns, the next in order; by
        #: button (TV-H-1995-01), whoever pressed first, None while nobody has.
        self.turn: int | None = opener
        if rules.opener_only:
            self.passed = {s for s in self.order if s != opener}

    # -- queries -------------------------------------------------------------

    @property
    def by_button(self) -> bool:
        """TV-H-1995-01: the question is bought by pressing the button, not by turns."""
        return self.rules.buy_window_ns is not None

    def buyers(self) -> list[int]:
        """Who may still outbid the leader (by button: who may press now), in order.

        TV-H-1995-01: "other players whose score is greater than the stake";
        those at or below it have already left (the automatic pass, the cut-off).
        """
        return [s for s in self._active() if s != self.leader]

    @property
    def done(self) -> bool:
        return self.leader is not None and self._active() == [self.leader]

    @property
    def outcome(self) -> BidOutcome | None:
        if not self.done or self.leader is None or self.bid is None:
            return None
        return BidOutcome(self.leader, self.bid)

    def opening_bids(self) -> tuple[int, ...] | None:
        """The only legal opening bids when the opener has no choice, else None."""
        score = self.scores[self.opener]
        if score < 0 and self.rules.offer_to_zero:
            # TV-94-OWN: «если отрицательная — то ведущий предлагал ему поставить
            # столько, сколько хватило бы ему для нулевого результата»; kept when
            # the others may buy (TV-H-1995-01) until TV-H-1996-09 ends it.
            return tuple(sorted({self.nominal, -score}))
        if self.rules.opener_only:
            if score > 0:
                return None
            return (self.nominal,)
        low = self._minimum()
        if score < low:
            return (self.nominal,)  # C2003-2.4.6a/D1, TV-S-AUC-2: plays for the nominal
        if score == low:
            # The lowest bid is the whole score: the only bid there is, an all-in.
            return (score,)
        return None

    # -- moves ---------------------------------------------------------------

    def claim(self, seat: int) -> None:
        """TV-H-1995-01: ``seat`` pressed first in the buy window; it has the
        floor and must now bid above the leader (or pass)."""
        if not self.by_button:
            raise BidError("this bidding goes by turns, not by the button")
        if self.done:
            raise BidError("the bidding is over")
        if self.turn is not None:
            raise BidError(f"seat {self.turn} has the floor: it bids (or passes) first")
        if seat not in self.buyers():
            raise BidError(f"seat {seat} may not buy the question now")
        self.turn = seat

    def close_window(self) -> None:
        """TV-H-1995-01: the buy window ran out with nobody pressing: the bidding
        ends and the leader plays. The ones who did not press leave it."""
        if not self.by_button or self.turn is not None or self.leader is None:
            raise BidError("no buy window is open")
        self.passed.update(self.buyers())

    def place(self, seat: int, amount: int) -> None:
        """``seat`` bids ``amount`` (an all-in is a bid of the whole score)."""
        self._check_turn(seat)
        score = self.scores[seat]
        if self.bid is None:
            self._check_opening(seat, amount)
            self.bid, self.leader = amount, seat
            self.leader_all_in = amount == score and score > 0 and amount >= self._minimum()
            self.moved.add(seat)
            self._after_move()
            return
        if amount <= self.bid:
            raise BidError(f"a raise must be above the current bid of {self.bid}")
        if amount > score:
            raise BidError(f"seat {seat} has {score}: a bid cannot exceed the score")
        all_in = amount == score
        if amount % self.rules.step and not all_in:
            raise BidError(f"bids go in steps of {self.rules.step} (or all-in)")
        # After an all-in the others' scores decide who is still here
        # (_after_move): TV-H-1996-09 (NEVER) passes every other player at
        # once, so no bid reaches this line; TV-H-1995-01 (BY_ANY_LARGER): any
        # larger sum beats it, and its author leaves by the automatic pass
        # (their whole score is the bid beaten).
        if (
            self.leader_all_in
            and self.rules.all_in_beaten is AllInBeaten.BY_LARGER_ALL_IN
            and not all_in
        ):
            raise BidError("only a larger all-in beats an all-in (C2003-2.4.6d)")
        self.bid, self.leader, self.leader_all_in = amount, seat, all_in
        self.moved.add(seat)
        self._after_move()

    def pass_(self, seat: int) -> None:
        """``seat`` leaves the bidding, in its turn or out of it (TV-S-AUC-4: "any
        player may say 'Pass' at any moment except for the very first bid").

        Decided (docs/rules.md): "except for the very first bid" means nobody
        passes before the opener's first bid is made; the holder of the
        highest bid cannot pass (it would leave the question without a
        bidder). A pass out of turn leaves the turn where it was, unless it
        ends the bidding.
        """
        if self.done:
            raise BidError("the bidding is over")
        if self.bid is None:
            raise BidError("the opener must bid first and may not pass (TV-S-AUC-4)")
        if seat not in self.order or seat in self.passed:
            raise BidError(f"seat {seat} is not in the bidding")
        if seat == self.leader:
            raise BidError(f"seat {seat} holds the highest bid ({self.bid}) and cannot pass")
        self.passed.add(seat)
        self.moved.add(seat)
        if seat == self.turn:
            self._after_move()

    def pickable(self) -> list[int]:
        """TV-S-AUC-3: the players the host may pick to bid now, or [] (no pick).

        «игрока выбирает ведущий»: when the turn comes to a player whose score
        equals that of others still to bid for the first time, the host says
        which of them bids now (the one whose turn it is, too: the lot's
        choice confirmed). The opener bids first whatever the scores; by the
        button (TV-H-1995-01) or with the opener alone (TV-94-OWN) there is no
        order to pick; a player who has bid or passed keeps their place.
        """
        turn = self.turn
        if (
            not self.rules.host_picks_ties
            or self.by_button
            or self.rules.opener_only
            or self.done
            or self.bid is None
            or turn is None
            or turn in self.moved
        ):
            return []
        tied = [
            s
            for s in self.order
            if s not in self.passed
            and s not in self.moved
            and s != self.leader
            and self.scores[s] == self.scores[turn]
        ]
        return tied if len(tied) > 1 else []

    def pick(self, seat: int) -> None:
        """TV-S-AUC-3: the host picks ``seat`` among the tied players to bid now;
        the others tied with it follow in the order they had."""
        if not self.rules.host_picks_ties:
            raise BidError(
                "in these rules a lot orders equal scores (C2003-2.4.6-D4): the host does not "
                "pick the next bidder"
            )
        tied = self.pickable()
        if not tied:
            raise BidError(
                "no tie to pick from now: the host picks the next bidder only when the turn "
                "comes to players with equal scores who have not bid yet (TV-S-AUC-3)"
            )
        if seat not in tied:
            others = ", ".join(str(s) for s in tied)
            raise BidError(f"seat {seat} is not among the tied players to pick from: {others}")
        assert self.turn is not None
        if seat == self.turn:
            return  # the lot's choice, confirmed
        self.order.remove(seat)
        self.order.insert(self.order.index(self.turn), seat)
        self.turn = seat

    # -- internals -----------------------------------------------------------

    def _minimum(self) -> int:
        return self.nominal if self.rules.min_is_nominal else self.rules.min_bid

    def _check_turn(self, seat: int) -> None:
        if self.done:
            raise BidError("the bidding is over")
        if self.turn is None:
            raise BidError(
                f"nobody has pressed to buy the question: seat {seat} presses the button "
                "first (TV-H-1995-01)"
            )
        if seat != self.turn:
            raise BidError(f"it is seat {self.turn}'s turn to bid, not seat {seat}'s")

    def _check_opening(self, seat: int, amount: int) -> None:
        forced = self.opening_bids()
        if forced is not None:
            if amount not in forced:
                allowed = " or ".join(str(a) for a in forced)
                raise BidError(f"seat {seat} may only play for {allowed}")
            return
        score = self.scores[seat]
        low = self._minimum()
        if amount < low:
            raise BidError(f"the opening bid must be at least {low}")
        if amount > score:
            raise BidError(f"seat {seat} has {score}: a bid cannot exceed the score")
        if amount % self.rules.step and amount != score:
            raise BidError(f"bids go in steps of {self.rules.step} (or all-in)")

    def _active(self) -> list[int]:
        return [s for s in self.order if s not in self.passed]

    def _after_move(self) -> None:
        """Automatic passes, then the next player in order (TV-S-AUC-4)."""
        assert self.bid is not None
        for seat in self.order:
            if seat != self.leader and seat not in self.passed and self._cannot_raise(seat):
                self.passed.add(seat)
        if self.done:
            return
        if self.by_button:
            self.turn = None  # the floor is free: the next buy window (TV-H-1995-01)
            return
        assert self.turn is not None
        i = self.order.index(self.turn)
        for step in range(1, len(self.order) + 1):
            candidate = self.order[(i + step) % len(self.order)]
            if candidate not in self.passed and candidate != self.leader:
                self.turn = candidate
                return
        self.turn = self.leader if self.leader is not None else self.opener

    def _cannot_raise(self, seat: int) -> bool:
        assert self.bid is not None
        score = self.scores[seat]
        if score <= self.bid:
            return True
        return self.leader_all_in and self.rules.all_in_beaten is AllInBeaten.NEVER
