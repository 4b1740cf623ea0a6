"""The final round once it has started (C2003-2.7, TV-F-*): a part of
:class:`rules.game.Game`.

Who plays the final, the themes left, whose turn it is to remove one, the
stakes, the 30 s for the written answers and the order of the verdicts. The
game holds one from the end of the main rounds (when a final is played) and
none before: a game with no final, or before it, has no final state to read
or to get wrong. :mod:`rules.final` runs the final's procedures on it; it holds
no reference to the game, so a copy of a game is still a plain deep copy.
"""

from __future__ import annotations

from buzzer.arbiter.decisions import Decision, Note, NoteKind


class FinalState:
    """One final round, from its start to its last verdict."""

    def __init__(self, order: list[int], themes: int, answer_time_ns: int) -> None:
        #: Who plays it, in seat order: every player with a positive score (C2003-2.6, TV-F-1).
        self.seats = tuple(sorted(order))
        #: Whose answer is judged next: ascending score, equal scores by lot
        #: (C2003-2.7-D1/D4, TV-F-2/5); each verdict takes the first.
        self.order = order
        #: Who removes a theme, turn by turn: the same order (C2003-2.7.2, TV-F-2).
        self.turns = list(order)
        self.turn = 0
        #: The final themes still on the board, numbered from 1.
        self.themes = list(range(1, themes + 1))
        #: Each finalist's stake, hidden until the answer is judged (TV-F-5).
        self.stakes: dict[int, int] = {}
        #: The time to write the answers (C2003-2.7.4, TV-F-4: 30 s, or the
        #: final_answer_time_s option), from the end of the reading.
        self.answer_time_ns = answer_time_ns
        #: When the 30 s for the written answers end: set by the reading's end.
        self.answers_due: int | None = None
        #: The 30 s are over: the answers are in and may be judged (C2003-2.7.5).
        self.answers_in = False

    def remover(self) -> int:
        """The seat whose turn it is to remove a theme."""
        return self.turns[self.turn % len(self.turns)]

    def stakes_missing(self) -> list[int]:
        """The finalists whose stake is not in yet, in seat order."""
        return [s for s in self.seats if s not in self.stakes]

    def deadline(self) -> int | None:
        """The end of the writing time while it runs: time passing alone brings the answers in."""
        return None if self.answers_in else self.answers_due

    def advance(self, t: int, out: list[Decision]) -> None:
        """Time has reached ``t``: at the end of the 30 s the written answers are in."""
        due = self.deadline()
        if due is not None and due <= t:
            self.answers_in = True
            out.append(Note(due, NoteKind.FINAL_ANSWERS_IN, (("judge_order", list(self.order)),)))

    def resume(self, t: int, length: int, out: list[Decision]) -> None:
        """A-G-D1: the writing time, if it runs, moves on by the pause's ``length``;
        its new end is told, as at the reading's end: the screens count down to it."""
        due = self.deadline()
        if due is None:
            return
        self.answers_due = due + length  # C2003-2.7.4, TV-F-4
        out.append(Note(t, NoteKind.FINAL_TIMER, (("until", self.answers_due / 1e9),)))
