"""A journal that does not replay: `svoyak run --resume` stops with the line and a way on
(never a restart loop), `svoyak journal repair` makes it resumable without losing
anything in silence, and `svoyak replay` names the line of a hostile one (issue 13)."""

from __future__ import annotations

import configparser
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from buzzer.app.run_command import EXIT_STORAGE, EXIT_UNREPLAYABLE
from buzzer.journal.resume import rebuild
from buzzer.journal.store import JournalStore
from buzzer.panel.demo import demo_header
from buzzer.replay import replay_lines
from tests.support.cli import svoyak_here, svoyak_here_bytes
from tests.support.journal_files import lines_of, write_journal
from tests.support.paths import REPO

ROOT = REPO
CLI = [sys.executable, "-m", "buzzer.cli"]
RUN = [*CLI, "run", "--headless", "--host", "127.0.0.1", "--port", "0", "--no-mdns"]
HEADER = {"type": "game", **demo_header("tv-modern"), "settle_ms": 0}

#: Written by a svoyak from before the live path checked its lines: line 4 is a press of
#: the Pico's button 7 in a 3-player game, which a replay refuses.
POISONED = [
    HEADER,
    {"t": 1.0, "type": "select"},
    {"t": 1.1, "type": "reading_start"},
    {"t": 1.2, "type": "press", "seat": 8},
    {"t": 1.3, "type": "reading_end"},
    {"t": 1.4, "type": "press", "seat": 2},
    {"t": 1.5, "type": "judge", "verdict": "correct"},
]


def svoyak(*args: str) -> subprocess.CompletedProcess[str]:
    return svoyak_here(*args, cwd=ROOT)


