"""Request bodies are bounded before they are read: 413, never a parse of megabytes.

The one body limiter of svoyak's two web servers (the host's panel and the
tournament server), a pure ASGI middleware outside everything else of an app:

- a ``Content-Length`` above the route's limit (or not a number), or any body
  on a GET, is answered 413 at once, from the headers alone: not one byte of
  it is read;
- a streamed (chunked) body is counted as it comes: past the limit the
  request is answered 413 and the app is told the client has gone;
- any response sent while the request's body has not been read to its end
  (a 401 before the body, a 413) says ``Connection: close``, so the server
  drops the connection instead of draining the rest of the body.

Each server gives its limits and the words of its 413 (``buzzer/panel/limits.py``,
``buzzer/tournament/server.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Event = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Event]]
Send = Callable[[Event], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Methods whose requests carry no body: any body at all is refused.
BODILESS = frozenset({"GET", "HEAD", "OPTIONS"})


class BodyLimit:
    """ASGI middleware: at most ``limits[path]`` (else ``default``) bytes of body.

    ``refusal``: the JSON body of the 413 (each server says it in its own words).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        default: int,
        refusal: bytes,
        limits: Mapping[str, int] | None = None,
    ) -> None:
        self.app = app
        self.limits = dict(limits or {})
        self.default = default
        self.refusal = refusal

    def limit(self, path: str) -> int:
        return self.limits.get(path, self.default)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit(scope["path"])
        declared: int | None = None
        streamed = False
        for key, value in scope["headers"]:
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = limit + 1
            elif key == b"transfer-encoding":
                streamed = True
        if declared is not None and declared > limit:
            await refuse(send, self.refusal)
            return
        if scope["method"] in BODILESS and (streamed or declared):
            await refuse(send, self.refusal)  # a read sends no body: one that does is an attack
            return
        state = _Body(pending=streamed or bool(declared))

        async def limited_receive() -> Event:
            if state.refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                state.received += len(message.get("body", b""))
                if state.received > limit:
                    state.refused = True
                    if not state.started:
                        state.started = True
                        await refuse(send, self.refusal)
                    return {"type": "http.disconnect"}
                if not message.get("more_body", False):
                    state.pending = False
            return message

        async def guarded_send(message: Event) -> None:
            if state.refused:
                return  # the 413 went out instead of whatever the app answers now
            if message["type"] == "http.response.start":
                state.started = True
                if state.pending:
                    headers = list(message.get("headers", []))
                    headers.append((b"connection", b"close"))
                    message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            if not state.refused:
                raise


class _Body:
    __slots__ = ("pending", "received", "refused", "started")

    def __init__(self, pending: bool) -> None:
        self.pending = pending
        self.received = 0
        self.refused = False
        self.started = False


async def refuse(send: Send, body: bytes) -> None:
    """413, and the connection is closed after it (the rest of the body is never read)."""
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})
