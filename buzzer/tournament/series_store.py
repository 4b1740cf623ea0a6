"""The TV series' tables of a tournament's file (docs/tournament.md#series-formats).

:class:`SeriesTables` reads and writes ``series``, ``series_entrants`` and
``series_events``; what a series' events mean (its standings, its next game,
the fob lots it draws) is folded from them by :mod:`buzzer.tournament.series`,
which never calls the store. :func:`record_series_result` takes a series game's
result from its journal (the CLI's ``series result`` and the server's room
reports).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

from buzzer.tournament.database import TournamentFile, timestamp
from buzzer.tournament.errors import AlreadyRecorded, TournamentError, UnknownGame
from buzzer.tournament.planning import DrawNote
from buzzer.tournament.results import TournamentPackages, journal_header
from buzzer.tournament.series import (
    SeriesRecord,
    fold,
    lot_note,
    new_lots,
    played_from_journal,
    series_format,
)
from buzzer.tournament.series import row_of as series_row
from rules.tournament.series_play import Event as SeriesEvent
from rules.tournament.series_play import SeriesView


class SeriesTables(TournamentFile):
    """A tournament's file with its TV series."""

    def create_series(
        self,
        format_id: str,
        seed: int,
        members: Sequence[str],
        challengers: Sequence[str],
        events: Sequence[SeriesEvent] = (),
    ) -> SeriesRecord:
        """A new series (with ``events`` already played: a series file); refused, nothing
        written, if its entrants do not fit the format or an event does not fit."""
        series_format(format_id)
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO series (format, seed, created) VALUES (?, ?, ?)",
                (format_id, seed, timestamp()),
            )
            series_id = int(cursor.lastrowid or 0)
            self._insert_entrants(db, series_id, members, member=True)
            self._insert_entrants(db, series_id, challengers, member=False)
            fold(self.series(series_id))  # the format's refusal rolls it back
            for number, event in enumerate(events, 1):
                try:
                    self._append_event(db, series_id, event)
                except TournamentError as exc:
                    raise TournamentError(f"event {number}: {exc}") from None
            record = self.series(series_id)
        return record

    @staticmethod
    def _insert_entrants(
        db: sqlite3.Connection, series_id: int, names: Sequence[str], *, member: bool
    ) -> None:
        for name in names:
            if not name.strip():
                raise TournamentError("a player's name must not be empty")
            position = db.execute(
                "SELECT COUNT(*) FROM series_entrants WHERE series_id = ?", (series_id,)
            ).fetchone()[0]
            try:
                db.execute(
                    "INSERT INTO series_entrants (series_id, position, name, member) "
                    "VALUES (?, ?, ?, ?)",
                    (series_id, position, name, int(member)),
                )
            except sqlite3.IntegrityError:
                raise TournamentError(f"{name} is already in series {series_id}") from None

    def series(self, series_id: int) -> SeriesRecord:
        row = self._db.execute(
            "SELECT format, seed FROM series WHERE id = ?", (series_id,)
        ).fetchone()
        if row is None:
            raise TournamentError(
                f"no series {series_id} in this tournament "
                "(`svoyak tournament series list DB` lists them)"
            )
        entrants = self._db.execute(
            "SELECT name, member FROM series_entrants WHERE series_id = ? ORDER BY position",
            (series_id,),
        ).fetchall()
        events = tuple(
            (str(kind), json.loads(data))
            for kind, data in self._db.execute(
                "SELECT kind, data FROM series_events WHERE series_id = ? ORDER BY id",
                (series_id,),
            )
        )
        return SeriesRecord(
            series_id,
            str(row[0]),
            int(row[1]),
            tuple(n for n, m in entrants if m),
            tuple(n for n, m in entrants if not m),
            events,
        )

    def all_series(self) -> tuple[SeriesRecord, ...]:
        return tuple(
            self.series(int(r[0])) for r in self._db.execute("SELECT id FROM series ORDER BY id")
        )

    def add_challengers(self, series_id: int, names: Sequence[str]) -> SeriesView:
        with self.transaction() as db:
            self.series(series_id)
            self._insert_entrants(db, series_id, names, member=False)
            return fold(self.series(series_id))

    def add_series_event(
        self, series_id: int, event: SeriesEvent, game: int | None = None
    ) -> tuple[SeriesView, SeriesView]:
        """Apply one event (checked by the fold first: a refusal writes nothing); the views
        before and after it. A fob lot it draws is journaled in ``draws`` with its seed.
        ``game``: the result is for this game of the series, which must still be the next
        one when the transaction runs (of two reports of one game, one is recorded)."""
        with self.transaction() as db:
            if game is not None:
                due = fold(self.series(series_id)).next
                if due is None or due.number != game:
                    raise AlreadyRecorded(
                        f"game {game} of series {series_id} is not the next one any more "
                        f"(the next is {due.number if due else 'none'}): it is recorded already"
                    )
            return self._append_event(db, series_id, event)

    def _append_event(
        self, db: sqlite3.Connection, series_id: int, event: SeriesEvent
    ) -> tuple[SeriesView, SeriesView]:
        record = self.series(series_id)
        before = fold(record)
        after = fold(record, [event])
        kind, data = series_row(event)
        db.execute(
            "INSERT INTO series_events (series_id, kind, data, at) VALUES (?, ?, ?, ?)",
            (series_id, kind, json.dumps(data, ensure_ascii=False), timestamp()),
        )
        for lot in new_lots(before, after):
            lot_input, outcome = lot_note(series_id, lot)
            self._journal(db, DrawNote("fobs", None, None, lot_input, outcome), None, record.seed)
        return before, after


def record_series_result(
    store: SeriesTables,
    series_id: int,
    game: int,
    journal_lines: Iterable[str],
    *,
    packages: TournamentPackages | None = None,
    base: Path | None = None,
) -> tuple[SeriesView, SeriesView]:
    """A series game's result from its journal (docs/tournament.md#series-formats): game
    ``game`` must be the series' next; the journal's players and carried start scores
    (SER-CARRY) must be that game's; ``packages`` as in :func:`record_game_result`."""
    lines = list(journal_lines)
    due = fold(store.series(series_id)).next
    if due is None or due.number != game:
        if due is not None and game < due.number:
            raise AlreadyRecorded(f"game {game} of series {series_id} is recorded already")
        raise UnknownGame(
            f"series {series_id} has no game {game} due"
            + (f" (the next is game {due.number})" if due else "")
        )
    if packages is not None:
        header = journal_header(lines)
        lines = [json.dumps(packages.header(header), ensure_ascii=False), *lines[1:]]
        base = None
    played = played_from_journal(due, lines, base)
    return store.add_series_event(series_id, played, game)
