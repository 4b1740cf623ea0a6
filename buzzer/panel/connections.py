"""The panel's uvicorn: how many connections it keeps, and for how long.

A phone on the club's Wi-Fi can open a thousand connections and send half a
request on each. uvicorn's HTTP/1.1 protocol (h11) has no timeout on reading
a request's headers, and its keep-alive timer is reset by any byte, so such
connections stay open for ever: at ~1,000 of them the process runs out of
file descriptors and the host's tablet cannot connect. Here:

- :class:`GuardedH11Protocol` gives every connection a deadline for each
  request (headers and body: ``header_timeout_s`` from the moment it starts
  waiting for one, keep-alive idling included, and bytes trickling in do not
  extend it), and a deadline from the whole request to the whole response
  (``request_timeout_s``: a client that does not read its response is dropped);
- at most ``waiting`` connections may be waiting for a request at once: past
  that, the oldest is closed, first among those that never sent a whole
  request (a half-open flood), then the idle kept-alive ones. A tablet that
  sends its request at once is never the oldest;
- uvicorn's ``limit_concurrency`` (503 beyond it) and the listen backlog are
  bounded too, from the process's file-descriptor limit (:func:`limits_for`),
  which ``svoyak run`` raises to its hard limit at start (:func:`raise_fd_limit`);
- ``X-Forwarded-For`` is never trusted (``proxy_headers=False``): the panel is
  served directly, and a forged header would give every PIN guess a new
  address to be counted against;
- a WebSocket message over ``ws_max_size`` bytes closes the socket (1009), and
  a viewer the app refuses (too many, or a flooder come back: ``hub.SocketPolicy``)
  gets a 403 before the handshake, written here.

:func:`panel_config` is the one uvicorn configuration of the panel: ``svoyak
run``, the tests' :class:`~buzzer.panel.server.BackgroundServer` and the
benchmarks all serve through it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import uvicorn
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

#: The file-descriptor limit ``svoyak run`` asks for (the unit's LimitNOFILE).
WANTED_FDS = 65536
#: Below this many file descriptors ``svoyak run`` warns.
LOW_FDS = 4096


@dataclass(frozen=True)
class ConnectionLimits:
    """The bounds of :func:`panel_config` (the defaults need 4,096 descriptors)."""

    #: Connections waiting for a whole request (new, or idle between requests);
    #: past this the oldest is closed. (An idle connection is a few KB.)
    waiting: int = 1024
    #: Seconds a connection may take to send a whole request, idling included.
    header_timeout_s: float = 5.0
    #: Seconds from a whole request to the whole response having been sent.
    request_timeout_s: float = 20.0
    #: uvicorn's idle keep-alive timeout (the header timeout covers it too).
    keep_alive_s: int = 5
    #: uvicorn's ``limit_concurrency``: requests arriving while this many connections
    #: (waiting ones, WebSockets) or tasks are open get a 503. A last resort: the
    #: caps above keep below it.
    concurrency: int = 2048
    #: The listen backlog: connections the kernel holds until they are accepted.
    backlog: int = 256
    #: The biggest request head (request line and headers) h11 will buffer.
    max_header_bytes: int = 16 * 1024
    #: The biggest WebSocket message a client may send (bytes).
    ws_max_size: int = 4096


def limits_for(fds: int | None) -> ConnectionLimits:
    """The limits that fit in ``fds`` file descriptors (None: unknown, the defaults)."""
    default = ConnectionLimits()
    if fds is None or fds >= LOW_FDS:
        return default
    # The journal, the Pico's port, the mDNS sockets, the board's files: 64 spare;
    # half of the rest for connections waiting for a request, the rest for the
    # sockets and the requests being answered.
    budget = max(32, fds - 64)
    return ConnectionLimits(
        waiting=max(8, min(default.waiting, budget // 2)),
        concurrency=max(16, min(default.concurrency, budget - 16)),
        backlog=min(default.backlog, max(16, budget // 4)),
    )


def raise_fd_limit(wanted: int = WANTED_FDS) -> tuple[int | None, int | None]:
    """Raise the soft file-descriptor limit to the hard one (at most ``wanted``).

    Returns (before, after); (None, None) where there is no such limit (Windows).
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return None, None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            return soft, soft
        return soft, target
    return soft, soft


class SocketGate(Protocol):
    """Who may open a WebSocket (``app.state.panel``: the panel's :class:`Panel`)."""

    def admits_socket(self, address: str | None, headers: list[tuple[bytes, bytes]]) -> bool: ...


