"""Real SQLite journals on disk for the repair tests: written from records, read back."""

from __future__ import annotations

import json
from pathlib import Path

from buzzer.journal.store import JournalStore


def write_journal(path: Path, records: list[dict[str, object]]) -> list[str]:
    """A journal at ``path`` holding ``records`` as its lines; the lines written."""
    lines = [json.dumps(r, ensure_ascii=False) for r in records]
    with JournalStore(path) as store:
        store.append_lines(lines)
    return lines


def lines_of(path: Path) -> list[str]:
    """The journal's lines, read without writing to it."""
    with JournalStore(path, readonly=True) as store:
        return list(store.lines())
