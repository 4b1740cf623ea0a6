"""Games on real SIGame packages, where ``$SVOYAK_REAL_PACKAGES`` names a folder of them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from buzzer.journal.codec import parse_header
from buzzer.replay import replay_lines
from rules.state import SpecialKind

PACKAGES = Path(os.environ.get("SVOYAK_REAL_PACKAGES", "/nonexistent"))
present = pytest.mark.skipif(
    not PACKAGES.is_dir(), reason="set SVOYAK_REAL_PACKAGES to a folder of real .siq packages"
)


@present
@pytest.mark.parametrize("name", ["khil-1-v5.siq", "khil-1-v3.siq"])
def test_a_real_package_sets_the_board_the_specials_and_the_final(name: str) -> None:
    header = json.dumps(
        {
            "type": "game",
            "rules": "tv-modern",
            "players": ["А", "Б", "В"],
            "chooser": 1,
            "package": str(PACKAGES / name),
        }
    )
    setup = parse_header(header)
    assert setup.rounds is not None and len(setup.rounds) == 3
    assert setup.rounds[0].prices == (100, 200, 300, 400, 500)
    kinds = set(setup.specials.values())
    assert {SpecialKind.STAKE, SpecialKind.CAT, SpecialKind.SPONSOR} <= kinds
    assert setup.final_themes is not None and setup.final_themes >= 1


@present
def test_a_question_of_a_real_package_is_played() -> None:
    header = {
        "type": "game",
        "rules": "tv-modern",
        "players": ["А", "Б", "В"],
        "chooser": 1,
        "package": str(PACKAGES / "khil-1-v5.siq"),
    }
    setup = parse_header(json.dumps(header))
    plain = next(
        (r, t, p)
        for r, spec in enumerate(setup.rounds or (), 1)
        for t in range(1, len(spec.themes) + 1)
        for p in spec.prices
        if r == 1 and (1, t, p) not in setup.specials
    )
    lines = [
        json.dumps(header),
        json.dumps({"t": 1.0, "type": "select", "theme": plain[1], "price": plain[2]}),
        json.dumps({"t": 1.5, "type": "reading_start"}),
        json.dumps({"t": 4.0, "type": "reading_end"}),
        json.dumps({"t": 4.5, "type": "press", "seat": 2}),
        json.dumps({"t": 5.0, "type": "judge", "verdict": "correct"}),
    ]
    result = json.loads(replay_lines(lines)[-1])
    assert result["scores"]["2"] == plain[2]
    assert result["chooser"] == 2
