"""Issue 36 item 7: the Host header, the Origin's scheme, and the security headers,
through a real uvicorn on 127.0.0.1, and the pages in a real headless Chromium with
the Content-Security-Policy on (no violation logged, the pages still work)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from buzzer.web_headers import CSP
from tests.buzzer.panel.test_panel_e2e import TIMEOUT_MS
from tests.support.http import http_client
from tests.support.panel_support import PIN, Rig, panel_rig


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    with panel_rig(tmp_path) as rig:
        yield rig


def secured(response: httpx.Response) -> None:
    assert response.headers.get("content-security-policy") == CSP, response.headers
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP
    assert response.headers.get("x-frame-options") == "DENY"
    assert response.headers.get("x-content-type-options") == "nosniff"


def test_a_foreign_host_header_is_refused_and_the_servers_own_names_are_not(rig: Rig) -> None:
    port = rig.server.port
    with http_client(base_url=rig.url, timeout=10.0) as client:
        for host in (
            f"evil.example:{port}",
            "evil.example",
            f"svoyak.local.evil.example:{port}",
            f"127.0.0.1:{port + 1}",
            f"localhost:{port + 1}",
            "127.0.0.1",
        ):
            for path in ("/", "/view", "/api/state"):
                response = client.get(path, headers={"Host": host})
                assert response.status_code == 400, (host, path, response.text)
                assert response.json()["detail"]["code"] == "wrong_host"
                secured(response)
            refused = client.post("/api/login", json={"pin": PIN}, headers={"Host": host})
            assert refused.status_code == 400, host
        for host in (
            f"127.0.0.1:{port}",
            f"localhost:{port}",
            f"LocalHost:{port}",
            f"svoyak.local:{port}",
            f"svoyak-2.local:{port}",
            f"127.0.1.1:{port}",
            f"{socket.gethostname()}:{port}",
            f"{socket.gethostname()}.local:{port}",
        ):
            response = client.get("/api/state", headers={"Host": host})
            assert response.status_code == 200, (host, response.text)
        login = client.post("/api/login", json={"pin": PIN}, headers={"Host": f"localhost:{port}"})
        assert login.status_code == 200, login.text


def _upgrade(port: int, host: str) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            (
                "GET /ws HTTP/1.1\r\n"
                f"Host: {host}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode("ascii")
        )
        return sock.recv(200)


def test_a_websocket_with_a_foreign_host_is_refused(rig: Rig) -> None:
    port = rig.server.port
    assert _upgrade(port, f"evil.example:{port}").startswith(b"HTTP/1.1 403"), "foreign host"
    assert _upgrade(port, f"127.0.0.1:{port}").startswith(b"HTTP/1.1 101")


def test_an_https_origin_is_another_origin_than_the_http_servers(rig: Rig) -> None:
    port = rig.server.port
    with http_client(base_url=rig.url, timeout=10.0) as client:
        for origin in (f"https://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"):
            refused = client.post("/api/login", json={"pin": PIN}, headers={"Origin": origin})
            assert refused.status_code == 403, (origin, refused.text)
            assert refused.json()["detail"]["code"] == "foreign_origin"
        accepted = client.post(
            "/api/login", json={"pin": PIN}, headers={"Origin": f"http://127.0.0.1:{port}"}
        )
        assert accepted.status_code == 200, accepted.text


def test_every_page_and_response_carries_the_three_headers(rig: Rig) -> None:
    client = rig.client()
    try:
        for path in (
            "/",
            "/view",
            "/api/state",
            "/api/session",
            "/static/host.js",
            "/static/panel.css",
            "/openapi.json",
            "/no-such-page",
            "/api/commands",
        ):
            secured(client.get(path))
        secured(client.post("/api/command", json={}))  # 422
    finally:
        client.close()
    with http_client(base_url=rig.url, timeout=10.0) as anonymous:
        secured(anonymous.get("/api/commands"))  # 401


# -- in Chromium ---------------------------------------------------------------------

WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(e.violatedDirective + " " + e.blockedURI);
});
"""


def watched(context: Any) -> tuple[Any, list[str]]:
    """A page that records CSP violations, page errors and console errors."""
    problems: list[str] = []
    page = context.new_page()
    page.add_init_script(WATCH)
    page.on("pageerror", lambda exc: problems.append(f"pageerror: {exc}"))
    page.on(
        "console",
        lambda msg: (
            problems.append(f"console: {msg.text}")
            if msg.type == "error" or "Content Security Policy" in msg.text
            else None
        ),
    )
    return page, problems


def no_violation(page: Any, problems: list[str]) -> None:
    assert page.evaluate("window.__csp") == []
    assert problems == []


def test_the_pages_work_in_chromium_with_the_csp_on(browser: Any, rig: Rig) -> None:
    context = browser.new_context(viewport={"width": 1180, "height": 820})
    context.set_default_timeout(TIMEOUT_MS)
    viewer, viewer_problems = watched(context)
    shown = viewer.goto(rig.url + "/view")
    assert shown.headers.get("content-security-policy") == CSP
    viewer.wait_for_selector(".player[data-seat='2']")

    host, host_problems = watched(context)
    shown = host.goto(rig.url + "/")
    assert shown.headers.get("content-security-policy") == CSP
    host.wait_for_selector("#login:not([hidden])")
    for digit in PIN:
        host.click(f"[data-digit='{digit}']")
    host.click("#pin-go")
    host.wait_for_selector("#game:not([hidden])")
    # The board's grid takes its columns from a style set by the script (the CSSOM).
    columns = host.evaluate(
        "getComputedStyle(document.querySelector('.cell[data-theme=\"2\"]').parentElement)"
        ".getPropertyValue('--cols')"
    )
    assert columns.strip(), "the board's --cols style was not applied"
    host.click(".cell[data-theme='2'][data-price='300']")
    host.click("#reading-start")
    host.wait_for_selector("#phase[data-phase='reading']")
    host.click("#reading-end")
    host.wait_for_selector("#phase[data-phase='open']")
    no_violation(host, host_problems)
    no_violation(viewer, viewer_problems)
    context.close()
