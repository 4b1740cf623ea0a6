"""``svoyak journal verify``: read a journal (SQLite or exported JSON Lines) and check its seal.

The chain itself is ``seal.py``'s (pure); this module only reads the file as
``svoyak replay`` would: the SQLite store read-only, or the JSON Lines
export whose lines carry their link as the last field.
"""

from __future__ import annotations

from pathlib import Path

from buzzer.journal.codec import JournalError, decode_journal
from buzzer.journal.seal import Verification, split_link, verify
from buzzer.journal.store import JournalStore, JournalStoreError

_SQLITE = b"SQLite format 3\x00"


class VerifyError(JournalStoreError):
    """The journal could not be read at all (not the same as a broken seal)."""


def read_rows(path: Path) -> list[tuple[str, str | None]]:
    """Each line of the journal with its link (None where it carries none)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(_SQLITE))
    except OSError as exc:
        raise VerifyError(f"cannot read {path}: {exc.strerror}") from None
    if head == _SQLITE:
        with JournalStore(path, readonly=True) as store:
            return store.rows()
    try:
        lines = decode_journal(path.read_bytes())
    except JournalError as exc:
        raise VerifyError(f"{path}: {exc}") from None
    except OSError as exc:
        raise VerifyError(f"cannot read {path}: {exc.strerror}") from None
    return [split_link(line) for line in lines]


def verify_file(path: Path) -> Verification:
    return verify(read_rows(path))
