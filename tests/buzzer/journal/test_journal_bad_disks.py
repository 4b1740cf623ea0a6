"""Journals on bad disks (issue 13): one clear line and exit 2, never a traceback, never data loss.

Every case runs the real ``svoyak`` (``python -m buzzer.cli``) as a process on
real files: a read-only journal folder or file, a damaged page, a file cut
short, a 0-byte journal with ``--resume``, another program's SQLite
database, and a default data folder that cannot be created. Each must exit
with status 2 and one line on stderr naming the file and what to do, and
leave the file byte for byte as it was.

Read-only, for real: as an ordinary user ``chmod`` (0444 / 0555). As root,
whom ``chmod`` does not stop, the file or folder is made immutable
(``chattr +i``: not even root may write it, which is what a read-only
medium does to SQLite). The folder that cannot be created sits under a path
component that is a regular file, which stops root too.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from buzzer.app.run_command import EXIT_STORAGE
from buzzer.journal.store import APPLICATION_ID, JournalStore
from tests.support.paths import REPO

ROOT = REPO
HEADER = {"type": "game", "rules": "championship-2003", "players": ["А", "Б", "В"], "chooser": 1}
RUN = ("run", "--headless", "--host", "127.0.0.1", "--port", "0", "--no-mdns", "--pin", "864208")


def svoyak(
    *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "buzzer.cli", *map(str, args)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env=env,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"svoyak {' '.join(map(str, args))} did not stop: it took the journal")


def refused(done: subprocess.CompletedProcess[str], path: Path, *words: str) -> str:
    """One line on stderr naming ``path`` and saying ``words``, no traceback; exit status
    74 from ``svoyak run`` (a storage error: the service is not restarted into it
    every 2 s, unlike exit 2 for a missing Pico), 2 from ``replay`` and ``export``."""
    status = EXIT_STORAGE if done.args[3] == "run" else 2
    assert done.returncode == status, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    (line,) = lines
    assert str(path) in line, line
    for word in words:
        assert word in line, line
    return line


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
    }


def game_journal(path: Path, ticks: int = 400) -> Path:
    """A real journal: a header and ``ticks`` inputs, closed (its WAL folded in)."""
    with JournalStore(path) as store:
        store.append(HEADER)
        store.append_lines(
            [json.dumps({"t": i / 10, "type": "tick", "pad": "x" * 80}) for i in range(1, ticks)]
        )
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` (a file or a folder) cannot be written, whoever the tests run as."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    # Root ignores permission bits: an immutable file, or else a read-only bind mount of
    # the path onto itself (a read-only medium, which root cannot write either).
    chattr = shutil.which("chattr")
    if (
        chattr is not None
        and not subprocess.run(
            [chattr, "+i", str(path)], check=False, capture_output=True
        ).returncode
    ):
        undo = [[chattr, "-i", str(path)]]
    else:
        bind = subprocess.run(["mount", "--bind", str(path), str(path)], capture_output=True)
        remount = subprocess.run(
            ["mount", "-o", "remount,bind,ro", str(path)], capture_output=True, check=False
        )
        if bind.returncode or remount.returncode:
            subprocess.run(["umount", str(path)], capture_output=True, check=False)
            pytest.fail(
                "running as root, this file system cannot make a file immutable and "
                f"{path} cannot be bind-mounted read-only: {bind.stderr!r} {remount.stderr!r}"
            )
        undo = [["umount", str(path)]]
    try:
        probe = path / ".probe" if path.is_dir() else path
        with pytest.raises(OSError), probe.open("ab"):
            pass
        yield
    finally:
        for command in undo:
            subprocess.run(command, check=True)


# Read-only ------------------------------------------------------------------------


def test_a_new_journal_in_a_read_only_folder(tmp_path: Path, env: dict[str, str]) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    target = folder / "game.sqlite"
    with read_only(folder):
        line = refused(svoyak(*RUN, "--journal", target, env=env), target, "read-only")
        assert "--journal" in line
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("resume", [False, True])
def test_a_game_in_a_read_only_folder(tmp_path: Path, env: dict[str, str], resume: bool) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    journal = game_journal(folder / "game.sqlite")
    before = snapshot(folder)
    flags = ("--resume",) if resume else ()
    with read_only(folder):
        refused(svoyak(*RUN, *flags, "--journal", journal, env=env), journal, "read-only")
        # Reading it needs no writing: replay and export work from the read-only folder.
        done = svoyak("replay", journal, env=env)
        assert done.returncode == 0, done.stderr
        out = tmp_path / "game.jsonl"
        done = svoyak("journal", "export", journal, out, env=env)
        assert done.returncode == 0, done.stderr
        assert len(out.read_text("utf-8").splitlines()) == 400
        # Exporting *into* the read-only folder: refused, clearly.
        into = folder / "game.jsonl"
        refused(svoyak("journal", "export", journal, into, env=env), into, "cannot write")
    assert snapshot(folder) == before


def test_a_read_only_journal_file(tmp_path: Path, env: dict[str, str]) -> None:
    journal = game_journal(tmp_path / "game.sqlite")
    before = journal.read_bytes()
    with read_only(journal):
        line = refused(svoyak(*RUN, "--journal", journal, env=env), journal, "read-only")
        assert "copy" in line
    assert journal.read_bytes() == before


# Damaged --------------------------------------------------------------------------


def _damage_page(journal: Path) -> None:
    data = bytearray(journal.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    middle = (len(data) // page // 2) * page
    data[middle : middle + 8] = b"\xff" * 8  # the b-tree page's header: not a page any more
    journal.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "damage",
    ["page", "tail", "half"],
)
def test_a_damaged_journal(tmp_path: Path, env: dict[str, str], damage: str) -> None:
    journal = game_journal(tmp_path / "game.sqlite")
    intact = tmp_path / "intact.sqlite"
    shutil.copyfile(journal, intact)
    if damage == "page":
        _damage_page(journal)
    else:
        data = journal.read_bytes()
        journal.write_bytes(data[:-100] if damage == "tail" else data[: len(data) // 2])
    before = journal.read_bytes()
    for resume in ((), ("--resume",)):
        line = refused(svoyak(*RUN, *resume, "--journal", journal, env=env), journal, "damaged")
        assert ".recover" in line
    refused(svoyak("replay", journal, env=env), journal, "damaged")
    out = tmp_path / "out.jsonl"
    refused(svoyak("journal", "export", journal, out, env=env), journal, "damaged")
    assert not out.exists() and not (tmp_path / "out.jsonl.part").exists()
    assert journal.read_bytes() == before
    # The same journal undamaged replays: it is the damage that is refused.
    assert svoyak("replay", intact, env=env).returncode == 0


# Empty, or not a journal ----------------------------------------------------------


def test_resume_of_an_empty_journal_starts_no_new_game(tmp_path: Path, env: dict[str, str]) -> None:
    journal = tmp_path / "game.sqlite"
    journal.write_bytes(b"")
    line = refused(svoyak(*RUN, "--resume", "--journal", journal, env=env), journal, "no game")
    assert "without --resume" in line
    assert journal.read_bytes() == b""
    # The latest journaled game is an empty file (a power cut as it was created).
    games = Path(env["XDG_DATA_HOME"]) / "svoyak" / "games"
    games.mkdir(parents=True)
    latest = games / "game-20260901-180000.sqlite"
    latest.write_bytes(b"")
    refused(svoyak(*RUN, "--resume", env=env), latest, "no game")
    assert latest.read_bytes() == b""


def test_a_new_journal_is_never_a_0_byte_file(tmp_path: Path) -> None:
    """The journal is made whole beside its place and renamed there: a crash while it is
    created leaves no file or an empty journal, never the 0 bytes `--resume` refuses. The
    appliance's first start (`--resume` on a journal that does not exist yet) is a new game,
    and so is a journal that never got its header (a start killed at once)."""
    journal = tmp_path / "game.sqlite"
    store = JournalStore(journal, resume=True)
    try:
        assert journal.read_bytes().startswith(b"SQLite format 3\x00")
        assert [p.name for p in tmp_path.iterdir() if ".new" in p.name] == []
        assert len(store) == 0
    finally:
        store.close()
    with JournalStore(journal, resume=True) as store:
        assert len(store) == 0


def test_another_programs_database_is_left_alone(tmp_path: Path, env: dict[str, str]) -> None:
    other = tmp_path / "contacts.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
        db.execute("INSERT INTO contacts VALUES ('Аня', '+7 900 000-00-00')")
    db.close()
    stamped = tmp_path / "stamped.sqlite"
    with sqlite3.connect(stamped) as db:
        db.execute("PRAGMA application_id = 1234")
        db.execute("CREATE TABLE journal (seq INTEGER PRIMARY KEY, line TEXT NOT NULL)")
    db.close()
    text = tmp_path / "game.jsonl"
    text.write_text(json.dumps(HEADER) + "\n", "utf-8")
    for path in (other, stamped, text):
        before = path.read_bytes()
        for resume in ((), ("--resume",)):
            refused(svoyak(*RUN, *resume, "--journal", path, env=env), path, "not a svoyak journal")
        if path != text:  # a JSON Lines file is replay's to read
            refused(svoyak("replay", path, env=env), path, "not a svoyak journal")
            out = tmp_path / "out.jsonl"
            refused(svoyak("journal", "export", path, out, env=env), path, "not a svoyak journal")
            assert not out.exists()
        assert path.read_bytes() == before, path
    with sqlite3.connect(other) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["contacts"]
    db.close()


# The default data folder ----------------------------------------------------------


def test_a_default_data_folder_that_cannot_be_created(tmp_path: Path, env: dict[str, str]) -> None:
    # $XDG_DATA_HOME is a regular file: no folder can be made under it, not even by root.
    blocker = tmp_path / "data"
    blocker.write_text("not a folder", "utf-8")
    games = blocker / "svoyak" / "games"
    line = refused(svoyak(*RUN, env={**env, "XDG_DATA_HOME": str(blocker)}), games, "XDG_DATA_HOME")
    assert "--journal" in line
    assert blocker.read_text("utf-8") == "not a folder"


def test_a_default_data_folder_that_is_read_only(tmp_path: Path, env: dict[str, str]) -> None:
    games = Path(env["XDG_DATA_HOME"]) / "svoyak" / "games"
    games.mkdir(parents=True)
    with read_only(games):
        done = svoyak(*RUN, env=env)
    assert done.returncode == EXIT_STORAGE and "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert str(games) in line and "read-only" in line
    assert list(games.iterdir()) == []


# What is written is a journal -----------------------------------------------------


def test_a_new_journal_says_it_is_one(tmp_path: Path) -> None:
    """New journals carry svoyak's application_id; older ones (0) are still taken."""
    journal = game_journal(tmp_path / "new.sqlite", ticks=3)
    with sqlite3.connect(journal) as db:
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        db.execute("PRAGMA application_id = 0")  # as a journal from before issue 13
    db.close()
    with JournalStore(journal, readonly=True) as store:
        assert len(list(store.lines())) == 3
    with JournalStore(journal, resume=True) as store:
        assert len(store) == 3
