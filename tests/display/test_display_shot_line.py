"""``svoyak display shot --line N`` draws the state *after* journal line N, as its help
says (issue 35): the line applied and decided (its settle window passed), no later
line. It drew the state before it: a live journal's input waits in the settle
window, and the shot stopped at the line's own instant."""

from __future__ import annotations

from pathlib import Path

import pygame

from buzzer.cli import main
from display.replay import JournalPlayer
from tests.support.paths import REPO

JOURNAL = REPO / "examples" / "full-game-tv-modern.jsonl"


def shot(tmp_path: Path, name: str, *how: str) -> bytes:
    out = tmp_path / f"{name}.png"
    assert main(["display", "shot", str(JOURNAL), str(out), "--size", "640x360", *how]) == 0
    return pygame.image.tobytes(pygame.image.load(str(out)), "RGB")


def test_shot_line_draws_the_state_after_that_line(tmp_path: Path) -> None:
    # Line 2 selects theme 1 for 100 at 1.0 s (line 3 comes at 1.3 s): the question.
    assert shot(tmp_path, "line2", "--line", "2") == shot(tmp_path, "at1.1", "--at", "1.1")
    # Line 8 judges Анна's answer right at 5.0 s (line 9 at 7.0 s): the board again.
    assert shot(tmp_path, "line8", "--line", "8") == shot(tmp_path, "at6", "--at", "6.0")
    assert shot(tmp_path, "line8", "--line", "8") != shot(tmp_path, "line7", "--line", "7")


def test_the_player_applies_a_line_and_nothing_after_it() -> None:
    lines = JOURNAL.read_text(encoding="utf-8").splitlines()
    player = JournalPlayer(lines)
    player.through(2)
    snapshot = player.snapshot()
    assert snapshot["stage"] == "question" and snapshot["cell"] == [1, 100]
    assert snapshot["phase"] == "selected"  # line 3's reading_start not yet
    player = JournalPlayer(lines)
    player.through(8)
    snapshot = player.snapshot()
    assert snapshot["stage"] == "board" and snapshot["scores"]["1"] == 100
    player = JournalPlayer(lines)
    player.through(len(lines) + 5)  # past the end: the whole journal
    whole = JournalPlayer(lines)
    whole.advance(whole.end)
    assert player.done and player.finished
    assert player.core.snapshot() == whole.core.snapshot()
