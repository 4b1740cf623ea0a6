"""The host's panel, as a new host found it playing a whole package (issue 35 item 4):
each defect in a real headless Chromium, at a tablet's 1024×768 and a phone's 390×844.

Each test failed before its fix.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.panel_game import (
    chromium,
    host_page,
    package_rig,
    press,
    wait_stage,
)
from tests.support.panel_support import Commands

STILL = {"window_s": 600, "answer_time_s": 600}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as browser:
        yield browser


def shoot(page: Any, name: str) -> None:
    """``SVOYAK_PANEL_SHOTS=dir``: a screenshot of the page there, to look at."""
    folder = os.environ.get("SVOYAK_PANEL_SHOTS")
    if folder:
        os.makedirs(folder, exist_ok=True)
        page.screenshot(path=os.path.join(folder, f"defects-{name}.png"))


def two_rounds() -> dict[str, Any]:
    """Two rounds of one theme each, named differently (as a real package's are)."""

    def round_of(name: str, theme: str, price: int) -> dict[str, Any]:
        question = {"price": price, "text": f"Вопрос {theme}", "answer": [f"Ответ {theme}"]}
        return {"name": name, "themes": [{"name": theme, "questions": [question]}]}

    return {
        "format": "svoyak-package",
        "version": 1,
        "name": "Два раунда",
        "rounds": [round_of("1", "ЖЁЛТАЯ ТЕМА", 100), round_of("2", "ЖЮЛЬ ВЕРН", 200)],
    }


def log_entries(page: Any) -> list[str]:
    page.click("#log-btn")
    page.wait_for_selector("#log-dialog[open]")
    entries: list[str] = page.eval_on_selector_all(
        "#log-list li", "items => items.map((li) => li.textContent)"
    )
    return entries


def test_the_log_names_each_question_by_its_own_round_and_each_verdict_by_whose(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, two_rounds(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        commands.ok({"type": "select", "theme": 1, "price": 100})
        rig.wait_state(lambda s: s["stage"] == "question", "the question")
        commands.ok({"type": "reading_end"})
        rig.wait_state(lambda s: s["phase"] == "open", "the open window")
        press(rig, commands, 2)
        rig.wait_state(lambda s: s["answering"] == 2, "Борис answering")
        commands.ok({"type": "judge", "verdict": "correct"})
        # Round 2: its select names its own theme, and round 1's keeps its own.
        commands.ok({"type": "select", "theme": 1, "price": 200})
        rig.wait_state(lambda s: s["round"] == 2 and s["stage"] == "question", "round 2")
        wait_stage(page, "question")
        entries = log_entries(page)
        assert any("Выбор: ЖЮЛЬ ВЕРН — 200" in e for e in entries), entries
        assert any("Выбор: ЖЁЛТАЯ ТЕМА — 100" in e for e in entries), entries
        assert not any("ЖЮЛЬ ВЕРН — 100" in e for e in entries), entries
        # The verdict says whose.
        verdict = next(e for e in entries if "Верно" in e)
        assert "Верно: Борис" in verdict, entries
        shoot(page, "log-tablet")

        # The undo's question says what will be undone, not a journal line.
        asked: list[str] = []

        def answer(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.dismiss()

        page.once("dialog", answer)
        page.click("#log-list li:has-text('Верно') button")
        page.wait_for_timeout(200)
        assert len(asked) == 1
        assert "строка" not in asked[0], asked
        assert "Верно: Борис" in asked[0] and "ЖЁЛТАЯ ТЕМА — 100" in asked[0], asked
        assert rig.state()["scores"]["2"] == 100  # dismissed: nothing undone

        # In English too.
        page.click("#lang-btn")
        page.wait_for_function("document.querySelector('#undo-btn').textContent.includes('Undo')")
        entries = log_entries(page)
        assert any("Correct: Борис" in e for e in entries), entries
        assert any("Chose: ЖЁЛТАЯ ТЕМА — 100" in e for e in entries), entries
        assert page.errors == []
