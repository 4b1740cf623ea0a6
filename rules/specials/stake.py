"""The stake question (C2003-2.4.6) and the TV auction (TV-S-AUC-*) while it is
bid on: a part of :class:`rules.game.Game`.

:class:`rules.specials.bidding.Bidding` decides who may bid what; this part
wires it to the journal's lines (``bid``, ``pass``, ``bidder_pick``), to the
arbiter's buy window (TV-H-1995-01) and to the notes the host and the screens
read. It holds no reference to the game: the game hands it the arbiter and
the scores, and takes back the outcome, whom it then designates to answer.
One lives while the bidding does; the game drops it once someone has won.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from buzzer.arbiter.decisions import Decision, Note, NoteKind, Recognized, seconds
from buzzer.arbiter.machine import Arbiter, Phase, SequenceError
from rules.specials.bidding import Bidding, BiddingRules, BidError, BidOutcome, bidding_order


class StakeQuestion:
    """The bidding of one stake question and the passes the journal has heard of."""

    def __init__(self, bidding: Bidding) -> None:
        self.bidding = bidding
        #: Passes already announced: the bidding may pass a player itself
        #: (``auto``), and each pass is told once.
        self.announced_passes: set[int] = set()

    @classmethod
    def open(
        cls,
        rules: BiddingRules,
        opener: int,
        price: int,
        scores: Mapping[int, int],
        rng: random.Random,
        t: int,
        out: list[Decision],
    ) -> tuple[StakeQuestion, bool]:
        """The chooser opens the bidding; True when a forced opening bid was placed
        (then the game moves the bidding on, as after any bid)."""
        lots = [s for s in sorted(scores, key=lambda s: rng.random())]
        order = bidding_order(opener, scores, lots)  # TV-S-AUC-3, C2003-2.4.6-D4
        stake = cls(Bidding(rules, opener, price, scores, order))
        out.append(
            Note(t, NoteKind.SPECIAL, (("kind", "stake"), ("opener", opener), ("order", order)))
        )
        forced = stake.bidding.opening_bids()
        if forced is None or len(forced) != 1:
            return stake, False
        # C2003-2.4.6a, TV-S-AUC-2: an opener below the nominal plays for the nominal;
        # an opener whose score is the lowest bid can only bid it, all-in. Either
        # way the engine places the only legal bid itself (docs/journal.md).
        stake.bidding.place(opener, forced[0])
        all_in = stake.bidding.leader_all_in
        out.append(
            Note(
                t,
                NoteKind.BID,
                (("seat", opener), ("amount", forced[0]), ("all_in", all_in), ("forced", True)),
            )
        )
        return stake, True

    def bid(
        self, t: int, seat: int, amount: int, scores: Mapping[int, int], out: list[Decision]
    ) -> None:
        """A ``bid`` line: the bidding refuses it (the host reads why) or takes it."""
        try:
            self.bidding.place(seat, amount)
        except BidError as exc:
            raise SequenceError(str(exc)) from None
        all_in = amount == scores[seat]
        out.append(Note(t, NoteKind.BID, (("seat", seat), ("amount", amount), ("all_in", all_in))))

    def pass_(self, seat: int) -> None:
        """A ``pass`` line; its note goes out with the move (:meth:`after_move`)."""
        try:
            self.bidding.pass_(seat)
        except BidError as exc:
            raise SequenceError(str(exc)) from None

    def pick(self, t: int, seat: int, out: list[Decision]) -> None:
        """TV-S-AUC-3: «игрока выбирает ведущий» — the host picks who of the
        players with equal scores bids now (TV-S-AUC-3-D1: else the lot's order)."""
        bidding = self.bidding
        tied = bidding.pickable()
        try:
            bidding.pick(seat)
        except BidError as exc:
            raise SequenceError(str(exc)) from None
        out.append(Note(t, NoteKind.BIDDER_PICK, (("seat", seat), ("tied", tied))))
        out.append(Note(t, NoteKind.BID_TURN, (("seat", seat),)))

    def after_move(
        self, arbiter: Arbiter, t: int, out: list[Decision], passed: int | None = None
    ) -> BidOutcome | None:
        """Tell the passes, then whose turn it is (or open a buy window); once the
        bidding is won, say so and return who plays for how much."""
        bidding = self.bidding
        for seat in bidding.order:
            if seat in bidding.passed and seat not in self.announced_passes:
                self.announced_passes.add(seat)
                out.append(Note(t, NoteKind.PASS, (("seat", seat), ("auto", seat != passed))))
        outcome = bidding.outcome
        if outcome is None:
            if bidding.by_button:
                self._buy_window(arbiter, t, out)
            else:
                out.append(Note(t, NoteKind.BID_TURN, (("seat", bidding.turn),)))
            return None
        if bidding.by_button and arbiter.phase in (Phase.OPEN, Phase.ANSWERING):
            arbiter.release()  # the buy window, or the floor it gave, is over
        out.append(Note(t, NoteKind.STAKE_WON, (("seat", outcome.seat), ("stake", outcome.stake))))
        return outcome

    def _buy_window(self, arbiter: Arbiter, t: int, out: list[Decision]) -> None:
        """TV-H-1995-01: the others may press to buy the question.

        With nobody holding the floor, a buy window opens at ``t`` (after a
        bid, or the floor-holder's pass) for the seats still in the bidding;
        a pass out of turn while it runs only narrows who may press, and the
        window keeps its end. Someone who has the floor is waited for.
        """
        bidding = self.bidding
        assert bidding.rules.buy_window_ns is not None
        if bidding.turn is not None:
            return
        buyers = frozenset(bidding.buyers())
        if arbiter.phase is Phase.OPEN:
            arbiter.narrow(buyers)
            return
        closes_at = t + bidding.rules.buy_window_ns
        out.append(
            Note(
                t,
                NoteKind.BUY_WINDOW,
                (("seats", sorted(buyers)), ("closes_at", seconds(closes_at))),
            )
        )
        arbiter.open_press_window(t, closes_at, buyers, out)

    def press(self, arbiter: Arbiter, t: int, seats: Sequence[int], out: list[Decision]) -> None:
        """A press during the bidding: a claim to buy the question if a buy
        window is open (TV-H-1995-01), else ignored as outside any window."""
        if not self.bidding.by_button:
            arbiter.press(t, seats, out)  # no window is open: ignored, as ever
            return
        decided: list[Decision] = []
        arbiter.press(t, seats, decided)
        self.claims(decided, out)

    def claims(self, decided: list[Decision], out: list[Decision]) -> None:
        """The arbiter's decisions in a buy window, its recognition read as a claim.

        The arbiter decides who pressed first (stamps, ties by draw, margins);
        its ``recognized`` would say "answers now", so the claim goes out as a
        ``bid_claim`` note instead: this seat has the floor and bids next.
        """
        for decision in decided:
            if isinstance(decision, Recognized):
                self.bidding.claim(decision.seat)
                out.append(Note(decision.t, NoteKind.BID_CLAIM, (("seat", decision.seat),)))
            else:
                out.append(decision)
