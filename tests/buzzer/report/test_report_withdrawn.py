"""A question the host withdrew (``timeout``) is marked so in the report, and in the summary.

A new user's trial: a question withdrawn after a wrong answer was not marked
at all (the later ones, withdrawn with nobody pressing, were). Withdrawn:
the question ended while still open — a window open, a reading going on, an
answer not judged — which the decisions tell apart from a wrong answer that
left nobody to answer (the choice passes at that same instant) and from a
window that closed on its own.
"""

from __future__ import annotations

import json
from typing import Any

from buzzer.replay_summary import replay_summary
from buzzer.report.html import render_report
from buzzer.report.model import build_report
from tests.support.lines import bad, ok, pr, re_, rs, sel, timeout
from tests.support.paths import EXAMPLES


def journal(header: dict[str, Any], *events: dict[str, Any]) -> list[str]:
    lines = [json.dumps({"type": "game", **header}, ensure_ascii=False)]
    return lines + [json.dumps(e, ensure_ascii=False) for e in events]


TV = {"rules": "tv-modern", "players": ["Анна", "Борис", "Вера"], "chooser": 2, "seed": 8}
#: TV-94-A2 ``hold``: a wrong answer during the reading lets the reading go on, no decision.
TV94 = {"rules": "tv-1994", "players": ["Анна", "Борис", "Вера"], "chooser": 2, "seed": 8}

GAME = journal(
    TV,
    # 1: wrong, the window reopens, the host withdraws it
    sel(2.0, 1, 100), rs(2.5), re_(4.0), pr(4.5, 1), bad(6.0), timeout(7.0),
    # 2: nobody presses, withdrawn
    sel(10.0, 1, 200), rs(10.5), timeout(11.0),
    # 3: all three wrong: nobody left, it closes by itself
    sel(20.0, 1, 300), rs(20.5), re_(21.0), pr(21.3, 1), bad(22.0),
    pr(22.4, 2), bad(23.0), pr(23.5, 3), bad(24.0),
    # 4: wrong, then the reopened window closes empty
    sel(30.0, 1, 400), rs(30.5), re_(31.0), pr(31.3, 1), bad(32.0),
    # 5: right
    sel(40.0, 1, 500), rs(40.5), re_(41.0), pr(41.3, 2), ok(42.0),
    sel(50.0, 2, 100),
)  # fmt: skip


def test_the_model_marks_the_withdrawn_questions_only() -> None:
    report = build_report(GAME)
    assert [q.withdrawn for q in report.questions] == [True, True, False, False, False, False]


def test_the_page_says_withdrawn_after_a_wrong_answer_and_without_one() -> None:
    page = render_report(build_report(GAME), "ru")
    q1 = page.split('id="q1"')[1].split("</article>")[0]
    q2 = page.split('id="q2"')[1].split("</article>")[0]
    assert "<li>снят после неверного ответа</li>" in q1
    assert "<li>снят без ответа</li>" in q2
    for n in (3, 4, 5, 6):
        assert "снят" not in page.split(f'id="q{n}"')[1].split("</article>")[0]
    en = render_report(build_report(GAME), "en")
    assert "<li>taken off after a wrong answer</li>" in en


def test_the_summary_says_withdrawn_after_a_wrong_answer() -> None:
    lines = replay_summary(GAME).splitlines()
    text = "\n".join(lines)
    first = text.split("1. [")[1].split("2. [")[0]
    assert "  Анна: неверно, −100 → −100" in first
    assert "  снят после неверного ответа" in first
    assert "  снят без ответа" in text.split("2. [")[1].split("3. [")[0]
    for n in (3, 4, 5):
        block = text.split(f"{n}. [")[1].split(f"{n + 1}. [")[0]
        assert "снят" not in block, block


def test_a_wrong_answer_during_a_held_reading_then_withdrawn() -> None:
    """TV-94-A2: the reading goes on after a wrong answer (no decision says so);
    the choice passing later than the verdict tells the withdrawal."""
    game = journal(
        TV94,
        sel(2.0, 1, 10), rs(2.5), pr(3.0, 1), bad(4.0), timeout(6.0),
        sel(10.0, 1, 20), rs(10.5), pr(11.0, 1), bad(12.0), pr(12.5, 2), bad(13.0),
        pr(13.5, 3), bad(14.0),
        sel(20.0, 1, 30),
    )  # fmt: skip
    report = build_report(game)
    assert [q.withdrawn for q in report.questions[:2]] == [True, False]
    text = replay_summary(game)
    assert "снят после неверного ответа" in text.split("2. [")[0]
    assert "снят" not in text.split("2. [")[1].split("3. [")[0]


def test_the_trial_game_marks_its_second_question() -> None:
    lines = (EXAMPLES / "tv-modern-tie-pick-and-substitute.jsonl").read_text().splitlines()
    report = build_report(lines, EXAMPLES)
    assert [q.withdrawn for q in report.questions] == [False, True, True, True, True, False]
    text = replay_summary(lines, EXAMPLES)
    assert "  снят после неверного ответа" in text.split("2. [")[1].split("3. [")[0]
