"""After the game (issue 38 item 2): the report on the panel and beside the journal.

Through a real ``svoyak run --headless`` on 127.0.0.1 and a real Chromium: while
the game is on, ``/report`` is the host's alone (it shows the answers); once
the game is over anyone may open it (the board's QR code leads there), the
host's and the viewer's pages link to it, and ``svoyak run`` has written
``GAME.html`` beside the journal. The seal on it is the one ``svoyak journal
verify`` prints.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from buzzer.journal.seal import short
from tests.support.live_run import Host, rivers_package, served, svoyak
from tests.support.panel_game import TABLET, TIMEOUT_MS

PACKAGE = rivers_package("Отчёт", 1)


def test_the_report_is_the_host_s_until_the_game_is_over_then_everyone_s(
    browser: Any,
    tmp_path: Path,
) -> None:
    package = tmp_path / "report.json"
    package.write_text(json.dumps(PACKAGE, ensure_ascii=False), encoding="utf-8")
    journal = tmp_path / "game.sqlite"
    args = ("--journal", str(journal), "--rules", "sport-false-start",
            "--package", str(package), "--players", "Аня,Борис,Вера")  # fmt: skip
    with served(*args) as run:
        host = Host(run.url)
        early = httpx.get(run.url + "/report", timeout=10)
        assert early.status_code == 403
        assert early.json()["detail"]["code"] == "report_not_yet"
        assert host.client.get("/report").status_code == 200  # the host's, already
        assert host.command(type="select", theme=1, price=100).status_code == 200
        assert host.command(type="reading_start").status_code == 200
        assert host.command(type="reading_end").status_code == 200
        host.settled(lambda s: s["snapshot"]["phase"] == "open")
        assert host.press(2).status_code == 200
        host.settled(lambda s: s["snapshot"]["answering"] == 2)
        assert host.command(type="judge", verdict="correct").status_code == 200
        assert host.settled(lambda s: s["snapshot"]["stage"] == "over")["snapshot"]["winner"] == 2

        public = httpx.get(run.url + "/report", timeout=10)
        assert public.status_code == 200
        assert public.headers["content-type"].startswith("text/html")
        assert "script-src" not in public.headers["content-security-policy"]
        assert "<script" not in public.text and "Аня" in public.text
        english = httpx.get(run.url + "/report?lang=en", timeout=10).text
        assert '<html lang="en">' in english

        # The viewer's page (anyone's) links to it; the page itself opens with its styles.
        page = browser.new_page(viewport=TABLET)
        page.set_default_timeout(TIMEOUT_MS)
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.goto(run.url + "/view")
        link = page.wait_for_selector("#report-link")
        assert link.get_attribute("href") == "/report?lang=ru"
        page.goto(run.url + "/report")
        page.wait_for_selector("#seal")
        # Its inline CSS applies under the route's policy (headings in the board's blue).
        heading = page.evaluate("getComputedStyle(document.querySelector('h1')).color")
        assert heading != "rgb(0, 0, 0)", heading
        assert page.evaluate("document.documentElement.scrollWidth") <= TABLET["width"]
        assert problems == []
        page.close()
        shown_seal = public.text.split('id="seal"', 1)[1][:600]
    beside = journal.with_suffix(".html")
    assert beside.is_file(), run.output()
    assert f"the game's report: {beside}" in run.output()
    done = svoyak("journal", "verify", str(journal))
    assert done.returncode == 0, done.stdout + done.stderr
    seal = done.stdout.split("(", 2)[-1].split(")")[0]
    assert len(seal) == 64
    assert short(seal) in shown_seal
    assert short(seal) in beside.read_text("utf-8")
