"""docs/rules.md Part E scenarios about buttons and plain questions.

Each scenario is written as a journal (docs/journal-contract.md), replayed through the
real core with ``tests.conftest.run``, and checked against the outputs the
scenario states. Seats: A = 1, B = 2, C = 3.
"""

from __future__ import annotations

from typing import Any

import pytest

from buzzer.journal.codec import JournalError
from tests.conftest import of_type, run
from tests.support.lines import bad, ok, pr, re_, rs, sel, tick

A, B, C = 1, 2, 3
PLAYERS = ["A", "B", "C"]
HISTORY = 1  # the theme column used for "History"


def recognized(out: list[dict[str, Any]]) -> list[tuple[float, int]]:
    return [(o["t"], o["seat"]) for o in of_type(out, "recognized")]


def ignored(out: list[dict[str, Any]]) -> list[tuple[float, int, str]]:
    return [(o["t"], o["seat"], o["reason"]) for o in of_type(out, "ignored")]


def scores(out: list[dict[str, Any]]) -> list[tuple[float, int, int, int]]:
    return [(o["t"], o["seat"], o["delta"], o["score"]) for o in of_type(out, "score")]


def result(out: list[dict[str, Any]]) -> dict[str, Any]:
    assert out[-1]["type"] == "result"
    return out[-1]


# -- C2003 -----------------------------------------------------------------------------

C2003 = {"rules": "championship-2003", "players": PLAYERS, "chooser": A}

# E01: the full reading takes 8.0 s. Reading starts at 0.0; B stops it at 2.1;
# it resumes at 4.5 from the stop point, so the remaining 5.9 s end at 10.4.
E01_T_END = 10.4
E01_EVENTS = (
    sel(0.0, HISTORY, 30),
    rs(0.0),
    pr(2.1, B),
    bad(4.0),
    rs(4.5),
    re_(E01_T_END),
)


def test_E01_c2003_interrupt_and_resume() -> None:
    out = run(C2003, *E01_EVENTS, pr(E01_T_END + 3.0, A), ok(14.0))
    decisions = [o for o in out if o["type"] not in ("first_chooser", "question", "result")]
    assert decisions == [
        # Reading stops and B is recognised.
        {"t": 2.1, "type": "recognized", "seat": B},
        {"t": 2.1, "type": "reading_interrupted", "seat": B},
        # B is wrong: -30; the reading resumes (D1).
        {"t": 4.0, "type": "score", "seat": B, "delta": -30, "score": -30},
        {"t": 4.0, "type": "reading_resumed"},
        # t_end: the 5 s window.
        {"t": E01_T_END, "type": "window_opened", "closes_at": E01_T_END + 5.0},
        # A presses at t_end + 3.0: recognised, right: +30, A chooses.
        {"t": E01_T_END + 3.0, "type": "recognized", "seat": A},
        {"t": 14.0, "type": "score", "seat": A, "delta": 30, "score": 30},
        {"t": 14.0, "type": "chooser", "seat": A},
    ]
    assert result(out) == {
        "type": "result",
        "scores": {"1": 30, "2": -30, "3": 0},
        "chooser": A,
    }


def test_E01_c2003_right_answer_makes_the_answerer_chooser() -> None:
    # The same scenario with C as the one who chose: A's right answer passes the choice.
    out = run({**C2003, "chooser": C}, *E01_EVENTS, pr(E01_T_END + 3.0, A), ok(14.0))
    assert of_type(out, "chooser") == [{"t": 14.0, "type": "chooser", "seat": A}]
    assert result(out)["chooser"] == A


def test_E02_c2003_window_expiry() -> None:
    out = run(
        {**C2003, "chooser": B},
        sel(1.0, HISTORY, 30),
        rs(2.0),
        re_(8.0),
        pr(8.0 + 5.2, A),
    )
    assert of_type(out, "window_opened") == [{"t": 8.0, "type": "window_opened", "closes_at": 13.0}]
    assert of_type(out, "window_closed") == [{"t": 13.0, "type": "window_closed"}]
    assert recognized(out) == []
    assert ignored(out) == [(13.2, A, "window_closed")]
    assert scores(out) == []
    assert of_type(out, "chooser") == [{"t": 13.0, "type": "chooser", "seat": B}]
    assert result(out) == {
        "type": "result",
        "scores": {"1": 0, "2": 0, "3": 0},
        "chooser": B,
    }
    # The same chooser chooses again: the next select is accepted.
    again = run(
        {**C2003, "chooser": B},
        sel(1.0, HISTORY, 30),
        rs(2.0),
        re_(8.0),
        pr(8.0 + 5.2, A),
        sel(20.0, 2, 10),
    )
    assert [(o["theme"], o["price"]) for o in of_type(again, "question")] == [
        (HISTORY, 30),
        (2, 10),
    ]


