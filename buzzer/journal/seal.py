"""The journal's seal: every line chained to the one before it, so an edit shows.

A journal is the record an appeal jury reads. Without a chain, anyone with
the SQLite file could change a verdict and the replay would agree with the
change. With it, each line keeps a **link**:

    link(n) = SHA-256( link(n-1) + "\\n" + line(n) )      (hex; link(0) = GENESIS)

so changing, removing or inserting a line breaks every link from there on.
The last link is the journal's **seal**. The game-over screen and the report
show its short form (:func:`short`); the host writes it on the paper
scoresheet. A journal edited afterwards and re-chained by whoever edited it
then has another seal than the one on paper. One edited without re-chaining
is caught by ``svoyak journal verify``, which names the first line whose
link does not match.

Pure: no I/O. The store keeps the links beside the lines
(``buzzer/journal/store.py``), and the JSON Lines export appends each line's
link as its last field (:func:`with_link`), which the replay ignores.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: The link before line 1: fixes the chain to this scheme (a version bump changes it).
GENESIS = hashlib.sha256(b"svoyak journal seal v1").hexdigest()

#: The exported form's last field: ``, "link": "<64 hex>"}`` (docs/journal.md).
_EXPORTED = re.compile(r', "link": "([0-9a-f]{64})"\}\Z')


def link(previous: str, line: str) -> str:
    """The link of ``line`` after the link ``previous``."""
    return hashlib.sha256(f"{previous}\n{line}".encode()).hexdigest()


def chain(lines: Iterable[str], previous: str = GENESIS) -> list[str]:
    """The links of ``lines``, each after the one before (the first after ``previous``)."""
    links = []
    for line in lines:
        previous = link(previous, line)
        links.append(previous)
    return links


def short(seal: str) -> str:
    """The seal as a host copies it by hand: 12 hex digits in three groups (48 bits)."""
    head = seal[:12].upper()
    return f"{head[:4]}-{head[4:8]}-{head[8:12]}"


def with_link(line: str, line_link: str) -> str:
    """The line as exported: its JSON object with ``"link"`` as the last field."""
    return f'{line[:-1]}, "link": "{line_link}"}}'


def split_link(exported: str) -> tuple[str, str | None]:
    """An exported line → the journal's line and its link (None: the line carries none)."""
    found = _EXPORTED.search(exported)
    if found is None:
        return exported, None
    return exported[: found.start()] + "}", found.group(1)


@dataclass(frozen=True, slots=True)
class Verification:
    """What ``svoyak journal verify`` found."""

    lines: int
    #: False: the journal was written before the seal (no line carries a link).
    sealed: bool
    #: The first line (1-based) whose link does not match its text and the link before;
    #: None when every link matches.
    first_bad: int | None
    #: The last link as recomputed (the seal), when the chain is whole.
    seal: str | None

    @property
    def intact(self) -> bool:
        return self.sealed and self.first_bad is None


def verify(rows: Sequence[tuple[str, str | None]]) -> Verification:
    """Recompute the chain of ``(line, link)`` rows and compare, line by line."""
    if not any(stored is not None for _, stored in rows):
        return Verification(len(rows), False, None, None)
    previous = GENESIS
    for number, (line, stored) in enumerate(rows, 1):
        previous = link(previous, line)
        if stored != previous:
            return Verification(len(rows), True, number, None)
    return Verification(len(rows), True, None, previous)
