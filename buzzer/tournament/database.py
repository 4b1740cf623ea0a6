"""The tournament's SQLite file: its schema, what a file must be to be opened, its
migration, the connection and its transactions (:class:`TournamentFile`, the base of
:class:`buzzer.tournament.store.TournamentStore`, the one owner of the connection).

The file is SQLite in WAL mode with ``synchronous=FULL``, as the game
journal is (``buzzer.journal.store``; both are opened by the one setup,
:mod:`buzzer.journal.sqlite_file`), and every change runs in one
``BEGIN IMMEDIATE`` transaction, so a power cut leaves either the whole
registration, draw or result on disk, or none of it. A file that is not a
tournament's is refused, reading only, before anything writes to it.

Tables: ``meta`` (cutoff date), ``teams``, ``players`` (with the age group
fixed at registration, TOUR-1.2), ``stages`` (one draw of one age group,
with its seed so that it can be re-run), ``games``, ``seats`` (the drawn
players in seat order) and ``results`` (each seat's final score and place).
Added in place on open: ``stages.kind`` (``'stage'`` or ``'superfinal'``),
``draws`` (the journal of every lot, qualifier ranking and shootout, with
its seed, input and outcome), ``qualifier`` (Blue and Red written points,
TOUR-2.9), ``overrides`` (TOUR-1.9, with the committee's reason),
``game_rooms`` (which room plays which game: only that room may report it)
``room_reports`` (which room reported which game, written in the
result's own transaction), ``game_journals`` (a recorded game's journal as
reported, in the same transaction: the statistics and the per-game report are
made from it), and the TV series (docs/tournament.md#series-formats):
``series`` (its format and seed), ``series_entrants`` (members and
challengers in order) and ``series_events`` (each result and decision in
order; the standings and the next game are folded from them by
:mod:`buzzer.tournament.series`, and a fob lot is journaled in ``draws``).
The tournament server's ``room_tokens`` is added when it starts.
"""

from __future__ import annotations

import datetime
import json
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Self

from buzzer.journal import sqlite_file
from buzzer.tournament.errors import TournamentError
from buzzer.tournament.planning import DrawNote
from rules.tournament.registration import DEFAULT_CUTOFF

SCHEMA_VERSION = 1
#: ``PRAGMA application_id`` of a tournament's file ("SVTN"). Files made before
#: it existed have 0 and the ``meta`` table with its cutoff; the first write
#: stamps them.
APPLICATION_ID = 0x5356544E

