"""docs/rules.md Part E scenarios of the full game, and the Part B rules behind them:
who plays the final round, the final round and the shootout (C2003 and TV).

Each scenario is a journal replayed through the real core (``tests.conftest.run``); the
expected values are worked out by hand from docs/rules.md. Scenario scores are set up with
``correction`` lines at t = 0. The lines they share are tests/support/scenario_lines.py's.

The rest of the full game: test_scenarios_specials_and_bad_input.py (the special
questions, bad input through the CLI), test_scenarios_rounds_and_objections.py (the first
chooser of later rounds, the round clock, objections).

Seats: A = 1, B = 2, C = 3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from buzzer.journal.codec import JournalError
from tests.conftest import of_type, run
from tests.support.lines import (
    bad,
    fjudge,
    ok,
    pr,
    re_,
    read_final,
    rejected_line,
    remove,
    result,
    rs,
    sel,
    stake,
    timeout,
)
from tests.support.scenario_lines import (
    E11_SETUP,
    END_MAIN,
    TV_END_MAIN,
    TV_F_5_SETUP,
    A,
    B,
    C,
    after,
    assert_cli_error,
    final_header,
    final_scores,
    game_over,
    plain,
    scores_at,
    strip_t,
    tv_on,
    tvm_final,
)

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
# TV final round (TV-F-*) and shootout (TV-T-1)
# =======================================================================================


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
