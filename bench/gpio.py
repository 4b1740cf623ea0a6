#!/usr/bin/env python3
"""Benchmark: a GPIO button's edge → the decision → the podium lamp on, through the live runtime.

Run from the repository root::

    .venv/bin/python bench/gpio.py                 # 1000 presses, a table
    .venv/bin/python bench/gpio.py --json          # the same figures as JSON
    .venv/bin/python bench/gpio.py --hog --journal-delay-ms 8   # under load

What one press goes through: everything of ``svoyak run`` with a pin map,
real but the pins (gpiozero's ``MockFactory``) and the web panel:

    drive_low() on the button's mock pin (the edge: the pin stamps it)
      → StampedInput → ButtonBank (ticks → ns, hold-off) → GpioSink
      → EdgeSource.put → Runtime.deliver (its inbox)
      → the runtime thread: the watermarks (host clock source; GPIO edge
        source = ButtonBank.proven_until, the pins' levels against the edges
        handled), the event-time merge, Controller.apply_batch:
        GameCore.push, one commit to a real SQLite JournalStore in a temp dir
      → the listeners, in subscription order: this script's (stamps the
        ``recognized`` decision), then ``LampBoard.apply`` (the lamp policy)
      → LED.on() → the lamp's MockConnectedPin → a "photodiode" mock input
        wired to it, whose ``when_changed`` stamps the lamp on.

Two figures per press, both from the button pin's own edge stamp (the mock
pin's ``time.monotonic()`` at the state change, the same clock the game uses):

- **edge → decision**: until the ``recognized`` decision reaches a listener
  (``time.monotonic_ns()`` in the listener; the journal commit is before it);
- **edge → lamp**: until the lamp's pin goes high (the photodiode's stamp).

The runtime decides a press only once every live source has *proven* that
nothing stamped earlier can still come. The GPIO source proves it from the
pins' levels (read the time, then every level; each equal to the last edge
handled): no fixed margin, so a press is decided as soon as the runtime
thread runs after its callback.

Mock pins (``hardware.mockpins``: level first, then the stamp, as on a real
line) call the callback synchronously in the thread that drives them (here
the main thread): the hand-over from a kernel edge to lgpio's callback
thread on a Pi is not in these figures (the level proof waits for it there).

Each question: select, reading start and end (the signal) as host commands
through ``runtime.command`` (each awaited, so the window is open), 3 ms of
quiet, one press (the seat rotates over the four podiums of the example pin
map), the lamp, the button up once its 20 ms hold-off is over (a press is
longer than that), a right verdict (the lamps go out). Rules
``tv-modern``, ``settle_ms`` 0 as ``svoyak run`` journals its games, a board of
enough themes for all the presses. ``runtime.stats.late_presses`` must stay 0.

Loads: ``--hog`` runs a busy loop in another process at nice 10 (as
tests/support/fairness_rig.py does), ``--journal-delay-ms`` slows every journal
commit (an SD card's fsync), ``--fifo`` runs under SCHED_FIFO as a systemd
unit with ``CPUSchedulingPolicy=fifo`` would (root or CAP_SYS_NICE).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
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

from gpiozero.pins.mock import MockConnectedPin  # type: ignore[import-untyped]  # noqa: E402

from buzzer.app.inputs import attach_gpio  # noqa: E402
from buzzer.arbiter.decisions import Decision, Ignored, Recognized  # noqa: E402
from buzzer.arbiter.events import Judge, ReadingEnd, ReadingStart, Select  # noqa: E402
from buzzer.journal.store import JournalStore  # noqa: E402
from buzzer.runtime.controller import Controller  # noqa: E402
from buzzer.runtime.runtime import Runtime  # noqa: E402
from hardware.mockpins import mock_factory  # noqa: E402
from hardware.pinmap import PinMap, example_path, load_pinmap  # noqa: E402
from tests.support.fairness_rig import SlowJournal, cpu_hog  # noqa: E402

NS_PER_US = 1_000
MS = 1_000_000
PRICES = (10, 20, 30, 40, 50, 60, 70, 80, 90, 100)


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
            # Made before attach_gpio: the factory hands LampBoard's LED this connected pin.
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


class Decisions:
    """The listener: when each ``recognized`` decision reached it, and late rulings."""

    def __init__(self) -> None:
        self.recognized: dict[int, tuple[int, int]] = {}  # seat → (game t, monotonic ns)
        self.late = 0
        self.event = threading.Event()

    def __call__(self, decisions: list[Decision], snapshot: dict[str, Any]) -> None:
        now = time.monotonic_ns()
        for decision in decisions:
            if isinstance(decision, Recognized):
                self.recognized[decision.seat] = (decision.t, now)
                self.event.set()
            elif isinstance(decision, Ignored) and decision.reason == "late":
                self.late += 1


def header(seats: int, presses: int) -> dict[str, Any]:
    return {
        "rules": "tv-modern",
        "players": [f"P{i}" for i in range(1, seats + 1)],
        "chooser": 1,
        "board": {"themes": max(1, -(-presses // len(PRICES))), "prices": list(PRICES)},
        "settle_ms": 0,
        "seed": 1,
    }


def host(runtime: Runtime, *makes: Any) -> None:
    for make in makes:
        runtime.wait(runtime.command(make), timeout=30)


def run(presses: int, journal_delay_s: float, folder: Path, hog: bool) -> dict[str, Any]:
    pinmap = load_pinmap(example_path())
    factory = mock_factory()
    diodes = Photodiodes(factory, pinmap)
    seats = pinmap.seats
    hold_ns = pinmap.hold_off_ns
    path = folder / f"gpio-{journal_delay_s}.sqlite"
    store: JournalStore = (
        SlowJournal(path, journal_delay_s) if journal_delay_s else JournalStore(path)
    )
    controller = Controller.new(header(len(seats), presses), store)
    listener = Decisions()
    controller.subscribe(listener)  # before attach_gpio: the decision first, then the lamps
    runtime = Runtime(controller).start()
    attached = attach_gpio(runtime, pinmap, factory)
    to_decision: list[int] = []
    to_lamp: list[int] = []
    stamp_error: list[int] = []
    missed = 0
    load = cpu_hog() if hog else contextlib.nullcontext()
    started = time.monotonic()
    try:
        with load:
            if hog:
                time.sleep(0.5)  # the hog is spinning
            gc.collect()
            for index in range(presses):
                seat = seats[index % len(seats)]
                button = factory.pin(pinmap.players[seat].pin)
                cell = index
                host(
                    runtime,
                    lambda t, c=cell: Select(t, 1 + c // len(PRICES), PRICES[c % len(PRICES)]),
                    ReadingStart,
                    ReadingEnd,
                )
                time.sleep(0.003)  # the signal is on; the players' hands are ready
                diodes.event.clear()
                listener.event.clear()
                diodes.lit_at.pop(seat, None)
                listener.recognized.pop(seat, None)
                button.drive_low()
                edge = ns(button._last_change)  # the mock pin's own stamp of this edge
                lit = diodes.event.wait(5.0) and seat in diodes.lit_at
                if lit and seat in listener.recognized:
                    game_t, decided_at = listener.recognized[seat]
                    to_decision.append(decided_at - edge)
                    to_lamp.append(diodes.lit_at[seat] - edge)
                    stamp_error.append(abs(controller.t0_ns + game_t - edge))
                else:
                    missed += 1
                # Held past the button's hold-off, as a player's press is.
                time.sleep(max(0.0, (edge + hold_ns + 2 * MS - time.monotonic_ns()) / 1e9))
                button.drive_high()
                host(runtime, lambda t: Judge(t, True))
            runtime.settle()
    finally:
        elapsed = time.monotonic() - started
        attached.close()
        runtime.stop()
        stats = runtime.stats
        store.close()
    lines = _journal_types(path)
    return {
        "journal_delay_ms": journal_delay_s * 1e3,
        "hog": hog,
        "presses": presses,
        "measured": len(to_decision),
        "missed": missed,
        "seconds": round(elapsed, 1),
        "edge_to_decision": summary(to_decision),
        "edge_to_lamp": summary(to_lamp),
        "decision_stamp_vs_edge_max_us": max(stamp_error) / NS_PER_US if stamp_error else None,
        "late_presses": stats.late_presses,
        "late_seen_by_listener": listener.late,
        "behind": stats.behind,
        "faults": stats.faults,
        "journal_errors": stats.journal_errors,
        "refused": stats.refused,
        "batches": stats.batches,
        "worst_lag_us": {k: round(v / NS_PER_US) for k, v in stats.worst_lag_ns.items()},
        "journal_presses": lines.get("press", 0),
        "journal_releases": lines.get("release", 0),
    }


def _journal_types(path: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    with JournalStore(path) as store:
        for line in store.lines():
            kind = json.loads(line).get("type", "?")
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def percentile(ordered: list[int], q: float) -> int:
    """Nearest rank (``q`` in 0..1) of a sorted list."""
    return ordered[min(len(ordered) - 1, max(0, math.ceil(len(ordered) * q) - 1))]


def summary(samples: list[int]) -> dict[str, float] | None:
    if not samples:
        return None
    ordered = sorted(samples)
    out = {
        "min_us": ordered[0] / NS_PER_US,
        "median_us": statistics.median(ordered) / NS_PER_US,
        "p90_us": percentile(ordered, 0.90) / NS_PER_US,
        "p99_us": percentile(ordered, 0.99) / NS_PER_US,
        "max_us": ordered[-1] / NS_PER_US,
    }
    return {k: round(v, 1) for k, v in out.items()}


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
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=1000, help="presses per run (default 1000)")
    parser.add_argument(
        "--journal-delay-ms", type=float, default=0.0, help="slow every journal commit by this"
    )
    parser.add_argument(
        "--hog", action="store_true", help="a busy loop in another process, at nice 10"
    )
    parser.add_argument(
        "--fifo",
        type=int,
        metavar="PRIORITY",
        help="run under SCHED_FIFO at this priority (root or CAP_SYS_NICE); "
        "every thread started later inherits it",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if not 1 <= args.presses <= 100_000:
        parser.error("--presses must be 1..100000")
    if args.fifo is not None:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(args.fifo))
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    before = machine()
    with tempfile.TemporaryDirectory(prefix="svoyak-bench-gpio-") as tmp:
        runs = [run(args.presses, args.journal_delay_ms / 1e3, Path(tmp), args.hog)]
    result = {
        "benchmark": "mock-pin edge → decision → podium lamp on, through the live runtime",
        "date": started,
        "machine": before,
        "loadavg_after": machine()["loadavg"],
        "scheduling": f"SCHED_FIFO {args.fifo}" if args.fifo is not None else "SCHED_OTHER",
        "runs": runs,
    }
    ok = all(r["late_presses"] == 0 and r["missed"] == 0 for r in runs)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0 if ok else 1
    m = before
    print(result["benchmark"])
    print(
        f"{started}; {m['cpu']}, {m['cores']} cores, Python {m['python']}; "
        f"load {m['loadavg']} → {result['loadavg_after']}; {result['scheduling']}"
    )
    for r in runs:
        print(
            f"\njournal +{r['journal_delay_ms']:g} ms a "
            f"commit, hog {'on' if r['hog'] else 'off'}: {r['measured']}/{r['presses']} "
            f"presses in {r['seconds']} s, missed {r['missed']}, late {r['late_presses']}, "
            f"behind {r['behind']}, faults {r['faults']}"
        )
        print(
            f"  {'µs from the edge stamp':28}{'min':>9}{'median':>9}{'p90':>9}{'p99':>9}"
            f"{'max':>9}"
        )
        for name, key in (
            ("→ recognized at a listener", "edge_to_decision"),
            ("→ lamp pin high", "edge_to_lamp"),
        ):
            s = r[key]
            if s is None:
                continue
            print(
                f"  {name:28}{s['min_us']:>9.1f}{s['median_us']:>9.1f}{s['p90_us']:>9.1f}"
                f"{s['p99_us']:>9.1f}{s['max_us']:>9.1f}"
            )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
