"""The attacks of issue 13 on a running panel, all at once, from one asyncio thread.

- ``viewers`` viewer sockets sending ``resync`` as fast as they can; a socket
  closed by the server (or refused) connects again at once: the flood goes on;
- ``half_open`` connections that never finish a request (half of them send
  half a request's headers, half nothing at all); one the server drops is
  opened again, so that as many sit there the whole time;
- ``posters`` clients posting a 100 MB body (really sent, until the server
  stops reading) to every route of the panel in turn, some with a
  Content-Length and some chunked.

Used by tests/buzzer/panel/test_panel_attacks.py (the attacks are refused, the host plays
on) and by bench/soak.py (the host's command latency meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from typing import Any

HUNDRED_MB = 100 * 1024 * 1024
#: What a poster posts to (every route of the panel, and pages, files, the socket).
ROUTES = (
    ("POST", "/api/login"),
    ("POST", "/api/logout"),
    ("POST", "/api/command"),
    ("GET", "/api/commands"),
    ("POST", "/api/alerts/dismiss"),
    ("POST", "/api/simulate/press"),
    ("POST", "/api/simulate/stuck"),
    ("GET", "/api/state"),
    ("GET", "/api/session"),
    ("GET", "/openapi.json"),
    ("GET", "/"),
    ("GET", "/view"),
    ("GET", "/static/common.js"),
    ("GET", "/ws"),
)


class Attacks:
    """Start with ``with Attacks(port) as attacks:``; :meth:`report` says what happened."""

    def __init__(
        self,
        port: int,
        *,
        viewers: int = 8,
        half_open: int = 1000,
        posters: int = 2,
        host: str = "127.0.0.1",
    ) -> None:
        self.port = port
        self.host = host
        self.viewers = viewers
        self.half_open = half_open
        self.posters = posters
        self.viewer_closes: list[int | None] = []
        self.viewer_connects = 0
        self.viewer_sent = 0
        self.posts: list[int] = []
        self.post_bytes = 0
        #: posts whose 100 MB the server read to the end before it answered
        self.posts_read_whole = 0
        #: posts cut off by a reset before their answer could be read
        self.posts_reset = 0
        self.half_open_opened = 0
        self.half_open_dropped = 0
        self.half_open_failed = 0
        self._open = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self.errors: list[str] = []

    # -- control ---------------------------------------------------------------------

    def __enter__(self) -> Attacks:
        self._thread = threading.Thread(target=self._run, name="attacks", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(30)
            self._thread = None

    def wait_started(self, timeout: float = 60.0) -> None:
        """Until every attack is on: the half-open connections open, a viewer closed for
        flooding, a 100 MB post refused."""
        deadline = time.monotonic() + timeout
        while not (
            self._open >= self.half_open * 0.9
            and (self.viewer_closes or not self.viewers)
            and (self.posts or not self.posters)
        ):
            if time.monotonic() > deadline:
                raise AssertionError(f"the attacks did not get going: {self.report()}")
            time.sleep(0.05)

    def report(self) -> dict[str, Any]:
        return {
            "viewer_connects": self.viewer_connects,
            "viewer_sent": self.viewer_sent,
            "viewer_closes": list(self.viewer_closes),
            "posts": list(self.posts),
            "post_mb_sent": round(self.post_bytes / 1e6, 1),
            "posts_read_whole": self.posts_read_whole,
            "posts_reset": self.posts_reset,
            "half_open_opened": self.half_open_opened,
            "half_open_open": self._open,
            "half_open_dropped": self.half_open_dropped,
            "half_open_failed": self.half_open_failed,
            "errors": self.errors[:5],
        }

    # -- the attacks -----------------------------------------------------------------

    def _run(self) -> None:
        asyncio.run(self._main())

    @property
    def stopping(self) -> bool:
        return self._stop is None or self._stop.is_set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        tasks = [asyncio.create_task(self._viewer()) for _ in range(self.viewers)]
        tasks += [asyncio.create_task(self._poster(i)) for i in range(self.posters)]
        tasks += [asyncio.create_task(self._sitter(i)) for i in range(self.half_open)]
        self._ready.set()
        await self._stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _viewer(self) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidStatus

        url = f"ws://{self.host}:{self.port}/ws"
        while not self.stopping:
            try:
                async with connect(url, max_size=None, open_timeout=10) as ws:
                    self.viewer_connects += 1
                    drain = asyncio.create_task(_drain(ws))
                    try:
                        while True:
                            await ws.send('{"type": "resync"}')
                            self.viewer_sent += 1
                            await asyncio.sleep(0)
                    except ConnectionClosed as exc:
                        self.viewer_closes.append(exc.rcvd.code if exc.rcvd else None)
                    finally:
                        drain.cancel()
            except InvalidStatus as exc:
                self.viewer_closes.append(exc.response.status_code)
                await asyncio.sleep(0.01)
            except (TimeoutError, OSError) as exc:
                self.errors.append(f"viewer: {exc!r}")
                await asyncio.sleep(0.05)

    async def _poster(self, index: int) -> None:
        chunk = b"{" + b'"k": 1, ' * (1 << 17) + b"}"  # 1 MB of keys
        n = index
        while not self.stopping:
            method, path = ROUTES[n % len(ROUTES)]
            chunked = n % 3 == 2
            n += 1
            try:
                code = await self._post(method, path, chunk, chunked)
            except ConnectionResetError:
                # The server closed with the body unread: the kernel reset the connection
                # before the attacker read the answer (refused all the same).
                self.posts_reset += 1
                continue
            except (TimeoutError, OSError, ValueError, IndexError) as exc:
                self.errors.append(f"post {path}: {exc!r}")
                await asyncio.sleep(0.05)
                continue
            self.posts.append(code)

    async def _post(self, method: str, path: str, chunk: bytes, chunked: bool) -> int:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        answer: asyncio.Task[bytes] | None = None
        try:
            framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {HUNDRED_MB}"
            writer.write(
                f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                f"Content-Type: application/json\r\n{framing}\r\n\r\n".encode()
            )
            answer = asyncio.create_task(reader.read(65536))
            sent = 0
            with contextlib.suppress(OSError):
                while sent < HUNDRED_MB and not answer.done():
                    piece = b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk
                    writer.write(piece)
                    await writer.drain()
                    sent += len(chunk)
                    self.post_bytes += len(chunk)
            async with asyncio.timeout(30):
                head = await answer
            if sent >= HUNDRED_MB:
                self.posts_read_whole += 1
            return int(head.split(b" ", 2)[1])
        finally:
            if answer is not None:
                if not answer.done():
                    answer.cancel()
                elif not answer.cancelled():
                    answer.exception()  # retrieved: no "exception never retrieved" later
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def _sitter(self, index: int) -> None:
        while not self.stopping:
            try:
                # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancel.
                async with asyncio.timeout(30):
                    reader, writer = await asyncio.open_connection(self.host, self.port)
            except (TimeoutError, OSError):
                self.half_open_failed += 1
                await asyncio.sleep(0.2)
                continue
            self.half_open_opened += 1
            self._open += 1
            try:
                if index % 2:
                    writer.write(b"POST /api/command HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                await reader.read()  # b"" once the server drops it
                self.half_open_dropped += 1
            except OSError:
                self.half_open_dropped += 1
            finally:
                self._open -= 1
                writer.close()
            await asyncio.sleep(0.05)


async def _drain(ws: Any) -> None:
    with contextlib.suppress(Exception):
        async for _message in ws:
            pass
