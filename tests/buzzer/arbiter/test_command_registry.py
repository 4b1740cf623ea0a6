"""One registry of inputs: each class carries its journal ``type``; everyone reads it.

A host command used to be declared in about eight places (the event class,
the journal's encoder and parser tables, the panel's command models, its
staleness table, its converter, the hub's command log). The names now live
on the classes (``TYPE``, as decisions have), and these tests fail as soon
as one of the remaining tables of the panel disagrees with the registry: a
command added to the engine but not to the panel, or the other way round.
"""

from __future__ import annotations

import typing
from typing import Any

import pytest

from buzzer.arbiter.events import HOST_COMMANDS, INPUT_CLASSES, INPUT_TYPES, Undo
from buzzer.journal.codec import InputParser
from buzzer.journal.encode import TYPE_NAMES, encode_input
from buzzer.panel import gate, models

#: The panel's commands that are no input of the engine (the hub's own state):
#: none since pause and resume became journaled inputs (A-G-D1).
PANEL_ONLY: set[str] = set()
#: One valid command of every kind the panel sends to the engine, as JSON.
SAMPLES: dict[str, dict[str, Any]] = {
    "select": {"type": "select", "theme": 2, "price": 300},
    "reading_start": {"type": "reading_start"},
    "reading_end": {"type": "reading_end"},
    "judge": {"type": "judge", "verdict": "wrong"},
    "timeout": {"type": "timeout"},
    "bid": {"type": "bid", "seat": 2, "amount": 700},
    "pass": {"type": "pass", "seat": 3},
    "cat_give": {"type": "cat_give", "seat": 1},
    "cat_price": {"type": "cat_price", "price": 400},
    "bonus": {"type": "bonus", "accept": True},
    "cat_picture": {"type": "cat_picture"},
    "final_remove": {"type": "final_remove", "theme": 4, "seat": 2},
    "final_stake": {"type": "final_stake", "seat": 1, "amount": 900},
    "final_judge": {"type": "final_judge", "verdict": "correct", "seat": 3},
    "correction": {"type": "correction", "seat": 2, "delta": -200, "reason": "typo"},
    "objection": {"type": "objection", "seat": 1},
    "undo": {"type": "undo", "line": 7},
    "pause": {"type": "pause"},
    "resume": {"type": "resume"},
}


def test_every_input_has_its_own_type_and_the_registry_finds_it() -> None:
    tags = [cls.TYPE for cls in INPUT_CLASSES]
    assert len(tags) == len(set(tags)) == len(INPUT_TYPES)
    assert all(INPUT_TYPES[cls.TYPE] is cls for cls in INPUT_CLASSES)
    assert set(HOST_COMMANDS) < set(INPUT_CLASSES)
    assert dict(TYPE_NAMES) == {cls: cls.TYPE for cls in INPUT_CLASSES}


def test_the_journal_parser_knows_exactly_the_registered_types() -> None:
    parser = InputParser(seats=3)
    for tag in INPUT_TYPES:
        try:
            parser.parse_obj({"type": tag, "t": 1.0}, 5)
        except Exception as exc:  # a missing field is fine; an unknown type is not
            assert "unknown type" not in str(exc), tag
    with pytest.raises(Exception, match="unknown type 'no_such'"):
        parser.parse_obj({"type": "no_such", "t": 1.0}, 5)


def test_the_panel_s_tables_list_every_host_command_and_nothing_else() -> None:
    engine = {cls.TYPE for cls in HOST_COMMANDS} | {Undo.TYPE}
    assert set(SAMPLES) == engine
    assert set(gate.CONTEXT) == engine | PANEL_ONLY
    literals = {
        typing.get_args(member.model_fields["type"].annotation)[0]
        for member in typing.get_args(typing.get_args(models.Command)[0])
    }
    assert literals == engine | PANEL_ONLY


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_each_panel_command_becomes_its_input_and_journals_under_its_own_name(
    kind: str,
) -> None:
    command = SAMPLES[kind]
    models.CommandRequest.model_validate({"command": command, "id": "c-1"})  # the API accepts it
    item = gate.to_input(command, 2_000_000_000)
    assert kind == item.TYPE and isinstance(item, INPUT_TYPES[kind])
    line = encode_input(item)
    assert f'"type": "{kind}"' in line or f'"type":"{kind}"' in line
    back = InputParser(seats=3).parse(line, 9)
    assert type(back) is type(item) and back.t == item.t
