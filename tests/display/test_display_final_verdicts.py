"""The final's judging on the board (issue 35): a revealed stake in the colour of its
verdict, as the decisions tell it (the stake, then the score it made): a wrong
answer's red, a right one's green, never both green. The picture:
``tests/golden/final_judging_verdicts.png``."""

from __future__ import annotations

from typing import Any

import pygame

from display import view
from display.renderer import Renderer
from display.scene import Memory, Scene
from tests.display.test_display_golden import NOW, SCENES

DECISIONS: list[dict[str, Any]] = [
    {"type": "final_started", "themes": 5, "seats": [1, 3, 4]},
    {"type": "final_stake", "seat": 1, "stake": 300},
    {"type": "score", "seat": 1, "delta": -300, "score": 700},
    {"type": "final_stake", "seat": 4, "stake": 400},
    {"type": "score", "seat": 4, "delta": 400, "score": 1400},
]


def test_the_memory_keeps_each_revealed_stake_s_verdict() -> None:
    facts = Memory().feed(DECISIONS)
    assert dict(facts.revealed) == {1: 300, 4: 400}
    assert dict(facts.verdicts) == {1: False, 4: True}
    # A score that is not a stake's (a correction) says nothing of a verdict.
    memory = Memory()
    memory.feed(DECISIONS[:1])
    facts = memory.feed([{"type": "score", "seat": 1, "delta": 100, "score": 100}])
    assert dict(facts.verdicts) == {}
    # A new final starts afresh.
    assert dict(memory.feed(DECISIONS + DECISIONS[:1]).verdicts) == {}


def test_a_wrong_answer_s_stake_is_red_and_a_right_one_s_green() -> None:
    scene, _now, lang = SCENES["final_judging_verdicts"]()
    snapshot = scene.snapshot
    assert snapshot is not None
    renderer = Renderer(pygame.Surface((640, 360)), lang)
    rows = {row.left: row.tone for row in renderer._judging_rows(scene, snapshot)}
    assert rows == {"Анна": view.TONE_RED, "Глеб": view.TONE_GREEN, "Вера": view.TONE_GOLD}
    podiums = {p.name: (p.status, p.tone) for p in view.podiums(scene, NOW, lang)}
    assert podiums["Анна"] == ("ставка 300", view.TONE_RED)
    assert podiums["Глеб"] == ("ставка 400", view.TONE_GREEN)


def test_a_stake_of_no_verdict_is_plain() -> None:
    scene, _now, _lang = SCENES["final_judging_verdicts"]()
    facts = Memory().feed(DECISIONS[:2])  # revealed, not yet scored
    plain = Scene(scene.snapshot, facts)
    assert view.verdict_tone(plain.facts, 1) == view.TONE_PLAIN
