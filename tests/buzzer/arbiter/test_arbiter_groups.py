"""Same-instant presses (buzzer/arbiter/machine.py): one seat's reason never
swallows the seats after it in the group.

Presses that share a timestamp reach the arbiter as one group, seats ascending
(A-G1). Each seat gets its own answer: a seat refused for any reason must not
stop the arbiter from looking at the next one. A mutation run of the core
(docs/design.md, "Mutation testing") turned each ``continue`` of that loop into
a ``break`` and found the case where seat 1 is not eligible unguarded; these
pin every reason.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from buzzer.arbiter.decisions import Decision, FalseStart, Ignored, Recognized
from buzzer.arbiter.machine import Arbiter, SequenceError
from rules.profiles import RULE_SYSTEMS

S = 1_000_000_000


def arbiter(rules: str = "championship-2003") -> tuple[Arbiter, list[Decision]]:
    return Arbiter(RULE_SYSTEMS[rules].buttons, 3), []


def read(machine: Arbiter, out: list[Decision]) -> None:
    machine.start_reading(1 * S, out)
    machine.end_reading(5 * S, out)


def ignored(out: list[Decision]) -> list[tuple[int, str]]:
    return [(d.seat, d.reason) for d in out if isinstance(d, Ignored)]


def test_A_G4_a_seat_not_designated_first_in_the_group_leaves_the_next_to_answer() -> None:
    machine, out = arbiter()
    machine.open_question(eligible=frozenset({2, 3}))
    read(machine, out)
    machine.press(6 * S, [1, 2], out)
    assert ignored(out) == [(1, "not_eligible")]
    assert [d for d in out if isinstance(d, Recognized)] == [Recognized(6 * S, 2)]


def test_P8_a_seat_that_has_answered_first_in_the_group_leaves_the_next_to_answer() -> None:
    machine, out = arbiter()
    machine.open_question()
    read(machine, out)
    machine.press(6 * S, [1], out)
    machine.verdict(7 * S, False, out)  # seat 1 answered wrong: a fresh window for the others
    machine.press(8 * S, [1, 2], out)
    assert ignored(out) == [(1, "already_answered")]
    assert [d.seat for d in out if isinstance(d, Recognized)] == [1, 2]


def test_A_G2_every_seat_of_a_group_behind_the_answerer_is_told_its_margin() -> None:
    machine, out = arbiter()
    machine.open_question()
    read(machine, out)
    machine.press(6 * S, [3], out)
    machine.press(6 * S + 5_000, [1, 2], out)
    behind = [(d.seat, d.behind_us) for d in out if isinstance(d, Ignored)]
    assert behind == [(1, 5), (2, 5)]


def test_A_G5_a_group_before_the_question_is_open_is_ignored_seat_by_seat() -> None:
    machine, out = arbiter()
    machine.press(1 * S, [1, 2, 3], out)  # nothing selected yet
    machine.open_question()
    machine.press(2 * S, [2, 3], out)  # selected, not read yet
    assert [seat for seat, _ in ignored(out)] == [1, 2, 3, 2, 3]


def test_a_group_after_the_window_closed_is_ignored_seat_by_seat() -> None:
    machine, out = arbiter()
    machine.open_question()
    read(machine, out)
    machine.press(6 * S, [1], out)
    machine.verdict(7 * S, True, out)  # a right answer closes the question
    machine.press(8 * S, [2, 3], out)
    assert ignored(out) == [(2, "window_closed"), (3, "window_closed")]


def test_TV_M_A2_every_seat_of_a_group_pressing_during_the_reading_false_starts() -> None:
    machine, out = arbiter("tv-modern")
    machine.open_question()
    machine.start_reading(1 * S, out)
    machine.press(2 * S, [1, 2], out)
    assert [d.seat for d in out if isinstance(d, FalseStart)] == [1, 2]


def refusal(move: Callable[[], object]) -> str:
    """The sentence the host reads when the arbiter refuses ``move``."""
    with pytest.raises(SequenceError) as refused:
        move()
    return str(refused.value)


def test_A_1_every_host_input_out_of_order_is_refused_with_what_to_do() -> None:
    machine, out = arbiter()
    assert refusal(lambda: machine.start_reading(1 * S, out)) == (
        "no question is selected: select one before reading"
    )
    assert refusal(lambda: machine.end_reading(1 * S, out)) == (
        "no question is being read: select one first"
    )
    assert refusal(lambda: machine.verdict(1 * S, True, out)) == (
        "nobody is answering: there is no answer to judge"
    )
    assert refusal(lambda: machine.resolve_tie(1, out)) == "no tie is waiting for a draw"
    machine.open_question()
    machine.start_reading(1 * S, out)
    machine.press(2 * S, [2], out)  # C2003-2.4.1b: the reading is interrupted
    assert refusal(lambda: machine.start_reading(3 * S, out)) == (
        "seat 2 is answering: judge the answer before resuming the reading"
    )
    assert refusal(lambda: machine.end_reading(3 * S, out)) == (
        "seat 2 interrupted the reading and is answering: judge the answer first"
    )
    assert refusal(machine.close) == (
        "seat 2 is answering: judge the answer (correct or wrong) first"
    )
    machine.verdict(3 * S, False, out)
    machine.end_reading(4 * S, out)
    assert refusal(lambda: machine.start_reading(5 * S, out)) == (
        "the question has already been read to the end"
    )
    assert refusal(lambda: machine.end_reading(5 * S, out)) == "the reading has already ended"
    machine.press(6 * S, [1, 3], out)  # A-G1: a tie waits for the draw
    assert refusal(lambda: machine.resolve_tie(2, out)) == (
        "the draw's winner 2 is not one of the tied seats (1, 3)"
    )


def test_A_G_D1_a_pause_after_a_wrong_answer_moves_the_fresh_window_and_no_answer_timer() -> None:
    machine, out = arbiter()
    machine.open_question()
    read(machine, out)  # the reading ends at 5 s
    machine.press(6 * S, [1], out)
    machine.verdict(7 * S, False, out)  # P6: a fresh 5 s window from the ruling
    assert (machine.closes_at, machine.answer_deadline()) == (12 * S, None)
    machine.shift(8 * S, 2 * S)  # the host paused from 8 s to 10 s
    assert (machine.closes_at, machine.t_end, machine.answer_from) == (14 * S, 7 * S, None)
    assert machine.answer_deadline() is None
    machine.press(14 * S, [2], out)  # at exactly the moved end: in time
    assert [d.seat for d in out if isinstance(d, Recognized)] == [1, 2]


@pytest.mark.parametrize("rules", ["championship-2003", "tv-1994"])
def test_A_G3_after_a_wrong_answer_the_next_answer_timer_counts_from_its_own_press(
    rules: str,
) -> None:
    machine, out = arbiter(rules)
    machine.open_question()
    machine.start_reading(1 * S, out)
    machine.press(2 * S, [1], out)  # during the reading (TV-94-A2: holds the right)
    machine.verdict(3 * S, False, out)
    machine.end_reading(5 * S, out)
    machine.press(6 * S, [2], out)  # in the window: no reading left to wait for (P9)
    assert machine.answer_deadline() == 6 * S + machine.rules.answer_time_ns
