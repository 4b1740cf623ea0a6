"""The panel's FastAPI app: pages, the JSON API, the WebSocket.

``create_app(controller, pin)`` serves one game. The controller stays the
one owner of the game's state; the app only hands taps to the runtime's
host-command service and says its answer in HTTP (``gate.py``), and turns
snapshots into WebSocket messages (``hub.py``).

Host routes (every method but GET/HEAD/OPTIONS, and the host-only reads)
need the session cookie that ``POST /api/login`` gives for the PIN; a small
ASGI middleware refuses them before any body is read, so no request made
without the PIN can act, whatever it carries. Viewer pages, ``GET
/api/state`` and the WebSocket need no PIN and cannot act.

Outside everything, :class:`~buzzer.web_limits.BodyLimit` bounds every
request's body before a byte of it is read (413), and the WebSocket's
messages are rate-limited by the hub (:class:`~buzzer.panel.hub.SocketPolicy`).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import Depends, FastAPI, Request, WebSocket
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.security import APIKeyCookie
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import cookie_parser

from buzzer import __version__, words
from buzzer.journal.store import JournalWriteError
from buzzer.panel import messages
from buzzer.panel.auth import COOKIE, PinGuard
from buzzer.panel.gate import CommandGate, SeatError
from buzzer.panel.hub import POLICY_VIOLATION, PanelHub, SocketPolicy, StateReply
from buzzer.panel.limits import DEFAULT_LIMIT, ROUTE_LIMITS, TOO_LARGE_BODY
from buzzer.panel.models import (
    CommandLog,
    CommandRequest,
    CommandResult,
    DismissRequest,
    ErrorBody,
    LoginRequest,
    PressRequest,
    SessionInfo,
    StateBody,
    StuckRequest,
)
from buzzer.runtime.controller import Controller
from buzzer.runtime.refusals import journal_failed
from buzzer.runtime.runtime import Runtime
from buzzer.web_headers import REPORT_CSP, HostRule, SecurityHeaders
from buzzer.web_limits import BodyLimit

STATIC = Path(__file__).parent / "static"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: Reads that only the host may make (they show hidden final stakes).
HOST_READS = frozenset({"/api/commands"})

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass
class Panel:
    """What one served game's panel is made of (``app.state.panel``)."""

    controller: Controller
    runtime: Runtime
    hub: PanelHub
    gate: CommandGate
    guard: PinGuard
    simulate: bool
    #: The scheme a host's page is served by ("https" only behind HTTPS, secure_cookie).
    scheme: str = "http"

    # -- the alert API for the hardware layer --------------------------------

    def stuck_button(self, seat: int, held_ms: int | None = None) -> None:
        """A button has been held down too long (thread-safe)."""
        self.hub.alert("stuck", seat, held_ms=held_ms)

    def button_released(self, seat: int) -> None:
        """The stuck button came up: take its alert down (thread-safe)."""
        self.hub.clear_alerts("stuck", seat)

    # -- who may open a WebSocket -------------------------------------------------

    def is_host(self, headers: list[tuple[bytes, bytes]]) -> bool:
        """Whether a request's headers carry the host's session (from the host's page)."""
        return same_origin(headers, self.scheme) and self.guard.valid(session_token(headers))

    def admits_socket(self, address: str | None, headers: list[tuple[bytes, bytes]]) -> bool:
        """Whether a WebSocket from ``address`` may be served: the host's always; a
        viewer's unless too many are open or its address flooded a moment ago. (The
        server asks before the handshake, ``connections.GuardedH11Protocol``: a
        refused flooder costs a 403 written by hand, not a handshake.)"""
        return self.hub.admit(self.is_host(headers), address)


def same_origin(headers: list[tuple[bytes, bytes]], scheme: str = "http") -> bool:
    """False when a browser says the request comes from another site's page: the
    Origin must be this very ``scheme://host:port`` (https://… is another origin
    than the http:// server's)."""
    found = {k: v for k, v in headers if k in (b"origin", b"host")}
    origin = found.get(b"origin")
    if origin is None or origin == b"null":
        return origin is None
    parts = urlsplit(origin.decode("latin-1"))
    return (
        parts.scheme.lower() == scheme
        and parts.netloc.lower() == found.get(b"host", b"").decode("latin-1").lower()
    )


def session_token(headers: list[tuple[bytes, bytes]]) -> str | None:
    for key, value in headers:
        if key == b"cookie":
            token = cookie_parser(value.decode("latin-1")).get(COOKIE)
            if token:
                return token
    return None


