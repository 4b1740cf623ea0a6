"""docs/rules.md Part A tests' shared journals (tests/buzzer/arbiter/test_rules_part_a_*.py):
the rule systems and their parameters as the rule text gives them, a header and the first
question for each system, and readers of the arbiter's decisions in the replay's output."""

from __future__ import annotations

from typing import Any

from tests.conftest import of_type
from tests.support.lines import rejected_line, sel
from tests.support.strategies import RULE_IDS

P3 = ["Аня", "Борис", "Вера"]

#: Every rule system, in docs/journal-contract.md's order.
ALL_SYSTEMS = RULE_IDS
SPORT = ("sport-false-start", "sport-clarify", "sport-no-false-start")
#: Systems in which a press during the reading stops it (P2).
INTERRUPT = ("championship-2003", "sport-clarify", "sport-no-false-start")
#: Systems in which a press before the signal is a false start (P2, P3).
FALSE_START = ("tv-modern", "sport-false-start", "jeopardy")

#: The first question of each system's default board (docs/rules.md C2003-2.2.1,
#: TV-G-3, SPORT-D; docs/journal-contract.md for jeopardy): theme 1 and its cheapest price.
FIRST_PRICE = {
    "championship-2003": 10,
    "tv-1994": 10,
    "tv-modern": 100,
    "sport-false-start": 10,
    "sport-clarify": 10,
    "sport-no-false-start": 10,
    "jeopardy": 200,
}
#: TV-G-2 (50 in Apr 1994 - Aug 1996), C2003-2.2.2, SPORT-D: the starting score.
START = {s: 0 for s in ALL_SYSTEMS} | {"tv-1994": 50}
#: P4 (and docs/journal-contract.md for jeopardy): the press window after the end of reading.
WINDOW = {
    "championship-2003": 5.0,
    "tv-1994": 3.0,
    "tv-modern": 3.0,
    "sport-false-start": 5.0,
    "sport-clarify": 5.0,
    "sport-no-false-start": 5.0,
    "jeopardy": 5.0,
}


# -- journal builders ----------------------------------------------------------


def header(rules: str, chooser: int | None = 1, **extra: Any) -> dict[str, Any]:
    head: dict[str, Any] = {"rules": rules, "players": P3, **extra}
    if chooser is not None and rules not in SPORT:
        head["chooser"] = chooser
    return head


def first(rules: str, t: float) -> dict[str, Any]:
    """Select the first question of the board (the next in order for SPORT)."""
    if rules in SPORT:
        return sel(t)
    return sel(t, 1, FIRST_PRICE[rules])


def game_events(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The decisions, without the info lines and the result."""
    return [
        o for o in out if o["type"] not in ("first_chooser", "question", "round_started", "result")
    ]


def compact(out: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """(t, type, seat-or-detail) triples of the decisions, for exact comparisons."""
    rows: list[tuple[Any, ...]] = []
    for o in game_events(out):
        kind = o["type"]
        if kind in ("recognized", "reading_interrupted"):
            rows.append((o["t"], kind, o["seat"]))
        elif kind == "ignored":
            rows.append((o["t"], kind, o["seat"], o["reason"]))
        elif kind == "false_start":
            rows.append((o["t"], kind, o["seat"], o["locked_until"]))
        elif kind == "window_opened":
            rows.append((o["t"], kind, o["closes_at"]))
        elif kind == "score":
            rows.append((o["t"], kind, o["seat"], o["delta"], o["score"]))
        elif kind in ("chooser",):
            rows.append((o["t"], kind, o["seat"]))
        elif kind == "tie":
            rows.append((o["t"], kind, tuple(o["seats"])))
        else:
            rows.append((o["t"], kind))
    return rows


def recognized(out: list[dict[str, Any]]) -> list[tuple[float, int]]:
    return [(o["t"], o["seat"]) for o in of_type(out, "recognized")]


def ignored(out: list[dict[str, Any]]) -> list[tuple[float, int, str]]:
    return [(o["t"], o["seat"], o["reason"]) for o in of_type(out, "ignored")]


#: The journal line the replay refuses.
sequence_error_line = rejected_line
