"""The lockout arbiter: who has the right to answer, now.

A pure state machine over one question's buttons (docs/rules.md Part A). It is
fed inputs that are already in timestamp order (see ``sequencer.py``) and
appends its decisions to a list. It holds no clock: time arrives inside the
inputs, and deadlines fire only when :meth:`Arbiter.advance` is told that
time has passed them.

States (A.1): SELECTED → READING → OPEN (the window) → ANSWERING(seat) →
back to READING/OPEN, or CLOSED. IDLE is "no question open".
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from buzzer.arbiter.decisions import (
    Decision,
    FalseStart,
    Ignored,
    ReadingInterrupted,
    ReadingResumed,
    Recognized,
    Tie,
    WindowClosed,
    WindowOpened,
)
from buzzer.arbiter.params import NS_PER_US, ButtonRules, EarlyPress, WindowAfterWrong
from buzzer.errors import SvoyakError


class Phase(Enum):
    IDLE = "idle"
    SELECTED = "selected"
    READING = "reading"
    OPEN = "open"
    ANSWERING = "answering"
    CLOSED = "closed"


# Looking up an enum member (``Phase.OPEN``) costs some 80 ns on CPython 3.11, and
# every press and every step of time compares several: the hot paths below (press,
# advance, recognition) compare against these module-level aliases instead.
_IDLE = Phase.IDLE
_SELECTED = Phase.SELECTED
_READING = Phase.READING
_OPEN = Phase.OPEN
_ANSWERING = Phase.ANSWERING
_CLOSED = Phase.CLOSED
_FALSE_START = EarlyPress.FALSE_START
_INTERRUPT = EarlyPress.INTERRUPT


class SequenceError(SvoyakError):
    """A host input that makes no sense in the current state (e.g. a verdict
    when nobody is answering). The message says what the host should do."""


# Reasons for an ignored press (docs/journal-contract.md names the first five).
ALREADY_ANSWERED = "already_answered"  # C2003-2.4.4 / P8
LOCKED = "locked"  # TV-M-A-D2: inside a false-start lockout
WINDOW_CLOSED = "window_closed"  # after the window closed (C2003-2.4.1d, TV-M-A3)
NOT_OPEN = "not_open"  # no question, or the reading has not started (A-G5)
SOMEONE_ANSWERING = "someone_answering"  # A-G2: ignored, not queued
NOT_ELIGIBLE = "not_eligible"  # A-G4: special questions, the final
LOST_DRAW = "lost_draw"  # A-G1: an exact tie went to another seat
ALREADY_RECOGNIZED = "already_recognized"  # the answering player pressed again
PAUSED = "paused"  # A-G-D1: the host has paused the game; never a false start


class Arbiter:
    """The button state of the current question, under one set of :class:`ButtonRules`."""

    __slots__ = (
        "_answers",
        "_reading_continues",
        "answer_from",
        "answering",
        "closes_at",
        "eligible",
        "locked_until",
        "margins_us",
        "pending_tie",
        "phase",
        "recognized_at",
        "rules",
        "seats",
        "t_end",
    )

    def __init__(self, rules: ButtonRules, seats: int) -> None:
        self.rules = rules
        self.seats = seats
        # Every per-question state as a question starts it, with no question open.
        self.open_question()
        self.phase = Phase.IDLE

    # -- queries -------------------------------------------------------------

    @property
    def question_open(self) -> bool:
        phase = self.phase
        return phase is not _IDLE and phase is not _CLOSED

    def answered(self) -> frozenset[int]:
        """Seats that have used up their answers on this question."""
        limit = self.rules.answers_per_question
        return frozenset(s for s, n in self._answers.items() if n >= limit)

    def answer_deadline(self) -> int | None:
        """When the answer timer (A-G3) of the answering player runs out.

        Under TV-94 an early presser's timer counts from the end of reading (P9).
        """
        if self.answering is None or self.answer_from is None:
            return None
        if self._reading_continues:
            if self.t_end is None:
                return None
            return self.t_end + self.rules.answer_time_ns
        return self.answer_from + self.rules.answer_time_ns

    # -- host inputs ---------------------------------------------------------

    def open_question(self, eligible: frozenset[int] | None = None) -> None:
        """A question was selected; every per-question state starts afresh."""
        self.phase = Phase.SELECTED
        self.eligible: frozenset[int] = (
            eligible if eligible is not None else frozenset(range(1, self.seats + 1))
        )
        self._answers: dict[int, int] = {}
        self.locked_until: dict[int, int] = {}
        self.t_end: int | None = None
        self.closes_at: int | None = None
        self.answering: int | None = None
        self.recognized_at: int | None = None
        #: Where the answer timer (A-G3) counts from: the recognition, moved on
        #: by any pause since (A-G-D1); ``recognized_at`` stays the press's stamp.
        self.answer_from: int | None = None
        #: TV-94-A2: the answering player pressed during the reading, which goes on.
        self._reading_continues = False
        self.margins_us: dict[int, int] = {}
        self.pending_tie: tuple[int, tuple[int, ...]] | None = None

    def open_press_window(
        self, t: int, closes_at: int, eligible: frozenset[int], out: list[Decision]
    ) -> None:
        """A press window with no question read: the first of ``eligible`` to
        press before ``closes_at`` is recognized, exactly as after a reading.

        TV-H-1995-01: after each bid on a stake question the others buy it by
        pressing the button; the same timestamps, ties and margins decide who
        gets the floor as decide who answers.
        """
        self.open_question(eligible)
        self.t_end = t
        self._open_window(t, closes_at, out)

    def narrow(self, eligible: frozenset[int]) -> None:
        """Fewer seats may press from now on (one left the bidding); the window keeps its end."""
        self.eligible = eligible

    def release(self) -> None:
        """End a press window, or the floor a press won in it, with no answer to judge.

        The press was a claim (TV-H-1995-01), not an answer: nothing is judged,
        and later presses are ignored as after any closed window.
        """
        self.phase = Phase.CLOSED
        self.answering = None
        self.recognized_at = None
        self.answer_from = None
        self.pending_tie = None

    def start_reading(self, t: int, out: list[Decision]) -> None:
        """The start of reading, in the shape of every input (``t``, ``out``):
        :meth:`begin_reading`, which needs neither."""
        self.begin_reading()

    def begin_reading(self) -> None:
        """The host starts reading: it moves the phase, or is refused. It decides
        nothing at an instant and says nothing (no press is judged by it)."""
        if self.phase is Phase.SELECTED:
            self.phase = Phase.READING
        elif self.phase is Phase.READING or (
            self.phase is Phase.ANSWERING and self._reading_continues
        ):
            return  # already reading (or resuming): a repeated tap changes nothing
        elif self.phase is Phase.ANSWERING:
            raise SequenceError(
                f"seat {self.answering} is answering: judge the answer before resuming the reading"
            )
        elif self.phase is Phase.OPEN:
            raise SequenceError("the question has already been read to the end")
        else:
            raise SequenceError("no question is selected: select one before reading")

    def end_reading(self, t: int, out: list[Decision]) -> None:
        """The end of reading: ``t_end``, the signal (TV-M-A-D1)."""
        if self.phase in (Phase.SELECTED, Phase.READING):
            self.t_end = t
            self._open_window(t, t + self.rules.window_ns, out)
        elif self.phase is Phase.ANSWERING and self._reading_continues:
            # TV-94-A2: the early presser answers now that the reading is over.
            self.t_end = t
        elif self.phase is Phase.ANSWERING:
            raise SequenceError(
                f"seat {self.answering} interrupted the reading and is answering: "
                "judge the answer first"
            )
        elif self.phase is Phase.OPEN:
            raise SequenceError("the reading has already ended")
        else:
            raise SequenceError("no question is being read: select one first")

    def verdict(self, t: int, correct: bool, out: list[Decision]) -> int:
        """Rule on the answering player's answer; return that seat.

        After a wrong answer (P5–P7): an interrupted reading resumes for the
        others; after the reading, a fresh (or the fixed) window opens; when
        nobody is left who may answer, the question closes.
        """
        seat = self.answering
        if seat is None:  # someone is answering exactly while the phase is ANSWERING
            raise SequenceError("nobody is answering: there is no answer to judge")
        self._answers[seat] = self._answers.get(seat, 0) + 1
        self.answering = None
        self.recognized_at = None
        self.answer_from = None
        self._reading_continues = False
        if correct:
            self.phase = Phase.CLOSED
            return seat
        if not self._anyone_may_answer():
            self.phase = Phase.CLOSED
            return seat
        if self.t_end is None:
            # P5: the others may press during the rest of the reading. With no
            # t_end the answer was recognized during the reading, so the rules
            # say what it did to it: `interrupt` stopped it and it resumes now
            # (C2003-2.4.1b, C2003-A-D1, SPORT-A-D1); `hold` let it go on
            # (TV-94-A2); under `false_start` no press is recognized there.
            self.phase = Phase.READING
            if self.rules.early_press is _INTERRUPT:
                out.append(ReadingResumed(t))
            return seat
        if self.rules.window_after_wrong is WindowAfterWrong.FRESH:
            closes_at = t + self.rules.window_ns  # P6 fresh, C2003-A-D2, TV-M-A-D3
        else:
            closes_at = self.t_end + self.rules.window_ns  # C2003-A-D2 `fixed`
        if closes_at < t:
            # The fixed window ran out while the answer was being given: the
            # question is over; window_closed carries the window's own end.
            self.phase = Phase.CLOSED
            out.append(WindowClosed(closes_at))
        else:
            self._open_window(t, closes_at, out)
        return seat

    def close(self) -> None:
        """End the question without a verdict (the host moved on, or a timeout).

        Refused while someone is answering: that answer must be judged first.
        """
        if self.phase is Phase.ANSWERING:
            raise SequenceError(
                f"seat {self.answering} is answering: judge the answer (correct or wrong) first"
            )
        self.phase = Phase.CLOSED

    def advance(self, t: int, out: list[Decision]) -> bool:
        """Time has passed up to ``t``: fire the window deadline if it lies before it.

        Returns True when this closed the question. A press at exactly
        ``closes_at`` is in time, so the window closes only for ``t > closes_at``.
        """
        if self.phase is _OPEN and self.closes_at is not None and self.closes_at < t:
            out.append(WindowClosed(self.closes_at))
            self.phase = _CLOSED
            return True
        return False

    def shift(self, paused_at: int, length: int) -> None:
        """A pause from ``paused_at`` lasted ``length`` ns (A-G-D1): every clock
        still running at ``paused_at`` ends that much later.

        The open window (a press at exactly ``closes_at`` is in time, so one
        ending at ``paused_at`` is still open), a lockout not yet over (a button
        is free at exactly ``locked_until``), the answer timer and the end of
        reading (a ``fixed`` window after a wrong answer counts from it, P6).
        A clock that had already run out stays run out.
        """
        if self.phase is _OPEN and self.closes_at is not None:
            self.closes_at += length
        for seat, until in self.locked_until.items():
            if until > paused_at:
                self.locked_until[seat] = until + length
        if self.t_end is not None and self.phase in (_OPEN, _ANSWERING):
            self.t_end += length
        if self.answer_from is not None:
            self.answer_from += length

    # -- presses -------------------------------------------------------------

    def press(self, t: int, seats: Sequence[int], out: list[Decision]) -> None:
        """Presses that share the timestamp ``t`` (one seat each, ascending).

        A single eligible press is recognized at once; several are a tie
        (A-G1), left in :attr:`pending_tie` for the caller to draw.
        """
        phase = self.phase
        candidates: list[int] = []
        rules = self.rules
        for seat in seats:
            if phase is _IDLE or phase is _SELECTED:
                out.append(Ignored(t, seat, NOT_OPEN))  # A-G5
                continue
            if phase is _CLOSED:
                out.append(Ignored(t, seat, WINDOW_CLOSED))
                continue
            if seat not in self.eligible:
                out.append(Ignored(t, seat, NOT_ELIGIBLE))  # A-G4
                continue
            if self._answers.get(seat, 0) >= rules.answers_per_question:
                out.append(Ignored(t, seat, ALREADY_ANSWERED))  # C2003-2.4.4, P8
                continue
            if phase is _ANSWERING:
                self._behind(t, seat, out)  # A-G2
                continue
            locked = self.locked_until.get(seat)
            if locked is not None and t < locked:
                if rules.fs_extend and phase is _READING:
                    self._false_start(t, seat, out)
                else:
                    out.append(Ignored(t, seat, LOCKED))  # TV-M-A-D2
                continue
            if phase is _READING and rules.early_press is _FALSE_START:
                self._false_start(t, seat, out)  # TV-M-A2, SPORT-A1
                continue
            candidates.append(seat)
        if len(candidates) == 1:
            self._recognize(t, candidates[0], out)
        elif candidates:
            out.append(Tie(t, tuple(candidates)))
            self.pending_tie = (t, tuple(candidates))

    def resolve_tie(self, winner: int, out: list[Decision]) -> None:
        """The draw gave the tie to ``winner``; the others lost by 0 µs."""
        if self.pending_tie is None:
            raise SequenceError("no tie is waiting for a draw")
        t, seats = self.pending_tie
        if winner not in seats:
            raise SequenceError(f"the draw's winner {winner} is not one of the tied seats {seats}")
        self.pending_tie = None
        self._recognize(t, winner, out)
        for seat in seats:
            if seat != winner:
                self.margins_us[seat] = 0
                out.append(Ignored(t, seat, LOST_DRAW, 0))

    # -- internals -----------------------------------------------------------

    def _recognize(self, t: int, seat: int, out: list[Decision]) -> None:
        was_reading = self.phase is _READING
        self.phase = _ANSWERING
        self.answering = seat
        self.recognized_at = t
        self.answer_from = t
        self.margins_us = {}
        out.append(Recognized(t, seat))
        if was_reading:
            if self.rules.early_press is _INTERRUPT:
                out.append(ReadingInterrupted(t, seat))  # C2003-2.4.1b, SPORT-A-D1
            else:
                self._reading_continues = True  # TV-94-A2

    def _behind(self, t: int, seat: int, out: list[Decision]) -> None:
        if seat == self.answering:
            out.append(Ignored(t, seat, ALREADY_RECOGNIZED))
            return
        assert self.recognized_at is not None
        behind = (t - self.recognized_at + NS_PER_US // 2) // NS_PER_US
        self.margins_us.setdefault(seat, behind)
        out.append(Ignored(t, seat, SOMEONE_ANSWERING, behind))

    def _false_start(self, t: int, seat: int, out: list[Decision]) -> None:
        until = t + self.rules.fs_lockout_ns
        self.locked_until[seat] = until
        out.append(FalseStart(t, seat, until))

    def _open_window(self, t: int, closes_at: int, out: list[Decision]) -> None:
        self.phase = _OPEN
        self.closes_at = closes_at
        out.append(WindowOpened(t, closes_at))

    def _anyone_may_answer(self) -> bool:
        limit = self.rules.answers_per_question
        return any(self._answers.get(s, 0) < limit for s in self.eligible)
