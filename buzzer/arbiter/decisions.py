"""Decisions: what the core tells the outside world.

Each decision knows how to write itself as one docs/journal-contract.md output line. The
lines are formatted by hand rather than through ``json.dumps``: the replay of
a long journal spends most of its time here, and every field is a number or
a fixed ASCII word (see ``bench/arbiter.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

from buzzer.arbiter.params import NS_PER_S


def seconds(t_ns: int) -> float:
    """Nanoseconds on the game clock → the journal's float seconds."""
    return t_ns / NS_PER_S


@dataclass(slots=True, frozen=True)
class Recognized:
    """This player has the right to answer now."""

    t: int
    seat: int
    TYPE: ClassVar[str] = "recognized"

    def to_json(self) -> str:
        return f'{{"t": {seconds(self.t)!r}, "type": "recognized", "seat": {self.seat}}}'


@dataclass(slots=True, frozen=True)
class ReadingInterrupted:
    """A press during the reading stopped it (read-interrupt systems)."""

    t: int
    seat: int
    TYPE: ClassVar[str] = "reading_interrupted"

    def to_json(self) -> str:
        return f'{{"t": {seconds(self.t)!r}, "type": "reading_interrupted", "seat": {self.seat}}}'


@dataclass(slots=True, frozen=True)
class ReadingResumed:
    """After a wrong answer the interrupted reading goes on for the others (C2003-2.4.1c)."""

    t: int
    TYPE: ClassVar[str] = "reading_resumed"

    def to_json(self) -> str:
        return f'{{"t": {seconds(self.t)!r}, "type": "reading_resumed"}}'


@dataclass(slots=True, frozen=True)
class FalseStart:
    """An early press locked this button until ``locked_until``."""

    t: int
    seat: int
    locked_until: int
    TYPE: ClassVar[str] = "false_start"

    def to_json(self) -> str:
        return (
            f'{{"t": {seconds(self.t)!r}, "type": "false_start", "seat": {self.seat}, '
            f'"locked_until": {seconds(self.locked_until)!r}}}'
        )


@dataclass(slots=True, frozen=True)
class Ignored:
    """A press that had no effect, and why.

    ``behind_us`` is set for a press that lost to the recognized player: how
    many microseconds after the winner's press it happened (0 for a lost draw).

    ``check`` marks a press made while no question is open (A-G-D2, the game on
    the board): a button check, which the lamps and the board show ("your button
    works") and which decides nothing. It is not written to the line: the line
    says what it always said (the press was ignored, and why), so journals from
    before it replay byte for byte; the replay makes the same ``Ignored``, with
    the same ``check``, from the same inputs.

    A ``late`` press reached the game after its time was decided (its input was
    starved: a busy CPU, a stalled source). ``late_us`` says by how much: how far
    the game's clock had gone past its stamp when it came. ``ahead_of`` and
    ``ahead_us`` name the player who got the floor meanwhile when this press was
    earlier than theirs, and by how much: the decision stands (the arbiter never
    takes the floor back), and the host, told so, may award it with a correction.
    """

    t: int
    seat: int
    reason: str
    behind_us: int | None = None
    check: bool = False
    late_us: int | None = None
    ahead_of: int | None = None
    ahead_us: int | None = None
    TYPE: ClassVar[str] = "ignored"

    def to_json(self) -> str:
        head = f'{{"t": {seconds(self.t)!r}, "type": "ignored", "seat": {self.seat}, '
        if self.late_us is not None:
            line = f'{head}"reason": "{self.reason}", "late_us": {self.late_us}'
            if self.ahead_of is None:
                return line + "}"
            return f'{line}, "ahead_of": {self.ahead_of}, "ahead_us": {self.ahead_us}}}'
        if self.behind_us is None:
            return f'{head}"reason": "{self.reason}"}}'
        return f'{head}"reason": "{self.reason}", "behind_us": {self.behind_us}}}'


@dataclass(slots=True, frozen=True)
class Tie:
    """Presses with exactly equal timestamps; ``recognized`` follows with the drawn winner."""

    t: int
    seats: tuple[int, ...]
    TYPE: ClassVar[str] = "tie"

    def to_json(self) -> str:
        seats = ", ".join(str(s) for s in self.seats)
        return f'{{"t": {seconds(self.t)!r}, "type": "tie", "seats": [{seats}]}}'


