#!/usr/bin/env python3
"""Benchmark: what an idle host page and viewer cost the device that shows them.

Run from the repository root::

    .venv/bin/python bench/panel_idle.py              # 5 rounds of 10 s
    .venv/bin/python bench/panel_idle.py --rounds 3 --seconds 5

A host's tablet shows the panel all night, and the page ticks five times a
second (countdowns, a false start's «блок» that ends on the clock). What
matters is the CPU the browser spends while nothing happens: a page that
redraws what did not change keeps the tablet laying out and painting, and
its battery going. The panel runs on uvicorn on 127.0.0.1 (a board with no
question open); Debian's headless Chromium shows the host page at a
tablet's 1024×768 and the viewer at a phone's 390×844; after 2 s to
settle, the CPU time (user + system) of the browser's own processes (the
descendants of this process, read from ``/proc``) is taken over each round.
Prints the median and the worst round, in CPU ms per second of idle page.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.panel_game import (
    PHONE,
    STILL,
    board_package,
    chromium,
    host_page,
    package_rig,
)

TICKS = os.sysconf("SC_CLK_TCK")


def descendants_cpu_s(root: int) -> float:
    """CPU seconds (user + system) of every live descendant of ``root``."""
    parents: dict[int, int] = {}
    times: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        pid = int(entry)
        parents[pid] = int(fields[1])
        times[pid] = int(fields[11]) + int(fields[12])
    total = 0
    for pid, ticks in times.items():
        up = parents.get(pid)
        while up is not None and up != root and up > 1:
            up = parents.get(up)
        if up == root:
            total += ticks
    return total / TICKS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    me = os.getpid()
    per_second: list[float] = []
    with (
        tempfile.TemporaryDirectory() as folder,
        chromium() as browser,
        package_rig(Path(folder), board_package(), game_options=STILL) as rig,
    ):
        host_page(browser, rig)
        viewer = browser.new_context(viewport=PHONE).new_page()
        viewer.goto(rig.url + "/view")
        viewer.wait_for_selector("#link.up")
        time.sleep(2)
        for _ in range(args.rounds):
            before, started = descendants_cpu_s(me), time.monotonic()
            time.sleep(args.seconds)
            used = descendants_cpu_s(me) - before
            per_second.append(1000 * used / (time.monotonic() - started))
    print(
        f"idle host page + viewer, {args.rounds} rounds of {args.seconds:g} s: "
        f"median {statistics.median(per_second):.1f}, worst {max(per_second):.1f} "
        "CPU ms per second"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
