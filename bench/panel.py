#!/usr/bin/env python3
"""Benchmark of the host panel: a host's tap → every one of 10 WebSocket clients updated.

Run from the repository root::

    .venv/bin/python bench/panel.py            # a table
    .venv/bin/python bench/panel.py --json     # the same figures as JSON
    .venv/bin/python bench/panel.py --taps 200 # a quicker look

What it measures, and why this way:

The panel's server runs in a process of its own (``bench/panel.py --serve``,
the real ``create_app`` under uvicorn on 127.0.0.1, the game journaled to a
SQLite file with ``synchronous=FULL`` as in a live game), so the clients'
work does not compete with it for the interpreter. This process opens 10
WebSocket clients on ``/ws`` and one HTTP client (the host, logged in with
the PIN), then taps one command at a time: the time from just before the
``POST /api/command`` is sent to the moment the *last* of the 10 clients has
received the message showing the tap's effect. Each client stamps a message
with ``time.perf_counter_ns`` as soon as it is read (a cheap substring test
tells whether it is the one awaited), so the figure also holds the clients'
own reading time: an upper bound on what the server adds.

Scenarios:

- ``correction``: a score correction (a journaled engine command), with
  ``settle_ms: 0`` in the header as ``svoyak run`` writes it: the runtime
  orders inputs by their watermarks, so the core holds nothing back. What
  the server adds: the runtime thread's trial on a copy of the core, the
  journal commit, the fan-out to 10 sockets.
- ``correction-settle3``: the same in a game whose header keeps a 3 ms
  settle window (journals of other recorders, older resumed games): the
  effect shows 3 ms later, by design.
- ``pause``: pause/resume, panel-level (not journaled, no settle window).
- ``server-only``: in this process, no HTTP, no sockets: the correction
  through the gate (settle 0) until the hub has handed the update to 10
  stand-in sockets: the server's own work alone.

For each: median, p99 and max over ``--taps`` taps (after 30 warm-up taps),
and the HTTP response time of the tap itself. Only loopback traffic, a
bounded number of requests; the server process is stopped at the end.
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
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PIN = "200813"
CLIENTS = 10


# -- the server process ------------------------------------------------------------


def serve(settle_ms: float, journal: str | None) -> int:
    import socket

    import uvicorn

    sys.path.insert(0, str(ROOT))
    from buzzer.journal.store import JournalStore
    from buzzer.panel.app import create_app
    from buzzer.panel.demo import demo_header
    from buzzer.runtime.controller import Controller

    header = demo_header()
    header["settle_ms"] = settle_ms
    store = JournalStore(journal) if journal else None
    controller = Controller.new(header, store)
    app = create_app(controller, PIN, simulate=True)
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say so
    # (without it every response waits ~40 ms for the client's delayed ACK).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections wait in the backlog until uvicorn accepts them
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    from buzzer.panel.connections import panel_config

    uvicorn.Server(panel_config(app)).run(sockets=[sock])
    return 0


class Server:
    def __init__(self, settle_ms: float, journal: Path | None) -> None:
        command = [sys.executable, __file__, "--serve", "--settle-ms", str(settle_ms)]
        if journal is not None:
            command += ["--journal", str(journal)]
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("PORT "):
            self.stop()
            raise RuntimeError(f"the panel server did not start: {line!r}")
        self.port = int(line.split()[1])

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# -- the clients -------------------------------------------------------------------


class Awaited:
    """The message the current tap is waiting for, and when each client got it."""

    def __init__(self, needle: str) -> None:
        self.needle = needle
        self.arrivals: dict[int, int] = {}
        self.done = asyncio.Event()


async def reader(index: int, socket: Any, state: dict[str, Awaited | None]) -> None:
    async for message in socket:
        now = time.perf_counter_ns()
        awaited = state["current"]
        if awaited is not None and index not in awaited.arrivals and awaited.needle in message:
            awaited.arrivals[index] = now
            if len(awaited.arrivals) == CLIENTS:
                awaited.done.set()


class Http:
    """A minimal keep-alive HTTP/1.1 client: the host's taps, with as little client-side
    work as a browser's ``fetch`` (httpx's own overhead is ~1 ms a request)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = ""

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
        data = json.dumps(body).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        )
        if self.cookie:
            head += f"Cookie: {self.cookie}\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        status_line = await self.reader.readline()
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "set-cookie":
                self.cookie = value.strip().split(";")[0]
        payload = await self.reader.readexactly(length)
        return int(status_line.split()[1]), payload

    def close(self) -> None:
        self.writer.close()


