"""Issue 36 item 7: every response of the tournament server carries the CSP (no inline
script or style), X-Frame-Options: DENY and nosniff; the standings page works in a real
headless Chromium with the CSP on (it polls and redraws) and logs no violation; a
request whose Host header is not the server's (DNS rebinding) is refused (400)."""

from __future__ import annotations

import datetime
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from buzzer.panel.server import BackgroundServer
from buzzer.tournament.server import create_tournament_app, issue_token
from buzzer.tournament.store import TournamentStore
from buzzer.web_headers import CSP
from rules.tournament.registration import Player
from tests.buzzer.panel.test_panel_e2e import TIMEOUT_MS
from tests.buzzer.panel.test_panel_headers import no_violation, watched
from tests.buzzer.tournament.test_tournament_server import TEAMS, journal
from tests.support.http import http_client


@pytest.fixture
def cup(tmp_path: Path) -> Iterator[tuple[str, Path, Any]]:
    path = tmp_path / "cup.sqlite"
    with TournamentStore.create(path, datetime.date(2026, 9, 1)) as store:
        for team, names in TEAMS.items():
            for i, name in enumerate(names):
                store.register(Player(name, datetime.date(2012, i + 1, 15), "Тверь", team))
        games = store.draw_next(seed=7)
    with BackgroundServer(create_tournament_app(path)) as background:
        yield background.url, path, games


def secured(response: httpx.Response) -> None:
    assert response.headers.get("content-security-policy") == CSP, response.headers
    assert response.headers.get("x-frame-options") == "DENY"
    assert response.headers.get("x-content-type-options") == "nosniff"


def test_every_tournament_response_carries_the_three_headers(cup: tuple[str, Path, Any]) -> None:
    url = cup[0]
    with http_client(base_url=url, timeout=10.0) as client:
        for path in (
            "/",
            "/print",
            "/tables",
            "/api/standings",
            "/standings.js",
            "/standings.css",
            "/print.css",
            "/no-such-page",
        ):
            secured(client.get(path))
        secured(client.post("/api/rooms/a/results", json={}))  # 401
        page = client.get("/").text
        assert "<script>" not in page and "<style>" not in page and " style=" not in page
        assert "<style>" not in client.get("/print").text


