"""The journal fails mid-game: the runtime refuses, counts, tells, and goes on (issue 36).

Stepped by hand on a clock the test moves, with a real SQLite journal that
really answers SQLITE_FULL: ``PRAGMA max_page_count`` caps the file at the
pages it has, which is how SQLite itself says "database or disk is full"
(tests/buzzer/app/test_run_disk_full.py fills a real file system instead).
"""

from __future__ import annotations

import json
import logging
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from buzzer.arbiter.events import ReadingEnd, ReadingStart, Select
from buzzer.journal.store import JournalStore, JournalWriteError
from buzzer.panel.demo import demo_header
from buzzer.replay import replay_lines
from buzzer.runtime.controller import Controller
from buzzer.runtime.journal_outage import JOURNAL_SOURCE, PROBE_EVERY_NS, JournalOutage
from buzzer.runtime.runtime import Runtime

MS = 1_000_000


class Clock:
    def __init__(self) -> None:
        self.ns = 10**11

    def __call__(self) -> int:
        return self.ns


def capped(store: JournalStore, full: bool) -> None:
    """Cap the file at the pages it has (SQLITE_FULL on the next page), or lift the cap."""
    db = store._db  # the store's own connection: the cap is per connection
    pages = int(db.execute("PRAGMA page_count").fetchone()[0])
    db.execute(f"PRAGMA max_page_count = {pages if full else 2**30}")


def failure(future: Future[Any]) -> BaseException | None:
    assert future.done()
    return future.exception()


@pytest.fixture
def game(tmp_path: Path) -> tuple[Runtime, JournalStore, Clock, list[tuple[str, int, bool]]]:
    clock = Clock()
    store = JournalStore(tmp_path / "game.sqlite")
    header = {**demo_header("tv-modern"), "settle_ms": 0}
    runtime = Runtime(Controller.new(header, store, clock))
    told: list[tuple[str, int, bool]] = []
    runtime.on_journal(lambda o, back: told.append((o.why, o.lost, back)))
    return runtime, store, clock, told


def test_a_write_on_a_full_file_names_the_cause_and_the_last_line(tmp_path: Path) -> None:
    store = JournalStore(tmp_path / "game.sqlite")
    store.append_line('{"type": "game"}')
    capped(store, full=True)
    big = json.dumps({"type": "tick", "t": 1.0, "pad": "x" * 20_000})
    for lines in ([big], [big, big]):  # one line, and a group commit
        with pytest.raises(JournalWriteError) as caught:
            store.append_lines(lines)
        error = caught.value
        assert (error.why, error.recorded) == ("full", 1)
        assert "the journal's disk is full" in str(error)
        assert "nothing after line 1 was recorded" in str(error)
        assert "rollback" not in str(error) and "transaction" not in str(error)
        assert len(store) == 1
    capped(store, full=False)
    assert store.append_lines([big, big]) == 3


def test_inputs_the_journal_cannot_hold_are_refused_counted_and_the_game_goes_on(
    game: tuple[Runtime, JournalStore, Clock, list[tuple[str, int, bool]]],
    caplog: pytest.LogCaptureFixture,
) -> None:
    runtime, store, clock, told = game
    # The file capped at its pages: presses on the board (they decide nothing) fill
    # its last page until one needs a new page and fails.
    capped(store, full=True)
    with caplog.at_level(logging.WARNING):
        for _ in range(1000):
            press = runtime.press(1)
            runtime.step()
            if failure(press) is not None:
                break
        assert isinstance(failure(press), JournalWriteError)
        before = len(store)
        command = runtime.command(lambda t: Select(t, 1, 100))
        runtime.step()
        assert isinstance(failure(command), JournalWriteError)
        outage = runtime.outage
        assert isinstance(outage, JournalOutage)
        assert (outage.why, outage.recorded) == ("full", before)
        assert (outage.presses, outage.commands) == (1, 1)
        assert runtime.stats.not_journaled == 2
        assert told == [("full", 1, False), ("full", 2, False)]
        assert runtime.controller.snapshot()["stage"] == "board"  # nothing applied
        assert len(store) == before

        # No new input: the runtime tries again only every PROBE_EVERY_NS.
        clock.ns += PROBE_EVERY_NS // 2
        assert runtime.step() == 0 and runtime.outage is outage
        capped(store, full=False)  # space is freed
        assert runtime.step() == 0 and runtime.outage is outage  # not yet time to try
        clock.ns += PROBE_EVERY_NS
        runtime.step()
        assert runtime.outage is None
        assert told[-1] == ("full", 2, True)
    assert [r.getMessage().count("disk is full") for r in caplog.records].count(1) == 1
    assert not any(r.exc_info for r in caplog.records), "no traceback"

    # The journal says what it did not record, and the game goes on.
    line = json.loads(list(store.lines())[-1])
    assert (line["type"], line["source"], line["state"]) == ("fault", JOURNAL_SOURCE, "back")
    assert f"after line {before} (full): 1 presses, 0 releases, 1 host commands" in line["detail"]
    assert runtime.wait(runtime.command(lambda t: Select(t, 1, 100)))
    assert runtime.wait(runtime.command(lambda t: ReadingStart(t)))
    assert runtime.wait(runtime.command(lambda t: ReadingEnd(t)))
    clock.ns += MS
    accepted = runtime.wait(runtime.press(3))
    assert any(d.to_json().find('"recognized"') > 0 for d in accepted.decisions)
    live = runtime.controller.snapshot()
    replayed = json.loads(replay_lines(list(store.lines()))[-1])
    assert live["answering"] == 3 and replayed["type"] == "result"
