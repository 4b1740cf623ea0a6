"""docs/rules.md Part A (buttons and answer timing), one test per rule ID.

Every test builds a journal (docs/journal-contract.md) and replays it through the real
core with ``tests.conftest.run``; the expected values are taken from the
rule text (docs/rules.md A.1-A.3, docs/journal-contract.md), never from the code's own output.
"""

from __future__ import annotations

from typing import Any

import pytest

from buzzer.arbiter import Arbiter
from buzzer.arbiter.decisions import Ignored, Recognized
from buzzer.journal.codec import JournalError
from rules.profiles import RULE_SYSTEMS
from tests.conftest import of_type, run
from tests.support.lines import bad, ok, pr, re_, rs, sel, tick

P3 = ["Аня", "Борис", "Вера"]

ALL_SYSTEMS = (
    "championship-2003",
    "tv-1994",
    "tv-modern",
    "sport-false-start",
    "sport-clarify",
    "sport-no-false-start",
    "jeopardy",
)
SPORT = ("sport-false-start", "sport-clarify", "sport-no-false-start")
#: Systems in which a press during the reading stops it (P2).
INTERRUPT = ("championship-2003", "sport-clarify", "sport-no-false-start")
#: Systems in which a press before the signal is a false start (P2, P3).
FALSE_START = ("tv-modern", "sport-false-start", "jeopardy")

#: The first question of each system's default board (docs/rules.md C2003-2.2.1,
#: TV-G-3, SPORT-D; docs/journal-contract.md for jeopardy): theme 1 and its cheapest price.
FIRST_PRICE = {
    "championship-2003": 10,
    "tv-1994": 10,
    "tv-modern": 100,
    "sport-false-start": 10,
    "sport-clarify": 10,
    "sport-no-false-start": 10,
    "jeopardy": 200,
}
#: TV-G-2 (50 in Apr 1994 - Aug 1996), C2003-2.2.2, SPORT-D: the starting score.
START = {s: 0 for s in ALL_SYSTEMS} | {"tv-1994": 50}
#: P4 (and docs/journal-contract.md for jeopardy): the press window after the end of reading.
WINDOW = {
    "championship-2003": 5.0,
    "tv-1994": 3.0,
    "tv-modern": 3.0,
    "sport-false-start": 5.0,
    "sport-clarify": 5.0,
    "sport-no-false-start": 5.0,
    "jeopardy": 5.0,
}


# -- journal builders ----------------------------------------------------------


def header(rules: str, chooser: int | None = 1, **extra: Any) -> dict[str, Any]:
    head: dict[str, Any] = {"rules": rules, "players": P3, **extra}
    if chooser is not None and rules not in SPORT:
        head["chooser"] = chooser
    return head


def first(rules: str, t: float) -> dict[str, Any]:
    """Select the first question of the board (the next in order for SPORT)."""
    if rules in SPORT:
        return sel(t)
    return sel(t, 1, FIRST_PRICE[rules])


def game_events(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The decisions, without the info lines and the result."""
    return [
        o for o in out if o["type"] not in ("first_chooser", "question", "round_started", "result")
    ]


def compact(out: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """(t, type, seat-or-detail) triples of the decisions, for exact comparisons."""
    rows: list[tuple[Any, ...]] = []
    for o in game_events(out):
        kind = o["type"]
        if kind in ("recognized", "reading_interrupted"):
            rows.append((o["t"], kind, o["seat"]))
        elif kind == "ignored":
            rows.append((o["t"], kind, o["seat"], o["reason"]))
        elif kind == "false_start":
            rows.append((o["t"], kind, o["seat"], o["locked_until"]))
        elif kind == "window_opened":
            rows.append((o["t"], kind, o["closes_at"]))
        elif kind == "score":
            rows.append((o["t"], kind, o["seat"], o["delta"], o["score"]))
        elif kind in ("chooser",):
            rows.append((o["t"], kind, o["seat"]))
        elif kind == "tie":
            rows.append((o["t"], kind, tuple(o["seats"])))
        else:
            rows.append((o["t"], kind))
    return rows


def result(out: list[dict[str, Any]]) -> dict[str, Any]:
    assert out[-1]["type"] == "result"
    return out[-1]


def recognized(out: list[dict[str, Any]]) -> list[tuple[float, int]]:
    return [(o["t"], o["seat"]) for o in of_type(out, "recognized")]


def ignored(out: list[dict[str, Any]]) -> list[tuple[float, int, str]]:
    return [(o["t"], o["seat"], o["reason"]) for o in of_type(out, "ignored")]


def sequence_error_line(head: dict[str, Any], *events: dict[str, Any]) -> int:
    with pytest.raises(JournalError) as info:
        run(head, *events)
    return info.value.line


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
