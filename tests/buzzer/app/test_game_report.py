"""The live game's report page is made once per game version and language.

At the game's end every phone that scans the board's QR code asks for
``/report`` at once; each page is a replay of the whole game, so the pages
are kept until the game changes (a correction after the final).
"""

from __future__ import annotations

from typing import Any

import pytest

import buzzer.app.game_report as game_report
from buzzer.arbiter.events import Select
from buzzer.panel.demo import demo_header
from buzzer.runtime.controller import Controller


def test_the_page_is_replayed_once_per_version_and_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[int] = []
    real = game_report.build_report

    def counting(lines: Any, base: Any = None) -> Any:
        built.append(len(lines))
        return real(lines, base)

    monkeypatch.setattr(game_report, "build_report", counting)
    controller = Controller.new({**demo_header("tv-modern"), "settle_ms": 0})
    first = game_report.report_page(controller, "ru")
    assert game_report.report_page(controller, "ru") == first
    assert built == [1]
    english = game_report.report_page(controller, "en")
    assert '<html lang="en">' in english and built == [1, 1]
    controller.submit(Select(controller.now(), 1, 100))
    assert game_report.report_page(controller, "ru") != first  # the game moved on
    assert built == [1, 1, 2]
