#!/usr/bin/env python3
"""Benchmark of the Pico bridge's host side (figures for BENCHMARKS.md).

Run from the repository root::

    .venv/bin/python bench/bridge.py              # a table
    .venv/bin/python bench/bridge.py --json       # the same figures as JSON
    .venv/bin/python bench/bridge.py --trials 300 # a quick look

What it measures, and why this way:

1. **Frames decoded per second**: :class:`firmware_bridge.protocol.FrameDecoder`
   fed a stream of device frames (PRESS/RELEASE/HEARTBEAT/PONG mixed as a busy
   game sends them) in 4 KiB reads, as a serial port hands them over. Then the
   whole per-event host path without I/O: decode, unwrap the tick, map it onto
   the host clock, build the ``Press``. This is the reader thread's CPU cost.
2. **Emulator press → GameCore decision**: the firmware emulator
   (:mod:`firmware_bridge.emulator`, the firmware's own logic behind a real
   pty, in a process of its own, as a Pico is a device of its own) presses a
   button 3 ms after the host's signal (``ReadingEnd``); the link
   (:class:`~firmware_bridge.link.BridgeLink`) decodes, maps and enqueues
   the ``Press``; the consumer (this script, playing the live controller)
   pushes it into :class:`buzzer.core.GameCore` and, at once, the
   ``Tick`` at ``t + settle + 1`` that the controller would feed when the
   settle window has passed — so the *settle wait itself is excluded*: it is
   a fixed 3 ms policy (docs/design.md), not a latency of the path. The clock
   starts just before the emulator's ``os.write`` of the PRESS frame (the
   frame goes on the "wire") and stops when ``push`` has returned the
   ``recognized`` decision. Stages: wire → reader (pty and the reader's
   wake-up), reader → consumer (decode, map, queue hand-off, thread switch),
   consumer → decision (the core). The figure of merit is the total's p99
   (goal ≤ 1 ms).
3. **Live-style** (fewer trials): the same, but the consumer sleeps until the
   host clock passes ``t + settle`` before the tick, as a live controller
   does: edge (its true host time, from the emulator's clock model) →
   decision. About ``settle`` plus the sleep's overshoot.
4. **Mapping error**: each mapped press time minus the emulated edge's true
   host time (the emulator knows its clock: offset and a 25 ppm drift).

Garbage collection: by default the script calls ``gc.freeze()`` once its
set-up is done (imports, the game, the link), as a live controller would
after start-up, so that full collections do not rescan every module's
objects in the middle of a press; ``--no-gc-freeze`` measures without it.

One machine, one run: the pty and the thread switches are this VM's; on a
Pi the USB full-speed path adds its own (docs/wire-protocol.md, the budget).
"""

from __future__ import annotations

import argparse
import gc
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from buzzer.arbiter.decisions import Recognized  # noqa: E402
from buzzer.arbiter.events import Judge, Press, ReadingEnd, ReadingStart, Select, Tick  # noqa: E402
from buzzer.core import GameCore  # noqa: E402
from firmware_bridge import protocol as p  # noqa: E402
from firmware_bridge.clock import ClockMapper, TickUnwrapper  # noqa: E402
from firmware_bridge.emulator import Emulator  # noqa: E402
from firmware_bridge.link import BridgeLink, EventInfo, LinkConfig  # noqa: E402
from rules.board import RoundSpec  # noqa: E402
from rules.game import GameSetup  # noqa: E402
from rules.profiles import find_rules  # noqa: E402

SETTLE_NS = 3_000_000
PRICES = (100, 200, 300, 400, 500)
TARGET_P99_US = 1_000.0
DRIFT_PPM = 25.0


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-len(ordered) * q // 100)))
    return float(ordered[int(rank) - 1])


