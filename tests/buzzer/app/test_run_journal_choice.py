"""Which journal `svoyak run --resume` goes on with: the last game *played*.

A start that fails (here: a Pico that is not there) must leave nothing that
`--resume` would take for the last game night, and a journal that holds only
its header (a start killed before anything happened) is passed over. Real
processes, real SQLite files under a temporary $XDG_DATA_HOME.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

RUN = [sys.executable, "-m", "buzzer.cli", "run", "--headless", "--host", "127.0.0.1"]


def games(data: Path) -> list[Path]:
    return sorted((data / "svoyak" / "games").glob("game-*.sqlite"))


def run(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data), "XDG_STATE_HOME": str(data / "state")}
    return subprocess.run(
        [*RUN, "--port", "0", "--no-mdns", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def journal(path: Path, lines: list[dict[str, object]]) -> None:
    """A journal as `svoyak run` writes it (through the project's own store)."""
    from buzzer.journal.store import JournalStore

    with JournalStore(path) as store:
        for line in lines:
            store.append(line)


HEADER = {"type": "game", "rules": "tv-modern", "players": ["А", "Б"], "package": "svoyak:demo"}


def test_a_start_that_fails_leaves_no_journal_and_resume_finds_the_game(tmp_path: Path) -> None:
    folder = tmp_path / "svoyak" / "games"
    folder.mkdir(parents=True)
    played = folder / "game-20261201-200000.sqlite"
    journal(played, [HEADER, {"type": "select", "t": 1000, "theme": 1, "price": 100}])
    before = played.read_bytes()

    failed = run(tmp_path, "--serial", "/dev/ttyNOPE")
    assert failed.returncode == 2, failed.stderr
    assert games(tmp_path) == [played], "the failed start left a journal behind"
    assert played.read_bytes() == before

    # A start killed before any input left a header-only journal, newer than the game.
    journal(folder / "game-20261201-210000.sqlite", [HEADER])
    from buzzer.app.run_command import _latest_game

    env = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path)
    try:
        assert _latest_game() == played
    finally:
        if env is not None:
            os.environ["XDG_DATA_HOME"] = env


def test_a_journal_named_on_the_command_line_is_never_removed(tmp_path: Path) -> None:
    """Only a journal this run created in the games folder is dropped; a --journal stays."""
    mine = tmp_path / "mine.sqlite"
    journal(mine, [HEADER])
    failed = run(tmp_path, "--journal", str(mine), "--serial", "/dev/ttyNOPE")
    assert failed.returncode == 2, failed.stderr
    db = sqlite3.connect(mine)
    (line,) = [row[0] for row in db.execute("SELECT line FROM journal")]
    db.close()
    assert json.loads(line)["type"] == "game"
