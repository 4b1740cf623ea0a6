"""kill -9 at any moment: resuming from the SQLite journal rebuilds exactly the same state."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from buzzer.journal.resume import rebuild, resume
from buzzer.journal.store import JournalStore
from tests.support.paths import REPO, SUPPORT

WRITER = SUPPORT / "live_writer.py"
ROOT = REPO


@pytest.mark.parametrize("kill_after", [1, 37, 400, 1100])
def test_resume_after_kill_9_gives_the_state_the_live_game_had(
    tmp_path: Path, kill_after: int
) -> None:
    db = tmp_path / "game.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), str(db)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    shown: list[dict[str, object]] = []
    while len(shown) < kill_after:
        line = proc.stdout.readline()
        assert line, "the writer stopped early"
        shown.append(json.loads(line))
    os.kill(proc.pid, signal.SIGKILL)
    rest = proc.stdout.read()
    proc.wait()
    shown += [json.loads(x) for x in rest.splitlines() if x.endswith("}")]

    with JournalStore(db) as store:
        core, _ = resume(store)
        journaled = [json.loads(x) for x in store.lines()]
    resumed = json.loads(json.dumps(core.snapshot(), ensure_ascii=False))
    inputs = [x for x in journaled[1:] if x["type"] != "draw"]
    # Every state the game showed was journaled first: the journal holds at
    # least as many inputs as states were shown, and at most one more.
    assert len(shown) <= len(inputs) <= len(shown) + 1
    if len(inputs) == len(shown):
        assert resumed == shown[-1]
    else:
        # Killed between the append and the effect: the journal's prefix that was
        # shown rebuilds the last state shown, and resuming applies the one more input.
        lines = [json.dumps(x, ensure_ascii=False) for x in journaled]
        last_input = max(i for i, x in enumerate(journaled) if x["type"] != "draw")
        shown_prefix = lines[:last_input]
        before, _ = rebuild(shown_prefix)
        assert json.loads(json.dumps(before.snapshot(), ensure_ascii=False)) == shown[-1]
