"""Timestamped inputs: the only way anything reaches the pure core.

Every input carries ``t``, integer nanoseconds on the game's monotonic clock,
stamped *at its source* (the GPIO edge, the microcontroller's pin, the host's
tap). ``ref`` is an opaque back-reference (the journal line number, a
sequence id) used only to name the input in an error message.

``PRIORITY`` orders inputs that share a timestamp: host inputs apply before
presses (JOURNAL.md: a press at the very instant of the signal is not a false
start), presses before releases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

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


@dataclass(slots=True, frozen=True)
class Release:
    """A player's button went up (no effect on who answers; stuck-button detection)."""

    t: int
    seat: int
    ref: int = 0
    PRIORITY: ClassVar[int] = RELEASE


@dataclass(slots=True, frozen=True)
class Select:
    """The chooser picked a question. ``theme``/``price`` may be None where the
    rule system fixes the order (SPORT-1: the next question in the package)."""

    t: int
    theme: int | None
    price: int | None
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST


@dataclass(slots=True, frozen=True)
class ReadingStart:
    """The host starts, or resumes, reading the question aloud."""

    t: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST


@dataclass(slots=True, frozen=True)
class ReadingEnd:
    """The host finished reading: the signal (the TV lamp) moment, ``t_end``."""

    t: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST


@dataclass(slots=True, frozen=True)
class Judge:
    """The host's verdict on the recognized player's answer."""

    t: int
    correct: bool
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST


@dataclass(slots=True, frozen=True)
class Timeout:
    """The host declares the question dead (no score change)."""

    t: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST


@dataclass(slots=True, frozen=True)
class Draw:
    """The outcome of a draw by lot, recorded by a live game so that a replay
    reproduces it whatever the random generator (JOURNAL.md)."""

    t: int
    seats: tuple[int, ...]
    winner: int
    ref: int = 0
    PRIORITY: ClassVar[int] = HOST


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


HostInput = Select | ReadingStart | ReadingEnd | Judge | Timeout
Input = Press | Release | Select | ReadingStart | ReadingEnd | Judge | Timeout | Draw | Tick