_SCHEMA = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE teams (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE players (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    birth_date TEXT NOT NULL,
    city       TEXT NOT NULL DEFAULT '',
    team_id    INTEGER REFERENCES teams(id),
    age_group  TEXT NOT NULL CHECK (age_group IN ('junior', 'senior'))
);
CREATE TABLE stages (
    id        INTEGER PRIMARY KEY,
    age_group TEXT NOT NULL CHECK (age_group IN ('junior', 'senior')),
    number    INTEGER NOT NULL,
    seed      INTEGER NOT NULL,
    UNIQUE (age_group, number)
);
CREATE TABLE games (
    id       INTEGER PRIMARY KEY,
    stage_id INTEGER NOT NULL REFERENCES stages(id),
    size     INTEGER NOT NULL CHECK (size IN (3, 4)),
    winner   INTEGER REFERENCES players(id),
    recorded TEXT
);
CREATE TABLE seats (
    game_id   INTEGER NOT NULL REFERENCES games(id),
    seat      INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, player_id)
);
CREATE TABLE results (
    game_id   INTEGER NOT NULL,
    seat      INTEGER NOT NULL,
    score     INTEGER NOT NULL,
    place     INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat),
    FOREIGN KEY (game_id, seat) REFERENCES seats(game_id, seat)
);
"""


#: Added to every database on open (schema 1 files gain them in place).
_EXTRA = """
CREATE TABLE IF NOT EXISTS draws (
    id        INTEGER PRIMARY KEY,
    stage_id  INTEGER REFERENCES stages(id),
    kind      TEXT NOT NULL,
    age_group TEXT,
    stage     INTEGER,
    seed      INTEGER,
    input     TEXT NOT NULL,
    outcome   TEXT NOT NULL,
    at        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS qualifier (
    player_id INTEGER PRIMARY KEY REFERENCES players(id),
    blue      INTEGER NOT NULL,
    red       INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS overrides (
    id      INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    before  TEXT NOT NULL,
    after   TEXT NOT NULL,
    reason  TEXT NOT NULL,
    at      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS game_rooms (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    room    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS room_reports (
    game_id  INTEGER PRIMARY KEY,
    room     TEXT NOT NULL,
    received TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS game_journals (
    game_id       INTEGER PRIMARY KEY REFERENCES games(id),
    lines         TEXT NOT NULL,
    replay_header TEXT,
    base          TEXT
);
CREATE TABLE IF NOT EXISTS series (
    id      INTEGER PRIMARY KEY,
    format  TEXT NOT NULL,
    seed    INTEGER NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS series_entrants (
    series_id INTEGER NOT NULL REFERENCES series(id),
    position  INTEGER NOT NULL,
    name      TEXT NOT NULL,
    member    INTEGER NOT NULL,
    PRIMARY KEY (series_id, name)
);
CREATE TABLE IF NOT EXISTS series_events (
    id        INTEGER PRIMARY KEY,
    series_id INTEGER NOT NULL REFERENCES series(id),
    kind      TEXT NOT NULL,
    data      TEXT NOT NULL,
    at        TEXT NOT NULL
)
"""

#: The tournament server's room tokens (only their SHA-256), added by
#: :meth:`TournamentStore.ensure_room_tokens` when the server starts or issues one.
ROOM_TOKENS_TABLE = (
    "CREATE TABLE IF NOT EXISTS room_tokens ("
    " room TEXT PRIMARY KEY, token_sha256 TEXT NOT NULL, created TEXT NOT NULL)"
)

#: The tables ``_EXTRA`` adds.
_EXTRA_TABLES = frozenset(
    {
        "draws",
        "qualifier",
        "overrides",
        "game_rooms",
        "room_reports",
        "game_journals",
        "series",
        "series_entrants",
        "series_events",
    }
)


def timestamp() -> str:
    """Now, in UTC, to the second (ISO 8601): when a row was written."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


class TournamentFile:
    """One tournament's SQLite file, open: its connection, its transactions."""

    def __init__(
        self,
        path: str | Path,
        *,
        create: bool = False,
        cutoff: datetime.date | None = None,
        timeout: float = 5.0,
    ) -> None:
        self.path = Path(path)
        if create and self.path.exists():
            raise TournamentError(f"{self.path} already exists; choose another file name")
        if not create and not self.path.is_file():
            raise TournamentError(
                f"no such tournament database: {self.path} "
                f"(create it with `svoyak tournament new {self.path}`)"
            )
        if not create:
            # Read-only, before anything that writes (WAL, a migration): another
            # program's file, or an empty one, is refused exactly as it is.
            self._check_file()
        try:
            self._db = sqlite_file.connect(self.path, "rwc" if create else "rw", timeout=timeout)
            sqlite_file.make_durable(self._db)
            self._db.execute("PRAGMA foreign_keys=ON")
            if create:
                with self.transaction():
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            self._db.execute(statement)
                    sqlite_file.stamp(self._db, APPLICATION_ID)
                    self._db.executemany(
                        "INSERT INTO meta (key, value) VALUES (?, ?)",
                        [
                            ("schema", str(SCHEMA_VERSION)),
                            ("cutoff", (cutoff or DEFAULT_CUTOFF).isoformat()),
                        ],
                    )
            row = self._db.execute("SELECT value FROM meta WHERE key = 'cutoff'").fetchone()
            if row is not None:
                self._migrate()
        except sqlite3.DatabaseError as exc:
            if hasattr(self, "_db"):
                self._db.close()
            raise TournamentError(
                f"{self.path} is not a svoyak tournament database: {exc}"
            ) from None
        if row is None:
            self._db.close()
            raise TournamentError(f"{self.path} is not a svoyak tournament database (no cutoff)")
        self.cutoff = datetime.date.fromisoformat(str(row[0]))

    def _check_file(self) -> None:
        """Refuse, reading only, a file that is not a tournament's database."""
        try:
            head = sqlite_file.read_header(self.path)
        except OSError as exc:  # unreadable (permissions), a folder, a vanished disk
            raise TournamentError(
                f"cannot read the tournament database {self.path}: {exc.strerror}; check its "
                "permissions (the server's user must read and write it) and the path"
            ) from None
        if not head:
            raise TournamentError(f"{self.path} is an empty file, not a svoyak tournament database")
        if not sqlite_file.is_sqlite(head):
            raise TournamentError(f"{self.path} is not a svoyak tournament database (not SQLite)")
        # The header's bytes 68–71 are the application_id: read without SQLite,
        # so not even a reader's -shm is made beside another program's file.
        app_id = sqlite_file.header_application_id(head)
        if app_id == APPLICATION_ID:
            return
        if app_id != 0:
            raise TournamentError(
                f"{self.path} is not a svoyak tournament database: another program's SQLite "
                f"database, application_id {app_id}"
            )
        # A tournament in use may hold its first page (the stamp) in its -wal
        # still: read through it then; else read the file as it is.
        immutable = not sqlite_file.wal_pending(self.path)
        try:
            probe = sqlite_file.connect(self.path, "ro", immutable=immutable)
        except sqlite3.DatabaseError as exc:
            raise TournamentError(
                f"{self.path} is not a svoyak tournament database: {exc}"
            ) from None
        try:
            tables = {r[0] for r in probe.execute("SELECT name FROM sqlite_master")}
            legacy = (
                "meta" in tables
                and probe.execute("SELECT 1 FROM meta WHERE key = 'cutoff'").fetchone()
            )
        except sqlite3.DatabaseError as exc:
            raise TournamentError(
                f"{self.path} is not a svoyak tournament database: {exc}"
            ) from None
        finally:
            probe.close()
        if not legacy:
            names = ", ".join(sorted(tables)[:5]) or "none"
            raise TournamentError(
                f"{self.path} is not a svoyak tournament database (an SQLite database with "
                f"tables: {names})"
            )

    def _migrate(self) -> None:
        """Add the journal, qualifier and override tables and ``stages.kind`` if missing,
        and stamp a file made before the application_id existed."""
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(stages)")}
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master")}
        sqlite_file.stamp(self._db, APPLICATION_ID)
        if "kind" in columns and tables >= _EXTRA_TABLES:
            return
        with self.transaction() as db:
            if "kind" not in columns:
                db.execute("ALTER TABLE stages ADD COLUMN kind TEXT NOT NULL DEFAULT 'stage'")
            for statement in _EXTRA.split(";"):
                if statement.strip():
                    db.execute(statement)

    @classmethod
    def create(cls, path: str | Path, cutoff: datetime.date | None = None) -> Self:
        return cls(path, create=True, cutoff=cutoff)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """Every change: all of it committed, or none of it."""
        return sqlite_file.transaction(self._db)

    @staticmethod
    def _journal(db: sqlite3.Connection, note: DrawNote, stage_id: int | None, seed: int) -> None:
        db.execute(
            "INSERT INTO draws (stage_id, kind, age_group, stage, seed, input, outcome, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                stage_id,
                note.kind,
                note.age_group,
                note.stage,
                seed,
                json.dumps(note.input, ensure_ascii=False),
                json.dumps(note.outcome, ensure_ascii=False),
                timestamp(),
            ),
        )