@dataclass(slots=True, frozen=True)
class WindowOpened:
    """The press window is open until ``closes_at`` (a press at exactly that instant is in time)."""

    t: int
    closes_at: int
    TYPE: ClassVar[str] = "window_opened"

    def to_json(self) -> str:
        return (
            f'{{"t": {seconds(self.t)!r}, "type": "window_opened", '
            f'"closes_at": {seconds(self.closes_at)!r}}}'
        )


@dataclass(slots=True, frozen=True)
class WindowClosed:
    """Nobody pressed in time; ``t`` is the window's ``closes_at``."""

    t: int
    TYPE: ClassVar[str] = "window_closed"

    def to_json(self) -> str:
        return f'{{"t": {seconds(self.t)!r}, "type": "window_closed"}}'


@dataclass(slots=True, frozen=True)
class Score:
    """A score changed by ``delta`` to ``score``."""

    t: int
    seat: int
    delta: int
    score: int
    TYPE: ClassVar[str] = "score"

    def to_json(self) -> str:
        return (
            f'{{"t": {seconds(self.t)!r}, "type": "score", "seat": {self.seat}, '
            f'"delta": {self.delta}, "score": {self.score}}}'
        )


@dataclass(slots=True, frozen=True)
class Chooser:
    """Who chooses the next question (emitted when a question closes)."""

    t: int
    seat: int
    TYPE: ClassVar[str] = "chooser"

    def to_json(self) -> str:
        return f'{{"t": {seconds(self.t)!r}, "type": "chooser", "seat": {self.seat}}}'


@dataclass(slots=True, frozen=True)
class FirstChooser:
    """Who chooses first, and how that was decided (``header`` or ``draw``)."""

    t: int
    seat: int
    how: str
    TYPE: ClassVar[str] = "first_chooser"

    def to_json(self) -> str:
        return (
            f'{{"t": {seconds(self.t)!r}, "type": "first_chooser", "seat": {self.seat}, '
            f'"how": "{self.how}"}}'
        )


@dataclass(slots=True, frozen=True)
class QuestionSelected:
    """A question was opened: its round (1-based), theme (1-based) and price."""

    t: int
    round: int
    theme: int
    price: int
    TYPE: ClassVar[str] = "question"

    def to_json(self) -> str:
        return (
            f'{{"t": {seconds(self.t)!r}, "type": "question", "round": {self.round}, '
            f'"theme": {self.theme}, "price": {self.price}}}'
        )


@dataclass(slots=True, frozen=True)
class RoundStarted:
    """The board moved on to the next round (1-based ``round``)."""

    t: int
    round: int
    name: str
    TYPE: ClassVar[str] = "round_started"

    def to_json(self) -> str:
        return (
            f'{{"t": {seconds(self.t)!r}, "type": "round_started", "round": {self.round}, '
            f'"name": {json.dumps(self.name, ensure_ascii=False)}}}'
        )


@dataclass(slots=True, frozen=True)
class Note:
    """A decision of the full game (special questions, the final, corrections).

    These are rare next to presses, so one generic type written through
    ``json.dumps`` serves them all; ``fields`` keep their order in the line.
    """

    t: int
    type: str
    fields: tuple[tuple[str, object], ...] = ()

    @property
    def TYPE(self) -> str:
        return self.type

    def get(self, name: str) -> object:
        for key, value in self.fields:
            if key == name:
                return value
        raise KeyError(name)

    def to_json(self) -> str:
        record: dict[str, object] = {"t": seconds(self.t), "type": self.type}
        record.update(self.fields)
        return json.dumps(record, ensure_ascii=False)


Decision = (
    Recognized
    | ReadingInterrupted
    | ReadingResumed
    | FalseStart
    | Ignored
    | Tie
    | WindowOpened
    | WindowClosed
    | Score
    | Chooser
    | FirstChooser
    | QuestionSelected
    | RoundStarted
    | Note
)
