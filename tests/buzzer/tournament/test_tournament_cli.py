"""``svoyak tournament …`` on a real SQLite file.

The commands run through ``buzzer.cli.main`` in this process
(:func:`tests.support.cli.svoyak_here`: the same parser and handlers, without
an interpreter per command); one test runs ``python -m buzzer.cli tournament``
as a real process, the way a user's shell does.
"""

from __future__ import annotations

import csv
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import svoyak_here
from tests.support.paths import REPO

ROOT = REPO
TEAMS = {
    "Red": ["Аня", "Борис", "Вера"],
    "Green": ["Глеб", "Дина", "Ефим"],
    "Blue": ["Жанна", "Зоя", "Игорь"],
}
TEAM_OF = {name: team for team, names in TEAMS.items() for name in names}
HEAD = {
    "type": "game",
    "rules": "sport-no-false-start",
    "settle_ms": 2,
    "board": {"themes": 1, "prices": [10]},
}


def run(*args: str | Path | int) -> subprocess.CompletedProcess[str]:
    return svoyak_here("tournament", *args, cwd=ROOT)


def ok(*args: str | Path | int) -> str:
    done = run(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def refused(*args: str | Path | int) -> str:
    done = run(*args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done.stderr


def journal(path: Path, players: list[str], right: int, wrong: int | None) -> Path:
    """A finished one-question game: ``wrong`` answers first (−10), then ``right`` (+10)."""
    events: list[dict[str, object]] = [{**HEAD, "players": players}]
    events += [{"t": 1.0, "type": "select"}, {"t": 1.2, "type": "reading_start"}]
    if wrong is not None:
        events += [
            {"t": 3.0, "type": "press", "seat": wrong},
            {"t": 4.0, "type": "judge", "verdict": "wrong"},
        ]
    events += [
        {"t": 6.0, "type": "press", "seat": right},
        {"t": 7.0, "type": "judge", "verdict": "correct"},
    ]
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), "utf-8")
    return path


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "cup.sqlite"
    ok("new", path, "--cutoff", "2026-09-01")
    for team, names in TEAMS.items():
        for i, name in enumerate(names):
            out = ok(
                "register",
                path,
                name,
                "--born",
                f"2012-0{i + 1}-15",
                "--city",
                "Тверь",
                "--team",
                team,
            )
            assert "junior" in out
    return path


def drawn(out: str) -> dict[int, list[str]]:
    games = {}
    for line in out.splitlines():
        words = line.split()
        games[int(words[1])] = [w.split(":", 1)[1] for w in words[5:]]
    return games


def test_new_register_draw_result_standings_export(db: Path, tmp_path: Path) -> None:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT COUNT(*) FROM players").fetchone()[0] == 9
        assert conn.execute("SELECT COUNT(*) FROM teams").fetchone()[0] == 3

    games = drawn(ok("draw", db, "--seed", "7"))
    assert len(games) == 3 and all(len(g) == 3 for g in games.values())
    assert sorted(n for g in games.values() for n in g) == sorted(TEAM_OF)  # nobody twice
    for players in games.values():  # TOUR-3.1: teammates apart
        assert sorted(TEAM_OF[n] for n in players) == ["Blue", "Green", "Red"]

    # Games 1 and 2: Red wins, Green 2nd, Blue 3rd (−10). Game 3: Green alone scores.
    ids = sorted(games)
    for game_id in ids:
        seat = {TEAM_OF[n]: i for i, n in enumerate(games[game_id], start=1)}
        if game_id != ids[-1]:
            path = journal(
                tmp_path / f"g{game_id}.jsonl", games[game_id], seat["Red"], seat["Blue"]
            )
        else:
            path = journal(tmp_path / f"g{game_id}.jsonl", games[game_id], seat["Green"], None)
        out = ok("result", db, game_id, path)
        assert "place 1" in out

    standings = ok("standings", db)
    team_lines = standings.split("Team standings")[1].splitlines()[2:]
    # TOUR-3.3/3.5: Red 3+3+½ = 6.5/3; Green 1+1+3 = 5/3; Blue 0+0+½ = 0.5/3.
    assert [line.split()[:3] for line in team_lines] == [
        ["1", "Red", "2.17"],
        ["2", "Green", "1.67"],
        ["3", "Blue", "0.17"],
    ]
    assert "Individual standings: junior" in standings

    out_csv = tmp_path / "cup.csv"
    ok("export", db, out_csv)
    with out_csv.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 9
    assert {r["player"] for r in rows} == set(TEAM_OF)
    last = [r for r in rows if r["game"] == str(ids[-1])]
    assert sorted((r["team"], r["score"], r["place"], r["team_points"]) for r in last) == [
        ("Blue", "0", "2", "0.50"),
        ("Green", "10", "1", "3.00"),
        ("Red", "0", "2", "0.50"),
    ]

    # The next stage: the three game winners meet in the final (TOUR-3.2).
    final = drawn(ok("draw", db, "--seed", "1"))
    assert len(final) == 1
    (players,) = final.values()
    winners = {r["player"] for r in rows if r["winner"] == "1"}
    assert set(players) == winners
    assert "waiting for the results" in refused("draw", db)
    (final_id,) = final
    ok("result", db, final_id, journal(tmp_path / "final.jsonl", players, 2, 1))
    assert "the final has been played" in refused("draw", db)


