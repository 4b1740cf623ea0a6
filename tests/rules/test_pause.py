"""A-G-D1: the host's pause stops the game, every clock of it.

``pause`` / ``resume`` are journaled inputs (docs/journal.md). While paused no
deadline fires and a press is ``ignored`` as ``paused`` (never a false start);
on ``resume`` every deadline still pending at the pause moves on by the
pause's length, measured from the two lines' own stamps. One test per clock:
the press window, the answer time, the TV round clock, the final's writing
time, the stake question's buy window (TV-H-1995-01), a false start's lockout,
a special question's time to think. Each is a journal replayed through the
real core; the snapshots come from the same core (``rebuild``).

And C2003-2.4.6e: a special question's time to think starts at the host's end
of reading (``reading_end`` in the special stage), not at the hand-over.

Seats: A = 1, B = 2, C = 3.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from buzzer.journal.codec import JournalError
from buzzer.journal.resume import rebuild
from buzzer.replay import replay_lines
from rules.snapshot import GameSnapshot
from tests.conftest import journal, of_type, run
from tests.support.lines import bad, bid, ok, pr, re_, rs, sel, tick, timeout

A, B, C = 1, 2, 3
S = 1_000_000_000
PLAYERS = ["A", "B", "C"]


def pause(t: float) -> dict[str, Any]:
    return {"t": t, "type": "pause"}


def resume(t: float) -> dict[str, Any]:
    return {"t": t, "type": "resume"}


def c2003(**extra: Any) -> dict[str, Any]:
    return {"rules": "championship-2003", "players": PLAYERS, "chooser": A, **extra}


def tvm(**extra: Any) -> dict[str, Any]:
    return {"rules": "tv-modern", "players": PLAYERS, "chooser": A, **extra}


def snapshot(header: dict[str, Any], *events: dict[str, Any]) -> GameSnapshot:
    """The state once every line is applied (the settle window flushed, as at a replay's end)."""
    core, _ = rebuild(journal(header, *events))
    core.finish([])
    return core.snapshot()


def brief(out: list[dict[str, Any]], *types: str) -> list[tuple[Any, ...]]:
    """(t, type, the other fields...) of the lines of ``types``, in order."""
    return [
        (o["t"], o["type"], *(v for k, v in o.items() if k not in ("t", "type")))
        for o in of_type(out, *types)
    ]


def refused(header: dict[str, Any], *events: dict[str, Any]) -> tuple[int, str]:
    with pytest.raises(JournalError) as info:
        run(header, *events)
    return info.value.line, info.value.message


# -- the press window (C2003-2.4.1d: 5 s) ---------------------------------------------------


def test_A_G_D1_the_window_open_at_the_pause_is_still_open_after_a_pause_longer_than_it() -> None:
    # The signal at 3: the window runs to 8. Paused at 4 (4 s left) for 16 s: it runs to 24.
    events = (sel(1.0, 1, 10), rs(2.0), re_(3.0), pause(4.0), resume(20.0))
    out = run(c2003(), *events, pr(22.0, B), ok(23.0))
    assert brief(out, "window_opened", "window_closed", "recognized") == [
        (3.0, "window_opened", 8.0),
        (22.0, "recognized", B),
    ]
    assert brief(out, "paused", "resumed") == [(4.0, "paused"), (20.0, "resumed", 16.0)]
    # Nobody pressing: the window closes at its moved end, 24, not at 8 nor at 20.
    quiet = run(c2003(), *events, tick(30.0))
    assert brief(quiet, "window_closed") == [(24.0, "window_closed")]
    # Without the pause the same press is too late (the window closed at 8).
    plain = run(c2003(), sel(1.0, 1, 10), rs(2.0), re_(3.0), pr(22.0, B))
    assert brief(plain, "window_closed") == [(8.0, "window_closed")]
    assert brief(plain, "recognized") == []


def test_A_G_D1_no_deadline_fires_during_the_pause_and_the_snapshot_says_when_it_began() -> None:
    paused = snapshot(c2003(), sel(1.0, 1, 10), rs(2.0), re_(3.0), pause(4.0), tick(60.0))
    assert paused["phase"] == "open" and paused["paused_at"] == 4 * S
    assert paused["closes_at"] == 8 * S  # frozen: 4 s left, shown as closes_at - paused_at
    resumed = snapshot(
        c2003(), sel(1.0, 1, 10), rs(2.0), re_(3.0), pause(4.0), tick(60.0), resume(61.0)
    )
    assert resumed["paused_at"] is None and resumed["closes_at"] == 65 * S


def test_A_G_D1_a_window_ending_at_the_very_instant_of_the_pause_is_still_open() -> None:
    # A press at exactly closes_at is in time, so at 8 the window is still open.
    out = run(c2003(), sel(1.0, 1, 10), rs(2.0), re_(3.0), pause(8.0), resume(10.0), pr(10.0, C))
    assert brief(out, "recognized") == [(10.0, "recognized", C)]


# -- the answer time (A-G3) -----------------------------------------------------------------


def test_A_G_D1_the_answer_time_stands_still_during_the_pause() -> None:
    events = (sel(1.0, 1, 10), rs(2.0), re_(3.0), pr(4.0, B), pause(5.0))
    paused = snapshot(c2003(), *events)
    assert paused["answer_deadline"] == 9 * S  # 5 s from the press; 4 s left at the pause
    resumed = snapshot(c2003(), *events, resume(15.0))
    assert resumed["answer_deadline"] == 19 * S  # still 4 s left after the resume
    assert resumed["recognized_at"] == 4 * S  # the press's own stamp does not move
    # A later press is behind the answering player by the real time (A-G2's margin).
    out = run(c2003(), *events, resume(15.0), pr(16.0, C))
    assert brief(out, "ignored") == [(16.0, "ignored", C, "someone_answering", 12_000_000)]


def test_A_G_D1_tv_94_the_early_pressers_answer_time_from_the_signal_moves_too() -> None:
    head = {"rules": "tv-1994", "players": PLAYERS, "chooser": A}
    events = (sel(1.0, 1, 10), rs(2.0), pr(3.0, B), re_(4.0), pause(6.0), resume(16.0))
    assert snapshot(head, *events)["answer_deadline"] == 19 * S  # 4 + 5, moved on by 10


# -- the fixed window after a wrong answer (C2003-A-D2) -------------------------------------


def test_A_G_D1_a_fixed_window_counts_from_the_signal_without_the_pause() -> None:
    head = c2003(options={"window_after_wrong": "fixed"})
    out = run(head, sel(1.0, 1, 10), rs(2.0), re_(3.0), pr(4.0, B), pause(5.0), resume(25.0),
              bad(26.0), pr(28.0, C))  # fmt: skip
    # The fixed window ran 3..8; 20 s of pause move its end to 28: C at 28 is in time.
    assert brief(out, "window_opened") == [
        (3.0, "window_opened", 8.0),
        (26.0, "window_opened", 28.0),
    ]
    assert brief(out, "recognized")[-1] == (28.0, "recognized", C)


# -- the TV round clock (TV-G-6) and its warning (TV-H-1994-10) ------------------------------


def test_A_G_D1_the_tv_round_clock_stands_still_during_the_pause() -> None:
    head = {"rules": "tv-1994", "date": "1995-06-01", "players": PLAYERS, "chooser": A}
    # The clock runs from the first select at 10: the gong would be at 610 (10 min).
    events = (sel(10.0, 1, 10), timeout(11.0), pause(100.0), resume(200.0))
    out = run(head, *events, sel(620.0, 1, 20), timeout(621.0), sel(720.0, 1, 40))
    # 100 s of pause: the warning at 650, the gong at 710; the select at 620 is in round 1.
    assert brief(out, "round_warning", "round_time_up") == [
        (650.0, "round_warning", 1, 60.0),
        (710.0, "round_time_up", 1),
    ]
    assert [(o["t"], o["round"]) for o in of_type(out, "question")] == [
        (10.0, 1),
        (620.0, 1),
        (720.0, 2),
    ]
    # No gong during the pause, however long.
    long = run(head, sel(10.0, 1, 10), timeout(11.0), pause(100.0), tick(900.0))
    assert of_type(long, "round_time_up", "round_warning") == []


# -- the final's writing time (C2003-2.7.4: 30 s) --------------------------------------------


def final_setup() -> list[dict[str, Any]]:
    head_scores = [
        {"t": 0.0, "type": "correction", "seat": A, "delta": 300, "reason": "setup"},
        {"t": 0.0, "type": "correction", "seat": B, "delta": 150, "reason": "setup"},
    ]
    removals = [
        {"t": 10.0 + i, "type": "final_remove", "theme": i + 1} for i in range(6)
    ]  # fmt: skip
    stakes = [
        {"t": 20.0, "type": "final_stake", "seat": A, "amount": 200},
        {"t": 21.0, "type": "final_stake", "seat": B, "amount": 100},
    ]
    return [*head_scores, sel(1.0, 1, 10), timeout(2.0), *removals, *stakes, rs(22.0), re_(23.0)]


FINAL_HEAD = c2003(board={"rounds": [{"name": "R", "themes": 1, "prices": [10]}]})


def test_A_G_D1_the_finals_writing_time_stands_still_during_the_pause() -> None:
    # The 30 s run 23..53; a pause 30..50 leaves 23 s of them: the answers are in at 73.
    events = (*final_setup(), pause(30.0), resume(50.0))
    assert snapshot(FINAL_HEAD, *events)["final"]["answers_due"] == 73 * S  # type: ignore[index]
    line, message = refused(FINAL_HEAD, *events, {"t": 60.0, "type": "final_judge",
                                                  "verdict": "correct"})  # fmt: skip
    assert line == len(events) + 2 and "still writing" in message
    out = run(FINAL_HEAD, *events, {"t": 74.0, "type": "final_judge", "verdict": "correct"})
    assert brief(out, "final_answers_in") == [(73.0, "final_answers_in", [B, A])]
    # The screens count down to the moved end: a fresh final_timer at the resume.
    assert brief(out, "final_timer") == [(23.0, "final_timer", 53.0), (50.0, "final_timer", 73.0)]


# -- the stake question's buy window (TV-H-1995-01: 3 s) -------------------------------------


def test_A_G_D1_the_buy_window_stands_still_during_the_pause() -> None:
    head = {
        "rules": "tv-1994",
        "date": "1995-06-01",
        "players": PLAYERS,
        "chooser": A,
        "specials": [{"round": 1, "theme": 1, "price": 30, "kind": "stake"}],
    }
    # A's opening bid at 2 opens the window to 5; paused at 3 for 10 s: it runs to 15.
    out = run(head, sel(1.0, 1, 30), bid(2.0, A, 30), pause(3.0), resume(13.0), pr(14.0, C))
    assert brief(out, "buy_window", "bid_claim", "window_closed") == [
        (2.0, "buy_window", [B, C], 5.0),
        (14.0, "bid_claim", C),
    ]
    quiet = run(head, sel(1.0, 1, 30), bid(2.0, A, 30), pause(3.0), resume(13.0), tick(20.0))
    assert brief(quiet, "window_closed", "stake_won") == [
        (15.0, "window_closed"),
        (15.0, "stake_won", A, 30),
    ]


# -- a false start's lockout (TV-M-A-D2: 2 s) ------------------------------------------------


def test_A_G_D1_a_lockout_stands_still_during_the_pause() -> None:
    # B's false start at 3 locks B until 5; paused at 4 (1 s left) for 6 s: until 11.
    events = (sel(1.0, 1, 100), rs(2.0), pr(3.0, B), pause(4.0), resume(10.0), re_(10.5))
    assert snapshot(tvm(), *events)["locked_until"] == {"2": 11 * S}
    out = run(tvm(), *events, pr(10.9, B), pr(11.0, B))
    assert brief(out, "false_start", "ignored", "recognized") == [
        (3.0, "false_start", B, 5.0),
        (10.9, "ignored", B, "locked"),
        (11.0, "recognized", B),  # free again at exactly locked_until
    ]


def test_A_G_D1_a_lockout_over_before_the_pause_stays_over() -> None:
    events = (sel(1.0, 1, 100), rs(2.0), pr(3.0, B), pause(6.0), resume(10.0), re_(10.5))
    assert snapshot(tvm(), *events)["locked_until"] == {"2": 5 * S}
    assert brief(run(tvm(), *events, pr(11.0, B)), "recognized") == [(11.0, "recognized", B)]


# -- a press during the pause ----------------------------------------------------------------


def test_A_G_D1_a_press_during_the_pause_is_ignored_as_paused_never_a_false_start() -> None:
    # TV-M: a press during the reading is a false start; during a pause it is nothing.
    out = run(tvm(), sel(1.0, 1, 100), rs(2.0), pause(3.0), pr(4.0, B), pr(4.0, C),
              resume(5.0), re_(6.0), pr(6.5, B))  # fmt: skip
    assert brief(out, "ignored", "false_start", "tie", "recognized") == [
        (4.0, "ignored", B, "paused"),
        (4.0, "ignored", C, "paused"),
        (6.5, "recognized", B),
    ]
    # In the window too: nobody takes the floor while the game stands still, and a
    # press at the very instant of the pause is after it (host inputs first).
    out = run(c2003(), sel(1.0, 1, 10), rs(2.0), re_(3.0), pause(4.0), pr(4.0, A), pr(5.0, B))
    assert brief(out, "ignored", "recognized") == [
        (4.0, "ignored", A, "paused"),
        (5.0, "ignored", B, "paused"),
    ]
    # ...and a press at the very instant of the resume counts.
    out = run(c2003(), sel(1.0, 1, 10), rs(2.0), re_(3.0), pause(4.0), resume(9.0), pr(9.0, A))
    assert brief(out, "recognized") == [(9.0, "recognized", A)]


# -- what the host may do while paused -------------------------------------------------------


def test_A_G_D1_pausing_twice_or_resuming_a_running_game_is_refused() -> None:
    line, message = refused(c2003(), pause(1.0), pause(2.0))
    assert line == 3 and "already paused" in message
    line, message = refused(c2003(), resume(1.0))
    assert line == 2 and "not paused" in message
    line, message = refused(c2003(), pause(1.0), resume(2.0), resume(3.0))
    assert line == 4 and "not paused" in message


def test_A_G_D1_the_game_waits_for_the_resume_but_scores_may_be_corrected() -> None:
    line, message = refused(c2003(), pause(1.0), sel(2.0, 1, 10))
    assert line == 3 and "paused" in message and "resume" in message
    line, _ = refused(c2003(), sel(1.0, 1, 10), rs(2.0), pause(3.0), re_(4.0))
    assert line == 5
    correction = {"t": 2.0, "type": "correction", "seat": B, "delta": 50, "reason": "спор"}
    out = run(c2003(), pause(1.0), correction, resume(3.0), sel(4.0, 1, 10))
    assert brief(out, "score") == [(2.0, "score", B, 50, 50)]
    # An objection on the question just played: what a pause is often for.
    events = (sel(1.0, 1, 10), rs(2.0), re_(3.0), pr(4.0, B), bad(5.0), timeout(6.0))
    objection = {"t": 8.0, "type": "objection", "seat": B}
    out = run(c2003(), *events, pause(7.0), objection, resume(9.0))
    assert brief(out, "score")[-1] == (8.0, "score", B, 20, 10)


def test_A_G_D1_a_pause_cannot_be_undone_but_what_was_done_during_it_can() -> None:
    line, message = refused(c2003(), pause(1.0), resume(2.0), {"t": 3.0, "type": "undo", "line": 2})
    assert line == 4 and "not a host command that can be undone" in message
    correction = {"t": 2.0, "type": "correction", "seat": B, "delta": 50, "reason": "спор"}
    undo = {"t": 3.0, "type": "undo", "line": 3}
    core, _ = rebuild(journal(c2003(), pause(1.0), correction, undo))
    core.finish([])
    assert core.snapshot()["scores"]["2"] == 0 and core.snapshot()["paused_at"] == S


# -- replay: the same decisions live and replayed; old journals as before ---------------------


def test_A_G_D1_a_journal_with_a_pause_replays_line_by_line_to_what_it_decided() -> None:
    """Fed line by line (as the live controller does) or replayed at once: the same."""
    events = (sel(1.0, 1, 10), rs(2.0), re_(3.0), pause(4.0), pr(5.0, C), resume(20.0),
              pr(22.0, B), ok(23.0))  # fmt: skip
    lines = journal(c2003(), *events)
    whole = [json.loads(x) for x in replay_lines(lines)]
    for cut in range(2, len(lines) + 1):
        _, decided = rebuild(lines[:cut])
        prefix = [json.loads(d.to_json()) for d in decided]
        assert prefix == whole[: len(prefix)]
    assert whole[-1]["scores"] == {"1": 0, "2": 10, "3": 0}


# -- C2003-2.4.6e: a special question's time to think runs from the end of its reading -------


STAKE_HEAD = c2003(
    board={"rounds": [{"name": "R", "themes": 2, "prices": [20, 40, 60, 80, 100]}]},
    specials=[{"round": 1, "theme": 1, "price": 80, "kind": "stake"}],
)
STAKE_WON = (
    {"t": 0.0, "type": "correction", "seat": A, "delta": 150, "reason": "setup"},
    sel(1.0, 1, 80),
    bid(2.0, A, 100),
)


def test_C2003_2_4_6e_the_time_to_think_starts_at_the_end_of_the_reading_not_the_hand_over() -> (
    None
):
    handed = snapshot(STAKE_HEAD, *STAKE_WON)
    assert handed["stage"] == "special" and handed["answering"] == A
    assert handed["special_deadline"] is None  # the host is still reading: no clock yet
    reading = snapshot(STAKE_HEAD, *STAKE_WON, rs(3.0))
    assert reading["special_deadline"] is None
    read = snapshot(STAKE_HEAD, *STAKE_WON, rs(3.0), re_(20.0))
    assert read["special_deadline"] == 30 * S  # C2003-2.4.6e: 10 s from the reading's end


@pytest.mark.parametrize(
    ("head", "events", "think"),
    [
        # the sponsor question (A.4: the buttons' answer time, 5 s)
        (
            tvm(specials=[{"round": 1, "theme": 1, "price": 300, "kind": "sponsor"}]),
            (sel(1.0, 1, 300),),
            5,
        ),
        # the cat in the bag (TV-S-CAT-3: 5 s)
        (
            tvm(specials=[{"round": 1, "theme": 1, "price": 500, "kind": "cat"}]),
            (sel(1.0, 1, 500), {"t": 2.0, "type": "cat_give", "seat": C},
             {"t": 3.0, "type": "cat_price", "price": 500}),
            5,
        ),
    ],
    ids=["sponsor", "cat"],
)  # fmt: skip
def test_C2003_2_4_6e_every_special_kind_thinks_from_the_reading_s_end(
    head: dict[str, Any], events: tuple[dict[str, Any], ...], think: int
) -> None:
    assert snapshot(head, *events)["special_deadline"] is None
    assert snapshot(head, *events, re_(40.0))["special_deadline"] == (40 + think) * S


def test_C2003_2_4_6e_the_special_is_read_once_and_judged_as_ever() -> None:
    line, message = refused(STAKE_HEAD, *STAKE_WON, re_(20.0), re_(21.0))
    assert line == 6 and "has been read" in message
    # A repeated reading_start while reading changes nothing, as for a plain question.
    out = run(STAKE_HEAD, *STAKE_WON, rs(3.0), rs(4.0), re_(20.0), ok(25.0))
    assert brief(out, "score")[-1] == (25.0, "score", A, 100, 250)
    # An old journal (no reading in the special stage) is judged as it always was.
    out = run(STAKE_HEAD, *STAKE_WON, bad(9.0))
    assert brief(out, "score")[-1] == (9.0, "score", A, -100, 50)


def test_A_G_D1_a_special_questions_time_to_think_stands_still_during_the_pause() -> None:
    events = (*STAKE_WON, re_(20.0), pause(22.0), resume(40.0))
    assert snapshot(STAKE_HEAD, *events)["special_deadline"] == 48 * S  # 8 s left at 22
