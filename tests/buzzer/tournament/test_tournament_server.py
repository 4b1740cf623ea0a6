"""The tournament server over real HTTP (issue 8, item 3): rooms post results with tokens.

Issue 13's attacks on it, each over a real socket: a room reporting a game
drawn to another room, a journal of other players (or of the right ones in
other seats), a result whose room record fails to be written, bodies too
large to read (by their Content-Length, and chunked), and a journal header
naming a path on the server's disk as its package.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import select
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from buzzer.panel.server import BackgroundServer
from buzzer.tournament.records import DrawnGame
from buzzer.tournament.server import create_tournament_app, issue_token
from buzzer.tournament.store import TournamentStore
from rules.tournament.registration import Player
from tests.support.http import http_client
from tests.support.paths import REPO

ROOT = REPO
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


def journal(
    players: tuple[str, ...] | list[str],
    right: int,
    finished: bool = True,
    head: dict[str, object] | None = None,
) -> list[str]:
    """A one-question game: seat ``right`` answers correctly (+10)."""
    events: list[dict[str, object]] = [{**(head or HEAD), "players": list(players)}]
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


def reports(path: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(path) as db:
        return [(int(g), str(r)) for g, r in db.execute("SELECT game_id, room FROM room_reports")]


def assign(path: Path, game_id: int, room: str) -> None:
    with TournamentStore(path) as store:
        store.assign_room(game_id, room)


def test_room_posts_results_and_standings_follow(
    cup: tuple[Path, tuple[DrawnGame, ...]], server: str
) -> None:
    path, games = cup
    token = issue_token(path, "room-1")
    other = issue_token(path, "room-2")
    game = games[0]
    assign(path, game.id, "room-1")
    body = {"game_id": game.id, "journal": journal(game.players, right=2)}
    url = f"{server}/api/rooms/room-1/results"
    with http_client(timeout=10) as client:
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
    assign(path, game.id, "A")
    with http_client(timeout=10) as client:
        client.post(
            f"{server}/api/rooms/A/results",
            json={"game_id": game.id, "journal": journal(game.players, right=1)},
            headers={"Authorization": f"Bearer {token}"},
        ).raise_for_status()
        page = client.get(f"{server}/")
        printable = client.get(f"{server}/print")
        script = client.get(f"{server}/standings.js")
        print_style = client.get(f"{server}/print.css")
    assert page.status_code == 200 and printable.status_code == 200
    for text in (page.text, printable.text):
        for names in TEAMS.values():
            for name in names:
                assert name in text
        assert "Личный зачёт" in text and "Командный зачёт" in text
    # The script and the styles are files (the CSP allows no inline code).
    assert '<script src="standings.js">' in page.text and "fetch(" in script.text
    assert "<script" not in printable.text and "@page" in print_style.text


def test_token_command_prints_a_working_token(
    cup: tuple[Path, tuple[DrawnGame, ...]], server: str
) -> None:
    path, games = cup
    done = token_command(path, "zal-2")
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    game = games[-1]
    assigned = subprocess.run(
        [*TOKEN_COMMAND[:-1], "assign", str(path), str(game.id), "zal-2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert assigned.returncode == 0, assigned.stderr
    response = httpx.post(
        f"{server}/api/rooms/zal-2/results",
        json={"game_id": game.id, "journal": journal(game.players, right=3)},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert response.status_code == 201, response.text
    bad = token_command(path, "bad room")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


# Issue 13: attacks on the server ---------------------------------------------------


def post(server: str, room: str, token: str, body: object, timeout: float = 10) -> httpx.Response:
    return httpx.post(
        f"{server}/api/rooms/{room}/results",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
        timeout=timeout,
    )


def test_a_room_records_only_the_games_drawn_to_it(tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite"
    with TournamentStore.create(path, datetime.date(2026, 9, 1)) as store:
        for team, names in TEAMS.items():
            for i, name in enumerate(names):
                store.register(Player(name, datetime.date(2012, i + 1, 15), "Тверь", team))
        games = store.draw_next(seed=7, rooms=["room-1", "room-2"])
        assert [g.room for g in store.games()] == ["room-1", "room-2", "room-1"]
    first, second, third = games
    one, two = issue_token(path, "room-1"), issue_token(path, "room-2")
    with BackgroundServer(create_tournament_app(path)) as background:
        server = background.url
        # room-2's own token, on room-2's own URL, for a game drawn to room-1: refused.
        stolen = post(
            server, "room-2", two, {"game_id": first.id, "journal": journal(first.players, 1)}
        )
        assert stolen.status_code == 403, stolen.text
        assert "another room" in stolen.json()["detail"]
        assert recorded(path) == 0 and reports(path) == []

        # A game no room is drawn to cannot be reported by anyone.
        with sqlite3.connect(path) as db:
            db.execute("DELETE FROM game_rooms WHERE game_id = ?", (third.id,))
        loose = post(
            server, "room-1", one, {"game_id": third.id, "journal": journal(third.players, 1)}
        )
        assert loose.status_code == 403 and "assign" in loose.json()["detail"]

        mine = post(
            server, "room-1", one, {"game_id": first.id, "journal": journal(first.players, 2)}
        )
        assert mine.status_code == 201, mine.text
        theirs = post(
            server, "room-2", two, {"game_id": second.id, "journal": journal(second.players, 3)}
        )
        assert theirs.status_code == 201, theirs.text
        # Reassigned by the committee (a room's equipment failed): the new room reports it.
        assign(path, third.id, "room-2")
        moved = post(
            server, "room-2", two, {"game_id": third.id, "journal": journal(third.players, 1)}
        )
        assert moved.status_code == 201, moved.text
    assert sorted(reports(path)) == [
        (first.id, "room-1"),
        (second.id, "room-2"),
        (third.id, "room-2"),
    ]


def test_the_journal_must_seat_the_drawn_players_in_the_drawn_order(
    cup: tuple[Path, tuple[DrawnGame, ...]], server: str
) -> None:
    path, games = cup
    game, other = games[0], games[1]
    token = issue_token(path, "room-1")
    assign(path, game.id, "room-1")
    a, b, c = game.players
    cases = {
        # The right players in another seat order: the scores would land on the wrong names.
        "seats": ((b, c, a), "seats the players"),
        "swap": ((a, c, b), "seats the players"),
        # Someone who never registered, in a registered player's seat.
        "stranger": ((a, b, "Незнакомец"), "not registered"),
        # Registered players, but another game's.
        "other game": (other.players, "not game"),
    }
    for label, (players, wording) in cases.items():
        refused = post(
            server, "room-1", token, {"game_id": game.id, "journal": journal(players, 1)}
        )
        assert refused.status_code == 422, (label, refused.text)
        detail = refused.json()["detail"]
        assert wording in detail and f"1:{a}" in detail, (label, detail)
    assert recorded(path) == 0 and reports(path) == []
    done = post(server, "room-1", token, {"game_id": game.id, "journal": journal(game.players, 1)})
    assert done.status_code == 201, done.text


def test_the_result_and_the_rooms_record_are_one_transaction(
    cup: tuple[Path, tuple[DrawnGame, ...]], server: str
) -> None:
    path, games = cup
    game = games[0]
    token = issue_token(path, "room-1")
    assign(path, game.id, "room-1")
    # The room's record fails to be written (a real SQLite failure, raised by a trigger).
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON room_reports "
            "BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END"
        )
    body = {"game_id": game.id, "journal": journal(game.players, 2)}
    failed = post(server, "room-1", token, body)
    assert failed.status_code == 503, failed.text
    assert "nothing was recorded" in failed.json()["detail"]
    # Neither half is on disk: the game can be sent again, not a result without its room.
    assert recorded(path) == 0 and reports(path) == []
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT recorded FROM games WHERE id = ?", (game.id,)).fetchone() == (
            None,
        )
        db.execute("DROP TRIGGER refuse")
    again = post(server, "room-1", token, body)
    assert again.status_code == 201, again.text
    assert recorded(path) == len(game.players) and reports(path) == [(game.id, "room-1")]


def _connect(server: str) -> socket.socket:
    url = urlsplit(server)
    assert url.hostname is not None and url.port is not None
    return socket.create_connection((url.hostname, url.port), timeout=10)


def _response(sock: socket.socket, deadline: float) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data and time.monotonic() < deadline:
        ready, _, _ = select.select([sock], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_an_oversized_post_is_refused_before_its_body_is_read(
    cup: tuple[Path, tuple[DrawnGame, ...]], server: str
) -> None:
    path, games = cup
    token = issue_token(path, "room-1")
    assign(path, games[0].id, "room-1")
    host = urlsplit(server).netloc
    for auth in (f"Authorization: Bearer {token}\r\n", ""):
        with _connect(server) as sock:
            # 100 MB announced, not a byte of it sent: the answer cannot wait for the body.
            sock.sendall(
                (
                    f"POST /api/rooms/room-1/results HTTP/1.1\r\nHost: {host}\r\n{auth}"
                    "Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n"
                ).encode()
            )
            started = time.monotonic()
            head = _response(sock, started + 5)
            assert head.startswith(b"HTTP/1.1 413"), head[:200]
            assert time.monotonic() - started < 5
    assert recorded(path) == 0
    # The server goes on serving.
    assert httpx.get(f"{server}/api/standings", timeout=10).status_code == 200


def test_a_chunked_post_is_counted_and_cut_off_at_the_limit(
    cup: tuple[Path, tuple[DrawnGame, ...]],
) -> None:
    path, games = cup
    token = issue_token(path, "room-1")
    assign(path, games[0].id, "room-1")
    limit = 64 * 1024
    with BackgroundServer(create_tournament_app(path, max_body_bytes=limit)) as background:
        host = urlsplit(background.url).netloc
        chunk = b"[" * 4096
        frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        total = 64 * 1024 * 1024
        with _connect(background.url) as sock:
            sock.sendall(
                (
                    f"POST /api/rooms/room-1/results HTTP/1.1\r\nHost: {host}\r\n"
                    f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
                    "Transfer-Encoding: chunked\r\n\r\n"
                ).encode()
            )
            sent = 0
            head = b""
            deadline = time.monotonic() + 30
            while sent < total and time.monotonic() < deadline:
                ready, _, _ = select.select([sock], [], [], 0)
                if ready:
                    break
                try:
                    sock.sendall(frame)
                except OSError:  # the server closed the connection after its 413
                    break
                sent += len(chunk)
            if sent >= total:
                sock.sendall(b"0\r\n\r\n")
            head = _response(sock, time.monotonic() + 10)
        assert head.startswith(b"HTTP/1.1 413"), head[:200]
        # Cut off near the limit, not after the whole 64 MB (socket buffers hold a few MB).
        assert sent < total // 4, sent
        # A body within the limit is still taken.
        game = games[0]
        done = post(
            background.url,
            "room-1",
            token,
            {"game_id": game.id, "journal": journal(game.players, 1)},
        )
        assert done.status_code == 201, done.text


PACKAGE = {
    "name": "Кубок",
    "rounds": [
        {
            "name": "Раунд",
            "themes": [
                {
                    "name": "Реки",
                    "questions": [
                        {"price": 10, "text": "Самая длинная река Европы?", "answer": "Волга"}
                    ],
                }
            ],
        }
    ],
}
PACKAGE_HEAD = {"type": "game", "rules": "sport-no-false-start", "settle_ms": 2}


def test_a_journals_package_path_never_opens_the_servers_files(
    cup: tuple[Path, tuple[DrawnGame, ...]], tmp_path: Path
) -> None:
    path, games = cup
    token = issue_token(path, "room-1")
    for game in games:
        assign(path, game.id, "room-1")
    served = tmp_path / "served"
    served.mkdir()
    (served / "cup.json").write_text(json.dumps(PACKAGE, ensure_ascii=False), encoding="utf-8")
    # Files of the server's that a header might name: one that exists (junk to a package
    # reader), one that does not, a folder, and a FIFO that would hang whoever opened it.
    probes = tmp_path / "probes"
    for folder in ("exists", "missing", "folder", "fifo"):
        (probes / folder).mkdir(parents=True)
    (probes / "exists" / "secret.json").write_text('{"password": "hunter2"}', encoding="utf-8")
    (probes / "folder" / "secret.json").mkdir()
    fifo = probes / "fifo" / "secret.json"
    os.mkfifo(fifo)
    names = [
        str(probes / "exists" / "secret.json"),
        str(probes / "missing" / "secret.json"),
        str(probes / "folder" / "secret.json"),
        str(fifo),
        "../probes/exists/secret.json",
    ]
    game = games[0]
    app = create_tournament_app(path, packages=[served])
    try:
        with BackgroundServer(app) as background:
            details = set()
            for name in names:
                for key in ("package", "board"):
                    head = {**PACKAGE_HEAD, key: name}
                    body = {"game_id": game.id, "journal": journal(game.players, 1, head=head)}
                    refused = post(background.url, "room-1", token, body, timeout=5)
                    assert refused.status_code == 422, (name, refused.text)
                    details.add(refused.json()["detail"])
            # One answer whatever is at the path: nothing to learn about the server's disk.
            assert len(details) == 1, details
            (detail,) = details
            assert "cup.json" in detail and "hunter2" not in detail and str(probes) not in detail
            assert recorded(path) == 0

            # The tournament's own package, by the path it had in the room: the server's copy.
            head = {**PACKAGE_HEAD, "package": "/home/pi/packages/cup.json"}
            body = {"game_id": game.id, "journal": journal(game.players, 2, head=head)}
            done = post(background.url, "room-1", token, body)
            assert done.status_code == 201, done.text
            # The built-in demo package is no path: it is read (and its cat in the bag is
            # not for the sport rules).
            demo = {**PACKAGE_HEAD, "package": "svoyak:demo"}
            second = games[1]
            body = {"game_id": second.id, "journal": journal(second.players, 1, head=demo)}
            read = post(background.url, "room-1", token, body)
            assert read.status_code == 422 and "cats in the bag" in read.json()["detail"]
    finally:
        # Whoever opened the FIFO for reading is released (on the code before issue 13).
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
