"""Timestamped inputs: the only way anything reaches the pure core.

Every input carries ``t``, integer nanoseconds on the game's monotonic clock,
stamped *at its source* (the GPIO edge, the microcontroller's pin, the host's
tap). ``ref`` is an opaque back-reference (the journal line number, a
sequence id) used only to name the input in an error message.

``TYPE`` is the input's name in the journal (its ``type`` field) and on the
panel's API; :data:`INPUT_TYPES` maps it back to the class.

A host command derives from :class:`HostInput`, and its class is its whole
declaration: its fields' limits (``Annotated``) and its ``SPEC`` — who may
send it, whether it can be undone, what it means while paused, what makes a
tap on it stale, which part of the engine handles it (buzzer/arbiter/commands.py).

``PRIORITY`` orders inputs that share a timestamp: host inputs apply before
presses (docs/journal-contract.md: a press at the very instant of the signal is not a false
start), presses before releases.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Annotated, Any, ClassVar

from buzzer.arbiter.commands import (
    MAX_POINTS,
    Correct,
    Handler,
    Seat,
    Sender,
    Spec,
    Text,
    WhilePaused,
    Whole,
    YesNo,
)

HOST = 0
PRESS = 1
RELEASE = 2

PANEL, BUTTONS = Sender.PANEL, Sender.BUTTONS
ALLOWED = WhilePaused.ALLOWED
#: A stake, a bid, a price: the journal takes 1 and up; the panel takes 0 too, so
#: that the host is told why in a sentence (the journal refuses it all the same).
Points = Annotated[int, Whole(1, MAX_POINTS, api_low=0)]

#: Every declared host command by its ``TYPE``, in the order declared.
_DECLARED: dict[str, type[HostInput]] = {}


class HostInput:
    """A host command: what the host decides, from the panel, a host button or a key.

    The base of every declared command. Its subclasses are frozen dataclasses
    (``t``, their fields, ``ref``) with a ``TYPE`` and a ``SPEC``; defining one
    registers it (:data:`HOST_COMMANDS`). Host inputs apply first among inputs
    of the same instant.
    """

    __slots__ = ()
    #: (Every subclass is a dataclass: ``dataclasses.replace`` takes any input.)
    __dataclass_fields__: ClassVar[dict[str, Any]]
    t: int
    ref: int
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str]
    SPEC: ClassVar[Spec] = Spec()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # dataclass(slots=True) makes the class twice: the second one stays.
        _DECLARED[cls.TYPE] = cls


@dataclass(slots=True, frozen=True)
class Press:
    """A player's button went down."""

    t: int
    seat: int
    ref: int = 0
    PRIORITY: ClassVar[int] = PRESS
    TYPE: ClassVar[str] = "press"


@dataclass(slots=True, frozen=True)
class Release:
    """A player's button went up (no effect on who answers; stuck-button detection)."""

    t: int
    seat: int
    ref: int = 0
    PRIORITY: ClassVar[int] = RELEASE
    TYPE: ClassVar[str] = "release"


@dataclass(slots=True, frozen=True)
class Select(HostInput):
    """The chooser picked a question. ``theme`` and ``price`` both None: the next
    question in order (SPORT-1's package order in the sport systems and the
    shootout; elsewhere the board's reading order, see ``Board.next_in_reading_order``)."""

    t: int
    theme: Annotated[int, Whole(1, 1000)] | None
    price: Points | None
    ref: int = 0
    TYPE: ClassVar[str] = "select"
    SPEC: ClassVar[Spec] = Spec(
        context=("stage", "round", "chooser", "shootout"), together=("theme", "price")
    )


@dataclass(slots=True, frozen=True)
class ReadingStart(HostInput):
    """The host starts, or resumes, reading the question aloud."""

    t: int
    ref: int = 0
    TYPE: ClassVar[str] = "reading_start"
    SPEC: ClassVar[Spec] = Spec(
        context=("stage", "cell", "phase", "answering"), senders=PANEL | BUTTONS
    )


@dataclass(slots=True, frozen=True)
class ReadingEnd(HostInput):
    """The host finished reading: the signal (the TV lamp) moment, ``t_end``."""

    t: int
    ref: int = 0
    TYPE: ClassVar[str] = "reading_end"
    SPEC: ClassVar[Spec] = Spec(
        context=("stage", "cell", "phase", "answering"), senders=PANEL | BUTTONS
    )


@dataclass(slots=True, frozen=True)
class Judge(HostInput):
    """The host's verdict on the recognized player's answer."""

    t: int
    correct: Correct
    ref: int = 0
    TYPE: ClassVar[str] = "judge"
    SPEC: ClassVar[Spec] = Spec(
        context=("stage", "cell", "answering", "recognized_at"), senders=PANEL | BUTTONS
    )


