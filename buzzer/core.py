"""The pure core of a game: inputs in arrival order in, decisions out.

:class:`GameCore` puts the settle window (:class:`ReorderBuffer`) in front of
the game engine (:class:`rules.game.Game`) and settles ties by draws. It is
what the live controller drives and what ``svoyak replay`` drives; both feed
the same inputs in the same order, so both make the same decisions.
"""

from __future__ import annotations

import copy
import random
from collections import deque
from typing import Any, ClassVar

from buzzer.arbiter.commands import Handler, dispatch_table
from buzzer.arbiter.decisions import Chooser, Decision, Ignored, Note, NoteKind, Score
from buzzer.arbiter.events import (
    HOST_COMMANDS,
    Draw,
    Fault,
    HostInput,
    Input,
    Press,
    Release,
    Select,
    Substitute,
    Tick,
    Undo,
)
from buzzer.arbiter.machine import SequenceError
from buzzer.arbiter.sequencer import ReorderBuffer
from buzzer.errors import SvoyakError
from rules.board import board_order
from rules.game import Game, GameSetup
from rules.snapshot import GameSnapshot, HostOptions, NextRound
from rules.specials.params import CatPrice
from rules.state import Stage


def _undoable(item: Input) -> bool:
    """Whether an undo can take ``item`` back: a host command declared undoable
    (``SPEC.undoable``; not an undo, nor a pause, A-G-D1: the clocks stood still,
    and an undo cannot make them have run), never a press, a tick or a draw."""
    return isinstance(item, HostInput) and item.SPEC.undoable


class InputError(SvoyakError):
    """An input the core refuses; ``ref`` names it (e.g. the journal line)."""

    def __init__(self, ref: int, message: str) -> None:
        super().__init__(message)
        self.ref = ref
        self.message = message