class HostGuard:
    """ASGI middleware: a host route without a valid session gets 401 before anything else."""

    def __init__(self, app: ASGIApp, guard: PinGuard, scheme: str = "http") -> None:
        self.app = app
        self.guard = guard
        self.scheme = scheme

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path: str = scope["path"]
            acts = scope["method"] not in SAFE_METHODS
            if acts or path in HOST_READS:
                headers = scope["headers"]
                refusal: tuple[int, messages.Message] | None = None
                if acts and not same_origin(headers, self.scheme):
                    refusal = (403, messages.FOREIGN_ORIGIN)
                elif path != "/api/login" and not self.guard.valid(session_token(headers)):
                    refusal = (401, messages.PIN_REQUIRED)
                if refusal is not None:
                    response = JSONResponse(
                        refusal[1].body(),
                        status_code=refusal[0],
                        headers={"WWW-Authenticate": 'PIN realm="svoyak"'}
                        if refusal[0] == 401
                        else None,
                    )
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)


_cookie_scheme = APIKeyCookie(
    name=COOKIE,
    auto_error=False,
    description="the host's session: POST /api/login with the PIN sets it",
)


async def _host_session(token: str | None = Depends(_cookie_scheme)) -> None:
    """Documents the cookie in the OpenAPI schema (HostGuard enforces it)."""


HOST = [Depends(_host_session)]
TOO_LARGE: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "the body is larger than the route takes"},
}
REFUSALS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "no valid host session: log in with the PIN"},
    403: {"model": ErrorBody, "description": "the request came from another site's page"},
    **TOO_LARGE,
}


