"""C2003-2.4.5 (seed 000): one stake question in the Blue round, two in the Red (issue 37).

``svoyak package inspect --rules championship-2003`` checks a package's main
rounds against the counts the 2003 championship's regulations fix whatever
the date; the championship has no cat and no sponsor question. What does
not fit is a ``does not fit:`` line (``rules_check`` in ``--json``), exit
status 1; fits: exit status 0. Run through the real CLI.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import svoyak_here
from tests.support.paths import REPO


def svoyak(*args: str) -> subprocess.CompletedProcess[str]:
    return svoyak_here(*args, cwd=REPO)


def package(path: Path, kinds: list[list[str]]) -> Path:
    """A package whose main round n holds one question per entry of ``kinds[n]``."""

    def question(price: int, kind: str) -> dict[str, Any]:
        q: dict[str, Any] = {"price": price, "text": f"Q {price}", "answer": "A"}
        if kind != "normal":
            q["kind"] = kind
        return q

    rounds = []
    for number, round_kinds in enumerate(kinds, 1):
        step = 10 * number
        themes = [
            {
                "name": f"T{t}",
                "questions": [
                    question(
                        step * (p + 1),
                        round_kinds[t * 5 + p] if t * 5 + p < len(round_kinds) else "normal",
                    )
                    for p in range(5)
                ],
            }
            for t in range(6)
        ]
        rounds.append({"name": ("Синий", "Красный", "Третий")[number - 1], "themes": themes})
    data = {"format": "svoyak-package", "version": 1, "name": "C2003", "rounds": rounds}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


RIGHT = [["stake"], ["normal", "stake", "normal", "stake"]]


def test_C2003_2_4_5_one_stake_question_in_blue_two_in_red_fits(tmp_path: Path) -> None:
    path = package(tmp_path / "right.json", RIGHT)
    done = svoyak("package", "inspect", str(path), "--rules", "championship-2003", "--lang", "en")
    assert done.returncode == 0, (done.stdout, done.stderr)
    tail = done.stdout.rstrip().splitlines()[-2:]
    assert tail == [
        "The rules championship-2003: C2003-2.4.5: round 1: 1 stake question; "
        "round 2: 2 stake questions",
        "  fits",
    ]
    data = json.loads(
        svoyak("package", "inspect", str(path), "--json", "--rules", "championship-2003").stdout
    )
    assert data["rules_check"]["rules"] == "championship-2003"
    assert data["rules_check"]["problems"] == []


@pytest.mark.parametrize(
    ("kinds", "problems"),
    [
        (
            [["stake", "stake"], ["stake"]],
            [
                "round 1: 2 stake questions, C2003-2.4.5 had 1",
                "round 2: 1 stake question, C2003-2.4.5 had 2",
            ],
        ),
        (
            [["stake", "cat"], ["stake", "stake", "sponsor"]],
            [
                "round 1: 1 cat in the bag, C2003-2.4.5 had 0",
                "round 2: 1 sponsor question, C2003-2.4.5 had 0",
            ],
        ),
        (
            [*RIGHT, ["normal"]],
            ["C2003-2.4.5 has 2 main rounds; the package has 3"],
        ),
    ],
)
def test_C2003_2_4_5_other_counts_do_not_fit(
    tmp_path: Path, kinds: list[list[str]], problems: list[str]
) -> None:
    path = package(tmp_path / "wrong.json", kinds)
    done = svoyak("package", "inspect", str(path), "--rules", "championship-2003", "--lang", "en")
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert [
        line.removeprefix("  does not fit: ")
        for line in done.stdout.splitlines()
        if line.startswith("  does not fit: ")
    ] == problems
    done = svoyak("package", "inspect", str(path), "--json", "--rules", "championship-2003")
    assert done.returncode == 1
    assert json.loads(done.stdout)["rules_check"]["problems"] == problems


def test_C2003_2_4_5_a_system_whose_counts_go_by_date_is_not_checked() -> None:
    done = svoyak("package", "inspect", "svoyak:demo", "--rules", "tv-modern", "--lang", "en")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("not checked")
    assert "give --date" in done.stdout


def test_C2003_2_4_5_an_unknown_rules_id_is_bad_input() -> None:
    done = svoyak("package", "inspect", "svoyak:demo", "--rules", "championship-2004")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "svoyak package inspect: --rules championship-2004: unknown rules id; known: "
        "championship-2003, tv-1994, tv-modern, sport-false-start, sport-clarify, "
        "sport-no-false-start, jeopardy"
    ]
