#!/usr/bin/env python3
"""Benchmark: a press on the Pico → the decision, through the live runtime ``svoyak run`` uses.

Run from the repository root::

    .venv/bin/python bench/pico.py                  # 300 presses, a table
    .venv/bin/python bench/pico.py --json
    .venv/bin/python bench/pico.py --hog --journal-delay-ms 8

The Pico emulator (the firmware's own ``Device`` logic on a pseudo-terminal,
its heartbeat every millisecond) → the real ``BridgeLink`` (pyserial, the
clock mapping, the watermark) → ``attach_bridge`` → the runtime thread →
a real SQLite journal → the listeners. The edge's time is exact: each press
is scripted at a device time (``Emulator.press_after``), and
``Emulator.host_ns_at`` gives the host instant the device's counter read it.
Two figures per press, from that instant:

- **edge → decision**: until the ``recognized`` decision reaches a listener
  (after the journal's commit: nothing is shown before it is on disk);
- **edge → lamp on**: until the emulated firmware drives the podium lamp
  (the LAMP frame back over the pty and the device's main loop).

The difference from ``bench/press_to_panel.py`` is the process boundary and
the panel: this one is the runtime's own share, the goal's "edge →
decision". ``late`` must stay 0.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # measure this checkout's code

from buzzer.app.inputs import attach_bridge  # noqa: E402
from buzzer.arbiter.decisions import Decision, Ignored, Recognized  # noqa: E402
from buzzer.arbiter.events import Judge, ReadingEnd, ReadingStart, Select  # noqa: E402
from buzzer.journal.store import JournalStore  # noqa: E402
from buzzer.runtime.controller import Controller  # noqa: E402
from buzzer.runtime.runtime import Runtime  # noqa: E402
from firmware_bridge.emulator import Emulator  # noqa: E402
from tests.support.fairness_rig import SlowJournal, cpu_hog, header  # noqa: E402

SEATS = 4
MS = 1_000_000


def run(presses: int, delay_s: float, hog: bool, folder: Path) -> dict[str, Any]:
    path = folder / "pico.sqlite"
    store: JournalStore = SlowJournal(path, delay_s) if delay_s else JournalStore(path)
    controller = Controller.new(header(SEATS, presses), store)
    decided: dict[int, int] = {}
    late = [0]
    event = threading.Event()

    def listen(decisions: list[Decision], snapshot: dict[str, Any]) -> None:
        now = time.monotonic_ns()
        for decision in decisions:
            if isinstance(decision, Recognized):
                decided[decision.seat] = now
                event.set()
            elif isinstance(decision, Ignored) and decision.reason == "late":
                late[0] += 1

    controller.subscribe(listen)
    runtime = Runtime(controller).start()
    to_decision: list[int] = []
    to_lamp: list[int] = []
    load = cpu_hog() if hog else contextlib.nullcontext()
    with Emulator(buttons=SEATS, lamps=SEATS + 1) as emulator, load:
        attached = attach_bridge(runtime, emulator.path)
        try:
            time.sleep(0.3)  # a few clock pings
            for n in range(presses):
                seat = 1 + n % SEATS
                for make in (lambda t: Select(t, None, None), ReadingStart, ReadingEnd):
                    runtime.wait(runtime.command(make), timeout=30)
                time.sleep(0.003)
                event.clear()
                decided.pop(seat, None)
                logged = len(emulator.lamp_log)
                at_us = emulator.press_after({seat - 1: 500})[seat - 1]
                edge_ns = emulator.host_ns_at(at_us)
                if event.wait(5) and seat in decided:
                    to_decision.append(decided[seat] - edge_ns)
                for _ in range(500):
                    lit = [t for t, lamp, level in emulator.lamp_log[logged:]
                           if lamp == seat - 1 and level]
                    if lit:
                        to_lamp.append(lit[0] - edge_ns)
                        break
                    time.sleep(0.0005)
                runtime.wait(runtime.command(lambda t: Judge(t, True)), timeout=30)
                emulator.release_after({seat - 1: 12_000})
                time.sleep(0.025)  # past the release's hold-off
            runtime.settle()
        finally:
            attached.close()
            runtime.stop()
            store.close()
    return {
        "presses": presses,
        "journal_delay_ms": delay_s * 1e3,
        "hog": hog,
        "late": late[0],
        "late_edges": emulator.late_edges,
        "faults": runtime.stats.faults,
        "edge_to_decision": summary(to_decision),
        "edge_to_lamp": summary(to_lamp),
    }


def summary(samples: list[int]) -> dict[str, float] | None:
    if not samples:
        return None
    ordered = sorted(samples)

    def rank(q: float) -> int:
        return ordered[min(len(ordered) - 1, max(0, math.ceil(len(ordered) * q) - 1))]

    return {
        "n": len(ordered),
        "median_ms": round(statistics.median(ordered) / MS, 3),
        "p99_ms": round(rank(0.99) / MS, 3),
        "max_ms": round(ordered[-1] / MS, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=300)
    parser.add_argument("--journal-delay-ms", type=float, default=0.0)
    parser.add_argument("--hog", action="store_true", help="a busy loop in another process")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="svoyak-bench-pico-") as tmp:
        result = run(args.presses, args.journal_delay_ms / 1e3, args.hog, Path(tmp))
    result.update(
        date=started,
        machine=f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        load=round(load_before, 2),
    )
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{started}; {result['machine']}; load {result['load']}")
        print(
            f"{result['presses']} presses, journal +{result['journal_delay_ms']:g} ms, "
            f"hog {'on' if args.hog else 'off'}: late {result['late']}, "
            f"late edges {result['late_edges']}, faults {result['faults']}"
        )
        for name in ("edge_to_decision", "edge_to_lamp"):
            s = result[name]
            if s:
                print(f"  {name:18} median {s['median_ms']:.3f} ms  p99 {s['p99_ms']:.3f} ms"
                      f"  max {s['max_ms']:.3f} ms  (n {s['n']})")
    return 0 if result["late"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
