"""The journal's seal (issue 38 item 3): every line chained to the one before it.

An appeal jury must be able to trust the journal: an edited verdict has to
show. Each line keeps a link, SHA-256 of the link before it and the line, and
``svoyak journal verify`` recomputes the chain and names the first line that
does not match. The last link is the seal, written on the paper scoresheet.
These tests edit real SQLite files the way someone with ``sqlite3`` would.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from buzzer.journal.repair import repair
from buzzer.journal.seal import GENESIS, chain, link, short, split_link, verify, with_link
from buzzer.journal.store import JournalStore, JournalWriteError
from buzzer.journal.verify import verify_file
from buzzer.panel.demo import demo_header
from buzzer.replay import replay_lines
from tests.support.cli import svoyak_here

HEADER = json.dumps({"type": "game", **demo_header("tv-modern")}, ensure_ascii=False)
INPUTS = [
    '{"t": 1.0, "type": "select", "theme": 1, "price": 100}',
    '{"t": 2.0, "type": "reading_end"}',
    '{"t": 2.5, "type": "press", "seat": 2}',
    '{"t": 4.0, "type": "judge", "verdict": "correct"}',
]


def journal(tmp_path: Path, lines: list[str] | None = None) -> Path:
    path = tmp_path / "game.sqlite"
    with JournalStore(path) as store:
        store.append_line(HEADER)
        store.append_lines(INPUTS if lines is None else lines)
    return path


def svoyak_verify(path: Path) -> subprocess.CompletedProcess[str]:
    return svoyak_here("journal", "verify", path)


def test_a_new_journal_is_sealed_and_verify_prints_its_seal(tmp_path: Path) -> None:
    path = journal(tmp_path)
    done = svoyak_verify(path)
    assert done.returncode == 0, done.stderr
    seal = chain([HEADER, *INPUTS])[-1]
    assert f"seal intact, 5 lines, seal {short(seal)} ({seal})" in done.stdout
    assert "печать цела" in done.stdout
    assert short(seal) == f"{seal[:4]}-{seal[4:8]}-{seal[8:12]}".upper()


def test_an_edited_verdict_is_caught_and_its_line_named(tmp_path: Path) -> None:
    path = journal(tmp_path)
    with sqlite3.connect(path) as db:  # a "correct" quietly made "wrong"
        db.execute("UPDATE journal SET line = replace(line, 'correct', 'wrong') WHERE seq = 5")
    # The replay agrees with the edit (it reads what is there): the seal is what shows it.
    edited = replay_lines([r[0] for r in JournalStore(path, readonly=True).rows()])
    assert json.loads(edited[-1])["scores"]["2"] == -100
    done = svoyak_verify(path)
    assert done.returncode == 1
    assert "SEAL BROKEN: line 5 does not match its link" in done.stdout
    assert "ПЕЧАТЬ НАРУШЕНА: строка 5" in done.stdout


def test_a_removed_or_inserted_line_is_caught_where_it_was(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    removed = journal(tmp_path / "a")
    with sqlite3.connect(removed) as db:
        db.execute("DELETE FROM journal WHERE seq = 3")
    assert verify_file(removed).first_bad == 3
    inserted = journal(tmp_path / "b")
    with sqlite3.connect(inserted) as db:  # a press that never happened, link copied
        db.execute(
            "INSERT INTO journal (seq, line, link) SELECT 100, line, link FROM journal "
            "WHERE seq = 5"
        )
    assert verify_file(inserted).first_bad == 6


def test_a_journal_from_before_the_seal_says_so(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE journal (seq INTEGER PRIMARY KEY, line TEXT NOT NULL)")
        db.executemany("INSERT INTO journal (line) VALUES (?)", [(x,) for x in [HEADER, *INPUTS]])
    with JournalStore(path) as store:  # resumed: it stays a journal without links
        store.append_line('{"t": 5.0, "type": "tick"}')
        assert not store.sealed
    done = svoyak_verify(path)
    assert done.returncode == 3
    assert "written before the seal" in done.stdout


def test_resume_and_a_failed_write_keep_the_chain(tmp_path: Path) -> None:
    path = journal(tmp_path, INPUTS[:2])
    with JournalStore(path, resume=True) as store:  # svoyak run --resume
        store._db.execute(
            f"PRAGMA max_page_count = {store._db.execute('PRAGMA page_count').fetchone()[0]}"
        )
        big = json.dumps({"t": 2.1, "type": "tick", "pad": "x" * 9000})
        try:
            store.append_lines([big])
        except JournalWriteError:
            pass
        else:  # pragma: no cover - the cap always refuses a line bigger than a page
            raise AssertionError("the capped journal took the line")
        store._db.execute("PRAGMA max_page_count = 1000000")
        store.append_lines(INPUTS[2:])
    found = verify_file(path)
    assert found.intact and found.seal == chain([HEADER, *INPUTS])[-1]


def test_the_export_carries_the_chain_and_replays_the_same(tmp_path: Path) -> None:
    path = journal(tmp_path)
    exported = tmp_path / "game.jsonl"
    with JournalStore(path, readonly=True) as store:
        store.export(exported)
        rows = store.rows()
    text = exported.read_text("utf-8").splitlines()
    assert [split_link(line) for line in text] == rows
    assert all(line.endswith('"}') and ', "link": "' in line for line in text)
    assert replay_lines(text) == replay_lines([HEADER, *INPUTS])  # the replay ignores it
    assert svoyak_verify(exported).returncode == 0
    assert verify_file(exported).seal == verify_file(path).seal
    exported.write_text("\n".join(t.replace('"seat": 2', '"seat": 3') for t in text) + "\n")
    done = svoyak_verify(exported)
    assert done.returncode == 1 and "line 4 does not match" in done.stdout


def test_repair_keeps_the_chain_and_changes_the_seal(tmp_path: Path) -> None:
    path = journal(tmp_path)
    before = verify_file(path)
    repair(path, skip_line=3, force=True)  # a line that replays: only by force
    after = verify_file(path)
    assert after.intact and after.seal != before.seal
    rows = JournalStore(path, readonly=True).rows()
    assert rows[1][1] == chain([HEADER, INPUTS[0]])[1]  # the lines before kept their links


def test_repair_does_not_heal_an_earlier_edit(tmp_path: Path) -> None:
    path = journal(tmp_path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE journal SET line = replace(line, '100', '200') WHERE seq = 2")
    assert verify_file(path).first_bad == 2
    repair(path, truncate_at=5, force=True)
    assert verify_file(path).first_bad == 2


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.text(min_size=1, max_size=30), min_size=1, max_size=12),
    data=st.data(),
)
def test_any_change_of_any_one_line_breaks_the_chain_there(
    lines: list[str], data: st.DataObject
) -> None:
    links = chain(lines)
    assert verify(list(zip(lines, links, strict=True))).seal == links[-1]
    at = data.draw(st.integers(0, len(lines) - 1))
    changed = data.draw(st.text(max_size=30).filter(lambda x: x != lines[at]))
    edited = [*lines[:at], changed, *lines[at + 1 :]]
    assert verify(list(zip(edited, links, strict=True))).first_bad == at + 1
    assert link(GENESIS, lines[0]) == links[0]
    assert split_link(with_link("{}", links[0])) == ("{}", links[0])
