"""TV-H-1995-03: the bonus contest after the Blue round, Mar – Aug 1995.

The leader may accept five questions of one theme: all right wins a trip (no
points), any wrong answer sets the score to 0 for the Red round. If the
leader declines, second place is asked, then third (DEFAULT); the contest
stops at the first wrong answer (DEFAULT). Outcomes worked out from the rules
reference, not the code.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from buzzer.journal.codec import JournalError
from buzzer.replay_summary import replay_summary
from tests.conftest import of_type, run
from tests.support.cli import svoyak_here_bytes
from tests.support.lines import bad, ok, pr, re_, sel, timeout
from tests.support.paths import REPO

A, B, C = 1, 2, 3
PLAYERS = ["A", "B", "C"]
BLUE = {"name": "Синий раунд", "themes": 1, "prices": [10, 20]}
RED = {"name": "Красный раунд", "themes": 1, "prices": [20, 40]}


def head(date: str = "1995-06-01", **extra: Any) -> dict[str, Any]:
    return {
        "rules": "tv-1994",
        "date": date,
        "players": PLAYERS,
        "chooser": A,
        "board": {"rounds": [BLUE, RED]},
        **extra,
    }


def bonus(t: float, accept: bool) -> dict[str, Any]:
    return {"t": t, "type": "bonus", "accept": accept}


def right(t: float, price: int, seat: int) -> list[dict[str, Any]]:
    return [sel(t, 1, price), re_(t + 1), pr(t + 1.5, seat), ok(t + 2)]


#: The Blue round: B 50+10+20 = 80 leads, A and C stay at 50.
BLUE_ROUND = [*right(10.0, 10, B), *right(20.0, 20, B)]


def brief(out: list[dict[str, Any]], *types: str) -> list[tuple[Any, ...]]:
    return [
        (o["t"], o["type"], *(v for k, v in o.items() if k not in ("t", "type")))
        for o in of_type(out, *types)
    ]


BONUS_LINES = (
    "bonus_offer",
    "bonus_declined",
    "bonus_accepted",
    "bonus_answer",
    "bonus_won",
    "bonus_lost",
    "bonus_not_played",
)


def test_TV_H_1995_03_the_leader_is_offered_it_when_the_blue_round_ends() -> None:
    out = run(head(), *BLUE_ROUND)
    assert brief(out, *BONUS_LINES) == [(22.0, "bonus_offer", B, 1)]


def test_TV_H_1995_03_all_five_right_wins_the_trip_and_no_points() -> None:
    out = run(head(), *BLUE_ROUND, bonus(30.0, True), *(ok(31.0 + k) for k in range(5)))
    assert brief(out, *BONUS_LINES)[1:] == [
        (30.0, "bonus_accepted", B, 5),
        (31.0, "bonus_answer", B, 1, True),
        (32.0, "bonus_answer", B, 2, True),
        (33.0, "bonus_answer", B, 3, True),
        (34.0, "bonus_answer", B, 4, True),
        (35.0, "bonus_answer", B, 5, True),
        (35.0, "bonus_won", B, "trip"),
    ]
    assert [o for o in of_type(out, "score") if o["t"] >= 30.0] == []  # no points
    assert out[-1]["scores"] == {"1": 50, "2": 80, "3": 50}


def test_TV_H_1995_03_a_wrong_answer_ends_it_and_the_score_becomes_0_for_the_red_round() -> None:
    events = (*BLUE_ROUND, bonus(30.0, True), ok(31.0), ok(32.0), bad(33.0), sel(40.0, 1, 20))
    out = run(head(), *events)
    assert brief(out, "bonus_answer", "bonus_lost", "score")[-4:] == [
        (32.0, "bonus_answer", B, 2, True),
        (33.0, "bonus_answer", B, 3, False),
        (33.0, "score", B, -80, 0),
        (33.0, "bonus_lost", B),
    ]
    # The Red round starts; its first chooser is the lowest score: B, now at 0.
    assert brief(out, "round_started", "chooser")[-2:] == [
        (40.0, "round_started", 2, "Красный раунд"),
        (40.0, "chooser", B),
    ]


def test_TV_H_1995_03_declined_it_goes_to_second_place_then_third() -> None:
    # A 50 + 20 = 70 is second, C stays at 50: third.
    blue = [*right(10.0, 10, B), *right(20.0, 20, A)]  # B 60, A 70
    out = run(head(), *blue, bonus(30.0, False), bonus(31.0, False), bonus(32.0, True))
    assert brief(out, *BONUS_LINES) == [
        (22.0, "bonus_offer", A, 1),
        (30.0, "bonus_declined", A),
        (30.0, "bonus_offer", B, 2),
        (31.0, "bonus_declined", B),
        (31.0, "bonus_offer", C, 3),
        (32.0, "bonus_accepted", C, 5),
    ]
    assert brief(out, "recognized")[-1] == (32.0, "recognized", C)  # C answers alone


def test_TV_H_1995_03_all_decline_it_is_not_played_and_the_red_round_follows() -> None:
    declines = [bonus(30.0 + k, False) for k in range(3)]
    out = run(head(), *BLUE_ROUND, *declines, sel(40.0, 1, 20))
    assert brief(out, "bonus_not_played") == [(32.0, "bonus_not_played")]
    assert brief(out, "round_started")[-1] == (40.0, "round_started", 2, "Красный раунд")


def test_TV_H_1995_03_a_select_while_it_is_offered_skips_it() -> None:
    out = run(head(), *BLUE_ROUND, sel(40.0, 1, 20))
    assert brief(out, "bonus_not_played") == [(40.0, "bonus_not_played", True)]
    assert brief(out, "question")[-1] == (40.0, "question", 2, 1, 20)


def test_TV_H_1995_03_while_it_is_played_nothing_else_goes() -> None:
    setup = (*BLUE_ROUND, bonus(30.0, True))  # lines 2-9, 10
    for line in (sel(31.0, 1, 20), timeout(31.0), bonus(31.0, False)):
        with pytest.raises(JournalError) as info:
            run(head(), *setup, line)
        assert info.value.line == 11
    with pytest.raises(JournalError, match=r"bonus makes no sense now"):
        run(head(), *BLUE_ROUND, sel(40.0, 1, 20), bonus(41.0, True))


def test_TV_H_1995_03_a_tie_for_the_lead_is_broken_by_lot_the_same_in_every_replay() -> None:
    level = [
        {"t": 0.0, "type": "correction", "seat": seat, "delta": 30, "reason": "setup"}
        for seat in (B, C)
    ]  # B and C at 80, A at 50; nobody answers the Blue round
    blue = [*level, sel(10.0, 1, 10), timeout(11.0), sel(20.0, 1, 20), timeout(21.0)]
    firsts = {}
    for seed in range(16):
        offers = of_type(run(head(seed=seed), *blue), "bonus_offer")
        assert offers == of_type(run(head(seed=seed), *blue), "bonus_offer")  # replays alike
        firsts[seed] = offers[0]["seat"]
    assert set(firsts.values()) == {B, C}  # either leader, as the lot falls
    seed = next(s for s, seat in firsts.items() if seat == B)
    declined = of_type(run(head(seed=seed), *blue, bonus(30.0, False)), "bonus_offer")
    assert [(o["seat"], o["place"]) for o in declined] == [(B, 1), (C, 2)]


def test_TV_H_1995_03_outside_mar_to_aug_1995_there_is_no_contest() -> None:
    for date in ("1995-02-28", "1995-08-01"):
        out = run(head(date), *BLUE_ROUND, sel(40.0, 1, 20))
        assert of_type(out, *BONUS_LINES) == []


def test_TV_H_1995_03_no_red_round_no_contest() -> None:
    out = run(head(board={"rounds": [BLUE]}), *BLUE_ROUND)
    assert of_type(out, *BONUS_LINES) == []
    assert of_type(out, "final_started")  # straight to the final


def test_TV_H_1995_03_the_summary_tells_the_contest() -> None:
    lines = [json.dumps({"type": "game", **head()})]
    lines += [json.dumps(e) for e in (*BLUE_ROUND, bonus(30.0, True), ok(31.0), bad(32.0))]
    text = replay_summary(lines)
    assert "бонус-конкурс: предложен B (1-е место)" in text
    assert "B принимает: 5 вопросов одной темы" in text
    assert "вопрос 2: неверно — счёт B обнулён на Красный раунд (−80 → 0)" in text


def test_TV_H_1995_03_the_example_journal_replays_the_contest() -> None:
    example = REPO / "examples" / "tv-1995-bonus-contest.jsonl"
    done = svoyak_here_bytes("replay", example)
    assert done.returncode == 0, done.stderr.decode()
    out = [json.loads(x) for x in done.stdout.decode().splitlines()]
    assert brief(out, "bonus_offer", "bonus_declined", "bonus_accepted", "bonus_won") == [
        (46.0, "bonus_offer", C, 1),
        (50.0, "bonus_declined", C),
        (50.0, "bonus_offer", B, 2),
        (51.0, "bonus_accepted", B, 5),
        (100.0, "bonus_won", B, "trip"),
    ]
    assert out[-1]["scores"] == {"1": 50, "2": 60, "3": 90}
