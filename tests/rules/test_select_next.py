"""``select`` with neither theme nor price: the next question, in every rule system.

Outside the sport systems the next question is the first unplayed cell in
the board's reading order: the cheapest row first, left to right
(docs/journal.md). The sport systems keep SPORT-1 (theme by theme, and
naming another cell is an error). Whatever a live game accepts must replay
to the same state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from buzzer.arbiter.events import Judge, Press, ReadingEnd, ReadingStart, Select, Timeout
from buzzer.journal.codec import JournalError
from buzzer.journal.store import JournalStore
from buzzer.replay import replay_lines
from buzzer.runtime.controller import Controller
from rules.board import Board, RoundSpec
from rules.profiles import RULE_SYSTEMS
from tests.conftest import journal, of_type, run
from tests.support.lines import bad, ok, pr, re_, rs, sel, timeout

S = 1_000_000_000
MS = 1_000_000
PLAYERS = ["Аня", "Борис", "Вера"]
SPORT = [r for r, system in RULE_SYSTEMS.items() if not system.has_chooser]
FREE = [r for r, system in RULE_SYSTEMS.items() if system.has_chooser]
BOARD = {
    "rounds": [
        {"name": "R1", "themes": ["A", "B", "C"], "prices": [10, 20]},
        {"name": "R2", "themes": ["D", "E"], "prices": [30, 60]},
    ]
}


def header(rules: str, **extra: Any) -> dict[str, Any]:
    head: dict[str, Any] = {"rules": rules, "players": PLAYERS, "seed": 7, "board": BOARD}
    if RULE_SYSTEMS[rules].has_chooser:
        head["chooser"] = 1
    head.update(extra)
    return head


def cells(out: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    return [(o["round"], o["theme"], o["price"]) for o in of_type(out, "question")]


def test_board_reading_order_is_cheapest_row_first_left_to_right() -> None:
    board = Board((RoundSpec("R", ("A", "B", "C"), (20, 10), frozenset({(1, 10)})),))
    order = []
    while (cell := board.next_in_reading_order()) is not None:
        order.append(cell)
        board.mark_played(*cell)
    # Rows by price whatever order the spec lists them in; the hole (1, 10) is skipped.
    assert order == [(2, 10), (3, 10), (1, 20), (2, 20), (3, 20)]


@pytest.mark.parametrize("rules", FREE)
def test_bare_select_takes_the_next_cell_in_reading_order(rules: str) -> None:
    # Each bare select ends the question before it (no score) and takes the next cell.
    out = run(header(rules), *(sel(float(i)) for i in range(1, 7)))
    assert cells(out) == [(1, 1, 10), (1, 2, 10), (1, 3, 10), (1, 1, 20), (1, 2, 20), (1, 3, 20)]
    assert of_type(out, "score") == []


@pytest.mark.parametrize("rules", FREE)
def test_bare_select_skips_cells_the_chooser_played(rules: str) -> None:
    out = run(
        header(rules),
        sel(1.0, 1, 10),
        sel(2.0, 3, 10),
        sel(3.0),  # (2, 10): the only unplayed cell of the cheapest row
        sel(4.0),  # then the next row from the left
    )
    assert cells(out) == [(1, 1, 10), (1, 3, 10), (1, 2, 10), (1, 1, 20)]


def test_bare_select_moves_on_to_the_next_round_and_its_first_chooser() -> None:
    rules = "championship-2003"
    events = [sel(1.0 + i) for i in range(6)]
    out = run(
        header(rules),
        sel(0.5, 3, 20),
        rs(0.6),
        re_(0.7),
        pr(0.8, 2),
        ok(0.9),  # Борис +20: the others stay at 0
        *events[:5],
        sel(20.0),
    )
    played = cells(out)
    assert played[-1] == (2, 1, 30)
    assert [o["round"] for o in of_type(out, "round_started")] == [2]
    # C2003-2.3.2: the lowest score chooses first in the next round (a tie by lot).
    started = next(i for i, o in enumerate(out) if o["type"] == "round_started")
    chooser = next(o for o in out[started:] if o["type"] == "chooser")
    assert chooser["seat"] in (1, 3)
    assert of_type(out, "lot")[0]["seats"] == [1, 3]


def test_bare_select_on_a_special_cell_opens_the_special() -> None:
    head = header("tv-modern", specials=[{"round": 1, "theme": 1, "price": 10, "kind": "sponsor"}])
    out = run(head, sel(1.0), ok(2.0))
    assert cells(out) == [(1, 1, 10)]
    special = of_type(out, "special")
    assert special and special[0]["kind"] == "sponsor"
    assert of_type(out, "score")[0]["delta"] == 20  # TV-S-SPN: twice the price


def test_bare_select_skips_a_packages_empty_cells(tmp_path: Path) -> None:
    package = {
        "name": "Holes",
        "rounds": [
            {
                "name": "R",
                "themes": [
                    {"name": "A", "questions": [{"price": 200, "answer": "a"}]},
                    {
                        "name": "B",
                        "questions": [
                            {"price": 100, "answer": "b"},
                            {"price": 200, "answer": "c"},
                        ],
                    },
                ],
            }
        ],
    }
    (tmp_path / "p.json").write_text(json.dumps(package), encoding="utf-8")
    head = {"type": "game", "rules": "tv-modern", "players": PLAYERS, "chooser": 1}
    head["package"] = "p.json"
    lines = [json.dumps(head), json.dumps(sel(1.0)), json.dumps(sel(2.0))]
    out = [json.loads(x) for x in replay_lines(lines, tmp_path)]
    # Theme A has no 100 (a hole): the cheapest row's first question is B's.
    assert cells(out) == [(1, 2, 100), (1, 1, 200)]


@pytest.mark.parametrize("rules", FREE)
def test_naming_only_one_of_theme_and_price_is_an_error(rules: str) -> None:
    with pytest.raises(JournalError, match=r"line 2: .*field 'price'"):
        replay_lines(journal(header(rules), {"t": 1.0, "type": "select", "theme": 1}))


@pytest.mark.parametrize("rules", SPORT)
def test_sport_systems_keep_their_own_order_and_refuse_another_cell(rules: str) -> None:
    out = run(header(rules), sel(1.0), sel(2.0), sel(3.0))
    # SPORT-1: theme by theme, easiest first (not the board's reading order).
    assert cells(out) == [(1, 1, 10), (1, 1, 20), (1, 2, 10)]
    with pytest.raises(JournalError, match="SPORT-1"):
        replay_lines(journal(header(rules), sel(1.0, 2, 10)))


@pytest.mark.parametrize("rules", list(RULE_SYSTEMS))
def test_a_live_bare_select_replays_and_resumes_to_the_same_state(
    rules: str, tmp_path: Path
) -> None:
    now = [10 * S]
    db = tmp_path / "game.sqlite"
    head = header(rules)
    head.pop("board")  # the rule system's own board
    controller = Controller.new(head, JournalStore(db), lambda: now[0])
    for item in (
        Select(1 * S, None, None),
        ReadingStart(2 * S),
        ReadingEnd(4 * S),
        Press(4 * S + 250 * MS, 2),
        Judge(5 * S, False),
        Timeout(6 * S),
        Select(7 * S, None, None),
        ReadingStart(8 * S),
        ReadingEnd(9 * S),
        Press(9 * S + 100 * MS, 3),
        Judge(10 * S, True),
        Select(11 * S, None, None),
    ):
        now[0] = controller.t0_ns + item.t
        controller.submit(item)
    now[0] += 10 * MS  # past the settle window: everything is decided
    controller.tick()
    live = controller.snapshot()
    start = RULE_SYSTEMS[rules].start_score
    assert live["scores"]["3"] > start and live["scores"]["2"] < start
    assert live["stage"] == "question" and live["cell"] is not None

    lines = list(JournalStore(db).lines())
    selects = [json.loads(x) for x in lines if json.loads(x)["type"] == "select"]
    assert len(selects) == 3 and all("theme" not in s and "price" not in s for s in selects)
    resumed = Controller.resume(JournalStore(db), lambda: 500 * S)
    # The whole game state; only the controller's own publication counter differs.
    assert {k: v for k, v in resumed.snapshot().items() if k != "version"} == {
        k: v for k, v in live.items() if k != "version"
    }
    replayed = [json.loads(x) for x in replay_lines(lines)]
    assert replayed[-1]["scores"] == live["scores"]
    expected = RULE_SYSTEMS[rules].rounds[0]
    first_row = min(expected.prices)
    if RULE_SYSTEMS[rules].has_chooser:
        assert [(q["theme"], q["price"]) for q in of_type(replayed, "question")] == [
            (1, first_row),
            (2, first_row),
            (3, first_row),
        ]
    else:
        assert [q["theme"] for q in of_type(replayed, "question")] == [1, 1, 1]


def test_a_bare_select_while_someone_answers_is_still_refused() -> None:
    with pytest.raises(JournalError, match=r"line 6: .*judge the answer before selecting"):
        replay_lines(
            journal(header("tv-modern"), sel(1.0), rs(1.5), re_(2.0), pr(2.5, 1), sel(3.0))
        )
    # ...and a timeout, then a bare select, goes on in order.
    out = run(
        header("tv-modern"),
        sel(1.0),
        rs(1.5),
        re_(2.0),
        pr(2.5, 1),
        bad(3.0),
        timeout(3.5),
        sel(4.0),
    )
    assert cells(out) == [(1, 1, 10), (1, 2, 10)]
