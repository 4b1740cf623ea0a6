"""TV-H-2001-09: «темы в алфавитном порядке» — the board's themes by era (issue 37).

Seed 002, Sep 2001: the themes stand on the board in alphabetical order. The
order is data of the era (``RuleSystem.theme_order``, the TV-H-2001-09 row of
``rules/eras.py``); the journal's theme numbers stay the package's, so
``svoyak package inspect --date`` checks that a package for such a game holds
its themes alphabetically (TV-H-2001-09-D1) and lists the order it should
have. Before Sep 2001, and in the championship, the package's order stands.
"""

from __future__ import annotations

import datetime
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rules.board import ThemeOrder, board_order, theme_sort_key
from rules.eras import tv_rules_for
from rules.profiles import CHAMPIONSHIP_2003, TV_1994, TV_MODERN
from tests.support.cli import svoyak_here
from tests.support.paths import REPO


def svoyak(*args: str) -> subprocess.CompletedProcess[str]:
    return svoyak_here(*args, cwd=REPO)


@pytest.mark.parametrize(
    ("day", "order"),
    [
        ("1994-04-14", ThemeOrder.PACKAGE),
        ("2001-09-15", ThemeOrder.PACKAGE),
        ("2001-09-16", ThemeOrder.ALPHABETICAL),
        ("2004-03-15", ThemeOrder.ALPHABETICAL),
        ("2010-01-01", ThemeOrder.ALPHABETICAL),
    ],
)
def test_TV_H_2001_09_the_board_order_is_the_era_s(day: str, order: ThemeOrder) -> None:
    assert tv_rules_for(datetime.date.fromisoformat(day)).theme_order is order


def test_TV_H_2001_09_the_rule_systems_say_their_order() -> None:
    assert TV_MODERN.theme_order is ThemeOrder.ALPHABETICAL
    assert TV_MODERN.citations["theme_order"] == "TV-H-2001-09"
    assert CHAMPIONSHIP_2003.theme_order is ThemeOrder.PACKAGE
    assert TV_1994.theme_order is ThemeOrder.PACKAGE
    shown = svoyak("rules", "tv-modern").stdout
    assert any(
        line.split()[:2] == ["theme_order", "alphabetical"] and line.endswith("TV-H-2001-09")
        for line in shown.splitlines()
    ), shown


def test_TV_H_2001_09_D1_the_alphabet_ignores_case_quotes_and_reads_yo_as_ye() -> None:
    themes = ("Ёлки", "авиация", "«Бег»", "ель", "Жюль Верн")
    assert board_order(themes, ThemeOrder.ALPHABETICAL) == (2, 3, 1, 4, 5)
    assert board_order(themes, ThemeOrder.PACKAGE) == (1, 2, 3, 4, 5)
    assert theme_sort_key("«Бег»") == "бег»"
    # equal names keep their order
    assert board_order(("Б", "А", "б"), ThemeOrder.ALPHABETICAL) == (2, 1, 3)


def package(path: Path, themes: list[str]) -> Path:
    def rnd(step: int) -> dict[str, Any]:
        return {
            "name": f"R{step}",
            "themes": [
                {
                    "name": name,
                    "questions": [
                        {"price": step * p, "text": "Q", "answer": "A"} for p in range(1, 6)
                    ],
                }
                for name in themes
            ],
        }

    data = {
        "format": "svoyak-package",
        "version": 1,
        "name": "alphabet",
        "rounds": [rnd(100), rnd(200), rnd(300)],
    }
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def board_notes(done: subprocess.CompletedProcess[str]) -> list[str]:
    check = json.loads(done.stdout)["era_check"]
    assert not [p for p in check["problems"] if "alphabetical" in p]
    notes: list[str] = check["board_order"]
    return notes


def test_TV_H_2001_09_D1_package_inspect_tells_the_order_the_board_will_show(
    tmp_path: Path,
) -> None:
    """Not a misfit: the board of that era orders the themes itself; inspect tells
    the host the order the players will see, round by round."""
    path = package(tmp_path / "p.json", ["Кино", "Авиация", "«Бег»"])
    done = svoyak("package", "inspect", str(path), "--json", "--date", "2002-05-01")
    shown = "the board shows the themes in alphabetical order (TV-H-2001-09): "
    assert board_notes(done) == [f"round {n}: {shown}«Авиация», ««Бег»», «Кино»" for n in (1, 2, 3)]
    text = svoyak("package", "inspect", str(path), "--date", "2002-05-01", "--lang", "en")
    assert f"  note: round 1: {shown}«Авиация», ««Бег»», «Кино»" in text.stdout
    # before Sep 2001 the package's order stands: nothing said about it
    early = svoyak("package", "inspect", str(path), "--json", "--date", "2001-09-15")
    assert board_notes(early) == []


def test_TV_H_2001_09_D1_themes_already_in_alphabetical_order_need_no_note(
    tmp_path: Path,
) -> None:
    path = package(tmp_path / "p.json", ["Авиация", "«Бег»", "ёлки", "Кино"])
    done = svoyak("package", "inspect", str(path), "--json", "--date", "2002-05-01")
    assert board_notes(done) == []


@pytest.mark.parametrize(
    ("rules", "rows"),
    [("tv-modern", [2, 3, 1]), ("championship-2003", [1, 2, 3])],
)
def test_TV_H_2001_09_the_board_s_rows_are_in_the_era_s_order(
    tmp_path: Path, rules: str, rows: list[int]
) -> None:
    """The snapshot (the board's and the panel's one source) gives the rows' order;
    the theme numbers, the journal's, stay the package's: a select of theme 1 is
    «Кино» whatever row it stands in. The next round's preview says the same."""
    from buzzer.arbiter.events import ReadingEnd, Select, Tick
    from buzzer.core import GameCore
    from buzzer.journal.codec import parse_header

    path = package(tmp_path / "p.json", ["Кино", "Авиация", "«Бег»"])
    header = {"type": "game", "rules": rules, "players": ["А", "Б"], "package": str(path)}
    core = GameCore(parse_header(json.dumps(header, ensure_ascii=False), base=tmp_path))
    snapshot = core.snapshot()
    assert snapshot["themes"] == ["Кино", "Авиация", "«Бег»"]
    assert snapshot["theme_order"] == rows
    s = 10**9
    for i, (theme, price) in enumerate([(t, p * 100) for t in (1, 2, 3) for p in range(1, 6)]):
        core.push(Select(s * (10 * i + 1), theme, price), [])
        core.push(ReadingEnd(s * (10 * i + 2)), [])
        core.push(Tick(s * (10 * i + 9)), [])  # nobody pressed: the window closed
    assert core.snapshot()["played"][0] == [1, 100]
    next_round = core.host_options(s * 200)["next_round"]
    assert next_round is not None and next_round["theme_order"] == rows
