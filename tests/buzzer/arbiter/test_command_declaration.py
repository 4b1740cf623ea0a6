"""One declaration per host command, and everything made from it (issue 35 item 2).

A host command is declared once: its class in ``buzzer/arbiter/events.py``
(``HostInput``: its fields ``Annotated`` with their limits, its ``SPEC``). It
used to be written in seven places (the event, the codec's table, the engine's
handler table, a pydantic model, the gate's CONTEXT, ``to_input``'s if-chain,
``_NOT_UNDOABLE``). These tests walk the declaration and hold everything made
from it to it — the journal's reader and writer, the panel's models (request
validation and the OpenAPI schema), the host-command service's stale check,
sender check and pause, the engine's dispatch and undo — and then list the
places a command is named in the code: its declaration, the engine's handler,
and the entrances that send that very command. So adding a command is its
class and its handler, nothing else (the host page's button to send it aside).
"""

from __future__ import annotations

import ast
import dataclasses
import json
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from buzzer.arbiter.commands import (
    MAX_SEATS,
    Handler,
    SeatNo,
    Sender,
    Text,
    Verdict,
    WhilePaused,
    Whole,
    YesNo,
    fields_of,
    from_wire,
    to_wire,
)
from buzzer.arbiter.events import (
    COMMAND_TYPES,
    HOST_COMMANDS,
    INPUT_CLASSES,
    INPUT_TYPES,
    HostInput,
)
from buzzer.core import GameCore, _undoable
from buzzer.journal.codec import InputParser, JournalError
from buzzer.journal.encode import TYPE_NAMES, encode_input
from buzzer.panel import models
from buzzer.panel.demo import demo_header
from buzzer.runtime.controller import Controller
from buzzer.runtime.runtime import Runtime
from rules.game import Game
from rules.snapshot import GameSnapshot
from tests.support.paths import REPO

S = 1_000_000_000
COMMANDS = pytest.mark.parametrize("cls", HOST_COMMANDS, ids=lambda c: c.TYPE)


def sample(cls: type[HostInput]) -> dict[str, Any]:
    """A valid command of ``cls`` on the wire, made from its declaration alone."""
    wire: dict[str, Any] = {"type": cls.TYPE}
    for field in fields_of(cls):
        kind = field.kind
        if isinstance(kind, SeatNo):
            wire[field.wire] = 2
        elif isinstance(kind, Verdict):
            wire[field.wire] = "correct"
        elif isinstance(kind, YesNo):
            wire[field.wire] = True
        elif isinstance(kind, Text):
            wire[field.wire] = "т" * max(1, kind.api_min)
        else:
            assert isinstance(kind, Whole)
            wire[field.wire] = 1 if kind.low <= 1 <= kind.high else kind.low
    return wire


# -- the declaration itself --------------------------------------------------------


def test_every_input_has_its_own_type_and_the_registry_finds_it() -> None:
    tags = [cls.TYPE for cls in INPUT_CLASSES]
    assert len(tags) == len(set(tags)) == len(INPUT_TYPES)
    assert all(INPUT_TYPES[cls.TYPE] is cls for cls in INPUT_CLASSES)
    assert set(HOST_COMMANDS) < set(INPUT_CLASSES)
    assert dict(COMMAND_TYPES) == {cls.TYPE: cls for cls in HOST_COMMANDS}
    assert dict(TYPE_NAMES) == {cls: cls.TYPE for cls in INPUT_CLASSES}
    # every HostInput subclass of the declaration is a registered command, slots and all
    assert all(
        issubclass(cls, HostInput) and dataclasses.is_dataclass(cls) for cls in HOST_COMMANDS
    )


@COMMANDS
def test_every_command_is_declared_whole(cls: type[HostInput]) -> None:
    """Every field says what it holds; the context names snapshot fields; ``together``
    names fields that may be left out."""
    fields = {f.name: f for f in fields_of(cls)}  # raises for a field of no kind
    snapshot_keys = set(typing.get_type_hints(GameSnapshot))
    assert set(cls.SPEC.context) <= snapshot_keys, cls.SPEC.context
    assert all(fields[name].optional for name in cls.SPEC.together)
    assert cls.SPEC.senders & Sender.PANEL  # the panel (and scripts) may send everything


# -- the journal -------------------------------------------------------------------


