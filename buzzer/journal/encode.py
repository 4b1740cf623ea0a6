"""Inputs → docs/journal-contract.md lines: what the live controller writes before applying.

The inverse of :class:`buzzer.journal.codec.InputParser`: for every input,
``parse(encode(x))`` gives ``x`` back (but its ``ref``, which is the line
number the journal gives it).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from types import MappingProxyType

from buzzer.arbiter.commands import to_wire
from buzzer.arbiter.events import INPUT_CLASSES, HostInput, Input
from buzzer.arbiter.params import NS_PER_S
from buzzer.journal.codec import LONE_SURROGATE, InputParser, JournalError

#: Input class → its journal ``type`` (the class's own ``TYPE`` tag).
TYPE_NAMES: Mapping[type, str] = MappingProxyType({c: c.TYPE for c in INPUT_CLASSES})


def encode_input(item: Input, command_id: str | None = None) -> str:
    """One journal line for ``item`` (its ``t`` in seconds since the game started).

    ``command_id``: the panel's id of the host command (docs/journal.md, the
    ``id`` field), kept so that a retry after a restart is answered, not applied.
    """
    record: dict[str, object] = {"t": item.t / NS_PER_S, "type": TYPE_NAMES[type(item)]}
    if isinstance(item, HostInput):
        record.update(to_wire(item))  # as declared (buzzer/arbiter/commands.py)
    else:
        for field in dataclasses.fields(item):
            name = field.name
            if name in ("t", "ref"):
                continue
            value = getattr(item, name)
            if value is None:
                continue
            if name == "ok":
                record["state"] = "back" if value else "stalled"
            elif isinstance(value, tuple):
                record[name] = list(value)
            else:
                record[name] = value
    if command_id is not None:
        record["id"] = command_id
    return json.dumps(record, ensure_ascii=False)


def checked_line(item: Input, parser: InputParser, line: int, command_id: str | None = None) -> str:
    """``item``'s journal line, checked exactly as a replay will read it.

    The live path's one gate before the journal (``Controller``): the line
    must be valid UTF-8 (SQLite and ``svoyak replay``'s output need it) and
    the replay's own parser (:class:`InputParser`, the single source of what
    a journal may hold) must take it and give ``item`` back. Anything else —
    a press of a seat the game does not have, a correction of 0, a lone
    surrogate in a reason, a time out of range — raises :class:`JournalError`
    naming ``line`` (the line it would have had), and nothing is journaled.
    """
    try:
        text = encode_input(item, command_id)
    except (KeyError, TypeError, ValueError) as exc:
        raise JournalError(line, f"not an input the journal can hold ({exc})") from None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise JournalError(line, LONE_SURROGATE) from None
    parsed = parser.parse(text, line)
    if parsed.ref != item.ref:
        parsed = dataclasses.replace(parsed, ref=item.ref)
    if parsed != item:
        raise JournalError(line, f"the journal would read this input back as {parsed}, not {item}")
    return text


def command_key(text: str) -> str:
    """What identifies a journaled host command, whenever it was given: its line
    without the time and the id (a retried id must name the same command)."""
    record = json.loads(text)
    return json.dumps(
        {k: v for k, v in record.items() if k not in ("t", "id")},
        sort_keys=True,
        ensure_ascii=False,
    )