def test_E03_c2003_one_answer_per_player() -> None:
    out = run(C2003, *E01_EVENTS[:-1], pr(5.0, B), pr(5.4, C))
    assert ignored(out) == [(5.0, B, "already_answered")]
    assert recognized(out) == [(2.1, B), (5.4, C)]
    # C's press stops the resumed reading again.
    assert of_type(out, "reading_interrupted")[-1] == {
        "t": 5.4,
        "type": "reading_interrupted",
        "seat": C,
    }


E04_EVENTS = (sel(1.0, HISTORY, 30), rs(2.0), re_(8.0), pr(9.0, A), bad(12.0), pr(16.5, B))


def test_E04_c2003_fresh_window_after_late_wrong() -> None:
    out = run(C2003, *E04_EVENTS)
    assert of_type(out, "window_opened") == [
        {"t": 8.0, "type": "window_opened", "closes_at": 13.0},
        {"t": 12.0, "type": "window_opened", "closes_at": 17.0},
    ]
    assert recognized(out) == [(9.0, A), (16.5, B)]
    assert scores(out) == [(12.0, A, -30, -30)]


def test_E04_c2003_fixed_window_after_late_wrong() -> None:
    out = run({**C2003, "options": {"window_after_wrong": "fixed"}}, *E04_EVENTS)
    assert of_type(out, "window_opened") == [
        {"t": 8.0, "type": "window_opened", "closes_at": 13.0},
        {"t": 12.0, "type": "window_opened", "closes_at": 13.0},
    ]
    assert of_type(out, "window_closed") == [{"t": 13.0, "type": "window_closed"}]
    assert recognized(out) == [(9.0, A)]
    assert ignored(out) == [(16.5, B, "window_closed")]


def test_E05_c2003_all_wrong() -> None:
    red = {"name": "Красный раунд", "themes": 6, "prices": [20, 40, 60, 80, 100]}
    out = run(
        {**C2003, "chooser": C, "board": red},
        sel(1.0, 2, 40),
        rs(2.0),
        re_(8.0),
        pr(8.5, A),
        bad(9.0),
        pr(9.5, B),
        bad(10.0),
        pr(10.5, C),
        bad(11.0),
    )
    assert scores(out) == [
        (9.0, A, -40, -40),
        (10.0, B, -40, -40),
        (11.0, C, -40, -40),
    ]
    assert of_type(out, "chooser") == [{"t": 11.0, "type": "chooser", "seat": C}]
    assert result(out) == {
        "type": "result",
        "scores": {"1": -40, "2": -40, "3": -40},
        "chooser": C,
    }


# -- TV-M ------------------------------------------------------------------------------

TVM = {"rules": "tv-modern", "players": PLAYERS, "chooser": A}
# E19: round 1, the 300 question; the lamp lights at 6.0; A presses at 5.5.
E19_EVENTS = (sel(1.0, 3, 300), rs(2.0), pr(5.5, A), re_(6.0))


def test_E19_tv_modern_false_start_blocks_until_7_5() -> None:
    out = run(TVM, *E19_EVENTS)
    assert of_type(out, "false_start") == [
        {"t": 5.5, "type": "false_start", "seat": A, "locked_until": 7.5}
    ]
    assert recognized(out) == []


def test_E19_tv_modern_b_presses_at_6_4_recognized() -> None:
    out = run(TVM, *E19_EVENTS, pr(6.4, B))
    assert recognized(out) == [(6.4, B)]
    assert ignored(out) == []


def test_E19_tv_modern_alternative_a_locked_at_7_2_recognized_at_7_6() -> None:
    out = run(TVM, *E19_EVENTS, pr(7.2, A), pr(7.6, A))
    assert of_type(out, "window_opened") == [{"t": 6.0, "type": "window_opened", "closes_at": 9.0}]
    assert ignored(out) == [(7.2, A, "locked")]
    assert recognized(out) == [(7.6, A)]
    assert len(of_type(out, "false_start")) == 1


def test_E20_tv_modern_no_answer_after_wrong() -> None:
    out = run(
        {**TVM, "chooser": C},
        sel(1.0, 2, 500),
        rs(2.0),
        re_(6.0),
        pr(6.5, A),
        bad(8.0),
        sel(12.0, 1, 100),  # the previous chooser chooses again
    )
    assert scores(out) == [(8.0, A, -500, -500)]
    assert of_type(out, "window_opened")[-1] == {
        "t": 8.0,
        "type": "window_opened",
        "closes_at": 11.0,
    }
    assert of_type(out, "window_closed") == [{"t": 11.0, "type": "window_closed"}]
    assert of_type(out, "chooser") == [{"t": 11.0, "type": "chooser", "seat": C}]
    assert result(out) == {
        "type": "result",
        "scores": {"1": -500, "2": 0, "3": 0},
        "chooser": C,
    }


