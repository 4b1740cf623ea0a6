"""Serve an app with uvicorn in a background thread (the tests and the benchmark)."""

from __future__ import annotations

import threading
import time
from typing import Any

import uvicorn

from buzzer.panel.connections import ConnectionLimits, panel_config


class BackgroundServer:
    """uvicorn on ``host:port`` (port 0: a free one) in a daemon thread."""

    def __init__(
        self,
        app: Any,
        host: str = "127.0.0.1",
        port: int = 0,
        limits: ConnectionLimits | None = None,
    ) -> None:
        # The same configuration as `svoyak run` (connections.panel_config).
        config = panel_config(app, host=host, port=port, limits=limits)
        self.server = uvicorn.Server(config)
        self.host = host
        self.port = port
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> BackgroundServer:
        self._thread = threading.Thread(target=self.server.run, name="uvicorn", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the panel's server did not start")
            time.sleep(0.01)
        for server in self.server.servers:
            for sock in server.sockets:
                self.port = sock.getsockname()[1]
                return self
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
