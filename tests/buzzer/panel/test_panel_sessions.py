"""Viewer sockets capped per address and overall, and host sessions that end for real
(issue 36, items 1 and 3): a real uvicorn on 127.0.0.1, clients on other loopback
addresses (all of 127.0.0.0/8 is loopback on Linux)."""

from __future__ import annotations

import contextlib
import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from buzzer.panel.auth import COOKIE, MAX_SESSIONS
from buzzer.panel.hub import SocketPolicy
from tests.support.panel_support import Commands, Rig, panel_rig, wait_for

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="127.0.0.0/8 is loopback on Linux only"
)


def viewer(rig: Rig, source: str, cookie: str | None = None) -> ClientConnection:
    """A socket to ``/ws`` from the loopback address ``source``; its first state read."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.settimeout(10)
    sock.connect((rig.server.host, rig.server.port))
    headers = {"Cookie": f"{COOKIE}={cookie}"} if cookie else None
    try:
        ws = connect(rig.ws_url, sock=sock, additional_headers=headers, open_timeout=10)
    except BaseException:
        sock.close()
        raise
    ws.__enter__()  # the caller closes it (a ``with`` of its own)
    assert json.loads(ws.recv(timeout=15))["type"] == "state"
    return ws


def refused(rig: Rig, source: str) -> int:
    with pytest.raises(InvalidStatus) as caught:
        viewer(rig, source).close()
    return caught.value.response.status_code


def closed_with(ws: ClientConnection) -> tuple[int | None, list[str]]:
    """Read until the server closes: its close code and what came before it."""
    got: list[str] = []
    with contextlib.suppress(ConnectionClosed):
        while True:
            got.append(str(ws.recv(timeout=15)))
    return (ws.close_code, got)


@contextlib.contextmanager
def logged_in(rig: Rig) -> Iterator[httpx.Client]:
    client = rig.client()
    try:
        yield client
    finally:
        client.close()


def test_one_address_with_64_idle_viewers_does_not_lock_the_others_out(tmp_path: Path) -> None:
    policy = SocketPolicy()
    with panel_rig(tmp_path) as rig, contextlib.ExitStack() as stack:
        opened = 0
        for _ in range(64):  # the attack: 64 idle sockets from one address
            try:
                stack.enter_context(viewer(rig, "127.0.0.2"))
                opened += 1
            except InvalidStatus as refusal:
                assert refusal.response.status_code == 403
        assert opened == policy.max_viewers_per_address
        # Before: every other /view was refused (403) while they stayed open.
        for source in ("127.0.0.3", "127.0.0.4", "127.0.0.1"):
            stack.enter_context(viewer(rig, source))
        # … and the host's socket is never counted nor refused.
        with logged_in(rig) as client:
            stack.enter_context(viewer(rig, "127.0.0.2", client.cookies[COOKIE]))


def test_a_full_house_drops_the_oldest_idle_viewer_of_the_busiest_address(
    tmp_path: Path,
) -> None:
    policy = SocketPolicy(max_viewers=5, max_viewers_per_address=3)
    with panel_rig(tmp_path, socket_policy=policy) as rig, contextlib.ExitStack() as stack:
        busy = [stack.enter_context(viewer(rig, "127.0.0.2")) for _ in range(3)]
        quiet = [stack.enter_context(viewer(rig, "127.0.0.3")) for _ in range(2)]
        assert refused(rig, "127.0.0.2") == 403  # its own cap
        busy[0].send(json.dumps({"type": "ping"}))  # the first is not idle now: the second is
        assert json.loads(busy[0].recv(timeout=15))["type"] == "pong"
        with logged_in(rig) as client:  # the host's socket does not fill the house
            stack.enter_context(viewer(rig, "127.0.0.9", client.cookies[COOKIE]))
        stack.enter_context(viewer(rig, "127.0.0.4"))  # a sixth viewer: room is made
        code, _ = closed_with(busy[1])
        assert code == 1013  # try again later
        wait_for(lambda: rig.panel.hub.connections == 6, what="the dropped socket gone")
        for ws in (busy[0], busy[2], *quiet):
            ws.send(json.dumps({"type": "ping"}))
            assert json.loads(ws.recv(timeout=15))["type"] == "pong"


def test_logout_closes_the_sessions_host_socket_at_once(tmp_path: Path) -> None:
    with panel_rig(tmp_path) as rig, logged_in(rig) as leaving, logged_in(rig) as staying:
        host = viewer(rig, "127.0.0.1", leaving.cookies[COOKIE])
        other = viewer(rig, "127.0.0.1", staying.cookies[COOKIE])
        with host, other:
            assert leaving.post("/api/logout").status_code == 200
            # the other session goes on, and sends what only a host sees
            Commands(staying).ok(
                {"type": "correction", "seat": 1, "delta": 7, "reason": "после выхода"}
            )
            code, after = closed_with(host)
            assert code == 1008
            assert not any("после выхода" in text for text in after), after
            assert wait_for(lambda: "после выхода" in str(other.recv(timeout=15)), what="log")
        assert leaving.get("/api/session").json() == {"host": False}


def test_log_out_everywhere_ends_every_session(tmp_path: Path) -> None:
    with panel_rig(tmp_path) as rig, logged_in(rig) as first, logged_in(rig) as second:
        cookies = [first.cookies[COOKIE], second.cookies[COOKIE]]
        with viewer(rig, "127.0.0.1", cookies[0]) as a, viewer(rig, "127.0.0.1", cookies[1]) as b:
            assert first.post("/api/logout", params={"everywhere": "true"}).status_code == 200
            assert closed_with(a)[0] == 1008 and closed_with(b)[0] == 1008
        for cookie in cookies:
            assert httpx.get(
                rig.url + "/api/session", cookies={COOKIE: cookie}, timeout=10
            ).json() == {"host": False}
        assert rig.panel.guard.sessions == 0


def test_a_login_past_the_cap_ends_the_oldest_session(tmp_path: Path) -> None:
    with panel_rig(tmp_path) as rig, contextlib.ExitStack() as stack:
        clients = [stack.enter_context(logged_in(rig)) for _ in range(MAX_SESSIONS)]
        oldest = viewer(rig, "127.0.0.1", clients[0].cookies[COOKIE])
        with oldest:
            newest = stack.enter_context(logged_in(rig))  # the N+1th login
            assert closed_with(oldest)[0] == 1008
        assert clients[0].get("/api/session").json() == {"host": False}
        for client in (*clients[1:], newest):
            assert client.get("/api/session").json() == {"host": True}
        assert rig.panel.guard.sessions == MAX_SESSIONS