def create_app(
    game: Controller | Runtime,
    pin: str,
    *,
    simulate: bool = False,
    tick: bool = True,
    max_pin_failures: int = 5,
    pin_window_s: float = 60.0,
    pin_clock: Callable[[], float] = time.monotonic,
    secure_cookie: bool = False,
    static_dir: Path = STATIC,
    socket_policy: SocketPolicy | None = None,
    allowed_hosts: tuple[str, ...] = (),
    report: Callable[[str], str] | None = None,
) -> FastAPI:
    """The panel of one game: ``game`` is the live :class:`Runtime`, or a controller.

    Given a controller, the app makes the runtime and runs its thread while
    it serves (``tick=False``: the caller steps it by hand, as tests with an
    injected clock do); given a runtime, its owner (``svoyak run``) starts
    and stops it. ``pin``: 6 digits (``auth.new_pin()`` draws one).
    ``simulate``: add the demo's simulated buttons (``/api/simulate/*``).
    ``pin_clock``: the PIN guard's clock (its windows and backoffs); a test steps it
    instead of sleeping, so that a loaded machine cannot stretch a window.
    ``secure_cookie``: mark the session cookie Secure (only behind HTTPS).
    ``socket_policy``: what a WebSocket may send (the hub's defaults).
    ``allowed_hosts``: more names the ``Host`` header may give (a proxy's), besides
    this machine's addresses, loopback and ``svoyak.local`` (``headers.HostRule``).
    ``report``: ``report(lang)`` → the game's report page (``svoyak run`` passes
    ``buzzer.report``'s, a layer above the panel); served at ``/report``.
    """
    owned = isinstance(game, Controller)
    runtime = Runtime(game) if isinstance(game, Controller) else game
    controller = runtime.controller
    hub = PanelHub(runtime.commands, policy=socket_policy)
    guard = PinGuard(pin, max_failures=max_pin_failures, window_s=pin_window_s, clock=pin_clock)
    guard.on_end = hub.end_sessions  # a session ended: its host sockets close (1008)
    runtime.on_journal(hub.journal_state)  # a full disk: the host's alert (journal_outage.py)
    scheme = "https" if secure_cookie else "http"
    panel = Panel(controller, runtime, hub, CommandGate(runtime), guard, simulate, scheme)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub.attach(asyncio.get_running_loop())
        if owned and tick:
            runtime.start()
        try:
            yield
        finally:
            if owned and tick:
                runtime.stop()
            await hub.close_all()

    app = FastAPI(
        title="svoyak host panel",
        version=__version__,
        description="The host's tablet panel of «Своя игра»: host commands (PIN), "
        "the read-only state, and live updates over the WebSocket /ws (see docs/panel.md).",
        lifespan=lifespan,
        # FastAPI's /docs and /redoc pages load their scripts from a CDN: the panel
        # works offline, so only the schema itself is published.
        docs_url=None,
        redoc_url=None,
    )
    app.state.panel = panel
    app.add_middleware(HostGuard, guard=guard, scheme=scheme)
    app.add_middleware(
        BodyLimit, limits=ROUTE_LIMITS, default=DEFAULT_LIMIT, refusal=TOO_LARGE_BODY
    )
    # Added last: the outermost: a wrong Host is refused first; every response gets
    # the CSP, X-Frame-Options and nosniff (buzzer/web_headers.py).
    app.add_middleware(SecurityHeaders, hosts=HostRule(allowed_hosts))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": e.get("type")}
            # At most 20: a body of a thousand unknown keys gets a short answer.
            for e in exc.errors()[:20]
        ]
        where = "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in errors[:5])
        return JSONResponse(
            {
                "detail": errors,
                "message": words.tr("refusal.invalid_request", "ru", where=where),
                "message_en": words.tr("refusal.invalid_request", "en", where=where),
            },
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 400:
            # A body that is not even JSON (FastAPI's 400): one more invalid request.
            return JSONResponse(
                {
                    "detail": [
                        {
                            "loc": ["body"],
                            "msg": "the body could not be read",
                            "type": "json_invalid",
                        }
                    ],
                    "message": words.tr("refusal.unreadable_body", "ru"),
                    "message_en": words.tr("refusal.unreadable_body", "en"),
                },
                status_code=422,
            )
        return await http_exception_handler(request, exc)

    # -- pages ---------------------------------------------------------------

    def page(name: str) -> FileResponse:
        return FileResponse(static_dir / name, headers={"Cache-Control": "no-cache"})

    @app.get("/", include_in_schema=False)
    async def host_page() -> FileResponse:
        return page("host.html")

    @app.get("/view", include_in_schema=False)
    async def viewer_page() -> FileResponse:
        return page("view.html")

    words_script = words.script("panel").encode("utf-8")

    @app.get("/words.js", include_in_schema=False)
    async def page_words() -> Response:
        """The pages' words, from the one catalogue (``buzzer/words``), as a script
        of their own: the pages' policy forbids inline script."""
        return Response(
            words_script,
            media_type="text/javascript; charset=utf-8",
            headers={"Cache-Control": "no-cache"},
        )

    if report is not None:

        @app.get("/report", include_in_schema=False)
        async def report_page(request: Request, lang: str = "ru") -> Response:
            """The game's report: anyone's once the game is over (the board's
            QR code leads here), the host's alone before (it would show the answers)."""
            over = controller.snapshot().get("stage") == "over"
            if not over and not panel.is_host(list(request.scope["headers"])):
                return JSONResponse(
                    {
                        "detail": {
                            "code": "report_not_yet",
                            "message": words.tr("refusal.report_not_yet", "ru"),
                            "message_en": words.tr("refusal.report_not_yet", "en"),
                        }
                    },
                    status_code=403,
                )
            page = await asyncio.to_thread(report, "en" if lang == "en" else "ru")
            return Response(
                page,
                media_type="text/html; charset=utf-8",
                headers={"Content-Security-Policy": REPORT_CSP, "Cache-Control": "no-store"},
            )

    app.mount("/static", StaticFiles(directory=static_dir), name="static")

    # -- public reads --------------------------------------------------------

    @app.get("/api/state", response_model=StateBody, tags=["viewer"])
    async def state() -> StateReply:
        """The game's snapshot and the panel-level state (no PIN needed)."""
        return {"snapshot": controller.snapshot(), "panel": hub.panel_state(host=False)}

    @app.get("/api/session", response_model=SessionInfo, tags=["host"])
    async def session(request: Request) -> dict[str, Any]:
        """Whether this browser holds a host session."""
        return {"host": guard.valid(request.cookies.get(COOKIE))}

    # -- the host ------------------------------------------------------------

    @app.post(
        "/api/login",
        response_model=SessionInfo,
        tags=["host"],
        responses={
            401: {"model": ErrorBody, "description": "wrong PIN"},
            403: REFUSALS[403],
            **TOO_LARGE,
            429: {"model": ErrorBody, "description": "too many PIN attempts: wait"},
        },
    )
    async def login(body: LoginRequest, request: Request) -> JSONResponse:
        """Trade the PIN for the host's session cookie (HttpOnly, SameSite=Strict)."""
        client = request.client.host if request.client else "?"
        wait = guard.retry_after(client)
        if wait:
            return JSONResponse(
                messages.rate_limited(wait).body(),
                status_code=429,
                headers={"Retry-After": str(wait)},
            )
        token = guard.login(client, body.pin)
        if token is None:
            return JSONResponse(messages.WRONG_PIN.body(), status_code=401)
        response = JSONResponse({"host": True})
        response.set_cookie(
            COOKIE,
            token,
            max_age=int(guard.session_s),
            httponly=True,
            samesite="strict",
            secure=secure_cookie,
            path="/",
        )
        return response

    @app.post(
        "/api/logout",
        response_model=SessionInfo,
        tags=["host"],
        dependencies=HOST,
        responses=REFUSALS,
    )
    async def logout(request: Request, everywhere: bool = False) -> JSONResponse:
        """End this browser's session (``?everywhere=true``: every host session), and
        close its host sockets at once (1008)."""
        if everywhere:
            guard.logout_all()
        else:
            guard.logout(request.cookies.get(COOKIE))
        response = JSONResponse({"host": False})
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
        return response

    @app.post(
        "/api/command",
        response_model=CommandResult,
        tags=["host"],
        dependencies=HOST,
        responses={
            **REFUSALS,
            409: {
                "model": ErrorBody,
                "description": "refused: the state moved on (stale), the game refuses it "
                "now, the game is paused, or the id was used for another command",
            },
        },
    )
    async def command(body: CommandRequest) -> JSONResponse:
        """One host command, applied once per id (see docs/panel.md)."""
        try:
            outcome = await panel.gate.execute_async(body)
        except SeatError as exc:
            return JSONResponse(
                {
                    "detail": [
                        {
                            "loc": ["body", "command", exc.field],
                            "msg": exc.en,
                            "type": "value_error",
                        }
                    ],
                    "message": exc.ru,
                    "message_en": exc.en,
                },
                status_code=422,
            )
        headers = {"X-Svoyak-Repeat": "1"} if outcome.repeat else None
        return JSONResponse(outcome.body, status_code=outcome.status, headers=headers)

    @app.get(
        "/api/commands",
        response_model=CommandLog,
        tags=["host"],
        dependencies=HOST,
        responses=REFUSALS,
    )
    async def command_log() -> dict[str, Any]:
        """The recent host commands, newest first, with the journal lines undo names."""
        return {"commands": hub.command_log()}

    @app.post(
        "/api/alerts/dismiss",
        response_model=StateBody,
        tags=["host"],
        dependencies=HOST,
        responses=REFUSALS,
    )
    async def dismiss(body: DismissRequest) -> StateReply:
        """Take down one alert (by id) or all of them (id null)."""
        hub.dismiss(body.id)
        return {"snapshot": controller.snapshot(), "panel": hub.panel_state(host=False)}

    if simulate:

        @app.get("/api/simulate", tags=["demo"])
        async def simulated() -> dict[str, bool]:
            """The game's buttons are simulated: the host's page shows a press button
            per player (404 when real buttons are attached)."""
            return {"simulate": True}

        @app.post(
            "/api/simulate/press",
            tags=["demo"],
            dependencies=HOST,
            responses={**REFUSALS, 422: {"description": "no such seat"}},
        )
        async def simulate_press(body: PressRequest) -> JSONResponse:
            """Demo and tests only: a player's button goes down now."""
            players = len(controller.core.setup.players)
            if body.seat > players:
                ru, en = messages.no_such_seat(body.seat, players)
                return JSONResponse(
                    {
                        "detail": [{"loc": ["body", "seat"], "msg": en, "type": "value_error"}],
                        "message": ru,
                        "message_en": en,
                    },
                    status_code=422,
                )
            try:
                accepted = await asyncio.wrap_future(runtime.press(body.seat))
            except JournalWriteError as exc:
                # Not recorded, so not pressed: the host is told why (a full disk).
                return JSONResponse(journal_failed(exc).body(), status_code=503)
            return JSONResponse(
                {
                    "ok": True,
                    "line": accepted.line,
                    "decisions": [json.loads(d.to_json()) for d in accepted.decisions],
                }
            )

        @app.post(
            "/api/simulate/stuck",
            response_model=StateBody,
            tags=["demo"],
            dependencies=HOST,
            responses=REFUSALS,
        )
        async def simulate_stuck(body: StuckRequest) -> StateReply:
            """Demo and tests only: raise (or clear) a stuck-button alert."""
            if body.stuck:
                panel.stuck_button(body.seat)
            else:
                panel.button_released(body.seat)
            return {"snapshot": controller.snapshot(), "panel": hub.panel_state(host=False)}

    @app.websocket("/ws")
    async def live(websocket: WebSocket) -> None:
        """A snapshot on connect, then every update (docs/panel.md)."""
        headers = websocket.scope["headers"]
        host = panel.is_host(headers)
        address = websocket.client.host if websocket.client else None
        if not hub.admit(host, address):
            # Before the handshake completes: the client gets a plain 403.
            await websocket.close(code=POLICY_VIOLATION)
            return
        await websocket.accept()

        async def incoming() -> str | None:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return None
            return str(message.get("text") or "")

        token = session_token(headers) if host else None
        if host and not guard.valid(token):
            # logged out during the handshake (serve registers the socket with no await
            # in between: a later logout closes it)
            await websocket.close(code=POLICY_VIOLATION)
            return
        await hub.serve(websocket, host, incoming, address, token)

    return app
