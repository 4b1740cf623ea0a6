"""The journal's disk fills up mid-game (issue 36 item 4), on a real tiny file system.

``svoyak run --headless`` journals to a file system of 512 KB
(``tests/support/tiny_disk.py``: a loop-mounted ext4 image as root, a tmpfs in
a user namespace otherwise); the test fills it while a question is being
read. What the host must get, through the real panel on 127.0.0.1 and a real
Chromium:

- a host command is refused (503) with the cause in the host's language, "the
  journal's disk is full: nothing after line N was recorded", not SQLite's
  internals ("cannot rollback - no transaction is active");
- a simulated press is refused the same way, and counted;
- the panel shows a "journal" alert with the line and the counts; the process
  prints no traceback, only one line for the technician;
- once space is freed, nothing is to be done: the runtime tries the journal
  again by itself, the alert turns into "journal_back", and the game goes on
  (the next command, the press, the verdict) without a restart;
- ``svoyak replay`` of that journal agrees with the live game, and holds the
  journal's own ``fault`` line saying what was not recorded.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.support.live_run import Host, rivers_package, served, svoyak
from tests.support.panel_game import TABLET, TIMEOUT_MS
from tests.support.tiny_disk import tiny_disk

PACKAGE = rivers_package("Диск", 2)


def journal_alerts(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in state["panel"]["alerts"] if a["kind"] in ("journal", "journal_back")]


def recorded(journal: Path) -> int:
    """The journal's lines on disk, read as another reader would."""
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
        return int(db.execute("SELECT COUNT(*) FROM journal").fetchone()[0])


def test_a_full_disk_is_told_refused_counted_and_outlived_without_a_restart(
    browser: Any,
    tmp_path: Path,
) -> None:
    package = tmp_path / "disk.json"
    package.write_text(json.dumps(PACKAGE, ensure_ascii=False), encoding="utf-8")
    with tiny_disk() as disk:
        inside = disk.inside / "game.sqlite"
        args = ("--journal", str(inside), "--rules", "tv-modern", "--package", str(package),
                "--players", "Аня,Борис,Вера")  # fmt: skip
        with served(*args, prefix=disk.prefix) as run:
            host = Host(run.url)
            assert host.command(type="select", theme=1, price=100).status_code == 200
            assert host.command(type="reading_start").status_code == 200
            line = recorded(disk.path / "game.sqlite")
            assert disk.fill() > 0, disk.how

            # The host reads on and taps "reading over": refused, with the reason.
            refused = host.command(type="reading_end")
            assert refused.status_code == 503, refused.text
            detail = refused.json()["detail"]
            assert detail["code"] == "journal_full"
            assert detail["message"].startswith("Диск журнала заполнен")
            assert f"nothing after line {line} was recorded" in detail["message_en"]
            assert "rollback" not in refused.text and "transaction" not in refused.text
            # A player's press (the panel's simulation): not recorded, so not counted.
            pressed = host.press(1)
            assert pressed.status_code == 503, pressed.text
            assert pressed.json()["detail"]["code"] == "journal_full"
            state = host.state()
            assert state["snapshot"]["phase"] == "reading"  # nothing was applied
            [alert] = journal_alerts(state)
            assert alert["kind"] == "journal" and alert["why"] == "full"
            assert (alert["line"], alert["presses"], alert["commands"]) == (line, 1, 1)

            # The host's page says it, in Russian, at the tablet's size.
            context = browser.new_context(viewport=TABLET)
            context.set_default_timeout(TIMEOUT_MS)
            context.add_cookies(
                [
                    {"name": c.name, "value": c.value or "", "url": run.url}
                    for c in host.client.cookies.jar
                ]
            )
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(run.url + "/")
            shown = page.wait_for_selector("#alerts .alert.journal")
            text = shown.inner_text()
            assert f"Диск журнала заполнен: после строки {line} ничего не записано" in text
            assert "Освободите место на диске" in text

            # Space is freed: the game goes on by itself, no restart, no command.
            disk.free()
            back = host.settled(lambda s: [a["kind"] for a in journal_alerts(s)] != ["journal"])
            [alert] = journal_alerts(back)
            assert alert["kind"] == "journal_back"
            assert (alert["presses"], alert["commands"]) == (1, 1)
            page.wait_for_selector("#alerts .alert.journal_back")
            assert "Журнал снова записывается" in page.inner_text("#alerts")
            assert errors == []
            context.close()

            assert host.command(type="reading_end").status_code == 200
            host.settled(lambda s: s["snapshot"]["phase"] == "open")
            assert host.press(2).status_code == 200
            host.settled(lambda s: s["snapshot"]["answering"] == 2)
            assert host.command(type="judge", verdict="correct").status_code == 200
            live = host.settled(lambda s: s["snapshot"]["stage"] == "board")["snapshot"]
            assert live["scores"] == {"1": 0, "2": 100, "3": 0}
        printed = run.output()
        assert "Traceback" not in printed, printed
        assert printed.count("the journal's disk is full") == 1, printed
        assert "the journal is written again" in printed

        # The journal replays to the same game, and says what it did not record.
        done = svoyak("replay", str(inside), prefix=disk.prefix)
    assert done.returncode == 0, done.stderr
    replayed = [json.loads(line) for line in done.stdout.splitlines()]
    assert replayed[-1]["scores"] == {"1": 0, "2": 100, "3": 0}
    [note] = [o for o in replayed if o.get("type") == "source_fault"]
    assert note["source"] == "journal" and note["state"] == "back"
    assert f"after line {line} (full): 1 presses, 0 releases, 1 host commands" in note["detail"]