class GameCore:
    """The single owner of a game's decisions (pure: no clock, no I/O)."""

    #: The host commands the core applies itself (``_on_<TYPE>``, from the
    #: declaration: ``Handler.CORE``); the game applies the rest.
    _HANDLERS: ClassVar[dict[type, str]]

    def __init__(self, setup: GameSetup) -> None:
        self.setup = setup
        self.started: list[Decision] = []
        self.game = Game(setup, self.started)
        # The tie waiting for a draw is the arbiter's state; read there directly,
        # as it is checked several times per input (not through Game's property).
        self._arbiter = self.game.arbiter
        self.buffer = ReorderBuffer(setup.settle_ns)
        # Draws recorded before their tie was decided: sorted seats → (ref, winner) queue.
        self._recorded: dict[tuple[int, ...], deque[tuple[int, int]]] = {}
        # Every input in arrival order, and the refs of host commands undone since.
        self.history: list[Input] = []
        # The latest arrival (ref) among the presses applied so far: a host command
        # that arrived before it yet is applied after it was overtaken (see _apply).
        self._latest_press_ref = 0
        self.undone: frozenset[int] = frozenset()
        #: What each host command applied acted on, by its journal line: the round,
        #: the question's theme (by the round's own name) and price, who was
        #: answering (:meth:`_context`). The host's command log shows it, as the
        #: command alone does not say it: a select names a theme by number, in
        #: whatever round it was, and a verdict does not say whose.
        self.context: dict[int, tuple[tuple[str, object], ...]] = {}

    def push(self, item: Input, out: list[Decision]) -> None:
        """Take one input in arrival order; append the decisions it releases to ``out``."""
        kind = type(item)
        if kind is Press or kind is Release:
            # A button's edge: nearly every input of a game (a replay pushes tens of
            # thousands), so it skips the checks that only other inputs need.
            history = self.history
            history.append(item)
            if self._arbiter.pending_tie is not None:
                self._settle_tie(None, out)
            if not self.buffer.offer(item, len(history)):
                self._late(item, out)
                return
            self._drain(out, flush=False)
            return
        own = self._HANDLERS.get(kind)
        if own is not None:  # an undo: it rebuilds the game rather than play in it
            getattr(self, own)(item, out)
            return
        self.history.append(item)
        if isinstance(item, Fault):
            # Decides nothing: the replay shows it where it happened.
            state = "back" if item.ok else "stalled"
            fields = (("source", item.source), ("state", state), ("detail", item.detail))
            out.append(Note(item.t, NoteKind.SOURCE_FAULT, fields))
            return
        if isinstance(item, Draw):
            self._take_draw(item, out)
            return
        if self._arbiter.pending_tie is not None:
            # A live game journals its draw right after the tie: anything else
            # means the journal holds none, so the seed decides.
            self._settle_tie(None, out)
        buffer = self.buffer
        if isinstance(item, Tick):
            if buffer.is_late(item.t):
                return
            buffer.observe(item.t)
        elif not buffer.offer(item, len(self.history)):
            self._late(item, out)
            return
        self._drain(out, flush=False)

    def finish(self, out: list[Decision]) -> None:
        """End of input: release everything still held (a replay's last line)."""
        if self.game.pending_tie is not None:
            self._settle_tie(None, out)
        self._drain(out, flush=True)
        for queue in self._recorded.values():
            if queue:
                ref, _ = queue[0]
                raise InputError(ref, "this draw was never used: no tie between these seats")

    def draw_for_pending_tie(self) -> Draw | None:
        """The seeded draw for the tie waiting now, as the input a live game journals.

        The controller journals this ``draw`` line and then pushes it, so the
        journal itself names the winner and a replay reproduces it whatever
        the random generator (docs/journal-contract.md). The generator's state is left
        untouched: pushing the line makes the same draw.
        """
        pending = self._arbiter.pending_tie
        if pending is None:
            return None
        rng = self.game.rng
        state = rng.getstate()
        winner = self.game.draw(pending[1])
        rng.setstate(state)
        return Draw(pending[0], pending[1], winner)

    def snapshot(self) -> GameSnapshot:
        """The whole visible state, for the board, the panel, and resume checks."""
        return self.game.snapshot()

    def copy(self) -> GameCore:
        """An independent copy, to try an input on (a fraction of a millisecond,
        whatever the game's length).

        A ``copy.deepcopy`` that shares the immutable parts: the setup, the rule
        system, the rounds, and the inputs and decisions so far (lists of frozen
        objects: a shallow copy each, not a walk through the whole game). The
        game keeps no closures (its handler table is a class-level table of
        method names), so nothing needs re-binding.
        """
        game = self.game
        rng = random.Random()
        rng.setstate(game.rng.getstate())  # a deep copy would walk its 625-word state
        memo: dict[int, Any] = {
            id(game.rng): rng,
            id(self.setup): self.setup,
            id(self.setup.rules): self.setup.rules,
            id(game.board.rounds): game.board.rounds,
            id(self.history): list(self.history),
            id(self.started): list(self.started),
            id(self.context): dict(self.context),
        }
        twin: GameCore = copy.deepcopy(self, memo)
        return twin

    def host_options(self, now: int) -> HostOptions:
        """What the host's controls may offer now: legal bids and prices, whose
        turn it is in the final, the next round's board and first chooser.

        The panel shows this and re-derives nothing from the game's internals.
        ``now`` is the game clock (ns): the next round's first chooser is found
        by playing its first select on a copy at that instant.
        """
        game = self.game
        rules = game.rules
        stage = game.stage
        cat = rules.cat
        options: HostOptions = {
            "settle_ms": self.buffer.settle_ns / 1e6,
            "has_chooser": rules.has_chooser,
            "final_turn": None,
            "cat_options": None,
            "cat_rules": None
            if cat is None
            else {"price": cat.price.value, "may_keep": cat.may_keep},
            "stake_opener_only": rules.stake.opener_only if rules.stake else None,
            "bid_min": None,
            "bid_step": None,
            "bid_forced": None,
            "bidder_pick": None,
            "next_round": None,
            "stake_min": rules.final.stake_min if rules.final else None,
            "stake_step": rules.final.stake_step if rules.final else None,
            "substitute": game.substitute_open(),
        }
        if stage is Stage.FINAL_REMOVE and game.final is not None:
            options["final_turn"] = game.final.remover()
        if stage is Stage.CAT_PRICE and cat is not None and cat.price is CatPrice.MIN_OR_MAX:
            prices = game.board.current.prices
            options["cat_options"] = [min(prices), max(prices)]
        bidding = game.bidding
        if stage is Stage.BIDDING and bidding is not None:
            step = bidding.rules.step
            options["bid_step"] = step
            if bidding.bid is None:
                low = bidding.nominal if bidding.rules.min_is_nominal else bidding.rules.min_bid
                options["bid_min"] = low
                forced = bidding.opening_bids()
                options["bid_forced"] = list(forced) if forced is not None else None
            else:
                options["bid_min"] = bidding.bid + step
            # TV-S-AUC-3: «игрока выбирает ведущий» among equal scores
            options["bidder_pick"] = bidding.pickable() or None
        board = game.board
        if (
            stage is Stage.BOARD
            and game.shootout is None
            and board.round_done
            and board.round_index + 1 < len(board.rounds)
        ):
            options["next_round"] = self._next_round(now)
        return options

    def _next_round(self, now: int) -> NextRound:
        """The round the next ``select`` moves to, and who will choose first in it.

        The engine moves on to the next round only when the host selects one of
        its questions, and decides then who chooses first (the lowest score; a
        tie by lot, from the game's seed). The host must see that board and that
        player before the tap: the select is played on a copy, which draws
        exactly what the real select will draw.
        """
        board = self.game.board
        spec = board.rounds[board.round_index + 1]
        free = [
            (theme, price)
            for theme in range(1, len(spec.themes) + 1)
            for price in spec.prices
            if (theme, price) not in spec.holes
        ]
        chooser = None
        if self.game.rules.has_chooser and free:
            twin = self.copy()
            try:
                twin.push(Select(now, *free[0]), [])
                twin.push(Tick(now + twin.buffer.settle_ns + 1), [])
                chooser = twin.game.chooser
            except Exception:  # a preview never stops the game: the real select will say
                chooser = None
        return {
            "round": board.round_index + 2,
            "name": spec.name,
            "themes": list(spec.themes),
            "theme_order": list(board_order(spec.themes, self.game.rules.theme_order)),
            "prices": list(spec.prices),
            "holes": sorted([list(cell) for cell in spec.holes]),
            "chooser": chooser,
        }

    def next_deadline(self) -> int | None:
        """The next instant a live controller must tick at, if any."""
        candidates = [self.buffer.next_deadline()]
        game_deadline = self.game.next_deadline()
        if game_deadline is not None:
            candidates.append(game_deadline + self.buffer.settle_ns + 1)
        times = [c for c in candidates if c is not None]
        return min(times) if times else None

    # -- internals -----------------------------------------------------------

    def _on_undo(self, undo: Undo, out: list[Decision]) -> None:
        """Undo a host command: rebuild the game from every input but the undone ones.

        History is never rewritten: the undo is an input of its own, and the
        state is what the game would be had the host never given that
        command. Refused when a later input would then make no sense.
        """
        # The undo happens at its own instant: first let time reach it, so that what
        # the host saw before tapping undo is decided (and, if undone, shown undone).
        self.push(Tick(undo.t, undo.ref), out)
        target = next((i for i in self.history if i.ref == undo.line), None)
        if target is None or not _undoable(target):
            raise InputError(undo.ref, f"line {undo.line} is not a host command that can be undone")
        if undo.line in self.undone:
            raise InputError(undo.ref, f"line {undo.line} has already been undone")
        undone = self.undone | {undo.line}
        rebuilt = GameCore(self.setup)
        scratch: list[Decision] = []
        try:
            for item in self.history:
                if item.ref not in undone:
                    rebuilt.push(item, scratch)
        except InputError as exc:
            raise InputError(
                undo.ref,
                f"cannot undo line {undo.line}: line {exc.ref} would then make no sense "
                f"({exc.message})",
            ) from None
        old_scores, old_chooser = self.game.result()
        new_scores, new_chooser = rebuilt.game.result()
        game = rebuilt.game
        out.append(
            Note(
                undo.t,
                NoteKind.UNDONE,
                (
                    ("line", undo.line),
                    ("stage", game.stage.value),
                    ("answering", game.arbiter.answering or game.answerer),
                ),
            )
        )
        for seat, score in new_scores.items():
            if score != old_scores[seat]:
                out.append(Score(undo.t, seat, score - old_scores[seat], score))
        if new_chooser is not None and new_chooser != old_chooser:
            out.append(Chooser(undo.t, new_chooser))
        self.game = rebuilt.game
        self._arbiter = rebuilt._arbiter
        self.buffer = rebuilt.buffer
        self._recorded = rebuilt._recorded
        self.undone = undone
        self.context = {**self.context, **rebuilt.context}

    def _late(self, item: Input, out: list[Decision]) -> None:
        """An input stamped more than the settle window before one seen earlier.

        A press is ruled late, never played, and the ruling says how late it came
        and whom it would have beaten (``Ignored``): the host is told at once and
        judges whether to correct the score; a replay says the same.
        """
        if isinstance(item, Press):
            late_us = (self.buffer.watermark - item.t) // 1000
            arbiter = self._arbiter
            winner, at = arbiter.answering, arbiter.recognized_at
            if winner is None or winner == item.seat or at is None or at <= item.t:
                out.append(Ignored(item.t, item.seat, "late", late_us=late_us))
            else:
                ahead_us = (at - item.t) // 1000
                out.append(
                    Ignored(
                        item.t,
                        item.seat,
                        "late",
                        late_us=late_us,
                        ahead_of=winner,
                        ahead_us=ahead_us,
                    )
                )
            return
        if isinstance(item, Release | Tick):
            return
        buffer = self.buffer
        raise InputError(
            item.ref,
            f"t={item.t / 1e9:g} s is more than the settle window "
            f"({buffer.settle_ns / 1e6:g} ms) before t={buffer.watermark / 1e9:g} s "
            "seen earlier: host inputs must be in time order",
        )

    def _take_draw(self, draw: Draw, out: list[Decision]) -> None:
        pending = self.game.pending_tie
        key = tuple(sorted(draw.seats))
        if pending is not None:
            if key != tuple(sorted(pending[1])):
                seats = ", ".join(str(s) for s in pending[1])
                raise InputError(draw.ref, f"the tie waiting for a draw is between seats {seats}")
            self._settle_tie(draw.winner, out)
            self._drain(out, flush=False)
            return
        self._recorded.setdefault(key, deque()).append((draw.ref, draw.winner))

    def _settle_tie(self, winner: int | None, out: list[Decision]) -> None:
        if winner is None:
            pending = self.game.pending_tie
            assert pending is not None
            queue = self._recorded.get(tuple(sorted(pending[1])))
            if queue:
                winner = queue.popleft()[1]
        self.game.resolve_tie(winner, out)

    def _drain(self, out: list[Decision], flush: bool) -> None:
        game = self.game
        arbiter = self._arbiter
        buffer = self.buffer
        pop_ready = buffer.pop_ready
        while True:
            pending = arbiter.pending_tie
            if pending is not None:
                queue = self._recorded.get(tuple(sorted(pending[1])))
                if not queue and not flush:
                    return  # wait for the draw line that follows a live tie
                self._settle_tie(None, out)
            batch = pop_ready(flush)
            if batch is None:
                break
            if isinstance(batch, tuple):
                game.advance(batch[0].t, out)
                self._apply_presses(batch, out)
            else:
                game.advance(batch.t, out)
                if not isinstance(batch, Release):  # buttons going up decide nothing
                    self._apply(batch, out)
        if not flush and arbiter.pending_tie is None:
            game.advance(buffer.safe_until, out)

    def _apply_presses(self, batch: tuple[Press, ...], out: list[Decision]) -> None:
        if len(batch) == 1:  # the usual case: one press at its instant
            press = batch[0]
            if press.ref > self._latest_press_ref:
                self._latest_press_ref = press.ref
            self.game.press(press.t, (press.seat,), out)
            return
        latest = max(p.ref for p in batch)
        if latest > self._latest_press_ref:
            self._latest_press_ref = latest
        seats = sorted({p.seat for p in batch})
        self.game.press(batch[0].t, seats, out)

    def _context(self) -> tuple[tuple[str, object], ...]:
        """The question the game is on now, for a host command's context: the round,
        the cell's theme by the round's own name, its price, and who answers."""
        game = self.game
        board = game.shootout.board if game.shootout is not None else game.board
        fields: list[tuple[str, object]] = [("round", board.round_index + 1)]
        if game.cell is not None:
            theme, price = game.cell
            themes = board.current.themes
            name = themes[theme - 1] if 1 <= theme <= len(themes) else str(theme)
            fields += [("theme_name", name), ("price", price)]
        stage = game.stage
        seat = (
            game.arbiter.answering
            if stage is Stage.QUESTION
            else game.answerer
            if stage in (Stage.SPECIAL, Stage.BONUS)
            # the final's answers are judged in order: a verdict is the next one's
            else game.final.order[0]
            if stage is Stage.FINAL_JUDGING and game.final is not None and game.final.order
            else None
        )
        if seat is not None:
            fields.append(("seat", seat))
        return tuple(fields)

    def _apply(self, item: Input, out: list[Decision]) -> None:
        # A host command's context: before it (whose answer a verdict judged), but
        # a select's after it (the question it chose, in the round it moved to).
        before = self._context() if isinstance(item, HOST_COMMANDS) else None
        if isinstance(item, Substitute) and 1 <= item.seat <= len(self.game.names):
            # SER-CC1-SUB: whom the substitute replaced, for the host's command log
            before = (*(before or ()), ("out", self.game.names[item.seat - 1]))
        try:
            self.game.apply(item, out)
        except SequenceError as exc:
            if self._latest_press_ref > item.ref > 0:
                # A press that arrived after this command but happened before it
                # was put ahead of it by the settle window, and changed the game
                # (a press during the reading stopped it just as the host ended
                # it): the command was overtaken, not mistaken. Its line stays in
                # the journal; it has no effect, and the host is told why.
                out.append(
                    Note(item.t, NoteKind.OVERTAKEN, (("line", item.ref), ("reason", str(exc))))
                )
                return
            raise InputError(item.ref, str(exc)) from None
        if before is not None:
            self.context[item.ref] = self._context() if isinstance(item, Select) else before


GameCore._HANDLERS = dispatch_table(GameCore, Handler.CORE, HOST_COMMANDS)
