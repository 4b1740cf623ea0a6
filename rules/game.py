"""The game engine for plain questions: board, scores and the chooser.

Pure and deterministic: time-ordered inputs in, decisions out. The button
logic is delegated to :class:`buzzer.arbiter.Arbiter`; this module adds what
a verdict means for the game (RULES.md C2003-2.4.2/2.4.3, TV-G-5, SPORT-1).

Seams for the full engine (special questions, the final, later rounds'
first chooser): :meth:`Game._question_value` (what a verdict is worth),
``eligible`` in :meth:`Arbiter.open_question` (who may press, A-G4) and
:meth:`Game._start_next_round`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from buzzer.arbiter.decisions import (
    Chooser,
    Decision,
    FirstChooser,
    QuestionSelected,
    RoundStarted,
    Score,
)
from buzzer.arbiter.machine import Arbiter, Phase, SequenceError
from buzzer.arbiter.params import DEFAULT_SETTLE_NS
from rules.board import Board, BoardError, RoundSpec
from rules.profiles import RuleSystem


@dataclass(frozen=True, slots=True)
class GameSetup:
    """What a game is: the journal header, validated."""

    rules: RuleSystem
    players: tuple[str, ...]
    chooser: int | None = None
    seed: int | str = 0
    settle_ns: int = DEFAULT_SETTLE_NS
    rounds: tuple[RoundSpec, ...] | None = None

    def __post_init__(self) -> None:
        if not self.players:
            raise ValueError("a game needs at least one player")
        if self.chooser is not None and not 1 <= self.chooser <= len(self.players):
            raise ValueError(f"chooser must be a seat 1..{len(self.players)}")


class Game:
    """One game's state: scores, board, chooser and the current question's buttons."""

    def __init__(self, setup: GameSetup, out: list[Decision]) -> None:
        self.setup = setup
        self.rules = setup.rules
        self.seats = len(setup.players)
        self.scores: dict[int, int] = dict.fromkeys(
            range(1, self.seats + 1), setup.rules.start_score
        )
        self.board = Board(setup.rounds or setup.rules.rounds)
        self.arbiter = Arbiter(setup.rules.buttons, self.seats)
        self.rng = random.Random(setup.seed)
        self.cell: tuple[int, int] | None = None
        self.chooser: int | None = None
        if self.rules.has_chooser:
            if setup.chooser is not None:
                self.chooser = setup.chooser
                out.append(FirstChooser(0, self.chooser, "header"))
            else:
                # C2003-2.2.2: the first chooser is drawn by lot (for the TV systems
                # the youngest / the central table: the header's `chooser` says so).
                self.chooser = self.draw(tuple(range(1, self.seats + 1)))
                out.append(FirstChooser(0, self.chooser, "draw"))

    # -- draws ---------------------------------------------------------------

    def draw(self, seats: Sequence[int]) -> int:
        """A draw by lot from the game's seed: the same seed, the same winners."""
        return seats[self.rng.randrange(len(seats))]

    @property
    def pending_tie(self) -> tuple[int, tuple[int, ...]] | None:
        """``(t, seats)`` of a tie waiting for a draw, if any."""
        return self.arbiter.pending_tie

    def resolve_tie(self, recorded_winner: int | None, out: list[Decision]) -> int:
        """Settle the pending tie: by the recorded draw if given, else from the seed.

        The seeded draw is made either way, so a journal with some draws
        recorded and some not keeps the same random stream.
        """
        pending = self.arbiter.pending_tie
        if pending is None:
            raise SequenceError("no tie is waiting for a draw")
        seeded = self.draw(pending[1])
        winner = seeded if recorded_winner is None else recorded_winner
        self.arbiter.resolve_tie(winner, out)
        return winner

    # -- inputs --------------------------------------------------------------

    def select(self, t: int, theme: int | None, price: int | None, out: list[Decision]) -> None:
        arbiter = self.arbiter
        if arbiter.phase is Phase.ANSWERING:
            raise SequenceError(
                f"seat {arbiter.answering} is answering: judge the answer before selecting"
            )
        if arbiter.question_open:
            # JOURNAL.md: a select while a window is open ends that question, no score change.
            arbiter.close()
            self._close_question(t, None, out)
        if self.board.round_done and not self._start_next_round(t, out):
            raise SequenceError("every question has been played: the board is empty")
        theme, price = self._resolve_cell(theme, price)
        self.cell = (theme, price)
        arbiter.open_question()
        out.append(QuestionSelected(t, self.board.round_index + 1, theme, price))

    def reading_start(self, t: int, out: list[Decision]) -> None:
        self.arbiter.start_reading(t, out)

    def reading_end(self, t: int, out: list[Decision]) -> None:
        self.arbiter.end_reading(t, out)

    def press(self, t: int, seats: Sequence[int], out: list[Decision]) -> None:
        self.arbiter.press(t, seats, out)

    def judge(self, t: int, correct: bool, out: list[Decision]) -> None:
        arbiter = self.arbiter
        seat = arbiter.answering
        if seat is None or arbiter.phase is not Phase.ANSWERING:
            raise SequenceError("nobody is answering: there is no answer to judge")
        value = self._question_value()
        delta = value if correct else -value  # C2003-2.4.2, TV-G-5
        self.scores[seat] += delta
        out.append(Score(t, seat, delta, self.scores[seat]))
        arbiter.verdict(t, correct, out)
        if not arbiter.question_open:
            self._close_question(t, seat if correct else None, out)

    def timeout(self, t: int, out: list[Decision]) -> None:
        if not self.arbiter.question_open:
            raise SequenceError("no question is open: there is nothing to time out")
        self.arbiter.close()
        self._close_question(t, None, out)

    def advance(self, t: int, out: list[Decision]) -> None:
        """Time has reached ``t``: fire the deadlines before it."""
        if self.arbiter.advance(t, out):
            closes_at = self.arbiter.closes_at
            assert closes_at is not None
            self._close_question(closes_at, None, out)

    def next_deadline(self) -> int | None:
        """The next instant at which time passing alone changes something."""
        arbiter = self.arbiter
        return arbiter.closes_at if arbiter.phase is Phase.OPEN else None

    # -- internals -----------------------------------------------------------

    def _question_value(self) -> int:
        """What a verdict on the current question is worth (a seam for stakes, issue 3)."""
        assert self.cell is not None
        return self.cell[1]

    def _resolve_cell(self, theme: int | None, price: int | None) -> tuple[int, int]:
        board = self.board
        if not self.rules.has_chooser:
            expected = board.next_in_order()
            assert expected is not None
            if theme is None and price is None:
                return expected
            if (theme, price) != expected:
                raise SequenceError(
                    f"SPORT-1: themes are played in order; the next question is theme "
                    f"{expected[0]} for {expected[1]}, not theme {theme} for {price}"
                )
            return expected
        if theme is None or price is None:
            raise SequenceError("select needs a theme and a price")
        try:
            board.check(theme, price)
        except BoardError as exc:
            raise SequenceError(str(exc)) from None
        return theme, price

    def _close_question(self, t: int, correct_seat: int | None, out: list[Decision]) -> None:
        """The question is over: mark the cell, pass the choice (C2003-2.4.3, TV-G-5)."""
        if self.cell is not None:
            self.board.mark_played(*self.cell)
            self.cell = None
        if self.chooser is not None:
            if correct_seat is not None:
                self.chooser = correct_seat
            out.append(Chooser(t, self.chooser))

    def _start_next_round(self, t: int, out: list[Decision]) -> bool:
        """Move to the next round of the board; False when none is left.

        The chooser carries over. Round-specific first choosers (C2003-2.3.2,
        TV-G-4) belong to the full game engine (issue 3).
        """
        if not self.board.next_round():
            return False
        out.append(RoundStarted(t, self.board.round_index + 1, self.board.current.name))
        return True

    def result(self) -> tuple[dict[int, int], int | None]:
        return dict(self.scores), self.chooser
