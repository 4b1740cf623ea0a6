"""Header options of a full game: theme count, the stake question's time to think."""

from __future__ import annotations

import json

import pytest

from buzzer.arbiter.decisions import Decision
from buzzer.arbiter.events import ReadingEnd, Select
from buzzer.core import GameCore
from buzzer.journal.codec import JournalError, parse_header
from tests.conftest import run

S = 1_000_000_000


def test_C2003_2_10_theme_count_is_configurable() -> None:
    head = {"rules": "championship-2003", "players": ["А", "Б", "В"], "chooser": 1, "themes": 4}
    setup = parse_header(json.dumps({"type": "game", **head}))
    assert setup.rounds is not None
    assert [len(r.themes) for r in setup.rounds] == [4, 4]  # the 1/9 final's 4 × 5 (C2003-2.2.1)
    assert [r.prices for r in setup.rounds] == [(10, 20, 30, 40, 50), (20, 40, 60, 80, 100)]
    out = run(head, {"t": 1.0, "type": "select", "theme": 4, "price": 50})
    assert next(o for o in out if o["type"] == "question")["theme"] == 4


def test_C2003_2_10_a_fifth_theme_is_not_on_a_four_theme_board() -> None:
    head = {"rules": "championship-2003", "players": ["А", "Б", "В"], "chooser": 1, "themes": 4}
    with pytest.raises(JournalError) as caught:
        run(head, {"t": 1.0, "type": "select", "theme": 5, "price": 10})
    assert caught.value.line == 2 and "themes 1..4" in caught.value.message


def test_C2003_2_4_6e_ten_seconds_to_think_on_the_stake_question() -> None:
    header = {
        "type": "game",
        "rules": "championship-2003",
        "players": ["А", "Б", "В"],
        "chooser": 1,
        "specials": [{"round": 1, "theme": 1, "price": 10, "kind": "stake"}],
    }
    core = GameCore(parse_header(json.dumps(header)))
    out: list[Decision] = []
    core.push(Select(2 * S, 1, 10), out)
    core.push(ReadingEnd(5 * S), out)
    core.finish(out)
    snapshot = core.snapshot()
    # Everyone at 0: the opener plays for the nominal and the others cannot raise.
    assert snapshot["stage"] == "special" and snapshot["answering"] == 1
    # The 10 s run from the end of the host's reading, not from the hand-over at 2 s.
    assert snapshot["special_deadline"] == 15 * S
