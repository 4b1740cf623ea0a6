"""SER-CARRY: a game's header may start the seats with given scores, and
``svoyak replay`` honours them (the three-game finals of the 2003 Challenge Cup,
docs/tournament.md#series-formats; docs/journal-contract.md ``start_scores``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.buzzer.journal.test_replay_cli import (
    HEADER,
    assert_error_on_line,
    journal_text,
    judge,
    outputs,
    pr,
    re_,
    replay,
    rs,
    sel,
    write,
)
from tests.support.cli import svoyak_here_bytes


def _summary(path: Path) -> str:

    from tests.support.paths import REPO

    proc = svoyak_here_bytes("replay", "--summary", "--lang", "en", path, cwd=REPO)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode()


def test_ser_carry_replay_starts_from_the_headers_scores(tmp_path: Path) -> None:
    header = {**HEADER, "start_scores": [120, -40, 0], "chooser": 1}
    path = write(
        tmp_path,
        journal_text(header, sel(1.0), rs(2.0), re_(6.0), pr(6.5, 2), judge(8.0, "correct")),
    )
    out = outputs(replay(path))
    scores = [o for o in out if o["type"] == "score"]
    assert scores == [{"t": 8.0, "type": "score", "seat": 2, "delta": 30, "score": -10}]
    assert out[-1]["scores"] == {"1": 120, "2": -10, "3": 0}


def test_ser_carry_without_a_question_the_result_is_the_start(tmp_path: Path) -> None:
    path = write(tmp_path, journal_text({**HEADER, "start_scores": [5, 6, 7]}))
    assert outputs(replay(path))[-1]["scores"] == {"1": 5, "2": 6, "3": 7}


def test_ser_carry_the_summary_tells_the_carried_scores(tmp_path: Path) -> None:
    header = {**HEADER, "start_scores": [120, -40, 0], "chooser": 1}
    path = write(
        tmp_path,
        journal_text(header, sel(1.0), rs(2.0), re_(6.0), pr(6.5, 2), judge(8.0, "correct")),
    )
    text = _summary(path)
    assert (
        "Scores at the start (carried from the series' last game): Аня 120 · Борис −40 · Вера 0"
        in text
    )
    assert "Борис −10" in text


def test_ser_carry_absent_is_the_rule_systems_start(tmp_path: Path) -> None:
    path = write(tmp_path, journal_text(HEADER))
    assert outputs(replay(path))[-1]["scores"] == {"1": 0, "2": 0, "3": 0}


BAD: list[Any] = [
    pytest.param([1, 2], id="too-few"),
    pytest.param([1, 2, 3, 4], id="too-many"),
    pytest.param([1, 2.5, 3], id="fraction"),
    pytest.param([1, True, 3], id="bool"),
    pytest.param([1, "2", 3], id="text"),
    pytest.param([1, 2, 10**7], id="too-large"),
    pytest.param([1, 2, -(10**7)], id="too-small"),
    pytest.param({"1": 3}, id="object"),
    pytest.param(30, id="number"),
]


@pytest.mark.parametrize("value", BAD)
def test_ser_carry_bad_start_scores_are_a_header_error(tmp_path: Path, value: Any) -> None:
    path = write(tmp_path, journal_text({**HEADER, "start_scores": value}, sel(1.0)))
    proc = replay(path)
    assert_error_on_line(proc, 1)
    assert "start_scores" in proc.stderr.decode()
