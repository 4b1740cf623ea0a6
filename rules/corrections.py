"""The host's corrections: a score put right (TOUR-1.9), an objection upheld
(TOUR-3.7), a substitute at a seat (SER-CC1-SUB).

A mixin of :class:`rules.game.Game`, as :mod:`rules.final` is: it owns the
procedures of the lines that put the game right after the fact and reads the
game's state, which the game declares. Kept apart because none of them plays
a question: each changes what was already decided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from buzzer.arbiter.decisions import Chooser, Decision, Note, NoteKind
from buzzer.arbiter.events import Correction, Objection, Substitute
from buzzer.arbiter.machine import SequenceError
from rules.board import Board
from rules.state import Shootout, Stage, Verdict


class HostCorrections:
    """Corrections, objections and substitutes, as a part of :class:`rules.game.Game`."""

    # The game's state this part reads and writes (set by Game.__init__).
    board: Board
    names: list[str]
    stage: Stage
    chooser: int | None
    shootout: Shootout | None
    objectable: list[Verdict] | None
    _final_pristine: bool

    if TYPE_CHECKING:
        # What it needs of the game, declared for the type checker only: the
        # game defines them (no stubs at run time that could be called by mistake).
        def _add(self, t: int, seat: int, delta: int, out: list[Decision]) -> None: ...

        def _reconsider_final(self, t: int, out: list[Decision]) -> None: ...

    def _on_correction(self, item: Correction, out: list[Decision]) -> None:
        out.append(
            Note(
                item.t,
                NoteKind.CORRECTION,
                (("seat", item.seat), ("delta", item.delta), ("reason", item.reason)),
            )
        )
        self._add(item.t, item.seat, item.delta, out)

    def substitute_open(self) -> bool:
        """SER-CC1-SUB: may a player be replaced now? Between round 2's end and round
        3's first select, in a game with a third round: the one moment
        :meth:`_on_substitute` takes it, and the host's panel offers it
        (``HostOptions.substitute``)."""
        board = self.board
        return (
            len(board.rounds) >= 3
            and self.stage is Stage.BOARD
            and self.shootout is None
            and board.round_index == 1
            and board.round_done
        )

    def _on_substitute(self, item: Substitute, out: list[Decision]) -> None:
        """SER-CC1-SUB (seed 002, June 2002): a grandmaster may be replaced before
        round 3. Between round 2's end and round 3's first select, another player
        takes the seat and plays on with its score; the journal's note names both.
        DEFAULT: in any game with a third round (the host knows the format)."""
        board = self.board
        if len(board.rounds) < 3:
            raise SequenceError(
                f"a substitute comes in before round 3 (SER-CC1-SUB): this game has "
                f"{len(board.rounds)} round(s)"
            )
        if not self.substitute_open():
            raise SequenceError(
                "a substitute comes in only between round 2 and round 3, before round 3's "
                f"first question (SER-CC1-SUB): now it is round {board.round_index + 1}, "
                f"{self.stage.value}"
            )
        name = " ".join(item.name.split())
        old = self.names[item.seat - 1]
        if not name:
            raise SequenceError("the substitute's name is empty")
        if name in self.names:
            raise SequenceError(f"{name} already plays at seat {self.names.index(name) + 1}")
        self.names[item.seat - 1] = name
        out.append(
            Note(item.t, NoteKind.SUBSTITUTE, (("seat", item.seat), ("out", old), ("in", name)))
        )

    def _on_objection(self, item: Objection, out: list[Decision]) -> None:
        """TOUR-3.7 DEFAULT: an accepted objection turns that seat's −v into +v; the
        objector chooses next only if nobody else answered this question right."""
        objectable = self.objectable
        if objectable is None:
            raise SequenceError(
                "objections are accepted only after a question closes and before the next "
                "is selected (TOUR-3.7)"
            )
        verdict = next(
            (v for v in objectable if v.seat == item.seat and v.delta < v.right_delta), None
        )
        if verdict is None:
            raise SequenceError(f"seat {item.seat} was not ruled wrong on the last question")
        self.objectable = [
            Verdict(v.seat, v.right_delta, v.right_delta) if v is verdict else v for v in objectable
        ]
        out.append(Note(item.t, NoteKind.OBJECTION, (("seat", item.seat),)))
        self._add(item.t, item.seat, verdict.right_delta - verdict.delta, out)
        others_right = any(v.delta == v.right_delta for v in objectable if v.seat != item.seat)
        if self.chooser is not None and not others_right and self.shootout is None:
            self.chooser = item.seat
            out.append(Chooser(item.t, item.seat))
        if self._final_pristine:
            self._reconsider_final(item.t, out)