@COMMANDS
def test_the_journal_writes_and_reads_every_command_as_declared(cls: type[HostInput]) -> None:
    wire = sample(cls)
    item = from_wire(cls, wire, 2 * S)
    line = json.loads(encode_input(item))
    assert line == {"t": 2.0, **wire}  # its declared wire fields, nothing else
    parser = InputParser(seats=3)
    assert parser.parse(json.dumps(line), 9) == dataclasses.replace(item, ref=9)
    for field in fields_of(cls):
        kind = field.kind
        if isinstance(kind, Whole):  # the declared range is the journal's
            for bad in (kind.low - 1, kind.high + 1):
                with pytest.raises(JournalError, match=field.wire):
                    parser.parse(json.dumps({**line, field.wire: bad}), 9)
        if isinstance(kind, SeatNo):  # the game's seats
            with pytest.raises(JournalError, match="seat"):
                parser.parse(json.dumps({**line, field.wire: 4}), 9)
        if not field.optional and field.default is dataclasses.MISSING:
            with pytest.raises(JournalError, match=field.wire):
                parser.parse(json.dumps({k: v for k, v in line.items() if k != field.wire}), 9)


def test_fields_given_together_are_read_together() -> None:
    """A select's theme and price: both or neither (the next question in order)."""
    together = [cls for cls in HOST_COMMANDS if cls.SPEC.together]
    assert together
    parser = InputParser(seats=3)
    for cls in together:
        bare = parser.parse(json.dumps({"t": 1.0, "type": cls.TYPE}), 5)
        assert all(getattr(bare, name) is None for name in cls.SPEC.together)
        one = cls.SPEC.together[0]
        with pytest.raises(JournalError, match=cls.SPEC.together[1]):
            parser.parse(json.dumps({"t": 1.0, "type": cls.TYPE, one: 1}), 5)


# -- the panel's API ---------------------------------------------------------------


def _schema(cls: type[HostInput]) -> dict[str, Any]:
    schema: dict[str, Any] = models.COMMAND_MODELS[cls.TYPE].model_json_schema()
    return schema


def _range(prop: dict[str, Any]) -> tuple[Any, Any]:
    if "anyOf" in prop:  # optional: the number or null
        prop = next(p for p in prop["anyOf"] if p.get("type") != "null")
    return prop.get("minimum"), prop.get("maximum")


@COMMANDS
def test_the_api_model_of_every_command_is_its_declaration(cls: type[HostInput]) -> None:
    schema = _schema(cls)
    fields = fields_of(cls)
    assert schema["title"] == "".join(p.title() for p in cls.TYPE.split("_")) + "Cmd"
    assert schema["properties"]["type"]["const"] == cls.TYPE
    assert set(schema["properties"]) == {"type"} | {f.wire for f in fields}
    assert set(schema.get("required", [])) == {"type"} | {f.wire for f in fields if not f.optional}
    assert schema["additionalProperties"] is False
    for field in fields:
        prop = schema["properties"][field.wire]
        kind = field.kind
        if isinstance(kind, Whole):
            low = kind.low if kind.api_low is None else kind.api_low
            assert _range(prop) == (low, kind.high), field
        elif isinstance(kind, SeatNo):
            assert _range(prop) == (1, MAX_SEATS)
    # the request takes the sample, and the union holds exactly the declared commands
    request = models.CommandRequest.model_validate({"id": "c-1", "command": sample(cls)})
    assert request.command.model_dump(exclude_none=True) == sample(cls)


def test_the_api_takes_exactly_the_declared_commands() -> None:
    union = typing.get_args(typing.get_args(models.Command)[0])
    assert [m.model_json_schema()["properties"]["type"]["const"] for m in union] == [
        cls.TYPE for cls in HOST_COMMANDS
    ]
    assert list(models.COMMAND_MODELS) == list(COMMAND_TYPES)


# -- the engine --------------------------------------------------------------------


@COMMANDS
def test_the_engine_dispatches_every_command_to_its_declared_handler(
    cls: type[HostInput],
) -> None:
    owner: type = Game if cls.SPEC.handler is Handler.GAME else GameCore
    other: type = GameCore if owner is Game else Game
    assert owner._HANDLERS[cls] == "_on_" + cls.TYPE  # type: ignore[attr-defined]
    assert callable(getattr(owner, "_on_" + cls.TYPE))
    assert cls not in other._HANDLERS  # type: ignore[attr-defined]
    assert _undoable(from_wire(cls, sample(cls), S)) is cls.SPEC.undoable


# -- the host-command service ------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.ns = 100 * S

    def __call__(self) -> int:
        return self.ns


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    controller = Controller.new({**demo_header(), "settle_ms": 0}, None, Clock())
    yield Runtime(controller)  # stepped by hand (execute steps it)


@COMMANDS
def test_the_service_checks_the_sender_and_the_pause_by_the_declaration(
    cls: type[HostInput], runtime: Runtime
) -> None:
    commands = runtime.commands
    by_buttons = commands.execute(sample(cls), sender=Sender.BUTTONS)
    assert (by_buttons.refusal is not None and by_buttons.refusal.code == "not_allowed") is (
        Sender.BUTTONS not in cls.SPEC.senders
    )
    assert commands.execute({"type": "pause"}).accepted
    assert commands.paused
    paused = commands.execute(sample(cls))
    refused_for_the_pause = paused.refusal is not None and paused.refusal.code == "paused"
    assert refused_for_the_pause is (cls.SPEC.while_paused is WhilePaused.REFUSED), paused


