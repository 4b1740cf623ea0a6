"""The end of a game: the final round (C2003-2.6/2.7, TV-F-*) and the shootout
(C2003-2.8, TV-T-1).

A mixin of :class:`rules.game.Game`: it owns the final's and the shootout's
procedures and reads the game's state, which the game declares; the final's
own state (who plays it, the themes, the stakes, the writing time) is the
part-object :class:`rules.final_state.FinalState`, which exists once the final
has started. Kept apart
so that each module has one job: the game runs the rounds, this ends them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from buzzer.arbiter.decisions import Decision, Note, NoteKind
from buzzer.arbiter.events import FinalJudge, FinalRemove, FinalStake
from buzzer.arbiter.machine import SequenceError
from rules.board import Board, RoundSpec
from rules.final_state import FinalState
from rules.profiles import RuleSystem
from rules.specials.params import FinalRules, NobodyPositive, SinglePositive
from rules.state import Shootout, Stage, Verdict


class FinalRound:
    """The final round and the shootout, as a part of :class:`rules.game.Game`."""

    # The game's state this part reads and writes (set by Game.__init__).
    rules: RuleSystem
    scores: dict[int, int]
    stage: Stage
    winner: int | None
    objectable: list[Verdict] | None
    final: FinalState | None
    shootout: Shootout | None
    _final_pristine: bool

    if TYPE_CHECKING:
        # What it needs of the game, declared for the type checker only: the
        # game defines them (no stubs at run time that could be called by mistake).
        def _expect(self, stage: Stage, command: str) -> None: ...

        def _add(self, t: int, seat: int, delta: int, out: list[Decision]) -> None: ...

        def _order_by_score(self, seats: Sequence[int]) -> list[int]: ...

        def _final_theme_count(self) -> int: ...

    def _final_begun(self) -> FinalState:
        """The final is under way: the last main-round question can no longer be
        objected to. Returns the final's state, which every final command acts on."""
        final = self.final
        assert final is not None
        self._final_pristine = False
        self.objectable = None
        return final

    def _final_rules(self) -> FinalRules:
        spec = self.rules.final
        assert spec is not None
        return spec

    def _on_final_remove(self, item: FinalRemove, out: list[Decision]) -> None:
        self._expect(Stage.FINAL_REMOVE, "final_remove")
        final = self._final_begun()
        seat = final.remover()
        if item.seat is not None and item.seat != seat:
            raise SequenceError(
                f"it is seat {seat}'s turn to remove a theme, not seat {item.seat}'s"
            )
        if item.theme not in final.themes:
            left = ", ".join(str(x) for x in final.themes)
            raise SequenceError(f"theme {item.theme} is not on the final board; left: {left}")
        final.themes.remove(item.theme)
        final.turn += 1
        out.append(Note(item.t, NoteKind.FINAL_REMOVED, (("seat", seat), ("theme", item.theme))))
        if len(final.themes) == 1:
            self._final_theme_chosen(item.t, final, out)
        else:
            out.append(Note(item.t, NoteKind.FINAL_TURN, (("seat", final.remover()),)))

    def _on_final_stake(self, item: FinalStake, out: list[Decision]) -> None:
        self._expect(Stage.FINAL_STAKES, "final_stake")
        final = self._final_begun()
        spec = self._final_rules()
        if item.seat not in final.seats:
            raise SequenceError(f"seat {item.seat} does not play the final round")
        score = self.scores[item.seat]
        # C2003-2.7-D3: a missing stake counts as the minimum; above the score, as all-in.
        amount = spec.stake_min if item.amount is None else min(item.amount, score)
        if amount < spec.stake_min:
            raise SequenceError(f"a final stake must be at least {spec.stake_min}")
        if amount % spec.stake_step and amount != score:
            raise SequenceError(f"final stakes go in steps of {spec.stake_step}")
        first = item.seat not in final.stakes
        final.stakes[item.seat] = amount
        if first:
            # The stake stays hidden until the answer is judged (TV-F-5).
            out.append(Note(item.t, NoteKind.FINAL_STAKE_IN, (("seat", item.seat),)))
        if not final.stakes_missing():
            self.stage = Stage.FINAL_JUDGING
            out.append(Note(item.t, NoteKind.FINAL_QUESTION, (("judge_order", list(final.order)),)))

    def _on_final_judge(self, item: FinalJudge, out: list[Decision]) -> None:
        self._expect(Stage.FINAL_JUDGING, "final_judge")
        self._judge_final(item.t, item.correct, item.seat, out)

    def _reconsider_final(self, t: int, out: list[Decision]) -> None:
        """The end of the main rounds is decided anew with the corrected scores
        (who plays the final, or who won without one: C2003-2.6, TV-F-1)."""
        self.stage = Stage.BOARD
        self.winner = None
        self.final = None
        self.shootout = None
        out.append(Note(t, NoteKind.FINAL_RECONSIDERED))
        self._end_main_rounds(t, out)

    def _end_main_rounds(self, t: int, out: list[Decision]) -> None:
        """After the last round: the final (C2003-2.6, TV-F-1), or the result."""
        self._final_pristine = True
        spec = self.rules.final
        if spec is None:
            self._finish_by_score(t, sorted(self.scores), out)  # SPORT-2: no final
            return
        positive = [s for s in sorted(self.scores) if self.scores[s] > 0]
        if not positive:
            if spec.nobody_positive is NobodyPositive.NO_WINNER:
                self._game_over(t, None, out)  # C2003-2.6b
            else:
                self._finish_by_score(t, sorted(self.scores), out)  # TV-F-1: closest to zero
            return
        if len(positive) == 1 and spec.single_positive is SinglePositive.WINS_WITHOUT_FINAL:
            self._game_over(t, positive[0], out)  # C2003-2.6d
            return
        # C2003-2.7-D1/D4, TV-F-2/5: in ascending order of score
        order = self._order_by_score(positive)
        final = FinalState(order, self._final_theme_count(), spec.answer_time_ns)
        self.final = final
        out.append(
            Note(
                t,
                NoteKind.FINAL_STARTED,
                (("seats", list(final.seats)), ("themes", len(final.themes))),
            )
        )
        if len(final.themes) > 1:
            self.stage = Stage.FINAL_REMOVE
            out.append(Note(t, NoteKind.FINAL_TURN, (("seat", final.remover()),)))
        else:
            self._final_theme_chosen(t, final, out)

    def _final_theme_chosen(self, t: int, final: FinalState, out: list[Decision]) -> None:
        out.append(Note(t, NoteKind.FINAL_THEME, (("theme", final.themes[0]),)))
        self.stage = Stage.FINAL_STAKES

    def _final_reading(self) -> bool:
        return self.stage in (Stage.FINAL_STAKES, Stage.FINAL_JUDGING)

    def _final_reading_start(self) -> None:
        """The host starts reading the final question: only once every stake is in."""
        self._check_final_unread()

    def _final_reading_end(self, t: int, out: list[Decision]) -> None:
        """The reading is over: the 30 s for the written answers start (C2003-2.7.4, TV-F-4)."""
        self._check_final_unread()
        final = self._final_begun()
        final.answers_due = t + final.answer_time_ns
        out.append(Note(t, NoteKind.FINAL_TIMER, (("until", final.answers_due / 1e9),)))

    def _check_final_unread(self) -> None:
        """The final question is read after the last stake (C2003-2.7.3) and once (2.7.4)."""
        final = self.final
        assert final is not None
        if self.stage is Stage.FINAL_STAKES:
            names = ", ".join(f"seat {s}" for s in final.stakes_missing())
            raise SequenceError(
                f"the final question is read once every stake is in (C2003-2.7.3, TV-F-3): "
                f"waiting for {names}"
            )
        if final.answers_due is not None:
            raise SequenceError(
                "the final question has been read already: it is read once, and its 30 s "
                "for the answers started at the end of that reading (C2003-2.7.4)"
            )

    def _judge_final(self, t: int, correct: bool, seat: int | None, out: list[Decision]) -> None:
        # C2003-2.7.4/2.7.5, TV-F-4/5: the answers are judged once they are in, after the
        # question was read and its 30 s ran out. A verdict before that (a stray tap)
        # would reveal and score a stake for an answer nobody has written yet.
        final = self.final
        assert final is not None
        due = final.answers_due
        if due is None:
            raise SequenceError(
                "the final question has not been read yet: read it (reading_start, "
                "reading_end), then judge the answers after the 30 s (C2003-2.7.4, TV-F-4)"
            )
        final.advance(t, out)
        if not final.answers_in:
            left = (due - t) / 1e9
            raise SequenceError(
                f"the players are still writing their answers: {left:.1f} s of the 30 s "
                "left; judge the answers after them (C2003-2.7.5, TV-F-5)"
            )
        self._final_begun()
        expected = final.order[0]
        if seat is not None and seat != expected:
            raise SequenceError(
                f"final answers are judged in ascending order of score: seat {expected} is next"
            )
        final.order.pop(0)
        stake = final.stakes[expected]
        out.append(Note(t, NoteKind.FINAL_STAKE, (("seat", expected), ("stake", stake))))
        self._add(t, expected, stake if correct else -stake, out)  # C2003-2.7.6
        if final.order:
            return
        # Only the finalists contend: the others left before the final (TV-F-1, C2003-2.6a);
        # one who played it alone wins whatever the result (TV-F-1 DEFAULT).
        self._finish_by_score(t, final.seats, out)

    def _finish_by_score(self, t: int, seats: Sequence[int], out: list[Decision]) -> None:
        """The highest score wins; a tie for first goes to a shootout (C2003-2.8, TV-T-1)."""
        top = max(self.scores[s] for s in seats)
        leaders = tuple(s for s in seats if self.scores[s] == top)
        if len(leaders) == 1:
            self._game_over(t, leaders[0], out)
        elif self.rules.final is None and not self.rules.has_chooser:
            out.append(Note(t, NoteKind.TIE_FOR_FIRST, (("seats", list(leaders)),)))  # SPORT-D
            self._game_over(t, None, out)
        else:
            self._start_shootout(t, leaders, 1, out)

    def _start_shootout(
        self, t: int, seats: tuple[int, ...], number: int, out: list[Decision]
    ) -> None:
        spec = RoundSpec("Перестрелка", ("1",), self.rules.shootout_prices)
        self.shootout = Shootout(seats, number, Board((spec,)), dict.fromkeys(seats, 0))
        self.stage = Stage.BOARD
        out.append(Note(t, NoteKind.SHOOTOUT_STARTED, (("seats", list(seats)), ("number", number))))

    def _end_shootout(self, t: int, out: list[Decision]) -> None:
        shootout = self.shootout
        assert shootout is not None
        top = max(shootout.scores.values())
        leaders = tuple(s for s in shootout.seats if shootout.scores[s] == top)
        if len(leaders) == 1:
            self.shootout = None
            self._game_over(t, leaders[0], out)
        else:
            self._start_shootout(t, leaders, shootout.number + 1, out)  # C2003-2.8-D3

    def _game_over(self, t: int, winner: int | None, out: list[Decision]) -> None:
        self.stage = Stage.OVER
        self.winner = winner
        out.append(Note(t, NoteKind.GAME_OVER, (("winner", winner),)))
