#!/usr/bin/env python3
"""Benchmark: a mock-pin edge → the podium lamp on, through the whole input path and GameCore.

Run from the repository root::

    .venv/bin/python bench/gpio.py              # 1000 presses, a table
    .venv/bin/python bench/gpio.py --json       # the same figures as JSON
    .venv/bin/python bench/gpio.py --presses 200

What one press goes through (everything real but the pins, which are
gpiozero's ``MockFactory`` pins):

    drive_low() on the button's mock pin (the edge; the pin stamps it)
      → StampedInput._fire_events → ButtonBank (ticks → ns, hold-off) → SimpleQueue.put
      → CoreLoop thread: GameCore.push (settle window: held 3 ms) → Tick at the deadline
      → ``recognized`` → LampBoard.apply → LED.on() → the lamp's MockConnectedPin
      → a "photodiode" mock input wired to it, whose ``when_changed`` stamps the lamp on.

Latency = the photodiode's stamp − the button pin's edge stamp (both mock-pin
stamps: ``time.monotonic()`` at the state change). The settle window is part
of it by design (the lamp lights once no earlier press can still arrive), so
the goal is p99 ≤ settle + 300 µs. Each question is a fresh select, reading
and signal from the host; the seat rotates over the four podiums; a right
verdict ends the question (lamps off) before the next. The owner loop runs
twice: with its default short spin before a deadline, and with a plain
blocking wait (``--spin-us 0``) for comparison.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import queue
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # measure this checkout's code

from gpiozero.pins.mock import MockConnectedPin, MockFactory  # type: ignore[import-untyped]  # noqa: E402

from buzzer.arbiter.events import Judge, ReadingEnd, ReadingStart, Select  # noqa: E402
from buzzer.arbiter.params import DEFAULT_SETTLE_NS  # noqa: E402
from buzzer.core import GameCore  # noqa: E402
from hardware.buttons import ButtonBank  # noqa: E402
from hardware.lamps import LampBoard  # noqa: E402
from hardware.loop import DEFAULT_SPIN_NS, CoreLoop  # noqa: E402
from hardware.pinmap import PinMap, example_path, load_pinmap  # noqa: E402
from rules.game import GameSetup  # noqa: E402
from rules.profiles import find_rules  # noqa: E402

NS_PER_US = 1_000
TARGET_OVER_SETTLE_US = 300.0
QUESTIONS_PER_GAME = 25  # fits round 1 of tv-modern (6 themes × 5 prices)


def ns(ticks: float) -> int:
    return round(ticks * 1e9)


class Photodiodes:
    """A mock input wired to each podium lamp's output: stamps the instant a lamp lights."""

    def __init__(self, factory: Any, pinmap: PinMap) -> None:
        used = set(pinmap.used_pins())
        spare = [p for p in range(2, 28) if p not in used]
        self.lit_at: dict[int, int] = {}
        self.event = threading.Event()
        self._handlers: list[Any] = []  # gpiozero keeps weak references to handlers
        for (seat, lamp), sense_pin in zip(
            sorted(pinmap.podium_lamps.items()), spare, strict=False
        ):
            sense = factory.pin(sense_pin)
            factory.pin(lamp.pin, pin_class=MockConnectedPin, input_pin=sense)
            sense.function = "input"
            sense.edges = "both"
            handler = self._handler(seat)
            self._handlers.append(handler)
            sense.when_changed = handler

    def _handler(self, seat: int) -> Any:
        def changed(ticks: float, state: int) -> None:
            if state:
                self.lit_at[seat] = ns(ticks)
                self.event.set()

        return changed


def new_game(loop: CoreLoop, core: GameCore) -> Any:
    """A call for the loop's own thread: continue with a fresh game (the board is finite)."""

    def swap() -> None:
        loop.core = core

    return swap


