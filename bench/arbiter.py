#!/usr/bin/env python3
"""Benchmark of the pure core and of ``svoyak replay`` (figures in BENCHMARKS.md).

Run from the repository root::

    .venv/bin/python bench/arbiter.py            # 100,000 events, a table
    .venv/bin/python bench/arbiter.py --json     # the same figures as JSON
    .venv/bin/python bench/arbiter.py --events 20000 --repeat 3   # a quick look
    .venv/bin/python bench/arbiter.py --events 30000 --replay-only --no-cli   # the replay alone

What it measures, and why this way:

1. **The core** (:class:`buzzer.core.GameCore`), fed ``Press`` inputs with
   integer-nanosecond timestamps, as the live controller feeds it. Four input
   streams: ``window`` (near-simultaneous presses at the signal, the first
   recognized), ``answering`` (the others hammering while someone answers),
   ``chatter`` (bouncing switches: press/release edges 50–500 µs apart, so the
   settle window holds dozens of inputs), and ``mix`` (the generated journal
   of ``arbiter_journal.py``, every input type). For each: presses per second
   over the whole loop without per-event timers, then the time of each
   ``push`` of a press with ``time.perf_counter_ns`` around it (median and
   p99 in µs, raw and with the timer's own median overhead subtracted). A
   push's time includes deciding the earlier inputs it releases from the
   settle window: that is the latency a press sees in a live game.
2. **Replay** of a generated 100,000-event journal: the library call
   ``replay_lines(decode_journal(data))`` (decisions *and* output lines)
   against plain ``json.loads`` of the same lines (from the same bytes), and
   the ``svoyak replay`` subprocess for reference (interpreter start-up
   included). Several repetitions, median reported, in wall time and in the
   process's CPU time: on a shared machine the wall time also counts the
   waits for a core, the CPU time only the work.

The journal is generated from a seed, so every run measures the same bytes;
it is written to ``bench/out/`` (gitignored) to be inspected or replayed.
The helpers sit beside it in ``bench/`` (on ``sys.path`` when the script
runs): ``arbiter_journal.py`` generates the journal (a marathon game under
``tv-modern``, every input type; its docstring describes it) and checks the
replay's ``recognized`` sequence against the generator's model, so a journal
that no longer means what it was built to mean is noticed;
``arbiter_streams.py`` builds the core's input streams and times the pushes.
"""

from __future__ import annotations

import argparse
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Measure this checkout's code, whatever the interpreter has installed.
sys.path.insert(0, str(ROOT))

from arbiter_journal import check_model, generate_journal  # noqa: E402
from arbiter_streams import (  # noqa: E402
    measure_core,
    stream_answering,
    stream_chatter,
    stream_mix,
    stream_window,
    timer_overhead,
)

from buzzer.arbiter.events import Input  # noqa: E402
from buzzer.replay import decode_journal, replay_lines  # noqa: E402
from rules.game import GameSetup  # noqa: E402

OUT_DIR = ROOT / "bench" / "out"

#: Targets (the brief of the benchmark; BENCHMARKS.md reports pass/fail).
TARGET_PRESSES_PER_S = 100_000
TARGET_P99_US = 50.0
TARGET_REPLAY_RATIO = 5.0


def _replay_once(data: bytes) -> tuple[int, int, list[str]]:
    """One replay: (wall ns, CPU ns of this process, the output lines)."""
    gc.collect()
    start, cpu = time.perf_counter_ns(), time.process_time_ns()
    lines = replay_lines(decode_journal(data))
    return time.perf_counter_ns() - start, time.process_time_ns() - cpu, lines


def _json_once(data: bytes) -> tuple[int, int]:
    """One plain ``json.loads`` of every line: (wall ns, CPU ns of this process)."""
    gc.collect()
    start, cpu = time.perf_counter_ns(), time.process_time_ns()
    for text in data.decode("utf-8").splitlines():
        json.loads(text)
    return time.perf_counter_ns() - start, time.process_time_ns() - cpu


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


def _ms(ns: float) -> float:
    return round(ns / 1e6, 1)


