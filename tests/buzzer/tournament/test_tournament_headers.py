"""Issue 36 item 7: every response of the tournament server carries the CSP (no inline
script or style), X-Frame-Options: DENY and nosniff; the standings page works in a real
headless Chromium with the CSP on (it polls and redraws) and logs no violation."""

from __future__ import annotations

import datetime
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
from tests.buzzer.panel.test_panel_e2e import TIMEOUT_MS, browser
from tests.buzzer.panel.test_panel_headers import no_violation, watched
from tests.buzzer.tournament.test_tournament_server import TEAMS, journal

__all__ = ["browser"]


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
    with httpx.Client(base_url=url, timeout=10.0) as client:
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