def run(presses: int, rules_id: str, spin_ns: int) -> dict[str, Any]:
    pinmap = load_pinmap(example_path())
    factory = MockFactory()
    diodes = Photodiodes(factory, pinmap)
    setup = GameSetup(find_rules(rules_id), ("a", "b", "c", "d"), chooser=1)
    prices = setup.rules.rounds[0].prices
    inputs: queue.SimpleQueue[Any] = queue.SimpleQueue()
    samples: list[int] = []
    missed = 0
    bank = ButtonBank(pinmap, factory, inputs.put)
    lamps = LampBoard(pinmap, factory)
    loop = CoreLoop(GameCore(setup), inputs, lamps, spin_ns=spin_ns).start()
    seats = pinmap.seats
    try:
        for index in range(presses):
            slot = index % QUESTIONS_PER_GAME
            if slot == 0:
                loop.call(new_game(loop, GameCore(setup)))
            seat = seats[index % len(seats)]
            button = factory.pin(pinmap.players[seat].pin)
            now = time.monotonic_ns()
            inputs.put(Select(now, 1 + slot // len(prices), prices[slot % len(prices)]))
            inputs.put(ReadingStart(now + 1))
            inputs.put(ReadingEnd(now + 2))
            time.sleep(0.005)  # the signal is on; the players' hands are ready
            diodes.event.clear()
            diodes.lit_at.pop(seat, None)
            button.drive_low()
            edge = ns(button._last_change)  # the mock pin's own stamp of this edge
            if diodes.event.wait(1.0) and seat in diodes.lit_at:
                samples.append(diodes.lit_at[seat] - edge)
            else:
                missed += 1
            button.drive_high()
            inputs.put(Judge(time.monotonic_ns(), True))
            time.sleep(0.005)  # the verdict passes the settle window; the lamps go off
    finally:
        loop.stop()
        lamps.close()
        bank.close()
    if loop.errors:
        raise RuntimeError(f"the core refused an input: {loop.errors[0]!r}")
    ordered = sorted(samples)

    def q(p: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, round(p * len(ordered)) - 1))] / NS_PER_US

    settle_us = DEFAULT_SETTLE_NS / NS_PER_US
    p99 = q(0.99)
    return {
        "spin_us": spin_ns / NS_PER_US,
        "presses": presses,
        "measured": len(samples),
        "missed": missed,
        "min_us": ordered[0] / NS_PER_US,
        "median_us": statistics.median(ordered) / NS_PER_US,
        "p90_us": q(0.90),
        "p99_us": p99,
        "max_us": ordered[-1] / NS_PER_US,
        "median_over_settle_us": statistics.median(ordered) / NS_PER_US - settle_us,
        "p99_over_settle_us": p99 - settle_us,
        "goal_p99_us": settle_us + TARGET_OVER_SETTLE_US,
        "goal_met": p99 <= settle_us + TARGET_OVER_SETTLE_US and missed == 0,
    }


def machine() -> dict[str, Any]:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "machine": platform.machine(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "gc": gc.isenabled(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=1000, help="presses per run (default 1000)")
    parser.add_argument("--rules", default="tv-modern", help="the rule system (default tv-modern)")
    parser.add_argument(
        "--spin-us",
        type=float,
        action="append",
        help="the owner loop's spin before a deadline; repeat for several runs "
        f"(default: {DEFAULT_SPIN_NS // NS_PER_US} and 0)",
    )
    parser.add_argument(
        "--fifo",
        type=int,
        metavar="PRIORITY",
        help="run under SCHED_FIFO at this priority (root or CAP_SYS_NICE), as a deployment "
        "with systemd's CPUSchedulingPolicy=fifo would; every thread started later inherits it",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if args.fifo is not None:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(args.fifo))
    spins = [round(s * NS_PER_US) for s in (args.spin_us or [DEFAULT_SPIN_NS / NS_PER_US, 0])]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    before = machine()
    runs = [run(args.presses, args.rules, spin) for spin in spins]
    result = {
        "benchmark": "mock-pin edge → podium lamp on, through ButtonBank, CoreLoop, GameCore",
        "date": started,
        "machine": before,
        "loadavg_after": machine()["loadavg"],
        "settle_us": DEFAULT_SETTLE_NS / NS_PER_US,
        "rules": args.rules,
        "scheduling": f"SCHED_FIFO {args.fifo}" if args.fifo is not None else "SCHED_OTHER",
        "runs": runs,
    }
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        m = before
        print(f"{result['benchmark']}")
        print(
            f"{started}; {m['cpu']}, {m['cores']} cores, Python {m['python']}; "
            f"load {m['loadavg']} → {result['loadavg_after']}; rules {args.rules}; "
            f"{result['scheduling']}"
        )
        print(
            f"{'spin µs':>8}{'presses':>9}{'missed':>8}{'min':>9}{'median':>9}{'p90':>9}"
            f"{'p99':>9}{'max':>9}{'p99−settle':>12}  goal p99 ≤ settle + 300 µs"
        )
        for r in runs:
            verdict = "met" if r["goal_met"] else "NOT met"
            print(
                f"{r['spin_us']:>8.0f}{r['presses']:>9}{r['missed']:>8}{r['min_us']:>9.1f}"
                f"{r['median_us']:>9.1f}{r['p90_us']:>9.1f}{r['p99_us']:>9.1f}{r['max_us']:>9.1f}"
                f"{r['p99_over_settle_us']:>12.1f}  {verdict}"
            )
        print("(µs from the button's edge stamp to the lamp's; the settle window is 3000 µs)")
    return 0 if runs[0]["goal_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
