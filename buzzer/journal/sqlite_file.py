"""The one SQLite setup of svoyak's files: the game journal (:mod:`buzzer.journal.store`)
and the tournament's database (:mod:`buzzer.tournament.store`, which the tournament
server goes through).

It lives beside the journal store, in the storage layer, so that both stores
(the tournament sits above the journal) take it from one place:

* **opening** by URI (:func:`connect`): ``mode=ro`` never writes the file,
  ``mode=rw`` never creates one (a missing file is an error, never an empty
  database), ``mode=rwc`` only where a new file is meant; ``immutable`` reads
  a file as it is, without even a ``-shm`` beside it. Autocommit
  (``isolation_level=None``): every change is in an explicit :func:`transaction`.
* **the header without SQLite** (:func:`read_header`,
  :func:`header_application_id`): a file can be refused before SQLite has
  touched it, so another program's file keeps its bytes and its mtime.
* **durability** (:func:`make_durable`): WAL with ``synchronous=FULL``, so a
  committed transaction survives a power cut or a ``kill -9``.
* **whose file it is** (:func:`application_id`, :func:`stamp`): ``PRAGMA
  application_id`` read, and set only when it differs.
* **transactions** (:func:`transaction`): ``BEGIN IMMEDIATE`` … ``COMMIT``, all
  of it or none of it.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Literal
from urllib.parse import quote

#: The first 16 bytes of every SQLite file.
SQLITE_MAGIC = b"SQLite format 3\x00"
#: The SQLite header's size: the page size, counts and the application_id are in it.
HEADER_SIZE = 100

Mode = Literal["ro", "rw", "rwc"]


def uri(path: str | Path, mode: Mode, *, immutable: bool = False) -> str:
    """The ``file:`` URI of ``path`` (absolute, quoted) opened with ``mode``."""
    target = quote(str(Path(path).absolute()))
    return f"file:{target}?mode={mode}" + ("&immutable=1" if immutable else "")


def connect(
    path: str | Path,
    mode: Mode,
    *,
    immutable: bool = False,
    timeout: float = 5.0,
    check_same_thread: bool = True,
) -> sqlite3.Connection:
    """A connection in autocommit mode (changes only in :func:`transaction`).

    ``ro``: reads only; ``rw``: the file must exist; ``rwc``: made if missing.
    ``immutable`` (with ``ro``): the file is read as it is, no ``-shm`` made (a
    read-only folder, or another program's file), so lines still in its ``-wal``
    are not seen.
    """
    return sqlite3.connect(
        uri(path, mode, immutable=immutable),
        uri=True,
        isolation_level=None,
        timeout=timeout,
        check_same_thread=check_same_thread,
    )


def read_header(path: str | Path) -> bytes:
    """The file's first :data:`HEADER_SIZE` bytes (fewer if it is shorter), read without
    SQLite; ``OSError`` as the file system says it."""
    with open(path, "rb") as handle:
        return handle.read(HEADER_SIZE)


def is_sqlite(head: bytes) -> bool:
    return head.startswith(SQLITE_MAGIC)


def header_application_id(head: bytes) -> int:
    """The header's ``application_id`` (bytes 68–71, big-endian)."""
    return int.from_bytes(head[68:72], "big")


def wal_pending(path: str | Path) -> bool:
    """Whether ``NAME-wal`` beside the file holds anything (committed lines may wait there)."""
    path = Path(path)
    wal = path.with_name(path.name + "-wal")
    return wal.exists() and wal.stat().st_size > 0


def make_durable(db: sqlite3.Connection) -> None:
    """WAL, and every commit synced (``synchronous=FULL``)."""
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")


def application_id(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA application_id").fetchone()[0])


def stamp(db: sqlite3.Connection, app_id: int) -> None:
    """Set ``PRAGMA application_id`` to ``app_id`` if it is not that already."""
    if application_id(db) != app_id:
        db.execute(f"PRAGMA application_id = {int(app_id)}")


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` (the write lock at once), ``COMMIT`` when the block ends; on
    an exception (a failed ``COMMIT`` too) ``ROLLBACK``, but only if a transaction is
    still open: SQLite rolls back by itself on a full disk, and a ``ROLLBACK`` then
    would fail with words that hide why ("no transaction is active")."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
        raise