def summary(values_ns: Sequence[float]) -> dict[str, float]:
    us = [v / 1_000 for v in values_ns]
    return {
        "median_us": round(statistics.median(us), 1),
        "p99_us": round(percentile(us, 99), 1),
        "max_us": round(max(us), 1),
        "min_us": round(min(us), 1),
    }


# -- 1. decoding ---------------------------------------------------------------------------


def _device_stream(frames: int) -> bytes:
    out = bytearray()
    for i in range(frames):
        kind = i % 10
        if kind < 4:
            message: p.Message = p.Press(i + 1, (i * 997) & ((1 << 30) - 1), i % 8)
        elif kind < 8:
            message = p.Release(i + 1, (i * 997 + 50) & ((1 << 30) - 1), i % 8)
        elif kind == 8:
            message = p.Heartbeat(i * 1000, i, i, 0, 0)
        else:
            message = p.Pong(i * 10**9, i * 1000)
        out += p.encode_frame(message, i)
    return bytes(out)


def bench_decode(frames: int, repeat: int) -> dict[str, Any]:
    data = _device_stream(frames)
    chunks = [data[i : i + 4096] for i in range(0, len(data), 4096)]
    times = []
    for _ in range(repeat):
        decoder = p.FrameDecoder()
        gc.collect()
        start = time.perf_counter_ns()
        for chunk in chunks:
            decoder.feed(chunk)
        times.append(time.perf_counter_ns() - start)
        assert decoder.stats.frames == frames and decoder.stats.bad_total == 0
    best = statistics.median(times)
    # The reader's whole per-event path, without I/O.
    unwrapper = TickUnwrapper(30)
    mapper = ClockMapper()
    mapper.add_sample(10**12, 0, 10**12 + 100_000)
    decoder = p.FrameDecoder()
    gc.collect()
    start = time.perf_counter_ns()
    events = 0
    for chunk in chunks:
        for frame in decoder.feed(chunk):
            message = frame.message
            if isinstance(message, p.Press | p.Release):
                t = mapper.map_event(unwrapper.unwrap(message.ticks))
                Press(t, message.button + 1)
                events += 1
    path_ns = time.perf_counter_ns() - start
    return {
        "frames": frames,
        "bytes": len(data),
        "read_size": 4096,
        "frames_per_s": round(frames / (best / 1e9)),
        "mb_per_s": round(len(data) / (best / 1e9) / 1e6, 1),
        "events_per_s_decode_map_press": round(events / (path_ns / 1e9)),
        "us_per_event_decode_map_press": round(path_ns / events / 1_000, 2),
    }


# -- 2/3. emulator press -> decision -----------------------------------------------------------