def backups(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.before-repair-*.sqlite"))


# -- svoyak run --resume -------------------------------------------------------------------


def test_resume_stops_naming_the_line_and_the_way_on_then_repair_lets_it_go_on(
    tmp_path: Path,
) -> None:
    db = tmp_path / "game.sqlite"
    original = write_journal(db, POISONED)
    started = time.monotonic()
    done = subprocess.run(
        [*RUN, "--journal", str(db), "--resume", "--pin", "864208"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == EXIT_UNREPLAYABLE, done.stderr
    assert time.monotonic() - started < 60  # it stops: it does not serve, nor wait
    assert "Traceback" not in done.stderr
    assert "не воспроизводится со строки 4" in done.stderr
    assert "does not replay from line 4" in done.stderr and "seat" in done.stderr
    assert f"svoyak journal repair --skip-line 4 {db}" in done.stderr
    assert f"svoyak journal repair --truncate-at 4 {db}" in done.stderr
    assert lines_of(db) == original  # untouched

    repaired = svoyak("journal", "repair", "--skip-line", "4", str(db))
    assert repaired.returncode == 0, repaired.stderr
    (backup,) = backups(tmp_path)
    assert str(backup) in repaired.stderr
    assert lines_of(backup) == original  # the copy holds everything, as it was
    now = lines_of(db)
    assert len(now) == len(original) and now[:3] == original[:3] and now[4:] == original[4:]
    skipped = json.loads(now[3])
    assert skipped == {"t": 1.2, "type": "tick", "skipped": original[3]}
    result = json.loads(replay_lines(now)[-1])
    assert result["scores"]["2"] == 100  # the rest of the game stands

    # …and the game goes on from it.
    proc = subprocess.Popen(
        [*RUN, "--journal", str(db), "--resume", "--pin", "864208"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        printed = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            printed.append(line)
            if not line or line.strip().startswith("PIN:"):
                break
        assert any("journal resumed" in x for x in printed), "".join(printed)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


def test_a_header_that_does_not_replay_says_what_to_restore(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite"
    header = {**HEADER, "package": str(tmp_path / "gone.json")}
    header.pop("board")
    write_journal(db, [header, {"t": 1.0, "type": "tick"}])
    done = subprocess.run(
        [*RUN, "--journal", str(db), "--resume", "--pin", "864208"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == EXIT_UNREPLAYABLE, done.stderr
    assert "строки 1" in done.stderr and "gone.json" in done.stderr
    assert "start a new game" in done.stderr and "repair" not in done.stderr


def test_the_service_does_not_restart_on_a_journal_that_does_not_replay() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(ROOT / "deploy" / "svoyak.service", encoding="utf-8")
    service = unit["Service"]
    assert service["Restart"] == "always"
    assert str(EXIT_UNREPLAYABLE) in service["RestartPreventExitStatus"].split()
    # Nor on a journal's disk it cannot use at the start (a full disk, issue 36): freeing
    # space is the technician's to do, a restart every 2 s would meet the same disk.
    assert str(EXIT_STORAGE) in service["RestartPreventExitStatus"].split()
    # A missing Pico (exit 2) is still retried until it is there (docs/raspberry-pi.md).
    assert "2" not in service["RestartPreventExitStatus"].split()
    assert len({2, EXIT_STORAGE, EXIT_UNREPLAYABLE}) == 3
    assert "--resume" in service["ExecStart"]


# -- svoyak journal repair -----------------------------------------------------------------


def test_truncate_removes_the_lines_from_n_and_keeps_a_copy(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite"
    original = write_journal(db, POISONED)
    done = svoyak("journal", "repair", "--truncate-at", "4", str(db))
    assert done.returncode == 0, done.stderr
    assert "4 line(s) removed" in done.stderr
    assert lines_of(db) == original[:3]
    (backup,) = backups(tmp_path)
    assert lines_of(backup) == original
    # The journal goes on from there: the next line is line 4 again.
    with JournalStore(db) as store:
        assert store.append_line(json.dumps({"t": 2.0, "type": "reading_end"})) == 4
    rebuild(lines_of(db))


def test_a_repair_that_would_not_replay_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite"
    records = [*POISONED, {"t": 2.0, "type": "correction", "seat": 1, "delta": 0}]
    original = write_journal(db, records)
    done = svoyak("journal", "repair", "--skip-line", "4", str(db))
    assert done.returncode == 2
    assert "line 8" in done.stderr and "nothing was changed" in done.stderr
    assert lines_of(db) == original and backups(tmp_path) == []
    for args in (["--skip-line", "1"], ["--truncate-at", "9"], ["--skip-line", "0"]):
        refused = svoyak("journal", "repair", *args, str(db))
        assert refused.returncode == 2 and "no line" in refused.stderr, refused.stderr
    assert svoyak("journal", "repair", str(db)).returncode == 2  # how, is required
    missing = svoyak("journal", "repair", "--skip-line", "2", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 2 and "no such journal" in missing.stderr
    assert lines_of(db) == original and backups(tmp_path) == []


def test_repair_refuses_a_journal_that_changed_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from buzzer.journal import repair as module

    db = tmp_path / "game.sqlite"
    write_journal(db, POISONED)
    real_backup = module._backup

    def backup_then_a_game_writes(path: Path, lines: list[str]) -> Path:
        copy = real_backup(path, lines)
        with JournalStore(path) as store:
            store.append_line(json.dumps({"t": 3.0, "type": "tick"}))
        return copy

    monkeypatch.setattr(module, "_backup", backup_then_a_game_writes)
    with pytest.raises(module.RepairError, match="changed while"):
        module.repair(db, skip_line=4)
    assert len(lines_of(db)) == len(POISONED) + 1


def test_a_skipped_line_whose_time_is_unreadable_takes_the_time_before(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite"
    records: list[dict[str, object]] = [*POISONED[:3], {"type": "press", "seat": 1}]
    write_journal(db, records)
    assert svoyak("journal", "repair", "--skip-line", "4", str(db)).returncode == 0
    assert json.loads(lines_of(db)[3])["t"] == 1.1


# -- svoyak replay of hostile lines ----------------------------------------------------------

DEEP = '{"t": 1.0, "type": "tick", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
SURROGATE = '{"t": 1.0, "type": "correction", "seat": 1, "delta": 5, "reason": "\\ud800"}'
PAIR = '{"t": 1.0, "type": "correction", "seat": 1, "delta": 5, "reason": "\\ud83d\\ude00"}'


@pytest.mark.parametrize("hostile", [DEEP, SURROGATE], ids=["deep", "surrogate"])
@pytest.mark.parametrize("form", ["jsonl", "sqlite"])
@pytest.mark.parametrize("summary", [False, True])
def test_replay_names_the_line_of_a_hostile_one(
    tmp_path: Path, hostile: str, form: str, summary: bool
) -> None:
    lines = [json.dumps(HEADER, ensure_ascii=False), '{"t": 0.5, "type": "tick"}', hostile]
    if form == "jsonl":
        path = tmp_path / "game.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        path = tmp_path / "game.sqlite"
        with JournalStore(path) as store:
            store.append_lines(lines)
    done = svoyak("replay", *(["--summary"] if summary else []), str(path))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert re.search(rf"{re.escape(str(path))}: line 3: ", done.stderr), done.stderr


def test_a_surrogate_pair_is_a_character_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(HEADER) + "\n" + PAIR + "\n", encoding="utf-8")
    done = svoyak_here_bytes("replay", path, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "😀".encode() in done.stdout
