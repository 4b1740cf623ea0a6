"""The crash-safe game journal: every input in a SQLite file before its effect.

The controller appends each input line *before* it is applied, so whatever
the board or the panel has shown is already on disk. SQLite in WAL mode with
``synchronous=FULL`` makes every committed append durable across a power cut
or a ``kill -9``; a half-written transaction is rolled back on the next
open, never read as a line. The lines are docs/journal-contract.md JSON Lines, so
``svoyak journal export`` is a plain copy and ``svoyak replay`` (or
``--resume``) rebuilds exactly the same state from them.

A bad disk never costs a game. The file is checked before
anything is written to it: its SQLite header (a file cut short), its
schema and ``application_id`` (another program's database is refused, not
given a table), ``PRAGMA quick_check`` (a damaged page), and, when the
journal is to be written, whether the file and its folder can be written
(SQLite keeps ``NAME-wal`` and ``NAME-shm`` beside it). Every refusal is
one :class:`JournalStoreError` line that names the file and says what the
technician can do, and leaves the file byte for byte as it was.
``readonly=True`` (``svoyak replay``, ``journal export``) never writes at
all; ``resume=True`` (``svoyak run --resume``) refuses a file that holds
no game instead of starting a new one in it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from buzzer.errors import SvoyakError
from buzzer.journal import sqlite_file
from buzzer.journal.seal import GENESIS, chain, with_link

#: ``PRAGMA application_id`` of a svoyak journal ("SVJK"). Journals written
#: before it existed have 0 and exactly the one ``journal`` table.
APPLICATION_ID = 0x53564A4B

#: ``link``: the line's link in the journal's seal (``buzzer/journal/seal.py``).
#: Journals from before the seal have no such column and stay unsealed.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    seq  INTEGER PRIMARY KEY,
    line TEXT NOT NULL,
    link TEXT
);
"""
_COLUMNS = [("seq", "INTEGER", 1), ("line", "TEXT", 0)]
_SEALED_COLUMNS = [*_COLUMNS, ("link", "TEXT", 0)]


class JournalStoreError(SvoyakError):
    """The journal file cannot be used; the message names it and says what to do."""


#: Why a write failed, as the panel and the log say it (``JournalWriteError.why``).
WRITE_FAILURES = ("full", "readonly", "io", "other")


class JournalWriteError(JournalStoreError):
    """A line could not be written mid-game (a full disk, a disk gone read-only or
    failing): nothing of it reached the journal.

    SQLite's own words on such a failure are no help to a host ("cannot
    rollback - no transaction is active" hides "database or disk is full"),
    so the store names the cause (``why``: one of :data:`WRITE_FAILURES`)
    and the last line that *is* on disk (``recorded``). The game can go on
    once the cause is gone: the next write simply succeeds (docs/journal.md).
    """

    def __init__(self, path: Path, why: str, recorded: int, detail: str) -> None:
        self.path = path
        self.why = why
        self.recorded = recorded
        self.detail = detail
        super().__init__(self._sentence())

    def _sentence(self) -> str:
        after = (
            f"nothing after line {self.recorded} was recorded"
            if self.recorded >= 0
            else "the lines after the last one written were not recorded"
        )
        if self.why == "full":
            return (
                f"the journal's disk is full ({self.path}): {after}; free space on that "
                "disk, and the game goes on (no restart needed)"
            )
        if self.why == "readonly":
            return (
                f"the journal's disk became read-only ({self.path}): {after}; the disk may be "
                "failing: keep the journal, and remount the disk writable or replace it"
            )
        return (
            f"the journal could not be written ({self.path}: {self.detail}): {after}; check "
            "the disk (is it still attached?), and the game goes on once writing works again"
        )


