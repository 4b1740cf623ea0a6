"""Benchmark of ``svoyak run``: start to ready, and resident memory.

A script, not a test: ``python bench/run.py [--repeat N] [--json]``.

- *start to ready*: from spawning ``svoyak run --headless`` to the first
  successful ``GET /api/state`` (the panel answers: the game is ready);
- *resident memory*: VmRSS of the process once ready, and after a short game
  of presses through the demo's simulated buttons.

``--lan`` runs it as on the Pi: on every interface (``--host 0.0.0.0``), so the
panel is advertised by mDNS too, and ready is the first answer at the LAN
address it printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import httpx
from spawn import spawn_run


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one_run(presses: int, lan: bool = False) -> tuple[float, float, float]:
    began = time.perf_counter()
    proc, url = spawn_run("123487", *(("--host", "0.0.0.0") if lan else ()))
    client = httpx.Client(base_url=url, timeout=10)
    while True:
        try:
            if client.get("/api/state").status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.005)
    ready = time.perf_counter() - began
    idle = rss_mb(proc.pid)
    client.post("/api/login", json={"pin": "123487"})
    for i in range(presses):
        client.post("/api/simulate/press", json={"seat": 1 + i % 3})
    busy = rss_mb(proc.pid)
    proc.terminate()
    proc.wait(timeout=15)
    return ready, idle, busy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--presses", type=int, default=300)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--lan", action="store_true", help="every interface, mDNS on")
    args = parser.parse_args()
    runs = [one_run(args.presses, args.lan) for _ in range(args.repeat)]
    ready = sorted(r[0] for r in runs)
    result = {
        "start_to_ready_s": {"median": statistics.median(ready), "max": ready[-1]},
        "rss_mb_ready": statistics.median(r[1] for r in runs),
        "rss_mb_after_presses": statistics.median(r[2] for r in runs),
        "repeat": args.repeat,
        "lan": args.lan,
        "presses": args.presses,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"start to ready: median {result['start_to_ready_s']['median']:.2f} s, "
            f"max {ready[-1]:.2f} s (goal ≤ 2 s)"
        )
        print(
            f"resident memory: {result['rss_mb_ready']:.1f} MB ready, "
            f"{result['rss_mb_after_presses']:.1f} MB after {args.presses} presses (goal ≤ 80 MB)"
        )


if __name__ == "__main__":
    main()
