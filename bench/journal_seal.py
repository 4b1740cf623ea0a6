#!/usr/bin/env python3
"""Benchmark: what the journal's seal costs per line on the live path.

Run from the repository root::

    .venv/bin/python bench/journal_seal.py                # 2000 appends each, a table
    .venv/bin/python bench/journal_seal.py --json

Every live batch is one ``JournalStore.append_lines`` commit (WAL,
``synchronous=FULL``): that call is the whole of what the seal adds to the
path from an edge to its decision, one SHA-256 per line before the insert, and
a 64-character column. So it is measured alone, on two real journals in one
temporary folder of the same disk: a sealed one (today's schema) and one from
before the seal (no ``link`` column: the store writes no links), appended to in
alternating blocks of 50 so that the machine's load drifts over both alike.
The lines are a press each, as the runtime journals them (about 60 bytes).
The issue's bound: the live path's p99 does not move by more than 0.1 ms.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from buzzer.journal.store import JournalStore

HEADER = '{"type": "game", "rules": "tv-modern", "players": ["А", "Б", "В"], "package": "x"}'


def _old_schema(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE journal (seq INTEGER PRIMARY KEY, line TEXT NOT NULL)")
        db.execute("INSERT INTO journal (line) VALUES (?)", (HEADER,))


def _quantile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=Path.cwd()) as folder:
        sealed_path, plain_path = Path(folder, "sealed.sqlite"), Path(folder, "plain.sqlite")
        _old_schema(plain_path)
        sealed, plain = JournalStore(sealed_path), JournalStore(plain_path)
        sealed.append_line(HEADER)
        assert sealed.sealed and not plain.sealed
        times: dict[str, list[int]] = {"sealed": [], "unsealed": []}
        hashing: list[int] = []
        t = 0.0
        for block in range(args.appends // 50):
            order = [("sealed", sealed), ("unsealed", plain)]
            for name, store in order if block % 2 else reversed(order):
                for _ in range(50):
                    t += 0.001
                    line = f'{{"t": {t:.6f}, "type": "press", "seat": 2}}'
                    start = time.perf_counter_ns()
                    store.append_lines([line])
                    times[name].append(time.perf_counter_ns() - start)
        from buzzer.journal.seal import link

        previous = "0" * 64
        for _ in range(20_000):
            start = time.perf_counter_ns()
            previous = link(previous, '{"t": 12.345678, "type": "press", "seat": 2}')
            hashing.append(time.perf_counter_ns() - start)
        sealed.close()
        plain.close()
    figures = {
        name: {
            "appends": len(values),
            "median_ms": round(statistics.median(values) / 1e6, 4),
            "p99_ms": round(_quantile(values, 0.99), 4),
        }
        for name, values in times.items()
    }
    figures["link_only"] = {
        "appends": len(hashing),
        "median_ms": round(statistics.median(hashing) / 1e6, 5),
        "p99_ms": round(_quantile(hashing, 0.99), 5),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"{'journal':10} {'appends':>8} {'median ms':>10} {'p99 ms':>8}")
    for name, row in figures.items():
        print(f"{name:10} {row['appends']:>8} {row['median_ms']:>10} {row['p99_ms']:>8}")
    delta = figures["sealed"]["p99_ms"] - figures["unsealed"]["p99_ms"]
    print(f"p99 sealed − unsealed: {delta:+.4f} ms (bound: +0.1 ms)")


if __name__ == "__main__":
    main()
