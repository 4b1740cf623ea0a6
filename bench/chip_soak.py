#!/usr/bin/env python3
"""Soak benchmark: presses on the real firmware (the chip model) → decisions in the live runtime.

Run from the repository root::

    .venv/bin/python bench/chip_soak.py                  # 10,000 presses, a table
    .venv/bin/python bench/chip_soak.py --presses 500    # a quicker look
    .venv/bin/python bench/chip_soak.py --json
    .venv/bin/python bench/chip_soak.py --device emulator   # the Python model, a baseline
    .venv/bin/python bench/chip_soak.py --dilate 0.1 --race 8   # the chip at full speed

The Pico is the chip model (``firmware_bridge/chip``, docs/chip-model.md):
the project's ``main.py`` and ``logic.py`` on MicroPython in an emulated
RP2040, paced to the wall clock, its USB serial port on a pty. The host is
the composition ``svoyak run --serial`` builds, minus the panel (as
``bench/pico.py``): the real ``BridgeLink`` (pyserial, the clock fit, the
watermark) → ``attach_bridge`` → the runtime thread → a real SQLite journal
→ a listener, and the lamp policy sending LAMP frames back.

Each question: ``select``, ``reading_start``, ``reading_end`` (the host's
commands, through the runtime), then a race of ``--race`` buttons (default
2) pressed by the harness at exact emulated offsets 2 µs to 1 ms apart, held
15 ms; the host's ``judge`` once every press of the race is decided. Each
press is timed **from its edge** (``AppliedEdge.wall_ns``: the harness's
``CLOCK_MONOTONIC`` when it drove the pin; paced, the chip's time is the
wall clock's) **to its decision** at the listener (``recognized`` for the
first edge, ``ignored`` for the others; after the journal's commit, as
nothing is shown before it is on disk). Also timed: the winner's edge → its
podium lamp on (the firmware's GPIO change, ``ChipModel.pin_log``).

Lost presses: every commanded press must come back as a decision and a
``press`` line in the journal; one that does not is lost, and the link's
counters (``lost``, ``ring_overflows``, ``device_dropped``) must explain it.
The goal is 0 lost, 0 ``late``, and the first edge recognized every time.

Why the chip runs in a process of its own: a real Pico does not share the
host's GIL, and the chip model's Python side (the harness's event pipe, the
pty bridge) is busy; here it is no part of the host's figure. The harness
(Node) is a third process: on a 2-core machine it takes most of one core,
and the paced CPU slows when the host needs the cores (its timer does not),
so the machine's load is part of the result (reported).

``--dilate K`` runs the chip dilated instead (firmware_bridge/chip/dilation.py):
its CPU at the RP2040's full 125 MHz and its time at K x the wall clock, and
the host (controller, link, listener) on the matching clock, K x the wall
clock. The firmware and the link then run as with a real Pico, at their own
pace, and every figure is in the chip's time; the host's own Python work
looks K times quicker than it is (its share is the ``--device emulator``
baseline's), so the dilated figures say what the firmware adds and whether
anything is lost, not how fast the host's CPU is.
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import multiprocessing
import os
import platform
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # measure this checkout's code

from bench.pico import summary  # noqa: E402  (one way to sum up a latency sample)
from buzzer.app.inputs import attach_bridge  # noqa: E402
from buzzer.arbiter.decisions import Decision, Ignored, Recognized, Tie  # noqa: E402
from buzzer.arbiter.events import Judge, ReadingEnd, ReadingStart, Select, Timeout  # noqa: E402
from buzzer.journal.store import JournalStore  # noqa: E402
from buzzer.runtime.controller import Controller  # noqa: E402
from buzzer.runtime.runtime import Runtime  # noqa: E402
from firmware_bridge.chip.dilation import DilatedClock, dilation_factor  # noqa: E402
from hardware.selftest_game import board_for  # noqa: E402

MS = 1_000_000
#: The firmware's 8 buttons, all seated: a button comes round again every
#: SEATS / race questions, long after its hold-offs (press and release).
SEATS = 8
#: The spacings of a race's presses after the first (µs), in turn: from the
#: 2 µs the firmware's stamps still order to a full millisecond.
GAPS_US = (2, 10, 50, 200, 1000)
#: The first press comes this long after the request reaches the harness:
#: the signal (``reading_end``) is on the host's clock before any press.
LEAD_US = 2_000
HOLD_US = 15_000
#: A button is pressed again only this long after its last press: past the
#: press's 10 ms hold-off, the release at 15 ms and the release's hold-off.
REUSE_NS = 40 * MS
#: How long a press may take to be decided before it counts as lost (the
#: runtime's wait bound is 100 ms; a faulted source is decided ``late``).
DECIDE_TIMEOUT_S = 3.0


def header(seats: int, questions: int) -> dict[str, Any]:
    """A journal header with a cell for every question (the self-test's board)."""
    return {
        "rules": "sport-no-false-start",
        "players": [f"P{i}" for i in range(1, seats + 1)],
        "board": board_for(questions),
        "settle_ms": 0,
        "seed": 7,
    }


# -- the chip, in a process of its own ------------------------------------------------


def chip_process(
    conn: Any, drift_ppm: float, dilate: Fraction | None = None, start_us: int = 0
) -> None:
    """Run the paced (or dilated) chip model behind a pty; answer the host on ``conn``.

    Requests: ``("press", {button: offset_us}, hold_us)`` → the emulated ns of
    offset 0; ``("logs",)`` → every edge, lamp change and time report so far;
    anything else stops it. (Also ``bench/chip_clock.py``'s chip.)
    """
    from firmware_bridge.chip import ChipModel, ChipModelError

    chip = ChipModel(pace=dilate is None, dilate=dilate, drift_ppm=drift_ppm, start_us=start_us)
    try:
        chip.start()
        # USB enumerates before main.py runs: wait for the firmware's first
        # frame, as a Pico plugged in before the host starts has sent it.
        if not chip.read(timeout=60):
            raise ChipModelError(f"the firmware did not start: {chip.errors}")
        conn.send(("port", chip.open_pty()))
    except ChipModelError as exc:
        conn.send(("error", str(exc)))
        chip.stop()
        return
    try:
        while True:
            command = conn.recv()
            if command[0] == "press":
                _, offsets_us, hold_us = command
                conn.send(chip.press_after(offsets_us, hold_us))
            elif command[0] == "logs":
                conn.send(
                    {
                        "edges": [(e.pin, e.level, e.ns, e.wall_ns) for e in chip.edge_log],
                        "pins": list(chip.pin_log),
                        "time_reports": list(chip.time_reports),
                        "button_pins": chip.button_pins,
                        "lamp_pins": chip.lamp_pins,
                        "errors": list(chip.errors),
                        "resets": list(chip.resets),
                        "running": chip.running,
                    }
                )
            else:
                break
    finally:
        chip.stop()


def emulator_process(conn: Any, drift_ppm: float, dilate: Fraction | None = None) -> None:
    """The same requests answered by the Python model (``firmware_bridge/emulator.py``).

    A baseline, not the subject: ``logic.py`` under CPython behind a pty, its
    edges at exact device times (``Emulator.host_ns_at`` gives their host
    instants), its lamps logged by the device model. What the chip adds to
    a figure is the difference between the two runs.
    """
    from firmware_bridge.emulator import Emulator
    from firmware_bridge.firmware import logic

    edges: list[tuple[int, int, int, int]] = []
    with Emulator(buttons=SEATS, lamps=SEATS, drift_ppm=drift_ppm) as emulator:
        conn.send(("port", emulator.path))
        while True:
            command = conn.recv()
            if command[0] == "press":
                _, offsets_us, hold_us = command
                at = emulator.press_after({b: int(o) for b, o in offsets_us.items()})
                emulator.release_after({b: int(o + hold_us) for b, o in offsets_us.items()})
                for button, device_us in at.items():
                    ns = emulator.host_ns_at(device_us)
                    edges.append((logic.BUTTON_PINS[button], 0, ns, ns))
                first = min(at, key=lambda b: at[b])
                conn.send(emulator.host_ns_at(at[first]) - round(offsets_us[first] * 1000))
            elif command[0] == "logs":
                conn.send(
                    {
                        "edges": edges,
                        "pins": [
                            (logic.LAMP_PINS[lamp], level, t, t)
                            for t, lamp, level in emulator.lamp_log
                        ],
                        "button_pins": logic.BUTTON_PINS,
                        "lamp_pins": logic.LAMP_PINS,
                        "errors": [],
                        "resets": [],
                        "running": True,
                    }
                )
            else:
                break


# -- the host -------------------------------------------------------------------------


class Listener:
    """The controller's listener: each press decision, stamped when it reaches a listener."""

    def __init__(self, clock: Callable[[], int] = time.monotonic_ns) -> None:
        self.clock = clock
        self.cond = threading.Condition()
        self.trial = -1
        #: trial → [(seat, kind, reason, t, monotonic_ns)]
        self.decided: dict[int, list[tuple[int, str, str, int, int]]] = {}
        self.late = 0
        self.ties = 0

    def __call__(self, decisions: list[Decision], snapshot: dict[str, Any]) -> None:
        now = self.clock()
        with self.cond:
            for d in decisions:
                if isinstance(d, Recognized):
                    row = (d.seat, "recognized", "", d.t, now)
                elif isinstance(d, Ignored):
                    row = (d.seat, "ignored", d.reason, d.t, now)
                    self.late += d.reason == "late"
                elif isinstance(d, Tie):
                    self.ties += 1
                    continue
                else:
                    continue
                self.decided.setdefault(self.trial, []).append(row)
            self.cond.notify_all()

    def wait(self, trial: int, count: int, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: len(self.decided.get(trial, ())) >= count, timeout)


def run(
    presses: int,
    race: int,
    drift_ppm: float,
    max_s: float,
    folder: Path,
    progress: bool,
    device: str = "chip",
    wait_bound_ms: float | None = None,
    dilate: Fraction | None = None,
) -> dict[str, Any]:
    # The host's clock: the wall clock, or K x it for a dilated chip; ``stretch``
    # turns a span on it into wall seconds to sleep or wait.
    clock: Callable[[], int] = time.monotonic_ns if dilate is None else DilatedClock(dilate)
    stretch = 1.0 if dilate is None else 1 / float(dilate)
    context = multiprocessing.get_context("fork")  # before any thread of ours exists
    conn, child_conn = context.Pipe()
    target = chip_process if device == "chip" else emulator_process
    child = context.Process(target=target, args=(child_conn, drift_ppm, dilate), daemon=True)
    child.start()
    kind, value = conn.recv()
    if kind == "error":
        raise SystemExit(f"chip model: {value}")
    port = value
    trials = math.ceil(presses / race)
    journal = folder / "chip-soak.sqlite"
    store = JournalStore(journal)
    controller = Controller.new(header(SEATS, trials), store, clock=clock)
    listener = Listener(clock)
    controller.subscribe(listener)
    bound = {} if wait_bound_ms is None else {"wait_bound_ns": round(wait_bound_ms * 1e6)}
    runtime = Runtime(controller, **bound).start()
    plan: list[dict[str, Any]] = []
    last_press: dict[int, int] = {}
    started = time.monotonic()
    stopped_early = False
    host_errors: list[str] = []
    try:
        attached = attach_bridge(runtime, port, connect_timeout_s=30 * stretch, required=True)
        try:
            time.sleep(0.5 * stretch)  # a few clock pings beyond the handshake
            for n in range(trials):
                if time.monotonic() - started > max_s:
                    stopped_early = True
                    break
                first = (n * race) % SEATS
                buttons = [(first + k) % SEATS for k in range(race)]
                if n % 2:
                    buttons.reverse()  # the lower seat wins one race, the higher the next
                gap = GAPS_US[n % len(GAPS_US)]
                offsets = {b: LEAD_US + k * gap for k, b in enumerate(buttons)}
                for make in (lambda t: Select(t, None, None), ReadingStart, ReadingEnd):
                    runtime.wait(runtime.command(make), timeout=30 * stretch)
                wait_ns = max(last_press.get(b, 0) + REUSE_NS for b in buttons)
                if clock() < wait_ns:
                    time.sleep((wait_ns - clock()) / 1e9 * stretch)
                with listener.cond:
                    listener.trial = n
                conn.send(("press", offsets, HOLD_US))
                t0 = conn.recv()
                for b in buttons:
                    last_press[b] = clock()
                decided = listener.wait(n, race, DECIDE_TIMEOUT_S * stretch)
                plan.append({"t0": t0, "offsets": offsets, "decided": decided})
                with listener.cond:
                    answered = any(r[1] == "recognized" for r in listener.decided.get(n, ()))
                # Nobody recognized (a press lost or late): the host calls the
                # question dead, so the soak goes on and counts it.
                end = (lambda t: Judge(t, True)) if answered else Timeout
                try:
                    runtime.wait(runtime.command(end), timeout=30 * stretch)
                except Exception as exc:  # a refused command: counted, the soak goes on
                    host_errors.append(repr(exc))
                if progress and (n + 1) % 250 == 0:
                    rate = (n + 1) * race / (time.monotonic() - started)
                    left = (trials - n - 1) * race / rate
                    print(
                        f"  {(n + 1) * race} presses, {rate:.1f}/s, ~{left / 60:.1f} min left",
                        file=sys.stderr,
                        flush=True,
                    )
            time.sleep(0.1 * stretch)  # the last releases and lamp frames
            runtime.settle()
            link_stats = attached.link.stats()
        finally:
            attached.close()
    finally:
        runtime.stop()
        elapsed = time.monotonic() - started
        with listener.cond:
            listener.trial = -1
        conn.send(("logs",))
        logs = conn.recv()
        if isinstance(clock, DilatedClock):
            # The harness's wall instants of edges and lamps, on the host's clock.
            on_host = clock.host_ns
            logs["edges"] = [(p, lv, ns, on_host(w)) for p, lv, ns, w in logs["edges"]]
            logs["pins"] = [(p, st, ns, on_host(w)) for p, st, ns, w in logs["pins"]]
        conn.send(("stop",))
        child.join(15)
    with JournalStore(journal, readonly=True) as readback:
        journaled = [json.loads(line) for line in list(readback.lines())[1:]]
    store.close()
    result = analyse(plan, listener, logs, journaled, link_stats, runtime, elapsed, stopped_early)
    result["dilation"] = None if dilate is None else float(dilate)
    result["host_errors"] = len(host_errors)
    result["host_error_examples"] = host_errors[:3]
    return result


def analyse(
    plan: list[dict[str, Any]],
    listener: Listener,
    logs: dict[str, Any],
    journaled: list[dict[str, Any]],
    link_stats: Any,
    runtime: Runtime,
    elapsed: float,
    stopped_early: bool,
) -> dict[str, Any]:
    button_pins = logs["button_pins"]
    lamp_pins = logs["lamp_pins"]
    falling: dict[int, list[tuple[int, int]]] = {}
    for pin, level, ns, wall in logs["edges"]:
        if level == 0:
            falling.setdefault(pin, []).append((ns, wall))
    for pin_edges in falling.values():
        pin_edges.sort()
    lamp_on: dict[int, list[tuple[int, int]]] = {}
    for pin, state, ns, wall in logs["pins"]:
        if state == 1:
            lamp_on.setdefault(pin, []).append((ns, wall))

    def edge_of(button: int, target: int) -> tuple[int, int] | None:
        # The harness applies an edge at the first instruction at or after its
        # instant (a few µs late at most on a slowed paced CPU); the same pin's
        # next falling edge is a press one question round later.
        pin_edges = falling.get(button_pins[button], [])
        at = bisect.bisect_left(pin_edges, (target, -1))
        if at < len(pin_edges) and pin_edges[at][0] - target < 50_000:
            return pin_edges[at]
        return None

    to_decision: list[int] = []
    to_winner: list[int] = []
    to_lamp: list[int] = []
    commanded = undecided = missing_edges = wrong_winner = no_winner = 0
    for n, trial in enumerate(plan):
        rows: dict[int, tuple[str, str, int, int]] = {
            seat: (kind, reason, t, at) for seat, kind, reason, t, at in listener.decided.get(n, ())
        }
        edges: list[tuple[int, int, int]] = []  # (ns, wall, seat)
        for button, offset in trial["offsets"].items():
            commanded += 1
            edge = edge_of(button, trial["t0"] + offset * 1000)
            if edge is None:
                missing_edges += 1
                continue
            edges.append((*edge, button + 1))
        edges.sort()
        for _ns, wall, seat in edges:
            row = rows.get(seat)
            if row is None:
                undecided += 1
                continue
            to_decision.append(row[3] - wall)
        if not edges:
            continue
        first_ns, first_wall, first_seat = edges[0]
        winner = next((s for s, r in rows.items() if r[0] == "recognized"), None)
        if winner is None:
            no_winner += 1  # every press of the race ruled out (late, most likely)
            continue
        if winner != first_seat:
            wrong_winner += 1
            continue
        to_winner.append(rows[winner][3] - first_wall)
        lit = [w for ns, w in lamp_on.get(lamp_pins[winner - 1], ()) if ns > first_ns]
        if lit:
            to_lamp.append(lit[0] - first_wall)
    journal_presses = sum(1 for r in journaled if r["type"] == "press")
    stats = {
        name: getattr(link_stats, name)
        for name in (
            "events",
            "lost",
            "ring_overflows",
            "device_dropped",
            "duplicates",
            "bad_frames",
            "gaps",
            "recovered",
            "stale",
            "watermark_clamps",
            "disconnects",
            "device_restarts",
            "heartbeats",
        )
    }
    return {
        "presses": commanded,
        "questions": len(plan),
        "stopped_early": stopped_early,
        "elapsed_s": round(elapsed, 1),
        "presses_per_s": round(commanded / elapsed, 1) if elapsed else None,
        "lost": undecided + missing_edges,
        "undecided": undecided,
        "edges_not_applied": missing_edges,
        "journal_presses": journal_presses,
        "late": listener.late,
        "ties": listener.ties,
        "wrong_winner": wrong_winner,
        "no_winner": no_winner,
        "faults": runtime.stats.faults,
        "edge_to_decision": summary(to_decision),
        "winner_edge_to_recognized": summary(to_winner),
        "winner_edge_to_lamp_on": summary(to_lamp),
        "link": stats,
        "chip": {"errors": logs["errors"], "resets": logs["resets"]},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=10_000)
    parser.add_argument(
        "--race", type=int, default=2, help="buttons pressed per question (1-8; default 2)"
    )
    parser.add_argument("--drift-ppm", type=float, default=0.0, help="the chip's crystal error")
    parser.add_argument(
        "--max-minutes", type=float, default=120.0, help="stop after this long and report"
    )
    parser.add_argument(
        "--device",
        choices=("chip", "emulator"),
        default="chip",
        help="the Pico: the real firmware on the chip model (default), or the Python "
        "model as a baseline",
    )
    parser.add_argument(
        "--wait-bound-ms",
        type=float,
        default=None,
        help="the runtime's wait bound for a source's watermark (default: the runtime's "
        "100 ms; `svoyak run --wait-bound-ms`): the paced chip's CPU is slow here",
    )
    parser.add_argument(
        "--dilate",
        type=dilation_factor,
        default=None,
        metavar="K",
        help="run the chip dilated: its CPU at full speed, its time (and the host's clock) "
        "at K x the wall clock, e.g. 0.1 (the chip only; see the module docstring)",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    if not 1 <= args.race <= SEATS:
        parser.error(f"--race must be 1..{SEATS}")
    if args.presses < 1:
        parser.error("--presses must be at least 1")
    if args.dilate is not None and args.device != "chip":
        parser.error("--dilate is the chip model's (the Python model keeps the wall clock)")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="svoyak-bench-chip-") as tmp:
        result = run(
            args.presses,
            args.race,
            args.drift_ppm,
            args.max_minutes * 60,
            Path(tmp),
            not args.quiet,
            args.device,
            args.wait_bound_ms,
            args.dilate,
        )
    result.update(
        date=started,
        machine=f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        load_before=round(load_before, 2),
        load_after=round(os.getloadavg()[0], 2),
        race=args.race,
        device=args.device,
    )
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{started}; {result['machine']}; load {result['load_before']} → {result['load_after']}"
        )
        timing = "" if args.dilate is None else f", dilated x{float(args.dilate):g} (chip time)"
        print(f"device: {args.device}{timing}")
        print(
            f"{result['presses']} presses in {result['questions']} questions (races of "
            f"{args.race}), {result['elapsed_s']} s ({result['presses_per_s']}/s)"
            f"{', stopped early' if result['stopped_early'] else ''}"
        )
        print(
            f"lost {result['lost']} (undecided {result['undecided']}, edges not applied "
            f"{result['edges_not_applied']}); journal presses {result['journal_presses']}; "
            f"late {result['late']}; wrong winner {result['wrong_winner']}; no winner "
            f"{result['no_winner']}; ties {result['ties']}; faults {result['faults']}"
        )
        for name in ("edge_to_decision", "winner_edge_to_recognized", "winner_edge_to_lamp_on"):
            s = result[name]
            if s:
                print(
                    f"  {name:26} median {s['median_ms']:.3f} ms  p99 {s['p99_ms']:.3f} ms"
                    f"  max {s['max_ms']:.3f} ms  (n {s['n']})"
                )
        print(f"link: {result['link']}")
        print(f"chip: {result['chip']}")
    good = (
        result["lost"] == 0
        and result["late"] == 0
        and result["wrong_winner"] == 0
        and result["no_winner"] == 0
    )
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
