"""The bonus contest of Mar – Aug 1995 (TV-H-1995-03) in the game: when it is
offered, to whom in which order, and what its answers do to the score.

A mixin of :class:`rules.game.Game`, as :mod:`rules.final` is: the contest
itself (who was asked, who plays, how far they got) is the part-object
:class:`rules.specials.bonus.BonusContest`, which decides and holds no clock;
this wires it to the board, the scores and the journal's ``bonus`` and
``judge`` lines, reading the game's state, which the game declares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from buzzer.arbiter.decisions import Decision, Note, NoteKind, Recognized
from buzzer.arbiter.events import BonusReply
from rules.board import Board
from rules.profiles import RuleSystem
from rules.specials.bonus import BonusContest, BonusResult
from rules.state import Shootout, Stage, Verdict


class BonusRound:
    """The bonus contest's offer and play, as a part of :class:`rules.game.Game`."""

    # The game's state this part reads and writes (set by Game.__init__).
    rules: RuleSystem
    board: Board
    scores: dict[int, int]
    stage: Stage
    answerer: int | None
    objectable: list[Verdict] | None
    shootout: Shootout | None
    bonus: BonusContest | None
    bonus_offered: bool

    if TYPE_CHECKING:
        # What it needs of the game, declared for the type checker only: the
        # game defines them (no stubs at run time that could be called by mistake).
        def _expect(self, stage: Stage, command: str) -> None: ...

        def _add(self, t: int, seat: int, delta: int, out: list[Decision]) -> None: ...

        def draw(self, seats: Sequence[int]) -> int: ...

    def _offer_bonus(self, t: int, out: list[Decision]) -> None:
        """Offer the contest once its round is over, if another round follows.

        The leader is asked first, then second and third place (DEFAULT;
        equal scores in an order drawn by lot). Decided (docs/rules.md): the
        offer closes objections on the round's last question, so the leader
        asked is the leader who plays.
        """
        rules = self.rules.bonus
        board = self.board
        if (
            rules is None
            or self.bonus_offered
            or self.shootout is not None
            or self.stage is not Stage.BOARD
            or board.round_index + 1 != rules.after_round
            or not board.round_done
            or board.exhausted
        ):
            return
        self.bonus_offered = True
        self.objectable = None
        order = self._descending_by_score(sorted(self.scores))
        self.bonus = BonusContest(rules, order)
        self.stage = Stage.BONUS_OFFER
        out.append(Note(t, NoteKind.BONUS_OFFER, (("seat", order[0]), ("place", 1))))

    def _descending_by_score(self, seats: list[int]) -> list[int]:
        """Highest score first; equal scores in an order drawn by lot (the seeded
        random stream is drawn from only when there is a tie to break)."""
        order: list[int] = []
        for score in sorted({self.scores[s] for s in seats}, reverse=True):
            tied = [s for s in seats if self.scores[s] == score]
            while len(tied) > 1:
                pick = self.draw(tied)
                order.append(pick)
                tied.remove(pick)
            order.extend(tied)
        return order

    def _skip_bonus(self, t: int, out: list[Decision]) -> None:
        """A select while the contest is being offered: the host moved on, so
        nobody plays it (``bonus_not_played``), as a select ends an open window."""
        if self.stage is Stage.BONUS_OFFER:
            out.append(Note(t, NoteKind.BONUS_NOT_PLAYED, (("skipped", True),)))
            self._end_bonus()

    def _on_bonus(self, item: BonusReply, out: list[Decision]) -> None:
        self._expect(Stage.BONUS_OFFER, "bonus")
        contest = self.bonus
        assert contest is not None
        t = item.t
        seat = contest.reply(item.accept)
        if item.accept:
            self.stage = Stage.BONUS
            self.answerer = seat
            out.append(
                Note(
                    t,
                    NoteKind.BONUS_ACCEPTED,
                    (("seat", seat), ("questions", contest.rules.questions)),
                )
            )
            out.append(Recognized(t, seat))  # the one player who answers (A-G4)
            return
        out.append(Note(t, NoteKind.BONUS_DECLINED, (("seat", seat),)))
        following = contest.offered
        if following is None:
            out.append(Note(t, NoteKind.BONUS_NOT_PLAYED))
            self._end_bonus()
            return
        out.append(Note(t, NoteKind.BONUS_OFFER, (("seat", following), ("place", contest.place))))

    def _judge_bonus(self, t: int, correct: bool, out: list[Decision]) -> None:
        contest = self.bonus
        seat = self.answerer
        assert contest is not None
        assert seat is not None
        result = contest.answer(correct)
        number = contest.right + (0 if correct else 1)
        out.append(
            Note(
                t, NoteKind.BONUS_ANSWER, (("seat", seat), ("number", number), ("correct", correct))
            )
        )
        if result is BonusResult.GOES_ON:
            return
        if result is BonusResult.WON:
            out.append(Note(t, NoteKind.BONUS_WON, (("seat", seat), ("prize", "trip"))))
        else:
            # "The leader's score becomes 0 for the Red round" (TV-H-1995-03).
            if self.scores[seat] != 0:
                self._add(t, seat, -self.scores[seat], out)
            out.append(Note(t, NoteKind.BONUS_LOST, (("seat", seat),)))
        self._end_bonus()

    def _end_bonus(self) -> None:
        """Back to the board: the next select starts the next round (its chooser the
        lowest score, as after any round)."""
        self.bonus = None
        self.answerer = None
        self.stage = Stage.BOARD
