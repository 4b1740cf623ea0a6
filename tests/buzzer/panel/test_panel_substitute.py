"""SER-CC1-SUB on the host's tablet: the substitute before round 3, from the panel alone.

Seed 002, June 2002: a grandmaster may be replaced before round 3, and the new
player plays on with the seat's score. The engine takes the ``substitute``
input only between round 2's end and round 3's first select; the server says
when (``HostOptions.substitute``) and the host's page offers a button then, and
never at another moment. Played through a real uvicorn and Chromium.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.panel_game import STILL, host_page, package_rig, press
from tests.support.panel_support import Commands, Rig


def three_rounds() -> dict[str, Any]:
    """Three rounds of one theme and one question each: two questions to round 3."""

    def round_(n: int) -> dict[str, Any]:
        question = {"price": 100 * n, "text": f"Вопрос {n}", "answer": [f"Ответ {n}"]}
        return {"name": f"{n}-й раунд", "themes": [{"name": f"ТЕМА {n}", "questions": [question]}]}

    return {
        "format": "svoyak-package",
        "version": 1,
        "name": "Три раунда",
        "rounds": [round_(1), round_(2), round_(3)],
    }


def play_the_only_question(rig: Rig, commands: Commands, n: int, seat: int) -> None:
    """Round ``n``'s one question, answered right by ``seat``."""
    commands.ok({"type": "select", "theme": 1, "price": 100 * n})
    rig.wait_state(lambda s: s["stage"] == "question", f"round {n}'s question")
    commands.ok({"type": "reading_end"})
    rig.wait_state(lambda s: s["phase"] == "open", "the open window")
    press(rig, commands, seat)
    rig.wait_state(lambda s: s["answering"] == seat, "the answer")
    commands.ok({"type": "judge", "verdict": "correct"})
    rig.wait_state(lambda s: s["stage"] == "board", "the board again")


def substitute_offered(rig: Rig) -> bool:
    extras: dict[str, Any] = rig.client().get("/api/state").json()["panel"]["extras"]
    return bool(extras["substitute"])


def test_SER_CC1_SUB_the_host_replaces_a_player_before_round_3_from_the_tablet(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, three_rounds(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        play_the_only_question(rig, commands, 1, 2)
        assert not substitute_offered(rig)  # after round 1: not yet
        assert page.query_selector("#substitute-btn") is None
        play_the_only_question(rig, commands, 2, 2)
        assert substitute_offered(rig)
        page.click("#substitute-btn")
        # no seat is chosen until the host picks one: applying without does nothing
        assert page.eval_on_selector("#substitute-seat", "e => e.value") == ""
        page.fill("#substitute-name", "Никто")
        page.click("#substitute-apply")
        assert rig.state()["players"] == ["Анна", "Борис", "Вера"]
        page.select_option("#substitute-seat", "2")
        page.fill("#substitute-name", "  Глеб   Жеглов ")
        page.click("#substitute-apply")
        rig.wait_state(lambda s: s["players"][1] == "Глеб Жеглов", "the substitute at seat 2")
        state = rig.state()
        assert state["scores"]["2"] == 300  # the seat keeps its score (100 + 200)
        (line,) = [x for x in rig.lines() if x.get("type") == "substitute"]
        assert (line["seat"], line["name"]) == (2, "Глеб   Жеглов")  # as typed, trimmed
        page.wait_for_selector("#scores >> text=Глеб Жеглов")
        # the host's log says it, in the page's language
        page.click("#log-btn")
        assert "Замена: Глеб Жеглов вместо Борис (место 2)" in page.inner_text("#log-list")
        page.click("#log-close")
        # round 3 begins: the moment is over, and the button goes
        commands.ok({"type": "select", "theme": 1, "price": 300})
        rig.wait_state(lambda s: s["stage"] == "question", "round 3's question")
        assert not substitute_offered(rig)
        page.wait_for_selector("#substitute-btn", state="detached")
        assert page.errors == []
