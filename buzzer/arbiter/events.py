"""Timestamped inputs: the only way anything reaches the pure core.

Every input carries ``t``, integer nanoseconds on the game's monotonic clock,
stamped *at its source* (the GPIO edge, the microcontroller's pin, the host's
tap). ``ref`` is an opaque back-reference (the journal line number, a
sequence id) used only to name the input in an error message.

``TYPE`` is the input's name in the journal (its ``type`` field) and on the
panel's API; :data:`INPUT_TYPES` maps it back to the class.

``PRIORITY`` orders inputs that share a timestamp: host inputs apply before
presses (JOURNAL.md: a press at the very instant of the signal is not a false
start), presses before releases.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar, get_args

HOST = 0
PRESS = 1
RELEASE = 2


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
class Select:
    """The chooser picked a question. ``theme`` and ``price`` both None: the next
    question in order (SPORT-1's package order in the sport systems and the
    shootout; elsewhere the board's reading order, see ``Board.next_in_reading_order``)."""

    t: int
    theme: int | None
    price: int | None
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "select"


@dataclass(slots=True, frozen=True)
class ReadingStart:
    """The host starts, or resumes, reading the question aloud."""

    t: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "reading_start"


@dataclass(slots=True, frozen=True)
class ReadingEnd:
    """The host finished reading: the signal (the TV lamp) moment, ``t_end``."""

    t: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "reading_end"


@dataclass(slots=True, frozen=True)
class Judge:
    """The host's verdict on the recognized player's answer."""

    t: int
    correct: bool
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "judge"


@dataclass(slots=True, frozen=True)
class Timeout:
    """The host declares the question dead (no score change)."""

    t: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "timeout"


@dataclass(slots=True, frozen=True)
class Draw:
    """The outcome of a draw by lot, recorded by a live game so that a replay
    reproduces it whatever the random generator (JOURNAL.md)."""

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
class Bid:
    """A bid on a stake question / auction; an all-in is a bid of the whole score."""

    t: int
    seat: int
    amount: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "bid"


@dataclass(slots=True, frozen=True)
class Pass:
    """A player leaves the bidding (TV-S-AUC-4)."""

    t: int
    seat: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "pass"


@dataclass(slots=True, frozen=True)
class CatGive:
    """The opener hands the cat in the bag to ``seat`` (TV-S-CAT-1)."""

    t: int
    seat: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "cat_give"


@dataclass(slots=True, frozen=True)
class CatPicture:
    """The next picture of a picture-series cat is shown (TV-S-CAT-5): the answer
    is now worth the series' next, smaller value."""

    t: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "cat_picture"


@dataclass(slots=True, frozen=True)
class BonusReply:
    """The player offered the 1995 bonus contest accepts it or declines (TV-H-1995-03)."""

    t: int
    accept: bool
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "bonus"


@dataclass(slots=True, frozen=True)
class CatPrice:
    """The cat's value: the receiver's min/max choice, or the editors' fixed value."""

    t: int
    price: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "cat_price"


@dataclass(slots=True, frozen=True)
class FinalRemove:
    """The player whose turn it is removes a final theme (1-based)."""

    t: int
    theme: int
    seat: int | None = None
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "final_remove"


@dataclass(slots=True, frozen=True)
class FinalStake:
    """A player's hidden final stake; ``None``: no stake was handed in (C2003-2.7-D3)."""

    t: int
    seat: int
    amount: int | None
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "final_stake"


@dataclass(slots=True, frozen=True)
class FinalJudge:
    """The verdict on a written final answer (judged in ascending order of score)."""

    t: int
    correct: bool
    seat: int | None = None
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "final_judge"


@dataclass(slots=True, frozen=True)
class Correction:
    """The host corrects a score by hand, with a reason (TOUR-1.9)."""

    t: int
    seat: int
    delta: int
    reason: str = ""
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "correction"


@dataclass(slots=True, frozen=True)
class Objection:
    """An accepted objection or dual answer: the seat's wrong verdict on the
    question just played becomes right (TOUR-3.7)."""

    t: int
    seat: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "objection"


@dataclass(slots=True, frozen=True)
class Undo:
    """Undo the host command journaled as line ``line`` (history is not rewritten:
    the undo is itself an input, and the state is rebuilt without that command)."""

    t: int
    line: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "undo"


@dataclass(slots=True, frozen=True)
class Pause:
    """The host stops the game (A-G-D1): every clock stands still from ``t``
    until the :class:`Resume`, and a press meanwhile is ``ignored``/``paused``."""

    t: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "pause"


@dataclass(slots=True, frozen=True)
class Resume:
    """The host ends the pause (A-G-D1): every pending deadline moves on by the
    pause's length, measured from the two lines' own stamps."""

    t: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST
    TYPE: ClassVar[str] = "resume"


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


HostCommand = (
    Select
    | ReadingStart
    | ReadingEnd
    | Judge
    | Timeout
    | Bid
    | Pass
    | CatGive
    | CatPrice
    | CatPicture
    | BonusReply
    | FinalRemove
    | FinalStake
    | FinalJudge
    | Correction
    | Objection
    | Pause
    | Resume
)
Input = Press | Release | Draw | Tick | Undo | Fault | HostCommand

#: Every input class, and the host commands among them (the host's panel, the
#: command log), in one place: the journal's encoder, the panel's command
#: list and its hub read these, never a list of their own.
INPUT_CLASSES: tuple[type[Input], ...] = get_args(Input)
HOST_COMMANDS: tuple[type[HostCommand], ...] = get_args(HostCommand)
#: An input's journal ``type`` (its ``TYPE`` tag, as decisions have) → its class.
INPUT_TYPES: Mapping[str, type[Input]] = MappingProxyType({c.TYPE: c for c in INPUT_CLASSES})
