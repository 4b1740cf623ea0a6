"""How a host command is declared: once, and everything else is made from it.

A host command (the host's select, verdict, bid, correction, pause …) is one
frozen dataclass in :mod:`buzzer.arbiter.events`, deriving from
``HostInput``. That class is the command's whole declaration:

- ``TYPE``: its name in the journal and on the panel's API;
- its fields, each ``Annotated`` with what it holds and its limits
  (:class:`Whole`, :class:`SeatNo`, :class:`Verdict`, :class:`YesNo`,
  :class:`Text`; ``| None`` when it may be left out);
- ``SPEC`` (:class:`Spec`): who may send it, whether an undo can take it back,
  what it means while the game is paused, which parts of the state make a tap
  on it stale, and which part of the engine handles it.

From these the journal's parser and encoder (``buzzer/journal``), the panel's
request models and OpenAPI schema (``buzzer/panel/models.py``), the host-command
service's stale check, pause and sender check (``buzzer/runtime/host_commands.py``)
and the engine's dispatch (``_on_<TYPE>`` of ``rules.game.Game`` or
``buzzer.core.GameCore``) are derived; none of them lists the commands. A new
command is its class and its handler, nothing else
(``tests/buzzer/arbiter/test_command_declaration.py`` lists the places).

This module is the declaration's vocabulary and the generic readers of it; it
imports nothing of the game, so every layer may use it.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

#: The largest stake, price or correction a command may carry (beyond it: a corrupt line).
MAX_POINTS = 10**9
#: The most players a game may have (the journal header's limit).
MAX_SEATS = 16


# -- what a field holds ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Whole:
    """A whole number in ``low..high``: what the journal may hold.

    ``api_low``: the panel takes values from here up, below ``low``, so that the
    service answers them with the host's sentence (409 «Стоимость кота —
    положительное число») instead of a schema error; the journal still refuses
    them, so they never reach it. ``nonzero``: 0 is refused, and why.
    """

    low: int
    high: int
    api_low: int | None = None
    nonzero: str | None = None


@dataclass(frozen=True, slots=True)
class SeatNo:
    """A player's seat: 1..the game's players (the API: 1..MAX_SEATS, then the game's)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A verdict: a bool in the engine, ``"verdict": "correct" | "wrong"`` on the wire."""

    wire: str = "verdict"


@dataclass(frozen=True, slots=True)
class YesNo:
    """A strict true / false (never 0 / 1)."""


@dataclass(frozen=True, slots=True)
class Text:
    """A text of at most ``max_length`` characters. ``api_min``: the host must give
    at least this many (a correction's reason); a journal line may lack it
    (older journals do), and then it is the field's default."""

    max_length: int
    api_min: int = 0


Kind = Whole | SeatNo | Verdict | YesNo | Text

#: The field annotations the declarations share.
Seat = typing.Annotated[int, SeatNo()]
Correct = typing.Annotated[bool, Verdict()]


# -- what the command is -----------------------------------------------------------


class Sender(enum.Flag):
    """Who may send a command."""

    #: The host's panel: every command (scripts and tests act as the panel).
    PANEL = enum.auto()
    #: The host's hardware buttons (GPIO) and the board's host keys: a few.
    BUTTONS = enum.auto()


class WhilePaused(enum.Enum):
    """What a command means while the game is paused (A-G-D1)."""

    #: It would move the game on: refused («Игра на паузе») until the resume.
    REFUSED = "refused"
    #: It applies during the pause (a correction, an objection, an undo).
    ALLOWED = "allowed"
    #: It pauses the game (the engine refuses it while paused: already paused).
    PAUSES = "pauses"
    #: It ends the pause (the engine refuses it while the game runs).
    RESUMES = "resumes"


class Handler(enum.Enum):
    """Which part of the engine applies a command: its method ``_on_<TYPE>``."""

    #: ``rules.game.Game``: the board, the questions, the final.
    GAME = "game"
    #: ``buzzer.core.GameCore``: what rebuilds the game itself (an undo).
    CORE = "core"


@dataclass(frozen=True, slots=True)
class Spec:
    """A host command's traits beyond its fields (the ``SPEC`` of its class)."""

    #: The snapshot fields whose change since the host's view makes a tap stale
    #: (the host tapped while looking at a state that no longer holds).
    context: tuple[str, ...] = ()
    senders: Sender = Sender.PANEL
    #: Whether ``undo`` can take it back.
    undoable: bool = True
    while_paused: WhilePaused = WhilePaused.REFUSED
    handler: Handler = Handler.GAME
    #: Fields given all together or not at all (a select's theme and price).
    together: tuple[str, ...] = ()


class Declared(typing.Protocol):
    """What a declared command class offers (``HostInput`` in events.py)."""

    TYPE: typing.ClassVar[str]
    SPEC: typing.ClassVar[Spec]


@dataclass(frozen=True, slots=True)
class CommandField:
    """One field of a command, read from its declaration."""

    #: The dataclass field.
    name: str
    #: Its key in the journal line and in the API's JSON.
    wire: str
    kind: Kind
    #: ``None`` allowed: left out of the line, ``null`` (or left out) on the API.
    optional: bool
    #: The dataclass default (``dataclasses.MISSING``: required).
    default: Any


#: fields_of's answers (a class's declaration never changes).
_FIELDS: dict[type, tuple[CommandField, ...]] = {}


def fields_of(cls: type) -> tuple[CommandField, ...]:
    """The fields of the command ``cls`` (but ``t`` and ``ref``), as declared.

    Raises ``TypeError`` for a field whose annotation says nothing of what it
    holds: every field of a command must, for the codec and the API to take it.
    """
    known = _FIELDS.get(cls)
    if known is not None:
        return known
    hints = typing.get_type_hints(cls, include_extras=True)
    out: list[CommandField] = []
    for field in dataclasses.fields(cls):
        if field.name in ("t", "ref"):
            continue
        hint = hints[field.name]
        optional = False
        if typing.get_origin(hint) in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(hint) if a is not type(None)]
            optional = len(members) < len(typing.get_args(hint))
            hint = members[0] if len(members) == 1 else hint
        kind = next(
            (m for m in getattr(hint, "__metadata__", ()) if isinstance(m, Kind)),
            None,
        )
        if kind is None:
            raise TypeError(
                f"{cls.__name__}.{field.name}: a command's field must be Annotated with "
                "what it holds (Whole, SeatNo, Verdict, YesNo, Text)"
            )
        wire = kind.wire if isinstance(kind, Verdict) else field.name
        out.append(CommandField(field.name, wire, kind, optional, field.default))
    _FIELDS[cls] = tuple(out)
    return _FIELDS[cls]


