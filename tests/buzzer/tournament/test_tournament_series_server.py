"""The tournament server runs a TV series too (docs/tournament.md#series-formats, SER-SRV-D1).

A room posts a series game's journal to ``/api/rooms/{room}/series/{id}/results``
through a real uvicorn; ``/api/series/{id}`` answers the table and the next
game with its journal header (its carried ``start_scores``, SER-CARRY).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from buzzer.panel.server import BackgroundServer
from buzzer.tournament.series import fold
from buzzer.tournament.server import create_tournament_app, issue_token
from buzzer.tournament.store import TournamentStore
from rules.tournament.series_play import Played
from tests.support.http import http_client

BOARD = {"rules": "sport-no-false-start", "settle_ms": 2, "board": {"themes": 1, "prices": [10]}}


def journal(header: dict[str, Any], right: int) -> list[str]:
    events = [
        {**header, **BOARD},
        {"t": 1.0, "type": "select"},
        {"t": 1.2, "type": "reading_start"},
        {"t": 6.0, "type": "press", "seat": right},
        {"t": 7.0, "type": "judge", "verdict": "correct"},
    ]
    return [json.dumps(e, ensure_ascii=False) for e in events]


@pytest.fixture
def lodge(tmp_path: Path) -> Path:
    """A 2003 lodge played to its final of three carried games."""
    path = tmp_path / "lodge.sqlite"
    with TournamentStore.create(path) as store:
        members = [f"Гроссмейстер {i}" for i in range(1, 10)]
        store.create_series("challenge-cup-2003", 5, members, [f"П{i}" for i in range(200)])
        for _ in range(81 + 6):
            view = fold(store.series(1))
            assert view.next is not None
            store.add_series_event(1, Played(view.next.players, (30, 20, 10), 1))
    return path


@pytest.fixture
def server(lodge: Path) -> Iterator[str]:
    with BackgroundServer(create_tournament_app(lodge)) as background:
        yield background.url


def test_ser_srv_a_room_reports_the_carried_final_game_by_game(lodge: Path, server: str) -> None:
    token = issue_token(lodge, "room-1")
    auth = {"Authorization": f"Bearer {token}"}
    url = f"{server}/api/rooms/room-1/series/1/results"
    with http_client(timeout=10) as client:
        view = client.get(f"{server}/api/series/1").json()
        game = view["next"]
        assert game["label"] == "final, game 1 of 3" and game["start_scores"] is None
        assert client.post(url, json={"game": game["game"], "journal": ["{}"]}).status_code == 401
        bad = client.post(url, headers={"Authorization": "Bearer nope"}, json={})
        assert bad.status_code == 403
        first = {"game": game["game"], "journal": journal(game["header"], right=1)}
        done = client.post(url, json=first, headers=auth)
        assert done.status_code == 201, done.text
        second = done.json()["next"]
        assert second["label"] == "final, game 2 of 3"
        assert second["start_scores"] == [10, 0, 0]
        assert second["header"]["start_scores"] == [10, 0, 0]
        again = client.post(url, json=first, headers=auth)  # the same report twice
        assert again.status_code == 409, again.text
        stale = {"game": second["game"], "journal": journal(game["header"], right=1)}
        refused = client.post(url, json=stale, headers=auth)
        assert refused.status_code == 422 and "SER-CARRY" in refused.json()["detail"]
        missing = client.post(
            f"{server}/api/rooms/room-1/series/7/results", json=first, headers=auth
        )
        assert missing.status_code == 404
        assert client.get(f"{server}/api/series/7").status_code == 404
        for right in (2, 2):
            game = client.get(f"{server}/api/series/1").json()["next"]
            body = {"game": game["game"], "journal": journal(game["header"], right=right)}
            assert client.post(url, json=body, headers=auth).status_code == 201
        final = client.get(f"{server}/api/series").json()["series"][0]
        assert final["next"] is None and final["over"].endswith(
            "wins the main prize (final of 3 games)"
        )
