"""``svoyak tournament series …`` on a real SQLite file, through ``buzzer.cli.main``
in this process (:mod:`tests.support.cli`; the tournament CLI's real-process test
is in ``test_tournament_cli.py``).

A TV series is run game by game (docs/tournament.md#series-formats): after
every result the command prints the standings and the next game's players
and header (with the carried start scores, SER-CARRY); a fob lot is
journaled with its seed and replays (``svoyak tournament draws``).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from buzzer.tournament.series import fold
from buzzer.tournament.store import TournamentStore
from rules.tournament.series_play import Played
from tests.support.cli import svoyak_here
from tests.support.paths import REPO

DOZEN = [f"Член {i}" for i in range(1, 13)]
POOL = [f"Претендент {i}" for i in range(1, 40)]
BOARD = {"rules": "sport-no-false-start", "settle_ms": 2, "board": {"themes": 1, "prices": [10]}}


def run(*args: str | Path | int) -> subprocess.CompletedProcess[str]:
    return svoyak_here("tournament", "series", *args, cwd=REPO)


def ok(*args: str | Path | int) -> str:
    done = run(*args)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def refused(*args: str | Path | int) -> str:
    done = run(*args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done.stderr


def next_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("next: "))


def header_of(out: str) -> dict[str, object]:
    line = next(line for line in out.splitlines() if line.startswith("  header: "))
    header: dict[str, object] = json.loads(line.removeprefix("  header: "))
    return header


def journal(path: Path, header: dict[str, object], right: int) -> Path:
    """A finished one-question game from the printed header: seat ``right`` answers (+10)."""
    events = [
        {**header, **BOARD},
        {"t": 1.0, "type": "select"},
        {"t": 1.2, "type": "reading_start"},
        {"t": 6.0, "type": "press", "seat": right},
        {"t": 7.0, "type": "judge", "verdict": "correct"},
    ]
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), "utf-8")
    return path


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "series.sqlite"
    done = svoyak_here("tournament", "new", path, cwd=REPO)
    assert done.returncode == 0, done.stderr
    return path


def test_ser_gd_cli_a_cycle_game_by_game(db: Path, tmp_path: Path) -> None:
    out = ok(
        "new", db, "golden-dozen", "--members", ",".join(DOZEN),
        "--challengers", ",".join(POOL[:4]), "--rules", "sport-no-false-start",
    )  # fmt: skip
    assert "series 1  golden-dozen" in out
    assert (
        next_line(out)
        == "next: game 1 (cycle 1, game 1 of 12)  1:Член 1  2:Претендент 1  3:Претендент 2"
    )
    # game 1 by its journal: the challenger in seat 3 wins and takes seat 1 (SER-GD-2)
    out = ok("result", db, 1, journal(tmp_path / "g1.jsonl", header_of(out), right=3))
    assert "game 1: Претендент 2 takes seat 1 from Член 1" in out
    assert "seats: 1:Претендент 2  2:Член 2" in out
    assert (
        next_line(out)
        == "next: game 2 (cycle 1, game 2 of 12)  1:Член 2  2:Претендент 3  3:Претендент 4"
    )
    # game 2 by the committee's written scores: the member keeps his seat
    out = ok("result", db, 1, "--scores", "1200,-300,0")
    assert "game 2: Член 2 keeps seat 2" in out
    assert "waiting: more challengers needed" in out
    out = ok("add", db, 1, "Новичок 1", "Новичок 2")
    assert (
        next_line(out) == "next: game 3 (cycle 1, game 3 of 12)  1:Член 3  2:Новичок 1  3:Новичок 2"
    )
    table = [line.split() for line in out.splitlines() if line[:3].strip().isdigit()]
    assert table[0][1:3] == ["Член", "2"] and table[0][7] == "1200"  # the best winnings first


def test_ser_gd_cli_refusals_write_nothing(db: Path, tmp_path: Path) -> None:
    out = ok("new", db, "golden-dozen", "--members", ",".join(DOZEN), "--challengers", "A,B")
    wrong = header_of(out) | {"players": ["Член 2", "A", "B"]}
    err = refused("result", db, 1, journal(tmp_path / "wrong.jsonl", wrong, right=1))
    assert "are not game 1's (1:Член 1  2:A  3:B)" in err
    err = refused("result", db, 1, "--scores", "10,10,-5")
    assert "two players share the highest score" in err
    assert "games played 0" in ok("show", db, 1)
    assert "starts with 12 members, 2 given" in refused(
        "new", db, "golden-dozen", "--members", "A,B"
    )
    assert "unknown series format 'x'" in refused("new", db, "x")
    assert "no series 9" in refused("show", db, 9)
    assert "series 1  golden-dozen" in ok("list", db)


def test_ser_car94_cli_stop_or_go(db: Path) -> None:
    ok("new", db, "car-cup-1994", "--challengers", ",".join(POOL[:9]))
    out = ok("result", db, 1, "--scores", "900,100,0")
    assert "waiting: Претендент 1: stop and take 900, or go on" in out
    err = refused("decide", db, 1, "Претендент 2", "stop")
    assert "has no stop-or-go decision" in err
    out = ok("decide", db, 1, "Претендент 1", "go")
    assert next_line(out).endswith("1:Претендент 1  2:Претендент 4  3:Претендент 5")
    out = ok("result", db, 1, "--scores", "500,100,0")
    assert "bank 1400" in out
    out = ok("decide", db, 1, "Претендент 1", "stop")
    assert "Претендент 1 leaves with 1400" in out
    assert next_line(out).endswith("1:Претендент 6  2:Претендент 7  3:Претендент 8")


def test_ser_car08_cli_the_fob_lot_is_journaled_and_replays(db: Path) -> None:
    ok("new", db, "car-cup-2008", "--challengers", ",".join(POOL[:9]), "--seed", 2008)
    out = ok("result", db, 1, "--scores", "900,100,0")
    assert "Претендент 1 checks 1 of 22 fobs" in out
    draws = svoyak_here("tournament", "draws", db, cwd=REPO)
    assert draws.returncode == 0, draws.stderr
    line = next(x for x in draws.stdout.splitlines() if " fobs " in x)
    assert "fobs  series 1  Претендент 1  1 of 22 fobs  seed 2008  replays" in line
    assert '"found": false' in line
    with sqlite3.connect(db) as con:  # a lot altered after the fact no longer replays
        (data,) = con.execute("SELECT input FROM draws WHERE kind = 'fobs'").fetchone()
        assert json.loads(data)["lot_seed"] == "2008:fobs:1"
        con.execute("UPDATE draws SET outcome = json_set(outcome, '$.found', json('true'))")
    draws = svoyak_here("tournament", "draws", db, cwd=REPO)
    assert draws.returncode == 1 and "DOES NOT REPLAY" in draws.stdout


def test_ser_carry_cli_a_paired_match_starts_from_the_carried_scores(
    db: Path, tmp_path: Path
) -> None:
    """The Jubilee's paired games (SER-JUB-2): game 2 of a match starts from game 1's end
    scores; its journal's header must carry them, and replays from them."""
    names = POOL[:27]
    ok("new", db, "jubilee-2004", "--challengers", ",".join(names), "--seed", 10)
    with TournamentStore(db) as store:  # the 15 single games before the paired ones
        for _ in range(15):
            view = fold(store.series(1))
            assert view.next is not None
            store.add_series_event(1, Played(view.next.players, (30, 20, 10), 1))
    out = ok("show", db, 1, "--rules", "sport-no-false-start")
    assert "(paired 1/4 1, game 1 of 2)" in next_line(out)
    out = ok("result", db, 1, journal(tmp_path / "p1.jsonl", header_of(out), right=2))
    assert "(paired 1/4 1, game 2 of 2)" in next_line(out)
    assert "carried start scores (SER-CARRY): 0, 10, 0" in out
    header = header_of(out)
    assert header["start_scores"] == [0, 10, 0]
    stale = {k: v for k, v in header.items() if k != "start_scores"}
    err = refused("result", db, 1, journal(tmp_path / "stale.jsonl", stale, right=1))
    assert "starts from the carried scores [0, 10, 0] (SER-CARRY)" in err
    out = ok("result", db, 1, journal(tmp_path / "p2.jsonl", header, right=2))
    assert "(paired 1/4 2, game 1 of 2)" in next_line(out)
    assert "header" in out and "start_scores" not in header_of(out)


