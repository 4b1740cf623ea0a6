"""TV-S-CAT-4-D1: a cat's value equal to its cell's own price (issue 37).

Seed 002, Sep 1996: the cats' values «не совпадают с исходными» — the
editors gave a cat a value other than its cell's price. Decision: a warning,
not a refusal. ``package inspect --date`` in an era where the editors fixed
the value (Sep 1996 – Jul 2007) lists such a cat as ``does not fit`` (exit
status 1); from Aug 2007 the receiver picks the round's minimum or maximum
(TV-S-CAT-2), which may well be the cell's price, so nothing is said. At
play time the host's ``cat_price`` equal to the cell's price is taken as
entered: the host reads the editors' sheet, and the game goes on.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import of_type, run
from tests.support.cli import svoyak_here
from tests.support.lines import ok
from tests.support.paths import REPO


def svoyak(*args: str) -> subprocess.CompletedProcess[str]:
    return svoyak_here(*args, cwd=REPO)


def package(path: Path, cat_value: int) -> Path:
    """Sep 1996 – 2000 counts (TV-S-0b): Blue 2 cats + 1 stake, Red 1 cat + 2 stakes.

    The first cat (Blue, theme 1, 30) is worth ``cat_value``; the others 40.
    """

    def q(price: int, kind: str = "normal", value: int = 40) -> dict[str, Any]:
        out: dict[str, Any] = {"price": price, "text": f"Q {price}", "answer": "A"}
        if kind != "normal":
            out["kind"] = kind
        if kind == "cat":
            out["cat"] = {"price": value}
        return out

    def rnd(name: str, step: int, specials: dict[tuple[int, int], tuple[str, int]]) -> Any:
        return {
            "name": name,
            "themes": [
                {
                    "name": f"T{t}",
                    "questions": [
                        q(step * p, *specials.get((t, p), ("normal", 40))) for p in range(1, 6)
                    ],
                }
                for t in range(1, 7)
            ],
        }

    blue = rnd("Синий", 10, {(1, 3): ("cat", cat_value), (2, 1): ("cat", 40), (3, 2): ("stake", 0)})
    red = rnd("Красный", 20, {(1, 1): ("cat", 40), (2, 2): ("stake", 0), (3, 3): ("stake", 0)})
    data = {"format": "svoyak-package", "version": 1, "name": "1997", "rounds": [blue, red]}
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


PROBLEM = (
    "round 1, theme 1 «T1», 30: the cat's value is its cell's own price; "
    "from Sep 1996 the editors' values differ from it (TV-S-CAT-4-D1)"
)


@pytest.mark.parametrize("day", ["1996-09-01", "1997-05-01", "2007-07-31"])
def test_TV_S_CAT_4_D1_a_cat_worth_its_cells_price_does_not_fit_while_values_are_fixed(
    tmp_path: Path, day: str
) -> None:
    path = package(tmp_path / "same.json", 30)
    done = svoyak("package", "inspect", str(path), "--json", "--date", day)
    assert done.returncode == 1, done.stderr
    assert PROBLEM in json.loads(done.stdout)["era_check"]["problems"]
    done = svoyak("package", "inspect", str(path), "--date", day, "--lang", "en")
    assert f"  does not fit: {PROBLEM}" in done.stdout.splitlines()


def test_TV_S_CAT_4_D1_a_cat_worth_another_value_fits(tmp_path: Path) -> None:
    done = svoyak(
        "package",
        "inspect",
        str(package(tmp_path / "p.json", 50)),
        "--date",
        "1997-05-01",
        "--lang",
        "en",
    )
    assert done.returncode == 0, done.stdout
    assert done.stdout.rstrip().endswith("fits")


@pytest.mark.parametrize("day", ["1996-08-31", "2007-08-01", "2010-01-01"])
def test_TV_S_CAT_4_D1_not_said_where_the_editors_did_not_fix_the_value(
    tmp_path: Path, day: str
) -> None:
    # Before Sep 1996 there were no cats (the counts say so); from Aug 2007 the
    # receiver picks the round's minimum or maximum (TV-S-CAT-2).
    done = svoyak(
        "package", "inspect", str(package(tmp_path / "p.json", 30)), "--json", "--date", day
    )
    problems = json.loads(done.stdout)["era_check"]["problems"]
    assert not [p for p in problems if "TV-S-CAT-4-D1" in p]


def test_TV_S_CAT_4_D1_at_play_time_the_hosts_value_equal_to_the_price_is_taken() -> None:
    head = {
        "rules": "tv@1997-05-01",
        "players": ["A", "B", "C"],
        "chooser": 1,
        "specials": [{"round": 1, "theme": 1, "price": 30, "kind": "cat"}],
    }
    out = run(
        head,
        {"t": 1.0, "type": "select", "theme": 1, "price": 30},
        {"t": 2.0, "type": "cat_give", "seat": 2},
        {"t": 3.0, "type": "cat_price", "price": 30},
        ok(5.0),
    )
    assert [(o["seat"], o["delta"]) for o in of_type(out, "score")] == [(2, 30)]
