"""The report's labels as a new user's trial read them, measured in Chromium.

1. A window longer than the picture ends in a label that says what it is
   («окно до 19.106 с →»), not a bare «→ 19.106 с» taken for a press.
2. A verdict label («✓ +100») sits beside its mark in the middle of its row:
   no row line or window edge runs through it, no mark lies under it.
3. The score chart's labels never run into each other: «кот» and «спонс.»
   on adjacent questions are staggered (they read «котспонс.»), and the
   question numbers thin out where they would touch.
4. The players' median and best reactions are in one unit: seconds to the
   millisecond («0.429 с», «1.163 с»), never «429.091 мс» beside «1.163 с».
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from buzzer.report import svg
from buzzer.report.html import render_report
from buzzer.report.model import Player, Point, build_report
from tests.support.panel_game import TABLET
from tests.support.paths import EXAMPLES

FULL = EXAMPLES / "full-game-tv-modern.jsonl"

BOXES = """(selector) => [...document.querySelectorAll(selector)].map(el => {
  const b = el.getBoundingClientRect();
  return {text: el.textContent, tag: el.tagName, left: b.left, right: b.right,
          top: b.top, bottom: b.bottom};
})"""


def full_report() -> Any:
    return build_report(FULL.read_text(encoding="utf-8").splitlines(), EXAMPLES)


def crowded_report() -> Any:
    """The full game's report with 40 questions on its chart: a cat then a sponsor's,
    an auction right after, two cats side by side."""
    report = full_report()
    points = [report.points[0]]
    scores = (0, 0, 0)
    specials = {3: "cat", 4: "sponsor", 5: "stake", 10: "cat", 11: "cat"}
    for i in range(1, 41):
        scores = (scores[0] + 100 * (i % 3 == 0), scores[1] + 100 * (i % 3 == 1), scores[2])
        points.append(Point("question", 1, scores, i, specials.get(i)))
    points.append(Point("final", 1, scores))
    return dataclasses.replace(report, points=tuple(points), rounds=report.rounds[:1])


def open_html(browser: Any, tmp_path: Path, name: str, html: str) -> Any:
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    page = browser.new_page(viewport=TABLET)
    page.goto(path.as_uri())
    return page


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    )


def test_the_labels_of_the_press_timelines_and_the_chart(browser: Any, tmp_path: Path) -> None:
    page = open_html(browser, tmp_path, "full.html", render_report(full_report(), "ru"))
    # 1. the window's end, in words
    untils = page.evaluate(BOXES, "article.question svg text")
    assert not [t for t in untils if t["text"].startswith("→")]
    ends = [t["text"] for t in untils if t["text"].startswith("окно до")]
    assert ends and all(re.fullmatch(r"окно до [\d.]+ с →", e) for e in ends), ends
    # 2. each verdict label: no horizontal line through it, no mark under it
    figures = page.locator("article.question figure svg")
    checked = 0
    for k in range(figures.count()):
        figure = figures.nth(k)
        labels = figure.evaluate(
            "(svg) => [...svg.querySelectorAll('text')].filter(t => /^[✓✗]/.test("
            "t.textContent)).map(t => { const b = t.getBoundingClientRect(); return "
            "{text: t.textContent, left: b.left, right: b.right, top: b.top, "
            "bottom: b.bottom}; })"
        )
        lines = figure.evaluate(
            "(svg) => [...svg.querySelectorAll('line')].map(l => { const b = "
            "l.getBoundingClientRect(); return {left: b.left, right: b.right, "
            "top: b.top, bottom: b.bottom}; }).filter(b => b.bottom - b.top < 3)"
        )
        marks = figure.evaluate(
            "(svg) => [...svg.querySelectorAll('circle, path')].map(m => { const b = "
            "m.getBoundingClientRect(); return {left: b.left, right: b.right, "
            "top: b.top, bottom: b.bottom}; })"
        )
        for label in labels:
            checked += 1
            for line in lines:
                through = line["top"] - 1 < label["bottom"] and label["top"] < line["bottom"] + 1
                assert not (through and overlap({**line, "top": label["top"],
                                                 "bottom": label["bottom"]}, label)), (
                    k, label, line)  # fmt: skip
            assert not [m for m in marks if overlap(m, label)], (k, label)
    assert checked >= 5

    # 3. the chart's labels under it, the staggered specials
    chart = open_html(
        browser, tmp_path, "chart.html",
        f'<body style="margin:0;width:720px">{svg.score_chart(crowded_report(), "ru")}</body>',
    )  # fmt: skip
    texts = chart.evaluate(BOXES, "svg text")
    plot_bottom = max(t["top"] for t in texts if t["text"] == "0")  # the y axis' zero
    under = [t for t in texts if t["top"] > plot_bottom + 20 and t["left"] < 600]
    assert {"кот", "спонс.", "аукц.", "финал", "начало"} <= {t["text"] for t in under}
    for i, a in enumerate(under):
        for b in under[i + 1 :]:
            assert not overlap(a, b), (a, b)
    heights = chart.evaluate("() => document.querySelector('svg').getBBox().height")
    assert heights > 280  # it grew a row of labels for the stagger


def test_the_reaction_columns_keep_one_unit() -> None:
    report = full_report()
    stats = list(report.stats)
    stats[0] = dataclasses.replace(stats[0], reactions_us=(1_163_000, 1_163_000))
    stats[1] = dataclasses.replace(stats[1], reactions_us=(429_091,))
    page = render_report(dataclasses.replace(report, stats=tuple(stats)), "ru")
    values = re.findall(r"<dt>(?:Медиана реакции|Лучшая)</dt><dd>(.*?)</dd>", page)
    assert values[:4] == ["1.163 с", "1.163 с", "0.429 с", "0.429 с"]
    assert all(re.fullmatch(r"\d+\.\d{3} с", v) for v in values), values
    english = render_report(dataclasses.replace(report, stats=tuple(stats)), "en")
    assert "<dt>Best</dt><dd>0.429 s</dd>" in english


def test_a_player_with_no_reaction_has_a_dash() -> None:
    report = full_report()
    quiet = Player(1, "Анна", (), 0, 0, 0, 0, 0, (), 0)
    page = render_report(dataclasses.replace(report, stats=(quiet,)), "ru")
    assert "<dt>Медиана реакции</dt><dd>—</dd>" in page
