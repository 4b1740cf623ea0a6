"""The SQLite journal: durable appends, export, and survival of kill -9."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from buzzer.journal.store import JournalStore
from buzzer.replay import replay_lines
from tests.support.cli import svoyak_here_bytes

HEADER = {"type": "game", "rules": "championship-2003", "players": ["А", "Б", "В"], "chooser": 1}


def test_appended_lines_read_back_in_order(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite"
    with JournalStore(db) as store:
        assert store.append(HEADER) == 1
        assert store.append({"t": 1.0, "type": "select", "theme": 1, "price": 10}) == 2
    with JournalStore(db) as store:
        lines = list(store.lines())
    assert [json.loads(x)["type"] for x in lines] == ["game", "select"]
    assert json.loads(lines[0])["players"] == ["А", "Б", "В"]


def test_wal_and_full_sync_are_on(tmp_path: Path) -> None:
    with JournalStore(tmp_path / "g.sqlite") as store:
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_export_writes_json_lines_that_replay(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite"
    with JournalStore(db) as store:
        store.append(HEADER)
        for event in (
            {"t": 1.0, "type": "select", "theme": 1, "price": 10},
            {"t": 2.0, "type": "reading_start"},
            {"t": 3.0, "type": "reading_end"},
            {"t": 3.5, "type": "press", "seat": 2},
            {"t": 4.0, "type": "judge", "verdict": "correct"},
        ):
            store.append(event)
    out = tmp_path / "g.jsonl"
    proc = svoyak_here_bytes("journal", "export", db, out)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(replay_lines(out.read_text(encoding="utf-8").splitlines())[-1])
    assert result == {"type": "result", "scores": {"1": 0, "2": 10, "3": 0}, "chooser": 2}


def test_export_of_a_file_that_is_not_a_journal_fails_clearly(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.sqlite"
    bogus.write_bytes(b"this is not a database" * 100)
    proc = svoyak_here_bytes("journal", "export", bogus, tmp_path / "o")
    assert proc.returncode == 2
    assert b"not a svoyak journal" in proc.stderr
    assert not (tmp_path / "o").exists()


WRITER = """
import sys, json
from buzzer.journal.store import JournalStore
store = JournalStore(sys.argv[1])
store.append({"type": "game", "rules": "tv-modern", "players": ["a", "b", "c"], "chooser": 1})
i = 0
while True:
    i += 1
    store.append({"t": i / 1000, "type": "press", "seat": 1 + i % 3})
    print(i, flush=True)
"""


def test_every_acknowledged_append_survives_kill_9(tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    acknowledged = 0
    deadline = time.monotonic() + 30
    while acknowledged < 200 and time.monotonic() < deadline:
        acknowledged = int(proc.stdout.readline())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert acknowledged >= 200
    # The database opens cleanly and holds every acknowledged line, in order, and nothing torn.
    with JournalStore(db) as store:
        lines = list(store.lines())
    presses = [json.loads(x) for x in lines[1:]]
    assert len(presses) >= acknowledged
    assert [p["t"] for p in presses] == [i / 1000 for i in range(1, len(presses) + 1)]
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_replay_reads_a_sqlite_journal_directly(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite"
    with JournalStore(db) as store:
        store.append(HEADER)
        for event in (
            {"t": 1.0, "type": "select", "theme": 2, "price": 20},
            {"t": 2.0, "type": "reading_start"},
            {"t": 3.0, "type": "reading_end"},
            {"t": 3.5, "type": "press", "seat": 3},
            {"t": 4.0, "type": "judge", "verdict": "wrong"},
        ):
            store.append(event)
    proc = svoyak_here_bytes("replay", db)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.decode().splitlines()[-1])
    assert result == {"type": "result", "scores": {"1": 0, "2": 0, "3": -20}, "chooser": 1}
