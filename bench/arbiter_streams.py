"""The core's input streams and the timing of ``GameCore.push`` (``bench/arbiter.py``).

Four streams, as ``bench/arbiter.py``'s docstring describes them: ``window``,
``answering``, ``chatter`` (built here) and ``mix`` (the generated journal of
:mod:`arbiter_journal`, decoded). :func:`measure_core` times a stream: presses
per second without per-event timers, then each push with
``time.perf_counter_ns`` around it.
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Measure this checkout's code, whatever the interpreter has installed.
sys.path.insert(0, str(ROOT))

from arbiter_journal import MAX_DELAY_US, PLAYERS, PRICES, SEATS, SETTLE_MS, THEMES  # noqa: E402

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
from buzzer.replay import decode_journal  # noqa: E402
from rules.board import RoundSpec  # noqa: E402
from rules.game import GameSetup  # noqa: E402
from rules.profiles import find_rules  # noqa: E402

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
