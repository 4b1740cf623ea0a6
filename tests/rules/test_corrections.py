"""Corrections (seed 000 §3.7, TOUR-1.9): undo, objections, manual score changes.

History is never rewritten: each correction is an input of its own, and a
replay of the journal reproduces the corrected game.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from buzzer.journal.codec import JournalError
from buzzer.replay import replay_lines
from tests.conftest import journal, of_type, run

HEAD = {"rules": "championship-2003", "players": ["А", "Б", "В"], "chooser": 1}


def question(t: float, price: int = 30, theme: int = 1) -> list[dict[str, Any]]:
    return [
        {"t": t, "type": "select", "theme": theme, "price": price},
        {"t": t + 0.5, "type": "reading_start"},
        {"t": t + 2.0, "type": "reading_end"},
    ]


def test_undo_of_a_wrong_verdict_restores_the_answerer_and_the_score() -> None:
    out = run(
        HEAD,
        *question(1.0),  # lines 2-4
        {"t": 3.5, "type": "press", "seat": 2},  # line 5
        {"t": 4.0, "type": "judge", "verdict": "wrong"},  # line 6
        {"t": 4.5, "type": "undo", "line": 6},
        {"t": 5.0, "type": "judge", "verdict": "correct"},
    )
    undone = of_type(out, "undone")
    assert undone == [{"t": 4.5, "type": "undone", "line": 6, "stage": "question", "answering": 2}]
    scores = [(o["t"], o["delta"], o["score"]) for o in of_type(out, "score")]
    assert scores == [(4.0, -30, -30), (4.5, 30, 0), (5.0, 30, 30)]
    assert out[-1] == {"type": "result", "scores": {"1": 0, "2": 30, "3": 0}, "chooser": 2}


def test_undo_of_a_correct_verdict_gives_the_choice_back() -> None:
    out = run(
        HEAD,
        *question(1.0),
        {"t": 3.5, "type": "press", "seat": 3},
        {"t": 4.0, "type": "judge", "verdict": "correct"},  # line 6
        {"t": 6.0, "type": "undo", "line": 6},
    )
    assert [o["seat"] for o in of_type(out, "chooser")] == [3, 1]
    assert out[-1]["scores"] == {"1": 0, "2": 0, "3": 0}
    assert out[-1]["chooser"] == 1


def test_undo_of_a_correction() -> None:
    out = run(
        HEAD,
        {"t": 1.0, "type": "correction", "seat": 2, "delta": 50, "reason": "счётная ошибка"},
        {"t": 2.0, "type": "undo", "line": 2},
    )
    assert [o["score"] for o in of_type(out, "score")] == [50, 0]
    assert of_type(out, "correction")[0]["reason"] == "счётная ошибка"


@pytest.mark.parametrize(
    ("events", "line", "message"),
    [
        # Undoing the select would leave its reading and verdict meaningless.
        (
            [
                *question(1.0),
                {"t": 3.5, "type": "press", "seat": 2},
                {"t": 4.0, "type": "judge", "verdict": "wrong"},
                {"t": 5.0, "type": "undo", "line": 2},
            ],
            7,
            "cannot undo line 2: line 3 would then make no sense",
        ),
        # A press is the player's, not a host command.
        (
            [
                *question(1.0),
                {"t": 3.5, "type": "press", "seat": 2},
                {"t": 4, "type": "undo", "line": 5},
            ],
            6,
            "line 5 is not a host command that can be undone",
        ),
        # No such line.
        ([{"t": 1.0, "type": "undo", "line": 40}], 2, "line 40 is not a host command"),
        # Twice.
        (
            [
                {"t": 1.0, "type": "correction", "seat": 1, "delta": 5},
                {"t": 2.0, "type": "undo", "line": 2},
                {"t": 3.0, "type": "undo", "line": 2},
            ],
            4,
            "already been undone",
        ),
    ],
)
def test_an_undo_that_makes_no_sense_is_refused_naming_the_line(
    events: list[dict[str, Any]], line: int, message: str
) -> None:
    with pytest.raises(JournalError) as caught:
        replay_lines(journal(HEAD, *events))
    assert caught.value.line == line
    assert message in caught.value.message


def test_a_corrected_game_replays_identically_through_the_cli(tmp_path: Path) -> None:
    lines = journal(
        HEAD,
        *question(1.0),
        {"t": 3.5, "type": "press", "seat": 2},
        {"t": 4.0, "type": "judge", "verdict": "wrong"},
        {"t": 4.3, "type": "press", "seat": 3},
        {"t": 5.0, "type": "judge", "verdict": "correct"},
        {"t": 6.0, "type": "objection", "seat": 2},
        {"t": 7.0, "type": "correction", "seat": 1, "delta": -10, "reason": "подсказка"},
    )
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    outputs = []
    for _ in range(2):
        proc = subprocess.run(
            [sys.executable, "-m", "buzzer.cli", "replay", str(path)],
            capture_output=True,
            check=True,
        )
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1]
    result = json.loads(outputs[0].decode().splitlines()[-1])
    # B's −30 became +30; C answered right, so C keeps the choice (TOUR-3.7 DEFAULT).
    assert result == {"type": "result", "scores": {"1": -10, "2": 30, "3": 30}, "chooser": 3}


def test_C2003_2_7_D3_missing_final_stake_counts_as_one() -> None:
    head = {
        **HEAD,
        "board": {"themes": 1, "prices": [10]},
        "final_themes": 1,
    }
    out = run(
        head,
        {"t": 0.1, "type": "correction", "seat": 1, "delta": 100},
        {"t": 0.2, "type": "correction", "seat": 2, "delta": 80},
        {"t": 1.0, "type": "select", "theme": 1, "price": 10},
        {"t": 2.0, "type": "timeout"},
        {"t": 3.0, "type": "final_stake", "seat": 1},
        {"t": 4.0, "type": "final_stake", "seat": 2, "amount": 80},
        {"t": 5.0, "type": "reading_start"},
        {"t": 8.0, "type": "reading_end"},
        {"t": 40.0, "type": "final_judge", "verdict": "correct"},
        {"t": 41.0, "type": "final_judge", "verdict": "wrong"},
    )
    assert [(o["seat"], o["stake"]) for o in of_type(out, "final_stake")] == [(2, 80), (1, 1)]
    assert out[-1]["scores"] == {"1": 99, "2": 160, "3": 0}
    assert out[-1]["winner"] == 2