@dataclass(slots=True, frozen=True)
class Timeout(HostInput):
    """The host declares the question dead (no score change)."""

    t: int
    ref: int = 0
    TYPE: ClassVar[str] = "timeout"
    SPEC: ClassVar[Spec] = Spec(context=("stage", "cell", "phase", "answering"))


@dataclass(slots=True, frozen=True)
class Draw:
    """The outcome of a draw by lot, recorded by a live game so that a replay
    reproduces it whatever the random generator (docs/journal-contract.md)."""

    t: int
    seats: tuple[int, ...]
    winner: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "draw"


@dataclass(slots=True, frozen=True)
class Tick:
    """Time has passed on the host clock with no other input.

    A live controller feeds ticks so that deadlines (the settle window, the
    press window) fire on time; it journals a tick only when one changed
    something, so a replay makes the same decisions at the same points.
    """

    t: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "tick"


# -- host commands of the full game (special questions, the final, corrections) --


@dataclass(slots=True, frozen=True)
class Bid(HostInput):
    """A bid on a stake question / auction; an all-in is a bid of the whole score."""

    t: int
    seat: Seat
    amount: Points
    ref: int = 0
    TYPE: ClassVar[str] = "bid"
    SPEC: ClassVar[Spec] = Spec(context=("stage", "cell", "bidding"))


@dataclass(slots=True, frozen=True)
class Pass(HostInput):
    """A player leaves the bidding (TV-S-AUC-4)."""

    t: int
    seat: Seat
    ref: int = 0
    TYPE: ClassVar[str] = "pass"
    SPEC: ClassVar[Spec] = Spec(context=("stage", "cell", "bidding"))


@dataclass(slots=True, frozen=True)
class BidderPick(HostInput):
    """The host picks who bids now among players with equal scores (TV-S-AUC-3:
    «игрока выбирает ведущий»); without it the order drawn by lot stands."""

    t: int
    seat: Seat
    ref: int = 0
    TYPE: ClassVar[str] = "bidder_pick"
    SPEC: ClassVar[Spec] = Spec(context=("stage", "cell", "bidding"))


@dataclass(slots=True, frozen=True)
class CatGive(HostInput):
    """The opener hands the cat in the bag to ``seat`` (TV-S-CAT-1)."""

    t: int
    seat: Seat
    ref: int = 0
    TYPE: ClassVar[str] = "cat_give"
    SPEC: ClassVar[Spec] = Spec(context=("stage", "cell"))


@dataclass(slots=True, frozen=True)
class CatPicture(HostInput):
    """The next picture of a picture-series cat is shown (TV-S-CAT-5): the answer
    is now worth the series' next, smaller value."""

    t: int
    ref: int = 0
    TYPE: ClassVar[str] = "cat_picture"
    SPEC: ClassVar[Spec] = Spec(context=("stage", "cell", "cat_series"))


@dataclass(slots=True, frozen=True)
class BonusReply(HostInput):
    """The player offered the 1995 bonus contest accepts it or declines (TV-H-1995-03)."""

    t: int
    accept: Annotated[bool, YesNo()]
    ref: int = 0
    TYPE: ClassVar[str] = "bonus"
    SPEC: ClassVar[Spec] = Spec(context=("stage", "bonus"))


@dataclass(slots=True, frozen=True)
class CatPrice(HostInput):
    """The cat's value: the receiver's min/max choice, or the editors' fixed value."""

    t: int
    price: Points
    ref: int = 0
    TYPE: ClassVar[str] = "cat_price"
    SPEC: ClassVar[Spec] = Spec(context=("stage", "cell", "answering"))


@dataclass(slots=True, frozen=True)
class FinalRemove(HostInput):
    """The player whose turn it is removes a final theme (1-based)."""

    t: int
    theme: Annotated[int, Whole(1, 100)]
    seat: Seat | None = None
    ref: int = 0
    TYPE: ClassVar[str] = "final_remove"
    SPEC: ClassVar[Spec] = Spec(context=("stage", "final"))


@dataclass(slots=True, frozen=True)
class FinalStake(HostInput):
    """A player's hidden final stake; ``None``: no stake was handed in (C2003-2.7-D3)."""

    t: int
    seat: Seat
    amount: Points | None
    ref: int = 0
    TYPE: ClassVar[str] = "final_stake"
    SPEC: ClassVar[Spec] = Spec(context=("stage",))