async def run_scenario(port: int, scenario: str, taps: int, warmup: int) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    sockets = [await connect(f"ws://127.0.0.1:{port}/ws") for _ in range(CLIENTS)]
    for socket in sockets:
        await socket.recv()  # the state on connect
    state: dict[str, Awaited | None] = {"current": None}
    readers = [asyncio.create_task(reader(i, s, state)) for i, s in enumerate(sockets)]
    updated: list[int] = []
    answered: list[int] = []
    http = Http(port)
    await http.open()
    try:
        status, payload = await http.post("/api/login", {"pin": PIN})
        if status != 200:
            raise RuntimeError(f"login: {status} {payload!r}")
        score = 0
        for tap in range(warmup + taps):
            if scenario == "pause":
                kind = "pause" if tap % 2 == 0 else "resume"
                command: dict[str, Any] = {"type": kind}
                needle = f'"paused": {"true" if kind == "pause" else "false"}'
            else:
                delta = 1 if tap % 2 == 0 else -1
                score += delta
                command = {"type": "correction", "seat": 1, "delta": delta, "reason": "bench"}
                needle = f'"scores": {{"1": {score},'
            awaited = Awaited(needle)
            state["current"] = awaited
            t0 = time.perf_counter_ns()
            status, payload = await http.post(
                "/api/command", {"id": f"{scenario}-{tap}", "command": command}
            )
            t_response = time.perf_counter_ns()
            if status != 200:
                raise RuntimeError(f"tap {tap}: {status} {payload!r}")
            await asyncio.wait_for(awaited.done.wait(), timeout=10)
            state["current"] = None
            if tap >= warmup:
                updated.append(max(awaited.arrivals.values()) - t0)
                answered.append(t_response - t0)
            await asyncio.sleep(0.002)
    finally:
        http.close()
    for task in readers:
        task.cancel()
    for socket in sockets:
        await socket.close()
    return {"updated": summary(updated), "response": summary(answered), "taps": taps}


class FakeSocket:
    """Stands in for a WebSocket: records when the hub hands it the awaited message."""

    def __init__(self, index: int, state: dict[str, Awaited | None]) -> None:
        self.index = index
        self.state = state

    async def send_text(self, data: str) -> None:
        now = time.perf_counter_ns()
        awaited = self.state["current"]
        if awaited is not None and self.index not in awaited.arrivals and awaited.needle in data:
            awaited.arrivals[self.index] = now
            if len(awaited.arrivals) == CLIENTS:
                awaited.done.set()

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        return None