SERIES_FILES = sorted((REPO / "examples" / "series").glob("*.json"))


def test_ser_there_is_an_example_series_file_per_format() -> None:
    from rules.tournament.series import SERIES_FORMATS

    assert {p.stem for p in SERIES_FILES} == set(SERIES_FORMATS)


@pytest.mark.parametrize("path", SERIES_FILES, ids=[p.stem for p in SERIES_FILES])
def test_ser_every_example_series_file_loads_through_the_cli(db: Path, path: Path) -> None:
    out = ok("new", db, "--from", path)
    data = json.loads(path.read_text("utf-8"))
    played = sum(e["type"] == "played" for e in data["events"])
    assert f"series 1  {data['format']}" in out and f"games played {played}" in out
    assert "next: " in out or "over: " in out or "waiting: " in out


def test_ser_a_series_file_with_a_wrong_event_writes_nothing(db: Path, tmp_path: Path) -> None:
    data = json.loads((REPO / "examples" / "series" / "golden-dozen.json").read_text("utf-8"))
    data["events"][3]["players"] = list(reversed(data["events"][3]["players"]))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    assert "event 4: game 4 is" in refused("new", db, "--from", bad)
    bad.write_text('{"format": "golden-dozen", "events": [{"type": "played"}]}', "utf-8")
    assert "event 1 is not a played" in refused("new", db, "--from", bad)
    assert ok("list", db) == ""
