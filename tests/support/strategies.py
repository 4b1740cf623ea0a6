"""Hypothesis strategies for the property tests: valid random games, arrival orders, journals.

A game is generated *adaptively*: a reference :class:`GameCore` is fed the
inputs in time order while they are drawn, and every host input is chosen
from what is valid in the state the core will be in when that input is
released (a verdict only while someone is answering, a select only while
nobody is, and so on). To see that state at an instant ``T`` the reference
core alone is fed a ``Tick`` at ``T + settle``: every input stamped before
``T`` is then released, exactly as it will be before a host input at ``T``.
Those query ticks are not part of the generated inputs.

Draws by lot are not inputs of the generated game either: a game carries a
map *tie → winner*, and :func:`play` inserts the draw line right after the
input that left the tie waiting, as a live controller journals it. A tie
missing from the map is drawn from the seed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from buzzer.arbiter.decisions import Decision
from buzzer.arbiter.events import (
    Draw,
    Input,
    Judge,
    Press,
    ReadingEnd,
    ReadingStart,
    Release,
    Select,
    Tick,
    Timeout,
)
from buzzer.arbiter.machine import Phase
from buzzer.arbiter.params import NS_PER_MS, NS_PER_S, NS_PER_US
from buzzer.core import GameCore
from rules.board import RoundSpec
from rules.game import Game, GameSetup
from rules.profiles import RULE_SYSTEMS

#: Every rule system docs/journal-contract.md requires, by id.
RULE_IDS = (
    "championship-2003",
    "tv-1994",
    "tv-modern",
    "sport-false-start",
    "sport-clarify",
    "sport-no-false-start",
    "jeopardy",
)

PLAYERS = ("Аня", "Борис", "Вера", "Глеб")

#: A small board so that games reach the end of a round and of the board.
SMALL_BOARD = (
    RoundSpec("R1", ("a", "b"), (10, 20)),
    RoundSpec("R2", ("c",), (30, 60)),
)
SMALL_BOARD_JSON = {
    "rounds": [
        {"name": "R1", "themes": ["a", "b"], "prices": [10, 20]},
        {"name": "R2", "themes": ["c"], "prices": [30, 60]},
    ]
}

#: Settle windows (ns) for games in integer nanoseconds, and for journals (µs grid).
SETTLES_NS = (0, 1, NS_PER_US, 3 * NS_PER_MS, 7_654_321)
SETTLES_US = (0, 500 * NS_PER_US, 3 * NS_PER_MS, 7_500 * NS_PER_US)

#: Tie key, as the arbiter reports it: ``(t, seats)`` with the seats ascending.
TieKey = tuple[int, tuple[int, ...]]


@dataclass(frozen=True)
class GameScript:
    """A generated game: its setup, time-ordered inputs and recorded draws."""

    setup: GameSetup
    #: Inputs in time order (no draws); the last is a Tick past every other input.
    inputs: tuple[Input, ...]
    #: Ties drawn by the "live game" → winner; the others are drawn from the seed.
    draws: dict[TieKey, int]
    #: The reference core's decisions (fed with query ticks), as output lines.
    reference: tuple[str, ...]
    reference_result: tuple[dict[int, int], int | None]
    #: All times are multiples of this (1 ns, or 1 µs for JSON journals).
    unit: int

    @property
    def judges(self) -> list[Judge]:
        return [i for i in self.inputs if isinstance(i, Judge)]


@dataclass(frozen=True)
class Played:
    """What a fresh core made of an input sequence."""

    decisions: tuple[str, ...]
    result: tuple[dict[int, int], int | None]
    #: The inputs as pushed, with the draw lines inserted where a live game writes them.
    fed: tuple[Input, ...]


def _settle_draws(
    core: GameCore,
    draws: dict[TieKey, int],
    t: int,
    out: list[Decision],
    fed: list[Input],
) -> None:
    while (pending := core.game.pending_tie) is not None and pending in draws:
        draw = Draw(t, pending[1], draws[pending])
        fed.append(draw)
        core.push(draw, out)


def play(setup: GameSetup, inputs: Sequence[Input], draws: dict[TieKey, int]) -> Played:
    """Push ``inputs`` (in the given order) through a fresh core, then finish.

    After each push a tie waiting for its draw gets the recorded one from
    ``draws`` (a live game journals it right there). At the end, ticks at the
    last input's instant let undrawn ties be drawn from the seed one by one,
    so that a recorded draw behind them is still used.
    """
    core = GameCore(setup)
    out: list[Decision] = list(core.started)
    fed: list[Input] = []
    last_t = 0
    for item in inputs:
        fed.append(item)
        core.push(item, out)
        last_t = item.t
        _settle_draws(core, draws, last_t, out, fed)
    while core.game.pending_tie is not None:
        tick = Tick(last_t)
        fed.append(tick)
        core.push(tick, out)
        _settle_draws(core, draws, last_t, out, fed)
    core.finish(out)
    return Played(tuple(d.to_json() for d in out), core.game.result(), tuple(fed))


# -- generating a game --------------------------------------------------------------


def _cells(game: Game) -> list[tuple[int, int]]:
    """The cells a select at this moment may name (after the open question, if any, closes)."""
    board = game.board
    played = set(board.played)
    if game.arbiter.question_open and game.cell is not None:
        played.add(game.cell)
    spec = board.current
    remaining = [
        (theme, price)
        for theme in range(1, len(spec.themes) + 1)
        for price in spec.prices
        if (theme, price) not in played
    ]
    if not remaining and board.round_index + 1 < len(board.rounds):
        spec = board.rounds[board.round_index + 1]
        remaining = [
            (theme, price) for theme in range(1, len(spec.themes) + 1) for price in spec.prices
        ]
    if not game.rules.has_chooser:
        return remaining[:1]  # SPORT-1: only the next cell in package order
    return remaining


class _Builder:
    """Draws one valid game, input by input, against a reference core."""

    def __init__(
        self,
        draw: Callable[[st.SearchStrategy[Any]], Any],
        setup: GameSetup,
        unit: int,
        record_draws: bool,
    ):
        self.draw = draw
        self.record_draws = record_draws
        self.setup = setup
        self.unit = unit
        self.settle = setup.settle_ns
        self.seats = len(setup.players)
        self.core = GameCore(setup)
        self.out: list[Decision] = list(self.core.started)
        self.inputs: list[Input] = []
        self.draws: dict[TieKey, int] = {}
        self.t = NS_PER_S

    # -- feeding the reference core ------------------------------------------------

    def _feed(self, item: Input, keep: bool) -> None:
        if keep:
            self.inputs.append(item)
        self.core.push(item, self.out)
        self._record_draws(item.t)

    def _record_draws(self, t: int) -> None:
        """A tie waiting for its draw: the live game draws it now, or leaves it to the seed."""
        while (pending := self.core.game.pending_tie) is not None:
            if pending in self.draws or not self.record_draws or not self.draw(st.booleans()):
                return
            winner = self.draw(st.sampled_from(pending[1]))
            self.draws[pending] = winner
            self.core.push(Draw(t, pending[1], winner), self.out)

    def push(self, item: Input) -> None:
        self._feed(item, keep=True)

    def state_at(self, t: int) -> Game:
        """The game as a host input stamped ``t`` will find it."""
        self._feed(Tick(t + self.settle), keep=False)
        while self.core.game.pending_tie is not None:
            self._feed(Tick(t + self.settle), keep=False)
        return self.core.game

    # -- actions -----------------------------------------------------------------

    def cluster(self, game: Game) -> None:
        """1..4 presses within a few ms (or at one instant), any seats, repeats allowed."""
        unit = self.unit
        count = self.draw(st.integers(1, 4))
        steps = sorted({max(unit, s // unit * unit) for s in (1, 999, 1000, 1_500_000, 3_000_000)})
        step = self.draw(st.sampled_from(steps))
        together = self.draw(st.booleans())  # all at one instant: a tie, or a repeat
        cluster = []
        for _ in range(count):
            offset = 0 if together else self.draw(st.integers(0, 3)) * step
            seat = self.draw(st.integers(1, self.seats))
            cluster.append((offset, seat))
        cluster.sort(key=lambda c: c[0])  # time order; equal times keep the drawn order
        for offset, seat in cluster:
            self.push(Press(self.t + offset, seat))
        self.t += cluster[-1][0]

    def release(self, game: Game) -> None:
        self.push(Release(self.t, self.draw(st.integers(1, self.seats))))

    def select(self, game: Game) -> None:
        theme, price = self.draw(st.sampled_from(_cells(game)))
        if not game.rules.has_chooser and self.draw(st.booleans()):
            self.push(Select(self.t, None, None))
        else:
            self.push(Select(self.t, theme, price))

    def reading_start(self, game: Game) -> None:
        self.push(ReadingStart(self.t))

    def reading_end(self, game: Game) -> None:
        self.push(ReadingEnd(self.t))

    def wait_out(self, game: Game) -> None:
        """Nobody acts until the window's end (exactly, or just past it)."""
        closes_at = game.arbiter.closes_at
        assert closes_at is not None
        extra = self.draw(st.sampled_from((0, self.unit, NS_PER_MS, NS_PER_S)))
        self.t = max(self.t, closes_at + extra)

    def judge(self, game: Game) -> None:
        self.push(Judge(self.t, self.draw(st.booleans())))

    def timeout(self, game: Game) -> None:
        self.push(Timeout(self.t))

    def actions(self, game: Game, host: bool) -> list[Callable[[Game], None]]:
        """The valid inputs at this moment, repeated by weight (``host``: may the host act?)."""
        arbiter = game.arbiter
        phase = arbiter.phase
        acts: list[Callable[[Game], None]] = [self.release]
        acts += [self.cluster] * (1 if phase in (Phase.IDLE, Phase.CLOSED) else 3)
        if not host:
            return acts
        if phase is Phase.ANSWERING:
            acts += [self.judge] * 6
            if arbiter._reading_continues:  # TV-94: the early presser waits for the end
                acts.append(self.reading_start)
                if arbiter.t_end is None:
                    acts += [self.reading_end] * 3
            return acts
        if _cells(game):
            acts += [self.select] * (1 if arbiter.question_open else 6)
        if phase is Phase.SELECTED:
            acts += [self.reading_start] * 4 + [self.reading_end]
        elif phase is Phase.READING:
            acts += [self.reading_start] + [self.reading_end] * 2
        elif phase is Phase.OPEN:
            acts += [self.wait_out] * 2
        if arbiter.question_open:
            acts.append(self.timeout)
        return acts

    def advance(self) -> None:
        """Move the clock on: not at all, a little, around the settle window, seconds,
        or to within a unit of a deadline (a window's end, a lockout's end)."""
        unit = self.unit
        kind = self.draw(st.sampled_from((0, 1, 2, 3, 4, 4)))
        if kind == 4:
            arbiter = self.core.game.arbiter
            deadlines = list(arbiter.locked_until.values())
            if arbiter.phase is Phase.OPEN and arbiter.closes_at is not None:
                deadlines.append(arbiter.closes_at)
            deadlines = [d for d in deadlines if d >= self.t]
            if deadlines:
                target = self.draw(st.sampled_from(sorted(deadlines)))
                target += self.draw(st.sampled_from((-unit, 0, unit)))
                self.t = max(self.t, target)
            return
        low, high = ((0, 0), (1, 2_000), (1, 10 * NS_PER_MS), (10 * NS_PER_MS, 6 * NS_PER_S))[kind]
        gap = self.draw(st.integers(low, high))
        self.t += gap // unit * unit

    def run(self, steps: int) -> GameScript:
        host_at = -1
        for _ in range(steps):
            game = self.state_at(self.t)
            # Two host inputs never share an instant: the second would have to see the
            # first, which the query tick at that instant does not release. Presses may
            # share the instant of a host input (which applies first).
            actions = self.actions(game, host=self.t != host_at)
            action = self.draw(st.sampled_from(actions))
            action(game)
            if action not in (self.cluster, self.release, self.wait_out):
                host_at = self.t
            self.advance()
        # A last tick past everything: every tie is decided while inputs still come.
        self.push(Tick(self.t + self.settle + self.unit))
        while self.core.game.pending_tie is not None:
            self._feed(Tick(self.t + self.settle + self.unit), keep=False)
        self.core.finish(self.out)
        return GameScript(
            setup=self.setup,
            inputs=tuple(self.inputs),
            draws=dict(self.draws),
            reference=tuple(d.to_json() for d in self.out),
            reference_result=self.core.game.result(),
            unit=self.unit,
        )


