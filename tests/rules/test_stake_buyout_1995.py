"""TV-H-1995-01: from Jan 1995 to Aug 1996 the others buy a stake question by
pressing the button, each bid opening a press window (DEFAULT 3 s).

The first press in the window (by its stamp; an exact tie by the journaled
draw) gets the floor and must bid higher; nobody pressing in time ends the
bidding and the leader plays; a bid above an opponent's score cuts that
opponent off. Outcomes worked out from the rules reference, not the code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from buzzer.arbiter.events import Bid, Press, Select
from buzzer.journal.codec import JournalError
from buzzer.journal.store import JournalStore
from buzzer.replay import replay_lines
from buzzer.replay_summary import replay_summary
from buzzer.runtime.controller import Controller
from buzzer.runtime.runtime import Accepted, Runtime
from tests.conftest import of_type, run
from tests.support.cli import svoyak_here_bytes
from tests.support.lines import bid, ok, pr
from tests.support.paths import REPO

A, B, C = 1, 2, 3
MS = 1_000_000
S = 1_000_000_000
PLAYERS = ["A", "B", "C"]


def head(date: str = "1995-06-01") -> dict[str, Any]:
    # TV-94 start at 50; the stake question is cell (1, 30) of the Blue round.
    return {
        "rules": "tv-1994",
        "date": date,
        "players": PLAYERS,
        "chooser": A,
        "specials": [{"round": 1, "theme": 1, "price": 30, "kind": "stake"}],
    }


def sel(t: float) -> dict[str, Any]:
    return {"t": t, "type": "select", "theme": 1, "price": 30}


def pas(t: float, seat: int) -> dict[str, Any]:
    return {"t": t, "type": "pass", "seat": seat}


def draw(t: float, seats: list[int], winner: int) -> dict[str, Any]:
    return {"t": t, "type": "draw", "seats": seats, "winner": winner}


def scores(a: int, b: int, c: int, start: int = 50) -> list[dict[str, Any]]:
    """Corrections at t = 0 from the era's start score to a, b, c."""
    return [
        {"t": 0.0, "type": "correction", "seat": seat, "delta": want - start, "reason": "setup"}
        for seat, want in ((A, a), (B, b), (C, c))
        if want != start
    ]


def brief(out: list[dict[str, Any]], *types: str) -> list[tuple[Any, ...]]:
    """(t, type, seat-or-closes_at, ...) of the lines of ``types``, in order."""
    rows = []
    for o in of_type(out, *types):
        rest = tuple(v for k, v in o.items() if k not in ("t", "type"))
        rows.append((o["t"], o["type"], *rest))
    return rows


def rejected(*events: dict[str, Any]) -> tuple[int, str]:
    with pytest.raises(JournalError) as info:
        run(head(), *events)
    return info.value.line, str(info.value)


SETUP = (*scores(50, 90, 150), sel(1.0), bid(2.0, A, 30))  # lines 2-3, 4, 5


def test_TV_H_1995_01_the_opening_bid_opens_a_three_second_buy_window() -> None:
    out = run(head(), *SETUP)
    assert brief(out, "buy_window", "window_opened") == [
        (2.0, "buy_window", [B, C], 5.0),
        (2.0, "window_opened", 5.0),
    ]
    snapshot_buyers = of_type(out, "bid_turn")
    assert snapshot_buyers == []  # nobody's turn: whoever presses first


def test_TV_H_1995_01_nobody_presses_in_time_the_opener_plays() -> None:
    out = run(head(), *SETUP, ok(9.0))
    rows = brief(out, "window_closed", "pass", "stake_won", "recognized", "score")
    assert [row for row in rows if row[0] >= 1.0] == [
        (5.0, "window_closed"),
        (5.0, "pass", B, True),
        (5.0, "pass", C, True),
        (5.0, "stake_won", A, 30),
        (5.0, "recognized", A),
        (9.0, "score", A, 30, 80),
    ]


