"""The tournament server and CLI against a hostile client or file (issue 36 item 5).

Through a real uvicorn on 127.0.0.1 (clients from many 127.0.0.0/8 source
addresses) and through the real ``svoyak`` on real files: an out-of-range
game number is 422 (never a 500), wrong room tokens are limited per address
and overall, and another program's SQLite file or an empty file given as the
tournament's database is left byte for byte and mtime as it was by every
command. Hostile names, a team and a title (markup, an event handler, quotes,
template syntax) are shown as text on every page (``/``, ``/print``,
``/tables``, in Russian and English): the templates' autoescape.
"""

from __future__ import annotations

import datetime
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest

from buzzer.attempts import FailureLimit
from buzzer.panel.server import BackgroundServer
from buzzer.tournament.records import DrawnGame, StoredJournal
from buzzer.tournament.server import create_tournament_app, issue_token
from buzzer.tournament.statistics import SeatStatistics
from buzzer.tournament.store import APPLICATION_ID, TournamentStore, record_game_result
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


# The pages (Jinja2 templates with autoescape, issue 39 item 3): anyone's names as text.

#: Names and a team that a hostile registration could give: markup, an event handler,
#: quotes that would close an attribute, and template syntax that must never be run.
HOSTILE_NAMES = (
    "<img src=x onerror=alert(1)>",
    "{{7*7}}",
    "\"'><script>alert(1)</script>",
    "{% for x in range(3) %}x{% endfor %}",
)
HOSTILE_TEAM = "<i>Команда</i> {{ 7*7 }} &amp; \"'"
HOSTILE_TITLE = '<b>Кубок</b> {{7*7}} "onmouseover=alert(1)'


class PageParts(HTMLParser):
    """A page as a browser reads it: its elements with their attributes, and the text of
    each cell, title and heading (character references resolved)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.texts: dict[str, list[str]] = {}
        self._open: list[str] = []
        self._text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        if tag in ("td", "th", "title", "h1", "h2", "a", "p"):
            self._open.append(tag)
            self._text.append("")

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1] == tag:
            self._open.pop()
            text = self._text.pop()
            self.texts.setdefault(tag, []).append(text)
            if self._text:
                self._text[-1] += text

    def handle_data(self, data: str) -> None:
        if self._text:
            self._text[-1] += data


def shown_cells(text: str) -> list[str]:
    """The text of every table cell of a page, as a browser shows it."""
    return PageParts(text).texts.get("td", [])


@pytest.fixture
def hostile_cup(tmp_path: Path) -> tuple[Path, DrawnGame]:
    """Every name of the first game hostile (and one in a team), the game recorded."""
    path = tmp_path / "cup.sqlite"
    teams = {
        HOSTILE_TEAM: [HOSTILE_NAMES[0], HOSTILE_NAMES[1], "Вера"],
        "Green": [HOSTILE_NAMES[2], HOSTILE_NAMES[3], "Ефим"],
        "Blue": ["Жанна", "Зоя", "Игорь"],
    }
    with TournamentStore.create(path, datetime.date(2026, 9, 1)) as store:
        for team, names in teams.items():
            for i, name in enumerate(names):
                # One of each team senior: both groups' tables are drawn.
                born = datetime.date(2010 if i == 2 else 2012, i + 1, 15)
                store.register(Player(name, born, "Тверь", team))
        games = store.draw_next(seed=7)
        game = next(g for g in games if HOSTILE_NAMES[0] in g.players)
        record_game_result(store, game.id, journal(game.players, 1))
    return path, game


def _statistics(kept: StoredJournal) -> tuple[SeatStatistics, ...]:
    return tuple(SeatStatistics((250_000,), 0, 1, 0) for _ in range(3))


def _report(kept: StoredJournal, lang: str) -> str:
    return f'<!doctype html><html lang="{lang}"><p>report</p></html>'


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_page_shows_hostile_names_as_text(
    hostile_cup: tuple[Path, DrawnGame], lang: str
) -> None:
    """/, /print and /tables: each hostile name is the whole text of its cells (in the
    standings, the statistics and the games list), the title its title and heading;
    none adds an element, an attribute or a script, and ``{{7*7}}`` is never 49."""
    path, game = hostile_cup
    first, *others = game.players
    app = create_tournament_app(
        path, lang=lang, title=HOSTILE_TITLE, statistics=_statistics, report=_report
    )
    with BackgroundServer(app) as background, http_client(timeout=10) as client:
        pages = {p: client.get(background.url + p) for p in ("/", "/print", "/tables")}
    for name, answer in pages.items():
        assert answer.status_code == 200, (name, answer.text)
        parts = PageParts(answer.text)
        cells = parts.texts["td"]
        for hostile in HOSTILE_NAMES:
            # Its row in the standings, and in the statistics if it played.
            expected = 2 if hostile in game.players else 1
            assert cells.count(hostile) == expected, (name, hostile, cells)
        # Its three players' rows and its own in the team table.
        assert cells.count(HOSTILE_TEAM) == 4, (name, cells)
        # The games list: the score of each seat after its name.
        assert f"{first} 10, {others[0]} 0, {others[1]} 0" in cells, (name, cells)
        assert not any("49" in c for c in cells), (name, cells)
        assert ("href", f"games/{game.id}/report") in [a for _, attrs in parts.tags for a in attrs]
        # Only the page's own elements: no <img>, no inline script, no event handler.
        tags = {tag for tag, _ in parts.tags}
        assert tags <= {
            "html", "head", "meta", "title", "link", "body", "h1", "h2", "p", "a", "span",
            "div", "script", "table", "thead", "tbody", "tr", "th", "td",
        }, (name, tags)  # fmt: skip
        for tag, attrs in parts.tags:
            assert not any(k.startswith("on") for k, _ in attrs), (name, tag, attrs)
            if tag == "script":
                assert attrs == [("src", "standings.js")] and name == "/", (name, attrs)
        if name != "/tables":
            assert parts.texts["title"] == [HOSTILE_TITLE] == parts.texts["h1"], name
            html_tag = next(attrs for tag, attrs in parts.tags if tag == "html")
            assert html_tag == [("lang", lang)]


def test_the_templates_escape_by_default_and_refuse_a_missing_variable() -> None:
    from jinja2 import UndefinedError

    from buzzer.tournament.pages import TEMPLATES

    shown = TEMPLATES.from_string("<td>{{ name }}</td>").render(name=HOSTILE_NAMES[0])
    assert shown == "<td>&lt;img src=x onerror=alert(1)&gt;</td>"
    with pytest.raises(UndefinedError):
        TEMPLATES.get_template("tables.html").render(labels={}, groups={})
