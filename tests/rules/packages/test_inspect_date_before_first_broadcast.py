"""TV-94: «В эфире с 14 апреля 1994 года» — no TV rules before the first broadcast (issue 37).

A date before it is bad input to every command that takes a date or an era:
one line on stderr naming the first broadcast and the dates accepted, exit
status 2 (the CLI's status for bad input; 1 is `package inspect --date`'s
"does not fit"), never a traceback. Run through the real CLI.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO


def svoyak(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "buzzer.cli", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_one_line_bad_input(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize("extra", [(), ("--json",), ("--lang", "en")])
@pytest.mark.parametrize("day", ["1994-04-13", "1994-01-01", "1990-05-01"])
def test_TV_94_package_inspect_date_before_the_first_broadcast_is_bad_input(
    day: str, extra: tuple[str, ...]
) -> None:
    line = assert_one_line_bad_input(
        svoyak("package", "inspect", "svoyak:demo", "--date", day, *extra)
    )
    assert line.startswith("svoyak package inspect: ")
    assert f"--date {day}" in line
    assert "first broadcast" in line and "14 April 1994" in line
    assert "from 1994-04-14 on" in line  # the dates accepted


def test_TV_94_package_inspect_date_on_the_first_broadcast_is_checked() -> None:
    done = svoyak("package", "inspect", "svoyak:demo", "--json", "--date", "1994-04-14")
    assert done.returncode in (0, 1), done.stderr  # fits or does not fit: checked
    data = json.loads(done.stdout)
    assert data["era_check"]["date"] == "1994-04-14"
    assert data["era_check"]["era"].startswith("TV-S-0b (1994 – Aug 1996)")


def test_TV_94_package_inspect_the_day_is_checked_before_the_package_is_read() -> None:
    # The date is wrong whatever the package: bad input, one line, exit status 2.
    done = svoyak("package", "inspect", "no-such-package.json", "--date", "1994-04-13")
    assert "first broadcast" in assert_one_line_bad_input(done)


@pytest.mark.parametrize(
    "header",
    [
        {"rules": "tv-1994", "date": "1994-04-13", "players": ["A", "B"]},
        {"rules": "tv@1994-04-13", "players": ["A", "B"]},
    ],
)
@pytest.mark.parametrize("summary", [(), ("--summary",)])
def test_TV_94_replay_of_a_game_dated_before_the_first_broadcast_is_bad_input(
    tmp_path: Path, header: dict[str, object], summary: tuple[str, ...]
) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps({"type": "game", **header}) + "\n", encoding="utf-8")
    line = assert_one_line_bad_input(svoyak("replay", *summary, str(path)))
    assert "line 1" in line and "1994-04-14" in line