def measure_replay(path: Path, data: bytes, repeat: int, cli: bool) -> dict[str, Any]:
    """Library replay against plain ``json.loads`` (interleaved runs), and the CLI.

    Both wall time and the process's CPU time are kept: on a machine shared
    with other work the wall time includes waiting for a core, which neither
    the replay nor the parse asked for, and moves the ratio from one run to
    the next; the CPU time is what the two cost. Each replay is paired with
    the parse run right after it, and the spread of those pairs' ratios
    shows how far one figure can be trusted.
    """
    _replay_once(data)  # warm-up (imports, caches)
    _json_once(data)
    replay_ns: list[int] = []
    replay_cpu: list[int] = []
    json_ns: list[int] = []
    json_cpu: list[int] = []
    for _ in range(repeat):
        wall, cpu, _ = _replay_once(data)
        replay_ns.append(wall)
        replay_cpu.append(cpu)
        wall, cpu = _json_once(data)
        json_ns.append(wall)
        json_cpu.append(cpu)
    replay_ms = statistics.median(replay_ns) / 1e6
    json_ms = statistics.median(json_ns) / 1e6
    pairs = sorted(r / j for r, j in zip(replay_ns, json_ns, strict=True))
    pairs_cpu = sorted(r / j for r, j in zip(replay_cpu, json_cpu, strict=True))
    result: dict[str, Any] = {
        "journal": str(path.relative_to(ROOT)),
        "lines": data.count(b"\n"),
        "replay_ms_median": round(replay_ms, 1),
        "replay_ms_min": _ms(min(replay_ns)),
        "replay_ms_max": _ms(max(replay_ns)),
        "json_loads_ms_median": round(json_ms, 1),
        "json_loads_ms_min": _ms(min(json_ns)),
        "json_loads_ms_max": _ms(max(json_ns)),
        "ratio": round(replay_ms / json_ms, 2),
        "ratio_pairs_min_max": [round(pairs[0], 2), round(pairs[-1], 2)],
        "replay_cpu_ms_median": _ms(statistics.median(replay_cpu)),
        "json_loads_cpu_ms_median": _ms(statistics.median(json_cpu)),
        "ratio_cpu": round(statistics.median(replay_cpu) / statistics.median(json_cpu), 2),
        "ratio_cpu_pairs_min_max": [round(pairs_cpu[0], 2), round(pairs_cpu[-1], 2)],
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


def run(
    events: int,
    seed: int,
    repeat: int,
    cli: bool,
    progress: Callable[[str], None],
    replay_only: bool = False,
) -> dict[str, Any]:
    """Generate the journal, measure everything, return the figures."""
    load_before = _load_average()
    progress(f"generating a {events}-event journal (seed {seed})")
    journal = generate_journal(seed, events)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"journal-{events}-seed{seed}.jsonl"
    path.write_bytes(journal.data)
    _, _, output = _replay_once(journal.data)
    (OUT_DIR / f"replay-{events}-seed{seed}.jsonl").write_bytes(
        ("\n".join(output) + "\n").encode("utf-8")
    )
    model_ok = check_model(journal, output)
    if not model_ok:
        progress("WARNING: the replay does not recognize whom the generator expected")
    output_lines = len(output)
    del output
    progress("replay vs json.loads" + (" and the CLI" if cli else ""))
    replay = measure_replay(path, journal.data, repeat, cli)
    summary: dict[str, Any] = {
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
        "replay": replay,
    }
    replay_target = {
        "target": TARGET_REPLAY_RATIO,
        "value": replay["ratio"],
        "pass": replay["ratio"] <= TARGET_REPLAY_RATIO,
    }
    if replay_only:
        return {**summary, "core": [], "targets": {"replay_ratio": replay_target}}
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
    summary["machine"]["load_average"][1] = _load_average()
    return {
        **summary,
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
            "replay_ratio": replay_target,
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
    ]
    if result["core"]:
        lines += [
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
    low, high = r["ratio_pairs_min_max"]
    low_cpu, high_cpu = r["ratio_cpu_pairs_min_max"]
    lines += [
        "",
        f"replay ({r['lines']} lines, median of {r['repeat']}): "
        f"replay_lines {r['replay_ms_median']} ms, json.loads {r['json_loads_ms_median']} ms, "
        f"ratio {r['ratio']}× (pairs {low}–{high}×)",
        f"  CPU time: replay_lines {r['replay_cpu_ms_median']} ms, "
        f"json.loads {r['json_loads_cpu_ms_median']} ms, "
        f"ratio {r['ratio_cpu']}× (pairs {low_cpu}–{high_cpu}×)",
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
    parser.add_argument(
        "--replay-only",
        action="store_true",
        help="measure only the replay against json.loads (no core streams)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.events < 1_000 or args.repeat < 1:
        parser.error("--events must be at least 1000 and --repeat at least 1")

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    result = run(args.events, args.seed, args.repeat, not args.no_cli, progress, args.replay_only)
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
