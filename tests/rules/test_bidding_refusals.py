"""What the bidding refuses, and what it tells the host (rules/specials/bidding.py).

A refused bid reaches the host's panel as the engine's own sentence, so each
refusal is part of the product: it must name the rule and what to do instead.
Written from the mutants a mutation run of the core left alive (docs/design.md,
"Mutation testing"): a refusal whose message nobody read, a window check with
``or`` turned into ``and``.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

import pytest

from rules.eras import tv_rules_for
from rules.profiles import RULE_SYSTEMS
from rules.specials.bidding import Bidding, BiddingRules, BidError, bidding_order


def stake_rules(system: str) -> BiddingRules:
    rules = RULE_SYSTEMS[system].stake
    assert rules is not None
    return rules


def by_turns(scores: dict[int, int], nominal: int = 200) -> Bidding:
    """The 2003 stake question: opener seat 1, steps of 10, min the nominal."""
    order = bidding_order(1, scores, tie_break=sorted(scores))
    return Bidding(stake_rules("championship-2003"), 1, nominal, scores, order)


def by_button(scores: dict[int, int], nominal: int = 100) -> Bidding:
    """TV-H-1995-01: after the opening bid the others buy the question by the button."""
    rules = tv_rules_for(datetime.date(1995, 3, 1)).stake
    assert rules is not None and rules.buy_window_ns is not None
    order = bidding_order(1, scores, tie_break=sorted(scores))
    return Bidding(rules, 1, nominal, scores, order)


def test_TV_S_AUC_4_nobody_passes_before_the_openers_first_bid() -> None:
    bidding = by_turns({1: 1000, 2: 800, 3: 500})
    with pytest.raises(BidError) as refused:
        bidding.pass_(1)
    assert str(refused.value) == "the opener must bid first and may not pass (TV-S-AUC-4)"


def test_a_bid_above_the_score_names_the_score() -> None:
    bidding = by_turns({1: 1000, 2: 800, 3: 500})
    with pytest.raises(BidError) as opening:
        bidding.place(1, 1010)
    assert str(opening.value) == "seat 1 has 1000: a bid cannot exceed the score"
    bidding.place(1, 300)
    nxt = bidding.turn
    assert nxt in (2, 3)
    score = bidding.scores[nxt]
    with pytest.raises(BidError) as raising:
        bidding.place(nxt, score + 10)
    assert str(raising.value) == f"seat {nxt} has {score}: a bid cannot exceed the score"


def test_a_bid_off_the_step_names_the_step() -> None:
    bidding = by_turns({1: 1000, 2: 800, 3: 500})
    with pytest.raises(BidError) as opening:
        bidding.place(1, 305)
    assert str(opening.value) == "bids go in steps of 10 (or all-in)"
    bidding.place(1, 300)
    nxt = bidding.turn
    assert nxt is not None
    with pytest.raises(BidError) as raising:
        bidding.place(nxt, 415)
    assert str(raising.value) == "bids go in steps of 10 (or all-in)"
    bidding.place(nxt, bidding.scores[nxt])  # an all-in is off no step
    assert bidding.leader_all_in


def test_after_the_bidding_ends_every_move_says_it_is_over() -> None:
    bidding = by_turns({1: 1000, 2: 800, 3: 500})
    bidding.place(1, 900)  # nobody else can raise it: the others pass by themselves
    assert bidding.done
    for move in (lambda: bidding.place(1, 1000), lambda: bidding.pass_(2)):
        with pytest.raises(BidError) as refused:
            move()
        assert str(refused.value) == "the bidding is over"


def test_TV_H_1995_01_the_button_belongs_to_the_buy_window_only() -> None:
    bidding = by_turns({1: 1000, 2: 800, 3: 500})
    with pytest.raises(BidError) as refused:
        bidding.claim(2)
    assert str(refused.value) == "this bidding goes by turns, not by the button"
    with pytest.raises(BidError, match="no buy window is open"):
        bidding.close_window()


def test_TV_H_1995_01_the_window_cannot_close_while_a_buyer_has_the_floor() -> None:
    bidding = by_button({1: 1000, 2: 800, 3: 500})
    bidding.place(1, 100)  # the opening bid opens the first buy window
    assert bidding.turn is None and bidding.leader == 1
    bidding.claim(2)  # seat 2 pressed first: it has the floor
    with pytest.raises(BidError) as refused:
        bidding.close_window()
    assert str(refused.value) == "no buy window is open"
    bidding.place(2, 200)
    bidding.close_window()  # nobody pressed this time: seat 2 plays for 200
    outcome = bidding.outcome
    assert bidding.done and outcome is not None
    assert (outcome.seat, outcome.stake) == (2, 200)


def refusal(move: Callable[[], object]) -> str:
    """The sentence the host reads on the panel when ``move`` is refused."""
    with pytest.raises(BidError) as refused:
        move()
    return str(refused.value)


def by_turns_1996(scores: dict[int, int], nominal: int = 100) -> Bidding:
    """TV-H-1996-09: by turns, an all-in cannot be beaten, the host picks among ties."""
    rules = tv_rules_for(datetime.date(1997, 1, 1)).stake
    assert rules is not None and rules.host_picks_ties and rules.buy_window_ns is None
    order = bidding_order(1, scores, tie_break=sorted(scores))
    return Bidding(rules, 1, nominal, scores, order)


def test_TV_H_1995_01_the_floor_and_the_end_refuse_a_press_with_the_hosts_sentence() -> None:
    bidding = by_button({1: 1000, 2: 800, 3: 500})
    assert refusal(lambda: bidding.place(2, 200)) == "it is seat 1's turn to bid, not seat 2's"
    bidding.place(1, 100)
    assert refusal(lambda: bidding.place(2, 200)) == (
        "nobody has pressed to buy the question: seat 2 presses the button first (TV-H-1995-01)"
    )
    assert refusal(lambda: bidding.claim(1)) == "seat 1 may not buy the question now"
    bidding.claim(2)
    assert refusal(lambda: bidding.claim(3)) == "seat 2 has the floor: it bids (or passes) first"
    assert refusal(lambda: bidding.place(2, 100)) == "a raise must be above the current bid of 100"
    bidding.place(2, 200)
    bidding.close_window()
    assert bidding.done
    assert refusal(lambda: bidding.claim(3)) == "the bidding is over"


def test_TV_H_1995_01_a_beaten_all_in_leaves_its_author_and_only_them() -> None:
    bidding = by_button({1: 300, 2: 800, 3: 500})
    bidding.place(1, 300)  # all-in
    assert bidding.leader_all_in and bidding.passed == set()
    bidding.claim(3)
    bidding.place(3, 400)  # any larger sum beats it (not only an all-in)
    assert bidding.passed == {1}
    assert (bidding.leader, bidding.bid, bidding.leader_all_in) == (3, 400, False)


def test_C2003_2_4_6d_only_a_larger_all_in_beats_an_all_in_says_so() -> None:
    bidding = by_turns({1: 300, 2: 800, 3: 500})
    bidding.place(1, 300)  # all-in
    nxt = bidding.turn
    assert nxt in (2, 3)
    assert refusal(lambda: bidding.place(nxt, 400)) == (
        "only a larger all-in beats an all-in (C2003-2.4.6d)"
    )


def test_C2003_2_4_6_D1_opening_refusals_name_the_minimum_and_the_forced_sum() -> None:
    bidding = by_turns({1: 1000, 2: 800, 3: 500})
    assert refusal(lambda: bidding.place(1, 190)) == "the opening bid must be at least 200"
    poor = by_turns({1: 150, 2: 800, 3: 500})  # below the nominal: plays for it
    assert poor.opening_bids() == (200,)
    assert refusal(lambda: poor.place(1, 150)) == "seat 1 may only play for 200"


def test_TV_S_AUC_4_a_seat_out_of_the_bidding_or_holding_it_cannot_pass() -> None:
    bidding = by_turns({1: 1000, 2: 800, 3: 600, 4: 500})
    bidding.place(1, 300)
    assert refusal(lambda: bidding.pass_(1)) == (
        "seat 1 holds the highest bid (300) and cannot pass"
    )
    bidding.pass_(3)  # out of turn
    assert not bidding.done
    assert refusal(lambda: bidding.pass_(3)) == "seat 3 is not in the bidding"
    assert refusal(lambda: bidding.pass_(9)) == "seat 9 is not in the bidding"


def test_TV_S_AUC_3_the_host_picks_only_among_equal_scores_still_to_bid() -> None:
    bidding = by_turns_1996({1: 1000, 2: 500, 3: 500, 4: 800})
    assert bidding.order == [1, 2, 3, 4]
    assert bidding.pickable() == []  # the opener bids first whatever the scores
    bidding.place(1, 200)
    assert bidding.turn == 2
    # 4 has not bid either, but its score is not 2's: it keeps its place.
    assert bidding.pickable() == [2, 3]
    assert refusal(lambda: bidding.pick(4)) == (
        "seat 4 is not among the tied players to pick from: 2, 3"
    )
    bidding.pick(3)
    assert (bidding.turn, bidding.order) == (3, [1, 3, 2, 4])
    bidding.place(3, 300)
    # 2 is tied with 3, who has bid: no tie is left to pick from.
    assert bidding.turn == 2 and bidding.pickable() == []
    assert refusal(lambda: bidding.pick(2)) == (
        "no tie to pick from now: the host picks the next bidder only when the turn "
        "comes to players with equal scores who have not bid yet (TV-S-AUC-3)"
    )


def test_C2003_2_4_6_D4_the_lot_orders_equal_scores_the_host_does_not_pick() -> None:
    bidding = by_turns({1: 1000, 2: 500, 3: 500})
    bidding.place(1, 200)
    assert bidding.pickable() == []
    assert refusal(lambda: bidding.pick(3)) == (
        "in these rules a lot orders equal scores (C2003-2.4.6-D4): the host does not "
        "pick the next bidder"
    )


def test_TV_H_1996_09_an_all_in_ends_the_bidding_even_for_a_larger_score() -> None:
    bidding = by_turns_1996({1: 1000, 2: 800, 3: 500})
    bidding.place(1, 200)
    assert bidding.turn == 3  # on to the next higher score (TV-S-AUC-3)
    bidding.place(3, 500)  # all-in: neither 800 nor 1000 may beat it
    assert bidding.done and bidding.passed == {1, 2}
    outcome = bidding.outcome
    assert outcome is not None and (outcome.seat, outcome.stake) == (3, 500)
    assert refusal(lambda: bidding.place(2, 800)) == "the bidding is over"