@COMMANDS
def test_the_service_s_stale_check_is_the_declared_context(
    cls: type[HostInput], runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = runtime.commands
    assert commands.execute({"type": "correction", "seat": 1, "delta": 5, "reason": "r"}).accepted
    for key in typing.get_type_hints(GameSnapshot):
        now = runtime.controller.snapshot()  # (a command that went through changed it)
        then = {**now, key: "something else"}  # the host's view: only ``key`` differs
        monkeypatch.setattr(commands, "snapshot_at", lambda version, then=then: then)
        outcome = commands.execute(sample(cls), version=now["version"] - 1)
        stale = outcome.refusal is not None and outcome.refusal.code == "stale"
        assert stale is (key in cls.SPEC.context), key


# -- the places a command is named --------------------------------------------------

#: The declaration.
DECLARATION = "buzzer/arbiter/events.py"
#: The engine: the handlers (``_on_<TYPE>``) and what they use.
ENGINE = ("rules/", "buzzer/core.py")
#: Entrances that send a given command (a use, not a list), by its type: each names
#: only those, by class or by type.
USES = {
    # the pin map's host buttons: the reading and the verdicts (Sender.BUTTONS)
    "hardware/buttons.py": {"reading_start", "reading_end", "judge"},
    # the board's host keys: the same (Sender.BUTTONS)
    "display/keyboard.py": {"reading_start", "reading_end", "judge"},
    # the self-test plays one question
    "hardware/selftest_game.py": {"select", "reading_start", "reading_end", "judge", "timeout"},
}
#: The modules made from the declaration: they name no command, by class or by type.
DERIVED = (
    "buzzer/journal/codec.py",
    "buzzer/journal/encode.py",
    "buzzer/panel/models.py",
    "buzzer/panel/gate.py",
    "buzzer/panel/hub.py",
    "buzzer/panel/app.py",
    "buzzer/runtime/host_commands.py",
    "buzzer/runtime/command_log.py",
    "buzzer/runtime/runtime.py",
    "buzzer/app/inputs.py",
)
PACKAGES = ("buzzer", "rules", "display", "hardware", "firmware_bridge")
COMMAND_TYPES_BY_NAME = {cls.__name__: cls.TYPE for cls in HOST_COMMANDS}


def _imported_commands(path: Path) -> set[str]:
    """The command classes a module takes from the declaration (by import or attribute)."""
    names = {cls.__name__ for cls in HOST_COMMANDS}
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "buzzer.arbiter.events":
            found |= {alias.name for alias in node.names if alias.name in names}
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in names
            and isinstance(node.value, ast.Name)
            and node.value.id in ("events", "ev")
        ):
            found.add(node.attr)
    return found


def _type_literals(path: Path) -> set[str]:
    types = set(COMMAND_TYPES)
    return {
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in types
    }


def test_a_command_is_named_only_by_its_declaration_its_handler_and_its_senders() -> None:
    """The list of places: every module of the code that names a command class is the
    declaration, the engine, or an entrance sending that very command."""
    places: dict[str, set[str]] = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            for name in _imported_commands(path):
                places.setdefault(name, set()).add(rel)
    for cls in HOST_COMMANDS:
        where = places.get(cls.__name__, set()) - {DECLARATION}
        others = {p for p in where if not p.startswith(ENGINE)}
        assert all(cls.TYPE in USES.get(p, set()) for p in others), (cls.__name__, others)
    for path, sent in USES.items():  # the entrances name what they send, no more
        named = {COMMAND_TYPES_BY_NAME[n] for n in _imported_commands(REPO / path)}
        assert named | _type_literals(REPO / path) <= sent, path
        # the host's buttons and keys send only what the declaration lets them
        if path != "hardware/selftest_game.py":
            assert all(Sender.BUTTONS in COMMAND_TYPES[t].SPEC.senders for t in sent), path


@pytest.mark.parametrize("path", DERIVED)
def test_what_is_made_from_the_declaration_lists_no_command(path: str) -> None:
    """No per-command table is left: neither a class nor a ``type`` name."""
    module = REPO / path
    assert _imported_commands(module) == set(), path
    assert _type_literals(module) == set(), path


def test_the_wire_form_round_trips_every_command() -> None:
    for cls in HOST_COMMANDS:
        item = from_wire(cls, sample(cls), 7 * S)
        assert isinstance(item, cls) and {"type": cls.TYPE, **to_wire(item)} == sample(cls)
