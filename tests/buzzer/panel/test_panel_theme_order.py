"""TV-H-2001-09 on the host's tablet: the board's rows in alphabetical order, the
cells still the package's theme numbers (the journal's). Real uvicorn, Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.panel_game import STILL, host_page, package_rig


def unsorted_package() -> dict[str, Any]:
    themes = [
        {
            "name": name,
            "questions": [{"price": p, "text": "Вопрос", "answer": ["Ответ"]} for p in (100, 200)],
        }
        for name in ("Кино", "Авиация", "«Бег»")
    ]
    return {
        "format": "svoyak-package",
        "version": 1,
        "name": "Алфавит",
        "rounds": [{"name": "1-й раунд", "themes": themes}],
    }


@pytest.mark.parametrize(
    ("rules", "rows"),
    [
        ("tv-modern", ["Авиация", "«Бег»", "Кино"]),
        ("championship-2003", ["Кино", "Авиация", "«Бег»"]),
    ],
)
def test_TV_H_2001_09_the_host_s_board_stands_in_the_era_s_order(
    browser: Any, tmp_path: Path, rules: str, rows: list[str]
) -> None:
    with package_rig(tmp_path, unsorted_package(), rules=rules, game_options=STILL) as rig:
        page = host_page(browser, rig)
        page.wait_for_selector(".board-row")
        assert (
            page.eval_on_selector_all(".board-row .theme", "els => els.map(e => e.textContent)")
            == rows
        )
        # the top row's first cell is that theme's, by the package's number
        page.click(".board-row:first-child .cell[data-price='100']")
        rig.wait_state(lambda s: s["stage"] == "question", "the question")
        number = ["Кино", "Авиация", "«Бег»"].index(rows[0]) + 1
        assert rig.state()["cell"] == [number, 100]
        assert next(x for x in rig.lines() if x.get("type") == "select")["theme"] == number
        assert page.errors == []
