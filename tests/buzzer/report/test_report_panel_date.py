"""The live panel's ``/report`` gives the same date as ``svoyak report`` for the same game.

A new user's trial: the console's report said «2026-12-05 (файл журнала)»
while the panel's said «не указана в журнале» for the same journal. Both
now take the journal file's date from one place (``buzzer.report.cli.file_date``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import buzzer.app.game_report as game_report
from buzzer.arbiter.events import Select
from buzzer.cli import main
from buzzer.journal.store import JournalStore
from buzzer.panel.demo import demo_header
from buzzer.runtime.controller import Controller

#: 2026-12-05 12:00 UTC: the journal file's modification time.
NOON = 1_796_472_000


def date_row(page: str) -> str:
    found = re.search(r"<dt>Дата</dt><dd>(.*?)</dd>", page)
    assert found is not None
    return found.group(1)


def test_the_panel_and_the_cli_give_the_journal_files_date(tmp_path: Path) -> None:
    path = tmp_path / "game-20261205-1200.sqlite"
    with JournalStore(str(path)) as store:
        controller = Controller.new({**demo_header("tv-modern"), "settle_ms": 0}, store=store)
        controller.submit(Select(controller.now(), 1, 100))
        os.utime(path, (NOON, NOON))
        panel = game_report.report_page(controller, "ru")
    target = tmp_path / "report.html"
    assert main(["report", str(path), "-o", str(target)]) == 0
    cli = target.read_text(encoding="utf-8")
    assert date_row(cli) == "2026-12-05 (файл журнала)"
    assert date_row(panel) == date_row(cli)


def test_a_game_with_no_journal_file_has_no_date() -> None:
    controller = Controller.new({**demo_header("tv-modern"), "settle_ms": 0})
    assert date_row(game_report.report_page(controller, "ru")) == "не указана в журнале"
