"""The tournament server over real HTTP (issue 8, item 3): rooms post results with tokens."""

from __future__ import annotations

import datetime
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from buzzer.panel.server import BackgroundServer
from buzzer.tournament.server import create_tournament_app, issue_token
from buzzer.tournament.store import DrawnGame, TournamentStore
from rules.tournament.registration import Player

ROOT = Path(__file__).resolve().parent.parent
TOKEN_COMMAND = (
    sys.executable,
    "-m",
    "buzzer.cli",
    "tournament-server",
    "token",
)
TEAMS = {
    "Red": ["Аня", "Борис", "Вера"],
    "Green": ["Глеб", "Дина", "Ефим"],
    "Blue": ["Жанна", "Зоя", "Игорь"],
}
HEAD = {
    "type": "game",
    "rules": "sport-no-false-start",
    "settle_ms": 2,
    "board": {"themes": 1, "prices": [10]},
}


def journal(players: tuple[str, ...], right: int, finished: bool = True) -> list[str]:
    """A one-question game: seat ``right`` answers correctly (+10)."""
    events: list[dict[str, object]] = [{**HEAD, "players": list(players)}]
    events += [{"t": 1.0, "type": "select"}, {"t": 1.2, "type": "reading_start"}]
    if finished:
        events += [
            {"t": 6.0, "type": "press", "seat": right},
            {"t": 7.0, "type": "judge", "verdict": "correct"},
        ]
    return [json.dumps(e, ensure_ascii=False) for e in events]


@pytest.fixture
def cup(tmp_path: Path) -> tuple[Path, tuple[DrawnGame, ...]]:
    path = tmp_path / "cup.sqlite"
    with TournamentStore.create(path, datetime.date(2026, 9, 1)) as store:
        for team, names in TEAMS.items():
            for i, name in enumerate(names):
                store.register(Player(name, datetime.date(2012, i + 1, 15), "Тверь", team))
        games = store.draw_next(seed=7)
    return path, games


@pytest.fixture
def server(cup: tuple[Path, tuple[DrawnGame, ...]]) -> Iterator[str]:
    with BackgroundServer(create_tournament_app(cup[0])) as background:
        yield background.url


def token_command(path: Path, room: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TOKEN_COMMAND, str(path), room],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def recorded(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT COUNT(*) FROM results").fetchone()[0])


def test_room_posts_results_and_standings_follow(
    cup: tuple[Path, tuple[DrawnGame, ...]], server: str
) -> None:
    path, games = cup
    token = issue_token(path, "room-1")
    other = issue_token(path, "room-2")
    game = games[0]
    body = {"game_id": game.id, "journal": journal(game.players, right=2)}
    url = f"{server}/api/rooms/room-1/results"
    with httpx.Client(timeout=10) as client:
        before = client.get(f"{server}/api/standings").json()
        assert before["games_recorded"] == 0

        # No token, a wrong token, another room's token: refused, nothing recorded.
        assert client.post(url, json=body).status_code == 401
        assert client.post(url).status_code == 401  # auth before the body
        assert client.post(url, headers={"Authorization": "Bearer nope"}).status_code == 403
        bad = client.post(url, json=body, headers={"Authorization": "Bearer nope"})
        assert bad.status_code == 403
        assert (
            client.post(url, json=body, headers={"Authorization": f"Bearer {other}"}).status_code
            == 403
        )
        unknown_room = client.post(
            f"{server}/api/rooms/hall/results",
            json=body,
            headers={"Authorization": f"Bearer {token}"},
        )
        assert unknown_room.status_code == 403
        assert recorded(path) == 0

        auth = {"Authorization": f"Bearer {token}"}
        missing = client.post(url, json={**body, "game_id": 999}, headers=auth)
        assert missing.status_code == 404 and "999" in missing.json()["detail"]
        unfinished = {"game_id": game.id, "journal": journal(game.players, 1, finished=False)}
        assert client.post(url, json=unfinished, headers=auth).status_code == 422
        assert client.post(url, json={"game_id": game.id}, headers=auth).status_code == 422
        assert recorded(path) == 0

        done = client.post(url, json=body, headers=auth)
        assert done.status_code == 201, done.text
        seats = {s["name"]: s for s in done.json()["seats"]}
        assert seats[game.players[1]]["place"] == 1 and seats[game.players[1]]["score"] == 10

        again = client.post(url, json=body, headers=auth)
        assert again.status_code == 409
        assert recorded(path) == len(game.players)

        after = client.get(f"{server}/api/standings").json()
        assert after["games_recorded"] == 1 and after["version"] != before["version"]
        row = next(p for p in after["players"] if p["name"] == game.players[1])
        assert row["points"] == 10 and row["games"] == 1
        assert sum(float(t["points"]) for t in after["teams"]) > 0

        tables = client.get(f"{server}/tables")
        assert tables.headers["X-Standings-Version"] == after["version"]

    with sqlite3.connect(path) as db:
        assert db.execute("SELECT room FROM room_reports").fetchall() == [("room-1",)]
        stored = [r[0] for r in db.execute("SELECT token_sha256 FROM room_tokens")]
        assert token not in stored and len(stored) == 2


def test_pages_render_names(cup: tuple[Path, tuple[DrawnGame, ...]], server: str) -> None:
    path, games = cup
    token = issue_token(path, "A")
    game = games[0]
    with httpx.Client(timeout=10) as client:
        client.post(
            f"{server}/api/rooms/A/results",
            json={"game_id": game.id, "journal": journal(game.players, right=1)},
            headers={"Authorization": f"Bearer {token}"},
        ).raise_for_status()
        page = client.get(f"{server}/")
        printable = client.get(f"{server}/print")
    assert page.status_code == 200 and printable.status_code == 200
    for text in (page.text, printable.text):
        for names in TEAMS.values():
            for name in names:
                assert name in text
        assert "Личный зачёт" in text and "Командный зачёт" in text
    assert "<script>" in page.text and "fetch(" in page.text
    assert "<script" not in printable.text and "@page" in printable.text


def test_token_command_prints_a_working_token(
    cup: tuple[Path, tuple[DrawnGame, ...]], server: str
) -> None:
    path, games = cup
    done = token_command(path, "zal-2")
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    game = games[-1]
    response = httpx.post(
        f"{server}/api/rooms/zal-2/results",
        json={"game_id": game.id, "journal": journal(game.players, right=3)},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert response.status_code == 201, response.text
    bad = token_command(path, "bad room")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