def test_the_standings_page_works_in_chromium_with_the_csp_on(
    browser: Any, cup: tuple[str, Path, Any]
) -> None:
    url, path, games = cup
    context = browser.new_context()
    context.set_default_timeout(TIMEOUT_MS)
    page, problems = watched(context)
    shown = page.goto(url + "/")
    assert shown.headers.get("content-security-policy") == CSP
    # The script (a file now) polls: the "updated" stamp appears.
    # (Functions, not expressions: Playwright polls an expression with eval, which the
    # CSP refuses.)
    page.wait_for_function("() => document.getElementById('updated').textContent !== '—'")
    # The style (a file now) applies: the tables' cells have borders.
    border = page.evaluate("getComputedStyle(document.querySelector('th')).borderTopStyle")
    assert border == "solid"
    # A result reported: the page redraws itself.
    game = games[0]
    token = issue_token(path, "a")
    with TournamentStore(path) as store:
        store.assign_room(game.id, "a")
    response = httpx.post(
        f"{url}/api/rooms/a/results",
        headers={"Authorization": f"Bearer {token}"},
        json={"game_id": game.id, "journal": journal(game.players, 1)},
        timeout=10.0,
    )
    assert response.status_code == 201, response.text
    recorded = "document.querySelector('#tables p').textContent"
    assert page.evaluate(recorded).endswith(": 0")
    page.wait_for_function(f"() => {recorded}.endsWith(': 1')")
    printed, print_problems = watched(context)
    printed.goto(url + "/print")
    assert printed.evaluate("getComputedStyle(document.querySelector('th')).borderTopStyle") == (
        "solid"
    )
    no_violation(page, problems)
    no_violation(printed, print_problems)
    context.close()


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def test_a_foreign_host_header_is_refused_and_the_servers_own_names_are_not(
    cup: tuple[str, Path, Any],
) -> None:
    """Issue 36 item 7 on the tournament server: the panel's Host rule (DNS rebinding)."""
    url, path, games = cup
    port = _port(url)
    token = issue_token(path, "a")
    with TournamentStore(path) as store:
        store.assign_room(games[0].id, "a")
    report = {"game_id": games[0].id, "journal": journal(games[0].players, 1)}
    bearer = {"Authorization": f"Bearer {token}"}
    with http_client(base_url=url, timeout=10.0) as client:
        for host in (
            "evil.example",
            f"evil.example:{port}",
            f"svoyak.local.evil.example:{port}",
            f"127.0.0.1:{port + 1}",
            "127.0.0.1",
        ):
            for page in ("/", "/print", "/api/standings", "/standings.js"):
                response = client.get(page, headers={"Host": host})
                assert response.status_code == 400, (host, page, response.text)
                assert "wrong Host header" in response.json()["detail"]
                secured(response)
            # A room's report with the right token: refused before the token is read.
            refused = client.post(
                "/api/rooms/a/results", json=report, headers={**bearer, "Host": host}
            )
            assert refused.status_code == 400, (host, refused.text)
        for host in (
            f"127.0.0.1:{port}",
            f"localhost:{port}",
            f"LocalHost:{port}",
            f"{socket.gethostname()}:{port}",
        ):
            response = client.get("/api/standings", headers={"Host": host})
            assert response.status_code == 200, (host, response.text)
            secured(response)
        # The normal Host (httpx sends 127.0.0.1:PORT): the room's report is recorded.
        recorded = client.post("/api/rooms/a/results", json=report, headers=bearer)
        assert recorded.status_code == 201, recorded.text


def test_a_name_given_as_allowed_host_is_answered_too(tmp_path: Path) -> None:
    path = tmp_path / "cup.sqlite"
    TournamentStore.create(path, datetime.date(2026, 9, 1)).close()
    app = create_tournament_app(path, allowed_hosts=("Cup.Example.",))
    with BackgroundServer(app) as background:
        port = _port(background.url)
        with http_client(base_url=background.url, timeout=10.0) as client:
            assert client.get("/", headers={"Host": f"cup.example:{port}"}).status_code == 200
            assert client.get("/", headers={"Host": f"cup.example:{port + 1}"}).status_code == 400
            assert client.get("/", headers={"Host": f"evil.example:{port}"}).status_code == 400


def test_tournament_server_serve_answers_its_printed_addresses_and_allowed_hosts(
    tmp_path: Path,
) -> None:
    """The real ``svoyak tournament-server serve``: the addresses it prints and an
    ``--allowed-host`` name are answered, another Host is refused (400)."""
    path = tmp_path / "cup.sqlite"
    TournamentStore.create(path, datetime.date(2026, 9, 1)).close()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "buzzer.cli", "tournament-server", "serve", str(path)]
    args = ["--host", "127.0.0.1", "--port", str(port), "--allowed-host", "cup.example"]
    proc = subprocess.Popen(
        [*command, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        printed = [proc.stderr.readline() for _ in range(2)]
        assert f"standings on http://127.0.0.1:{port}/" in printed[0], printed
        assert f"also answers as http://cup.example:{port}/" in printed[1], printed
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                first = httpx.get(url + "/api/standings", timeout=5.0)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and proc.poll() is None, "did not start"
                time.sleep(0.1)
        assert first.status_code == 200
        named = httpx.get(url + "/", headers={"Host": f"cup.example:{port}"}, timeout=5.0)
        assert named.status_code == 200
        evil = httpx.get(url + "/", headers={"Host": f"evil.example:{port}"}, timeout=5.0)
        assert evil.status_code == 400 and "wrong Host header" in evil.json()["detail"]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