def test_TV_H_1995_01_the_first_press_buys_by_its_stamp_and_the_second_learns_its_margin() -> None:
    out = run(head(), *SETUP, pr(2.8, C), pr(2.8001, B), bid(3.5, C, 60))
    assert brief(out, "bid_claim", "ignored") == [
        (2.8, "bid_claim", C),
        (2.8001, "ignored", B, "someone_answering", 100),
    ]
    assert brief(out, "bid")[-1] == (3.5, "bid", C, 60, False)
    # The raise opens a fresh window for the rest; A (50) is cut off by 60.
    assert brief(out, "buy_window")[-1] == (3.5, "buy_window", [B], 6.5)
    assert (3.5, "pass", A, True) in brief(out, "pass")


def test_TV_H_1995_01_an_outbid_player_who_is_not_all_in_may_re_raise() -> None:
    out = run(head(), *scores(120, 90, 150), sel(1.0), bid(2.0, A, 30), pr(2.5, C), bid(3.0, C, 60))
    assert brief(out, "buy_window")[-1] == (3.0, "buy_window", [A, B], 6.0)
    out = run(
        head(),
        *scores(120, 90, 150),
        sel(1.0),
        bid(2.0, A, 30),
        pr(2.5, C),
        bid(3.0, C, 60),
        pr(3.2, A),
        bid(3.5, A, 100),
    )
    assert brief(out, "bid_claim") == [(2.5, "bid_claim", C), (3.2, "bid_claim", A)]
    assert brief(out, "buy_window")[-1] == (3.5, "buy_window", [C], 6.5)


def test_TV_H_1995_01_a_press_at_the_windows_end_is_in_time_one_after_is_not() -> None:
    on_time = run(head(), *SETUP, pr(5.0, B), bid(6.0, B, 40))
    assert brief(on_time, "bid_claim") == [(5.0, "bid_claim", B)]
    late = run(head(), *SETUP, pr(5.000001, B), ok(9.0))
    assert brief(late, "bid_claim") == []
    assert brief(late, "stake_won") == [(5.0, "stake_won", A, 30)]
    assert (5.000001, "ignored", B, "window_closed") in brief(late, "ignored")


def test_TV_H_1995_01_the_leader_and_players_at_or_below_the_bid_cannot_press() -> None:
    # B at 30 cannot beat a bid of 30 (cut-off); A holds the bid.
    out = run(head(), *scores(50, 30, 150), sel(1.0), bid(2.0, A, 30), pr(2.5, A), pr(2.6, B))
    assert brief(out, "pass") == [(2.0, "pass", B, True)]
    assert brief(out, "ignored") == [
        (2.5, "ignored", A, "not_eligible"),
        (2.6, "ignored", B, "not_eligible"),
    ]
    assert brief(out, "buy_window") == [(2.0, "buy_window", [C], 5.0)]


def test_TV_H_1995_01_a_bid_above_every_opponents_score_ends_the_bidding() -> None:
    # C presses and bids 100: A (50) and B (90) are cut off at once.
    out = run(head(), *SETUP, pr(2.5, C), bid(3.0, C, 100))
    assert brief(out, "pass", "stake_won", "recognized") == [
        (3.0, "pass", A, True),
        (3.0, "pass", B, True),
        (3.0, "stake_won", C, 100),
        (3.0, "recognized", C),
    ]
    assert of_type(out, "buy_window")[-1]["t"] == 2.0  # no window after the cut-off


def test_TV_H_1995_01_an_all_in_is_bought_by_any_larger_sum_and_its_author_leaves() -> None:
    out = run(head(), *SETUP[:-1], bid(2.0, A, 50), pr(2.4, B), bid(3.0, B, 60), ok(9.0))
    assert brief(out, "bid") == [(2.0, "bid", A, 50, True), (3.0, "bid", B, 60, False)]
    assert (3.0, "pass", A, True) in brief(out, "pass")
    assert brief(out, "buy_window")[-1] == (3.0, "buy_window", [C], 6.0)
    assert brief(out, "stake_won") == [(6.0, "stake_won", B, 60)]