@st.composite
def games(
    draw: Any, rules_id: str, unit: int = 1, max_steps: int = 40, record_draws: bool = True
) -> GameScript:
    """A valid random game under ``rules_id``; times are multiples of ``unit`` ns.

    ``record_draws=False``: no tie is drawn by the live game, all go to the seed.
    """
    system = RULE_SYSTEMS[rules_id]
    seats = draw(st.integers(2, 4))
    setup = GameSetup(
        rules=system,
        players=PLAYERS[:seats],
        chooser=draw(st.none() | st.integers(1, seats)),
        seed=draw(st.integers(0, 1000)),
        settle_ns=draw(st.sampled_from(SETTLES_NS if unit == 1 else SETTLES_US)),
        rounds=SMALL_BOARD if draw(st.booleans()) else None,
    )
    return _Builder(draw, setup, unit, record_draws).run(draw(st.integers(1, max_steps)))


@st.composite
def arrival_orders(
    draw: Any, inputs: Sequence[Input], settle_ns: int, unit: int = 1
) -> list[Input]:
    """``inputs`` as they might arrive: a press (or release) ``t + delay`` with the
    delay in [0, settle], host inputs at their own ``t``; equal arrival times in
    a random order, except that the host's own inputs keep their order."""
    keyed = []
    last_host = (-1, -1)
    for index, item in enumerate(inputs):
        tiebreak = draw(st.integers(0, 3))
        if isinstance(item, Press | Release):
            delay = draw(st.sampled_from((0, settle_ns)) | st.integers(0, settle_ns))
            arrival = item.t + delay // unit * unit
        else:
            arrival = item.t
            if (arrival, tiebreak) < last_host:
                tiebreak = last_host[1]
            last_host = (arrival, tiebreak)
        keyed.append((arrival, tiebreak, index, item))
    keyed.sort(key=lambda k: k[:3])
    return [k[3] for k in keyed]


