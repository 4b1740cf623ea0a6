#!/usr/bin/env python3
"""Soak benchmark: the host's commands while nobody-with-the-PIN attacks the panel.

Run from the repository root::

    .venv/bin/python bench/soak.py              # 30 s of attack, a table
    .venv/bin/python bench/soak.py --json       # the same figures as JSON
    .venv/bin/python bench/soak.py --seconds 10 # a quicker look

Three processes, so that none measures the others' work as its own:

1. the server: a real ``svoyak run --headless`` on 127.0.0.1 (its journal on
   disk, as in a game);
2. the attacker (``bench/soak.py --attack PORT``, tests/support/attack_rig.py): 8
   viewer sockets sending ``resync`` as fast as they can (connecting again
   whenever they are closed or refused), 1,000 half-open connections kept
   open (one the server drops is opened again), and 2 clients posting a
   100 MB body (really sent, until the server stops reading) to every route
   in turn, with a Content-Length or chunked;
3. this process: the host, logged in with the PIN, on one keep-alive
   connection (a minimal HTTP/1.1 client, as light as a browser's ``fetch``),
   sends a score correction every 20 ms and times each ``POST
   /api/command`` from just before the request is written to the end of its
   response.

First ``--seconds`` of commands with no attack (the baseline), then as long
under attack. Reported: median, p99 and max of the command's latency, the
share that failed (none may), and what the attacks got (close codes, status
codes, connections dropped). The goal: p99 ≤ 50 ms under attack.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # measure this checkout's code
PIN = "581324"
GOAL_P99_MS = 50.0


# -- the attacker process -------------------------------------------------------------


def attack(port: int, viewers: int, half_open: int, posters: int) -> int:
    """Attack until stdin closes; then print what the attacks got, as JSON."""
    import resource

    from tests.support.attack_rig import Attacks

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = half_open + 256
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, want), hard))
    with Attacks(port, viewers=viewers, half_open=half_open, posters=posters) as attacks:
        attacks.wait_started()
        print("STARTED", flush=True)
        sys.stdin.read()
        report = attacks.report()
    print(json.dumps(summarize(report)), flush=True)
    return 0


def summarize(report: dict[str, Any]) -> dict[str, Any]:
    def counts(values: list[Any]) -> dict[str, int]:
        out: dict[str, int] = {}
        for value in values:
            out[str(value)] = out.get(str(value), 0) + 1
        return out

    return {
        **report,
        "viewer_closes": counts(report["viewer_closes"]),
        "posts": counts(report["posts"]),
    }


# -- the server -----------------------------------------------------------------------


class Server:
    def __init__(self, journal: Path, root: Path = ROOT) -> None:
        command = [
            sys.executable,
            "-m",
            "buzzer.cli",
            "run",
            "--headless",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--pin",
            PIN,
            "--journal",
            str(journal),
        ]
        env = {**os.environ, "PYTHONPATH": str(root)}  # that checkout's code, not ours
        self.proc = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=root,
            env=env,
        )
        assert self.proc.stdout is not None
        self.port = 0
        self.logged: list[str] = []
        for line in self.proc.stdout:
            if "http://127.0.0.1:" in line and not self.port:
                self.port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
            if line.strip().startswith("PIN:"):
                break
        if not self.port:
            self.stop()
            raise RuntimeError("svoyak run did not print its panel's URL")
        # What it logs later (uvicorn's warnings) must not fill the pipe and block it.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.logged.append(line.rstrip())

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# -- the host -------------------------------------------------------------------------


async def host_commands(port: int, seconds: float, tag: str, server: Server) -> dict[str, Any]:
    from panel import Http  # bench/panel.py: the minimal keep-alive client

    http = Http(port)
    await http.open()
    samples: list[int] = []
    failed: list[str] = []
    peaks = {"rss_mb": 0.0, "fds": 0}
    try:
        status, payload = await http.post("/api/login", {"pin": PIN})
        if status != 200:
            raise RuntimeError(f"login: {status} {payload!r}")
        end = time.monotonic() + seconds
        n = 0
        while time.monotonic() < end:
            delta = 1 if n % 2 == 0 else -1
            body = {
                "id": f"{tag}-{n}",
                "command": {"type": "correction", "seat": 1, "delta": delta, "reason": "soak"},
            }
            t0 = time.perf_counter_ns()
            try:
                status, payload = await asyncio.wait_for(http.post("/api/command", body), 30)
            except (TimeoutError, OSError, asyncio.IncompleteReadError) as exc:
                failed.append(repr(exc))
                http.close()
                await http.open()  # as a browser would: a new connection
                continue
            t1 = time.perf_counter_ns()
            if status != 200:
                failed.append(f"{status} {payload[:100]!r}")
            else:
                samples.append(t1 - t0)
            n += 1
            if n % 50 == 0:
                peaks["rss_mb"] = max(peaks["rss_mb"], server.rss_mb())
                peaks["fds"] = max(peaks["fds"], server.fds())
            await asyncio.sleep(0.02)
    finally:
        http.close()
    return {
        "commands": len(samples) + len(failed),
        "failed": len(failed),
        "failures": failed[:5],
        **summary(samples),
        "server_peak_rss_mb": round(peaks["rss_mb"], 1),
        "server_peak_fds": peaks["fds"],
    }


def summary(samples_ns: list[int]) -> dict[str, float]:
    if not samples_ns:
        return {"median_ms": float("nan"), "p99_ms": float("nan"), "max_ms": float("nan")}
    ms = sorted(x / 1e6 for x in samples_ns)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    return {
        "median_ms": round(statistics.median(ms), 3),
        "p99_ms": round(p99, 3),
        "max_ms": round(ms[-1], 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="of each phase")
    parser.add_argument("--viewers", type=int, default=8)
    parser.add_argument("--half-open", type=int, default=1000)
    parser.add_argument("--posters", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--server-root",
        type=Path,
        default=ROOT,
        help="the checkout whose `svoyak run` is attacked (default: this one; e.g. an "
        "older commit's `git archive` to compare)",
    )
    parser.add_argument("--attack", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.attack:
        return attack(args.attack, args.viewers, args.half_open, args.posters)
    if not 1 <= args.seconds <= 3600:
        parser.error("--seconds must be 1..3600")
    results: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "load_before": round(os.getloadavg()[0], 2),
        },
        "attack": {
            "viewers": args.viewers,
            "half_open": args.half_open,
            "posters": args.posters,
            "body_mb": 100,
        },
    }
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "soak.sqlite", args.server_root.resolve())
        try:
            results["baseline"] = asyncio.run(
                host_commands(server.port, args.seconds, "base", server)
            )
            attacker = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--attack",
                    str(server.port),
                    "--viewers",
                    str(args.viewers),
                    "--half-open",
                    str(args.half_open),
                    "--posters",
                    str(args.posters),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=ROOT,
            )
            assert attacker.stdout is not None and attacker.stdin is not None
            started = attacker.stdout.readline()
            if started.strip() != "STARTED":
                attacker.kill()
                raise RuntimeError(f"the attacks did not start: {started!r}")
            try:
                results["under_attack"] = asyncio.run(
                    host_commands(server.port, args.seconds, "soak", server)
                )
            finally:
                attacker.stdin.close()
                report = attacker.stdout.read()
                attacker.wait(timeout=60)
            results["attacks_got"] = json.loads(report.strip().splitlines()[-1])
            results["server_logged_lines"] = len(server.logged)
        finally:
            server.stop()
    results["machine"]["load_after"] = round(os.getloadavg()[0], 2)
    results["goal_p99_ms"] = GOAL_P99_MS
    results["goal_met"] = (
        results["under_attack"]["failed"] == 0 and results["under_attack"]["p99_ms"] <= GOAL_P99_MS
    )
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    attack_desc = (
        f"{args.viewers} viewer sockets flooding, {args.half_open} half-open connections, "
        f"100 MB posted to every route by {args.posters} clients"
    )
    print(f"host command (POST /api/command → 200) on `svoyak run`, {args.seconds:g} s each")
    print(f"attack: {attack_desc}")
    print(f"{'phase':14} {'commands':>8} {'failed':>6} {'median':>9} {'p99':>9} {'max':>9}")
    for phase in ("baseline", "under_attack"):
        f = results[phase]
        print(
            f"{phase:14} {f['commands']:>8} {f['failed']:>6} {f['median_ms']:>7.2f}ms "
            f"{f['p99_ms']:>7.2f}ms {f['max_ms']:>7.2f}ms"
        )
    got = results["attacks_got"]
    print(
        f"viewers: {got['viewer_connects']} connections, {got['viewer_sent']} messages sent, "
        f"closed/refused {got['viewer_closes']}"
    )
    print(
        f"posts: {got['posts']}, reset unanswered: {got['posts_reset']} "
        f"(read whole: {got['posts_read_whole']}, "
        f"{got['post_mb_sent']} MB written by the attackers)"
    )
    print(
        f"half-open: {got['half_open_opened']} opened, {got['half_open_dropped']} dropped "
        f"by the server, {got['half_open_failed']} failed to connect"
    )
    u = results["under_attack"]
    print(f"server under attack: peak {u['server_peak_rss_mb']} MB RSS, {u['server_peak_fds']} fds")
    print(f"goal p99 ≤ {GOAL_P99_MS:g} ms: {'met' if results['goal_met'] else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