def test_an_override_shows_in_standings_draws_and_export_with_its_reason(
    db: Path, tmp_path: Path
) -> None:
    games = drawn(ok("draw", db, "--seed", "7"))
    for game_id, players in games.items():  # Red 1st, Green 2nd, Blue 3rd everywhere
        seat = {TEAM_OF[n]: i for i, n in enumerate(players, start=1)}
        path = journal(tmp_path / f"g{game_id}.jsonl", players, seat["Red"], seat["Blue"])
        ok("result", db, game_id, path)
    teams = ok("standings", db).split("Team standings")[1].splitlines()[2:5]
    assert [line.split()[1:3] for line in teams] == [
        ["Red", "3.00"],
        ["Green", "1.00"],
        ["Blue", "0.00"],
    ]
    first = min(games)
    seat = {TEAM_OF[n]: i for i, n in enumerate(games[first], start=1)}
    reason = "протест Blue принят жюри"
    places = ["--place", f"{seat['Blue']}=1", "--place", f"{seat['Red']}=3"]
    ok("override", db, first, *places, "--reason", reason)
    standings = ok("standings", db)
    teams = standings.split("Team standings")[1].splitlines()[2:5]
    # TOUR-1.9, TOUR-3.3: Red 0+3+3 = 6/3, Blue 3+0+0 = 3/3, Green stays 1+1+1 = 3/3,
    # ahead of Blue on the §3.6 sum of points (0 against −30)
    assert [line.split()[:3] for line in teams] == [
        ["1", "Red", "2.00"],
        ["2", "Green", "1.00"],
        ["3", "Blue", "1.00"],
    ]
    assert "Overrides by the committee (TOUR-1.9)" in standings and reason in standings
    assert reason in ok("draws", db)
    out_csv = tmp_path / "cup.csv"
    ok("export", db, out_csv)
    with out_csv.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["override"] for r in rows if r["game"] == str(first)} == {reason}
    assert {r["override"] for r in rows if r["game"] != str(first)} == {""}


def test_bad_input(db: Path, tmp_path: Path) -> None:
    assert "no such tournament database" in refused("standings", tmp_path / "nope.sqlite")
    assert "tournament new" in refused("draw", tmp_path / "nope.sqlite")
    assert "already exists" in refused("new", db)
    assert "registered twice" in refused("register", db, "Аня", "--born", "2012-01-01")
    assert "older than 17" in refused("register", db, "Старый", "--born", "1990-01-01")

    assert "waiting" not in refused("result", db, "1", tmp_path / "missing.jsonl")
    games = drawn(ok("draw", db, "--seed", "3"))
    assert "registration is closed" in refused("register", db, "Поздний", "--born", "2012-01-01")
    assert "waiting for the results" in refused("draw", db)

    game_id = min(games)
    finished = journal(tmp_path / "done.jsonl", games[game_id], 1, None)
    err = refused("result", db, "99", finished)
    assert "there is no game 99" in err

    unfinished = tmp_path / "open.jsonl"
    lines = finished.read_text("utf-8").splitlines()[:3]
    unfinished.write_text("\n".join(lines) + "\n", "utf-8")
    assert "not over" in refused("result", db, game_id, unfinished)

    # Issue 13: the journal's seats must be the draw's, and its names registered ones.
    swapped = journal(tmp_path / "swapped.jsonl", games[game_id][::-1], 1, None)
    assert "seats the players" in refused("result", db, game_id, swapped)
    stranger = journal(tmp_path / "stranger.jsonl", [*games[game_id][:2], "Никто"], 1, None)
    assert "'Никто' are not registered" in refused("result", db, game_id, stranger)
    other = next(players for g, players in games.items() if g != game_id)
    elsewhere = journal(tmp_path / "other.jsonl", [*games[game_id][:2], other[0]], 1, None)
    assert f"are not game {game_id}'s drawn players" in refused("result", db, game_id, elsewhere)
    with sqlite3.connect(db) as conn:  # none of the refusals recorded anything
        assert conn.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 0
        recorded = conn.execute("SELECT COUNT(*) FROM games WHERE recorded IS NOT NULL")
        assert recorded.fetchone()[0] == 0

    ok("result", db, game_id, finished)
    assert "already recorded" in refused("result", db, game_id, finished)

    (tmp_path / "junk.sqlite").write_text("not a database", "utf-8")
    assert "not a svoyak tournament database" in refused("standings", tmp_path / "junk.sqlite")


def test_draw_sends_the_games_to_rooms(db: Path) -> None:
    """``draw --rooms``: the games go to the rooms in turn (issue 13: a room reports its own)."""
    assert "bad room name" in refused("draw", db, "--seed", "3", "--rooms", "zal 1,zal-2")
    out = ok("draw", db, "--seed", "3", "--rooms", "zal-1,zal-2")
    rooms = [line.split("  ")[2] for line in out.splitlines()]
    assert rooms == ["room zal-1", "room zal-2", "room zal-1"]


def test_svoyak_entry_point_accepts_the_module() -> None:
    """The module plugs into ``svoyak`` the way ``_COMMAND_MODULES`` loads it."""
    import argparse

    from buzzer.tournament.cli import add_commands

    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["tournament", "draw", "x.sqlite", "--seed", "5"])
    assert args.seed == 5 and callable(args.handler)


def test_the_real_command_runs_in_its_own_process(db: Path) -> None:
    """One command as a real process: the console entry and its exit status, which
    the in-process runs above cannot show."""
    done = subprocess.run(
        [sys.executable, "-m", "buzzer.cli", "tournament", "standings", str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "buzzer.cli", "tournament", "standings", str(db) + ".none"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
