"""TV-S-AUC-3 on the host's panel, in a real headless Chromium: «игрока выбирает ведущий».

When the bidding's turn comes to players with equal scores, the engine lists
them (``HostOptions.bidder_pick``) and the page shows «Ставит сейчас» on the
tied rows whose turn it is not; a tap sends ``bidder_pick`` and the turn moves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.panel_game import host_page, package_rig, wait_stage
from tests.support.panel_support import Commands


def test_TV_S_AUC_3_the_host_taps_who_of_the_tied_players_bids_now(
    browser: Any, tmp_path: Path
) -> None:
    themes = [
        {
            "name": name,
            "questions": [
                {"price": 100, "text": "Вопрос", "answer": ["Ответ"]},
                {"price": 200, "text": "Аукцион", "answer": ["Ответ"], "kind": "stake"},
            ],
        }
        for name in ("Первая", "Вторая")
    ]
    package = {
        "format": "svoyak-package",
        "version": 1,
        "name": "ties",
        "rounds": [{"name": "Первый раунд", "themes": themes}],
    }
    with package_rig(tmp_path, package, rules="tv-modern") as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        for seat, delta in ((1, 500), (2, 400), (3, 400)):
            commands.ok({"type": "correction", "seat": seat, "delta": delta, "reason": "ничья"})
        commands.ok({"type": "select", "theme": 1, "price": 200})
        wait_stage(page, "bidding")
        assert page.query_selector("[id^='pick-']") is None  # the opener bids first
        commands.ok({"type": "bid", "seat": 1, "amount": 200})
        turn = rig.state()["bidding"]["turn"]
        other = 5 - turn  # seats 2 and 3 are tied
        page.wait_for_selector(f"#pick-{other}")
        assert page.inner_text(f"#pick-{other}") == "Ставит сейчас"
        assert page.query_selector(f"#pick-{turn}") is None
        page.click(f"#pick-{other}")
        page.wait_for_selector(f"#bid-{other}")
        assert rig.state()["bidding"]["turn"] == other
        assert page.errors == []
