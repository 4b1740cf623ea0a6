"""SER-CC1-SUB (seed 002, June 2002): a grandmaster replaced before round 3 (issue 37).

Between round 2's end and round 3's first question the host enters
``substitute``: another player takes the seat and plays on with the seat's
score; the journal's ``substitute`` note names both players, the snapshot
shows the new name from then on, and the replay (and its summary) honours
it. Anywhere else it is refused, with the host's sentence.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from buzzer.core import GameCore
from buzzer.journal.codec import InputParser, JournalError, parse_header
from buzzer.replay_summary import replay_summary
from buzzer.runtime.controller import Controller
from buzzer.runtime.runtime import Runtime
from tests.conftest import journal, of_type, run

S = 1_000_000_000


def head(rounds: int = 3) -> dict[str, Any]:
    return {
        "rules": "tv-modern",
        "players": ["Аня", "Борис", "Вера"],
        "chooser": 1,
        "board": {
            "rounds": [
                {"name": f"Раунд {n}", "themes": ["Тема"], "prices": [100 * n]}
                for n in range(1, rounds + 1)
            ]
        },
    }


def question(t: float, price: int) -> list[dict[str, Any]]:
    return [
        {"t": t, "type": "select", "theme": 1, "price": price},
        {"t": t + 0.5, "type": "timeout"},
    ]


def sub(t: float, seat: int, name: str) -> dict[str, Any]:
    return {"t": t, "type": "substitute", "seat": seat, "name": name}


#: Борис ends round 2 with 300; then Друзь takes seat 2.
BEFORE_ROUND_3 = [
    {"t": 0.5, "type": "correction", "seat": 2, "delta": 300, "reason": "счёт"},
    *question(1.0, 100),
    *question(2.0, 200),
]


def test_SER_CC1_SUB_the_substitute_keeps_the_seat_s_score_and_the_journal_names_both() -> None:
    out = run(head(), *BEFORE_ROUND_3, sub(3.0, 2, "Друзь"), *question(4.0, 300))
    assert of_type(out, "substitute") == [
        {"t": 3.0, "type": "substitute", "seat": 2, "out": "Борис", "in": "Друзь"}
    ]
    assert out[-1]["scores"]["2"] == 300  # the seat's score goes on
    assert of_type(out, "round_started")[-1]["round"] == 3


def test_SER_CC1_SUB_the_snapshot_shows_the_new_name_from_then_on() -> None:
    core = GameCore(parse_header(json.dumps({"type": "game", **head(), "settle_ms": 0})))
    parser = InputParser(3)
    names = []
    for number, event in enumerate([*BEFORE_ROUND_3, sub(3.0, 2, "Друзь"), *question(4.0, 300)], 2):
        core.push(parser.parse(json.dumps(event), number), [])
        names.append(core.snapshot()["players"][1])
    core.finish([])
    assert core.snapshot()["players"] == ["Аня", "Друзь", "Вера"]
    assert core.snapshot()["scores"]["2"] == 300
    assert "Борис" in names  # before the substitution


def test_SER_CC1_SUB_the_replay_summary_names_the_substitute_from_then_on() -> None:
    lines = journal(head(), *BEFORE_ROUND_3, sub(3.0, 2, "Друзь"), *question(4.0, 300))
    text = replay_summary(lines)
    assert "Замена (место 2): Друзь вместо Борис, счёт 300 остаётся" in text
    # the question before it is told first, with the old name
    assert "счёт: Аня 0 · Борис 300 · Вера 0; выбирает Вера\nЗамена (место 2)" in text
    after = text.split("Замена")[1]
    assert "Друзь 300" in after and "Борис" not in after.split("\n", 1)[1]
    english = replay_summary(lines, lang="en")
    assert "Substitute (seat 2): Друзь for Борис, keeping the score 300" in english
    assert run(head(), *BEFORE_ROUND_3, sub(3.0, 2, "Друзь")) == run(
        head(), *BEFORE_ROUND_3, sub(3.0, 2, "Друзь")
    )


@pytest.mark.parametrize(
    ("events", "match"),
    [
        ([sub(0.5, 2, "Друзь")], "only between round 2 and round 3"),  # round 1
        ([*question(1.0, 100), sub(1.8, 2, "Друзь")], "only between round 2 and round 3"),
        (
            [
                *question(1.0, 100),
                {"t": 2.0, "type": "select", "theme": 1, "price": 200},
                sub(2.2, 2, "Друзь"),
            ],
            "only between",
        ),
        (
            [*BEFORE_ROUND_3, *question(3.0, 300), sub(4.0, 2, "Друзь")],
            "only between",
        ),  # round 3 began
        ([*BEFORE_ROUND_3, sub(3.0, 2, "Вера")], "Вера already plays at seat 3"),
        ([*BEFORE_ROUND_3, sub(3.0, 2, "  ")], "name is empty"),
    ],
)
def test_SER_CC1_SUB_a_substitute_elsewhere_is_refused(
    events: list[dict[str, Any]], match: str
) -> None:
    with pytest.raises(JournalError, match=match):
        run(head(), *events)


def test_SER_CC1_SUB_a_game_without_a_third_round_has_no_substitute() -> None:
    with pytest.raises(JournalError, match="before round 3"):
        run(head(2), *question(1.0, 100), *question(2.0, 200), sub(3.0, 2, "Друзь"))


def test_SER_CC1_SUB_allowed_while_paused_between_the_rounds() -> None:
    out = run(
        head(),
        *BEFORE_ROUND_3,
        {"t": 2.8, "type": "pause"},
        sub(3.0, 2, "Друзь"),
        {"t": 3.5, "type": "resume"},
        *question(4.0, 300),
    )
    assert of_type(out, "substitute")[0]["in"] == "Друзь"


class Clock:
    def __init__(self) -> None:
        self.ns = 100 * S

    def __call__(self) -> int:
        return self.ns


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    controller = Controller.new({"type": "game", **head(), "settle_ms": 0}, None, Clock())
    yield Runtime(controller)


def test_SER_CC1_SUB_the_host_is_told_when_a_substitute_may_come_in(runtime: Runtime) -> None:
    commands = runtime.commands
    outcome = commands.execute({"type": "substitute", "seat": 2, "name": "Друзь"})
    assert outcome.refusal is not None
    assert outcome.refusal.ru.startswith("Замена игрока — только перед третьим раундом")
    for command in (
        {"type": "select", "theme": 1, "price": 100},
        {"type": "timeout"},
        {"type": "select", "theme": 1, "price": 200},
        {"type": "timeout"},
        {"type": "substitute", "seat": 2, "name": "Друзь"},
    ):
        assert commands.execute(command).accepted, command
    assert runtime.controller.snapshot()["players"][1] == "Друзь"