_FORBIDDEN = b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


class _Waiting:
    """The connections waiting for a whole request, oldest first; at most ``cap``."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        #: never sent a whole request (dict: insertion-ordered set)
        self.fresh: dict[GuardedH11Protocol, None] = {}
        #: served at least one request, waiting for the next
        self.kept: dict[GuardedH11Protocol, None] = {}

    def add(self, conn: GuardedH11Protocol, fresh: bool) -> None:
        self.discard(conn)
        (self.fresh if fresh else self.kept)[conn] = None
        while len(self.fresh) + len(self.kept) > self.cap:
            pool = self.fresh or self.kept
            oldest = next(iter(pool))
            del pool[oldest]
            oldest.drop()

    def discard(self, conn: GuardedH11Protocol) -> None:
        self.fresh.pop(conn, None)
        self.kept.pop(conn, None)

    def __len__(self) -> int:
        return len(self.fresh) + len(self.kept)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline per request and a cap on waiting connections.

    Use :func:`guarded_protocol` for a class with its own limits and registry
    (one per server).
    """

    limits: ClassVar[ConnectionLimits] = ConnectionLimits()
    waiting: ClassVar[_Waiting] = _Waiting(ConnectionLimits().waiting)
    #: asked before a WebSocket handshake; None: every one is handed to the app
    gate: ClassVar[SocketGate | None] = None

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._deadline: asyncio.TimerHandle | None = None
        #: "waiting" for a whole request, "busy" answering one, "upgraded" to a WebSocket
        self._phase = "waiting"
        self._served = False

    # -- the phases ----------------------------------------------------------------

    def _wait(self) -> None:
        self._phase = "waiting"
        self._arm(self.limits.header_timeout_s)
        self.waiting.add(self, fresh=not self._served)

    def _busy(self) -> None:
        self._phase = "busy"
        self.waiting.discard(self)
        self._arm(self.limits.request_timeout_s)

    def _arm(self, seconds: float) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self.waiting.discard(self)

    def _expired(self) -> None:
        self._deadline = None
        self.drop()

    def drop(self) -> None:
        """Close the connection now (a deadline passed, or it was the oldest waiting)."""
        self.waiting.discard(self)
        if self.transport is not None and not self.transport.is_closing():
            # abort: a response the client does not read must not keep the socket open.
            self.transport.abort()

    # -- uvicorn's hooks -----------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._wait()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._phase = "closed"
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        cycle = self.cycle
        if (
            self._phase == "waiting"
            and cycle is not None
            and not cycle.more_body
            and not cycle.response_complete
        ):
            self._busy()  # the whole request is in: now the app answers it

    def handle_websocket_upgrade(self, event: Any) -> None:
        self._disarm()
        self._phase = "upgraded"  # the WebSocket's own pings and the app's limits take over
        gate = self.gate
        if gate is not None and not gate.admits_socket(
            self.client[0] if self.client else None, self.headers
        ):
            # A viewer refused (a flooder come back, too many viewers): a 403 written
            # here costs a fraction of the handshake and the app's own refusal.
            self.transport.write(_FORBIDDEN)
            self.transport.close()
            return
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        if self._phase == "busy" and not self.transport.is_closing():
            self._served = True
            self._wait()  # before uvicorn reads a pipelined request, which may be whole
        super().on_response_complete()


def guarded_protocol(
    limits: ConnectionLimits, gate: SocketGate | None = None
) -> type[GuardedH11Protocol]:
    """A protocol class of its own (its own registry of waiting connections)."""

    class PanelH11Protocol(GuardedH11Protocol):
        pass

    PanelH11Protocol.limits = limits
    PanelH11Protocol.waiting = _Waiting(limits.waiting)
    PanelH11Protocol.gate = gate
    return PanelH11Protocol


def panel_config(
    app: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    limits: ConnectionLimits | None = None,
    log_level: str = "warning",
) -> uvicorn.Config:
    """The panel's uvicorn configuration (see the module's docstring)."""
    limits = limits or ConnectionLimits()
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,
        lifespan="on",
        # The panel's app (create_app) says who may open a WebSocket.
        http=guarded_protocol(limits, getattr(getattr(app, "state", None), "panel", None)),
        proxy_headers=False,
        forwarded_allow_ips=[],
        limit_concurrency=limits.concurrency,
        backlog=limits.backlog,
        timeout_keep_alive=limits.keep_alive_s,
        h11_max_incomplete_event_size=limits.max_header_bytes,
        ws_max_size=limits.ws_max_size,
    )
