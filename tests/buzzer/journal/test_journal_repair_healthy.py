"""`svoyak journal repair` on a line that replays fine (a new user's trial): it went
through in silence, rewrote the line and re-sealed the journal, so the seal no longer
matched the one on the paper scoresheet. Now it refuses without --force, naming the
line and why; with --force, and whenever a repair changes the seal, it prints the
old seal and the new one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from buzzer.journal.repair import HealthyLine, repair
from buzzer.journal.seal import short
from buzzer.journal.verify import verify_file
from buzzer.panel.demo import demo_header
from tests.support.cli import svoyak_here
from tests.support.journal_files import lines_of, write_journal

HEADER = {"type": "game", **demo_header("tv-modern"), "settle_ms": 0}
#: A game whose every line replays; line 4 is a correct answer's press.
HEALTHY = [
    HEADER,
    {"t": 1.0, "type": "select"},
    {"t": 1.1, "type": "reading_start"},
    {"t": 1.2, "type": "reading_end"},
    {"t": 1.4, "type": "press", "seat": 2},
    {"t": 1.5, "type": "judge", "verdict": "correct"},
]


@pytest.mark.parametrize("how", ["--skip-line", "--truncate-at"])
def test_a_healthy_line_is_refused_and_nothing_changes(tmp_path: Path, how: str) -> None:
    db = tmp_path / "game.sqlite"
    original = write_journal(db, HEALTHY)
    seal = verify_file(db).seal
    done = svoyak_here("journal", "repair", how, "5", db)
    assert done.returncode == 2, done.stderr
    assert "строка 5 воспроизводится без ошибок" in done.stderr
    assert "line 5 replays fine" in done.stderr
    assert "seal" in done.stderr and "paper scoresheet" in done.stderr
    assert "печать" in done.stderr and "--force" in done.stderr
    assert "replays completely" in done.stderr
    assert lines_of(db) == original and verify_file(db).seal == seal
    assert list(tmp_path.glob("*.before-repair-*")) == []


def test_the_refusal_names_the_line_that_does_stop_the_replay(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite"
    write_journal(db, [*HEALTHY, {"t": 2.0, "type": "press", "seat": 9}])
    done = svoyak_here("journal", "repair", "--skip-line", "3", db)
    assert done.returncode == 2
    assert "stops replaying at line 7" in done.stderr, done.stderr
    assert "перестаёт воспроизводиться на строке 7" in done.stderr
    fixed = svoyak_here("journal", "repair", "--skip-line", "7", db)
    assert fixed.returncode == 0, fixed.stderr


def test_force_repairs_it_and_prints_the_old_and_the_new_seal(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite"
    write_journal(db, HEALTHY)
    old = verify_file(db).seal
    assert old is not None
    done = svoyak_here("journal", "repair", "--skip-line", "5", "--force", db)
    assert done.returncode == 0, done.stderr
    new = verify_file(db).seal
    assert new is not None and new != old
    said = re.search(r"it was (\S+) \((\w+)\), it is now (\S+) \((\w+)\)", done.stderr)
    assert said is not None, done.stderr
    assert said.groups() == (short(old), old, short(new), new)
    assert f"была {short(old)} ({old}), стала {short(new)} ({new})" in done.stderr


def test_a_real_repair_prints_the_seals_too(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite"
    write_journal(db, [*HEALTHY[:4], {"t": 1.3, "type": "press", "seat": 8}, *HEALTHY[4:]])
    old = verify_file(db).seal
    done = svoyak_here("journal", "repair", "--skip-line", "5", db)
    assert done.returncode == 0, done.stderr
    new = verify_file(db).seal
    assert old and new and f"it was {short(old)} ({old}), it is now {short(new)}" in done.stderr


def test_the_api_refuses_too(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite"
    write_journal(db, HEALTHY)
    with pytest.raises(HealthyLine) as refused:
        repair(db, truncate_at=3)
    assert refused.value.line == 3 and refused.value.first_bad is None
    done = repair(db, truncate_at=3, force=True)
    assert done.old_seal is not None and done.new_seal == verify_file(db).seal