# -- journals ------------------------------------------------------------------------


def seconds(t_ns: int) -> float:
    """A µs-grid timestamp as the journal's float seconds (exact round trip)."""
    value = t_ns / NS_PER_S
    assert round(value * NS_PER_S) == t_ns, t_ns
    return value


def header(setup: GameSetup) -> dict[str, Any]:
    head: dict[str, Any] = {
        "type": "game",
        "rules": setup.rules.id,
        "players": list(setup.players),
        "seed": setup.seed,
        "settle_ms": setup.settle_ns / NS_PER_MS,
    }
    if setup.chooser is not None:
        head["chooser"] = setup.chooser
    if setup.rounds is not None:
        assert setup.rounds == SMALL_BOARD
        head["board"] = SMALL_BOARD_JSON
    return head


def input_line(item: Input) -> dict[str, Any]:
    line: dict[str, Any] = {"t": seconds(item.t)}
    if isinstance(item, Press):
        line.update(type="press", seat=item.seat)
    elif isinstance(item, Release):
        line.update(type="release", seat=item.seat)
    elif isinstance(item, Select):
        line["type"] = "select"
        if item.theme is not None:
            line.update(theme=item.theme, price=item.price)
    elif isinstance(item, ReadingStart):
        line["type"] = "reading_start"
    elif isinstance(item, ReadingEnd):
        line["type"] = "reading_end"
    elif isinstance(item, Judge):
        line.update(type="judge", verdict="correct" if item.correct else "wrong")
    elif isinstance(item, Timeout):
        line["type"] = "timeout"
    elif isinstance(item, Draw):
        line.update(type="draw", seats=list(item.seats), winner=item.winner)
    elif isinstance(item, Tick):
        line["type"] = "tick"
    else:  # pragma: no cover
        raise TypeError(item)
    return line


def journal_lines(setup: GameSetup, inputs: Sequence[Input]) -> list[str]:
    """docs/journal-contract.md lines (header first) for these inputs, in this order."""
    lines = [json.dumps(header(setup), ensure_ascii=False)]
    lines += [json.dumps(input_line(item)) for item in inputs]
    return lines
