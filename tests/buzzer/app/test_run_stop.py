"""Ctrl-C on ``svoyak run`` (a new user's trial): the console says the game stopped,
where its journal is and the exact command to continue; a finished game names its
report instead. Through a real process: the signal is the user's."""

from __future__ import annotations

import json
import shlex
import time
from pathlib import Path

from tests.support.live_run import Host, LiveRun, rivers_package, served


def finished_output(run: LiveRun, needle: str) -> str:
    """Everything the process printed once it has exited (the pipe read to its end)."""
    deadline = time.monotonic() + 10
    while needle not in run.output() and time.monotonic() < deadline:
        time.sleep(0.05)
    return run.output()


def test_ctrl_c_on_an_unfinished_game_says_where_it_is_and_how_to_continue(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "вечер игры.sqlite"
    with served("--journal", str(journal), "--no-mdns") as run:
        host = Host(run.url, run.pin)
        assert host.command(type="select", theme=1, price=100).status_code == 200
    assert run.proc.returncode == 0
    command = f"svoyak run --journal {shlex.quote(str(journal))} --resume"
    printed = finished_output(run, command)
    assert "игра остановлена, она не окончена / the game stopped, it is not over" in printed
    assert f"журнал / journal: {journal}" in printed
    assert f"продолжить / to continue: {command}" in printed, printed
    assert "Traceback" not in printed


def test_ctrl_c_on_a_finished_game_names_its_report(tmp_path: Path) -> None:
    package = tmp_path / "rivers.json"
    package.write_text(json.dumps(rivers_package("Стоп", 1), ensure_ascii=False), "utf-8")
    journal = tmp_path / "game.sqlite"
    args = ("--journal", str(journal), "--rules", "sport-false-start", "--no-mdns",
            "--package", str(package), "--players", "Аня,Борис")  # fmt: skip
    with served(*args) as run:
        host = Host(run.url, run.pin)
        assert host.command(type="select", theme=1, price=100).status_code == 200
        assert host.command(type="reading_start").status_code == 200
        assert host.command(type="reading_end").status_code == 200
        host.settled(lambda s: s["snapshot"]["phase"] == "open")
        assert host.press(1).status_code == 200
        host.settled(lambda s: s["snapshot"]["answering"] == 1)
        assert host.command(type="judge", verdict="correct").status_code == 200
        host.settled(lambda s: s["snapshot"]["stage"] == "over")
    report = journal.with_suffix(".html")
    printed = finished_output(run, "it is over")
    assert "игра остановлена; она окончена / the game stopped; it is over" in printed, printed
    stop = printed[printed.index("the game stopped") :]
    assert f"the game's report: {report}" in stop and report.is_file()
    assert "--resume" not in stop


def test_a_game_stopped_before_anything_was_played_leaves_no_journal_and_says_so(
    tmp_path: Path,
) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    with served("--no-mdns", env=env) as run:
        Host(run.url, run.pin)  # the panel serves: the start is over
    printed = finished_output(run, "no journal kept")
    assert "the game stopped before anything was played: no journal kept" in printed, printed
    assert "--resume" not in printed
    assert not list((tmp_path / "svoyak" / "games").glob("*.sqlite"))


def test_the_stop_s_words_are_in_the_catalogue() -> None:
    """``run_end.py``'s keys, read the way the catalogue's scan reads run_command.py's."""
    import re

    from buzzer import words
    from tests.support.paths import REPO

    source = (REPO / "buzzer" / "app" / "run_end.py").read_text(encoding="utf-8")
    used = set(re.findall(r"['\"](run\.[a-z0-9_.]+)['\"]", source))
    assert len(used) >= 6, used
    assert used <= words.keys("ru") and used <= words.keys("en")
