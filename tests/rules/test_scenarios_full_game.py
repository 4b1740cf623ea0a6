"""docs/rules.md Part E scenarios of the full game, and the Part B rules behind them.

Special questions (stake question, auction, cat in the bag, sponsor question),
the first chooser of later rounds, the round clock, the final round, the
shootout, objections. Each scenario is a journal replayed through the real
core (``tests.conftest.run``); the expected values are worked out by hand
from docs/rules.md. Scenario scores are set up with ``correction`` lines at t = 0.
Bad input goes through the CLI as a subprocess: exit 2, the line named on
stderr, nothing on stdout.

Seats: A = 1, B = 2, C = 3.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from buzzer.journal.codec import JournalError
from tests.conftest import of_type, run
from tests.support.lines import bad, bid, ok, pr, re_, replay_cli, rs, sel, timeout
from tests.support.paths import REPO

ROOT = REPO

A, B, C = 1, 2, 3
PLAYERS = ["A", "B", "C"]

# -- journal lines -----------------------------------------------------------------------


def pas(t: float, seat: int) -> dict[str, Any]:
    return {"t": t, "type": "pass", "seat": seat}


def cat_give(t: float, seat: int) -> dict[str, Any]:
    return {"t": t, "type": "cat_give", "seat": seat}


def cat_price(t: float, price: int) -> dict[str, Any]:
    return {"t": t, "type": "cat_price", "price": price}


def remove(t: float, theme: int, seat: int | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"t": t, "type": "final_remove", "theme": theme}
    if seat is not None:
        event["seat"] = seat
    return event


def stake(t: float, seat: int, amount: int) -> dict[str, Any]:
    return {"t": t, "type": "final_stake", "seat": seat, "amount": amount}


def fjudge(t: float, verdict: str, seat: int | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"t": t, "type": "final_judge", "verdict": verdict}
    if seat is not None:
        event["seat"] = seat
    return event


def read_final(t: float) -> tuple[dict[str, Any], dict[str, Any]]:
    """The host reads the final question from ``t`` for a second: the answers are in 30 s on."""
    return rs(t), re_(t + 1.0)


def objection(t: float, seat: int) -> dict[str, Any]:
    return {"t": t, "type": "objection", "seat": seat}


def scores_at(start: int, a: int, b: int, c: int) -> list[dict[str, Any]]:
    """Corrections at t = 0 that bring A, B, C from ``start`` to a, b, c."""
    return [
        {"t": 0.0, "type": "correction", "seat": seat, "delta": want - start, "reason": "setup"}
        for seat, want in ((A, a), (B, b), (C, c))
        if want != start
    ]


def plain(
    t: float,
    theme: int | None,
    price: int | None,
    seat: int | None,
    verdict: str | None,
) -> list[dict[str, Any]]:
    """One plain question: select, read, (a press and a verdict) or a timeout."""
    events = [sel(t, theme, price), rs(t + 0.1), re_(t + 1.0)]
    if seat is None or verdict is None:
        return [*events, timeout(t + 2.0)]
    judge = ok if verdict == "correct" else bad
    return [*events, pr(t + 1.5, seat), judge(t + 2.0)]


# -- output helpers ----------------------------------------------------------------------


def strip_t(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in o.items() if k != "t"} for o in lines]


def after(out: list[dict[str, Any]], t: float, *types: str) -> list[dict[str, Any]]:
    """Lines of ``types`` with a time ≥ ``t`` (every type when none is named)."""
    return [o for o in out if "t" in o and o["t"] >= t and (not types or o["type"] in types)]


def result(out: list[dict[str, Any]]) -> dict[str, Any]:
    assert out[-1]["type"] == "result"
    return out[-1]


def final_scores(out: list[dict[str, Any]]) -> dict[str, int]:
    return dict(result(out)["scores"])


def game_over(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return strip_t(of_type(out, "game_over"))


def rejected_line(header: dict[str, Any], *events: dict[str, Any]) -> int:
    """The journal line the replay refuses (in-process)."""
    with pytest.raises(JournalError) as info:
        run(header, *events)
    return info.value.line


# -- headers -----------------------------------------------------------------------------

BLUE = {"name": "Синий раунд", "themes": 2, "prices": [10, 20, 30, 40, 50]}
RED = {"name": "Красный раунд", "themes": 2, "prices": [20, 40, 60, 80, 100]}
ONE_CELL = {"name": "Последний раунд", "themes": 1, "prices": [10]}


def c2003(chooser: int = A, **extra: Any) -> dict[str, Any]:
    return {"rules": "championship-2003", "players": PLAYERS, "chooser": chooser, **extra}


def tvm(chooser: int = A, **extra: Any) -> dict[str, Any]:
    return {"rules": "tv-modern", "players": PLAYERS, "chooser": chooser, **extra}


def tv_on(date: str | None, chooser: int = A, **extra: Any) -> dict[str, Any]:
    head: dict[str, Any] = {"rules": "tv-1994", "players": PLAYERS, "chooser": chooser, **extra}
    if date is not None:
        head["date"] = date
    return head


def special(round_no: int, theme: int, price: int, kind: str) -> dict[str, Any]:
    return {"round": round_no, "theme": theme, "price": price, "kind": kind}


def final_header(**extra: Any) -> dict[str, Any]:
    """C2003 with a one-question board: its timeout ends the main rounds."""
    return c2003(**{"board": {"rounds": [ONE_CELL]}, **extra})


END_MAIN = (sel(1.0, 1, 10), timeout(2.0))  # the only question: nobody answers


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
# Rounds: the first chooser of the Red round (C2003-2.3.2)
# =======================================================================================

TWO_ROUNDS = {
    "rounds": [
        {"name": "Синий раунд", "themes": 1, "prices": [10]},
        {"name": "Красный раунд", "themes": 1, "prices": [20]},
    ]
}


def e09(seed: int, a: int, b: int, c: int) -> list[dict[str, Any]]:
    return run(
        c2003(A, board=TWO_ROUNDS, seed=seed),
        *scores_at(0, a, b, c),
        sel(1.0, 1, 10),
        timeout(2.0),  # the Blue round is over: A 60, B 30, C 30
        sel(3.0, 1, 20),
    )


@pytest.mark.parametrize("seed", range(8))
def test_E09_c2003_red_round_lowest_score_chooses_tie_by_lot(seed: int) -> None:
    out = e09(seed, 60, 30, 30)
    lots = of_type(out, "lot")
    assert len(lots) == 1
    assert lots[0]["t"] == 3.0
    assert lots[0]["seats"] == [B, C]
    winner = lots[0]["winner"]
    assert winner in (B, C)
    assert strip_t(after(out, 3.0, "round_started", "chooser", "question")) == [
        {"type": "round_started", "round": 2, "name": "Красный раунд"},
        {"type": "chooser", "seat": winner},
        {"type": "question", "round": 2, "theme": 1, "price": 20},
    ]
    assert result(out)["chooser"] == winner


# A is the eldest, C the youngest; B and C tied in age in the second header.
BIRTHS = ["1970-05-01", "1980-05-01", "1990-05-01"]
TWINS = ["1970-05-01", "1990-05-01", "1990-05-01"]


@pytest.mark.parametrize("seed", range(4))
def test_TV_G_4_red_round_lowest_score_tie_goes_to_the_youngest(seed: int) -> None:
    head = tv_on(None, A, board=TWO_ROUNDS, seed=seed, birth_dates=BIRTHS)
    out = run(head, *scores_at(50, 60, 30, 30), sel(1.0, 1, 10), timeout(2.0), sel(3.0, 1, 20))
    assert strip_t(after(out, 3.0, "round_started", "youngest", "lot", "chooser")) == [
        {"type": "round_started", "round": 2, "name": "Красный раунд"},
        {"type": "youngest", "seats": [B, C], "winner": C},
        {"type": "chooser", "seat": C},
    ]
    # Born the same day: the birth dates do not tell B and C apart, the lot does.
    twins = run(
        {**head, "birth_dates": TWINS},
        *scores_at(50, 60, 30, 30),
        sel(1.0, 1, 10),
        timeout(2.0),
        sel(3.0, 1, 20),
    )
    lots = of_type(twins, "lot")
    assert [(o["seats"], o["winner"] in (B, C)) for o in lots] == [([B, C], True)]
    assert of_type(twins, "youngest") == []


@pytest.mark.parametrize("seed", range(4))
def test_TV_G_4_the_youngest_chooses_first(seed: int) -> None:
    head = {"rules": "tv-1994", "players": PLAYERS, "seed": seed, "birth_dates": BIRTHS}
    out = run(head, sel(1.0, 1, 10))
    assert strip_t(of_type(out, "first_chooser")) == [
        {"type": "first_chooser", "seat": C, "how": "youngest"}
    ]


def test_E09_c2003_red_round_tie_is_a_draw_not_a_fixed_rule() -> None:
    winners = {of_type(e09(seed, 60, 30, 30), "lot")[0]["winner"] for seed in range(20)}
    assert winners == {B, C}


def test_C2003_2_3_2_red_round_lowest_score_without_tie() -> None:
    out = e09(0, 60, 40, 30)
    assert of_type(out, "lot") == []
    assert strip_t(after(out, 3.0, "chooser")) == [{"type": "chooser", "seat": C}]


# =======================================================================================
# C2003 final-round eligibility (C2003-2.6)
# =======================================================================================


def test_E10_c2003_single_positive_wins_without_final() -> None:
    out = run(final_header(), *scores_at(0, 200, 0, -50), *END_MAIN)
    assert of_type(out, "final_started") == []
    assert of_type(out, "game_over") == [{"t": 2.0, "type": "game_over", "winner": A}]
    assert final_scores(out) == {"1": 200, "2": 0, "3": -50}


def test_E10_c2003_nobody_positive_no_winner() -> None:
    out = run(final_header(), *scores_at(0, 0, -20, -50), *END_MAIN)
    assert of_type(out, "final_started") == []
    assert of_type(out, "game_over") == [{"t": 2.0, "type": "game_over", "winner": None}]


def test_C2003_2_6a_only_positive_players_play_the_final() -> None:
    out = run(final_header(), *scores_at(0, 10, 20, 0), *END_MAIN)
    assert strip_t(of_type(out, "final_started")) == [
        {"type": "final_started", "seats": [A, B], "themes": 7}
    ]
    assert of_type(out, "game_over") == []


def test_C2003_2_6b_all_zero_no_winner() -> None:
    out = run(final_header(), *END_MAIN)
    assert game_over(out) == [{"type": "game_over", "winner": None}]
    assert of_type(out, "final_started") == []


def test_C2003_2_6d_exactly_one_positive_wins() -> None:
    out = run(final_header(), *scores_at(0, -10, 30, 0), *END_MAIN)
    assert game_over(out) == [{"type": "game_over", "winner": B}]
    assert of_type(out, "final_started") == []


# =======================================================================================
# C2003 final round (C2003-2.7, D1–D4)
# =======================================================================================

E11_REMOVALS = tuple(
    remove(10.0 + i, theme, seat)
    for i, (theme, seat) in enumerate(zip(range(1, 7), [B, A] * 3, strict=True))
)  # lines 7-12
E11_SETUP = (*scores_at(0, 300, 150, -10), *END_MAIN, *E11_REMOVALS)  # lines 2-4, 5-6, 7-12


def test_E11_c2003_final_round() -> None:
    out = run(
        final_header(),
        *E11_SETUP,
        stake(20.0, A, 200),
        stake(21.0, B, 150),  # all-in
        rs(22.0),
        re_(25.0),
        fjudge(56.0, "correct", B),
        fjudge(57.0, "wrong", A),
    )
    # C (-10) is out.
    assert strip_t(of_type(out, "final_started")) == [
        {"type": "final_started", "seats": [A, B], "themes": 7}
    ]
    # D1: B (150) removes first, then A (300), in turns.
    assert [o["seat"] for o in of_type(out, "final_removed")] == [B, A, B, A, B, A]
    assert [o["seat"] for o in of_type(out, "final_turn")] == [B, A, B, A, B, A]
    assert strip_t(of_type(out, "final_theme")) == [{"type": "final_theme", "theme": 7}]
    # Stakes stay hidden until judged.
    assert strip_t(of_type(out, "final_stake_in")) == [
        {"type": "final_stake_in", "seat": A},
        {"type": "final_stake_in", "seat": B},
    ]
    # D4: answers in ascending order of score: B, then A.
    assert strip_t(of_type(out, "final_question")) == [
        {"type": "final_question", "judge_order": [B, A]}
    ]
    assert strip_t(after(out, 56.0)) == [
        {"type": "final_stake", "seat": B, "stake": 150},
        {"type": "score", "seat": B, "delta": 150, "score": 300},
        {"type": "final_stake", "seat": A, "stake": 200},
        {"type": "score", "seat": A, "delta": -200, "score": 100},
        {"type": "game_over", "winner": B},
    ]
    assert final_scores(out) == {"1": 100, "2": 300, "3": -10}


def test_result_line_names_the_winner_when_the_game_is_over() -> None:
    out = run(
        final_header(),
        *E11_SETUP,
        stake(20.0, A, 200),
        stake(21.0, B, 150),
        *read_final(22.0),
        fjudge(56.0, "correct", B),
        fjudge(57.0, "wrong", A),
    )
    # docs/journal.md: "The `result` line gains `winner` once the game is over."
    assert result(out).get("winner") == B


def test_C2003_2_7_D3_stake_above_score_counts_as_all_in() -> None:
    # E11: "a stake of 350 from A would be invalid" — D3 takes it as A's all-in, 300.
    out = run(
        final_header(final_themes=1),
        *scores_at(0, 300, 100, -10),
        *END_MAIN,
        stake(20.0, A, 350),
        stake(21.0, B, 100),
        *read_final(22.0),
        fjudge(53.0, "correct", B),
        fjudge(54.0, "wrong", A),
    )
    assert strip_t(of_type(out, "final_stake")) == [
        {"type": "final_stake", "seat": B, "stake": 100},
        {"type": "final_stake", "seat": A, "stake": 300},
    ]
    assert final_scores(out) == {"1": 0, "2": 200, "3": -10}
    assert game_over(out) == [{"type": "game_over", "winner": B}]


# -- the shootout (C2003-2.8, D1–D4) ------------------------------------------------------


def test_E12_c2003_tie_for_first_shootout() -> None:
    events = [
        *scores_at(0, 200, 150, 90),
        *END_MAIN,
        # D1: ascending score: C (90), B (150), A (200), in turns.
        *(remove(10.0 + i, i + 1, seat) for i, seat in enumerate([C, B, A] * 2)),
        stake(20.0, A, 50),
        stake(21.0, B, 100),
        stake(22.0, C, 10),
        *read_final(23.0),
        fjudge(60.0, "correct", C),  # 100
        fjudge(61.0, "correct", B),  # 250
        fjudge(62.0, "correct", A),  # 250
        # The extra theme: 10..50 in order, no chooser (D2); only A and B may answer.
        sel(70.0),
        rs(70.1),
        re_(71.0),
        pr(71.2, C),
        pr(71.5, B),
        ok(72.0),  # B +10
        *plain(80.0, None, None, A, "correct"),  # A +20
        sel(90.0),
        rs(90.1),
        re_(91.0),
        pr(91.5, B),
        bad(92.0),  # B -30
        timeout(93.0),
        *plain(100.0, None, None, A, "correct"),  # A +40
        *plain(110.0, None, None, B, "correct"),  # B +50
    ]
    out = run(final_header(), *events)
    assert strip_t(of_type(out, "final_question")) == [
        {"type": "final_question", "judge_order": [C, B, A]}
    ]
    assert strip_t(of_type(out, "shootout_started")) == [
        {"type": "shootout_started", "seats": [A, B], "number": 1}
    ]
    assert [(o["theme"], o["price"]) for o in after(out, 70.0, "question")] == [
        (1, 10),
        (1, 20),
        (1, 30),
        (1, 40),
        (1, 50),
    ]
    # C is not in the extra round.
    assert [(o["seat"], o["reason"]) for o in of_type(out, "ignored")] == [(C, "not_eligible")]
    assert strip_t(of_type(out, "shootout_score")) == [
        {"type": "shootout_score", "seat": B, "delta": 10, "score": 10},
        {"type": "shootout_score", "seat": A, "delta": 20, "score": 20},
        {"type": "shootout_score", "seat": B, "delta": -30, "score": -20},
        {"type": "shootout_score", "seat": A, "delta": 40, "score": 60},
        {"type": "shootout_score", "seat": B, "delta": 50, "score": 30},
    ]
    # A 60, B 30: A wins. The game's scores are untouched by the extra round (D2),
    # so C is 3rd (D4).
    assert after(out, 70.0, "score") == []
    assert game_over(out) == [{"type": "game_over", "winner": A}]
    assert final_scores(out) == {"1": 250, "2": 250, "3": 100}


def test_C2003_2_8_D3_repeated_shootout() -> None:
    events = [
        *scores_at(0, 100, 100, -10),
        *END_MAIN,
        stake(20.0, A, 50),
        stake(21.0, B, 50),
        *read_final(22.0),
        fjudge(55.0, "correct"),
        fjudge(56.0, "correct"),  # A 150, B 150
        # Shootout 1: nobody answers anything: 0 - 0, the tie repeats.
        *(e for i in range(5) for e in (sel(70.0 + 2 * i), timeout(71.0 + 2 * i))),
        # Shootout 2: B is right on the first question, then nobody.
        *plain(90.0, None, None, B, "correct"),
        *(e for i in range(4) for e in (sel(100.0 + 2 * i), timeout(101.0 + 2 * i))),
    ]
    out = run(final_header(final_themes=1), *events)
    assert strip_t(of_type(out, "shootout_started")) == [
        {"type": "shootout_started", "seats": [A, B], "number": 1},
        {"type": "shootout_started", "seats": [A, B], "number": 2},
    ]
    assert [o["price"] for o in after(out, 70.0, "question")] == [10, 20, 30, 40, 50] * 2
    assert game_over(out) == [{"type": "game_over", "winner": B}]
    assert final_scores(out) == {"1": 150, "2": 150, "3": -10}


# =======================================================================================
# Objections (TOUR-3.7)
# =======================================================================================

E18_QUESTION = (sel(1.0, 1, 40), rs(1.5), re_(3.0), pr(3.5, A), bad(4.0))  # lines 2-6


def test_TOUR_3_7_an_objection_by_a_seat_never_ruled_wrong_is_refused() -> None:
    head = c2003(B, board={"rounds": [BLUE]})
    # E18: A was ruled wrong; B never answered, so B has nothing to object to
    assert rejected_line(head, *E18_QUESTION, objection(12.0, B)) == 7
    # ...nor has a seat ruled right: its verdict is already the right one
    right = (*E18_QUESTION, pr(4.5, B), ok(5.0))  # lines 2-8
    assert rejected_line(head, *right, objection(12.0, B)) == 9
    assert strip_t(of_type(run(head, *right, objection(12.0, A)), "objection")) == [
        {"type": "objection", "seat": A}
    ]


def test_E18_objection_accepted_plus_80_and_chooser() -> None:
    out = run(c2003(B, board={"rounds": [BLUE]}), *E18_QUESTION, objection(12.0, A))
    assert strip_t(of_type(out, "score")) == [
        {"type": "score", "seat": A, "delta": -40, "score": -40},
        # The -40 becomes +40: +80.
        {"type": "score", "seat": A, "delta": 80, "score": 40},
    ]
    assert strip_t(of_type(out, "objection")) == [{"type": "objection", "seat": A}]
    # Nobody else was right: A becomes the chooser.
    assert of_type(out, "chooser")[-1] == {"t": 12.0, "type": "chooser", "seat": A}
    assert result(out) == {
        "type": "result",
        "scores": {"1": 40, "2": 0, "3": 0},
        "chooser": A,
    }


def test_E18_objection_when_another_player_was_right_keeps_the_chooser() -> None:
    out = run(
        c2003(C, board={"rounds": [BLUE]}),
        *E18_QUESTION,
        pr(5.0, B),
        ok(6.0),  # B right: B chooses
        objection(12.0, A),
    )
    assert strip_t(after(out, 12.0)) == [
        {"type": "objection", "seat": A},
        {"type": "score", "seat": A, "delta": 80, "score": 40},
    ]
    assert result(out) == {
        "type": "result",
        "scores": {"1": 40, "2": 40, "3": 0},
        "chooser": B,
    }


def test_TOUR_3_7_objection_on_the_last_question_counts_for_final_eligibility() -> None:
    # A (20) is ruled wrong on the Red round's last question (-40 → -20), objects before
    # any next question, and the host accepts: A has 60 at the end of the Red round, so
    # A plays the final (C2003-2.6a).
    out = run(
        final_header(board={"rounds": [{"name": "Красный раунд", "themes": 1, "prices": [40]}]}),
        *scores_at(0, 20, 100, 50),
        *E18_QUESTION,
        objection(20.0, A),
    )
    assert final_scores(out) == {"1": 60, "2": 100, "3": 50}
    # The accepted objection (A 60) comes before anything of the final happened:
    # the final is reconsidered and A plays it too (TOUR-3.7, C2003-2.6a).
    assert of_type(out, "final_started")[-1]["seats"] == [A, B, C]


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
# TV final round (TV-F-*) and shootout (TV-T-1)
# =======================================================================================


def tvm_final(**extra: Any) -> dict[str, Any]:
    return tvm(
        A, board={"rounds": [{"name": "Третий раунд", "themes": 1, "prices": [300]}]}, **extra
    )


TV_END_MAIN = (sel(1.0, 1, 300), timeout(2.0))


def tv_plain(t: float, seat: int | None, verdict: str | None) -> list[dict[str, Any]]:
    """A shootout question under the TV-M buttons: the press comes after the lamp."""
    return plain(t, None, None, seat, verdict)


def test_E26_tv_modern_final_and_shootout() -> None:
    events = [
        *scores_at(0, 5000, 3000, -200),
        *TV_END_MAIN,
        *(remove(10.0 + i, i + 1, seat) for i, seat in enumerate([B, A] * 3)),
        stake(20.0, A, 1000),
        stake(21.0, B, 3000),
        *read_final(22.0),
        fjudge(60.0, "correct", B),
        fjudge(61.0, "correct", A),
        *tv_plain(70.0, A, "correct"),
        *(e for i in range(4) for e in (sel(80.0 + 2 * i), timeout(81.0 + 2 * i))),
    ]
    out = run(tvm_final(), *events)
    # C leaves; B (3000) removes first.
    assert strip_t(of_type(out, "final_started")) == [
        {"type": "final_started", "seats": [A, B], "themes": 7}
    ]
    assert [o["seat"] for o in of_type(out, "final_removed")] == [B, A, B, A, B, A]
    assert strip_t(of_type(out, "final_question")) == [
        {"type": "final_question", "judge_order": [B, A]}
    ]
    assert strip_t(after(out, 60.0, "final_stake", "score", "shootout_started")) == [
        {"type": "final_stake", "seat": B, "stake": 3000},
        {"type": "score", "seat": B, "delta": 3000, "score": 6000},
        {"type": "final_stake", "seat": A, "stake": 1000},
        {"type": "score", "seat": A, "delta": 1000, "score": 6000},
        # The tie: a shootout between A and B.
        {"type": "shootout_started", "seats": [A, B], "number": 1},
    ]
    # 5 questions worth 100–500.
    assert [o["price"] for o in after(out, 70.0, "question")] == [100, 200, 300, 400, 500]
    assert strip_t(of_type(out, "shootout_score")) == [
        {"type": "shootout_score", "seat": A, "delta": 100, "score": 100}
    ]
    assert game_over(out) == [{"type": "game_over", "winner": A}]
    assert final_scores(out) == {"1": 6000, "2": 6000, "3": -200}


def test_E27_tv_modern_nobody_positive_closest_to_zero_wins() -> None:
    out = run(tvm_final(), *scores_at(0, 0, -300, -1200), *TV_END_MAIN)
    assert of_type(out, "final_started") == []
    assert of_type(out, "game_over") == [{"t": 2.0, "type": "game_over", "winner": A}]


def test_TV_F_1_all_negative_highest_wins() -> None:
    out = run(tvm_final(), *scores_at(0, -100, -50, -300), *TV_END_MAIN)
    assert of_type(out, "final_started") == []
    assert game_over(out) == [{"type": "game_over", "winner": B}]


def test_TV_F_1_tie_closest_to_zero_goes_to_shootout() -> None:
    out = run(tvm_final(), *scores_at(0, 0, 0, -100), *TV_END_MAIN)
    assert of_type(out, "final_started") == []
    assert strip_t(of_type(out, "shootout_started")) == [
        {"type": "shootout_started", "seats": [A, B], "number": 1}
    ]
    assert of_type(out, "game_over") == []


def test_TV_F_1_single_positive_plays_alone_and_wins_whatever_the_result() -> None:
    events = [
        *scores_at(0, 500, -100, 0),
        *TV_END_MAIN,
        *(remove(10.0 + i, i + 1) for i in range(6)),
        stake(20.0, A, 500),
        *read_final(22.0),
        fjudge(60.0, "wrong", A),  # 500 - 500 = 0, level with C
    ]
    out = run(tvm_final(), *events)
    assert strip_t(of_type(out, "final_started")) == [
        {"type": "final_started", "seats": [A], "themes": 7}
    ]
    assert [o["seat"] for o in of_type(out, "final_removed")] == [A] * 6
    assert final_scores(out) == {"1": 0, "2": -100, "3": 0}
    assert game_over(out) == [{"type": "game_over", "winner": A}]
    assert of_type(out, "shootout_started") == []


TV_F_5_SETUP = (
    *scores_at(0, 5000, 3000, 4000),  # lines 2-4
    *TV_END_MAIN,  # 5-6
    *(remove(10.0 + i, i + 1) for i in range(6)),  # 7-12
    stake(20.0, A, 100),  # 13
    stake(21.0, B, 200),  # 14
    stake(22.0, C, 300),  # 15
    *read_final(23.0),  # 16-17: the answers are in at 54.0
)


def test_TV_F_5_judging_in_ascending_order_stake_revealed_when_judged() -> None:
    out = run(
        tvm_final(),
        *TV_F_5_SETUP,
        fjudge(60.0, "correct", B),
        fjudge(61.0, "wrong", C),
        fjudge(62.0, "correct", A),
    )
    # TV-F-2: removals in ascending order of score: B, C, A, in turns.
    assert [o["seat"] for o in of_type(out, "final_removed")] == [B, C, A, B, C, A]
    assert strip_t(of_type(out, "final_question")) == [
        {"type": "final_question", "judge_order": [B, C, A]}
    ]
    # No stake is shown before its answer is judged.
    assert all("stake" not in o and "amount" not in o for o in of_type(out, "final_stake_in"))
    assert after(out, 0.0, "final_stake")[0]["t"] == 60.0
    assert strip_t(after(out, 60.0)) == [
        {"type": "final_stake", "seat": B, "stake": 200},
        {"type": "score", "seat": B, "delta": 200, "score": 3200},
        {"type": "final_stake", "seat": C, "stake": 300},
        {"type": "score", "seat": C, "delta": -300, "score": 3700},
        {"type": "final_stake", "seat": A, "stake": 100},
        {"type": "score", "seat": A, "delta": 100, "score": 5100},
        {"type": "game_over", "winner": A},
    ]


def test_TV_F_5_plain_judge_follows_the_order() -> None:
    out = run(tvm_final(), *TV_F_5_SETUP, ok(60.0), bad(61.0), ok(62.0))
    assert [o["seat"] for o in of_type(out, "final_stake")] == [B, C, A]
    assert final_scores(out) == {"1": 5100, "2": 3200, "3": 3700}


# -- the verdicts come after the answers are in (C2003-2.7.4/2.7.5, TV-F-4/5) -------------

TV_F_5_STAKES = TV_F_5_SETUP[:-2]  # every stake in, the question not read yet (lines 2-15)


def refusal(*events: dict[str, Any]) -> str:
    with pytest.raises(JournalError) as info:
        run(tvm_final(), *events)
    return str(info.value)


def test_C2003_2_7_4_a_verdict_before_the_final_question_is_read_is_refused() -> None:
    message = refusal(*TV_F_5_STAKES, fjudge(23.0, "correct", B))
    assert "line 16" in message and "has not been read yet" in message


def test_TV_F_4_a_verdict_during_the_reading_is_refused() -> None:
    message = refusal(*TV_F_5_STAKES, rs(23.0), ok(23.5))
    assert "line 17" in message and "has not been read yet" in message


def test_C2003_2_7_5_a_verdict_inside_the_30_s_is_refused_and_reveals_nothing() -> None:
    message = refusal(*TV_F_5_SETUP, fjudge(40.0, "correct", B))
    # the reading ended at 24.0: 14 s of the 30 are left
    assert "line 18" in message and "still writing" in message and "14.0 s" in message


def test_TV_F_5_the_answers_are_in_at_the_end_of_the_30_s() -> None:
    out = run(tvm_final(), *TV_F_5_SETUP, fjudge(54.0, "correct", B))
    assert of_type(out, "final_timer") == [{"t": 24.0, "type": "final_timer", "until": 54.0}]
    # time alone brings the answers in; then the first verdict reveals the first stake
    assert after(out, 24.5) == [
        {"t": 54.0, "type": "final_answers_in", "judge_order": [B, C, A]},
        {"t": 54.0, "type": "final_stake", "seat": B, "stake": 200},
        {"t": 54.0, "type": "score", "seat": B, "delta": 200, "score": 3200},
        *after(out, 54.0, "result"),
    ]


def test_C2003_2_7_3_the_final_question_is_read_once_every_stake_is_in() -> None:
    message = refusal(*TV_F_5_STAKES[:-1], rs(23.0))
    assert "line 15" in message and "waiting for seat 3" in message
    message = refusal(*TV_F_5_STAKES[:-1], re_(23.0))
    assert "line 15" in message and "every stake is in" in message


def test_C2003_2_7_4_the_final_question_is_read_once() -> None:
    assert "read already" in refusal(*TV_F_5_SETUP, rs(30.0))
    assert "read already" in refusal(*TV_F_5_SETUP, re_(30.0))


def test_cli_final_verdict_inside_the_30_s(tmp_path: Path) -> None:
    assert_cli_error(tmp_path, 18, tvm_final(), *TV_F_5_SETUP, fjudge(30.0, "correct", B))


def test_TV_F_1_players_who_left_do_not_join_the_shootout() -> None:
    # C (0) leaves before the final; A and B both lose their all-in: 0, 0, 0.
    out = run(
        tvm_final(final_themes=1),
        *scores_at(0, 100, 50, 0),
        *TV_END_MAIN,
        stake(20.0, A, 100),
        stake(21.0, B, 50),
        *read_final(22.0),
        fjudge(53.0, "wrong", B),
        fjudge(54.0, "wrong", A),
    )
    assert strip_t(of_type(out, "final_started")) == [
        {"type": "final_started", "seats": [A, B], "themes": 1}
    ]
    # Only the finalists A and B contend (TV-F-1: C left before the final round).
    assert strip_t(of_type(out, "shootout_started")) == [
        {"type": "shootout_started", "seats": [A, B], "number": 1}
    ]


TV94_FINAL_BOARD = {"rounds": [{"name": "Красный раунд", "themes": 1, "prices": [20]}]}


@pytest.mark.parametrize(("date", "themes"), [(None, 1), ("2001-09-15", 1), ("2001-09-16", 7)])
def test_TV_F_2_single_theme_before_sep_2001(date: str | None, themes: int) -> None:
    head = tv_on(date, A, board=TV94_FINAL_BOARD)
    out = run(head, *scores_at(0 if date else 50, 50, 50, 50), sel(1.0, 1, 20), timeout(2.0))
    assert strip_t(of_type(out, "final_started")) == [
        {"type": "final_started", "seats": [A, B, C], "themes": themes}
    ]
    if themes == 1:
        assert strip_t(of_type(out, "final_theme")) == [{"type": "final_theme", "theme": 1}]
        assert of_type(out, "final_turn") == []


@pytest.mark.parametrize(
    ("date", "amount", "valid"),
    [
        (None, 10, True),
        (None, 5, False),  # TV-94: from 10
        (None, 15, False),  # TV-94: steps of 10
        (None, 50, True),  # all-in
        ("1996-09-01", 1, True),  # from Sep 1996: from 1 in steps of 1
        ("1996-09-01", 15, True),
    ],
)
def test_TV_F_3_final_stakes_by_era(date: str | None, amount: int, valid: bool) -> None:
    head = tv_on(date, A, board=TV94_FINAL_BOARD)
    events = (
        *scores_at(0 if date else 50, 50, 50, 50),  # lines 2-4 (none at the TV-94 start 50)
        sel(1.0, 1, 20),
        timeout(2.0),
        stake(10.0, A, amount),
    )
    if valid:
        out = run(head, *events)
        assert strip_t(of_type(out, "final_stake_in")) == [{"type": "final_stake_in", "seat": A}]
    else:
        assert rejected_line(head, *events) == len(events) + 1


# =======================================================================================
# E28: the round clock (TV-G-6, Oct 1994 – Jan 2008)
# =======================================================================================

#: The 30 cells of the default 6 × 5 Blue board in order.
BLUE_CELLS = [(theme, price) for theme in range(1, 7) for price in (10, 20, 30, 40, 50)]


def e28_events() -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    # Questions 1-16 from t = 10 (the round's first select): nobody answers.
    for k in range(16):
        theme, price = BLUE_CELLS[k]
        events += [sel(10.0 + 35 * k, theme, price), timeout(11.0 + 35 * k)]
    # Question 17 starts at 570; the clock passes 10:00 (t = 610) while it is played.
    theme, price = BLUE_CELLS[16]
    assert (theme, price) == (4, 20)
    events += [
        sel(570.0, theme, price),
        rs(571.0),
        re_(605.0),
        pr(606.0, B),
        bad(607.0),  # B 50 - 20 = 30
        pr(608.0, C),
        ok(615.0),  # finished after 10:00: C 50 + 20 = 70
    ]
    return events


def test_E28_tv_round_clock_ends_the_round_after_the_question_in_progress() -> None:
    out = run(tv_on("1995-06-01", A), *e28_events(), sel(620.0, 1, 40))
    # Question 17 is finished and scored.
    assert strip_t(after(out, 607.0, "score")) == [
        {"type": "score", "seat": B, "delta": -20, "score": 30},
        {"type": "score", "seat": C, "delta": 20, "score": 70},
    ]
    # The gong at 10:00, the round ends, the Red round starts with the lowest score (B).
    # (June 1995: the bonus contest is offered at the gong; the host's select skips it.)
    from_gong = [o for o in out if o["type"] == "round_time_up" or o.get("t", 0) >= 620.0]
    assert strip_t(from_gong) == [
        {"type": "round_time_up", "round": 1},
        {"type": "bonus_not_played", "skipped": True},
        {"type": "round_started", "round": 2, "name": "Красный раунд"},
        {"type": "chooser", "seat": B},
        {"type": "question", "round": 2, "theme": 1, "price": 40},
    ]
    assert of_type(out, "round_time_up")[0]["t"] == 610.0
    # 17 questions of the Blue round were played, 13 were not.
    assert len([o for o in of_type(out, "question") if o["round"] == 1]) == 17


def test_TV_H_1994_10_a_warning_signal_one_minute_before_the_gong() -> None:
    # The clock runs from the first select at 10: the warning at 9:00 (t = 550), between
    # question 16 (535-536) and question 17 (570); the gong at 10:00 (610).
    out = run(tv_on("1995-06-01", A), *e28_events(), sel(620.0, 1, 40))
    assert of_type(out, "round_warning") == [
        {"t": 550.0, "type": "round_warning", "round": 1, "left_s": 60.0}
    ]
    warned = out.index(of_type(out, "round_warning")[0])
    assert [o["type"] for o in out[warned - 1 : warned + 2]] == [
        "chooser",
        "round_warning",
        "question",
    ]
    assert of_type(out, "round_time_up")[0]["t"] == 610.0
    # ...and in the middle of a question it decides nothing: the question goes on
    mid = run(
        tv_on("1995-06-01", A), sel(10.0, 1, 10), rs(11.0), re_(545.0), pr(546.0, B), ok(555.0)
    )
    assert [o["type"] for o in mid if 546.0 <= o.get("t", 0) <= 555.0] == [
        "recognized",
        "round_warning",
        "score",
        "chooser",
    ]


@pytest.mark.parametrize(
    ("date", "warned"), [("1994-09-30", False), ("1994-10-01", True), ("2001-09-16", False)]
)
def test_TV_H_1994_10_and_2001_09_the_warning_exists_in_its_era_only(
    date: str, warned: bool
) -> None:
    out = run(tv_on(date, A), sel(10.0, 1, 10 if date < "2001" else 100), timeout(11.0))
    out += run(tv_on(date, A), sel(10.0, 1, 10 if date < "2001" else 100), timeout(560.0))
    assert bool(of_type(out, "round_warning")) is warned


def test_E28_tv_round_clock_runs_out_between_questions() -> None:
    # The first select at 10 starts the clock; the next select comes at 620, past 10:00.
    out = run(tv_on("1995-06-01", A), sel(10.0, 1, 10), timeout(11.0), sel(620.0, 1, 40))
    assert of_type(out, "round_time_up") == [{"t": 610.0, "type": "round_time_up", "round": 1}]
    assert strip_t(of_type(out, "round_started")) == [
        {"type": "round_started", "round": 2, "name": "Красный раунд"}
    ]
    assert [(o["t"], o["round"]) for o in of_type(out, "question")] == [(10.0, 1), (620.0, 2)]


def test_E28_tv_round_clock_unplayed_blue_cells_are_gone() -> None:
    # Theme 6 for 50 was never played in the Blue round; after the gong it is not
    # offered (the Red round has no 50).
    head = tv_on("1995-06-01", A)
    assert rejected_line(head, *e28_events(), sel(620.0, 6, 50)) == len(e28_events()) + 2


def test_TV_G_6_no_gong_for_a_round_played_to_the_end() -> None:
    # The one-question Blue round is played at 10-11 s; the Red round is chosen at 700 s.
    out = run(
        tv_on("1995-06-01", A, board=TWO_ROUNDS), sel(10.0, 1, 10), timeout(11.0), sel(700.0, 1, 20)
    )
    assert [o["round"] for o in of_type(out, "round_started")] == [2]
    assert [o["round"] for o in of_type(out, "question")] == [1, 2]
    # No round_time_up: the Blue round ended when its questions were all played (TV-G-6),
    # long before 10:00. (Regression: up to ca74e59 a spurious {"t": 610.0, "type":
    # "round_time_up", "round": 1} was printed at the select at 700; fixed by da7e00f.)
    assert of_type(out, "round_time_up") == []


@pytest.mark.parametrize(
    ("rules", "date"),
    [("tv-1994", None), ("tv-1994", "1994-09-30"), ("tv-1994", "2008-01-01"), ("tv-modern", None)],
)
def test_TV_G_6_no_round_clock_outside_oct_1994_to_jan_2008(rules: str, date: str | None) -> None:
    head: dict[str, Any] = {"rules": rules, "players": PLAYERS, "chooser": A}
    if date is not None:
        head["date"] = date
    price = 10 if rules == "tv-1994" and date != "2008-01-01" else 100
    out = run(head, sel(10.0, 1, price), timeout(11.0), sel(900.0, 2, price))
    assert of_type(out, "round_time_up") == []
    assert [o["round"] for o in of_type(out, "question")] == [1, 1]


def test_TV_G_6_round_clock_ends_the_last_round_and_the_final_follows() -> None:
    head = tv_on(
        "1995-06-01",
        A,
        board={"rounds": [{"name": "Красный раунд", "themes": 2, "prices": [20, 40]}]},
    )
    # Nobody answers the first question; then 10:00 pass (t = 610) with 3 questions
    # unplayed: the round and the main rounds are over, and the host goes on to the final.
    out = run(head, sel(10.0, 1, 20), timeout(11.0), stake(700.0, A, 10))
    # Regression: up to ca74e59 the clock was checked only at a select, so this
    # final_stake was refused ("final_stake makes no sense now") and a select at 700 too
    # ("every question has been played: the board is empty"): a game whose last round ran
    # out of time never reached its final. Fixed by da7e00f.
    assert of_type(out, "round_time_up")[0] == {"t": 610.0, "type": "round_time_up", "round": 1}
    assert strip_t(of_type(out, "final_started")) == [
        {"type": "final_started", "seats": [A, B, C], "themes": 1}
    ]
    assert strip_t(of_type(out, "final_stake_in")) == [{"type": "final_stake_in", "seat": A}]


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


def cli_replay(tmp_path: Path, header: dict[str, Any], *events: dict[str, Any]) -> Any:
    lines = [json.dumps({"type": "game", **header}, ensure_ascii=False)]
    lines += [json.dumps(e) for e in events]
    return replay_cli(tmp_path, lines)


def assert_cli_error(
    tmp_path: Path, line: int, header: dict[str, Any], *events: dict[str, Any]
) -> None:
    proc = cli_replay(tmp_path, header, *events)
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, (proc.returncode, stderr)
    assert proc.stdout == b"", "nothing may be printed as if it were a valid result"
    named = re.findall(r"\bline (\d+):", stderr)
    assert named and int(named[0]) == line, stderr


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
