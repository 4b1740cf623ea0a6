"""A-G-D2: a press while no question is open is a button check, and decides nothing.

On the board (before the first question, between questions and rounds, paused
there) a press is ``ignored`` exactly as before — same reason, same journal
line — and its ``Ignored`` carries ``check=True`` for the lamps and the board
("your button works"). Inside a question (chosen, read, open, answered, paused
there), in a special question, the final and after the game it is no check.
The replay makes the same decisions from the same lines.

Seats: A = 1, B = 2, C = 3.
"""

from __future__ import annotations

from typing import Any

from buzzer.arbiter.decisions import Decision, Ignored
from buzzer.journal.resume import rebuild
from buzzer.replay import replay_lines
from tests.conftest import journal
from tests.support.lines import ok, pr, re_, rs, sel

A, B, C = 1, 2, 3
S = 1_000_000_000
HEADER: dict[str, Any] = {"rules": "championship-2003", "players": ["A", "B", "C"], "chooser": A}


def decide(*events: dict[str, Any]) -> tuple[list[Decision], dict[str, Any]]:
    core, out = rebuild(journal(HEADER, *events))
    core.finish(out)
    return out, dict(core.snapshot())


def ignored(out: list[Decision]) -> list[Ignored]:
    return [d for d in out if isinstance(d, Ignored)]


def test_A_G_D2_a_press_before_the_first_question_is_a_check_that_decides_nothing() -> None:
    start, _ = decide()
    out, snap = decide(pr(1.0, B), pr(1.5, C))
    out = out[len(start) :]
    assert [(d.t, d.seat, d.reason, d.check) for d in ignored(out)] == [
        (1 * S, B, "not_open", True),
        (int(1.5 * S), C, "not_open", True),
    ]
    assert [d for d in out if not isinstance(d, Ignored)] == []  # no score, floor, chooser
    assert snap["stage"] == "board"
    assert snap["scores"] == {"1": 0, "2": 0, "3": 0}
    assert snap["chooser"] == A
    assert snap["answering"] is None and snap["locked_until"] == {}


def test_A_G_D2_the_check_is_not_in_the_line_old_journals_replay_byte_for_byte() -> None:
    lines = replay_lines(journal(HEADER, pr(1.0, B)))
    assert '{"t": 1.0, "type": "ignored", "seat": 2, "reason": "not_open"}' in lines
    assert not any("check" in line for line in lines)


def test_A_G_D2_a_press_between_questions_is_a_check_and_changes_no_score() -> None:
    played = (sel(1.0, 1, 10), rs(2.0), re_(3.0), pr(4.0, A), ok(5.0))
    before, snap_before = decide(*played)
    out, snap = decide(*played, pr(6.0, B), pr(6.5, A))
    new = out[len(before) :]
    assert [(d.seat, d.reason, d.check) for d in ignored(new)] == [
        (B, "window_closed", True),
        (A, "window_closed", True),
    ]
    assert all(isinstance(d, Ignored) for d in new)
    assert snap["scores"] == snap_before["scores"] == {"1": 10, "2": 0, "3": 0}
    assert snap["chooser"] == snap_before["chooser"] == A


def test_A_G_D2_a_press_inside_a_question_is_no_check() -> None:
    # chosen and not read yet (not_open), then the window (B answers), C behind B
    out, _ = decide(sel(1.0, 1, 10), pr(1.5, C), rs(2.0), re_(3.0), pr(4.0, B), pr(4.1, C))
    assert [(d.seat, d.reason, d.check) for d in ignored(out)] == [
        (C, "not_open", False),
        (C, "someone_answering", False),
    ]


def test_A_G_D2_paused_on_the_board_a_press_is_a_check_paused_in_a_question_it_is_not() -> None:
    pause = {"t": 1.0, "type": "pause"}
    out, snap = decide(pause, pr(2.0, B))
    assert [(d.seat, d.reason, d.check) for d in ignored(out)] == [(B, "paused", True)]
    assert snap["paused_at"] is not None
    inside = (sel(1.0, 1, 10), rs(2.0), {"t": 2.5, "type": "pause"}, pr(3.0, B))
    out, _ = decide(*inside)
    assert [(d.seat, d.reason, d.check) for d in ignored(out)] == [(B, "paused", False)]


def test_A_G_D2_the_replay_makes_the_same_check_decisions_as_the_live_core() -> None:
    events = (pr(0.5, C), sel(1.0, 1, 10), rs(2.0), re_(3.0), pr(4.0, A), ok(5.0), pr(6.0, B))
    first, _ = decide(*events)
    again, _ = decide(*events)
    assert first == again
    assert [(d.seat, d.check) for d in ignored(first)] == [(C, True), (B, True)]
