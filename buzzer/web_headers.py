"""What every response of the panel and the tournament server carries, and whom they answer.

:class:`SecurityHeaders` (ASGI middleware) adds to every HTTP response:

* ``Content-Security-Policy`` (:data:`CSP`): scripts, styles, images and
  connections from the server itself only — no inline script, no inline
  style, no ``eval``, no plug-ins, no ``<base>``; no page may frame it.
* ``X-Frame-Options: DENY`` (the older browsers' word for ``frame-ancestors``).
* ``X-Content-Type-Options: nosniff``.

Given a :class:`HostRule`, it also refuses (400, before anything else runs)
an HTTP request or a WebSocket whose ``Host`` header is not an address this
server answers at, with the port it listens on: the shape of a DNS-rebinding
attack, where another site's page reaches the panel under the other site's
name. The names it answers to (:meth:`HostRule.allows`): the address the
connection came in on (one of this machine's, so every LAN address ``svoyak
run`` prints), loopback names and addresses (``localhost``, ``127.x.y.z``,
``[::1]``), the mDNS names ``svoyak.local``, ``svoyak-2.local``, … (the ones
``buzzer.appliance.mdns`` may register), this machine's host name (and
``NAME.local``), and any ``extra`` name given. One rule for both servers: the
panel (``buzzer.panel.app``) and the tournament server
(``buzzer.tournament.server``) differ only in the refusal's words (``refusal``:
the JSON body of the 400; the panel's :data:`WRONG_HOST` by default).
"""

from __future__ import annotations

import ipaddress
import json
import socket
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any

from buzzer.words import tr

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The pages' policy: everything from the server itself, nothing inline.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)

#: A game report's own policy (``svoyak report``'s page, served by the panel at
#: ``/report`` and by the tournament server at ``/games/{id}/report``): one
#: self-contained page, its CSS inline, no script at all. Set on that response,
#: it replaces :data:`CSP` there (:class:`SecurityHeaders` adds only what is missing).
REPORT_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)

HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CSP.encode("ascii")),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
)

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})

WRONG_HOST = {
    "detail": {
        "code": "wrong_host",
        "message": tr("refusal.wrong_host", "ru"),
        "message_en": tr("refusal.wrong_host", "en"),
        "engine": None,
    }
}


def _mdns_names() -> frozenset[str]:
    from buzzer.appliance.mdns import host_names

    return frozenset(f"{name}.local" for name in host_names())


def split_host(value: str) -> tuple[str, int | None] | None:
    """``name[:port]`` → (lower-case name, port or None); None when it is no host at all."""
    value = value.strip().lower()
    if value.startswith("["):
        name, bracket, rest = value.partition("]")
        if not bracket:
            return None
        name += "]"
        port_text = rest[1:] if rest.startswith(":") else None
        if rest and port_text is None:
            return None
    else:
        name, colon, port_text_raw = value.partition(":")
        port_text = port_text_raw if colon else None
    if not name:
        return None
    if port_text is None:
        return name, None
    if not port_text.isdigit() or len(port_text) > 5:
        return None
    return name.rstrip("."), int(port_text)


def _loopback(name: str) -> bool:
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


class HostRule:
    """Which ``Host`` headers a server answers (see the module's doc)."""

    def __init__(self, extra: Iterable[str] = ()) -> None:
        # This machine's own name too (a Pi's raspberrypi and raspberrypi.local, which
        # Avahi answers): only this computer is reached by them.
        own = socket.gethostname().strip().lower().rstrip(".")
        mine = {own, f"{own}.local"} if own else set()
        self.names = set(_mdns_names()) | mine | {n.strip().lower().rstrip(".") for n in extra}

    def allows(self, host: str | None, server: tuple[str, int] | None) -> bool:
        if host is None:
            return False
        parsed = split_host(host)
        if parsed is None:
            return False
        name, port = parsed
        if server is not None:
            local, local_port = server[0].lower(), server[1]
            if (port if port is not None else 80) != local_port:
                return False
            if name.strip("[]") == local:
                return True
        return _loopback(name) or name in self.names


class SecurityHeaders:
    """ASGI middleware: the three headers on every response; the ``Host`` rule if given
    (a wrong ``Host`` gets 400 with ``refusal`` as its JSON body)."""

    def __init__(
        self,
        app: ASGIApp,
        hosts: HostRule | None = None,
        refusal: Mapping[str, Any] = WRONG_HOST,
    ) -> None:
        self.app = app
        self.hosts = hosts
        self.refusal = dict(refusal)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if self.hosts is not None:
            host = next(
                (v.decode("latin-1") for k, v in scope["headers"] if k == b"host"),
                None,
            )
            server = scope.get("server")
            if not self.hosts.allows(host, (str(server[0]), int(server[1])) if server else None):
                if kind == "websocket":
                    # Before the handshake: the client gets a plain 403.
                    await send({"type": "websocket.close", "code": 1008})
                    return
                body = json.dumps(self.refusal, ensure_ascii=False).encode("utf-8")
                await send(
                    {
                        "type": "http.response.start",
                        "status": 400,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode("ascii")),
                            (b"connection", b"close"),
                            *HEADERS,
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        if kind != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in HEADERS if k not in names]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)
