"""The shipped example journals replay, through ``svoyak replay`` (in this process:
:mod:`tests.support.cli`), to a result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import svoyak_here_bytes
from tests.support.paths import REPO

EXAMPLES = sorted((REPO / "examples").glob("*.jsonl"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_replays_to_a_result(path: Path) -> None:
    proc = svoyak_here_bytes("replay", path)
    assert proc.returncode == 0, proc.stderr.decode()
    lines = [json.loads(x) for x in proc.stdout.decode("utf-8").splitlines()]
    assert lines[-1]["type"] == "result"
    assert all("t" in line for line in lines[:-1])


def test_examples_exist() -> None:
    assert EXAMPLES, "examples/ must ship at least one journal"


def test_TV_H_1994_10_the_round_clock_example_sounds_the_warning_then_the_gong() -> None:
    path = REPO / "examples" / "tv-1995-round-clock.jsonl"
    proc = svoyak_here_bytes("replay", path)
    lines = [json.loads(x) for x in proc.stdout.decode("utf-8").splitlines()]
    timeline = [(line.get("t"), line["type"]) for line in lines if "round_" in line["type"]]
    assert timeline == [
        (550.0, "round_warning"),
        (610.0, "round_time_up"),
        (620.0, "round_started"),
    ]
