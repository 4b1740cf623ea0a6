"""Shared helpers of the panel's tests: a real panel on a free loopback port."""

from __future__ import annotations

import json
import time
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
    try:
        yield Rig(controller, store, app.state.panel, server)
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