def test_TV_H_1995_01_an_exact_tie_goes_to_the_journaled_draw() -> None:
    for winner in (B, C):
        events = (*SETUP, pr(3.0, B), pr(3.0, C), draw(3.0, [B, C], winner))
        out = run(head(), *events)
        assert brief(out, "bid_claim") == [(3.0, "bid_claim", winner)]
        loser = C if winner == B else B
        assert (3.0, "ignored", loser, "lost_draw", 0) in brief(out, "ignored")


def test_TV_H_1995_01_a_bid_needs_the_floor_first() -> None:
    line, message = rejected(*SETUP, bid(3.0, B, 40))
    assert line == 6
    assert "presses the button first (TV-H-1995-01)" in message
    line, message = rejected(*SETUP, pr(2.5, C), bid(3.0, B, 40))
    assert line == 7
    assert "seat 3's turn" in message


def test_TV_H_1995_01_the_floor_holder_may_pass_and_a_fresh_window_opens() -> None:
    out = run(head(), *SETUP, pr(2.5, C), pas(3.0, C), pr(3.5, B), bid(4.0, B, 40))
    assert brief(out, "buy_window") == [
        (2.0, "buy_window", [B, C], 5.0),
        (3.0, "buy_window", [B], 6.0),
        (4.0, "buy_window", [A], 7.0),
    ]
    assert brief(out, "bid_claim") == [(2.5, "bid_claim", C), (3.5, "bid_claim", B)]


def test_TV_H_1995_01_a_pass_while_the_window_runs_keeps_its_end() -> None:
    out = run(head(), *SETUP, pas(3.0, B), pr(3.5, B), ok(9.0))
    assert brief(out, "buy_window") == [(2.0, "buy_window", [B, C], 5.0)]
    assert (3.5, "ignored", B, "not_eligible") in brief(out, "ignored")
    assert brief(out, "stake_won") == [(5.0, "stake_won", A, 30)]


def test_TV_H_1996_09_the_button_is_gone_bidding_by_turns() -> None:
    out = run(head("1996-09-01"), *scores(50, 90, 150, start=0), sel(1.0), bid(2.0, A, 30))
    assert of_type(out, "buy_window") == []
    assert brief(out, "bid_turn") == [(2.0, "bid_turn", B)]


def test_TV_H_1995_01_a_press_before_jan_1995_is_not_a_purchase() -> None:
    # TV-94-OWN: only the opener stakes; the question is read at once.
    out = run(head("1994-12-31"), *scores(50, 90, 150), sel(1.0), bid(2.0, A, 30), pr(2.5, B))
    assert of_type(out, "buy_window", "bid_claim") == []
    assert brief(out, "stake_won") == [(2.0, "stake_won", A, 30)]


# -- the readable account and the shipped example -----------------------------------------

EXAMPLE = REPO / "examples" / "tv-1995-stake-buyout.jsonl"


def journal_lines(*events: dict[str, Any]) -> list[str]:
    return [json.dumps({"type": "game", **head()}), *(json.dumps(e) for e in events)]


def test_TV_H_1995_01_the_summary_tells_who_pressed_first_to_buy_and_by_how_much() -> None:
    text = replay_summary(journal_lines(*SETUP, pr(2.8, C), pr(2.8001, B), bid(3.5, C, 60)))
    assert "покупка кнопкой — первое нажатие: C в 2.8 с; отрыв от второго: 100 мкс (B)" in text
    assert "сигнал" not in text  # a buy window is not the signal after a reading
    english = replay_summary(journal_lines(*SETUP, ok(9.0)), lang="en")
    assert "nobody pressed: the buy window closed at 5.0 s" in english
    assert "A plays for 30" in english


