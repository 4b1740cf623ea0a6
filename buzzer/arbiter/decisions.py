"""Decisions: what the core tells the outside world.

Each decision knows how to write itself as one docs/journal-contract.md output line. The
lines are formatted by hand rather than through ``json.dumps``: the replay of
a long journal spends most of its time here, and every field is a number or
a fixed ASCII word (see ``bench/arbiter.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
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


class NoteKind(StrEnum):
    """Every kind of :class:`Note`: its ``type`` word in the journal's output line.

    A ``StrEnum`` so that a member *is* its word: ``json.dumps``, ``str()`` and an
    f-string write the same bytes as the bare string did, and a consumer reading
    the JSON (a plain ``str``) compares equal to the member. The producers name a
    member, so mypy refuses a misspelt kind where a string would have journaled it.
    docs/journal.md lists each with its fields.
    """

    # -- the stake question («своя игра», the auction: C2003-2.4.6, TV-S-AUC-*) --
    #: A special question was opened: its kind, opener (and bidding order).
    SPECIAL = "special"
    #: A bid was accepted (``forced``: the opener's nominal stake, C2003-2.4.6a, TV-S-AUC-2).
    BID = "bid"
    #: A player left the bidding (``auto``: their score cannot beat the bid).
    PASS = "pass"
    #: Whose turn it is to bid (TV-S-AUC-3).
    BID_TURN = "bid_turn"
    #: The host picked this player among the tied ones to bid now.
    BIDDER_PICK = "bidder_pick"
    #: TV-H-1995-01: the stake question is bought by the button; who may press, until when.
    BUY_WINDOW = "buy_window"
    #: TV-H-1995-01: this player pressed first in the buy window and bids next.
    BID_CLAIM = "bid_claim"
    #: The bidding is over: this player answers for this stake.
    STAKE_WON = "stake_won"

    # -- the bonus contest after the Blue round (TV-H-1995-03) --
    #: The contest is offered to this player (place 1: the leader).
    BONUS_OFFER = "bonus_offer"
    #: This player declined the contest; the next place is offered, if any.
    BONUS_DECLINED = "bonus_declined"
    #: This player answers the contest's questions alone.
    BONUS_ACCEPTED = "bonus_accepted"
    #: One judged answer of the contest.
    BONUS_ANSWER = "bonus_answer"
    #: Every answer right: the prize, no points.
    BONUS_WON = "bonus_won"
    #: A wrong answer ended the contest (the score before it is set to 0).
    BONUS_LOST = "bonus_lost"
    #: Everyone declined, or the host selected a question instead (``skipped``).
    BONUS_NOT_PLAYED = "bonus_not_played"

    # -- the cat in the bag (TV-S-CAT-*) --
    #: The cat was given to an opponent (TV-S-CAT-1).
    CAT_GIVEN = "cat_given"
    #: The values the cat's receiver may choose from: the round's minimum or maximum (TV-S-CAT-2).
    CAT_PRICES = "cat_prices"
    #: A picture-series cat: the values of picture 1, 2, … (TV-S-CAT-5).
    CAT_SERIES = "cat_series"
    #: Another picture is up: the answer is now worth its value (TV-S-CAT-5).
    CAT_PICTURE = "cat_picture"

    # -- the rounds --
    #: A later round's first chooser among tied lowest scores, drawn by lot (C2003-2.3.2).
    LOT = "lot"
    #: A later round's first chooser among tied lowest scores: the youngest (TV-G-4).
    YOUNGEST = "youngest"
    #: The round clock ran out: the rest of the round is not played (TV-G-6).
    ROUND_TIME_UP = "round_time_up"
    #: The signal a minute before the round clock runs out; it decides nothing (TV-H-1994-10).
    ROUND_WARNING = "round_warning"

    # -- the final (C2003-2.6, C2003-2.7, TV-F-*) --
    #: Who plays the final and how many themes are offered.
    FINAL_STARTED = "final_started"
    #: Whose turn it is to remove a theme.
    FINAL_TURN = "final_turn"
    #: A finalist removed a theme.
    FINAL_REMOVED = "final_removed"
    #: The theme left: its question is played.
    FINAL_THEME = "final_theme"
    #: A stake was made; its amount stays hidden until judged.
    FINAL_STAKE_IN = "final_stake_in"
    #: Every stake is in (C2003-2.7.3); answers are judged in this order.
    FINAL_QUESTION = "final_question"
    #: An objection accepted on the main rounds' last question, before the final went on:
    #: who plays the final, or who won, is decided anew (TOUR-3.7, C2003-2.6, TV-F-1).
    FINAL_RECONSIDERED = "final_reconsidered"
    #: The writing time's end (C2003-2.7.4, TV-F-4); again at a resume (A-G-D1).
    FINAL_TIMER = "final_timer"
    #: The writing time is over: the answers are in and judged in this order (C2003-2.7.4).
    FINAL_ANSWERS_IN = "final_answers_in"
    #: A finalist's stake, revealed as that answer is judged (TV-F-5).
    FINAL_STAKE = "final_stake"
    #: A tie for first: a one-theme shootout among these players (C2003-2.8, TV-T-1).
    SHOOTOUT_STARTED = "shootout_started"
    #: The shootout's own scores (the game's scores stand).
    SHOOTOUT_SCORE = "shootout_score"
    #: A sport game ends level (SPORT-D): reported to the organiser.
    TIE_FOR_FIRST = "tie_for_first"
    #: The game is over, and who won (``None``: nobody, C2003-2.6b).
    GAME_OVER = "game_over"

    # -- the host's hand: corrections, undo, pause (A-G-D1) --
    #: A manual score change with a reason (TOUR-1.9); a ``score`` line follows.
    CORRECTION = "correction"
    #: An accepted objection: that seat's wrong verdict becomes right (TOUR-3.7).
    OBJECTION = "objection"
    #: Another player takes the seat and plays on with its score (SER-CC1-SUB).
    SUBSTITUTE = "substitute"
    #: A host command was undone; ``score`` / ``chooser`` lines give the changes.
    UNDONE = "undone"
    #: A host command had no effect: a press made before it, put ahead of it by the
    #: settle window, changed the game first.
    OVERTAKEN = "overtaken"
    #: The host paused the game (A-G-D1): no clock runs until ``resumed``.
    PAUSED = "paused"
    #: The game goes on; every pending deadline ends the pause's length later (A-G-D1).
    RESUMED = "resumed"

    # -- the inputs --
    #: A live input source stopped proving its time, or proves it again.
    SOURCE_FAULT = "source_fault"


@dataclass(slots=True, frozen=True)
class Note:
    """A decision of the full game (special questions, the final, corrections).

    These are rare next to presses, so one generic type written through
    ``json.dumps`` serves them all; ``fields`` keep their order in the line.
    """

    t: int
    type: NoteKind
    fields: tuple[tuple[str, object], ...] = ()

    @property
    def TYPE(self) -> NoteKind:
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