@dataclass(slots=True, frozen=True)
class FinalJudge(HostInput):
    """The verdict on a written final answer (judged in ascending order of score)."""

    t: int
    correct: Correct
    seat: Seat | None = None
    ref: int = 0
    TYPE: ClassVar[str] = "final_judge"
    SPEC: ClassVar[Spec] = Spec(context=("stage", "final"))


@dataclass(slots=True, frozen=True)
class Correction(HostInput):
    """The host corrects a score by hand, with a reason (TOUR-1.9)."""

    t: int
    seat: Seat
    delta: Annotated[int, Whole(-MAX_POINTS, MAX_POINTS, nonzero="a correction changes a score")]
    reason: Annotated[str, Text(500, api_min=1)] = ""
    ref: int = 0
    TYPE: ClassVar[str] = "correction"
    SPEC: ClassVar[Spec] = Spec(while_paused=ALLOWED)


@dataclass(slots=True, frozen=True)
class Objection(HostInput):
    """An accepted objection or dual answer: the seat's wrong verdict on the
    question just played becomes right (TOUR-3.7)."""

    t: int
    seat: Seat
    ref: int = 0
    TYPE: ClassVar[str] = "objection"
    SPEC: ClassVar[Spec] = Spec(context=("stage", "played", "round"), while_paused=ALLOWED)


@dataclass(slots=True, frozen=True)
class Substitute(HostInput):
    """Another player takes ``seat`` before round 3, keeping its score (SER-CC1-SUB:
    the June 2002 grandmaster change); the journal names both players."""

    t: int
    seat: Seat
    name: Annotated[str, Text(100, api_min=1)]
    ref: int = 0
    TYPE: ClassVar[str] = "substitute"
    SPEC: ClassVar[Spec] = Spec(context=("stage", "round", "players"), while_paused=ALLOWED)


@dataclass(slots=True, frozen=True)
class Undo(HostInput):
    """Undo the host command journaled as line ``line`` (history is not rewritten:
    the undo is itself an input, and the state is rebuilt without that command)."""

    t: int
    line: Annotated[int, Whole(2, 10**9, api_low=1)]
    ref: int = 0
    TYPE: ClassVar[str] = "undo"
    SPEC: ClassVar[Spec] = Spec(undoable=False, while_paused=ALLOWED, handler=Handler.CORE)


@dataclass(slots=True, frozen=True)
class Pause(HostInput):
    """The host stops the game (A-G-D1): every clock stands still from ``t``
    until the :class:`Resume`, and a press meanwhile is ``ignored``/``paused``."""

    t: int
    ref: int = 0
    TYPE: ClassVar[str] = "pause"
    SPEC: ClassVar[Spec] = Spec(undoable=False, while_paused=WhilePaused.PAUSES)


@dataclass(slots=True, frozen=True)
class Resume(HostInput):
    """The host ends the pause (A-G-D1): every pending deadline moves on by the
    pause's length, measured from the two lines' own stamps."""

    t: int
    ref: int = 0
    TYPE: ClassVar[str] = "resume"
    SPEC: ClassVar[Spec] = Spec(undoable=False, while_paused=WhilePaused.RESUMES)


@dataclass(slots=True, frozen=True)
class Fault:
    """A live input source stopped (``ok`` False) or resumed (``ok`` True) proving its time.

    Journaled by the live runtime (``buzzer/runtime``) when a source — the
    Pico link, the GPIO pump — stays silent past the runtime's wait bound:
    time then moves on without it, and a press it delivers later for a time
    already decided is ``late``. The line makes that visible in the replay
    (a ``source_fault`` note); it decides nothing.
    """

    t: int
    source: str
    ok: bool
    detail: str = ""
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "fault"


Input = Press | Release | Draw | Tick | Fault | HostInput

#: Every host command, in the order declared: the journal's codec, the panel's
#: models, the command service and the engine's dispatch are made from these
#: (buzzer/arbiter/commands.py), never from a list of their own.
HOST_COMMANDS: tuple[type[HostInput], ...] = tuple(_DECLARED.values())
#: Every input class: the sources' own inputs, then the host commands.
INPUT_CLASSES: tuple[type[Input], ...] = (Press, Release, Draw, Tick, Fault, *HOST_COMMANDS)
#: An input's journal ``type`` (its ``TYPE`` tag, as decisions have) → its class.
INPUT_TYPES: Mapping[str, type[Input]] = MappingProxyType({c.TYPE: c for c in INPUT_CLASSES})
#: A host command's ``TYPE`` → its class.
COMMAND_TYPES: Mapping[str, type[HostInput]] = MappingProxyType(dict(_DECLARED))