def _setup(questions: int) -> GameSetup:
    rounds = tuple(RoundSpec.numbered(f"R{i}", 6, PRICES) for i in range(1, questions // 30 + 2))
    return GameSetup(
        find_rules("tv-modern"),
        ("Аня", "Борис", "Вера"),
        chooser=1,
        seed=1,
        settle_ns=SETTLE_NS,
        rounds=rounds,
    )


def _emulator_process(conn: Any, drift_ppm: float) -> None:
    """The emulator in a process of its own, so that its thread does not share
    the host's GIL (a real Pico does not): commands in, answers out."""
    writes = _Writes()
    with Emulator(buttons=3, lamps=3, drift_ppm=drift_ppm) as emulator:
        emulator.on_write = writes
        conn.send(emulator.path)
        while True:
            command = conn.recv()
            if command[0] == "click":
                _, button, lead_us, hold_us = command
                edge_us = emulator.now_us() + lead_us
                emulator.click(button, edge_us, hold_us)
                conn.send(emulator.host_ns_at(edge_us))
            elif command[0] == "writes":
                conn.send(writes.at)
            else:
                break


class _Writes:
    """The emulator's write hook: when each PRESS frame went on the wire."""

    def __init__(self) -> None:
        self.decoder = p.FrameDecoder()
        self.at: dict[int, int] = {}

    def __call__(self, t_ns: int, data: bytes) -> None:
        for frame in self.decoder.feed(data):
            message = frame.message
            if isinstance(message, p.Press) and message.event not in self.at:
                self.at[message.event] = t_ns


def bench_press_to_decision(trials: int, live_trials: int, freeze: bool = True) -> dict[str, Any]:
    infos: dict[int, EventInfo] = {}

    def on_event(info: EventInfo) -> None:
        infos[info.t_ns] = info

    context = multiprocessing.get_context("fork")  # before any thread of ours exists
    conn, child_conn = context.Pipe()
    child = context.Process(target=_emulator_process, args=(child_conn, DRIFT_PPM), daemon=True)
    child.start()
    try:
        path = conn.recv()
        link = BridgeLink(LinkConfig(path), on_event=on_event)
        link.start()
        try:
            if not link.wait_connected(10):
                raise SystemExit("the link to the emulator did not come up")
            time.sleep(0.3)  # a few ping/pongs beyond the first burst
            core = GameCore(_setup(trials + live_trials + 2))
            if freeze:
                gc.collect()
                gc.freeze()
            out: list[Any] = []
            clock = time.monotonic_ns
            rows: list[dict[str, int]] = []
            for trial in range(trials + live_trials):
                live = trial >= trials
                cell = trial % 30
                now = clock()
                core.push(Select(now, cell // 5 + 1, PRICES[cell % 5]), out)
                core.push(ReadingStart(clock()), out)
                signal = clock()
                core.push(ReadingEnd(signal), out)
                out.clear()
                button = trial % 3
                conn.send(("click", button, 3_000, 15_000))
                edge_true = conn.recv()
                press = link.events.get(timeout=10)
                t_get = clock()
                assert isinstance(press, Press) and press.seat == button + 1, press
                core.push(press, out)
                if live:
                    while clock() <= press.t + SETTLE_NS:
                        time.sleep(0.0002)
                    core.push(Tick(clock()), out)
                else:
                    core.push(Tick(press.t + SETTLE_NS + 1), out)
                t_dec = clock()
                recognized = [d for d in out if isinstance(d, Recognized)]
                assert recognized and recognized[0].seat == press.seat, out
                out.clear()
                release = link.events.get(timeout=10)
                core.push(release, out)
                core.push(Judge(clock(), True), out)
                out.clear()
                rows.append(
                    {
                        "live": int(live),
                        "t": press.t,
                        "edge_true": edge_true,
                        "get": t_get,
                        "dec": t_dec,
                    }
                )
            time.sleep(0.05)
            stats = link.stats()
            estimate = link.clock
            conn.send(("writes",))
            written_at: dict[int, int] = conn.recv()
        finally:
            link.stop()
            if freeze:
                gc.unfreeze()
    finally:
        conn.send(("stop",))
        child.join(10)
    fast = [r for r in rows if not r["live"]]
    wire_to_read, read_to_get, get_to_dec, total, mapping = [], [], [], [], []
    for row in fast:
        info = infos[row["t"]]
        written = written_at[info.event]
        wire_to_read.append(info.recv_ns - written)
        read_to_get.append(row["get"] - info.recv_ns)
        get_to_dec.append(row["dec"] - row["get"])
        total.append(row["dec"] - written)
    for row in rows:
        mapping.append(abs(row["t"] - row["edge_true"]))
    live = [r["dec"] - r["edge_true"] for r in rows if r["live"]]
    total_summary = summary(total)
    return {
        "trials": len(fast),
        "live_trials": len(live),
        "settle_ms": SETTLE_NS / 1e6,
        "total_wire_to_decision": total_summary,
        "stage_wire_to_reader": summary(wire_to_read),
        "stage_reader_to_consumer": summary(read_to_get),
        "stage_core_decision": summary(get_to_dec),
        "live_edge_to_decision_with_settle": summary(live) if live else None,
        "mapping_abs_error": summary(mapping),
        "clock": {
            "drift_ppm_fitted": round(estimate.drift_ppm, 2) if estimate else None,
            "drift_ppm_true": DRIFT_PPM,
            "uncertainty_us": round(estimate.uncertainty_ns / 1e3, 1) if estimate else None,
            "best_rtt_us": round(estimate.best_rtt_ns / 1e3, 1) if estimate else None,
        },
        "link": {
            "events": stats.events,
            "duplicates": stats.duplicates,
            "lost": stats.lost,
            "bad_frames": stats.bad_frames,
        },
        "gc_freeze": freeze,
        "target_p99_us": TARGET_P99_US,
        "pass": total_summary["p99_us"] <= TARGET_P99_US,
    }


# -- output --------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    return {
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_1min": round(load, 2) if load is not None else None,
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
    }


def table(result: dict[str, Any]) -> str:
    d = result["decode"]
    e = result["press_to_decision"]
    lines = [
        f"machine: {result['machine']}",
        "",
        "decoding",
        f"  FrameDecoder: {d['frames_per_s']:,} frames/s ({d['mb_per_s']} MB/s, "
        f"{d['frames']:,} frames in {d['read_size']}-byte reads)",
        f"  decode + unwrap + map + Press: {d['events_per_s_decode_map_press']:,} events/s "
        f"({d['us_per_event_decode_map_press']} µs each)",
        "",
        f"emulator press → GameCore decision ({e['trials']} trials; settle wait excluded; "
        f"gc.freeze() {'on' if e['gc_freeze'] else 'off'})",
        f"  {'stage':38} {'median µs':>10} {'p99 µs':>10} {'max µs':>10}",
    ]
    rows = [
        ("total: frame written → recognized", e["total_wire_to_decision"]),
        ("  pty → reader thread read()", e["stage_wire_to_reader"]),
        ("  decode, map, queue → consumer", e["stage_reader_to_consumer"]),
        ("  GameCore push + tick → decision", e["stage_core_decision"]),
        ("mapped time − true edge time (|err|)", e["mapping_abs_error"]),
    ]
    if e["live_edge_to_decision_with_settle"] is not None:
        rows.append(
            (
                f"live: edge → decision, {e['settle_ms']:g} ms settle",
                e["live_edge_to_decision_with_settle"],
            )
        )
    for name, s in rows:
        lines.append(f"  {name:38} {s['median_us']:>10} {s['p99_us']:>10} {s['max_us']:>10}")
    verdict = "pass" if e["pass"] else "FAIL"
    lines += [
        "",
        f"goal: p99 ≤ {e['target_p99_us']:g} µs → {e['total_wire_to_decision']['p99_us']} µs: "
        f"{verdict}",
        f"clock: fitted drift {e['clock']['drift_ppm_fitted']} ppm (true "
        f"{e['clock']['drift_ppm_true']}), uncertainty {e['clock']['uncertainty_us']} µs, "
        f"best round trip {e['clock']['best_rtt_us']} µs",
        f"link: {e['link']}",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--frames", type=int, default=200_000, help="frames to decode")
    parser.add_argument("--repeat", type=int, default=5, help="decoding repetitions")
    parser.add_argument("--trials", type=int, default=1000, help="press → decision trials")
    parser.add_argument("--live-trials", type=int, default=200, help="live-style trials")
    parser.add_argument(
        "--no-gc-freeze", action="store_true", help="do not gc.freeze() after the set-up"
    )
    args = parser.parse_args(argv)
    result = {
        "machine": machine(),
        "decode": bench_decode(args.frames, args.repeat),
        "press_to_decision": bench_press_to_decision(
            args.trials, args.live_trials, freeze=not args.no_gc_freeze
        ),
    }
    result["machine"]["load_1min_after"] = machine()["load_1min"]
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print(table(result))
    return 0 if result["press_to_decision"]["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
