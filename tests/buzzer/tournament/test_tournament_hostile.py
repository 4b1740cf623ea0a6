"""The tournament server and CLI against a hostile client or file (issue 36 item 5).

Through a real uvicorn on 127.0.0.1 (clients from many 127.0.0.0/8 source
addresses) and through the real ``svoyak`` on real files: an out-of-range
game number is 422 (never a 500), wrong room tokens are limited per address
and overall, and another program's SQLite file or an empty file given as the
tournament's database is left byte for byte and mtime as it was by every
command.
"""

from __future__ import annotations

import datetime
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from buzzer.attempts import FailureLimit
from buzzer.panel.server import BackgroundServer
from buzzer.tournament.server import create_tournament_app, issue_token
from buzzer.tournament.store import APPLICATION_ID, TournamentStore
from rules.tournament.registration import Player
from tests.buzzer.tournament.test_tournament_server import TEAMS, journal
from tests.support.http import http_client
from tests.support.paths import REPO


@pytest.fixture
def cup(tmp_path: Path) -> Path:
    path = tmp_path / "cup.sqlite"
    with TournamentStore.create(path, datetime.date(2026, 9, 1)) as store:
        for team, names in TEAMS.items():
            for i, name in enumerate(names):
                store.register(Player(name, datetime.date(2012, i + 1, 15), "Тверь", team))
        store.draw_next(seed=7)
    return path


def _post(url: str, token: str, body: object, source: str = "127.0.0.1") -> httpx.Response:
    transport = httpx.HTTPTransport(local_address=source)
    with http_client(transport=transport, timeout=10) as client:
        return client.post(
            f"{url}/api/rooms/hall/results",
            json=body,
            headers={"Authorization": f"Bearer {token}"},
        )


@pytest.fixture
def served(cup: Path) -> Iterator[tuple[str, str]]:
    token = issue_token(cup, "hall")
    limit = FailureLimit(per_client=3, overall=10, window_s=60.0, max_clients=8)
    with BackgroundServer(create_tournament_app(cup, token_limit=limit)) as background:
        yield background.url, token


@pytest.mark.parametrize("game_id", [2**70, 2**63, -(2**70), 0])
def test_an_out_of_range_game_id_is_422(served: tuple[str, str], game_id: int) -> None:
    url, token = served
    answer = _post(url, token, {"game_id": game_id, "journal": journal(["А", "Б", "В"], 1)})
    assert answer.status_code == 422, answer.text


def test_wrong_tokens_are_limited_per_address(served: tuple[str, str]) -> None:
    url, token = served
    body = {"game_id": 1, "journal": ["{}"]}
    assert [_post(url, "wrong", body).status_code for _ in range(3)] == [403] * 3
    refused = _post(url, "wrong", body)
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    # Refused before the token is looked at: the right one waits too from there...
    assert _post(url, token, body).status_code == 429
    # ...and another address is still let in.
    assert _post(url, "wrong", body, source="127.0.0.2").status_code == 403


def test_wrong_tokens_are_limited_overall_across_many_addresses(
    served: tuple[str, str],
) -> None:
    url, _ = served
    body = {"game_id": 1, "journal": ["{}"]}
    codes = [_post(url, "wrong", body, source=f"127.0.1.{n}").status_code for n in range(1, 15)]
    # 10 wrong tokens in the window from all addresses: every address waits.
    assert codes[:10] == [403] * 10 and set(codes[10:]) == {429}, codes
    assert _post(url, "wrong", body, source="127.0.2.1").status_code == 429


def test_the_failure_records_are_bounded() -> None:
    limit = FailureLimit(per_client=2, overall=10**6, window_s=60.0, max_clients=100)
    for n in range(5000):
        limit.failed(f"10.0.{n // 256}.{n % 256}")
    assert limit.clients == 100
    assert limit.retry_after("10.0.19.135") == 0  # the last one: one failure only


# The file parts: a foreign and an empty file, through every command.

COMMANDS: list[tuple[str, ...]] = [
    ("tournament", "register", "{db}", "Аня", "--born", "2012-01-01"),
    ("tournament", "draw", "{db}", "--seed", "1"),
    ("tournament", "result", "{db}", "1", "{journal}"),
    ("tournament", "qualifier", "{db}", "{csv}"),
    ("tournament", "draws", "{db}"),
    ("tournament", "override", "{db}", "1", "--place", "1=1", "--reason", "x"),
    ("tournament", "standings", "{db}"),
    ("tournament", "export", "{db}", "{out}"),
    ("tournament-server", "token", "{db}", "hall"),
    ("tournament-server", "assign", "{db}", "1", "hall"),
    ("tournament-server", "serve", "{db}", "--port", "0"),
]


def _foreign(path: Path) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA application_id = 1234")
        db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        db.execute("INSERT INTO notes (text) VALUES ('mine')")
    db.close()
    return path


def _foreign_meta(path: Path) -> Path:
    """Another program's file with no application_id and a ``meta`` table of its own."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute("INSERT INTO meta VALUES ('owner', 'someone')")
    db.close()
    return path


def _empty(path: Path) -> Path:
    path.write_bytes(b"")
    return path


@pytest.mark.parametrize("make", [_foreign, _foreign_meta, _empty])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_foreign_or_empty_file_is_never_modified(
    tmp_path: Path, make: object, command: tuple[str, ...]
) -> None:
    db = make(tmp_path / "other.db")  # type: ignore[operator]
    past = 1_600_000_000
    os.utime(db, (past, past))
    before = db.read_bytes()
    (tmp_path / "game.jsonl").write_text("\n".join(journal(["А", "Б", "В"], 1)) + "\n")
    (tmp_path / "q.csv").write_text("name,blue,red\nАня,1,2\n")
    fill = {
        "db": str(db),
        "journal": str(tmp_path / "game.jsonl"),
        "csv": str(tmp_path / "q.csv"),
        "out": str(tmp_path / "out.csv"),
    }
    argv = [part.format(**fill) for part in command]
    done = subprocess.run(
        [sys.executable, "-m", "buzzer.cli", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert "not a svoyak tournament database" in done.stderr
    assert db.read_bytes() == before
    assert db.stat().st_mtime == past
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("other.db")) == [
        "other.db"
    ]


def test_a_new_tournament_carries_its_application_id_and_an_old_one_is_stamped(
    cup: Path, tmp_path: Path
) -> None:
    with sqlite3.connect(cup) as db:
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        db.execute("PRAGMA application_id = 0")  # as made before the id existed
    db.close()
    with TournamentStore(cup) as store:
        assert len(store.players()) == 9
    with sqlite3.connect(cup) as db:
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    db.close()


def test_a_tournament_file_that_cannot_be_read_is_a_message_not_a_traceback() -> None:
    """An unreadable database (here a file whose every read fails with EIO, as a dying
    disk's would; permissions do the same to a non-root user) is one line and exit 2."""
    done = subprocess.run(
        [sys.executable, "-m", "buzzer.cli", "tournament", "standings", "/proc/self/mem"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "cannot read the tournament database /proc/self/mem" in done.stderr
