"""The report in Chromium: at a tablet's width and printed to A4, nothing overflows.

Opened from a file:// URL as a jury would open it: no page error, no
console error (a CSP violation would be one), no request but the file
itself, no horizontal scroll at 1024 px; in print media at A4's content
width (210 mm less the 12 mm margins) no element sticks out on the right,
and ``page.pdf`` prints it on A4 pages. A page with hostile names runs no
script and opens no dialog.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from buzzer.cli import main
from tests.support.lines import ok, pr, re_, rs, sel
from tests.support.panel_game import TABLET, TIMEOUT_MS
from tests.support.paths import EXAMPLES

#: A4's width less the @page margins (2 × 12 mm), in CSS pixels (96 per inch).
A4_CONTENT_PX = int((210 - 24) / 25.4 * 96)

OVERFLOW = """() => {
  const limit = document.documentElement.clientWidth + 0.5;
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (box.width && box.right > limit) wide.push(el.tagName + ' ' + Math.round(box.right));
  }
  return {scroll: document.documentElement.scrollWidth,
          client: document.documentElement.clientWidth, wide: wide.slice(0, 5)};
}"""


def report(tmp_path: Path, journal: Path, *extra: str) -> Path:
    target = tmp_path / f"{journal.stem}.html"
    assert main(["report", str(journal), "-o", str(target), *extra]) == 0
    return target


def open_page(browser: Any, path: Path, viewport: dict[str, int]) -> Any:
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.problems = []
    page.requests = []
    page.on("pageerror", lambda exc: page.problems.append(f"pageerror: {exc}"))
    page.on(
        "console",
        lambda msg: page.problems.append(f"console: {msg.text}") if msg.type == "error" else None,
    )
    page.on("dialog", lambda dialog: (page.problems.append("dialog"), dialog.dismiss()))
    page.on("request", lambda request: page.requests.append(request.url))
    page.goto(path.as_uri())
    return page


def assert_fits(page: Any) -> None:
    found = page.evaluate(OVERFLOW)
    assert found["scroll"] <= found["client"], found
    assert not found["wide"], found


def test_the_report_at_tablet_width_and_on_a4(browser: Any, tmp_path: Path) -> None:
    path = report(tmp_path, EXAMPLES / "full-game-tv-modern.jsonl")
    page = open_page(browser, path, TABLET)
    assert page.locator("article.question svg").count() == 8
    assert_fits(page)
    assert page.requests == [path.as_uri()]
    assert page.problems == []

    printed = open_page(browser, path, {"width": A4_CONTENT_PX, "height": 1000})
    printed.emulate_media(media="print")
    assert_fits(printed)
    # Each part starts a page in print.
    breaks = printed.evaluate(
        "() => [...document.querySelectorAll('section.page')]"
        ".map(s => getComputedStyle(s).breakBefore)"
    )
    assert breaks == ["page", "page"]
    pdf = printed.pdf(format="A4", print_background=True)
    assert pdf.startswith(b"%PDF")
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages >= 3  # the header and chart, the players, the questions
    assert printed.problems == []


def test_a_hostile_page_runs_nothing(browser: Any, tmp_path: Path) -> None:
    header = {
        "type": "game",
        "rules": "tv-modern",
        "players": ['<img src=x onerror="alert(1)">', "<script>alert(2)</script>", "\"'><b>"],
        "chooser": 1,
    }
    events = [sel(1.0, 1, 100), rs(1.5), re_(2.0), pr(2.4, 1), pr(2.5, 3), ok(3.0)]
    journal = tmp_path / "hostile.jsonl"
    lines = [json.dumps(header)] + [json.dumps(e) for e in events]
    journal.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = report(tmp_path, journal, "--lang", "en")
    page = open_page(browser, path, TABLET)
    assert page.locator("img, script, b").count() == 0
    assert "<script>alert(2)</script>" in page.inner_text("body")
    assert page.problems == []
    assert page.requests == [path.as_uri()]
