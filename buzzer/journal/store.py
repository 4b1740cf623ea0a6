"""The crash-safe game journal: every input in a SQLite file before its effect.

The controller appends each input line *before* it is applied, so whatever
the board or the panel has shown is already on disk. SQLite in WAL mode with
``synchronous=FULL`` makes every committed append durable across a power cut
or a ``kill -9``; a half-written transaction is rolled back on the next
open, never read as a line. The lines are JOURNAL.md JSON Lines, so
``svoyak journal export`` is a plain copy and ``svoyak replay`` (or
``--resume``) rebuilds exactly the same state from them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq  INTEGER PRIMARY KEY,
    line TEXT NOT NULL
);
"""


class JournalStoreError(Exception):
    """The journal file cannot be used (not a journal, or unreadable)."""


class JournalStore:
    """Append-only JSON Lines in a SQLite file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise JournalStoreError(
                f"{self.path} is not a svoyak journal database: {exc}"
            ) from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> JournalStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        row = self._db.execute("SELECT COUNT(*) FROM journal").fetchone()
        return int(row[0])

    def append(self, record: dict[str, Any]) -> int:
        """Write one input durably; returns its 1-based line number."""
        return self.append_line(json.dumps(record, ensure_ascii=False))

    def append_line(self, line: str) -> int:
        """Write one JSON line durably (committed and synced when this returns)."""
        cursor = self._db.execute("INSERT INTO journal (line) VALUES (?)", (line,))
        seq = cursor.lastrowid
        assert seq is not None
        return seq

    def append_lines(self, lines: list[str]) -> int:
        """Write several lines in one transaction (one sync: a group commit);
        returns the line number of the last. All of them or none are durable."""
        if len(lines) == 1:
            return self.append_line(lines[0])
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany("INSERT INTO journal (line) VALUES (?)", [(x,) for x in lines])
            seq = db.execute("SELECT MAX(seq) FROM journal").fetchone()[0]
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return int(seq)

    def lines(self) -> Iterator[str]:
        """Every line, in the order written."""
        for (line,) in self._db.execute("SELECT line FROM journal ORDER BY seq"):
            yield line

    def export(self, target: Path) -> int:
        """Write the journal as a JSON Lines file; returns the number of lines."""
        count = 0
        tmp = target.with_name(target.name + ".part")
        with tmp.open("w", encoding="utf-8") as handle:
            for line in self.lines():
                handle.write(line + "\n")
                count += 1
        tmp.replace(target)
        return count