class JournalStore:
    """Append-only JSON Lines in a SQLite file."""

    def __init__(self, path: str | Path, *, readonly: bool = False, resume: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        #: Whether the journal keeps the seal's links (False: one from before the seal).
        self.sealed = True
        self._db = self._open(resume)
        #: The link of the last line written: the next line's is chained to it.
        self._last_link = self._read_last_link() if self.sealed else None

    # -- opening -----------------------------------------------------------

    def _open(self, resume: bool) -> sqlite3.Connection:
        path = self.path
        try:
            info: os.stat_result | None = path.stat()
        except FileNotFoundError:
            info = None
        except OSError as exc:
            raise JournalStoreError(
                f"cannot reach the journal {path}: {exc.strerror}; check the path and its "
                "folders' permissions"
            ) from None
        if info is not None and not stat.S_ISREG(info.st_mode):
            raise JournalStoreError(
                f"{path} is not a journal file (it is a folder or a device): give the path "
                "of a game's .sqlite file"
            )
        if info is None:
            if self.readonly:
                raise JournalStoreError(
                    f"no such journal: {path}; check the path (journals are named "
                    "game-DATE-TIME.sqlite)"
                )
            # A new journal (the appliance's first --resume too): made whole
            # beside it and renamed into place, so that a crash leaves either no
            # file or an empty journal, never a 0-byte or half-made one.
            self._check_folder(creating=True)
            info = self._create()
        elif info.st_size == 0:
            if self.readonly or resume:
                raise JournalStoreError(self._no_game("the file is empty"))
        else:
            self._check_header(info.st_size)
        if not self.readonly:
            if not os.access(path, os.W_OK):
                raise JournalStoreError(
                    f"cannot write the journal {path}: the file is read-only; make it "
                    f"writable (chmod u+w {path}), or copy it to a writable folder and resume "
                    "the copy (svoyak run --resume --journal COPY)"
                )
            self._check_folder(creating=False)
        db = self._connect()
        try:
            fresh = self._inspect(db)
            if fresh and (self.readonly or resume):
                raise JournalStoreError(self._no_game("it holds no game"))
            if not fresh:
                self._quick_check(db)
            if not self.readonly:
                self._prepare(db, fresh)
        except sqlite3.DatabaseError as exc:
            db.close()
            raise JournalStoreError(self._explain(exc)) from None
        except BaseException:
            db.close()
            raise
        return db

    def _create(self) -> os.stat_result:
        path = self.path
        tmp = path.with_name(f".{path.name}.{os.getpid()}.new")
        try:
            db = sqlite_file.connect(tmp, "rwc")
            try:
                db.execute("PRAGMA journal_mode=WAL")
                sqlite_file.stamp(db, APPLICATION_ID)
                db.executescript(_SCHEMA)
            finally:
                db.close()
            with tmp.open("rb+") as handle:
                os.fsync(handle.fileno())
            os.replace(tmp, path)
            folder = os.open(path.absolute().parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
            return path.stat()
        except (OSError, sqlite3.Error) as exc:
            for leftover in (
                tmp,
                tmp.with_name(tmp.name + "-wal"),
                tmp.with_name(tmp.name + "-shm"),
            ):
                with contextlib.suppress(OSError):
                    leftover.unlink()
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            raise JournalStoreError(
                f"cannot create the journal {path} ({reason}); check the disk (is it full or "
                "read-only?), or give the journal another place (--journal PATH)"
            ) from None

    def _no_game(self, why: str) -> str:
        return (
            f"the journal {self.path} holds no game to resume ({why}); to start a new game "
            "run without --resume, or give --journal the game's own file"
        )

    def _damaged(self, detail: str) -> str:
        return (
            f"the journal {self.path} is damaged ({detail}); it was left unchanged: keep it, "
            f"save what it still holds with `sqlite3 {self.path} .recover > recovered.sql`, "
            "and go on with a new journal"
        )

    def _not_a_journal(self, detail: str) -> str:
        return (
            f"{self.path} is not a svoyak journal ({detail}); it was left unchanged: give "
            "the game's own journal, or a new file name for a new game"
        )

    def _check_folder(self, *, creating: bool) -> None:
        folder = self.path.absolute().parent
        if not folder.is_dir():
            raise JournalStoreError(
                f"cannot create the journal {self.path}: the folder {folder} does not exist; "
                "create it, or choose another place for the journal"
            )
        if not os.access(folder, os.W_OK | os.X_OK):
            if creating:
                raise JournalStoreError(
                    f"cannot create the journal {self.path}: its folder {folder} is read-only; "
                    "make the folder writable, or give the journal another place "
                    "(--journal PATH)"
                )
            raise JournalStoreError(
                f"cannot write the journal {self.path}: its folder {folder} is read-only "
                f"(SQLite keeps {self.path.name}-wal and -shm beside the journal); make the "
                "folder writable, or copy the journal to a writable folder and use the copy"
            )

    def _check_header(self, size: int) -> None:
        """The first 100 bytes: an SQLite file, whole pages, not shorter than it says."""
        try:
            head = sqlite_file.read_header(self.path)
        except OSError as exc:
            raise JournalStoreError(
                f"cannot read the journal {self.path}: {exc.strerror}; check its permissions"
            ) from None
        if not sqlite_file.is_sqlite(head):
            raise JournalStoreError(self._not_a_journal("not an SQLite database"))
        if len(head) < sqlite_file.HEADER_SIZE:
            raise JournalStoreError(self._damaged(f"it is cut short: {size} bytes"))
        page = int.from_bytes(head[16:18], "big")
        page = 65536 if page == 1 else page
        if page < 512 or page & (page - 1):
            raise JournalStoreError(self._damaged("its header is corrupt"))
        pages = int.from_bytes(head[28:32], "big")
        # The header's page count is trusted only when no other process may be
        # writing the file (a reader may meet a checkpoint half done).
        counted = not self.readonly and head[24:28] == head[92:96]
        if size % page or (counted and pages * page > size):
            raise JournalStoreError(
                self._damaged(f"it is cut short: {size} bytes, {pages} pages of {page} expected")
            )

    def _connect(self) -> sqlite3.Connection:
        mode: sqlite_file.Mode = "ro" if self.readonly else "rw"
        try:
            db = sqlite_file.connect(self.path, mode, check_same_thread=False)
            db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone()
            return db
        except sqlite3.DatabaseError as exc:
            if not (self.readonly and "unable to open" in str(exc)):
                raise JournalStoreError(self._explain(exc)) from None
        # Read-only, in a folder SQLite cannot write its -shm to (a read-only
        # medium): read the file as it is, if no committed line waits in its -wal.
        if sqlite_file.wal_pending(self.path):
            raise JournalStoreError(
                f"cannot read the journal {self.path}: its last lines are still in "
                f"{self.path.name}-wal and its folder is read-only; copy both files to a "
                "writable folder and open the copy"
            )
        try:
            return sqlite_file.connect(self.path, "ro", immutable=True, check_same_thread=False)
        except sqlite3.DatabaseError as exc:
            raise JournalStoreError(self._explain(exc)) from None

    def _inspect(self, db: sqlite3.Connection) -> bool:
        """Whether the file is a fresh database; refuses one that is not a journal."""
        app_id = sqlite_file.application_id(db)
        objects = db.execute("SELECT type, name FROM sqlite_master").fetchall()
        if app_id not in (0, APPLICATION_ID):
            raise JournalStoreError(
                self._not_a_journal(f"another program's SQLite database, application_id {app_id}")
            )
        if not objects:
            return True
        names = {name for _, name in objects}
        legacy = [tuple(o) for o in objects] == [("table", "journal")]
        if (app_id == APPLICATION_ID and "journal" in names) or legacy:
            columns = [
                (r[1], str(r[2]).upper(), r[5])
                for r in db.execute("PRAGMA table_info(journal)").fetchall()
            ]
            if columns in (_COLUMNS, _SEALED_COLUMNS):
                self.sealed = columns == _SEALED_COLUMNS
                return False
        tables = ", ".join(sorted(names)[:5]) + (", …" if len(names) > 5 else "")
        raise JournalStoreError(self._not_a_journal(f"an SQLite database with tables {tables}"))

    def _quick_check(self, db: sqlite3.Connection) -> None:
        rows = db.execute("PRAGMA quick_check(1)").fetchall()
        if rows != [("ok",)]:
            detail = str(rows[0][0]).replace("\n", " ") if rows else "no answer"
            raise JournalStoreError(self._damaged(detail.removeprefix("*** in database main *** ")))

    def _prepare(self, db: sqlite3.Connection, fresh: bool) -> None:
        """Make the file ready for appends (and prove it takes them)."""
        if not fresh:
            # A write that is rolled back: nothing reaches the file, but a file
            # SQLite may not write (a read-only medium, immutable) says so now.
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("INSERT INTO journal (line) VALUES ('')")
            finally:
                db.execute("ROLLBACK")
        sqlite_file.make_durable(db)
        if fresh:
            db.executescript(_SCHEMA)
        sqlite_file.stamp(db, APPLICATION_ID)

    def _explain(self, exc: sqlite3.DatabaseError) -> str:
        text = str(exc)
        if "readonly" in text or "read-only" in text:
            return (
                f"cannot write the journal {self.path}: the disk or the file is read-only "
                f"({text}); copy the journal to a writable folder and use the copy"
            )
        if "malformed" in text or "not a database" in text:
            return self._damaged(text)
        if "unable to open" in text or "disk I/O" in text:
            return (
                f"cannot open the journal {self.path} ({text}); check that its disk is "
                "mounted and writable and that its folder allows writing"
            )
        return f"cannot use the journal {self.path}: {text}"

    # -- use ---------------------------------------------------------------

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> JournalStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        try:
            row = self._db.execute("SELECT COUNT(*) FROM journal").fetchone()
        except sqlite3.DatabaseError as exc:
            raise JournalStoreError(self._explain(exc)) from None
        return int(row[0])

    def append(self, record: dict[str, Any]) -> int:
        """Write one input durably; returns its 1-based line number."""
        return self.append_line(json.dumps(record, ensure_ascii=False))

    def append_line(self, line: str) -> int:
        """Write one JSON line durably (committed and synced when this returns)."""
        return self.append_lines([line])

    def append_lines(self, lines: list[str]) -> int:
        """Write lines in one transaction (one sync: a group commit); returns the line
        number of the last. All of them or none are durable; when none could be
        written, :class:`JournalWriteError` says why and the journal is as it was."""
        db = self._db
        rows: list[tuple[str, ...]]
        if self._last_link is None:  # a journal from before the seal: no links
            sql, rows, links = "INSERT INTO journal (line) VALUES (?)", [(x,) for x in lines], []
        else:
            links = chain(lines, self._last_link)
            sql = "INSERT INTO journal (line, link) VALUES (?, ?)"
            rows = list(zip(lines, links, strict=True))
        try:
            if len(rows) == 1:
                seq = db.execute(sql, rows[0]).lastrowid
            else:
                # Rolled back only if SQLite has not done so by itself (a full disk).
                with sqlite_file.transaction(db):
                    db.executemany(sql, rows)
                    seq = db.execute("SELECT MAX(seq) FROM journal").fetchone()[0]
        except (sqlite3.Error, OSError) as exc:
            raise self._write_failed(exc) from None
        assert seq is not None
        if links:
            self._last_link = links[-1]
        return int(seq)

    def seal(self) -> str | None:
        """The journal's seal: the last line's link (None: unsealed, or nothing written).

        Read without touching the file (the store keeps it), so any thread may ask."""
        if self._last_link is None or self._last_link == GENESIS:
            return None
        return self._last_link

    def _read_last_link(self) -> str:
        row = self._db.execute("SELECT link FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
        if row is None:
            return GENESIS
        # A sealed journal whose last link is missing was edited: verify names the line;
        # the lines appended now chain to what that line's link should be.
        if row[0] is None:
            return chain([line for line, _ in self.rows()])[-1]
        return str(row[0])

    def _write_failed(self, exc: sqlite3.Error | OSError) -> JournalWriteError:
        """The write's failure, named for the host; ``recorded`` read back from the file."""
        code = getattr(exc, "sqlite_errorcode", -1) & 0xFF  # the primary of an extended code
        text = str(exc)
        if (
            code == sqlite3.SQLITE_FULL
            or "disk is full" in text
            or (isinstance(exc, OSError) and exc.errno == errno.ENOSPC)
        ):
            why = "full"
        elif code == sqlite3.SQLITE_READONLY or "readonly" in text or "read-only" in text:
            why = "readonly"
        elif code == sqlite3.SQLITE_IOERR or "disk I/O" in text or isinstance(exc, OSError):
            why = "io"
        else:
            why = "other"
        try:
            recorded = int(self._db.execute("SELECT COUNT(*) FROM journal").fetchone()[0])
        except sqlite3.Error:
            recorded = -1
        return JournalWriteError(self.path, why, recorded, text)

    def lines(self) -> Iterator[str]:
        """Every line, in the order written (a damaged page: :class:`JournalStoreError`)."""
        try:
            for (line,) in self._db.execute("SELECT line FROM journal ORDER BY seq"):
                yield line
        except sqlite3.DatabaseError as exc:
            raise JournalStoreError(self._explain(exc)) from None

    def rows(self) -> list[tuple[str, str | None]]:
        """Every line with its seal's link (None: a journal from before the seal)."""
        column = "link" if self.sealed else "NULL"
        try:
            return [
                (str(line), None if link is None else str(link))
                for line, link in self._db.execute(
                    f"SELECT line, {column} FROM journal ORDER BY seq"
                )
            ]
        except sqlite3.DatabaseError as exc:
            raise JournalStoreError(self._explain(exc)) from None

    def export(self, target: Path) -> int:
        """Write the journal as a JSON Lines file, each line with its seal's link as its
        last field (``seal.with_link``; the replay ignores it); returns the number of lines."""
        count = 0
        tmp = target.with_name(target.name + ".part")
        try:
            with tmp.open("w", encoding="utf-8") as handle:
                for line, line_link in self.rows():
                    handle.write((line if line_link is None else with_link(line, line_link)) + "\n")
                    count += 1
            tmp.replace(target)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise JournalStoreError(
                    f"cannot write {target}: {exc.strerror}; choose a writable place for the export"
                ) from None
            raise
        return count
