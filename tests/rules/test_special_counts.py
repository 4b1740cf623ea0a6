"""TV-S-0b, TV-H-2003-01: the special questions each era had, checked against a package."""

from __future__ import annotations

import datetime
import json
import subprocess

import pytest

from rules.special_counts import count_problems, era_counts
from tests.support.cli import svoyak_here
from tests.support.paths import REPO

ROOT = REPO


def day(text: str) -> datetime.date:
    return datetime.date.fromisoformat(text)


@pytest.mark.parametrize(
    ("date", "rounds"),
    [
        ("1995-06-01", [{"stake": 1}, {"stake": 2}]),  # TV-S-0b 1994 – Aug 1996
        ("1998-02-01", [{"cat": 2, "stake": 1}, {"cat": 1, "stake": 2}]),  # Sep 1996 – 2000
        ("2002-05-01", [{"cat": 3}, {"cat": 2, "stake": 2}, {"stake": 3}]),  # Sep 2001 – 2002
        ("2004-03-15", [{"cat": 2, "stake": 1}, {"cat": 2, "stake": 2}, {"cat": 1, "stake": 2}]),
    ],
)
def test_TV_S_0b_a_game_as_on_tv_fits_its_era(date: str, rounds: list[dict[str, int]]) -> None:
    assert count_problems(day(date), rounds) == []


def test_TV_S_0b_per_round_counts_name_what_differs() -> None:
    problems = count_problems(day("1998-02-01"), [{"cat": 1, "stake": 1}, {"cat": 1, "stake": 2}])
    assert problems == ["round 1: 1 cat in the bag, TV-S-0b (Sep 1996 – 2000) had 2"]
    problems = count_problems(day("1995-06-01"), [{"stake": 1}])
    assert problems == ["TV-S-0b (1994 – Aug 1996) has 2 main rounds; the package has 1"]


def test_TV_H_2003_01_five_and_five_with_one_of_each_per_round() -> None:
    rounds = [{"cat": 3, "stake": 2}, {"cat": 2, "stake": 3}, {}]
    assert count_problems(day("2003-01-01"), rounds) == [
        "round 3: no cat in the bag; TV-H-2003-01 had at least one",
        "round 3: no stake question; TV-H-2003-01 had at least one",
    ]
    short = [{"cat": 1, "stake": 1}] * 3
    assert count_problems(day("2010-01-01"), short)[:2] == [
        "the game: 3 cats in the bag, TV-H-2003-01 had 5",
        "the game: 3 stake questions, TV-H-2003-01 had 5",
    ]


def test_TV_S_0b_the_sponsor_question_once_in_rounds_1_and_3_while_it_exists() -> None:
    rounds = [{"cat": 2, "stake": 1, "sponsor": 1}, {"cat": 2, "stake": 2}, {"cat": 1, "stake": 2}]
    assert count_problems(day("2010-01-01"), rounds, sponsor_rounds=(1, 3)) == [
        "round 3: 0 sponsor questions, the era had 1 (TV-S-0b)"
    ]
    assert count_problems(day("2010-01-01"), rounds, sponsor_rounds=()) == [
        "round 1: 1 sponsor question, the era had 0 (TV-S-0b)"
    ]


def test_dates_the_sources_give_no_counts_for_are_not_checked() -> None:
    assert era_counts(day("2001-05-01")) is None  # Jan – mid-Sep 2001
    assert count_problems(day("2001-05-01"), [{}]) == []
    assert era_counts(day("2001-09-16")) is not None  # TV-H-2001-09's exact day


def inspect(*args: str) -> subprocess.CompletedProcess[str]:
    return svoyak_here("package", "inspect", "svoyak:demo", *args, cwd=ROOT)


def test_package_inspect_date_reports_what_does_not_fit_the_era() -> None:
    done = inspect("--date", "2004-03-15", "--lang", "en")
    assert done.returncode == 1, done.stderr
    assert "The TV game of 2004-03-15: TV-H-2003-01" in done.stdout
    assert "  does not fit: round 1: no stake question" in done.stdout
    done = inspect("--date", "2001-05-01", "--lang", "en")
    assert done.returncode == 0 and done.stdout.rstrip().endswith("not checked")
    data = json.loads(inspect("--json", "--date", "2004-03-15").stdout)
    assert data["era_check"]["era"].startswith("TV-H-2003-01")
    assert (
        "round 2: no cat in the bag; TV-H-2003-01 had at least one"
        in (data["era_check"]["problems"])
    )
    assert "expected a date" in inspect("--date", "15.03.2004").stderr
