"""The self-test's fairness check runs its presses through a live game, and can fail.

The presses go as in ``svoyak run``: the ButtonBank's callback thread
delivers them to the runtime's GPIO source, proven by
``ButtonBank.proven_until``; the runtime decides and journals them in a
real SQLite file; the check reads the decision where the panel does and
compares it with the *commanded* order. Each fault below is one a
technician could meet (a swapped cable, a stalled input thread, a slow
SD card), injected into the running path, and the report must say it.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockConnectedPin

from buzzer.arbiter.events import Press
from buzzer.journal.store import JournalStore
from hardware.buttons import ButtonEvent
from hardware.mockpins import mock_factory
from hardware.pinmap import load_pinmap
from hardware.selftest import Progress, Rig, RigSink, check_fairness, gpio_rig
from hardware.selftest_game import SelftestGame, board_for

PINS = "[players]\n1 = 17\n2 = 27\n[host]\nreading_start = 5\nreading_end = 6\n"
QUIET = Progress(1, sys.stderr, enabled=False)


def _rig(
    tmp_path: Path, loopback: str = "1 = 20\n2 = 21\n", wired: dict[int, int] | None = None
) -> Rig:
    """A GPIO rig on mock pins with the pin map's own loopback outputs, wired as ``wired``
    (output pin → input pin; default: as the pin map says)."""
    pins = tmp_path / "pins.toml"
    pins.write_text(PINS + "[timing]\nhold_off_ms = 10\n[selftest.loopback]\n" + loopback)
    pinmap = load_pinmap(pins)
    factory = mock_factory()
    for out_pin, in_pin in (wired or {20: 17, 21: 27}).items():
        factory.pin(out_pin, pin_class=MockConnectedPin, input_pin=factory.pin(in_pin))
    return gpio_rig(pinmap, factory, simulate=False, hold_off_ns=10_000_000)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    made = _rig(tmp_path)
    yield made
    made.close()


def test_the_earlier_press_wins_in_the_running_game_with_its_delivery_delay(rig: Rig) -> None:
    rows = check_fairness(rig, "tv-modern", ("1", "2"), (1000,), 4, QUIET)
    (row,) = rows
    assert (row.trials, row.first_won, row.second_won, row.late, row.early) == (4, 4, 0, 0, 0)
    assert row.ok
    # one delay per trial, from the earlier edge's stamp to the decision: positive
    assert len(row.delays_ns) == 4 and all(d > 0 for d in row.delays_ns)
    assert row.delay_ms()["max_ms"] == pytest.approx(max(row.delays_ns) / 1e6, abs=1e-3)


def test_a_swapped_cable_is_an_order_error_against_the_commanded_order(tmp_path: Path) -> None:
    """The pin map says output 20 presses seat 1, but its cable runs to seat 2's input:
    the stamps are right, the game is right, and the commanded order is not kept."""
    rig = _rig(tmp_path, wired={20: 27, 21: 17})
    try:
        (row,) = check_fairness(rig, "tv-modern", ("1", "2"), (1000,), 2, QUIET)
    finally:
        rig.close()
    assert (row.first_won, row.second_won) == (0, 2)
    assert not row.ok


def test_a_stalled_input_thread_makes_the_game_rule_presses_late(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The input thread stalls for 200 ms on every press and cannot prove its time
    meanwhile: the runtime waits its bound, goes on without the source, and rules the
    presses late when they come; the check says so and fails."""
    assert rig.bank is not None
    frozen = time.monotonic_ns()
    rig.bank.proven_until = lambda: frozen  # type: ignore[method-assign]
    rig.wait_bound_ns = 30_000_000
    deliver = RigSink.__call__

    def stalled(self: RigSink, event: ButtonEvent) -> None:
        if isinstance(event, Press):
            time.sleep(0.2)
        deliver(self, event)

    monkeypatch.setattr(RigSink, "__call__", stalled)
    (row,) = check_fairness(rig, "tv-modern", ("1", "2"), (1000,), 2, QUIET)
    assert row.late == 2 and row.first_won == 0
    assert not row.ok


def test_a_slow_disk_delays_the_decision_but_never_changes_it(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every journal write takes 40 ms (a worn SD card): the order holds, and the
    delivery delay the report gives includes the wait for the commit."""
    one, group = JournalStore.append_line, JournalStore.append_lines

    def append_line(self: JournalStore, line: str) -> int:
        time.sleep(0.04)
        return one(self, line)

    def append_lines(self: JournalStore, lines: list[str]) -> int:
        time.sleep(0.04)
        return group(self, lines)

    monkeypatch.setattr(JournalStore, "append_line", append_line)
    monkeypatch.setattr(JournalStore, "append_lines", append_lines)
    (row,) = check_fairness(rig, "tv-modern", ("1", "2"), (100,), 2, QUIET)
    assert (row.first_won, row.second_won, row.late, row.missed) == (2, 0, 0, 0)
    assert min(row.delays_ns) >= 40_000_000


def test_the_game_journals_what_the_input_thread_delivered(tmp_path: Path) -> None:
    """The self-test's game is a game: its SQLite journal replays the presses it decided."""
    game = SelftestGame("tv-modern", 2, 3, folder=tmp_path)
    try:
        sink = game.gpio_sink(time.monotonic_ns)
        trial = game.open_question()
        now = time.monotonic_ns()
        sink(Press(now + 2_000, 2))
        sink(Press(now, 1))  # delivered second, stamped first
        outcome = game.outcome(trial, (1, 2), 5.0)
        game.close_question(answered=outcome.winner is not None)
    finally:
        game.close()
    assert outcome.winner == 1 and not outcome.tie and outcome.decided_ns is not None
    with JournalStore(tmp_path / "selftest.sqlite", readonly=True) as store:
        lines = [json.loads(x) for x in store.lines()]
    assert lines[0]["rules"] == "tv-modern" and lines[0]["board"] == board_for(3)
    presses = [x["seat"] for x in lines if x.get("type") == "press"]
    assert sorted(presses) == [1, 2]


def test_the_board_has_a_cell_for_every_question() -> None:
    assert board_for(25)["rounds"] == [
        {"name": "R1", "themes": 3, "prices": [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]}
    ]
    rounds = board_for(1500)["rounds"]
    assert [r["themes"] for r in rounds] == [100, 50]


def test_a_question_the_game_moved_on_from_is_closed_by_what_it_is_now(tmp_path: Path) -> None:
    """On a starved machine a trial's wait may end before the game decides: the trial
    then says nobody answered, but a press that arrived after the wait has the floor.
    Closing the question must follow the game (judge the answerer), not stop the
    self-test with the refusal of a time-out (seen in a loaded run of the suite)."""
    game = SelftestGame("tv-modern", 2, 4, folder=tmp_path)
    try:
        game.open_question()
        deadline = time.monotonic() + 10
        while game.controller.snapshot()["phase"] != "open" and time.monotonic() < deadline:
            time.sleep(0.005)
        game.runtime.wait(game.runtime.clock_source("keyboard").put(lambda t: Press(t, 2)))
        while game.controller.snapshot()["answering"] != 2 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert game.controller.snapshot()["answering"] == 2
        game.close_question(answered=False)  # what the trial saw: nobody
        snapshot = game.controller.snapshot()
        assert snapshot["stage"] == "board" and snapshot["scores"]["2"] > 0
        assert game.open_question() == 2  # the self-test goes on
    finally:
        game.close()
