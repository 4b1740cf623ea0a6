"""The rounds' clock and their succession: the gong (TV-G-6), the one-minute
warning (TV-H-1994-10), and who chooses first in the next round (C2003-2.3.2,
TV-G-4).

A mixin of :class:`rules.game.Game`, as :mod:`rules.final` is: it owns the
round clock's procedures and reads the game's state, which the game declares.
Kept apart so that the game's module plays questions and this one times the
rounds they are played in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from buzzer.arbiter.decisions import Chooser, Decision, Note, NoteKind, RoundStarted
from buzzer.arbiter.machine import Arbiter, Phase
from rules.board import Board
from rules.profiles import RuleSystem
from rules.specials.params import RoundChooser, TieBreak
from rules.state import Shootout, Stage


class RoundClock:
    """The round clock and the move to the next round, as a part of :class:`rules.game.Game`."""

    # The game's state this part reads and writes (set by Game.__init__).
    rules: RuleSystem
    board: Board
    arbiter: Arbiter
    scores: dict[int, int]
    stage: Stage
    cell: tuple[int, int] | None
    chooser: int | None
    shootout: Shootout | None
    round_started_at: int | None
    round_warned: int | None
    round_gonged: int | None

    if TYPE_CHECKING:
        # What it needs of the game, declared for the type checker only: the
        # game defines them (no stubs at run time that could be called by mistake).
        def _youngest(self, seats: Sequence[int]) -> int | None: ...

        def draw(self, seats: Sequence[int]) -> int: ...

        def _end_main_rounds(self, t: int, out: list[Decision]) -> None: ...

        def _offer_bonus(self, t: int, out: list[Decision]) -> None: ...

    def _sound_round_clock(self, t: int, out: list[Decision]) -> None:
        """Time has reached ``t``: the warning and the gong that fall before it sound."""
        if self.rules.round_clock_ns is None:
            return  # no round clock (most rule systems): nothing to sound, at every input
        warning = self._round_warning_at()
        if warning is not None and warning < t:
            # TV-H-1994-10: the signal sounds whatever is being played; it decides nothing
            self.round_warned = self.board.round_index
            left = (self.rules.round_warning_ns or 0) / 1e9
            out.append(
                Note(
                    warning,
                    NoteKind.ROUND_WARNING,
                    (("round", self.board.round_index + 1), ("left_s", left)),
                )
            )
        gong = self._gong_in_play()
        if gong is not None and gong < t and not self._window_closes_before(gong, t):
            # TV-G-6: the gong sounds at its time; the question in play goes on and
            # is completed, then the rest of the round is struck (_check_round_clock).
            self.round_gonged = self.board.round_index
            out.append(Note(gong, NoteKind.ROUND_TIME_UP, (("round", self.board.round_index + 1),)))

    def _round_clock_end(self) -> int | None:
        """When the current round's clock runs out (TV-G-6), if it has one and it runs."""
        clock = self.rules.round_clock_ns
        started = self.round_started_at
        if clock is None or started is None or self.shootout is not None:
            return None
        if self.board.round_done:
            return None
        return started + clock

    def _round_warning_at(self) -> int | None:
        """When this round's warning signal sounds (TV-H-1994-10), if it is still to come."""
        before = self.rules.round_warning_ns
        if before is None or self.round_warned == self.board.round_index:
            return None
        end = self._round_clock_end()
        return None if end is None else end - before

    def _gong_in_play(self) -> int | None:
        """When the round clock runs out during the question in play (TV-G-6), if it
        is still to sound then; None between questions (``_check_round_clock``).

        Not for the round's last question: that round ends with it anyway, and
        no gong was ever given for a round played to its end.
        """
        if self.stage is Stage.BOARD or self.cell is None:
            return None
        if self.round_gonged == self.board.round_index:
            return None
        board = self.board
        spec = board.current
        if self.cell not in board.played and len(board.played) + 1 == len(spec.themes) * len(
            spec.prices
        ):
            return None
        return self._round_clock_end()

    def _window_closes_before(self, gong: int, t: int) -> bool:
        """Does the open press window run out (before ``t``) earlier than the gong? Then
        the question ends first, and the gong comes between questions."""
        arbiter = self.arbiter
        if self.stage not in (Stage.QUESTION, Stage.BIDDING) or arbiter.phase is not Phase.OPEN:
            return False
        closes_at = arbiter.closes_at
        return closes_at is not None and closes_at < t and closes_at < gong

    def _check_round_clock(self, t: int, out: list[Decision]) -> None:
        """TV-G-6 DEFAULT: the clock runs from the round's first question; the gong
        sounds when it runs out (``round_time_up`` at that instant; during a question,
        :meth:`advance` gives it then), a question in progress at expiry is completed,
        and the rest of the round is not played. Called between questions only (at
        ``t``, the instant time reached)."""
        end = self._round_clock_end()
        if end is None or t < end:
            return
        if self.round_gonged != self.board.round_index:
            out.append(Note(end, NoteKind.ROUND_TIME_UP, (("round", self.board.round_index + 1),)))
        spec = self.board.current
        for theme in range(1, len(spec.themes) + 1):
            for price in spec.prices:
                self.board.mark_played(theme, price)
        if self.board.exhausted:
            self._end_main_rounds(max(t, end), out)
        else:
            self._offer_bonus(max(t, end), out)

    def _next_round(self, t: int, out: list[Decision]) -> bool:
        """Move to the next round of the board; False when none is left."""
        if not self.board.next_round():
            return False
        self.round_started_at = None
        out.append(RoundStarted(t, self.board.round_index + 1, self.board.current.name))
        if self.chooser is not None and self.rules.round_chooser is RoundChooser.LOWEST_SCORE:
            # C2003-2.3.2, TV-G-4: the lowest score chooses first; a tie by lot.
            low = min(self.scores.values())
            tied = [s for s in sorted(self.scores) if self.scores[s] == low]
            youngest = None
            if len(tied) > 1 and self.rules.round_tie_break is TieBreak.YOUNGEST:
                youngest = self._youngest(tied)
            if len(tied) == 1:
                self.chooser = tied[0]
            elif youngest is not None:
                self.chooser = youngest
                out.append(Note(t, NoteKind.YOUNGEST, (("seats", tied), ("winner", youngest))))
            else:
                self.chooser = self.draw(tied)
                out.append(Note(t, NoteKind.LOT, (("seats", tied), ("winner", self.chooser))))
            out.append(Chooser(t, self.chooser))
        return True
