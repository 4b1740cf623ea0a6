"""The game engine: rounds, plain and special questions, the final, the shootout.

Pure and deterministic: time-ordered inputs in, decisions out. The button
logic of a question is the :class:`buzzer.arbiter.Arbiter`'s; this module adds
what happens around it: the board and its rounds, scores and the chooser
(C2003-2.4.2/2.4.3, TV-G-5, SPORT-1), special questions (C2003-2.4.6,
TV-S-*), the final round (C2003-2.6/2.7, TV-F-*), the shootout (C2003-2.8,
TV-T-1) and the host's corrections (TOUR-3.7, TOUR-1.9).

Everything a rule system changes is read from its :class:`RuleSystem` data;
nothing here asks which rule system is in force.

The game is made of parts, each in its own module. Parts that hold state of
their own are objects the game holds: the stake question's bidding
(:mod:`rules.specials.stake`), the cat once given (:mod:`rules.specials.cat`),
the bonus contest (:mod:`rules.specials.bonus`), the final once it has started
(:mod:`rules.final_state`). Parts that are procedures on
the game's own state are mixins: the round clock (:mod:`rules.rounds`), the
bonus contest's offer and play (:mod:`rules.specials.bonus_round`), the
host's corrections (:mod:`rules.corrections`), the final and the shootout
(:mod:`rules.final`). The header is :mod:`rules.setup`; the snapshot is built
beside its contract (:mod:`rules.snapshot_build`). None of them holds a
closure or a bound method of the game, so a copy of a game is a plain deep copy.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar

from buzzer.arbiter.commands import Handler, WhilePaused, dispatch_table
from buzzer.arbiter.decisions import (
    Chooser,
    Decision,
    FirstChooser,
    Ignored,
    Note,
    NoteKind,
    QuestionSelected,
    Recognized,
    Score,
)
from buzzer.arbiter.events import (
    HOST_COMMANDS,
    Bid,
    BidderPick,
    CatGive,
    CatPicture,
    CatPrice,
    Judge,
    Pass,
    Pause,
    ReadingEnd,
    ReadingStart,
    Resume,
    Select,
    Timeout,
)
from buzzer.arbiter.machine import PAUSED, Arbiter, Phase, SequenceError
from rules.board import Board, BoardError
from rules.corrections import HostCorrections
from rules.final import FinalRound
from rules.final_state import FinalState
from rules.rounds import RoundClock
from rules.setup import GameSetup as GameSetup  # the header, where its users import it from
from rules.snapshot import GameSnapshot
from rules.snapshot_build import game_snapshot
from rules.specials.bidding import Bidding
from rules.specials.bonus import BonusContest
from rules.specials.bonus_round import BonusRound
from rules.specials.cat import CatInBag
from rules.specials.params import FirstChooserRule
from rules.specials.stake import StakeQuestion
from rules.state import Shootout, SpecialKind, Stage, Verdict


class Game(FinalRound, RoundClock, BonusRound, HostCorrections):
    """One game's state; every input handler appends its decisions to ``out``."""

    def __init__(self, setup: GameSetup, out: list[Decision]) -> None:
        self.setup = setup
        self.rules = setup.rules
        self.seats = len(setup.players)
        #: Who sits at each seat now (SER-CC1-SUB: a substitute takes a seat's name).
        self.names: list[str] = list(setup.players)
        self.scores: dict[int, int] = dict.fromkeys(
            range(1, self.seats + 1), setup.rules.start_score
        )
        if setup.start_scores is not None:  # SER-CARRY: a series game's carried scores
            self.scores = dict(enumerate(setup.start_scores, 1))
        self.board = Board(setup.rounds or setup.rules.rounds)
        self.arbiter = Arbiter(setup.rules.buttons, self.seats)
        self.rng = random.Random(setup.seed)
        self.stage = Stage.BOARD
        self.cell: tuple[int, int] | None = None
        self.special: SpecialKind | None = None
        self.chooser: int | None = None
        self.winner: int | None = None
        self.round_started_at: int | None = None
        #: The round whose one-minute warning has sounded (TV-H-1994-10), if any.
        self.round_warned: int | None = None
        #: The round whose gong sounded while a question was in play (TV-G-6), if any:
        #: the rest of that round is struck when the question is over.
        self.round_gonged: int | None = None
        #: The question being played: its verdicts so far (for objections, TOUR-3.7).
        self.verdicts: list[Verdict] = []
        #: The last closed question's verdicts while an objection to it is
        #: accepted (TOUR-3.7: until the next select); None when none is.
        self.objectable: list[Verdict] | None = None
        # Special questions.
        #: The stake question being bid on (rules/specials/stake.py).
        self.stake: StakeQuestion | None = None
        self.answerer: int | None = None
        #: A special question's time to think: None until the host has read it
        #: (C2003-2.4.6e: from the end of the reading, ``reading_end``).
        self.special_deadline: int | None = None
        self._special_think = 0
        self.value = 0
        self.wrong_costs = True
        # The 1995 bonus contest (TV-H-1995-03): offered once, after its round.
        self.bonus: BonusContest | None = None
        #: The cat in the bag once given (rules/specials/cat.py), until its question closes.
        self.cat: CatInBag | None = None
        self.bonus_offered = False
        #: The final round once it has started (rules/final_state.py).
        self.final: FinalState | None = None
        self.shootout: Shootout | None = None
        #: A-G-D1: when the host paused the game (None: it runs). Every clock
        #: stands still until the resume, which moves each pending deadline on.
        self.paused_at: int | None = None
        # True between the end of the main rounds and the first input of the final:
        # an objection on the last question may still change who plays it (TOUR-3.7).
        self._final_pristine = False
        if self.rules.has_chooser:
            self.chooser, how = self._first_chooser()
            out.append(FirstChooser(0, self.chooser, how))

    # -- draws ---------------------------------------------------------------

    def _first_chooser(self) -> tuple[int, str]:
        """C2003-2.2.2 (by lot), TV-G-4 (the youngest; the central table)."""
        setup = self.setup
        if setup.chooser is not None:
            return setup.chooser, "header"
        everyone = tuple(range(1, self.seats + 1))
        rule = self.rules.first_chooser
        if rule is FirstChooserRule.CENTRAL_TABLE and setup.central_seat is not None:
            return setup.central_seat, "central_table"
        if rule is FirstChooserRule.YOUNGEST and setup.birth_dates is not None:
            youngest = self._youngest(everyone)
            if youngest is not None:
                return youngest, "youngest"
        return self.draw(everyone), "draw"

    def _youngest(self, seats: Sequence[int]) -> int | None:
        """The one youngest of ``seats`` (latest birth date), or None if it is not clear."""
        births = self.setup.birth_dates
        if births is None:
            return None
        latest = max(births[s - 1] for s in seats)
        youngest = [s for s in seats if births[s - 1] == latest]
        return youngest[0] if len(youngest) == 1 else None

    def draw(self, seats: Sequence[int]) -> int:
        """A draw by lot from the game's seed: the same seed, the same winners."""
        return seats[self.rng.randrange(len(seats))]

    def _order_by_score(self, seats: Sequence[int]) -> list[int]:
        """Ascending score; players with equal scores in an order drawn by lot."""
        lots = {seat: self.rng.random() for seat in sorted(seats)}
        return sorted(seats, key=lambda s: (self.scores[s], lots[s]))

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
        if self.stage is Stage.BIDDING:
            won: list[Decision] = []
            self.arbiter.resolve_tie(winner, won)
            assert self.stake is not None
            self.stake.claims(won, out)
        else:
            self.arbiter.resolve_tie(winner, out)
        return winner

    # -- inputs --------------------------------------------------------------

    #: Host command type → the name of the method that applies it (``_on_<TYPE>``),
    #: made from the declaration (buzzer/arbiter/commands.py; set below the class).
    #: A table of names on the class, not of bound methods and lambdas on the
    #: instance: a game holds no closures, so a copy of it (the panel's trial run)
    #: is a plain deep copy with nothing to re-bind.
    _HANDLERS: ClassVar[dict[type, str]]

    def apply(self, item: Any, out: list[Decision]) -> None:
        """Apply one host command (already in time order)."""
        name = self._HANDLERS.get(type(item))
        if name is None:
            return
        # A-G-D1: what the host may still do while paused is the declaration's
        # (``SPEC.while_paused``): corrections and objections (a dispute is what a
        # pause is often for), the resume. Anything that moves the game on waits.
        if self.paused_at is not None and item.SPEC.while_paused is WhilePaused.REFUSED:
            raise SequenceError(
                f"{item.TYPE} makes no sense now: the game is paused (A-G-D1): resume it first"
            )
        getattr(self, name)(item, out)

    def _on_pause(self, item: Pause, out: list[Decision]) -> None:
        """A-G-D1: the host stops the game; every clock stands still from ``t``."""
        if self.paused_at is not None:
            raise SequenceError(
                f"the game is already paused (since t={self.paused_at / 1e9:g} s): "
                "resume it before pausing again"
            )
        self.paused_at = item.t
        out.append(Note(item.t, NoteKind.PAUSED))

    def _on_resume(self, item: Resume, out: list[Decision]) -> None:
        """A-G-D1: the game goes on; every deadline still pending at the pause
        moves on by the pause's length (from the two lines' own stamps), so each
        clock has exactly the time it had left when the host paused."""
        paused_at = self.paused_at
        if paused_at is None:
            raise SequenceError("the game is not paused: there is nothing to resume")
        self.paused_at = None
        length = item.t - paused_at
        out.append(Note(item.t, NoteKind.RESUMED, (("paused_s", length / 1e9),)))
        if length <= 0:
            return
        self.arbiter.shift(paused_at, length)  # the press window, the buy window, lockouts
        if self.special_deadline is not None and self.special_deadline > paused_at:
            self.special_deadline += length  # a special question's time to think (A.4)
        end = self._round_clock_end()
        if end is not None and end > paused_at and self.round_started_at is not None:
            self.round_started_at += length  # TV-G-6: the round clock (and its warning)
        if self.final is not None:
            self.final.resume(item.t, length, out)  # C2003-2.7.4, TV-F-4: the writing time

    def _on_reading_start(self, item: ReadingStart, out: list[Decision]) -> None:
        self.reading_start(item.t, out)

    def _on_reading_end(self, item: ReadingEnd, out: list[Decision]) -> None:
        self.reading_end(item.t, out)

    def _on_timeout(self, item: Timeout, out: list[Decision]) -> None:
        self.timeout(item.t, out)

    def press(self, t: int, seats: Sequence[int], out: list[Decision]) -> None:
        if self.stage is Stage.BOARD:
            # A-G-D2: no question is open (before the first, between questions and
            # rounds, paused on the board): a press is a button check. It decides
            # what it always did (ignored, for the same reason); its decision only
            # says it was a check, for the lamps and the board to show.
            start = len(out)
            self._press(t, seats, out)
            for i in range(start, len(out)):
                decision = out[i]
                if isinstance(decision, Ignored):
                    out[i] = replace(decision, check=True)
            return
        self._press(t, seats, out)

    def _press(self, t: int, seats: Sequence[int], out: list[Decision]) -> None:
        if self.paused_at is not None:
            # A-G-D1: nobody may take the floor while the game stands still; not a
            # false start either (the host stopped the game, not the reading).
            for seat in seats:
                out.append(Ignored(t, seat, PAUSED))
            return
        if self.stage is Stage.BIDDING:
            assert self.stake is not None
            self.stake.press(self.arbiter, t, seats, out)
            return
        self.arbiter.press(t, seats, out)

    def reading_start(self, t: int, out: list[Decision]) -> None:
        if self._final_reading():
            self._final_reading_start()
            return
        if self.stage is Stage.SPECIAL:
            self._special_read("reading_start")
            return
        self._expect(Stage.QUESTION, "reading_start")
        self.arbiter.begin_reading()

    def reading_end(self, t: int, out: list[Decision]) -> None:
        if self._final_reading():
            self._final_reading_end(t, out)
            return
        if self.stage is Stage.SPECIAL:
            self._special_read("reading_end")
            # C2003-2.4.6e, A.4: the time to think runs from the end of the reading.
            self.special_deadline = t + self._special_think
            return
        self._expect(Stage.QUESTION, "reading_end")
        self.arbiter.end_reading(t, out)

    def _special_read(self, command: str) -> None:
        """The host reads a special question to the one who answers it: once
        (a repeated ``reading_start`` while reading changes nothing)."""
        if self.special_deadline is not None:
            raise SequenceError(
                f"{command} makes no sense now: the special question has been read, "
                f"seat {self.answerer} is thinking: judge the answer"
            )

    def select(self, t: int, theme: int | None, price: int | None, out: list[Decision]) -> None:
        arbiter = self.arbiter
        if self.stage is Stage.QUESTION:
            if arbiter.phase is Phase.ANSWERING:
                raise SequenceError(
                    f"seat {arbiter.answering} is answering: judge the answer before selecting"
                )
            # docs/journal-contract.md: a select while a window is open ends that question,
            # no score change.
            arbiter.close()
            self._close_question(t, None, out)
        self._skip_bonus(t, out)
        if self.stage is not Stage.BOARD:
            raise SequenceError(self._busy_message())
        self.objectable = None
        board = self._board()
        if self.shootout is None:
            self._check_round_clock(t, out)
            self._skip_bonus(t, out)
            if board.round_done and not self._next_round(t, out):
                raise SequenceError("every question has been played: the board is empty")
            if self.stage is not Stage.BOARD:
                raise SequenceError(self._busy_message())
            board = self._board()
        theme, price = self._resolve_cell(board, theme, price)
        self.cell = (theme, price)
        if self.round_started_at is None:
            self.round_started_at = t
        round_no = board.round_index + 1
        out.append(QuestionSelected(t, round_no, theme, price))
        kind = None if self.shootout else self.setup.specials.get((round_no, theme, price))
        self.special = kind
        if kind is None:
            eligible = frozenset(self.shootout.seats) if self.shootout else None
            arbiter.open_question(eligible)
            self.stage = Stage.QUESTION
        elif kind is SpecialKind.STAKE:
            self._open_stake(t, price, out)
        elif kind is SpecialKind.CAT:
            self.stage = Stage.CAT_GIVE
            out.append(Note(t, NoteKind.SPECIAL, (("kind", "cat"), ("opener", self.chooser))))
        else:
            multiplier = self.rules.sponsor_multiplier
            assert multiplier is not None
            assert self.chooser is not None
            out.append(Note(t, NoteKind.SPECIAL, (("kind", "sponsor"), ("opener", self.chooser))))
            self._designate(t, self.chooser, price * multiplier, out, wrong_costs=False)

    def judge(self, t: int, correct: bool, out: list[Decision]) -> None:
        if self.stage is Stage.SPECIAL:
            self._judge_special(t, correct, out)
            return
        if self.stage is Stage.BONUS:
            self._judge_bonus(t, correct, out)
            return
        if self.stage is Stage.FINAL_JUDGING:
            self._judge_final(t, correct, None, out)
            return
        arbiter = self.arbiter
        seat = arbiter.answering
        if self.stage is not Stage.QUESTION or seat is None:
            raise SequenceError("nobody is answering: there is no answer to judge")
        value = self._question_value()
        delta = value if correct else -value  # C2003-2.4.2, TV-G-5
        self._add(t, seat, delta, out)
        self.verdicts.append(Verdict(seat, delta, value))
        arbiter.verdict(t, correct, out)
        if not arbiter.question_open:
            self._close_question(t, seat if correct else None, out)

    def timeout(self, t: int, out: list[Decision]) -> None:
        if self.stage is Stage.BONUS:
            raise SequenceError(
                f"seat {self.answerer} is playing the bonus contest: judge each answer "
                "(silence is wrong)"
            )
        if self.stage is Stage.SPECIAL:
            raise SequenceError(
                f"seat {self.answerer} must answer this special question: silence is judged "
                "wrong by the host (A-G3, TV-S-CAT-3): send judge wrong"
            )
        if self.stage is not Stage.QUESTION or not self.arbiter.question_open:
            raise SequenceError("no question is open: there is nothing to time out")
        self.arbiter.close()
        self._close_question(t, None, out)

    def advance(self, t: int, out: list[Decision]) -> None:
        """Time has reached ``t``: fire the deadlines before it."""
        if self.paused_at is not None:
            return  # A-G-D1: no clock runs during a pause
        self._sound_round_clock(t, out)
        if self.stage is Stage.QUESTION and self.arbiter.advance(t, out):
            closes_at = self.arbiter.closes_at
            assert closes_at is not None
            self._close_question(closes_at, None, out)
        elif self.stage is Stage.BIDDING and self.arbiter.advance(t, out):
            closes_at = self.arbiter.closes_at
            assert closes_at is not None
            assert self.stake is not None
            self.stake.bidding.close_window()  # TV-H-1995-01: nobody bought it in time
            self._after_bidding_move(closes_at, out)
        elif self.stage is Stage.BOARD:
            end = self._round_clock_end()
            if end is not None and end < t:
                self._check_round_clock(end, out)
        elif self.final is not None:
            self.final.advance(t, out)  # the final's 30 s for the written answers

    def next_deadline(self) -> int | None:
        """The next instant at which time passing alone changes something."""
        if self.paused_at is not None:
            return None  # A-G-D1: only the resume moves the game on
        times = [
            at
            for at in (self._stage_deadline(), self._round_warning_at(), self._gong_in_play())
            if at is not None
        ]
        return min(times) if times else None

    def _stage_deadline(self) -> int | None:
        arbiter = self.arbiter
        if self.stage in (Stage.QUESTION, Stage.BIDDING) and arbiter.phase is Phase.OPEN:
            return arbiter.closes_at
        if self.stage is Stage.BOARD:
            return self._round_clock_end()
        if self.final is not None:
            return self.final.deadline()
        return None

    @property
    def bidding(self) -> Bidding | None:
        """The stake question's bidding while it is bid on (the host's options read it)."""
        return None if self.stake is None else self.stake.bidding

    def result(self) -> tuple[dict[int, int], int | None]:
        return dict(self.scores), self.chooser

    @property
    def over(self) -> bool:
        return self.stage is Stage.OVER

    def snapshot(self) -> GameSnapshot:
        """Everything a screen or a panel shows, as plain data (JSON-ready; its
        shape is :class:`rules.snapshot.GameSnapshot`, built beside it)."""
        return game_snapshot(self)

    # -- handlers ------------------------------------------------------------

    def _on_select(self, item: Select, out: list[Decision]) -> None:
        self.select(item.t, item.theme, item.price, out)

    def _on_judge(self, item: Judge, out: list[Decision]) -> None:
        self.judge(item.t, item.correct, out)

    def _on_bid(self, item: Bid, out: list[Decision]) -> None:
        self._stake("bid").bid(item.t, item.seat, item.amount, self.scores, out)
        self._after_bidding_move(item.t, out)

    def _on_pass(self, item: Pass, out: list[Decision]) -> None:
        self._stake("pass").pass_(item.seat)
        self._after_bidding_move(item.t, out, passed=item.seat)

    def _on_bidder_pick(self, item: BidderPick, out: list[Decision]) -> None:
        self._stake("bidder_pick").pick(item.t, item.seat, out)

    def _on_cat_give(self, item: CatGive, out: list[Decision]) -> None:
        self._expect(Stage.CAT_GIVE, "cat_give")
        rules = self.rules.cat
        assert rules is not None
        assert self.chooser is not None
        assert self.cell is not None
        series = self.setup.cat_series.get((self.board.round_index + 1, *self.cell))
        prices = self._board().current.prices
        cat = CatInBag.give(rules, self.chooser, item.seat, series, prices, item.t, out)
        self.cat = cat
        self.answerer = item.seat
        if series is not None:
            self._designate(item.t, item.seat, series[0], out, wrong_costs=True)
            return
        self.stage = Stage.CAT_PRICE

    def _on_cat_price(self, item: CatPrice, out: list[Decision]) -> None:
        self._expect(Stage.CAT_PRICE, "cat_price")
        cat = self.cat
        assert cat is not None
        assert self.answerer is not None
        cat.check_price(item.price, self._board().current.prices)
        self._designate(item.t, self.answerer, item.price, out, wrong_costs=True)

    def _on_cat_picture(self, item: CatPicture, out: list[Decision]) -> None:
        """TV-S-CAT-5 DEFAULT: one answer, worth the value of the pictures shown so
        far; each new picture lowers it and restarts the time to think."""
        cat = self.cat
        if self.stage is not Stage.SPECIAL or cat is None or cat.series is None:
            raise SequenceError("cat_picture: no picture-series cat (TV-S-CAT-5) is being played")
        self.value = cat.picture(item.t, out)
        if self.special_deadline is not None:
            # the time to think starts again, if it runs (from the reading's end)
            self.special_deadline = item.t + cat.rules.answer_time_ns

    # -- special questions ---------------------------------------------------

    def _open_stake(self, t: int, price: int, out: list[Decision]) -> None:
        rules = self.rules.stake
        assert rules is not None
        assert self.chooser is not None
        self.stage = Stage.BIDDING
        self.stake, forced = StakeQuestion.open(
            rules, self.chooser, price, self.scores, self.rng, t, out
        )
        if forced:
            self._after_bidding_move(t, out)

    def _after_bidding_move(self, t: int, out: list[Decision], passed: int | None = None) -> None:
        stake = self.stake
        assert stake is not None
        outcome = stake.after_move(self.arbiter, t, out, passed)
        if outcome is not None:
            self.stake = None
            self._designate(t, outcome.seat, outcome.stake, out, wrong_costs=True)

    def _designate(
        self, t: int, seat: int, value: int, out: list[Decision], wrong_costs: bool
    ) -> None:
        """Only ``seat`` answers, for ``value`` (A-G4: no buttons)."""
        self.stage = Stage.SPECIAL
        self.answerer = seat
        self.value = value
        self.wrong_costs = wrong_costs
        # A.4: time to think (C2003-2.4.6e: 10 s on the stake question).
        think = (
            self.rules.stake_answer_time_ns
            if self.special is SpecialKind.STAKE
            else (
                self.rules.cat.answer_time_ns
                if self.special is SpecialKind.CAT and self.rules.cat
                else self.rules.buttons.answer_time_ns
            )
        )
        # It starts when the host has read the question (reading_end), not at the
        # hand-over: the host is still reading then (C2003-2.4.6e; docs/journal.md).
        self._special_think = think
        self.special_deadline = None
        out.append(Recognized(t, seat))

    def _judge_special(self, t: int, correct: bool, out: list[Decision]) -> None:
        seat = self.answerer
        assert seat is not None
        loss = self.value if self.wrong_costs else 0  # TV-S-SPN-1: a sponsor question costs 0
        delta = self.value if correct else -loss
        self._add(t, seat, delta, out)
        self.verdicts.append(Verdict(seat, delta, self.value))
        # TV-S-0c, C2003-2.4.6f: whoever played it chooses next, right or wrong.
        self._close_question(t, seat, out)

    # -- rounds, the final, the shootout ------------------------------------

    def _close_question(self, t: int, next_chooser: int | None, out: list[Decision]) -> None:
        """The question is over: mark the cell, pass the choice (C2003-2.4.3, TV-G-5)."""
        board = self._board()
        if self.cell is not None:
            board.mark_played(*self.cell)
            self.cell = None
        self.stage = Stage.BOARD
        self.special = None
        self.answerer = None
        self.special_deadline = None
        self.cat = None
        self.objectable = self.verdicts  # TOUR-3.7: open to objection until the next select
        self.verdicts = []
        if self.shootout is not None:
            if board.round_done:
                self._end_shootout(t, out)
            return
        if self.chooser is not None:
            if next_chooser is not None:
                self.chooser = next_chooser
            out.append(Chooser(t, self.chooser))
        self._check_round_clock(t, out)
        if self.board.exhausted and self.stage is Stage.BOARD:
            self._end_main_rounds(t, out)
        else:
            self._offer_bonus(t, out)

    # -- helpers -------------------------------------------------------------

    def _add(self, t: int, seat: int, delta: int, out: list[Decision]) -> None:
        if self.shootout is not None and seat in self.shootout.scores:
            scores = self.shootout.scores
            scores[seat] += delta
            out.append(
                Note(
                    t,
                    NoteKind.SHOOTOUT_SCORE,
                    (("seat", seat), ("delta", delta), ("score", scores[seat])),
                )
            )
            return
        self.scores[seat] += delta
        out.append(Score(t, seat, delta, self.scores[seat]))

    def _final_theme_count(self) -> int:
        """Themes the final offers: the package's or the header's, else the rule system's."""
        final = self.rules.final
        assert final is not None
        return self.setup.final_themes or final.themes

    def _board(self) -> Board:
        return self.shootout.board if self.shootout is not None else self.board

    def _stake(self, command: str) -> StakeQuestion:
        if self.stage is not Stage.BIDDING or self.stake is None:
            raise SequenceError(f"{command}: no stake question or auction is being bid on")
        return self.stake

    def _expect(self, stage: Stage, command: str) -> None:
        if self.stage is not stage:
            raise SequenceError(f"{command} makes no sense now: {self._busy_message()}")

    def _busy_message(self) -> str:
        return {
            Stage.BOARD: "the board is waiting for the chooser's question",
            Stage.QUESTION: "a question is being played",
            Stage.BIDDING: "the bidding on a stake question is not finished",
            Stage.CAT_GIVE: "the cat in the bag must first be given to a player",
            Stage.CAT_PRICE: "the cat's value must first be set",
            Stage.SPECIAL: f"seat {self.answerer} is answering a special question: judge it",
            Stage.BONUS_OFFER: "the bonus contest is being offered: send bonus accept or decline",
            Stage.BONUS: f"seat {self.answerer} is playing the bonus contest: judge each answer",
            Stage.FINAL_REMOVE: "the final themes are being removed",
            Stage.FINAL_STAKES: "the final stakes are being made",
            Stage.FINAL_JUDGING: "the final answers are being judged",
            Stage.OVER: "the game is over",
        }[self.stage]

    def _question_value(self) -> int:
        """What a verdict on the current plain question is worth: its price."""
        assert self.cell is not None
        return self.cell[1]

    def _resolve_cell(self, board: Board, theme: int | None, price: int | None) -> tuple[int, int]:
        if not self.rules.has_chooser or self.shootout is not None:
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
        if theme is None and price is None:
            # Neither named: the next question in the board's reading order (the
            # cheapest row first, left to right; docs/journal.md). The chooser's
            # free choice (C2003-2.4.3, TV-G-5) is theirs to waive: the host picks
            # for them. The board is never empty here (the round moved on above).
            expected = board.next_in_reading_order()
            assert expected is not None
            return expected
        if theme is None or price is None:
            raise SequenceError("select needs both a theme and a price, or neither")
        try:
            board.check(theme, price)
        except BoardError as exc:
            raise SequenceError(str(exc)) from None
        return theme, price


Game._HANDLERS = dispatch_table(Game, Handler.GAME, HOST_COMMANDS)
