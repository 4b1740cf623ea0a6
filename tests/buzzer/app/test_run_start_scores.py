"""SER-CARRY live: ``svoyak run --start-scores`` starts a series game from carried scores.

The three-game finals of 2003 carry each game's end scores into the next game's
start (docs/tournament.md, SER-CARRY). ``svoyak tournament series show`` prints
them; the host starts the next game with them, and the journal's header holds
them so that the replay starts from the same scores.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.live_run import Host, served, svoyak


def test_SER_CARRY_a_live_game_starts_from_the_carried_scores_and_replays_so(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "game.sqlite"
    args = ("--journal", str(journal), "--players", "Аня,Борис,Вера",
            "--start-scores", "1200,-300,0")  # fmt: skip
    with served(*args) as run:
        state = Host(run.url).state()
        assert state["snapshot"]["scores"] == {"1": 1200, "2": -300, "3": 0}
    done = svoyak("replay", str(journal))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["scores"] == {"1": 1200, "2": -300, "3": 0}


def test_SER_CARRY_start_scores_that_do_not_fit_the_players_are_refused_before_anything(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "game.sqlite"
    for bad in ("1200,-300", "1200,x,0", "1,2,3,4", "0,0,2000000"):
        done = subprocess.run(
            [sys.executable, "-m", "buzzer.cli", "run", "--headless", "--port", "0",
             "--players", "Аня,Борис,Вера", "--journal", str(journal), "--start-scores", bad],
            capture_output=True, text=True, check=False, timeout=60,
        )  # fmt: skip
        assert done.returncode == 2, (bad, done.stderr)
        assert "--start-scores needs 3 whole numbers" in done.stderr
        assert "Traceback" not in done.stderr
        assert not journal.exists()
