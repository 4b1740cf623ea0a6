"""Golden SVG files: the report's pictures drawn from a journal built here, byte for byte.

The pictures are hand-written SVG, so they are compared as text: a change
shows as a diff of the very elements that moved. As for the board's golden
images (docs/display.md), ``SVOYAK_REGEN_GOLDEN=1`` rewrites the golden
files in ``tests/golden/report/`` instead of comparing; open them in a
browser to look at the pictures before committing.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from buzzer.report import svg
from buzzer.report.model import Report, build_report
from tests.support.lines import bad, ok, pr, re_, rs, sel
from tests.support.paths import GOLDEN

FOLDER = GOLDEN / "report"


def game() -> Report:
    """A question with every kind of mark, an empty window, a second round, the final's
    absence; names with markup in them (escaped in every picture)."""
    header = {
        "type": "game",
        "rules": "tv-modern",
        "players": ["Анна", "<b>Борис</b>", "Вера & Co"],
        "chooser": 2,
        "seed": 8,
        "board": {
            "rounds": [
                {"name": "Первый <раунд>", "themes": ["Кино", "Музыка"], "prices": [100, 200]},
                {"name": "Второй раунд", "themes": ["Наука", "Спорт"], "prices": [200, 400]},
            ]
        },
    }
    events = [
        sel(2.0, 1, 200),
        rs(2.5),
        pr(5.5, 1),
        re_(6.0),
        pr(6.4, 2),
        pr(6.4007, 3),
        pr(7.0, 1),
        bad(9.0),
        pr(9.6, 1),
        ok(11.0),
        sel(12.0, 2, 100),
        rs(12.5),
        re_(14.0),
        pr(17.4, 3),
        sel(18.0, 1, 100),
        rs(18.5),
        re_(20.0),
        pr(20.3, 3),
        ok(21.0),
        sel(22.0, 2, 200),
        rs(22.5),
        re_(24.0),
        pr(24.25, 1),
        ok(25.0),
        sel(30.0, 2, 400),  # round 2: its band and name on the score chart
        rs(30.5),
        re_(32.0),
        pr(32.5, 2),
        ok(34.0),
    ]
    lines = [json.dumps(header, ensure_ascii=False)]
    lines += [json.dumps(e, ensure_ascii=False) for e in events]
    return build_report(lines)


def pictures() -> dict[str, Callable[[], str]]:
    report = game()
    names = report.players
    return {
        "press-timeline-ru": lambda: svg.press_timeline(report.questions[0], names, "ru"),
        "press-timeline-late-en": lambda: svg.press_timeline(report.questions[1], names, "en"),
        "score-chart-ru": lambda: svg.score_chart(report, "ru"),
        "reactions-ru": lambda: svg.reaction_histogram(report.stats[0], "ru"),
        "legend-en": lambda: svg.legend("en"),
    }


PICTURES = sorted(pictures())


@pytest.mark.parametrize("name", PICTURES)
def test_golden_svg(name: str) -> None:
    actual = pictures()[name]() + "\n"
    ET.fromstring(actual)  # well-formed XML: every text escaped
    path = FOLDER / f"{name}.svg"
    if os.environ.get("SVOYAK_REGEN_GOLDEN") == "1":
        FOLDER.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path}: run with SVOYAK_REGEN_GOLDEN=1"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, (
        f"{name}: the picture changed; SVOYAK_REGEN_GOLDEN=1 rewrites {path} (look at it first)"
    )


def test_the_pictures_hold_no_raw_markup_from_names(tmp_path: Path) -> None:
    for name, draw in pictures().items():
        text = draw()
        assert "<b>" not in text and "<раунд>" not in text, name
        assert "& " not in text.replace("&amp; ", ""), name


def test_the_colours_are_the_boards() -> None:
    from display import palette

    assert "#{:02x}{:02x}{:02x}".format(*palette.GOLD) == svg.GOLD
    colours: set[Any] = {getattr(palette, n) for n in dir(palette) if n.isupper()}
    for c in svg.SERIES:
        assert tuple(int(c[i : i + 2], 16) for i in (1, 3, 5)) in colours
