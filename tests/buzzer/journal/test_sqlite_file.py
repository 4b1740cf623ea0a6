"""The one SQLite setup (buzzer/journal/sqlite_file.py) the journal and tournament stores share."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from buzzer.journal import sqlite_file


def _made(path: Path, app_id: int = 0) -> None:
    db = sqlite_file.connect(path, "rwc")
    db.execute("CREATE TABLE t (x INTEGER)")
    sqlite_file.stamp(db, app_id)
    db.close()


def test_rw_and_ro_never_create_a_file(tmp_path: Path) -> None:
    for mode in ("rw", "ro"):
        with pytest.raises(sqlite3.OperationalError):
            sqlite_file.connect(tmp_path / "missing.sqlite", mode)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_the_header_says_the_application_id_without_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite"
    _made(path, 0x5356544E)
    head = sqlite_file.read_header(path)
    assert sqlite_file.is_sqlite(head)
    assert sqlite_file.header_application_id(head) == 0x5356544E
    assert not sqlite_file.is_sqlite(b"")


def test_an_immutable_read_makes_no_file_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite"
    _made(path, 7)
    before = path.read_bytes(), path.stat().st_mtime_ns
    db = sqlite_file.connect(path, "ro", immutable=True)
    assert sqlite_file.application_id(db) == 7
    db.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.sqlite"]
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_durable_is_wal_with_full_sync_and_stamp_writes_only_a_difference(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite"
    _made(path)
    db = sqlite_file.connect(path, "rw")
    sqlite_file.make_durable(db)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2
    changes = db.total_changes
    sqlite_file.stamp(db, 0)
    assert db.total_changes == changes
    sqlite_file.stamp(db, 42)
    assert sqlite_file.application_id(db) == 42
    db.close()


def test_a_transaction_is_all_or_nothing(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite"
    _made(path)
    db = sqlite_file.connect(path, "rw")
    with sqlite_file.transaction(db):
        db.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(RuntimeError), sqlite_file.transaction(db):
        db.execute("INSERT INTO t VALUES (2)")
        raise RuntimeError("refused")
    assert not db.in_transaction
    assert db.execute("SELECT x FROM t").fetchall() == [(1,)]
    db.close()


def test_a_transaction_sqlite_already_ended_keeps_the_first_error(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite"
    _made(path)
    db = sqlite_file.connect(path, "rw")
    with pytest.raises(ValueError, match="the cause"), sqlite_file.transaction(db):
        db.execute("ROLLBACK")  # as SQLite does by itself on a full disk
        raise ValueError("the cause")
    assert not db.in_transaction
    db.close()
