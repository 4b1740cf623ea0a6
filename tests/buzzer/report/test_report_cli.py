"""``svoyak report`` through the real command line: every shipped example, SQLite, hostile names.

Each example gives exit 0 and a page with a press picture per question the
replay played (as many as its ``question`` decisions); a game's SQLite
journal reports as its JSON Lines export does; a player's name made of
markup, quotes and control characters is text on the page, never markup;
a broken journal is exit 2, its line named, and no page written.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from buzzer.cli import main
from buzzer.journal.store import JournalStore
from buzzer.replay import decode_journal, replay_lines
from tests.support.lines import ok, pr, re_, rs, sel
from tests.support.paths import EXAMPLES, REPO

JOURNALS = sorted(EXAMPLES.glob("*.jsonl"))


def questions_played(path: Path) -> int:
    lines = decode_journal(path.read_bytes())
    out = replay_lines(lines, path.resolve().parent)
    return sum(1 for line in out if json.loads(line)["type"] == "question")


@pytest.mark.parametrize("path", JOURNALS, ids=lambda p: p.stem)
def test_every_example_reports(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "report.html"
    assert main(["report", str(path), "-o", str(target)]) == 0, capsys.readouterr().err
    page = target.read_text(encoding="utf-8")
    count = questions_played(path)
    assert page.count('<article class="question"') == count
    # A press picture per question, plus the legend and the score chart.
    assert page.count("<svg ") >= count + 2
    assert "<script" not in page.lower()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert 'id="seal"' in page


def test_english(tmp_path: Path) -> None:
    target = tmp_path / "en.html"
    journal = str(EXAMPLES / "tv-modern.jsonl")
    assert main(["report", journal, "-o", str(target), "--lang", "en"]) == 0
    page = target.read_text(encoding="utf-8")
    assert '<html lang="en">' in page and "Game report" in page and "signal" in page
    assert "Отчёт" not in page


def test_standard_output_by_default() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "buzzer.cli", "report", str(EXAMPLES / "tv-modern.jsonl")],
        capture_output=True,
        check=False,
        cwd=REPO,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(b"<!DOCTYPE html>")
    assert "Отчёт об игре".encode() in result.stdout


def test_a_sqlite_journal_reports_as_its_lines(tmp_path: Path) -> None:
    lines = decode_journal((EXAMPLES / "tv-modern.jsonl").read_bytes())
    database = tmp_path / "game.sqlite"
    with JournalStore(database) as store:
        store.append_lines(lines)
    jsonl = tmp_path / "game.jsonl"
    with JournalStore(database, readonly=True) as store:
        store.export(jsonl)  # its lines carry the seal's links: the same seal on the page
    pages = []
    for source in (database, jsonl):
        target = tmp_path / f"{source.suffix[1:]}.html"
        assert main(["report", str(source), "-o", str(target)]) == 0
        pages.append(target.read_text(encoding="utf-8"))
    assert pages[0] == pages[1]


HOSTILE = '<script>alert("x")</script>\x1b]0;pwned\x07 "q" \'s\' &amp;'


def hostile_game(tmp_path: Path) -> Path:
    header: dict[str, Any] = {
        "type": "game",
        "rules": "tv-modern",
        "players": [HOSTILE, "Борис", "<img src=x onerror=alert(1)>"],
        "chooser": 1,
        "board": {
            "rounds": [
                {
                    "name": "<svg onload=alert(1)>",
                    "themes": ["</text><script>t</script>", "B"],
                    "prices": [100, 200],
                }
            ]
        },
    }
    events = [sel(1.0, 1, 100), rs(1.5), re_(2.0), pr(2.4, 1), pr(2.5, 3), ok(3.0)]
    path = tmp_path / "hostile.jsonl"
    lines = [json.dumps(header, ensure_ascii=False)] + [json.dumps(e) for e in events]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_hostile_name_is_text_never_markup(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    assert main(["report", str(hostile_game(tmp_path)), "-o", str(target)]) == 0
    page = target.read_text(encoding="utf-8")
    assert "<script" not in page.lower()
    assert "<img" not in page.lower()
    assert "<svg onload" not in page.lower() and "&lt;svg onload=alert(1)&gt;" in page
    assert "\x1b" not in page and "\x07" not in page
    assert "&lt;script&gt;" in page  # shown, escaped
    assert "\\x1b]0;pwned\\x07" in page  # the control characters as visible escapes
    assert "&quot;q&quot;" in page and "&amp;amp;" in page


def test_a_broken_journal_is_exit_2_and_no_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text(
        '{"type": "game", "rules": "tv-modern", "players": ["A", "B"]}\n'
        '{"t": 1.0, "type": "select", "theme": 1, "price": 100}\n'
        '{"t": 2.0, "type": "judge", "verdict": "correct"}\n',
        encoding="utf-8",
    )
    target = tmp_path / "report.html"
    assert main(["report", str(path), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert "line 3" in err
    assert not target.exists()
    assert main(["report", str(tmp_path / "missing.jsonl"), "-o", str(target)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_seal_has_its_marked_place() -> None:
    """The seal (issue 38 item 3) is shown when given, escaped; the box says when there is none."""
    from buzzer.report.html import render_report
    from buzzer.report.model import build_report

    report = build_report(decode_journal((EXAMPLES / "tv-modern.jsonl").read_bytes()))
    sealed = render_report(report, "en", seal="9F3A-<b>-77C1")
    box = sealed[sealed.index('id="seal"') :]
    box = box[: box.index("</div>")]
    assert "<code>9F3A-&lt;b&gt;-77C1</code>" in box
    unsealed = render_report(report, "en")
    assert "none (a journal before seals" in unsealed


def test_a_sealed_journal_s_report_shows_its_seal_and_a_broken_one_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The seal the host copies from the report is the one ``journal verify`` prints."""
    import sqlite3

    from buzzer.journal.seal import short
    from buzzer.journal.verify import verify_file

    lines = decode_journal((EXAMPLES / "full-game-tv-modern.jsonl").read_bytes())
    game = tmp_path / "game.sqlite"
    with JournalStore(game) as store:
        store.append_lines(lines)
    seal = verify_file(game).seal
    assert seal is not None
    page = tmp_path / "game.html"
    assert main(["report", str(game), "-o", str(page)]) == 0
    box = page.read_text("utf-8").split('id="seal"', 1)[1][:400]
    assert short(seal) in box
    exported = tmp_path / "game.jsonl"
    with JournalStore(game, readonly=True) as store:
        store.export(exported)
    assert main(["report", str(exported), "-o", str(page)]) == 0
    assert short(seal) in page.read_text("utf-8")
    with sqlite3.connect(game) as db:
        db.execute("UPDATE journal SET line = replace(line, '\"t\": ', '\"t\":  ') WHERE seq = 40")
    capsys.readouterr()
    assert main(["report", str(game), "-o", str(page)]) == 0
    assert short(seal) not in page.read_text("utf-8")
    assert "the journal's seal is broken at line" in capsys.readouterr().err
