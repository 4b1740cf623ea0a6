"""What the bidding refuses, and what it tells the host (rules/specials/bidding.py).

A refused bid reaches the host's panel as the engine's own sentence, so each
refusal is part of the product: it must name the rule and what to do instead.
Written from the mutants a mutation run of the core left alive (docs/design.md,
"Mutation testing"): a refusal whose message nobody read, a window check with
``or`` turned into ``and``.
"""

from __future__ import annotations

import datetime

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
