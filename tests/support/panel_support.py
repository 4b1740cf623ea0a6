"""Shared helpers of the panel's tests: a real panel on a free loopback port."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from buzzer.journal.store import JournalStore
from buzzer.panel.app import Panel, create_app
from buzzer.panel.connections import ConnectionLimits
from buzzer.panel.demo import demo_header
from buzzer.panel.server import BackgroundServer
from buzzer.runtime.controller import Controller
from tests.support.http import http_client

PIN = "432165"


def wait_for(predicate: Callable[[], Any], timeout: float = 15.0, what: str = "a condition") -> Any:
    """Poll until ``predicate()`` is truthy (generous timeout: no timed assertions)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


@dataclass
class Rig:
    controller: Controller
    store: JournalStore
    panel: Panel
    server: BackgroundServer

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def ws_url(self) -> str:
        return f"ws://{self.server.host}:{self.server.port}/ws"

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.store.lines()]

    def client(self, login: bool = True, **kwargs: Any) -> httpx.Client:
        # 30 s: these tests check what is answered, not how fast (bench/panel.py does);
        # a Chromium beside two test workers on 2 cores once kept an answer past 10 s.
        client = http_client(base_url=self.url, timeout=30.0, **kwargs)
        if login:
            response = client.post("/api/login", json={"pin": PIN})
            assert response.status_code == 200, response.text
        return client

    def state(self) -> dict[str, Any]:
        snapshot: dict[str, Any] = httpx.get(self.url + "/api/state", timeout=10.0).json()[
            "snapshot"
        ]
        return snapshot

    def wait_state(
        self, predicate: Callable[[dict[str, Any]], Any], what: str = "a state"
    ) -> dict[str, Any]:
        found: dict[str, Any] = wait_for(
            lambda: (lambda s: s if predicate(s) else None)(self.state()), what=what
        )
        return found


#: What the running test's rigs were doing when it failed, read before they stopped
#: (:func:`runtime_state`, :func:`thread_stacks`); cleared at each test's setup and
#: reported by tests/conftest.py.
FAILURE_STATES: list[tuple[str, str]] = []


def thread_stacks(depth: int = 8) -> str:
    """Every thread's innermost frames: where a command that never got an answer
    is stuck (the runtime's thread, the server's loop, a lock)."""
    frames = sys._current_frames()
    out = []
    for thread in threading.enumerate():
        frame = frames.get(thread.ident) if thread.ident is not None else None
        if frame is not None:
            stack = "".join(traceback.format_stack(frame, limit=depth))
            out.append(f"{thread.name}:\n{stack}")
    return "\n".join(out)


def runtime_state(rig: Rig) -> str:
    """What a rig's runtime holds and waits for, read at a failure (a command never
    answered: is the thread running, is the command held, and for which source?)."""
    runtime = rig.panel.runtime
    try:
        now = runtime.now()
        thread = runtime._thread
        marks = []
        for source in list(runtime._sources):
            mark = source.watermark()
            behind = "no watermark" if mark is None else f"{(now - mark) / 1e6:.1f} ms behind"
            marks.append(f"{source.name} {behind}")
        lines = list(rig.store.lines())
        last = json.loads(lines[-1]).get("type") if lines else None
        running = "running" if thread is not None and thread.is_alive() else "NOT running"
        return (
            f"runtime thread {running}; {runtime._busy} input(s) delivered and not applied, "
            f"{len(runtime._merge)} held for their time; sources: {', '.join(marks)}; "
            f"{runtime.stats}; controller version {rig.controller.version}, "
            f"{len(lines)} journal lines, the last a {last!r}; "
            f"this process holds {len(os.listdir('/proc/self/fd'))} file descriptors"
        )
    except Exception as exc:  # the rig closed under us: say so
        return f"unreadable ({exc!r})"


@contextmanager
def panel_rig(
    tmp_path: Path,
    header: dict[str, Any] | None = None,
    *,
    limits: ConnectionLimits | None = None,
    **options: Any,
) -> Iterator[Rig]:
    """The panel on uvicorn; ``limits``: the server's connection limits (the defaults of
    ``svoyak run``), ``options``: ``create_app``'s."""
    store = JournalStore(tmp_path / "game.sqlite")
    controller = Controller.new(header or demo_header(), store)
    options.setdefault("simulate", True)
    app = create_app(controller, PIN, **options)
    server = BackgroundServer(app, limits=limits).start()
    rig = Rig(controller, store, app.state.panel, server)
    try:
        yield rig
    except BaseException:
        FAILURE_STATES.append(("panel runtime", runtime_state(rig)))
        FAILURE_STATES.append(("threads", thread_stacks()))
        raise
    finally:
        server.stop()
        store.close()


class Commands:
    """Host commands with fresh ids, made from the latest state (as the panel does)."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.n = 0

    def send(self, command: dict[str, Any], version: int | None = None, id: str | None = None):
        self.n += 1
        body: dict[str, Any] = {"id": id or f"test-{self.n}", "command": command}
        if version is not None:
            body["version"] = version
        try:
            return self.client.post("/api/command", json=body)
        except httpx.RemoteProtocolError:
            # The connection went before any answer (seen on a 2-core machine with
            # four workers). A command's id makes a resend safe: the panel answers a
            # retry and never applies it twice (docs/panel.md), as the page retries.
            return self.client.post("/api/command", json=body)

    def ok(self, command: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        response = self.send(command, **kwargs)
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result
