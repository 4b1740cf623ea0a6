"""docs/rules.md Part A (buttons and answer timing), one test per rule ID: A.3 each rule
system's own rules (C2003, TV-94, TV-98+, SPORT, jeopardy) and the rule parameters a
header's options override.

Every test builds a journal (docs/journal-contract.md) and replays it through the real
core with ``tests.conftest.run``; the expected values are taken from the
rule text (docs/rules.md A.1-A.3, docs/journal-contract.md), never from the code's own output.
The journals' shared parts are tests/support/part_a_journals.py's.

The basic flow, A.1, A.2 and the journal's edge rules: test_rules_part_a_common.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from buzzer.journal.codec import JournalError
from rules.profiles import RULE_SYSTEMS
from tests.conftest import of_type, run
from tests.support.lines import bad, ok, pr, re_, result, rs, sel, tick
from tests.support.part_a_journals import (
    compact,
    header,
    ignored,
    recognized,
    sequence_error_line,
)

# -- A.3 C2003 ---------------------------------------------------------------------


def test_C2003_2_4_1a_first_press_gets_the_right() -> None:
    out = run(
        header("championship-2003"),
        sel(1.0, 1, 30),
        rs(2.0),
        re_(6.0),
        pr(6.3, 3),
        pr(6.31, 1),
        pr(6.4, 2),
    )
    assert recognized(out) == [(6.3, 3)]
    assert [(i[1], i[2]) for i in ignored(out)] == [
        (1, "someone_answering"),
        (2, "someone_answering"),
    ]


def test_C2003_2_4_1b_press_during_reading_stops_it() -> None:
    out = run(header("championship-2003"), sel(1.0, 1, 30), rs(2.0), pr(3.0, 2))
    assert compact(out) == [(3.0, "recognized", 2), (3.0, "reading_interrupted", 2)]
    # The presser must answer now: the host cannot end the reading first.
    line = sequence_error_line(
        header("championship-2003"), sel(1.0, 1, 30), rs(2.0), pr(3.0, 2), re_(4.0)
    )
    assert line == 5


def test_C2003_2_4_1c_after_wrong_answer_question_read_to_end() -> None:
    out = run(
        header("championship-2003"),
        sel(1.0, 1, 30),
        rs(2.0),
        pr(3.0, 2),
        bad(4.0),
        rs(4.5),
        re_(8.0),
    )
    assert compact(out) == [
        (3.0, "recognized", 2),
        (3.0, "reading_interrupted", 2),
        (4.0, "score", 2, -30, -30),
        (4.0, "reading_resumed"),
        (8.0, "window_opened", 13.0),
    ]


def test_C2003_2_4_1d_players_may_signal_within_5s() -> None:
    in_time = run(header("championship-2003"), sel(1.0, 1, 30), rs(2.0), re_(8.0), pr(12.9, 1))
    assert recognized(in_time) == [(12.9, 1)]
    late = run(header("championship-2003"), sel(1.0, 1, 30), rs(2.0), re_(8.0), pr(13.1, 1))
    assert recognized(late) == []
    assert ignored(late) == [(13.1, 1, "window_closed")]


def test_C2003_2_4_4_one_answer_per_player() -> None:
    out = run(
        header("championship-2003"),
        sel(1.0, 1, 30),
        rs(2.0),
        pr(3.0, 2),
        bad(4.0),
        pr(5.0, 2),  # during the resumed reading
        re_(8.0),
        pr(9.0, 2),  # in the window
    )
    assert recognized(out) == [(3.0, 2)]
    assert ignored(out) == [(5.0, 2, "already_answered"), (9.0, 2, "already_answered")]


@pytest.mark.parametrize("mode", ["continue", "restart"])
def test_C2003_A_D1_resumed_reading_press_stops_it_again(mode: str) -> None:
    out = run(
        header("championship-2003", options={"resume_mode": mode}),
        sel(1.0, 1, 30),
        rs(2.0),
        pr(3.0, 2),
        bad(4.0),
        rs(4.5),
        pr(5.0, 3),
    )
    assert compact(out) == [
        (3.0, "recognized", 2),
        (3.0, "reading_interrupted", 2),
        (4.0, "score", 2, -30, -30),
        (4.0, "reading_resumed"),
        (5.0, "recognized", 3),
        (5.0, "reading_interrupted", 3),
    ]


def test_C2003_A_D1_resume_mode_default_continue() -> None:
    assert RULE_SYSTEMS["championship-2003"].buttons.resume_mode.value == "continue"


def test_C2003_A_D2_fresh_window_default() -> None:
    # t_end = 8.0, A presses at 9.0, ruled wrong at 12.0: the window runs to 17.0.
    events = (sel(1.0, 1, 30), rs(2.0), re_(8.0), pr(9.0, 1), bad(12.0), pr(16.5, 2))
    out = run(header("championship-2003"), *events)
    assert (12.0, "window_opened", 17.0) in compact(out)
    assert recognized(out) == [(9.0, 1), (16.5, 2)]


def test_C2003_A_D2_fixed_window() -> None:
    # With window_after_wrong = fixed the one window ends at t_end + 5 = 13.0.
    events = (sel(1.0, 1, 30), rs(2.0), re_(8.0), pr(9.0, 1), bad(12.0), pr(13.0, 3))
    out = run(header("championship-2003", options={"window_after_wrong": "fixed"}), *events)
    assert (12.0, "window_opened", 13.0) in compact(out)
    assert recognized(out) == [(9.0, 1), (13.0, 3)]  # exactly at closes_at: in time
    events = (sel(1.0, 1, 30), rs(2.0), re_(8.0), pr(9.0, 1), bad(12.0), pr(16.5, 2))
    out = run(header("championship-2003", options={"window_after_wrong": "fixed"}), *events)
    assert recognized(out) == [(9.0, 1)]
    assert ignored(out) == [(16.5, 2, "window_closed")]
    assert of_type(out, "window_closed") == [{"t": 13.0, "type": "window_closed"}]


def test_C2003_A_D2_fixed_window_ending_at_the_ruling_is_still_open() -> None:
    # Ruled wrong at exactly 13.0, the fixed window's end: a press at exactly
    # closes_at is in time, so the window opens for that one instant.
    events = (sel(1.0, 1, 30), rs(2.0), re_(8.0), pr(9.0, 1), bad(13.0), pr(13.0, 2))
    out = run(header("championship-2003", options={"window_after_wrong": "fixed"}), *events)
    assert (13.0, "window_opened", 13.0) in compact(out)
    assert recognized(out) == [(9.0, 1), (13.0, 2)]
    assert of_type(out, "window_closed") == []


def test_C2003_A_D2_fixed_window_already_over_at_ruling_closes_question() -> None:
    # Ruled wrong at 14.0, after the fixed window (13.0): nobody may press any more.
    events = (sel(1.0, 1, 30), rs(2.0), re_(8.0), pr(9.0, 1), bad(14.0), pr(14.5, 2))
    out = run(header("championship-2003", options={"window_after_wrong": "fixed"}), *events)
    opened = of_type(out, "window_opened")
    assert [o["t"] for o in opened] == [8.0]
    assert recognized(out) == [(9.0, 1)]
    assert ignored(out) == [(14.5, 2, "window_closed")]
    assert of_type(out, "chooser") == [{"t": 14.0, "type": "chooser", "seat": 1}]


# -- A.3 TV-94 ---------------------------------------------------------------------


def test_TV_94_start_score_50() -> None:
    out = run(header("tv-1994"))
    assert result(out)["scores"] == {"1": 50, "2": 50, "3": 50}


def test_TV_94_A1_press_while_reading_or_within_3s() -> None:
    during = run(header("tv-1994"), sel(1.0, 1, 20), rs(2.0), pr(4.0, 1))
    assert recognized(during) == [(4.0, 1)]
    out = run(header("tv-1994"), sel(1.0, 1, 20), rs(2.0), re_(8.0), pr(11.0, 1))
    assert of_type(out, "window_opened") == [{"t": 8.0, "type": "window_opened", "closes_at": 11.0}]
    assert recognized(out) == [(11.0, 1)]
    late = run(header("tv-1994"), sel(1.0, 1, 20), rs(2.0), re_(8.0), pr(11.2, 1))
    assert ignored(late) == [(11.2, 1, "window_closed")]


def test_TV_94_A2_early_press_holds_right_reading_continues() -> None:
    out = run(
        header("tv-1994"),
        sel(1.0, 1, 20),
        rs(1.5),
        pr(2.0, 2),
        pr(3.0, 1),  # the first press holds the right
        re_(8.0),  # the host reads on to the end: not a sequence error
        ok(9.0),
    )
    assert of_type(out, "reading_interrupted") == []
    assert recognized(out) == [(2.0, 2)]
    assert ignored(out) == [(3.0, 1, "someone_answering")]
    # No press window opens at t_end: B already holds the right.
    assert of_type(out, "window_opened") == []
    assert of_type(out, "score") == [
        {"t": 9.0, "type": "score", "seat": 2, "delta": 20, "score": 70}
    ]


def test_TV_94_A2_a_wrong_answer_before_the_end_leaves_the_reading_uninterrupted() -> None:
    # The reading was never interrupted (the early presser waited for its end),
    # so nothing resumes (unlike C2003-A-D1): it goes on, and the others may press.
    out = run(
        header("tv-1994"),
        sel(1.0, 1, 20),
        rs(1.5),
        pr(2.0, 2),
        bad(3.0),  # judged before reading_end: accepted (the host knows best)
        pr(4.0, 3),  # the next early presser holds the right in turn
        re_(8.0),
        ok(9.0),
    )
    assert of_type(out, "reading_interrupted", "reading_resumed", "window_opened") == []
    assert recognized(out) == [(2.0, 2), (4.0, 3)]
    assert [(o["seat"], o["delta"]) for o in of_type(out, "score")] == [(2, -20), (3, 20)]


def test_TV_94_A3_wrong_others_may_answer_nobody_in_3s_same_chooser() -> None:
    out = run(
        header("tv-1994", chooser=3),
        sel(1.0, 1, 20),
        rs(1.5),
        pr(2.0, 2),
        re_(8.0),
        bad(9.0),
        tick(13.0),
    )
    assert compact(out) == [
        (2.0, "recognized", 2),
        (9.0, "score", 2, -20, 30),
        (9.0, "window_opened", 12.0),
        (12.0, "window_closed"),
        (12.0, "chooser", 3),
    ]


def test_TV_94_A3_all_three_wrong_same_chooser() -> None:
    out = run(
        header("tv-1994", chooser=3),
        sel(1.0, 1, 20),
        rs(1.5),
        re_(8.0),
        pr(8.5, 1),
        bad(9.0),
        pr(9.5, 2),
        bad(10.0),
        pr(10.5, 3),
        bad(11.0),
    )
    assert result(out) == {
        "type": "result",
        "scores": {"1": 30, "2": 30, "3": 30},
        "chooser": 3,
    }


# -- A.3 TV-98+ --------------------------------------------------------------------


def test_TV_M_A1_press_counts_only_after_signal() -> None:
    out = run(header("tv-modern"), sel(1.0, 1, 300), rs(2.0), pr(5.9, 2), re_(6.0), pr(6.1, 3))
    assert recognized(out) == [(6.1, 3)]
    assert [o["seat"] for o in of_type(out, "false_start")] == [2]


def test_TV_M_A2_press_before_signal_is_false_start_blocked_about_2s() -> None:
    out = run(header("tv-modern"), sel(1.0, 1, 300), rs(2.0), pr(5.5, 1), re_(6.0))
    assert of_type(out, "false_start") == [
        {"t": 5.5, "type": "false_start", "seat": 1, "locked_until": 7.5}
    ]
    assert of_type(out, "reading_interrupted") == []


def test_TV_M_A3_wrong_remaining_may_press_nobody_in_3s_previous_chooser() -> None:
    out = run(
        header("tv-modern", chooser=2),
        sel(1.0, 1, 500),
        rs(2.0),
        re_(6.0),
        pr(6.5, 1),
        bad(7.0),
        tick(10.5),
    )
    assert compact(out) == [
        (6.0, "window_opened", 9.0),
        (6.5, "recognized", 1),
        (7.0, "score", 1, -500, -500),
        (7.0, "window_opened", 10.0),
        (10.0, "window_closed"),
        (10.0, "chooser", 2),
    ]


def test_TV_M_A_D1_lamp_lights_at_t_end() -> None:
    out = run(header("tv-modern"), sel(1.0, 1, 300), rs(2.0), re_(6.25), pr(6.25, 2))
    assert of_type(out, "window_opened") == [
        {"t": 6.25, "type": "window_opened", "closes_at": 9.25}
    ]
    assert recognized(out) == [(6.25, 2)]


def test_TV_M_A_D2_lockout_2s_not_extended() -> None:
    out = run(
        header("tv-modern"),
        sel(1.0, 1, 300),
        rs(2.0),
        pr(3.0, 1),  # false start: locked until 5.0
        pr(4.0, 1),  # during the lockout: ignored, does not extend it
        re_(4.5),
        pr(4.9, 1),  # the lockout runs on after the lamp
        pr(5.0, 1),  # free again at exactly 5.0
    )
    assert compact(out) == [
        (3.0, "false_start", 1, 5.0),
        (4.0, "ignored", 1, "locked"),
        (4.5, "window_opened", 7.5),
        (4.9, "ignored", 1, "locked"),
        (5.0, "recognized", 1),
    ]


def test_TV_M_A_D2_lockout_survives_another_players_wrong_answer() -> None:
    out = run(
        header("tv-modern"),
        sel(1.0, 1, 300),
        rs(2.0),
        pr(5.9, 3),  # locked until 7.9
        re_(6.0),
        pr(6.1, 2),
        bad(7.0),
        pr(7.5, 3),
        pr(7.9, 3),
    )
    assert recognized(out) == [(6.1, 2), (7.9, 3)]
    assert (7.5, 3, "locked") in ignored(out)


def test_TV_M_A_D3_after_wrong_live_at_once_fresh_3s_no_new_lamp() -> None:
    out = run(
        header("tv-modern"),
        sel(1.0, 1, 300),
        rs(2.0),
        re_(6.0),
        pr(6.5, 1),
        bad(8.5),
        pr(8.5, 2),  # same instant as the ruling: the ruling applies first
    )
    assert (8.5, "window_opened", 11.5) in compact(out)
    assert recognized(out) == [(6.5, 1), (8.5, 2)]
    assert of_type(out, "false_start") == []


# -- A.3 SPORT ---------------------------------------------------------------------


def test_SPORT_A1_false_start_blocks_2s_press_after_signal_counts() -> None:
    out = run(
        header("sport-false-start"),
        sel(1.0),
        rs(1.5),
        pr(4.0, 1),
        re_(5.0),
        pr(5.3, 1),
        pr(5.9, 2),
        pr(6.0, 1),
    )
    assert compact(out) == [
        (4.0, "false_start", 1, 6.0),
        (5.0, "window_opened", 10.0),
        (5.3, "ignored", 1, "locked"),
        (5.9, "recognized", 2),
        (6.0, "ignored", 1, "someone_answering"),
    ]


def test_SPORT_A2_press_during_reading_stops_it_clarification_allowed() -> None:
    out = run(header("sport-clarify"), sel(0.0), rs(0.0), pr(1.5, 2), ok(6.0))
    assert compact(out)[:2] == [(1.5, "recognized", 2), (1.5, "reading_interrupted", 2)]
    assert of_type(out, "false_start") == []
    assert RULE_SYSTEMS["sport-clarify"].buttons.clarification is True


def test_SPORT_A3_press_during_reading_stops_it_no_clarification() -> None:
    out = run(header("sport-no-false-start"), sel(0.0), rs(0.0), pr(1.5, 2), ok(6.0))
    assert compact(out)[:2] == [(1.5, "recognized", 2), (1.5, "reading_interrupted", 2)]
    assert RULE_SYSTEMS["sport-no-false-start"].buttons.clarification is False


@pytest.mark.parametrize("rules", ["sport-clarify", "sport-no-false-start"])
def test_SPORT_A_D1_reading_resumes_5s_window_one_answer_each(rules: str) -> None:
    out = run(
        header(rules),
        sel(1.0),
        rs(1.2),
        pr(2.7, 2),
        bad(6.0),
        rs(6.2),
        pr(7.0, 2),
        re_(8.0),
        pr(13.0, 3),
        ok(14.0),
    )
    assert compact(out) == [
        (2.7, "recognized", 2),
        (2.7, "reading_interrupted", 2),
        (6.0, "score", 2, -10, -10),
        (6.0, "reading_resumed"),
        (7.0, "ignored", 2, "already_answered"),
        (8.0, "window_opened", 13.0),
        (13.0, "recognized", 3),
        (14.0, "score", 3, 10, 10),
    ]


# -- jeopardy --------------------------------------------------------------------------


def test_jeopardy_early_press_locks_for_0_25s() -> None:
    out = run(
        header("jeopardy"),
        sel(1.0, 4, 600),
        rs(1.2),
        pr(5.9, 3),  # locked until 6.15
        re_(6.0),
        pr(6.1, 3),
        pr(6.15, 3),
    )
    assert compact(out) == [
        (5.9, "false_start", 3, 6.15),
        (6.0, "window_opened", 11.0),
        (6.1, "ignored", 3, "locked"),
        (6.15, "recognized", 3),
    ]


def test_jeopardy_5s_window_after_signal() -> None:
    out = run(header("jeopardy"), sel(1.0, 1, 200), rs(1.2), re_(6.0), pr(11.0, 1))
    assert recognized(out) == [(11.0, 1)]
    late = run(header("jeopardy"), sel(1.0, 1, 200), rs(1.2), re_(6.0), pr(11.001, 1))
    assert of_type(late, "window_closed") == [{"t": 11.0, "type": "window_closed"}]
    assert ignored(late) == [(11.001, 1, "window_closed")]


# -- options: rule parameters overridden from the header --------------------------------


def test_option_window_s_overrides_window() -> None:
    out = run(
        header("championship-2003", options={"window_s": 7}),
        sel(1.0, 1, 30),
        rs(2.0),
        re_(8.0),
        pr(14.5, 1),
    )
    assert of_type(out, "window_opened") == [{"t": 8.0, "type": "window_opened", "closes_at": 15.0}]
    assert recognized(out) == [(14.5, 1)]


def test_option_fs_lockout_s_overrides_lockout() -> None:
    out = run(
        header("tv-modern", options={"fs_lockout_s": 1.0}),
        sel(1.0, 1, 300),
        rs(2.0),
        pr(5.5, 1),
        re_(6.0),
        pr(6.5, 1),
    )
    assert of_type(out, "false_start") == [
        {"t": 5.5, "type": "false_start", "seat": 1, "locked_until": 6.5}
    ]
    assert recognized(out) == [(6.5, 1)]


def test_option_window_after_wrong_fixed() -> None:
    head = header("tv-modern", options={"window_after_wrong": "fixed"})
    out = run(head, sel(1.0, 1, 300), rs(2.0), re_(6.0), pr(6.5, 1), bad(7.0), pr(9.5, 2))
    assert (7.0, "window_opened", 9.0) in compact(out)
    assert ignored(out) == [(9.5, 2, "window_closed")]


def test_option_fs_extend_true_restarts_lockout() -> None:
    out = run(
        header("tv-modern", options={"fs_extend": True}),
        sel(1.0, 1, 300),
        rs(2.0),
        pr(3.0, 1),
        pr(4.0, 1),
        re_(4.5),
        pr(5.0, 1),
        pr(6.0, 1),
    )
    assert [o["locked_until"] for o in of_type(out, "false_start")] == [5.0, 6.0]
    assert ignored(out) == [(5.0, 1, "locked")]
    assert recognized(out) == [(6.0, 1)]


def test_option_answers_per_question() -> None:
    out = run(
        header("championship-2003", options={"answers_per_question": 2}),
        sel(1.0, 1, 30),
        rs(2.0),
        re_(3.0),
        pr(4.0, 1),
        bad(5.0),
        pr(6.0, 1),
        bad(7.0),
        pr(8.0, 1),
    )
    assert recognized(out) == [(4.0, 1), (6.0, 1)]
    assert ignored(out) == [(8.0, 1, "already_answered")]


def test_option_start_score() -> None:
    out = run(header("tv-modern", options={"start_score": 50}))
    assert result(out)["scores"] == {"1": 50, "2": 50, "3": 50}


def test_option_early_press_hold_on_c2003() -> None:
    out = run(
        header("championship-2003", options={"early_press": "hold"}),
        sel(1.0, 1, 30),
        rs(2.0),
        pr(3.0, 2),
        re_(6.0),
    )
    assert recognized(out) == [(3.0, 2)]
    assert of_type(out, "reading_interrupted") == []


@pytest.mark.parametrize(
    "options",
    [
        {"no_such_option": 1},
        {"window_s": "seven"},
        {"window_s": 0},
        {"fs_lockout_s": -1},
        {"window_after_wrong": "sometimes"},
        {"fs_extend": "yes"},
        {"answers_per_question": 0},
    ],
)
def test_option_unknown_or_bad_value_is_error(options: dict[str, Any]) -> None:
    with pytest.raises(JournalError) as info:
        run(header("championship-2003", options=options), sel(1.0, 1, 30))
    assert info.value.line == 1
    assert next(iter(options)) in str(info.value)
