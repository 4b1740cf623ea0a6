"""docs/rules.md Part A (buttons and answer timing), one test per rule ID: the basic flow
in every rule system, A.1 the common model, A.2 the parameter table, the edge rules of
docs/journal-contract.md, and the arbiter's mutants that survived (issue 16).

Every test builds a journal (docs/journal-contract.md) and replays it through the real
core with ``tests.conftest.run``; the expected values are taken from the
rule text (docs/rules.md A.1-A.3, docs/journal-contract.md), never from the code's own output.
The journals' shared parts are tests/support/part_a_journals.py's.

Each system's own rules (A.3) and the header's options: test_rules_part_a_systems.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from buzzer.arbiter import Arbiter
from buzzer.arbiter.decisions import Ignored, Recognized
from rules.profiles import RULE_SYSTEMS
from tests.conftest import of_type, run
from tests.support.lines import bad, ok, pr, re_, result, rs, sel, tick
from tests.support.part_a_journals import (
    ALL_SYSTEMS,
    FALSE_START,
    FIRST_PRICE,
    INTERRUPT,
    SPORT,
    START,
    WINDOW,
    compact,
    first,
    header,
    ignored,
    recognized,
    sequence_error_line,
)

# -- every rule system: the basic flow ----------------------------------------


@pytest.mark.parametrize("rules", ALL_SYSTEMS)
def test_all_systems_basic_flow_correct_answer_scores_price_and_passes_choice(rules: str) -> None:
    price = FIRST_PRICE[rules]
    start = START[rules]
    out = run(
        header(rules, chooser=1),
        first(rules, 1.0),
        rs(2.0),
        re_(6.0),
        pr(6.5, 2),
        ok(8.0),
    )
    assert recognized(out) == [(6.5, 2)]
    assert of_type(out, "window_opened") == [
        {"t": 6.0, "type": "window_opened", "closes_at": 6.0 + WINDOW[rules]}
    ]
    assert of_type(out, "score") == [
        {"t": 8.0, "type": "score", "seat": 2, "delta": price, "score": start + price}
    ]
    final = result(out)
    assert final["scores"] == {"1": start, "2": start + price, "3": start}
    if rules in SPORT:
        # SPORT-1: no chooser at all.
        assert of_type(out, "chooser", "first_chooser") == []
        assert final["chooser"] is None
    else:
        # C2003-2.4.3, TV-G-5: the right answer passes the choice.
        assert of_type(out, "chooser") == [{"t": 8.0, "type": "chooser", "seat": 2}]
        assert final["chooser"] == 2


@pytest.mark.parametrize("rules", SPORT)
def test_SPORT_1_select_names_next_cell_in_order_or_omits_it(rules: str) -> None:
    # Naming the next cell explicitly is accepted...
    out = run(header(rules), sel(1.0, 1, 10), rs(1.5), re_(3.0), sel(9.0), sel(10.0, 1, 30))
    assert [(o["theme"], o["price"]) for o in of_type(out, "question")] == [
        (1, 10),
        (1, 20),
        (1, 30),
    ]
    # ...any other cell (another theme, a skipped level) is a sequence error.
    assert sequence_error_line(header(rules), sel(1.0, 2, 10)) == 2
    assert sequence_error_line(header(rules), sel(1.0), sel(2.0, 1, 30)) == 3


# -- A.1 common model --------------------------------------------------------------


@pytest.mark.parametrize("rules", ["championship-2003", "tv-modern", "sport-no-false-start"])
def test_A_G1_earlier_source_timestamp_wins_not_arrival_order(rules: str) -> None:
    out = run(
        header(rules, chooser=1),
        first(rules, 1.0),
        rs(2.0),
        re_(6.0),
        pr(7.0015, 2),  # arrives first...
        pr(7.0004, 1),  # ...but seat 1 pressed 1.1 ms earlier
    )
    assert recognized(out) == [(7.0004, 1)]
    lost = of_type(out, "ignored")
    assert lost == [
        {
            "t": 7.0015,
            "type": "ignored",
            "seat": 2,
            "reason": "someone_answering",
            "behind_us": 1100,
        }
    ]


@pytest.mark.parametrize("winner", [2, 3])
def test_A_G1_equal_timestamps_tie_settled_by_journaled_draw(winner: int) -> None:
    for seed in range(8):
        out = run(
            header("championship-2003", seed=seed),
            sel(1.0, 1, 30),
            rs(2.0),
            re_(6.0),
            pr(7.0, 3),
            pr(7.0, 2),
            {"t": 7.0, "type": "draw", "seats": [2, 3], "winner": winner},
        )
        loser = 5 - winner
        assert of_type(out, "tie") == [{"t": 7.0, "type": "tie", "seats": [2, 3]}]
        assert recognized(out) == [(7.0, winner)]
        assert ignored(out) == [(7.0, loser, "lost_draw")]
        # The tie line comes before the recognized line it settles.
        kinds = [o["type"] for o in out]
        assert kinds.index("tie") < kinds.index("recognized")


def test_A_G1_tie_without_draw_line_goes_to_one_of_the_tied_seats() -> None:
    winners = set()
    for seed in range(16):
        out = run(
            header("tv-modern", seed=seed),
            sel(1.0, 1, 300),
            rs(2.0),
            re_(6.0),
            pr(6.5, 1),
            pr(6.5, 3),
        )
        (rec,) = recognized(out)
        winners.add(rec[1])
        assert {i[1] for i in ignored(out)} == {1, 3} - {rec[1]}
    assert winners == {1, 3}


def test_A_G2_presses_while_answering_ignored_not_queued() -> None:
    out = run(
        header("championship-2003"),
        sel(1.0, 1, 30),
        rs(2.0),
        re_(6.0),
        pr(7.0, 2),
        pr(7.5, 3),  # while 2 is answering: ignored
        pr(8.2, 1),  # a ruling is pending: ignored
        bad(9.0),
        tick(11.0),  # time passes after the ruling: nothing was queued
    )
    assert recognized(out) == [(7.0, 2)]
    assert [(o["seat"], o["reason"], o["behind_us"]) for o in of_type(out, "ignored")] == [
        (3, "someone_answering", 500_000),
        (1, "someone_answering", 1_200_000),
    ]
    assert of_type(out, "false_start") == []
    # A new press after the ruling is needed: then it is recognized.
    out = run(
        header("championship-2003"),
        sel(1.0, 1, 30),
        rs(2.0),
        re_(6.0),
        pr(7.0, 2),
        pr(7.5, 3),
        bad(9.0),
        pr(9.5, 3),
    )
    assert recognized(out) == [(7.0, 2), (9.5, 3)]


def test_A_G2_press_during_pending_ruling_is_not_a_false_start_tv_modern() -> None:
    out = run(
        header("tv-modern"),
        sel(1.0, 1, 300),
        rs(2.0),
        re_(6.0),
        pr(6.2, 2),
        pr(6.4, 3),  # while 2 answers: ignored, no lockout
        bad(7.0),
        pr(7.1, 3),  # live at once: not locked
    )
    assert of_type(out, "false_start") == []
    assert (6.4, 3, "someone_answering") in ignored(out)
    assert recognized(out) == [(6.2, 2), (7.1, 3)]


def test_A_G3_answer_timer_never_scores_by_itself() -> None:
    out = run(
        header("championship-2003"),
        sel(1.0, 1, 30),
        rs(2.0),
        re_(6.0),
        pr(7.0, 2),
        pr(60.0, 3),  # 53 s later: 2 is still answering, nothing was scored
    )
    assert of_type(out, "score") == []
    assert ignored(out) == [(60.0, 3, "someone_answering")]
    assert of_type(out, "window_closed") == []
    assert result(out)["scores"] == {"1": 0, "2": 0, "3": 0}


@pytest.mark.parametrize("rules", ALL_SYSTEMS)
def test_A_G3_answer_time_default_is_5_s(rules: str) -> None:
    assert RULE_SYSTEMS[rules].buttons.answer_time_ns == 5_000_000_000


def test_A_G4_only_designated_players_may_press() -> None:
    # Special questions reach the arbiter with the designated seats only.
    s = 1_000_000_000
    arbiter = Arbiter(RULE_SYSTEMS["championship-2003"].buttons, 3)
    arbiter.open_question(eligible=frozenset({3}))
    decisions: list[Any] = []
    arbiter.start_reading(1 * s, decisions)
    arbiter.end_reading(5 * s, decisions)
    arbiter.press(5 * s + s // 2, [1], decisions)
    arbiter.press(5 * s + s // 2 + 1, [3], decisions)
    assert [d for d in decisions if isinstance(d, Ignored)] == [
        Ignored(5 * s + s // 2, 1, "not_eligible")
    ]
    assert [d for d in decisions if isinstance(d, Recognized)] == [
        Recognized(5 * s + s // 2 + 1, 3)
    ]
    assert arbiter.answering == 3


@pytest.mark.parametrize("rules", ALL_SYSTEMS)
def test_A_G5_press_before_select_ignored(rules: str) -> None:
    out = run(
        header(rules),
        pr(0.5, 1),
        pr(0.7, 2),
        first(rules, 1.0),
        pr(1.2, 3),  # selected, the reading has not started
        rs(2.0),
        re_(6.0),
        pr(6.5, 1),
    )
    assert ignored(out) == [(0.5, 1, "not_open"), (0.7, 2, "not_open"), (1.2, 3, "not_open")]
    assert of_type(out, "false_start") == []
    # Not a false start: seat 1 is not locked and wins the window.
    assert recognized(out) == [(6.5, 1)]


# -- A.2 parameter table -------------------------------------------------------------


@pytest.mark.parametrize("rules", ALL_SYSTEMS)
def test_P1_P2_press_during_reading(rules: str) -> None:
    out = run(header(rules), first(rules, 1.0), rs(2.0), pr(3.0, 2))
    if rules in FALSE_START:
        # TV-98+ / SPORT-FS / jeopardy: buttons live only from the signal.
        assert recognized(out) == []
        assert [(o["t"], o["seat"]) for o in of_type(out, "false_start")] == [(3.0, 2)]
    else:
        # C2003, TV-94, SPORT-NFS(-C): live from the start of reading.
        assert recognized(out) == [(3.0, 2)]
        interrupted = of_type(out, "reading_interrupted")
        if rules in INTERRUPT:
            assert interrupted == [{"t": 3.0, "type": "reading_interrupted", "seat": 2}]
        else:
            assert interrupted == []  # TV-94: the reading continues


@pytest.mark.parametrize(
    ("rules", "lockout"),
    [
        ("tv-modern", 2.0),
        ("sport-false-start", 2.0),
        ("jeopardy", 0.25),
    ],
)
def test_P3_early_press_locks_button(rules: str, lockout: float) -> None:
    out = run(header(rules), first(rules, 1.0), rs(2.0), pr(3.5, 1), re_(4.0))
    assert of_type(out, "false_start") == [
        {"t": 3.5, "type": "false_start", "seat": 1, "locked_until": 3.5 + lockout}
    ]


@pytest.mark.parametrize("rules", (*INTERRUPT, "tv-1994"))
def test_P3_no_early_press_effect_in_systems_without_false_starts(rules: str) -> None:
    out = run(header(rules), first(rules, 1.0), rs(2.0), pr(3.0, 1), bad(4.0), pr(4.1, 2))
    assert of_type(out, "false_start") == []
    assert recognized(out) == [(3.0, 1), (4.1, 2)]


@pytest.mark.parametrize("rules", ALL_SYSTEMS)
def test_P4_window_after_end_of_reading(rules: str) -> None:
    window = WINDOW[rules]
    out = run(
        header(rules),
        first(rules, 1.0),
        rs(2.0),
        re_(10.0),
        pr(10.0 + window, 2),  # exactly at closes_at: in time
    )
    assert of_type(out, "window_opened") == [
        {"t": 10.0, "type": "window_opened", "closes_at": 10.0 + window}
    ]
    assert recognized(out) == [(10.0 + window, 2)]
    late = run(header(rules), first(rules, 1.0), rs(2.0), re_(10.0), pr(10.0 + window + 0.01, 2))
    assert recognized(late) == []
    assert of_type(late, "window_closed") == [{"t": 10.0 + window, "type": "window_closed"}]
    assert ignored(late) == [(10.0 + window + 0.01, 2, "window_closed")]


@pytest.mark.parametrize("rules", INTERRUPT)
def test_P5_reading_resumes_after_wrong_answer_on_interrupted_reading(rules: str) -> None:
    out = run(header(rules), first(rules, 1.0), rs(2.0), pr(3.0, 2), bad(5.0), pr(6.0, 3))
    assert of_type(out, "reading_resumed") == [{"t": 5.0, "type": "reading_resumed"}]
    # Others may press during the resumed reading: it stops again.
    assert recognized(out) == [(3.0, 2), (6.0, 3)]
    assert [o["seat"] for o in of_type(out, "reading_interrupted")] == [2, 3]


@pytest.mark.parametrize("rules", ["tv-1994", "tv-modern", "sport-false-start", "jeopardy"])
def test_P5_others_may_press_after_wrong_answer(rules: str) -> None:
    out = run(header(rules), first(rules, 1.0), rs(2.0), re_(5.0), pr(5.5, 1), bad(6.0), pr(6.1, 2))
    assert recognized(out) == [(5.5, 1), (6.1, 2)]
    assert of_type(out, "reading_resumed") == []


@pytest.mark.parametrize("rules", ALL_SYSTEMS)
def test_P6_fresh_window_after_wrong(rules: str) -> None:
    window = WINDOW[rules]
    out = run(
        header(rules),
        first(rules, 1.0),
        rs(2.0),
        re_(5.0),
        pr(5.5, 1),
        bad(12.0),  # ruled well after the first window ended
        pr(12.0 + window, 2),  # exactly at the fresh window's end
    )
    opened = of_type(out, "window_opened")
    assert opened == [
        {"t": 5.0, "type": "window_opened", "closes_at": 5.0 + window},
        {"t": 12.0, "type": "window_opened", "closes_at": 12.0 + window},
    ]
    assert recognized(out) == [(5.5, 1), (12.0 + window, 2)]


@pytest.mark.parametrize("rules", ALL_SYSTEMS)
def test_P7_P8_only_players_who_have_not_answered_may_press(rules: str) -> None:
    out = run(
        header(rules, chooser=3),
        first(rules, 1.0),
        rs(2.0),
        re_(5.0),
        pr(5.5, 1),
        bad(6.0),
        pr(6.5, 1),  # one answer per player per question
        pr(6.7, 2),
        bad(7.0),
        pr(7.2, 2),
        pr(7.4, 1),
        pr(7.6, 3),
    )
    assert recognized(out) == [(5.5, 1), (6.7, 2), (7.6, 3)]
    assert ignored(out) == [
        (6.5, 1, "already_answered"),
        (7.2, 2, "already_answered"),
        (7.4, 1, "already_answered"),
    ]


def test_P9_answer_time_counts_from_t_end_for_tv94_early_press() -> None:
    s = 1_000_000_000
    tv94 = Arbiter(RULE_SYSTEMS["tv-1994"].buttons, 3)
    tv94.open_question()
    decisions: list[Any] = []
    tv94.start_reading(1 * s, decisions)
    tv94.press(2 * s, [2], decisions)
    assert tv94.answering == 2
    tv94.end_reading(8 * s, decisions)
    assert tv94.answer_deadline() == 8 * s + 5 * s  # from t_end, not from the press

    c2003 = Arbiter(RULE_SYSTEMS["championship-2003"].buttons, 3)
    c2003.open_question()
    c2003.start_reading(1 * s, decisions)
    c2003.press(2 * s, [2], decisions)
    assert c2003.answer_deadline() == 2 * s + 5 * s  # from the press: the reading stopped


@pytest.mark.parametrize("rules", ALL_SYSTEMS)
def test_P10_clarification_only_in_sport_clarify(rules: str) -> None:
    assert RULE_SYSTEMS[rules].buttons.clarification is (rules == "sport-clarify")


@pytest.mark.parametrize("rules", ["championship-2003", "tv-1994", "tv-modern", "jeopardy"])
def test_P11_nobody_answers_chooser_keeps_the_choice(rules: str) -> None:
    window = WINDOW[rules]
    out = run(
        header(rules, chooser=2), first(rules, 1.0), rs(2.0), re_(5.0), tick(5.0 + window + 1)
    )
    assert of_type(out, "window_closed") == [{"t": 5.0 + window, "type": "window_closed"}]
    assert of_type(out, "chooser") == [{"t": 5.0 + window, "type": "chooser", "seat": 2}]
    assert of_type(out, "score") == []
    assert result(out)["chooser"] == 2


@pytest.mark.parametrize("rules", ["championship-2003", "tv-1994", "tv-modern", "jeopardy"])
def test_P11_all_wrong_chooser_keeps_the_choice(rules: str) -> None:
    price = FIRST_PRICE[rules]
    out = run(
        header(rules, chooser=2),
        first(rules, 1.0),
        rs(2.0),
        re_(5.0),
        pr(5.5, 1),
        bad(6.0),
        pr(6.5, 2),
        bad(7.0),
        pr(7.5, 3),
        bad(8.0),
    )
    assert [o["delta"] for o in of_type(out, "score")] == [-price] * 3
    assert of_type(out, "chooser") == [{"t": 8.0, "type": "chooser", "seat": 2}]
    assert result(out)["chooser"] == 2


@pytest.mark.parametrize("rules", SPORT)
def test_P11_sport_next_question_in_fixed_order(rules: str) -> None:
    out = run(
        header(rules),
        sel(1.0),
        rs(2.0),
        re_(5.0),
        pr(5.5, 1),
        bad(6.0),
        pr(6.5, 2),
        bad(7.0),
        pr(7.5, 3),
        bad(8.0),
        sel(9.0),
    )
    assert [(o["theme"], o["price"]) for o in of_type(out, "question")] == [(1, 10), (1, 20)]
    assert result(out)["chooser"] is None


# -- docs/journal-contract.md edge rules ----------------------------------------------


def test_JOURNAL_edge_press_at_exactly_closes_at_is_in_time() -> None:
    out = run(header("tv-modern"), sel(1.0, 1, 300), rs(2.0), re_(6.0), pr(9.0, 3))
    assert recognized(out) == [(9.0, 3)]
    assert of_type(out, "window_closed") == []


def test_JOURNAL_edge_locked_until_frees_button_at_that_instant() -> None:
    out = run(
        header("tv-modern"),
        sel(1.0, 1, 300),
        rs(2.0),
        pr(5.0, 2),
        re_(6.0),
        pr(6.999, 2),
        pr(7.0, 2),
    )
    assert compact(out) == [
        (5.0, "false_start", 2, 7.0),
        (6.0, "window_opened", 9.0),
        (6.999, "ignored", 2, "locked"),
        (7.0, "recognized", 2),
    ]


@pytest.mark.parametrize("press_first", [False, True])
def test_JOURNAL_edge_host_input_and_press_same_t_host_first(press_first: bool) -> None:
    # A press at the very instant of the signal is not a false start,
    # whichever line arrives first.
    signal = [re_(6.0), pr(6.0, 1)]
    if press_first:
        signal.reverse()
    out = run(header("tv-modern"), sel(1.0, 1, 300), rs(2.0), *signal)
    assert of_type(out, "false_start") == []
    assert compact(out) == [(6.0, "window_opened", 9.0), (6.0, "recognized", 1)]


def test_JOURNAL_edge_select_same_t_as_press_select_first() -> None:
    out = run(header("championship-2003"), pr(1.0, 2), sel(1.0, 1, 30), rs(2.0), pr(2.5, 3))
    assert ignored(out) == [(1.0, 2, "not_open")]
    assert recognized(out) == [(2.5, 3)]


def test_JOURNAL_edge_arrival_order_never_decides_across_signal() -> None:
    # A press stamped before the signal that arrives after it (inside the
    # settle window) is still a false start.
    out = run(header("tv-modern"), sel(1.0, 1, 300), rs(2.0), re_(6.0), pr(5.999, 1), pr(6.1, 2))
    assert of_type(out, "false_start") == [
        {"t": 5.999, "type": "false_start", "seat": 1, "locked_until": 7.999}
    ]
    assert recognized(out) == [(6.1, 2)]


@pytest.mark.parametrize("rules", ["championship-2003", "tv-modern"])
def test_JOURNAL_edge_select_while_window_open_ends_question_no_score_change(rules: str) -> None:
    price = FIRST_PRICE[rules]
    out = run(
        header(rules, chooser=3),
        sel(1.0, 1, price),
        rs(2.0),
        re_(6.0),
        sel(7.0, 2, price),
        pr(7.5, 1),  # the new question is not being read: not open
    )
    assert of_type(out, "score") == []
    assert of_type(out, "chooser") == [{"t": 7.0, "type": "chooser", "seat": 3}]
    assert of_type(out, "window_closed") == []
    assert [(o["t"], o["theme"]) for o in of_type(out, "question")] == [(1.0, 1), (7.0, 2)]
    assert ignored(out) == [(7.5, 1, "not_open")]
    assert result(out)["scores"] == {"1": 0, "2": 0, "3": 0}
    # The ended question is played: it cannot be selected again.
    again = (sel(1.0, 1, price), rs(2.0), re_(6.0), sel(7.0, 2, price), sel(8.0, 1, price))
    assert sequence_error_line(header(rules), *again) == 6


def test_JOURNAL_edge_judge_when_nobody_answers_is_error() -> None:
    events = (sel(1.0, 1, 30), rs(2.0), re_(6.0), bad(7.0))
    assert sequence_error_line(header("championship-2003"), *events) == 5
    assert sequence_error_line(header("championship-2003"), ok(0.5)) == 2


def test_JOURNAL_edge_judge_after_question_closed_is_error() -> None:
    events = (sel(1.0, 1, 30), rs(2.0), re_(6.0), pr(6.5, 1), ok(7.0), ok(7.5))
    assert sequence_error_line(header("championship-2003"), *events) == 7


def test_JOURNAL_edge_select_while_someone_answering_is_error() -> None:
    events = (sel(1.0, 1, 30), rs(2.0), re_(6.0), pr(6.5, 1), sel(7.0, 1, 40))
    assert sequence_error_line(header("championship-2003"), *events) == 6


# -- mutants of the arbiter that survived (issue 16): each test names what it guards -------


def test_A_G2_a_margin_rounds_half_up_to_the_microsecond() -> None:
    out = run(
        header("championship-2003"),
        sel(1.0, 1, 30),
        rs(2.0),
        re_(6.0),
        pr(7.0, 2),
        pr(7.0000015, 3),  # 1.5 µs behind: 2, not 1 (floor) nor 2 by luck of banker's rounding
        pr(7.0000025, 1),  # 2.5 µs: 3 (half up), where round-half-even would say 2
        pr(7.0000104, 3),  # a second press: its first margin stands
    )
    behind = [(o["seat"], o.get("behind_us")) for o in of_type(out, "ignored")]
    assert behind[:2] == [(3, 2), (1, 3)]


def test_A_G1_the_loser_of_an_exact_tie_is_0_us_behind_not_1() -> None:
    out = run(
        header("championship-2003"),
        sel(1.0, 1, 30),
        rs(2.0),
        re_(6.0),
        pr(7.0, 3),
        pr(7.0, 2),
        {"t": 7.0, "type": "draw", "seats": [2, 3], "winner": 2},
    )
    (lost,) = of_type(out, "ignored")
    assert (lost["seat"], lost["reason"], lost["behind_us"]) == (3, "lost_draw", 0)


def test_TV_M_A_D2_a_locked_seat_first_in_a_same_instant_group_drops_nobody_after_it() -> None:
    out = run(
        header("tv-modern"),
        sel(1.0, 1, 100),
        rs(2.0),
        pr(3.0, 1),  # a false start: seat 1 is locked for 2 s
        re_(4.0),
        pr(4.5, 1),  # seats 1 and 2 at the same instant: 1 is still locked...
        pr(4.5, 2),
    )
    assert [(o["seat"], o["reason"]) for o in of_type(out, "ignored")] == [(1, "locked")]
    assert recognized(out) == [(4.5, 2)]  # ...and 2, after it in the group, still wins
