"""The fairness rig's bookkeeping: which questions a fault excuses, and what nothing does.

The fairness tests (``test_runtime_fairness.py``, ``test_runtime_pico.py``)
excuse a late press only in a question a fault of the runtime touched. The
runtime's thread moves its counters while the rig's thread reads them, so
these pin the attribution down with a runtime whose counters the test moves
by hand: the case a loaded CI machine produced (a source faulted and back in
one question, the inputs it had held counted in the next), the one question
after a fault excused and no more, and a broken watermark promise never
excused.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from buzzer.runtime.runtime import RuntimeStats
from tests.support.fairness_rig import LiveRecord, QuestionWindows, unexplained


@dataclass
class CountersOnly:
    """What ``QuestionWindows`` reads of a runtime: its counters and faulted sources."""

    stats: RuntimeStats = field(default_factory=RuntimeStats)
    faulted: frozenset[str] = frozenset()


def windows() -> tuple[QuestionWindows, CountersOnly, LiveRecord]:
    runtime = CountersOnly()
    record = LiveRecord()
    return QuestionWindows(record, runtime), runtime, record  # type: ignore[arg-type]


def test_inputs_a_fault_held_back_excuse_the_question_they_land_in() -> None:
    book, runtime, _ = windows()
    book.open(1)
    runtime.stats.faults += 1  # gpio stalled ...
    runtime.stats.behind += 1
    book.open(2)  # ... and was back before question 2 began
    runtime.stats.behind += 9  # the rest of what it held, counted in question 2
    book.open(3)
    book.open(4)
    book.close()
    assert book.per_question[2] == (0, 9)
    assert book.faulted == {1, 2, 3}
    assert unexplained(book.per_question, book.faulted, [], book.broken) == []


def test_a_late_press_straddling_into_the_next_question_is_excused_there_only() -> None:
    book, runtime, record = windows()
    book.open(1)
    runtime.stats.behind += 1  # the input taken in question 1's window ...
    book.open(2)
    record.late += 1  # ... ruled late once question 2's had begun
    book.open(3)
    record.late += 1  # a late press two questions on: nothing explains it
    book.close()
    assert book.faulted == {1, 2}
    assert unexplained(book.per_question, book.faulted, [], book.broken) == [
        "question 3: 1 ruled late, 0 delivered behind"
    ]


def test_a_broken_watermark_promise_is_never_excused() -> None:
    book, runtime, _ = windows()
    book.open(1)
    runtime.stats.faults += 1
    runtime.stats.behind += 1
    runtime.stats.broken_promises += 1
    book.close()
    assert 1 in book.faulted
    assert unexplained(book.per_question, book.faulted, [], book.broken) == [
        "question 1: 1 inputs stamped before their own source's watermark"
    ]


def test_a_quiet_question_with_a_wrong_winner_is_a_defect() -> None:
    book, _, _ = windows()
    book.open(1)
    book.open(2)
    book.close()
    assert book.faulted == set()
    assert unexplained(book.per_question, book.faulted, [(2, 3, 5)], book.broken) == [
        "question 2: seat 5 beat seat 3"
    ]