def test_TV_H_1995_01_the_example_journal_replays_the_buy_out() -> None:
    done = svoyak_here_bytes("replay", EXAMPLE)
    assert done.returncode == 0, done.stderr.decode()
    out = [json.loads(x) for x in done.stdout.decode().splitlines()]
    assert brief(out, "bid_claim", "stake_won") == [
        (35.2, "bid_claim", C),
        (38.1, "bid_claim", B),
        (39.0, "stake_won", B, 90),
    ]
    assert (35.2004, "ignored", A, "someone_answering", 400) in brief(out, "ignored")


# -- through the live runtime: the buy press decided by its stamp, the window by the clock --


class _Clock:
    def __init__(self) -> None:
        self.ns = 100 * S

    def __call__(self) -> int:
        return self.ns


class _Pins:
    """A press source whose deliveries and proven time the test controls."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.name = "pins"
        self.mark: int | None = None
        runtime.add_source(self)

    def watermark(self) -> int | None:
        return self.mark


def _live(tmp_path: Path) -> tuple[_Clock, Controller, Runtime, _Pins, JournalStore]:
    clock = _Clock()
    store = JournalStore(tmp_path / "game.sqlite")
    header = {"type": "game", **head(), "settle_ms": 0}
    controller = Controller.new(header, store, clock)
    runtime = Runtime(controller, wait_bound_ns=60 * S)
    return clock, controller, runtime, _Pins(runtime), store


def _host(clock: _Clock, controller: Controller, runtime: Runtime, pins: _Pins, make: Any) -> int:
    future = runtime.command(make)
    pins.mark = controller.now() + 1
    assert isinstance(runtime.wait(future), Accepted)
    return controller.now()


def test_TV_H_1995_01_live_the_earlier_stamped_buy_press_wins_though_its_bytes_came_last(
    tmp_path: Path,
) -> None:
    clock, controller, runtime, pins, store = _live(tmp_path)
    _host(clock, controller, runtime, pins, lambda t: Select(t, 1, 30))
    clock.ns += 1 * S
    opened = _host(clock, controller, runtime, pins, lambda t: Bid(t, A, 30))
    assert sorted(controller.snapshot()["bidding"]["buyers"]) == [B, C]
    clock.ns += 500 * MS
    runtime.deliver(pins, Press(opened + 400 * MS, B))  # B's bytes first, pressed later
    pins.mark = opened + 300 * MS
    runtime.step()
    assert controller.snapshot()["bidding"]["turn"] is None  # held: C may be on its way
    runtime.deliver(pins, Press(opened + 250 * MS, C))
    pins.mark = controller.now()
    runtime.step()
    assert controller.snapshot()["bidding"]["turn"] == C
    replayed = [json.loads(x) for x in replay_lines(list(store.lines()))]
    assert brief(replayed, "bid_claim") == [(round((opened + 250 * MS) / S, 9), "bid_claim", C)]


def test_TV_H_1995_01_live_the_buy_window_ends_on_the_clock_and_the_journal_replays_it(
    tmp_path: Path,
) -> None:
    clock, controller, runtime, pins, store = _live(tmp_path)
    _host(clock, controller, runtime, pins, lambda t: Select(t, 1, 30))
    clock.ns += 1 * S
    opened = _host(clock, controller, runtime, pins, lambda t: Bid(t, A, 30))
    clock.ns += 4 * S
    pins.mark = controller.now()
    runtime.step()
    snapshot = controller.snapshot()
    assert snapshot["stage"] == "special" and snapshot["answering"] == A
    journal = list(store.lines())
    assert any('"tick"' in line for line in journal)  # the window's end, journaled
    replayed = [json.loads(x) for x in replay_lines(journal)]
    assert brief(replayed, "stake_won") == [(round((opened + 3 * S) / S, 9), "stake_won", A, 30)]