async def run_in_process(taps: int, warmup: int, journal: Path | None) -> dict[str, Any]:
    """The server's own work, without HTTP, the kernel or the clients: the command
    through the gate (the trial on a copy, the journal, the release with
    ``settle_ms`` 0) until the hub has handed the update to 10 sockets."""
    sys.path.insert(0, str(ROOT))
    from buzzer.journal.store import JournalStore
    from buzzer.panel.gate import CommandGate
    from buzzer.panel.hub import PanelHub
    from buzzer.panel.models import CommandRequest
    from buzzer.runtime.controller import Controller
    from buzzer.runtime.runtime import Runtime

    header = __import__("buzzer.panel.demo", fromlist=["demo_header"]).demo_header()
    header["settle_ms"] = 0
    store = JournalStore(journal) if journal else None
    controller = Controller.new(header, store)
    runtime = Runtime(controller).start()  # as svoyak run: the runtime thread decides
    hub = PanelHub(runtime.commands)
    hub.attach(asyncio.get_running_loop())
    gate = CommandGate(runtime)
    state: dict[str, Awaited | None] = {"current": None}
    forever = asyncio.Event()
    serving = [
        asyncio.create_task(hub.serve(FakeSocket(i, state), False, forever.wait))
        for i in range(CLIENTS)
    ]
    await asyncio.sleep(0.01)
    samples: list[int] = []
    score = 0
    for tap in range(warmup + taps):
        delta = 1 if tap % 2 == 0 else -1
        score += delta
        awaited = Awaited(f'"scores": {{"1": {score},')
        state["current"] = awaited
        request = CommandRequest.model_validate(
            {
                "id": f"in-{tap}",
                "command": {"type": "correction", "seat": 1, "delta": delta, "reason": "b"},
            }
        )
        t0 = time.perf_counter_ns()
        outcome = await gate.execute_async(request)
        if outcome.status != 200:
            raise RuntimeError(f"tap {tap}: {outcome.body}")
        await asyncio.wait_for(awaited.done.wait(), timeout=10)
        if tap >= warmup:
            samples.append(max(awaited.arrivals.values()) - t0)
        await asyncio.sleep(0.001)
    for task in serving:
        task.cancel()
    runtime.stop()
    if store is not None:
        store.close()
    return {"updated": summary(samples), "taps": taps, "settle_ms": 0.0}


def summary(samples_ns: list[int]) -> dict[str, float]:
    ms = sorted(x / 1e6 for x in samples_ns)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    return {
        "median_ms": round(statistics.median(ms), 3),
        "p99_ms": round(p99, 3),
        "max_ms": round(ms[-1], 3),
    }


SCENARIOS = {
    "correction": 0.0,
    "correction-settle3": 3.0,
    "pause": 0.0,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--taps", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-journal", action="store_true", help="serve without a journal")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--settle-ms", type=float, default=3.0, help=argparse.SUPPRESS)
    parser.add_argument("--journal", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.settle_ms, args.journal)
    if not 1 <= args.taps <= 100_000:
        parser.error("--taps must be 1..100000")
    results: dict[str, Any] = {
        "clients": CLIENTS,
        "machine": {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "load_before": os.getloadavg()[0],
        },
        "journal": not args.no_journal,
        "scenarios": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        for number, (scenario, settle) in enumerate(SCENARIOS.items()):
            journal = None if args.no_journal else Path(tmp) / f"bench-{number}.sqlite"
            server = Server(settle, journal)
            try:
                figures = asyncio.run(run_scenario(server.port, scenario, args.taps, args.warmup))
            finally:
                server.stop()
            figures["settle_ms"] = settle
            results["scenarios"][scenario] = figures
        journal = None if args.no_journal else Path(tmp) / "bench-in-process.sqlite"
        results["scenarios"]["server-only"] = asyncio.run(
            run_in_process(args.taps, args.warmup, journal)
        )
    results["machine"]["load_after"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"host tap → all {CLIENTS} WebSocket clients updated (loopback), {args.taps} taps")
    print(f"journal on disk: {results['journal']}; load {results['machine']['load_before']:.2f}")
    print(f"{'scenario':22} {'settle':>7} {'median':>9} {'p99':>9} {'max':>9}   http p99")
    for name, figures in results["scenarios"].items():
        u = figures["updated"]
        r = figures.get("response")
        print(
            f"{name:22} {figures['settle_ms']:>5g}ms {u['median_ms']:>7.3f}ms "
            f"{u['p99_ms']:>7.3f}ms {u['max_ms']:>7.3f}ms   "
            + (f"{r['p99_ms']:.3f}ms" if r else "-")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
