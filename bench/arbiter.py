#!/usr/bin/env python3
"""Benchmark of the pure core and of ``svoyak replay`` (figures in BENCHMARKS.md).

Run from the repository root::

    .venv/bin/python bench/arbiter.py            # 100,000 events, a table
    .venv/bin/python bench/arbiter.py --json     # the same figures as JSON
    .venv/bin/python bench/arbiter.py --events 20000 --repeat 3   # a quick look

What it measures, and why this way:

1. **The core** (:class:`buzzer.core.GameCore`), fed ``Press`` inputs with
   integer-nanosecond timestamps, as the live controller feeds it. Four input
   streams: ``window`` (near-simultaneous presses at the signal, the first
   recognized), ``answering`` (the others hammering while someone answers),
   ``chatter`` (bouncing switches: press/release edges 50–500 µs apart, so the
   settle window holds dozens of inputs), and ``mix`` (the generated journal
   below, every input type). For each: presses per second over the whole
   loop without per-event timers, then the time of each ``push`` of a press
   with ``time.perf_counter_ns`` around it (median and p99 in µs, raw and
   with the timer's own median overhead subtracted). A push's time includes
   deciding the earlier inputs it releases from the settle window: that is
   the latency a press sees in a live game.
2. **Replay** of a generated 100,000-event journal: the library call
   ``replay_lines(decode_journal(data))`` (decisions *and* output lines)
   against plain ``json.loads`` of the same lines (from the same bytes), and
   the ``svoyak replay`` subprocess for reference (interpreter start-up
   included). Several repetitions, median reported.

The journal is generated from a seed, so every run measures the same bytes;
it is written to ``bench/out/`` (gitignored) to be inspected or replayed.

The generated game is a marathon under ``tv-modern`` (false starts lock a
button for 2 s, a 3 s window after the signal): button checks before the
game; per question a select, the reading with false starts (and presses
inside the lockout), the signal, races of near-simultaneous presses (arrival
order shuffled inside the settle window; now and then an exact tie and the
``draw`` line a live game records), bouncing contacts, players hammering
while someone answers, wrong and correct verdicts with fresh windows,
questions nobody takes, a select while the window is open, a ``timeout``;
and, on some questions, long press runs (hammering through a whole answer,
a faulty switch chattering for seconds). The generator models the rules it
relies on and the script checks its expected ``recognized`` sequence
against the replay's, so a journal that no longer means what it was built
to mean is noticed.
"""

from __future__ import annotations

import argparse
import bisect
import gc
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Measure this checkout's code, whatever the interpreter has installed.
sys.path.insert(0, str(ROOT))

from buzzer.arbiter.events import (  # noqa: E402
    Input,
    Judge,
    Press,
    ReadingEnd,
    ReadingStart,
    Release,
    Select,
)
from buzzer.arbiter.params import NS_PER_MS, NS_PER_S, NS_PER_US  # noqa: E402
from buzzer.core import GameCore  # noqa: E402
from buzzer.journal.codec import InputParser, parse_header  # noqa: E402
from buzzer.replay import decode_journal, replay_lines  # noqa: E402
from rules.board import RoundSpec  # noqa: E402
from rules.game import GameSetup  # noqa: E402
from rules.profiles import find_rules  # noqa: E402

OUT_DIR = ROOT / "bench" / "out"

#: Targets (the brief of the benchmark; BENCHMARKS.md reports pass/fail).
TARGET_PRESSES_PER_S = 100_000
TARGET_P99_US = 50.0
TARGET_REPLAY_RATIO = 5.0

PLAYERS = ["Аня", "Борис", "Вера"]
SEATS = (1, 2, 3)

# -- the journal generator ------------------------------------------------------
#
# Times are whole microseconds; a line's ``t`` is ``us / 1e6`` (the journal's
# float seconds), which the codec rounds back to exactly ``us * 1000`` ns.

US_PER_S = 1_000_000
US_PER_MS = 1_000
#: tv-modern (docs/rules.md TV-M-A2, TV-M-A3, TV-M-A-D2/D3), as the generator relies on them.
WINDOW_US = 3 * US_PER_S
LOCKOUT_US = 2 * US_PER_S
#: The header's settle window and the largest arrival delay the generator uses:
#: below the settle window, so no press is ever "late" and arrival order never decides.
SETTLE_MS = 3
MAX_DELAY_US = 2_500
THEMES = 6
PRICES = (100, 200, 300, 400, 500)


@dataclass(order=True)
class _Line:
    """One journal line before the arrival-order sort."""

    arrival: int
    seq: int
    t: int = field(compare=False)
    obj: dict[str, Any] = field(compare=False)
    long_run: bool = field(compare=False, default=False)


