"""TV-94-OWN's offer to reach 0, by era (issue 37).

Seed 002 (the TV game's history): in 1994 «если отрицательная — то ведущий
предлагал ему поставить столько, сколько хватило бы ему для нулевого
результата»; Jan 1995 (TV-H-1995-01) lets the others buy the stake question
and does not end the offer; Sep 1996 (TV-H-1996-09): «Игрок с нулевой или
отрицательной суммой играет только за номинал». So an opener at −70 on a
stake question of 30 may play for 30 or 70 until 31 Aug 1996, and only for 30
from 1 Sep 1996. Expected values come from those sentences, not from the code.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from buzzer.journal.codec import JournalError
from rules.eras import tv_rules_for
from rules.specials.bidding import Bidding, BidError, bidding_order
from tests.conftest import of_type, run
from tests.support.lines import bid

A, B, C = 1, 2, 3
NOMINAL = 30

#: Each day: (the era's start score, may the others bid after the opener?).
OFFER_DAYS = {
    "1994-04-14": (50, False),
    "1994-12-31": (50, False),
    "1995-01-01": (50, True),
    "1995-06-01": (50, True),
    "1996-08-31": (50, True),
}
NOMINAL_DAYS = ("1996-09-01", "1998-08-01", "2001-09-15")


def bidding(day: str, scores: dict[int, int]) -> Bidding:
    stake = tv_rules_for(datetime.date.fromisoformat(day)).stake
    assert stake is not None
    order = bidding_order(A, scores, tie_break=sorted(scores))
    return Bidding(stake, A, NOMINAL, scores, order)


@pytest.mark.parametrize("day", sorted(OFFER_DAYS))
def test_TV_94_OWN_a_negative_opener_is_offered_to_reach_zero_until_aug_1996(day: str) -> None:
    game = bidding(day, {A: -70, B: 90, C: 150})
    assert game.opening_bids() == (NOMINAL, 70)  # the offer (70), or declined: the nominal
    with pytest.raises(BidError, match="may only play for 30 or 70"):
        game.place(A, 40)
    game.place(A, 70)
    assert game.bid == 70 and game.leader == A
    assert not game.leader_all_in  # a stake to reach 0 is not a va-banque


@pytest.mark.parametrize("day", NOMINAL_DAYS)
def test_TV_H_1996_09_a_zero_or_negative_opener_plays_only_for_the_nominal(day: str) -> None:
    for score in (0, -70, -10):
        game = bidding(day, {A: score, B: 90, C: 150})
        assert game.opening_bids() == (NOMINAL,), (day, score)
        with pytest.raises(BidError, match="may only play for 30"):
            game.place(A, -score or 40)


@pytest.mark.parametrize("day", sorted(OFFER_DAYS))
def test_TV_94_OWN_zero_is_not_negative_the_opener_plays_for_the_nominal(day: str) -> None:
    # «если отрицательная»: a score of 0 gets no offer (there is nothing to reach).
    assert bidding(day, {A: 0, B: 90, C: 150}).opening_bids() == (NOMINAL,)


def test_TV_94_OWN_an_offer_equal_to_the_nominal_is_placed_by_the_engine() -> None:
    # −30 on a 30 question: both choices are 30, so the opener has no choice.
    assert bidding("1995-06-01", {A: -30, B: 90, C: 150}).opening_bids() == (NOMINAL,)


# -- through the engine, as a journal ------------------------------------------------------


def head(day: str) -> dict[str, Any]:
    return {
        "rules": "tv-1994",
        "date": day,
        "players": ["A", "B", "C"],
        "chooser": A,
        "specials": [{"round": 1, "theme": 1, "price": NOMINAL, "kind": "stake"}],
    }


def setup(day: str, a: int) -> list[dict[str, Any]]:
    """A at ``a``, B at 90, C at 150 by corrections from the era's start, then the select."""
    start = tv_rules_for(datetime.date.fromisoformat(day)).start_score
    events: list[dict[str, Any]] = [
        {"t": 0.0, "type": "correction", "seat": seat, "delta": want - start, "reason": "setup"}
        for seat, want in ((A, a), (B, 90), (C, 150))
        if want != start
    ]
    events.append({"t": 1.0, "type": "select", "theme": 1, "price": NOMINAL})
    return events


@pytest.mark.parametrize("day", sorted(OFFER_DAYS))
def test_TV_94_OWN_the_engine_takes_the_stake_to_reach_zero_until_aug_1996(day: str) -> None:
    out = run(head(day), *setup(day, -70), bid(2.0, A, 70))
    assert [o for o in of_type(out, "bid") if o.get("forced")] == []  # the opener chose
    bids = [(o["seat"], o["amount"]) for o in of_type(out, "bid")]
    assert bids == [(A, 70)]
    _, others_bid = OFFER_DAYS[day]
    if others_bid:
        # TV-H-1995-01: the others above 70 may buy it by the button.
        windows = of_type(out, "buy_window")
        assert [w["seats"] for w in windows] == [[B, C]]
        assert of_type(out, "stake_won") == []
    else:
        won = of_type(out, "stake_won")
        assert [(w["seat"], w["stake"]) for w in won] == [(A, 70)]


@pytest.mark.parametrize("day", sorted(OFFER_DAYS))
def test_TV_94_OWN_the_engine_refuses_any_other_stake_until_aug_1996(day: str) -> None:
    with pytest.raises(JournalError, match="may only play for 30 or 70"):
        run(head(day), *setup(day, -70), bid(2.0, A, 40))


@pytest.mark.parametrize("day", NOMINAL_DAYS)
def test_TV_H_1996_09_the_engine_forces_the_nominal_on_a_negative_opener(day: str) -> None:
    out = run(head(day), *setup(day, -70))
    forced = [(o["seat"], o["amount"]) for o in of_type(out, "bid") if o.get("forced")]
    assert forced == [(A, NOMINAL)]
    with pytest.raises(JournalError):
        run(head(day), *setup(day, -70), bid(2.0, A, 70))
