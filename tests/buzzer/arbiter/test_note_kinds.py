"""The kinds of ``Note``: one ``NoteKind`` member per journal word, each one made.

mypy (strict, over the packages) refuses a ``Note`` whose kind is not a
``NoteKind``; it does not read the tests, and a member nobody produces is no
type error. The scans here cover both: every ``Note(...)`` of the packages and
the tests names a member, and every member is made somewhere (or is listed as
reserved, with a reason), so the enum stays the list of what the journal says.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from buzzer.arbiter.decisions import Note, NoteKind

REPO = Path(__file__).resolve().parents[3]
PACKAGES = ("buzzer", "rules", "display", "hardware", "firmware_bridge")
#: Members declared before any producer makes them, each with why. None today.
RESERVED: frozenset[NoteKind] = frozenset()


def _note_calls(folders: tuple[str, ...]) -> Iterator[tuple[str, ast.Call]]:
    for folder in folders:
        for path in sorted((REPO / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                call = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                if call and node.func.id == "Note":
                    yield f"{path.relative_to(REPO)}:{node.lineno}", node


def _kind_arg(call: ast.Call) -> ast.expr | None:
    if len(call.args) > 1:
        return call.args[1]
    return next((k.value for k in call.keywords if k.arg == "type"), None)


def _member(arg: ast.expr | None) -> str | None:
    """The member's name when ``arg`` is ``NoteKind.NAME``."""
    if (
        isinstance(arg, ast.Attribute)
        and isinstance(arg.value, ast.Name)
        and arg.value.id == "NoteKind"
    ):
        return arg.attr
    return None


def test_the_packages_make_every_note_from_a_member() -> None:
    calls = list(_note_calls(PACKAGES))
    assert len(calls) > 40  # the scan sees the producers (rules/, buzzer/core.py)
    loose = [where for where, call in calls if _member(_kind_arg(call)) is None]
    assert loose == []


def test_no_test_makes_a_note_from_a_bare_string() -> None:
    bare = [
        where
        for where, call in _note_calls(("tests",))
        if isinstance(_kind_arg(call), ast.Constant | ast.JoinedStr)
    ]
    assert bare == []


def test_every_kind_is_made_somewhere_or_reserved() -> None:
    made = {_member(_kind_arg(call)) for _, call in _note_calls(PACKAGES)}
    names = {kind.name for kind in NoteKind}
    assert made - names == set()  # None: a Note made from something other than a member
    assert names - made == {kind.name for kind in RESERVED}
    assert not RESERVED & {NoteKind[name] for name in made if name is not None}


def test_a_member_is_its_word() -> None:
    """The journal's word is the member's name in lower case, and unique."""
    assert all(kind.value == kind.name.lower() for kind in NoteKind)
    assert len({kind.value for kind in NoteKind}) == len(NoteKind)


@pytest.mark.parametrize("kind", list(NoteKind))
def test_a_note_line_is_what_the_bare_word_wrote(kind: NoteKind) -> None:
    """A member writes the same bytes as its string did: the journals replay byte for byte."""
    note = Note(1_500_000_000, kind, (("seat", 2), ("name", "Ёж")))
    plain = {"t": 1.5, "type": kind.value, "seat": 2, "name": "Ёж"}
    assert note.to_json() == json.dumps(plain, ensure_ascii=False)
    assert f"{note.type}" == str(note.type) == kind.value
    assert json.loads(note.to_json())["type"] == kind  # a JSON reader's str equals the member


def test_the_journal_doc_lists_every_kind() -> None:
    """docs/journal.md's table of the full game's output lines has a row for each kind."""
    text = (REPO / "docs" / "journal.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1] for line in text.splitlines() if line.startswith("| `")}
    listed = {word.strip(" `") for row in rows for word in row.split(",")}
    assert {kind.value for kind in NoteKind} - listed == set()