# -- the wire form (the journal's fields, the API's JSON) --------------------------


def to_wire(item: Any) -> dict[str, Any]:
    """A command's fields as the journal and the API write them (no ``t``, no ``ref``):
    ``None`` left out, a verdict as ``"correct"`` / ``"wrong"``."""
    record: dict[str, Any] = {}
    for field in fields_of(type(item)):
        value = getattr(item, field.name)
        if value is None:
            continue
        if isinstance(field.kind, Verdict):
            value = "correct" if value else "wrong"
        record[field.wire] = value
    return record


def from_wire(cls: Callable[..., Any], command: Mapping[str, Any], t: int) -> Any:
    """The command ``cls`` at ``t`` from its wire fields, as given (not checked: the
    panel's models and the journal's parser check; a value the journal refuses is
    refused when the controller checks the line, with the host's sentence)."""
    values: dict[str, Any] = {}
    for field in fields_of(typing.cast(type, cls)):
        if field.wire not in command or command[field.wire] is None:
            if field.optional or field.default is dataclasses.MISSING:
                values[field.name] = None
            continue  # the dataclass default
        value = command[field.wire]
        values[field.name] = value == "correct" if isinstance(field.kind, Verdict) else value
    return cls(t=t, **values)


# -- the engine's dispatch ---------------------------------------------------------


def dispatch_table(
    owner: type, handler: Handler, commands: tuple[type[Declared], ...]
) -> dict[type, str]:
    """``owner``'s handler of each command it applies: class → ``"_on_<TYPE>"``.

    A table of method names (not of bound methods) on the class: a game holds
    no closures, so a copy of it (the trial run) is a plain deep copy. Raises
    ``TypeError`` at import when a declared command has no handler there.
    """
    table: dict[type, str] = {}
    for cls in commands:
        if cls.SPEC.handler is not handler:
            continue
        name = "_on_" + cls.TYPE
        if not callable(getattr(owner, name, None)):
            raise TypeError(
                f"{owner.__name__} has no {name}: the handler of the declared command "
                f"{cls.__name__} ({handler.value})"
            )
        table[cls] = name
    return table
