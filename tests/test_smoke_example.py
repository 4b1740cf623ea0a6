"""The shipped example journals replay, through the installed CLI, to a result."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.jsonl"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_replays_to_a_result(path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "buzzer.cli", "replay", str(path)],
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    lines = [json.loads(x) for x in proc.stdout.decode("utf-8").splitlines()]
    assert lines[-1]["type"] == "result"
    assert all("t" in line for line in lines[:-1])


def test_examples_exist() -> None:
    assert EXAMPLES, "examples/ must ship at least one journal"