# -- TV-94 ------------------------------------------------------------------------------


def test_E21_tv94_early_press() -> None:
    out = run(
        {"rules": "tv-1994", "players": PLAYERS, "chooser": C},
        sel(1.0, 1, 20),
        rs(1.5),
        pr(2.0, B),
        re_(8.0),
        bad(8.5),
        pr(9.5, A),
        ok(10.5),
    )
    decisions = [o for o in out if o["type"] not in ("first_chooser", "question", "result")]
    assert decisions == [
        # B holds the right; the reading is not interrupted.
        {"t": 2.0, "type": "recognized", "seat": B},
        # After 8.0, B answers wrong: 50 - 20 = 30; a fresh 3 s window.
        {"t": 8.5, "type": "score", "seat": B, "delta": -20, "score": 30},
        {"t": 8.5, "type": "window_opened", "closes_at": 11.5},
        {"t": 9.5, "type": "recognized", "seat": A},
        {"t": 10.5, "type": "score", "seat": A, "delta": 20, "score": 70},
        {"t": 10.5, "type": "chooser", "seat": A},
    ]
    assert result(out) == {
        "type": "result",
        "scores": {"1": 70, "2": 30, "3": 50},
        "chooser": A,
    }


# -- SPORT (button parts of E30) --------------------------------------------------------

SPORT_BOARD = {"themes": ["T1", "T2"], "prices": [10, 20, 30, 40, 50]}


@pytest.mark.parametrize("rules", ["sport-false-start", "sport-clarify", "sport-no-false-start"])
def test_E30_sport_order_next_level_choices_rejected(rules: str) -> None:
    head = {"rules": rules, "players": PLAYERS, "board": SPORT_BOARD}
    # Five selects without naming a cell walk T1 from 10 to 50, then T2 starts.
    out = run(head, *(sel(float(i)) for i in range(1, 7)))
    cells = [(o["theme"], o["price"]) for o in of_type(out, "question")]
    assert cells == [(1, 10), (1, 20), (1, 30), (1, 40), (1, 50), (2, 10)]
    assert of_type(out, "chooser", "first_chooser") == []
    # Choices are rejected: another theme, or a skipped level.
    for events, line in (
        ((sel(1.0, 2, 10),), 2),
        ((sel(1.0), sel(2.0, 1, 30)), 3),
        ((sel(1.0), sel(2.0, 2, 20)), 3),
    ):
        with pytest.raises(JournalError) as info:
            run(head, *events)
        assert info.value.line == line


def test_E30_sport_a2_press_at_1_5_stops_reading() -> None:
    out = run(
        {"rules": "sport-clarify", "players": PLAYERS},
        sel(0.0),
        rs(0.0),
        pr(1.5, B),
        ok(9.0),  # after the clarification ("a year"), B answers
    )
    assert [o for o in out if o["type"] in ("recognized", "reading_interrupted")] == [
        {"t": 1.5, "type": "recognized", "seat": B},
        {"t": 1.5, "type": "reading_interrupted", "seat": B},
    ]
    assert of_type(out, "false_start") == []
    assert scores(out) == [(9.0, B, 10, 10)]


def test_E30_sport_a1_press_before_signal_blocks_for_2s() -> None:
    out = run(
        {"rules": "sport-false-start", "players": PLAYERS},
        sel(0.0),
        rs(0.0),
        pr(3.0, B),
        re_(4.0),
        pr(4.99, B),
        pr(5.0, B),
    )
    assert of_type(out, "false_start") == [
        {"t": 3.0, "type": "false_start", "seat": B, "locked_until": 5.0}
    ]
    assert ignored(out) == [(4.99, B, "locked")]
    assert recognized(out) == [(5.0, B)]
    assert of_type(out, "reading_interrupted") == []


def test_E30_sport_a1_window_and_no_chooser() -> None:
    out = run(
        {"rules": "sport-false-start", "players": PLAYERS},
        sel(0.0),
        rs(0.0),
        re_(4.0),
        tick(10.0),
    )
    assert of_type(out, "window_opened") == [{"t": 4.0, "type": "window_opened", "closes_at": 9.0}]
    assert of_type(out, "window_closed") == [{"t": 9.0, "type": "window_closed"}]
    assert of_type(out, "chooser") == []
    assert result(out)["chooser"] is None
