"""docs/rules.md Part E scenarios of the full game, and the Part B rules behind them:
the special questions (stake question, auction, cat in the bag, sponsor question, the
stake question by era), and bad input.

Each scenario is a journal replayed through the real core (``tests.conftest.run``); the
expected values are worked out by hand from docs/rules.md. Scenario scores are set up with
``correction`` lines at t = 0. The lines they share are tests/support/scenario_lines.py's.
Bad input goes through the CLI as a subprocess: exit 2, the line named on stderr,
nothing on stdout.

The rest of the full game: test_scenarios_final_round.py (the final round and the
shootout), test_scenarios_rounds_and_objections.py (the first chooser of later rounds,
the round clock, objections).

Seats: A = 1, B = 2, C = 3.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import of_type, run
from tests.support.lines import (
    bad,
    bid,
    cat_give,
    cat_price,
    fjudge,
    objection,
    ok,
    pas,
    pr,
    rejected_line,
    remove,
    result,
    sel,
    stake,
)
from tests.support.scenario_lines import (
    BLUE,
    E11_SETUP,
    E18_QUESTION,
    END_MAIN,
    PLAYERS,
    RED,
    TV_F_5_SETUP,
    A,
    B,
    C,
    after,
    assert_cli_error,
    c2003,
    final_header,
    final_scores,
    scores_at,
    special,
    strip_t,
    tv_on,
    tvm,
    tvm_final,
)

# =======================================================================================
# C2003 stake question (C2003-2.4.6, D1–D6)
# =======================================================================================

E06_HEAD = c2003(C, board={"rounds": [RED]}, specials=[special(1, 1, 80, "stake")])
E06_SETUP = (*scores_at(0, 150, 60, 10), sel(1.0, 1, 80))  # lines 2-4, 5


def test_E06_c2003_stake_opener_below_nominal() -> None:
    out = run(E06_HEAD, *E06_SETUP, bid(2.0, A, 100), ok(3.0))
    assert strip_t(after(out, 1.0)) == [
        {"type": "question", "round": 1, "theme": 1, "price": 80},
        # D4: ascending score from the opener: C (10) → B (60) → A (150).
        {"type": "special", "kind": "stake", "opener": C, "order": [C, B, A]},
        # D1: C's only legal bid is the nominal 80; it is not an all-in (D5).
        {"type": "bid", "seat": C, "amount": 80, "all_in": False, "forced": True},
        # B (60 ≤ 80) passes automatically.
        {"type": "pass", "seat": B, "auto": True},
        {"type": "bid_turn", "seat": A},
        # A raises to 100; C (10) passes automatically; A plays.
        {"type": "bid", "seat": A, "amount": 100, "all_in": False},
        {"type": "pass", "seat": C, "auto": True},
        {"type": "stake_won", "seat": A, "stake": 100},
        {"type": "recognized", "seat": A},
        # Right: 150 + 100 = 250, and A becomes the chooser.
        {"type": "score", "seat": A, "delta": 100, "score": 250},
        {"type": "chooser", "seat": A},
    ]
    assert result(out) == {
        "type": "result",
        "scores": {"1": 250, "2": 60, "3": 10},
        "chooser": A,
    }


def test_C2003_2_4_6_D1_an_opener_with_exactly_the_nominal_bids_it_all_in_by_itself() -> None:
    # C has 80, the nominal: the only legal opening bid is 80, the whole score. The
    # engine places it (docs/journal.md), as it does for an opener below the nominal.
    setup = (*scores_at(0, 150, 60, 80), sel(1.0, 1, 80))  # lines 2-4, 5
    out = run(E06_HEAD, *setup)
    assert strip_t(after(out, 1.0))[1:5] == [
        {"type": "special", "kind": "stake", "opener": C, "order": [C, A, B]},
        {"type": "bid", "seat": C, "amount": 80, "all_in": True, "forced": True},
        {"type": "pass", "seat": B, "auto": True},
        {"type": "bid_turn", "seat": A},
    ]
    # ...so C2003-2.4.6d holds: only a larger all-in beats it
    assert rejected_line(E06_HEAD, *setup, bid(2.0, A, 100)) == 6
    assert rejected_line(E06_HEAD, *setup, bid(2.0, C, 80)) == 6  # already placed
    won = run(E06_HEAD, *setup, bid(2.0, A, 150), ok(3.0))
    assert {"type": "stake_won", "seat": A, "stake": 150} in strip_t(won)


def test_E06_c2003_bid_above_score_rejected() -> None:
    # A has 150: a bid of 160 is above A's score (D5).
    assert rejected_line(E06_HEAD, *E06_SETUP, bid(2.0, A, 160)) == 6
    # ... and C cannot play for anything but 80 (the forced bid is already placed).
    assert rejected_line(E06_HEAD, *E06_SETUP, bid(2.0, C, 100)) == 6


E07_HEAD = c2003(A, board={"rounds": [BLUE]}, specials=[special(1, 1, 30, "stake")])
E07_SETUP = (*scores_at(0, 120, 200, 40), sel(1.0, 1, 30))  # lines 2-4, 5


def test_E07_c2003_all_in_beaten_only_by_all_in() -> None:
    # B's 150 is not an all-in: rejected (C2003-2.4.6d).
    assert rejected_line(E07_HEAD, *E07_SETUP, bid(2.0, A, 120), bid(3.0, B, 150)) == 7
    out = run(E07_HEAD, *E07_SETUP, bid(2.0, A, 120), bid(3.0, B, 200), bad(4.0))
    assert strip_t(of_type(out, "special")) == [
        # Ascending C 40, A 120, B 200; from A: A → B → C.
        {"type": "special", "kind": "stake", "opener": A, "order": [A, B, C]}
    ]
    assert of_type(out, "bid") == [
        {"t": 2.0, "type": "bid", "seat": A, "amount": 120, "all_in": True},
        {"t": 3.0, "type": "bid", "seat": B, "amount": 200, "all_in": True},
    ]
    # C (40) and A pass automatically.
    assert sorted((o["seat"], o["auto"]) for o in of_type(out, "pass")) == [
        (A, True),
        (C, True),
    ]
    assert strip_t(after(out, 3.0, "stake_won", "recognized", "score", "chooser")) == [
        {"type": "stake_won", "seat": B, "stake": 200},
        {"type": "recognized", "seat": B},
        # B is wrong: 200 - 200 = 0; B becomes the chooser (C2003-2.4.6f).
        {"type": "score", "seat": B, "delta": -200, "score": 0},
        {"type": "chooser", "seat": B},
    ]
    assert result(out) == {
        "type": "result",
        "scores": {"1": 120, "2": 0, "3": 40},
        "chooser": B,
    }


def test_E07_variant_equal_all_in_cannot_beat() -> None:
    # B had 120: B cannot beat A's all-in of 120 (D5: strictly larger).
    setup = (*scores_at(0, 120, 120, 40), sel(1.0, 1, 30))
    out = run(E07_HEAD, *setup, bid(2.0, A, 120))
    assert of_type(out, "special")[0]["order"][0] == A
    assert sorted(of_type(out, "special")[0]["order"]) == [A, B, C]
    assert sorted((o["seat"], o["auto"]) for o in of_type(out, "pass")) == [
        (B, True),
        (C, True),
    ]
    assert of_type(out, "bid_turn") == []
    assert strip_t(of_type(out, "stake_won")) == [{"type": "stake_won", "seat": A, "stake": 120}]
    # B gets no chance to bid: the bidding is over.
    assert rejected_line(E07_HEAD, *setup, bid(2.0, A, 120), bid(3.0, B, 120)) == 7


def test_E08_c2003_negative_opener_plays_for_nominal() -> None:
    head = c2003(C, board={"rounds": [BLUE]}, specials=[special(1, 1, 20, "stake")])
    out = run(head, *scores_at(0, 0, 0, -40), sel(1.0, 1, 20), ok(2.0))
    assert strip_t(of_type(out, "bid")) == [
        {"type": "bid", "seat": C, "amount": 20, "all_in": False, "forced": True}
    ]
    assert sorted(o["seat"] for o in of_type(out, "pass")) == [A, B]
    assert strip_t(of_type(out, "stake_won")) == [{"type": "stake_won", "seat": C, "stake": 20}]
    # Right: -40 + 20 = -20; C becomes the chooser.
    assert strip_t(after(out, 2.0)) == [
        {"type": "score", "seat": C, "delta": 20, "score": -20},
        {"type": "chooser", "seat": C},
    ]
    assert result(out)["chooser"] == C


# -- C2003-2.4.6f / TV-S-0c: whoever played a special question chooses next ------------


@pytest.mark.parametrize("verdict", ["correct", "wrong"])
def test_C2003_2_4_6f_stake_winner_chooses_next(verdict: str) -> None:
    # E06's bidding: C opened, A won the bidding and plays for 100.
    out = run(E06_HEAD, *E06_SETUP, bid(2.0, A, 100), (ok if verdict == "correct" else bad)(3.0))
    assert strip_t(of_type(out, "chooser")) == [{"type": "chooser", "seat": A}]
    assert final_scores(out)["1"] == (250 if verdict == "correct" else 50)
    assert result(out)["chooser"] == A


@pytest.mark.parametrize("verdict", ["correct", "wrong"])
def test_TV_S_0c_cat_receiver_chooses_next(verdict: str) -> None:
    head = tvm(A, board={"rounds": [dict(RED_TV)]}, specials=[special(1, 1, 600, "cat")])
    judge = ok if verdict == "correct" else bad
    out = run(head, sel(1.0, 1, 600), cat_give(2.0, B), cat_price(3.0, 200), judge(4.0))
    assert strip_t(of_type(out, "chooser")) == [{"type": "chooser", "seat": B}]
    assert final_scores(out)["2"] == (200 if verdict == "correct" else -200)


@pytest.mark.parametrize("verdict", ["correct", "wrong"])
def test_TV_S_0c_auction_winner_chooses_next(verdict: str) -> None:
    # E23's bidding: A opened, B won the auction for 1600.
    judge = ok if verdict == "correct" else bad
    out = run(E23_HEAD, *E23_SETUP, pas(2.0, C), bid(3.0, B, 1600), judge(4.0))
    assert strip_t(of_type(out, "chooser")) == [{"type": "chooser", "seat": B}]
    assert final_scores(out)["2"] == (4600 if verdict == "correct" else 1400)


# =======================================================================================
# TV-M auction (TV-S-AUC-*)
# =======================================================================================

RED_TV = {"name": "Второй раунд", "themes": 2, "prices": [200, 400, 600, 800, 1000]}
THIRD_TV = {"name": "Третий раунд", "themes": 2, "prices": [300, 600, 900, 1200, 1500]}

E22_HEAD = tvm(A, board={"rounds": [RED_TV]}, specials=[special(1, 1, 400, "stake")])
E22_SETUP = (*scores_at(0, 1500, 800, 2200), sel(1.0, 1, 400))  # lines 2-4, 5


def test_TV_S_AUC_1_an_equal_bid_is_not_a_raise() -> None:
    # after A's 500 it is C's turn: 500 again does not beat it, 600 does
    assert rejected_line(E22_HEAD, *E22_SETUP, bid(2.0, A, 500), bid(3.0, C, 500)) == 7
    out = run(E22_HEAD, *E22_SETUP, bid(2.0, A, 500), bid(3.0, C, 600))
    assert {"type": "bid", "seat": C, "amount": 600, "all_in": False} in strip_t(out)


def test_E22_tv_modern_auction_order_leader_bids_second() -> None:
    out = run(E22_HEAD, *E22_SETUP, bid(2.0, A, 500), bid(3.0, C, 2200), ok(4.0))
    # A is second: the leader C bids next, then B.
    assert strip_t(of_type(out, "special")) == [
        {"type": "special", "kind": "stake", "opener": A, "order": [A, C, B]}
    ]
    assert strip_t(after(out, 2.0, "bid", "bid_turn")) == [
        {"type": "bid", "seat": A, "amount": 500, "all_in": False},
        {"type": "bid_turn", "seat": C},
        {"type": "bid", "seat": C, "amount": 2200, "all_in": True},
    ]
    # B and A pass automatically.
    assert sorted((o["seat"], o["auto"]) for o in of_type(out, "pass")) == [
        (A, True),
        (B, True),
    ]
    assert strip_t(after(out, 3.0, "stake_won", "recognized", "score", "chooser")) == [
        {"type": "stake_won", "seat": C, "stake": 2200},
        {"type": "recognized", "seat": C},
        {"type": "score", "seat": C, "delta": 2200, "score": 4400},
        {"type": "chooser", "seat": C},
    ]
    assert result(out)["chooser"] == C


@pytest.mark.parametrize("amount", [450, 300])
def test_E22_tv_modern_opening_bid_invalid(amount: int) -> None:
    # 450: not a multiple of 100; 300: below the nominal 400 (TV-S-AUC-1).
    assert rejected_line(E22_HEAD, *E22_SETUP, bid(2.0, A, amount)) == 6


E23_HEAD = tvm(A, board={"rounds": [THIRD_TV]}, specials=[special(1, 1, 1500, "stake")])
E23_SETUP = (*scores_at(0, 200, 3000, 2500), sel(1.0, 1, 1500))  # lines 2-4, 5


def test_E23_tv_modern_auction_opener_below_nominal() -> None:
    out = run(E23_HEAD, *E23_SETUP, pas(2.0, C), bid(3.0, B, 1600))
    assert strip_t(after(out, 1.0)) == [
        {"type": "question", "round": 1, "theme": 1, "price": 1500},
        # A → C → B.
        {"type": "special", "kind": "stake", "opener": A, "order": [A, C, B]},
        # A must bid 1500 (TV-S-AUC-2).
        {"type": "bid", "seat": A, "amount": 1500, "all_in": False, "forced": True},
        {"type": "bid_turn", "seat": C},
        # C passes.
        {"type": "pass", "seat": C, "auto": False},
        {"type": "bid_turn", "seat": B},
        # B bids 1600; A passes automatically; B plays for 1600.
        {"type": "bid", "seat": B, "amount": 1600, "all_in": False},
        {"type": "pass", "seat": A, "auto": True},
        {"type": "stake_won", "seat": B, "stake": 1600},
        {"type": "recognized", "seat": B},
    ]


def test_TV_S_AUC_4_a_pass_out_of_turn_is_taken_and_the_turn_stays() -> None:
    # A opens (forced 1500); it is C's turn, and B says "Pass" at once.
    out = run(E23_HEAD, *E23_SETUP, pas(2.0, B), pas(3.0, C))
    assert strip_t(after(out, 1.0, "pass", "bid_turn", "stake_won")) == [
        {"type": "bid_turn", "seat": C},
        {"type": "pass", "seat": B, "auto": False},
        {"type": "bid_turn", "seat": C},  # still C's turn
        {"type": "pass", "seat": C, "auto": False},
        {"type": "stake_won", "seat": A, "stake": 1500},
    ]


def test_TV_S_AUC_4_no_pass_before_the_first_bid_nor_by_the_highest_bidder() -> None:
    e22 = (*scores_at(0, 1500, 800, 2250), sel(1.0, 1, 400))  # lines 2-4, 5
    # Before the opener's first bid nobody passes, in turn or out of it.
    assert rejected_line(E22_HEAD, *e22, pas(2.0, B)) == 6
    assert rejected_line(E22_HEAD, *e22, pas(2.0, A)) == 6
    # The holder of the highest bid cannot pass; a seat that passed cannot pass again.
    assert rejected_line(E22_HEAD, *e22, bid(2.0, A, 500), pas(3.0, A)) == 7
    assert rejected_line(E22_HEAD, *e22, bid(2.0, A, 500), pas(3.0, B), pas(4.0, B)) == 8


def test_TV_S_AUC_1_all_in_not_a_multiple_of_100_is_allowed() -> None:
    setup = (*scores_at(0, 1500, 800, 2250), sel(1.0, 1, 400), bid(2.0, A, 500))  # 2-4, 5, 6
    # 2150 is neither a multiple of 100 nor C's whole score.
    assert rejected_line(E22_HEAD, *setup, bid(3.0, C, 2150)) == 7
    out = run(E22_HEAD, *setup, bid(3.0, C, 2250))
    assert strip_t(after(out, 3.0, "bid", "stake_won")) == [
        {"type": "bid", "seat": C, "amount": 2250, "all_in": True},
        {"type": "stake_won", "seat": C, "stake": 2250},
    ]


TV94_OWN_HEAD = tv_on(None, A, specials=[special(1, 1, 40, "stake")])


def test_TV_94_OWN_opener_alone_stakes_from_10_below_the_nominal() -> None:
    # A (50) stakes 10 on a 40 question: below the nominal is allowed; nobody else bids.
    out = run(TV94_OWN_HEAD, sel(1.0, 1, 40), bid(2.0, A, 10), ok(3.0))
    assert of_type(out, "bid_turn") == []
    assert strip_t(of_type(out, "stake_won")) == [{"type": "stake_won", "seat": A, "stake": 10}]
    assert strip_t(after(out, 3.0)) == [
        {"type": "score", "seat": A, "delta": 10, "score": 60},
        {"type": "chooser", "seat": A},
    ]


@pytest.mark.parametrize("amount", [5, 15, 60])
def test_TV_94_OWN_stake_out_of_range_rejected(amount: int) -> None:
    # 5: below 10; 15: not a step of 10 and not all-in; 60: above A's 50.
    assert rejected_line(TV94_OWN_HEAD, sel(1.0, 1, 40), bid(2.0, A, amount)) == 3


def test_TV_94_OWN_score_0_plays_for_the_nominal() -> None:
    out = run(TV94_OWN_HEAD, *scores_at(50, 0, 50, 50), sel(1.0, 1, 40), bad(2.0))
    assert strip_t(of_type(out, "bid")) == [
        {"type": "bid", "seat": A, "amount": 40, "all_in": False, "forced": True}
    ]
    assert strip_t(of_type(out, "stake_won")) == [{"type": "stake_won", "seat": A, "stake": 40}]
    assert final_scores(out)["1"] == -40


# =======================================================================================
# Cat in the bag (TV-S-CAT-*)
# =======================================================================================

E24_HEAD = tvm(A, board={"rounds": [RED_TV]}, specials=[special(1, 1, 600, "cat")])


def test_TOUR_3_7_an_objection_on_a_cat_turns_its_minus_into_plus() -> None:
    out = run(
        E24_HEAD,
        sel(1.0, 1, 600),
        cat_give(2.0, C),
        cat_price(3.0, 1000),
        bad(9.0),
        objection(12.0, C),
    )
    assert strip_t(after(out, 12.0, "objection", "score")) == [
        {"type": "objection", "seat": C},
        {"type": "score", "seat": C, "delta": 2000, "score": 1000},
    ]
    # the cat's opener never answered it: an objection by A is refused
    assert rejected_line(
        E24_HEAD, sel(1.0, 1, 600), cat_give(2.0, C), cat_price(3.0, 1000), bad(9.0),
        objection(12.0, A),
    ) == 6  # fmt: skip


def test_E24_tv_modern_cat() -> None:
    out = run(E24_HEAD, sel(1.0, 1, 600), cat_give(2.0, C), cat_price(3.0, 1000), bad(9.0))
    assert strip_t(after(out, 1.0)) == [
        {"type": "question", "round": 1, "theme": 1, "price": 600},
        {"type": "special", "kind": "cat", "opener": A},
        {"type": "cat_given", "from": A, "to": C},
        # TV-S-CAT-2: the round's minimum or maximum.
        {"type": "cat_prices", "options": [200, 1000]},
        {"type": "recognized", "seat": C},
        # Silence is wrong: -1000; C becomes the chooser.
        {"type": "score", "seat": C, "delta": -1000, "score": -1000},
        {"type": "chooser", "seat": C},
    ]
    assert result(out) == {
        "type": "result",
        "scores": {"1": 0, "2": 0, "3": -1000},
        "chooser": C,
    }


def test_E24_tv_modern_cat_cannot_be_kept() -> None:
    assert rejected_line(E24_HEAD, sel(1.0, 1, 600), cat_give(2.0, A)) == 3


@pytest.mark.parametrize(
    ("date", "may_keep"),
    [
        ("1996-09-01", True),
        ("1997-02-28", True),
        ("1997-03-01", False),
        ("2010-05-01", False),
    ],
)
def test_TV_S_CAT_1_keeping_the_cat_only_sep_1996_to_mar_1997(date: str, may_keep: bool) -> None:
    head = tv_on(date, A, specials=[special(1, 1, 300 if date > "2001" else 30, "cat")])
    cell = sel(1.0, 1, 300 if date > "2001" else 30)
    if not may_keep:
        assert rejected_line(head, cell, cat_give(2.0, A)) == 3
        return
    # TV-S-CAT-4: before Aug 2007 the value is fixed by the editors: the host enters it.
    out = run(head, cell, cat_give(2.0, A), cat_price(3.0, 70), ok(4.0))
    assert strip_t(after(out, 2.0)) == [
        {"type": "cat_given", "from": A, "to": A},
        {"type": "recognized", "seat": A},
        {"type": "score", "seat": A, "delta": 70, "score": 70},
        {"type": "chooser", "seat": A},
    ]


@pytest.mark.parametrize(
    ("date", "value", "taken"),
    [
        ("1998-05-01", 70, True),  # the editors' value, no step known before Sep 2001
        ("2002-05-01", 250, True),  # Sep 2001: sometimes a multiple of 50
        ("2002-05-01", 270, False),
        ("2004-05-01", 400, True),  # Jan 2003: always a multiple of 100
        ("2004-05-01", 250, False),
        ("1998-05-01", 0, False),  # never nothing, never negative
        ("2004-05-01", -100, False),
    ],
)
def test_TV_S_CAT_4_the_editors_cat_values_by_era(date: str, value: int, taken: bool) -> None:
    price = 300 if date > "2001" else 30
    head = tv_on(date, A, specials=[special(1, 1, price, "cat")])
    events = (sel(1.0, 1, price), cat_give(2.0, B), cat_price(3.0, value))
    if not taken:
        assert rejected_line(head, *events) == 4
        return
    out = run(head, *events, ok(4.0))
    assert {"type": "score", "seat": B, "delta": value, "score": value} in strip_t(out)


def test_TV_S_CAT_1_no_cats_before_sep_1996() -> None:
    head = tv_on("1996-08-31", A, specials=[special(1, 1, 30, "cat")])
    assert rejected_line(head, sel(1.0, 1, 30)) == 1


# =======================================================================================
# Sponsor question (TV-S-SPN-*)
# =======================================================================================

FIRST_TV = {"name": "Первый раунд", "themes": 2, "prices": [100, 200, 300, 400, 500]}
E25_HEAD = tvm(A, board={"rounds": [FIRST_TV]}, specials=[special(1, 1, 300, "sponsor")])


def test_E25_tv_sponsor_right_doubles() -> None:
    out = run(E25_HEAD, sel(1.0, 1, 300), ok(3.0))
    assert strip_t(after(out, 1.0)) == [
        {"type": "question", "round": 1, "theme": 1, "price": 300},
        {"type": "special", "kind": "sponsor", "opener": A},
        {"type": "recognized", "seat": A},
        {"type": "score", "seat": A, "delta": 600, "score": 600},
        {"type": "chooser", "seat": A},
    ]


def test_E25_tv_sponsor_wrong_costs_nothing() -> None:
    out = run(E25_HEAD, sel(1.0, 1, 300), bad(3.0))
    assert [o["delta"] for o in of_type(out, "score") if o["delta"] != 0] == []
    assert strip_t(of_type(out, "chooser")) == [{"type": "chooser", "seat": A}]
    assert result(out) == {
        "type": "result",
        "scores": {"1": 0, "2": 0, "3": 0},
        "chooser": A,
    }


def test_TV_S_SPN_1_wrong_costs_0_from_any_score() -> None:
    out = run(E25_HEAD, *scores_at(0, 500, 0, 0), sel(1.0, 1, 300), bad(3.0))
    assert final_scores(out) == {"1": 500, "2": 0, "3": 0}
    assert result(out)["chooser"] == A


@pytest.mark.parametrize(
    ("date", "exists"),
    [("2004-07-31", False), ("2004-08-01", True), ("2005-01-01", False), ("2006-10-01", True)],
)
def test_TV_S_SPN_2_sponsor_question_by_era(date: str, exists: bool) -> None:
    head = tv_on(date, A, specials=[special(1, 1, 300, "sponsor")])
    if not exists:
        assert rejected_line(head, sel(1.0, 1, 300)) == 1
        return
    out = run(head, sel(1.0, 1, 300), ok(2.0))
    assert strip_t(of_type(out, "score")) == [
        {"type": "score", "seat": A, "delta": 600, "score": 600}
    ]


# =======================================================================================
# E29: the stake question by era (Part D)
# =======================================================================================

E29_SPECIALS = [special(1, 1, 30, "stake")]


def test_E29_jan_1995_all_in_bought_by_any_larger_sum() -> None:
    head = tv_on("1995-01-01", A, specials=E29_SPECIALS)  # start at 50
    # B presses in the buy window to get the floor (TV-H-1995-01), then bids.
    events = (*scores_at(50, 90, 150, 50), sel(1.0, 1, 30), bid(2.0, A, 90), pr(2.5, B))
    out = run(head, *events, bid(3.0, B, 100))
    assert strip_t(of_type(out, "bid")) == [
        {"type": "bid", "seat": A, "amount": 90, "all_in": True},
        {"type": "bid", "seat": B, "amount": 100, "all_in": False},
    ]
    # A leaves the bidding; B buys it for 100.
    assert (A, 3.0) in [(o["seat"], o["t"]) for o in of_type(out, "pass")]
    assert strip_t(of_type(out, "stake_won")) == [{"type": "stake_won", "seat": B, "stake": 100}]
    assert strip_t(of_type(out, "recognized")) == [{"type": "recognized", "seat": B}]


def test_E29_sep_1996_all_in_cannot_be_beaten() -> None:
    head = tv_on("1996-09-01", A, specials=E29_SPECIALS)  # start at 0
    setup = (*scores_at(0, 90, 150, 0), sel(1.0, 1, 30), bid(2.0, A, 90))
    out = run(head, *setup)
    assert sorted(o["seat"] for o in of_type(out, "pass")) == [B, C]
    assert strip_t(of_type(out, "stake_won")) == [{"type": "stake_won", "seat": A, "stake": 90}]
    assert strip_t(of_type(out, "recognized")) == [{"type": "recognized", "seat": A}]
    assert rejected_line(head, *setup, bid(3.0, B, 100)) == 6


def test_E29_aug_1998_only_a_larger_all_in() -> None:
    head = tv_on("1998-08-01", A, specials=E29_SPECIALS)
    setup = (*scores_at(0, 90, 150, 0), sel(1.0, 1, 30), bid(2.0, A, 90))  # lines 2-3, 4, 5
    assert rejected_line(head, *setup, bid(3.0, B, 100)) == 6
    out = run(head, *setup, bid(3.0, B, 150))
    assert strip_t(after(out, 3.0, "bid", "stake_won")) == [
        {"type": "bid", "seat": B, "amount": 150, "all_in": True},
        {"type": "stake_won", "seat": B, "stake": 150},
    ]


@pytest.mark.parametrize(("amount", "after_answer"), [(120, 0), (30, -90)])
def test_E29_tv94_negative_opener_offered_to_zero_or_nominal(
    amount: int, after_answer: int
) -> None:
    # TV-94: start at 50; B at -120 opens a 30 stake question: 120 (to reach 0) or 30.
    head = tv_on(None, B, specials=E29_SPECIALS)
    out = run(head, *scores_at(50, 50, -120, 50), sel(1.0, 1, 30), bid(2.0, B, amount), ok(3.0))
    assert strip_t(of_type(out, "stake_won")) == [{"type": "stake_won", "seat": B, "stake": amount}]
    assert strip_t(after(out, 3.0, "score", "chooser")) == [
        {"type": "score", "seat": B, "delta": amount, "score": after_answer},
        {"type": "chooser", "seat": B},
    ]


def test_E29_tv94_negative_opener_no_other_stake() -> None:
    head = tv_on(None, B, specials=E29_SPECIALS)
    setup = (*scores_at(50, 50, -120, 50), sel(1.0, 1, 30))  # lines 2, 3
    assert rejected_line(head, *setup, bid(2.0, B, 50)) == 4
    # TV-94-OWN: only the opener stakes.
    assert rejected_line(head, *setup, bid(2.0, A, 50)) == 4


# =======================================================================================
# Bad input through the CLI: exit 2, stderr names the line, stdout empty
# =======================================================================================


def test_cli_bid_out_of_turn(tmp_path: Path) -> None:
    # E22: after A's 500 it is C's turn, not B's.
    assert_cli_error(tmp_path, 7, E22_HEAD, *E22_SETUP, bid(2.0, A, 500), bid(3.0, B, 600))


def test_cli_bid_above_score(tmp_path: Path) -> None:
    assert_cli_error(tmp_path, 6, E06_HEAD, *E06_SETUP, bid(2.0, A, 160))


def test_cli_non_all_in_raise_over_all_in(tmp_path: Path) -> None:
    assert_cli_error(tmp_path, 7, E07_HEAD, *E07_SETUP, bid(2.0, A, 120), bid(3.0, B, 150))


def test_cli_pass_by_the_opener_first(tmp_path: Path) -> None:
    assert_cli_error(tmp_path, 6, E07_HEAD, *E07_SETUP, pas(2.0, A))


def test_cli_cat_give_to_self(tmp_path: Path) -> None:
    assert_cli_error(tmp_path, 3, E24_HEAD, sel(1.0, 1, 600), cat_give(2.0, A))


def test_cli_cat_price_not_min_or_max(tmp_path: Path) -> None:
    assert_cli_error(tmp_path, 4, E24_HEAD, sel(1.0, 1, 600), cat_give(2.0, C), cat_price(3.0, 600))


def test_cli_final_remove_of_a_removed_theme(tmp_path: Path) -> None:
    events = (*scores_at(0, 300, 150, -10), *END_MAIN, remove(10.0, 1, B), remove(11.0, 1, A))
    assert_cli_error(tmp_path, 8, final_header(), *events)


def test_cli_final_stake_of_a_non_finalist(tmp_path: Path) -> None:
    assert_cli_error(tmp_path, 13, final_header(), *E11_SETUP, stake(20.0, C, 5))


def test_cli_objection_after_the_next_select(tmp_path: Path) -> None:
    events = (*E18_QUESTION, sel(12.0, 2, 10), objection(13.0, A))  # lines 2-6, 7, 8
    assert_cli_error(tmp_path, 8, c2003(B, board={"rounds": [BLUE]}), *events)


def test_cli_final_judge_out_of_order(tmp_path: Path) -> None:
    # TV-F-5: B (3000) is judged first, not A.
    assert_cli_error(tmp_path, 18, tvm_final(), *TV_F_5_SETUP, fjudge(60.0, "correct", A))


@pytest.mark.parametrize(
    ("rules", "kind", "price"),
    [
        ("championship-2003", "cat", 30),
        ("championship-2003", "sponsor", 30),
        ("tv-1994", "cat", 30),
        ("sport-clarify", "stake", 30),
    ],
)
def test_cli_special_the_system_does_not_have(
    tmp_path: Path, rules: str, kind: str, price: int
) -> None:
    head = {"rules": rules, "players": PLAYERS, "specials": [special(1, 1, price, kind)]}
    assert_cli_error(tmp_path, 1, head, sel(1.0, 1, price))


@pytest.mark.parametrize(
    ("rules", "date"),
    [
        ("tv-1994", "1995-13-01"),
        ("tv-1994", "1995-02-30"),
        ("tv-1994", "yesterday"),
        ("tv-modern", "1994-04-13"),  # before the first TV rules
        ("championship-2003", "2003-02-01"),  # not a TV system
    ],
)
def test_cli_bad_date(tmp_path: Path, rules: str, date: str) -> None:
    head = {"rules": rules, "players": PLAYERS, "date": date}
    assert_cli_error(tmp_path, 1, head, sel(1.0, 1, 10))