@dataclass(frozen=True)
class _Ended:
    """A question that ended with nobody recognized: when, and whether by the next select."""

    at: int
    by_select: bool


@dataclass
class GeneratedJournal:
    """A generated journal: its bytes, and what the generator expects of its replay."""

    data: bytes
    events: int
    presses: int
    questions: int
    #: ``(t_us, seat)`` of every recognition, in time order.
    recognized: list[tuple[int, int]]
    long_run_events: int
    ties: int


class JournalGenerator:
    """A seeded, deterministic marathon game under ``tv-modern`` (see the module docstring).

    Segments of the game are generated in time order; every gesture's edges
    are clipped to the segment they belong to (``[start, end)``), so that a
    press never spills into a later phase and the generator's model of who is
    recognized stays exact.
    """

    def __init__(self, seed: int, events: int) -> None:
        self.rng = random.Random(seed)
        self.target = events
        self.lines: list[_Line] = []
        self.seq = 0
        self.questions = 0
        self.recognized: list[tuple[int, int]] = []
        self.draws: list[tuple[int, int, list[int]]] = []  # (tie t, winner, seats)
        self.cells: list[tuple[int, int]] = []
        self.rounds = 0

    # -- emitting ----------------------------------------------------------

    def _emit(self, t: int, obj: dict[str, Any], delay: int = 0, long_run: bool = False) -> None:
        self.seq += 1
        self.lines.append(_Line(t + delay, self.seq, t, {"t": t / US_PER_S, **obj}, long_run))

    def host(self, t: int, kind: str, **fields: Any) -> None:
        """A host input: stamped and delivered at once (no arrival delay)."""
        self._emit(t, {"type": kind, **fields})

    def _delay(self) -> int:
        """Arrival delay of a button edge: mostly the GPIO path, sometimes a slow one."""
        rng = self.rng
        if rng.random() < 0.7:
            return rng.randrange(0, 200)
        return rng.randrange(200, MAX_DELAY_US)

    def edges(
        self, seat: int, edges: Sequence[tuple[int, bool]], start: int, end: int, long_run: bool
    ) -> list[int]:
        """Emit a gesture's ``(t, down)`` edges that fall in ``[start, end)``; their press times."""
        pressed = []
        for t, down in edges:
            if not start <= t < end:
                continue
            kind = "press" if down else "release"
            self._emit(t, {"type": kind, "seat": seat}, self._delay(), long_run)
            if down:
                pressed.append(t)
        return pressed

    # -- gestures ------------------------------------------------------------

    def tap(self, t: int) -> list[tuple[int, bool]]:
        """One press of a button: often a few contact bounces, released 80–250 ms later."""
        rng = self.rng
        edges = [(t, True)]
        now = t
        if rng.random() < 0.35:
            for _ in range(rng.randrange(1, 5)):
                now += rng.randrange(60, 400)
                edges.append((now, False))
                now += rng.randrange(60, 400)
                edges.append((now, True))
        edges.append((now + rng.randrange(80_000, 250_000), False))
        return edges

    def hammer(self, t: int, until: int) -> list[tuple[int, bool]]:
        """A player pressing again and again (every 40–150 ms) from ``t`` to ``until``."""
        rng = self.rng
        edges: list[tuple[int, bool]] = []
        while t < until:
            period = rng.randrange(40_000, 150_000)
            edges.append((t, True))
            if rng.random() < 0.2:
                bounce = t + rng.randrange(60, 400)
                edges += [(bounce, False), (bounce + rng.randrange(60, 400), True)]
            edges.append((t + period // 2, False))
            t += period
        return edges

    def chatter(self, t: int, until: int) -> list[tuple[int, bool]]:
        """A faulty switch: down/up edges every 0.3–2 ms from ``t`` to ``until``."""
        rng = self.rng
        edges: list[tuple[int, bool]] = []
        down = True
        while t < until:
            edges.append((t, down))
            down = not down
            t += rng.randrange(300, 2_000)
        return edges

    # -- the game ------------------------------------------------------------

    def generate(self) -> GeneratedJournal:
        rng = self.rng
        # Button check before the game: nothing is open yet (not_open).
        for seat in SEATS:
            for _ in range(rng.randrange(1, 4)):
                self.edges(seat, self.tap(rng.randrange(1_000_000, 8_000_000)), 0, 9_000_000, False)
        t = 10 * US_PER_S
        while len(self.lines) < self.target:
            t = self.question(t)
        return self._finish()

    def _next_cell(self) -> tuple[int, int]:
        if not self.cells:
            self.rounds += 1
            self.cells = [(th, p) for th in range(1, THEMES + 1) for p in PRICES]
            self.rng.shuffle(self.cells)
        return self.cells.pop()

    def question(self, t: int) -> int:
        """One question from its select at ``t``; returns the time of the next select."""
        rng = self.rng
        self.questions += 1
        theme, price = self._next_cell()
        self.host(t, "select", theme=theme, price=price)
        reading_start = t + rng.randrange(800_000, 2_500_000)
        if rng.random() < 0.05:  # too eager: the reading has not started (not_open)
            at = rng.randrange(t + 1, reading_start)
            self.edges(rng.choice(SEATS), self.tap(at), t + 1, reading_start, False)
        self.host(reading_start, "reading_start")
        reading_end = reading_start + rng.randrange(3 * US_PER_S, 10 * US_PER_S)
        locked: dict[int, int] = {}
        for seat in SEATS:
            if rng.random() >= 0.15:
                continue
            # A false start, maybe a second press inside the lockout (locked, not extended).
            first = rng.randrange(reading_start + 500_000, reading_end - 50_000)
            edges = self.tap(first)
            if rng.random() < 0.3:
                edges += self.tap(first + rng.randrange(200_000, 1_500_000))
            if self.edges(seat, edges, first, min(reading_end, first + LOCKOUT_US), False):
                locked[seat] = first + LOCKOUT_US
        self.host(reading_end, "reading_end")
        answered: set[int] = set()
        start, closes_at = reading_end, reading_end + WINDOW_US
        while True:
            outcome = self.window(start, closes_at, answered, locked, not answered)
            if isinstance(outcome, _Ended):
                if outcome.by_select:
                    # the next question's select ends this one (docs/journal-contract.md)
                    return outcome.at
                closed = outcome.at
                break
            verdict_at = outcome
            correct = rng.random() < 0.55
            self.host(verdict_at, "judge", verdict="correct" if correct else "wrong")
            closed = verdict_at
            if correct or len(answered) == len(SEATS):
                break
            start, closes_at = verdict_at, verdict_at + WINDOW_US  # a fresh window (TV-M-A-D3)
        next_select = closed + rng.randrange(2 * US_PER_S, 6 * US_PER_S)
        if rng.random() < 0.05:  # a press after the question closed (window_closed)
            at = closed + rng.randrange(1, 1_000_000)
            self.edges(rng.choice(SEATS), self.tap(at), closed + 1, next_select, False)
        return next_select

    def window(
        self,
        start: int,
        closes_at: int,
        answered: set[int],
        locked: dict[int, int],
        first_window: bool,
    ) -> int | _Ended:
        """A press window ``[start, closes_at]``: the race, then the answer.

        Returns when the verdict comes, or how the question ended when nobody
        was recognized (the window closed, or the host ended the question).
        """
        rng = self.rng
        remaining = [s for s in SEATS if s not in answered]
        gestures: dict[int, list[tuple[int, bool]]] = {s: [] for s in SEATS}
        long_runs: dict[int, list[tuple[int, bool]]] = {s: [] for s in SEATS}
        if rng.random() >= (0.08 if first_window else 0.3):
            racers = [s for s in remaining if rng.random() < 0.75] or [rng.choice(remaining)]
            rng.shuffle(racers)
            lead = start + rng.randrange(120_000, 900_000)
            for i, seat in enumerate(racers):
                if i == 0:
                    at = lead
                elif rng.random() < 0.03:
                    at = lead  # an exact tie
                elif rng.random() < 0.4:
                    at = lead + rng.randrange(1, 3_000)  # near-simultaneous
                else:
                    at = lead + rng.randrange(3_000, 400_000)
                gestures[seat] += self.tap(at)
                if locked.get(seat, 0) > at and rng.random() < 0.7:
                    # Locked at the signal: press again once the lockout should be over.
                    gestures[seat] += self.tap(locked[seat] + rng.randrange(0, 400_000))
        for seat in answered:
            if rng.random() < 0.1:  # pressing again after a wrong answer (already_answered)
                gestures[seat] += self.tap(start + rng.randrange(50_000, 1_500_000))
        if rng.random() < 0.035:  # a long press run: hammering or a chattering switch
            seat = rng.choice(SEATS)
            begin = start + rng.randrange(0, 500_000)
            if rng.random() < 0.5:
                long_runs[seat] = self.hammer(begin, begin + rng.randrange(2, 15) * US_PER_S)
            else:
                long_runs[seat] = self.chatter(begin, begin + rng.randrange(200_000, 1_200_000))
        # Who wins: the earliest press in the window by a seat that may answer and is not locked.
        best: tuple[int, list[int]] | None = None
        for seat in remaining:
            for t, down in gestures[seat] + long_runs[seat]:
                if not down or not start <= t <= closes_at or t < locked.get(seat, 0):
                    continue
                if best is None or t < best[0]:
                    best = (t, [seat])
                elif t == best[0] and seat not in best[1]:
                    best[1].append(seat)
        if best is None:
            # Nobody: the window closes, or the host moves on (a select ends an open
            # window; a timeout declares the question dead). Edges stop before the next
            # select, which comes 2 s or more after the question closed.
            roll = rng.random()
            if roll < 0.3:
                at = start + rng.randrange(1 * US_PER_S, WINDOW_US - 100_000)
                ended = _Ended(at, by_select=roll < 0.15)
                if not ended.by_select:
                    self.host(at, "timeout")
            else:
                ended = _Ended(closes_at, by_select=False)
            end = ended.at if ended.by_select else ended.at + 1_900_000
            for seat in SEATS:
                self.edges(seat, gestures[seat], start, end, False)
                self.edges(seat, long_runs[seat], start, end, True)
            return ended
        t_win, tied = best
        winner = tied[0] if len(tied) == 1 else rng.choice(sorted(tied))
        if len(tied) > 1:
            self.draws.append((t_win, winner, sorted(tied)))
        self.recognized.append((t_win, winner))
        answered.add(winner)
        verdict_at = t_win + rng.randrange(1_500_000, 6_000_000)
        for seat in SEATS:
            if seat != winner and rng.random() < 0.3:  # too late: someone is answering
                gestures[seat] += self.tap(t_win + rng.randrange(5_000, 1_500_000))
        for seat in SEATS:
            self.edges(seat, gestures[seat], start, verdict_at, False)
            self.edges(seat, long_runs[seat], start, verdict_at, True)
        return verdict_at

    def _finish(self) -> GeneratedJournal:
        lines = sorted(self.lines)
        arrivals = [x.arrival for x in lines]
        # A live game journals a tie's draw right after the input that decided the tie:
        # the first to arrive stamped later than the tie's instant plus the settle window.
        settle = SETTLE_MS * US_PER_MS
        draws_after: dict[int, tuple[int, dict[str, Any]]] = {}
        for tie_t, winner, seats in self.draws:
            first = bisect.bisect_right(arrivals, tie_t + settle)
            trigger = next(
                (i for i in range(first, len(lines)) if lines[i].t > tie_t + settle), None
            )
            if trigger is not None:
                draw = {
                    "t": lines[trigger].t / US_PER_S,
                    "type": "draw",
                    "seats": seats,
                    "winner": winner,
                }
                draws_after[trigger] = (tie_t, draw)
        texts: list[str] = []
        pressed: set[tuple[int, int]] = set()
        drawn: set[int] = set()
        presses = long_run = 0
        for i, line in enumerate(lines):
            if len(texts) == self.target:
                break
            texts.append(json.dumps(line.obj, ensure_ascii=False))
            if line.obj["type"] == "press":
                presses += 1
                pressed.add((line.t, line.obj["seat"]))
            long_run += line.long_run
            if i in draws_after and len(texts) < self.target:
                tie_t, draw = draws_after[i]
                texts.append(json.dumps(draw))
                drawn.add(tie_t)
        # Ties whose draw line fell off the end are drawn from the seed by the replay.
        undrawn = {tie_t for tie_t, _, _ in self.draws} - drawn
        recognized = [r for r in self.recognized if r in pressed and r[0] not in undrawn]
        header = {
            "type": "game",
            "rules": "tv-modern",
            "players": PLAYERS,
            "chooser": 1,
            "seed": 2008,
            "settle_ms": SETTLE_MS,
            "board": {
                "rounds": [
                    {"name": f"Раунд {i}", "themes": THEMES, "prices": list(PRICES)}
                    for i in range(1, self.rounds + 1)
                ]
            },
        }
        body = "\n".join([json.dumps(header, ensure_ascii=False), *texts]) + "\n"
        return GeneratedJournal(
            data=body.encode("utf-8"),
            events=len(texts),
            presses=presses,
            questions=self.questions,
            recognized=recognized,
            long_run_events=long_run,
            ties=len(drawn),
        )


def generate_journal(seed: int, events: int) -> GeneratedJournal:
    """The benchmark's journal: the same ``seed`` and ``events``, the same bytes."""
    return JournalGenerator(seed, events).generate()


# -- core input streams ------------------------------------------------------------
#
# Built directly as inputs with integer-nanosecond timestamps, as the live
# controller makes them; arrival order is shuffled inside the settle window.

_SETTLE_NS = SETTLE_MS * NS_PER_MS
_MAX_DELAY_NS = MAX_DELAY_US * NS_PER_US


def _setup(questions: int) -> GameSetup:
    """tv-modern, three players, enough rounds of 6×5 cells for ``questions`` questions."""
    rounds = tuple(
        RoundSpec.numbered(f"R{i}", THEMES, PRICES) for i in range(1, questions // 30 + 2)
    )
    return GameSetup(
        find_rules("tv-modern"),
        tuple(PLAYERS),
        chooser=1,
        seed=1,
        settle_ns=_SETTLE_NS,
        rounds=rounds,
    )


def _arrival_order(stamped: list[tuple[int, Input]], rng: random.Random) -> list[Input]:
    """Sort by arrival: button edges are delayed by up to 2.5 ms, host inputs by nothing."""
    keyed = []
    for seq, (t, item) in enumerate(stamped):
        delay = 0 if not isinstance(item, Press | Release) else rng.randrange(_MAX_DELAY_NS)
        keyed.append((t + delay, seq, item))
    keyed.sort(key=lambda k: (k[0], k[1]))
    return [item for _, _, item in keyed]


def stream_window(presses: int, rng: random.Random) -> tuple[GameSetup, list[Input]]:
    """Races at the signal: each question, all three press within 0–3 ms of each other
    (1–4 presses each: a bouncing contact), press again within 300 ms; the first wins."""
    stamped: list[tuple[int, Input]] = []
    t = NS_PER_S
    count = question = 0
    while count < presses:
        cell = question % 30
        question += 1
        stamped.append((t, Select(t, cell // 5 + 1, PRICES[cell % 5])))
        stamped.append((t + NS_PER_S, ReadingStart(t + NS_PER_S)))
        signal = t + 5 * NS_PER_S
        stamped.append((signal, ReadingEnd(signal)))
        lead = signal + rng.randrange(150, 600) * NS_PER_MS
        for seat in SEATS:
            at = lead + rng.randrange(3 * NS_PER_MS)
            for _ in range(rng.randrange(1, 5)):
                stamped.append((at, Press(at, seat)))
                stamped.append((at + 100 * NS_PER_US, Release(at + 100 * NS_PER_US, seat)))
                at += rng.randrange(200 * NS_PER_US, 1 * NS_PER_MS)
                count += 1
            again = at + rng.randrange(50, 300) * NS_PER_MS
            stamped.append((again, Press(again, seat)))
            count += 1
        verdict = signal + 4 * NS_PER_S
        stamped.append((verdict, Judge(verdict, True)))
        t += 10 * NS_PER_S
    return _setup(question), _arrival_order(stamped, rng)


def stream_answering(presses: int, rng: random.Random) -> tuple[GameSetup, list[Input]]:
    """One long answer: seat 1 recognized, then everyone presses every 0.2–30 ms."""
    signal = 5 * NS_PER_S
    stamped: list[tuple[int, Input]] = [
        (0, Select(0, 1, PRICES[0])),
        (NS_PER_S, ReadingStart(NS_PER_S)),
        (signal, ReadingEnd(signal)),
        (signal + 200 * NS_PER_MS, Press(signal + 200 * NS_PER_MS, 1)),
    ]
    t = signal + 201 * NS_PER_MS
    for _ in range(presses - 1):
        t += rng.randrange(200 * NS_PER_US, 30 * NS_PER_MS)
        stamped.append((t, Press(t, rng.choice(SEATS))))
    stamped.append((t + NS_PER_S, Judge(t + NS_PER_S, False)))
    return _setup(1), _arrival_order(stamped, rng)


def stream_chatter(presses: int, rng: random.Random) -> tuple[GameSetup, list[Input]]:
    """Bouncing switches during an answer: each seat's edges 50–500 µs apart, so the
    settle window holds some thirty inputs at any time."""
    signal = 5 * NS_PER_S
    stamped: list[tuple[int, Input]] = [
        (0, Select(0, 1, PRICES[0])),
        (NS_PER_S, ReadingStart(NS_PER_S)),
        (signal, ReadingEnd(signal)),
    ]
    start = signal + 200 * NS_PER_MS
    clocks = {seat: start + seat for seat in SEATS}
    down = dict.fromkeys(SEATS, True)
    count = 0
    while count < presses:
        seat = min(clocks, key=clocks.__getitem__)
        at = clocks[seat]
        if down[seat]:
            stamped.append((at, Press(at, seat)))
            count += 1
        else:
            stamped.append((at, Release(at, seat)))
        down[seat] = not down[seat]
        clocks[seat] = at + rng.randrange(50 * NS_PER_US, 500 * NS_PER_US)
    end = max(clocks.values()) + NS_PER_S
    stamped.append((end, Judge(end, True)))
    return _setup(1), _arrival_order(stamped, rng)


def stream_mix(journal: bytes) -> tuple[GameSetup, list[Input]]:
    """The generated journal's inputs, decoded once (decoding is not the core's work)."""
    lines = decode_journal(journal)
    setup = parse_header(lines[0])
    parser = InputParser(len(setup.players))
    return setup, [parser.parse(text, n) for n, text in enumerate(lines[1:], 2)]


# -- measuring -----------------------------------------------------------------------

Clock = Callable[[], int]


def _run_plain(setup: GameSetup, inputs: list[Input]) -> int:
    """Nanoseconds to push every input and finish, no per-event timers.

    ``out`` is emptied after every push, as the live controller hands each
    push's decisions on at once: a list growing to hundreds of thousands of
    decisions (and the copies its growth costs) is not what a game sees.
    """
    core = GameCore(setup)
    out: list[Any] = []
    push = core.push
    clear = out.clear
    clock = time.perf_counter_ns
    gc.collect()
    start = clock()
    for item in inputs:
        push(item, out)
        clear()
    core.finish(out)
    return clock() - start


def _run_timed(setup: GameSetup, inputs: list[Input]) -> list[int]:
    """Each push's duration in ns, timer overhead included (measured apart)."""
    core = GameCore(setup)
    out: list[Any] = []
    push = core.push
    clear = out.clear
    clock = time.perf_counter_ns
    durations = [0] * len(inputs)
    gc.collect()
    for i, item in enumerate(inputs):
        start = clock()
        push(item, out)
        durations[i] = clock() - start
        clear()
    core.finish(out)
    return durations


def timer_overhead(samples: int = 200_000) -> int:
    """Median ns the timing itself adds to one event (the same loop, an empty body)."""
    clock = time.perf_counter_ns
    out: list[Any] = []
    clear = out.clear
    durations = [0] * samples
    for i in range(samples):
        start = clock()
        durations[i] = clock() - start
        clear()
    return int(statistics.median(durations))


def percentile(values: Sequence[int | float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of unsorted ``values``."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-len(ordered) * q // 100)))
    return float(ordered[int(rank) - 1])


def measure_core(
    name: str, setup: GameSetup, inputs: list[Input], repeat: int, overhead_ns: int
) -> dict[str, Any]:
    """Throughput (median of ``repeat`` plain runs) and per-push latency (pooled timed runs).

    The benchmark's own objects (the inputs, built beforehand) are frozen out
    of the garbage collector: a live controller does not hold a game's worth
    of inputs in memory, and full collections scanning them would be the
    harness's cost, not the core's. The core's own garbage is still collected.
    """
    presses = sum(1 for item in inputs if isinstance(item, Press))
    gc.collect()
    gc.freeze()
    try:
        return _measure_core(name, setup, inputs, presses, repeat, overhead_ns)
    finally:
        gc.unfreeze()


def _measure_core(
    name: str, setup: GameSetup, inputs: list[Input], presses: int, repeat: int, overhead_ns: int
) -> dict[str, Any]:
    _run_plain(setup, inputs)  # warm-up
    walls = [_run_plain(setup, inputs) for _ in range(repeat)]
    press_us: list[float] = []
    all_us: list[float] = []
    for _ in range(max(1, repeat // 2)):
        durations = _run_timed(setup, inputs)
        for item, ns in zip(inputs, durations, strict=True):
            all_us.append(ns / 1_000)
            if isinstance(item, Press):
                press_us.append(ns / 1_000)
    wall = statistics.median(walls)
    over_us = overhead_ns / 1_000

    def stats(values: list[float]) -> dict[str, float]:
        median = statistics.median(values)
        p99 = percentile(values, 99)
        return {
            "median_us": round(median, 3),
            "p99_us": round(p99, 3),
            "max_us": round(max(values), 1),
            "median_us_net": round(max(0.0, median - over_us), 3),
            "p99_us_net": round(max(0.0, p99 - over_us), 3),
        }

    return {
        "stream": name,
        "inputs": len(inputs),
        "presses": presses,
        "wall_ms_median": round(wall / 1e6, 2),
        "wall_ms_min": round(min(walls) / 1e6, 2),
        "presses_per_s": round(presses / (wall / 1e9)),
        "inputs_per_s": round(len(inputs) / (wall / 1e9)),
        "per_press": stats(press_us),
        "per_input": stats(all_us),
    }


def _replay_once(data: bytes) -> tuple[int, list[str]]:
    gc.collect()
    start = time.perf_counter_ns()
    lines = replay_lines(decode_journal(data))
    return time.perf_counter_ns() - start, lines


def _json_once(data: bytes) -> int:
    gc.collect()
    start = time.perf_counter_ns()
    for text in data.decode("utf-8").splitlines():
        json.loads(text)
    return time.perf_counter_ns() - start


def _svoyak_command() -> list[str]:
    script = Path(sys.executable).with_name("svoyak")
    return [str(script)] if script.exists() else [sys.executable, "-m", "buzzer.cli"]


def _subprocess_ms(command: list[str], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        times.append((time.perf_counter_ns() - start) / 1e6)
    return times


def measure_replay(path: Path, data: bytes, repeat: int, cli: bool) -> dict[str, Any]:
    """Library replay against plain ``json.loads`` (interleaved runs), and the CLI."""
    _replay_once(data)  # warm-up (imports, caches)
    _json_once(data)
    replay_ns: list[int] = []
    json_ns: list[int] = []
    for _ in range(repeat):
        replay_ns.append(_replay_once(data)[0])
        json_ns.append(_json_once(data))
    replay_ms = statistics.median(replay_ns) / 1e6
    json_ms = statistics.median(json_ns) / 1e6
    result: dict[str, Any] = {
        "journal": str(path.relative_to(ROOT)),
        "lines": data.count(b"\n"),
        "replay_ms_median": round(replay_ms, 1),
        "replay_ms_min": round(min(replay_ns) / 1e6, 1),
        "replay_ms_max": round(max(replay_ns) / 1e6, 1),
        "json_loads_ms_median": round(json_ms, 1),
        "json_loads_ms_min": round(min(json_ns) / 1e6, 1),
        "json_loads_ms_max": round(max(json_ns) / 1e6, 1),
        "ratio": round(replay_ms / json_ms, 2),
        "repeat": repeat,
    }
    if cli:
        command = [*_svoyak_command(), "replay", str(path)]
        cli_ms = _subprocess_ms(command, repeat)
        startup_ms = _subprocess_ms([*_svoyak_command(), "--version"], repeat)
        shown = os.path.relpath(command[0], ROOT) if len(command) == 3 else " ".join(command[:3])
        result["cli_command"] = f"{shown} replay {result['journal']}"
        result["cli_ms_median"] = round(statistics.median(cli_ms), 1)
        result["cli_ms_min"] = round(min(cli_ms), 1)
        result["cli_ms_max"] = round(max(cli_ms), 1)
        result["cli_startup_ms_median"] = round(statistics.median(startup_ms), 1)
    return result


def _load_average() -> list[float] | None:
    """1/5/15-minute load averages: other processes sharing the CPU skew every figure."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith(("model name", "Model")):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "machine": platform.machine(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }


# -- main --------------------------------------------------------------------------------


def _check_model(journal: GeneratedJournal, output: list[str]) -> bool:
    """Does the replay recognize whom the generator meant to be recognized?"""
    seen = []
    for line in output:
        if '"type": "recognized"' in line:
            obj = json.loads(line)
            seen.append((round(obj["t"] * US_PER_S), obj["seat"]))
    return seen == journal.recognized


def run(
    events: int, seed: int, repeat: int, cli: bool, progress: Callable[[str], None]
) -> dict[str, Any]:
    """Generate the journal, measure everything, return the figures."""
    load_before = _load_average()
    progress(f"generating a {events}-event journal (seed {seed})")
    journal = generate_journal(seed, events)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"journal-{events}-seed{seed}.jsonl"
    path.write_bytes(journal.data)
    _, output = _replay_once(journal.data)
    (OUT_DIR / f"replay-{events}-seed{seed}.jsonl").write_bytes(
        ("\n".join(output) + "\n").encode("utf-8")
    )
    model_ok = _check_model(journal, output)
    if not model_ok:
        progress("WARNING: the replay does not recognize whom the generator expected")
    output_lines = len(output)
    del output
    progress("replay vs json.loads" + (" and the CLI" if cli else ""))
    replay = measure_replay(path, journal.data, repeat, cli)
    progress(f"timer overhead; core streams ({repeat} repetitions)")
    overhead = timer_overhead()
    rng = random.Random(seed)
    builders: list[tuple[str, Callable[[], tuple[GameSetup, list[Input]]]]] = [
        ("window", lambda: stream_window(events, rng)),
        ("answering", lambda: stream_answering(events, rng)),
        ("chatter", lambda: stream_chatter(events, rng)),
        ("mix", lambda: stream_mix(journal.data)),
    ]
    core = []
    for name, build in builders:  # one stream in memory at a time
        progress(f"  core: {name}")
        setup, inputs = build()
        core.append(measure_core(name, setup, inputs, repeat, overhead))
        del inputs
    worst_rate = min(c["presses_per_s"] for c in core)
    worst_p99 = max(c["per_press"]["p99_us_net"] for c in core)
    return {
        "machine": {**machine(), "load_average": [load_before, _load_average()]},
        "command": " ".join(["python", "bench/arbiter.py", *sys.argv[1:]]),
        "journal": {
            "path": str(path.relative_to(ROOT)),
            "seed": seed,
            "events": journal.events,
            "presses": journal.presses,
            "questions": journal.questions,
            "long_run_events": journal.long_run_events,
            "ties_with_draw_lines": journal.ties,
            "output_lines": output_lines,
            "model_check": "ok" if model_ok else "mismatch",
        },
        "timer_overhead_ns": overhead,
        "core": core,
        "replay": replay,
        "targets": {
            "presses_per_s": {
                "target": TARGET_PRESSES_PER_S,
                "worst": worst_rate,
                "pass": worst_rate >= TARGET_PRESSES_PER_S,
            },
            "p99_us": {
                "target": TARGET_P99_US,
                "worst": worst_p99,
                "pass": worst_p99 <= TARGET_P99_US,
            },
            "replay_ratio": {
                "target": TARGET_REPLAY_RATIO,
                "value": replay["ratio"],
                "pass": replay["ratio"] <= TARGET_REPLAY_RATIO,
            },
        },
    }


def report(result: dict[str, Any]) -> str:
    """The figures as a plain-text table."""
    m = result["machine"]
    j = result["journal"]
    lines = [
        f"{m['machine']}, {m['cpu']}, {m['cores']} cores, "
        f"{m['implementation']} {m['python']}, {m['date']}, "
        f"load average before/after {m['load_average'][0]} / {m['load_average'][1]}",
        f"journal: {j['path']}: {j['events']} events ({j['presses']} presses, "
        f"{j['questions']} questions, {j['long_run_events']} in long press runs, "
        f"{j['ties_with_draw_lines']} drawn ties), model check {j['model_check']}",
        f"timer overhead: {result['timer_overhead_ns']} ns per event (median)",
        "",
        "core (GameCore.push)    presses/s   inputs/s   press µs median / p99"
        "   (net of timer)      all inputs µs p99 net",
    ]
    for c in result["core"]:
        p = c["per_press"]
        lines.append(
            f"  {c['stream']:<10} {c['presses']:>8} {c['presses_per_s']:>11,} "
            f"{c['inputs_per_s']:>10,}   {p['median_us']:>6.2f} / {p['p99_us']:>6.2f}"
            f"   ({p['median_us_net']:.2f} / {p['p99_us_net']:.2f})"
            f"   {c['per_input']['p99_us_net']:>10.2f}"
        )
    r = result["replay"]
    lines += [
        "",
        f"replay ({r['lines']} lines, median of {r['repeat']}): "
        f"replay_lines {r['replay_ms_median']} ms, json.loads {r['json_loads_ms_median']} ms, "
        f"ratio {r['ratio']}×",
    ]
    if "cli_ms_median" in r:
        lines.append(
            f"  CLI: {r['cli_command']}: {r['cli_ms_median']} ms "
            f"(interpreter + import start-up {r['cli_startup_ms_median']} ms)"
        )
    lines.append("")
    for name, target in result["targets"].items():
        shown = target.get("worst", target.get("value"))
        verdict = "PASS" if target["pass"] else "FAIL"
        lines.append(f"target {name}: {target['target']} → {shown}: {verdict}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--events",
        type=int,
        default=100_000,
        help="journal lines, and presses per core stream (default 100000)",
    )
    parser.add_argument("--seed", type=int, default=2008, help="the generator's seed")
    parser.add_argument("--repeat", type=int, default=7, help="repetitions (median reported)")
    parser.add_argument("--no-cli", action="store_true", help="skip the subprocess runs")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.events < 1_000 or args.repeat < 1:
        parser.error("--events must be at least 1000 and --repeat at least 1")

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    result = run(args.events, args.seed, args.repeat, not args.no_cli, progress)
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
