"""``svoyak journal repair``: make a journal that stops replaying at line N resumable again.

A journal written before the live path checked every line as the replay
reads it may hold one it refuses (a press of seat 7 in a 3-player game, a
correction of 0): ``svoyak run --resume`` then stops, naming the line. Two
ways on, both for the technician to choose:

- ``--skip-line N``: line N becomes a ``tick`` at its own time (or the line
  before's, when its time cannot be read) that keeps the original text in
  its ``skipped`` field (docs/journal.md): nothing leaves the journal, the
  line numbers stay (an ``undo`` names its line by number), and the game
  goes on as if that input had never come;
- ``--truncate-at N``: lines N and after are removed (the game goes on from
  the state before line N).

A line that replays fine is refused unless ``force`` says otherwise
(:class:`HealthyLine`): skipping or cutting it changes the game, and the
journal's seal with it, so the seal on the paper scoresheet no longer
matches; a typo in N must not do that in silence. When a repair does change
the seal, the old one and the new one are both returned (:class:`Repaired`)
for the technician to note beside the paper's.

Either way nothing is lost in silence: the new journal must replay
completely before anything is written (else nothing changes and the line
that still fails is named), a copy of the whole database is saved first
beside it (``GAME.before-repair-YYYYmmdd-HHMMSS.sqlite``, checked to hold
every line), the change is one transaction, and what it did is reported.
Stop the game (``systemctl stop svoyak``) before repairing its journal.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import time
from pathlib import Path

from buzzer.errors import SvoyakError
from buzzer.journal.codec import MAX_T_S, JournalError
from buzzer.journal.resume import rebuild
from buzzer.journal.seal import GENESIS, chain
from buzzer.journal.store import JournalStore, JournalStoreError


class RepairError(SvoyakError):
    """Nothing was changed; ``str()`` says why (for the technician)."""


class HealthyLine(RepairError):
    """The line to repair replays fine: nothing changed, ``force`` was not given.

    ``first_bad``: the line the journal does stop at, if any (the one to repair).
    """

    def __init__(self, path: Path, line: int, *, truncate: bool, first_bad: int | None) -> None:
        self.path = path
        self.line = line
        self.truncate = truncate
        self.first_bad = first_bad
        change = f"removing lines {line} on" if truncate else f"skipping line {line}"
        super().__init__(
            f"{path}: line {line} replays fine, there is nothing to repair in it: {change} "
            "would change the game and the journal's seal; nothing was changed (--force)"
        )


@dataclasses.dataclass(frozen=True)
class Repaired:
    """What a repair did."""

    backup: Path
    #: Lines removed (``truncate_at``) or replaced by a tick (``skip_line``).
    removed: int
    replaced: int
    #: The journal's lines now, the header included.
    lines: int
    #: The journal's seal (its last link) before and after; None: it carries none.
    old_seal: str | None = None
    new_seal: str | None = None


def repair(
    path: Path,
    *,
    skip_line: int | None = None,
    truncate_at: int | None = None,
    force: bool = False,
) -> Repaired:
    """Skip line ``skip_line`` or cut the journal at ``truncate_at`` (exactly one of them).

    A line that replays fine is refused (:class:`HealthyLine`) unless ``force``.
    """
    if (skip_line is None) == (truncate_at is None):
        raise RepairError("give exactly one of --skip-line N and --truncate-at N")
    target = skip_line if skip_line is not None else truncate_at
    assert target is not None
    rows = _rows(path)
    lines = [line for line, _ in rows]
    if not 2 <= target <= len(lines):
        raise RepairError(
            f"{path} has input lines 2..{len(lines)} (line 1 is the header): "
            f"there is no line {target} to repair"
        )
    if not force:
        _refuse_a_healthy_line(path, lines, target, truncate=truncate_at is not None)
    if truncate_at is not None:
        new = lines[: target - 1]
    else:
        new = [*lines[: target - 1], _skipped(lines, target), *lines[target:]]
    try:
        rebuild(new, path.resolve().parent)
    except JournalError as exc:
        what = f"without line {target}" if skip_line is not None else f"cut at line {target}"
        raise RepairError(
            f"{path} {what} still does not replay: line {exc.line}: {exc.message}; "
            "nothing was changed"
        ) from None
    backup = _backup(path, lines)
    _write(path, lines, target, new)
    after = _rows(path)
    if [line for line, _ in after] != new:  # pragma: no cover - SQLite would have to lie
        raise RepairError(f"{path} does not read back as written: the copy {backup} holds it all")
    removed = len(lines) - len(new)
    return Repaired(backup, removed, 0 if removed else 1, len(new), _seal(rows), _seal(after))


def _refuse_a_healthy_line(path: Path, lines: list[str], target: int, *, truncate: bool) -> None:
    """:class:`HealthyLine` if the journal replays through line ``target``."""
    base = path.resolve().parent
    try:
        rebuild(lines[:target], base)
    except JournalError:
        return  # it, or one before it, does not replay: a line to repair
    try:
        rebuild(lines, base)
        first_bad = None
    except JournalError as exc:
        first_bad = exc.line
    raise HealthyLine(path, target, truncate=truncate, first_bad=first_bad)


def _seal(rows: list[tuple[str, str | None]]) -> str | None:
    """The journal's seal as stored: its last line's link (None: no link)."""
    return rows[-1][1] if rows else None


def _read(path: Path) -> list[str]:
    """Every line, read as ``svoyak replay`` reads a journal (the store's own checks)."""
    return [line for line, _ in _rows(path)]


def _rows(path: Path) -> list[tuple[str, str | None]]:
    """Every line with its link (None where it carries none), read as :func:`_read`."""
    if not path.is_file():
        raise RepairError(f"no such journal database: {path}")
    try:
        with JournalStore(path, readonly=True) as store:
            return store.rows()
    except JournalStoreError as exc:
        raise RepairError(f"{exc}; nothing was changed") from None
    except sqlite3.Error as exc:
        raise RepairError(f"{path} cannot be read as a svoyak journal: {exc}") from None


def _skipped(lines: list[str], number: int) -> str:
    """Line ``number`` as a tick that decides nothing and keeps the original text."""
    text = lines[number - 1]
    t = _time(text)
    if t is None:
        t = next((x for x in map(_time, reversed(lines[1 : number - 1])) if x is not None), 0.0)
    return json.dumps({"t": t, "type": "tick", "skipped": text}, ensure_ascii=False)


def _time(text: str) -> float | None:
    try:
        t = json.loads(text).get("t")
    except (ValueError, RecursionError, AttributeError):
        return None
    if isinstance(t, bool) or not isinstance(t, int | float) or not 0 <= t <= MAX_T_S:
        return None
    return float(t)


def _backup(path: Path, lines: list[str]) -> Path:
    """A complete copy of the database beside it (SQLite's backup: the WAL too), checked."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.stem}.before-repair-{stamp}{path.suffix or '.sqlite'}")
    n = 1
    while backup.exists():
        n += 1
        backup = path.with_name(f"{path.stem}.before-repair-{stamp}-{n}{path.suffix or '.sqlite'}")
    try:
        source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            copy = sqlite3.connect(backup)
            try:
                source.backup(copy)
                # One self-contained file (no -wal beside it): a copy to keep, not to run.
                copy.execute("PRAGMA journal_mode=DELETE")
            finally:
                copy.close()
        finally:
            source.close()
    except (sqlite3.Error, OSError) as exc:
        raise RepairError(
            f"cannot save a copy of {path} as {backup} ({exc}): nothing was changed"
        ) from None
    if _read(backup) != lines:
        raise RepairError(f"the copy {backup} does not hold every line: nothing was changed")
    return backup


def _rechain(db: sqlite3.Connection, target: int) -> None:
    """The seal's links from line ``target`` on, after its text changed (a sealed journal).

    The links before it are kept as stored, not recomputed: a repair re-seals only
    what it changed, so an earlier edit stays visible to ``journal verify``. The
    journal's seal changes, as it must: the repaired game is not the one on paper.
    """
    columns = [row[1] for row in db.execute("PRAGMA table_info(journal)")]
    if "link" not in columns:
        return  # a journal from before the seal
    rows = db.execute("SELECT seq, line, link FROM journal ORDER BY seq").fetchall()
    before = rows[target - 2][2] if target >= 2 else None
    previous = GENESIS if before is None and target == 1 else before
    if previous is None:
        return  # the line before carries no link: nothing to chain to
    for (seq, _, _), line_link in zip(
        rows[target - 1 :], chain([r[1] for r in rows[target - 1 :]], previous), strict=True
    ):
        db.execute("UPDATE journal SET link = ? WHERE seq = ?", (line_link, seq))


def _write(path: Path, lines: list[str], target: int, new: list[str]) -> None:
    """The change, in one transaction, only if the journal is still what was read."""
    try:
        db = sqlite3.connect(path, isolation_level=None)
    except sqlite3.Error as exc:
        raise RepairError(f"cannot open {path} to repair it: {exc}") from None
    try:
        db.execute("BEGIN IMMEDIATE")
        rows = db.execute("SELECT seq, line FROM journal ORDER BY seq").fetchall()
        if [line for _, line in rows] != lines:
            db.execute("ROLLBACK")
            raise RepairError(
                f"{path} changed while it was being repaired (is a game running on it?): "
                "nothing was changed"
            )
        seq = rows[target - 1][0]
        if len(new) < len(lines):
            db.execute("DELETE FROM journal WHERE seq >= ?", (seq,))
        else:
            db.execute("UPDATE journal SET line = ? WHERE seq = ?", (new[target - 1], seq))
            _rechain(db, target)
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise RepairError(f"cannot write {path} ({exc}): nothing was changed") from None
    finally:
        db.close()
