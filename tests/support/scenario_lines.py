"""The scenario tests' shared lines (tests/rules/test_scenarios_*.py): seats, headers,
scores set up at t = 0, readers of the replay's output, the scenario journals more than
one file plays, and bad input through the CLI. The input builders are tests.support.lines'.

Seats: A = 1, B = 2, C = 3.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.conftest import of_type
from tests.support.lines import (
    bad,
    ok,
    pr,
    re_,
    read_final,
    remove,
    replay_cli,
    result,
    rs,
    sel,
    stake,
    timeout,
)

A, B, C = 1, 2, 3
PLAYERS = ["A", "B", "C"]

# -- journal lines -----------------------------------------------------------------------


def scores_at(start: int, a: int, b: int, c: int) -> list[dict[str, Any]]:
    """Corrections at t = 0 that bring A, B, C from ``start`` to a, b, c."""
    return [
        {"t": 0.0, "type": "correction", "seat": seat, "delta": want - start, "reason": "setup"}
        for seat, want in ((A, a), (B, b), (C, c))
        if want != start
    ]


def plain(
    t: float,
    theme: int | None,
    price: int | None,
    seat: int | None,
    verdict: str | None,
) -> list[dict[str, Any]]:
    """One plain question: select, read, (a press and a verdict) or a timeout."""
    events = [sel(t, theme, price), rs(t + 0.1), re_(t + 1.0)]
    if seat is None or verdict is None:
        return [*events, timeout(t + 2.0)]
    judge = ok if verdict == "correct" else bad
    return [*events, pr(t + 1.5, seat), judge(t + 2.0)]


# -- output helpers ----------------------------------------------------------------------


def strip_t(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in o.items() if k != "t"} for o in lines]


def after(out: list[dict[str, Any]], t: float, *types: str) -> list[dict[str, Any]]:
    """Lines of ``types`` with a time ≥ ``t`` (every type when none is named)."""
    return [o for o in out if "t" in o and o["t"] >= t and (not types or o["type"] in types)]


def final_scores(out: list[dict[str, Any]]) -> dict[str, int]:
    return dict(result(out)["scores"])


def game_over(out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return strip_t(of_type(out, "game_over"))


# -- headers -----------------------------------------------------------------------------

BLUE = {"name": "Синий раунд", "themes": 2, "prices": [10, 20, 30, 40, 50]}
RED = {"name": "Красный раунд", "themes": 2, "prices": [20, 40, 60, 80, 100]}
ONE_CELL = {"name": "Последний раунд", "themes": 1, "prices": [10]}


def c2003(chooser: int = A, **extra: Any) -> dict[str, Any]:
    return {"rules": "championship-2003", "players": PLAYERS, "chooser": chooser, **extra}


def tvm(chooser: int = A, **extra: Any) -> dict[str, Any]:
    return {"rules": "tv-modern", "players": PLAYERS, "chooser": chooser, **extra}


def tv_on(date: str | None, chooser: int = A, **extra: Any) -> dict[str, Any]:
    head: dict[str, Any] = {"rules": "tv-1994", "players": PLAYERS, "chooser": chooser, **extra}
    if date is not None:
        head["date"] = date
    return head


def special(round_no: int, theme: int, price: int, kind: str) -> dict[str, Any]:
    return {"round": round_no, "theme": theme, "price": price, "kind": kind}


def final_header(**extra: Any) -> dict[str, Any]:
    """C2003 with a one-question board: its timeout ends the main rounds."""
    return c2003(**{"board": {"rounds": [ONE_CELL]}, **extra})


def tvm_final(**extra: Any) -> dict[str, Any]:
    return tvm(
        A, board={"rounds": [{"name": "Третий раунд", "themes": 1, "prices": [300]}]}, **extra
    )


END_MAIN = (sel(1.0, 1, 10), timeout(2.0))  # the only question: nobody answers
TV_END_MAIN = (sel(1.0, 1, 300), timeout(2.0))


# -- scenario journals played by more than one file ---------------------------------------

E11_REMOVALS = tuple(
    remove(10.0 + i, theme, seat)
    for i, (theme, seat) in enumerate(zip(range(1, 7), [B, A] * 3, strict=True))
)  # lines 7-12
E11_SETUP = (*scores_at(0, 300, 150, -10), *END_MAIN, *E11_REMOVALS)  # lines 2-4, 5-6, 7-12
E18_QUESTION = (sel(1.0, 1, 40), rs(1.5), re_(3.0), pr(3.5, A), bad(4.0))  # lines 2-6
TV_F_5_SETUP = (
    *scores_at(0, 5000, 3000, 4000),  # lines 2-4
    *TV_END_MAIN,  # 5-6
    *(remove(10.0 + i, i + 1) for i in range(6)),  # 7-12
    stake(20.0, A, 100),  # 13
    stake(21.0, B, 200),  # 14
    stake(22.0, C, 300),  # 15
    *read_final(23.0),  # 16-17: the answers are in at 54.0
)


# -- bad input through the CLI: exit 2, stderr names the line, stdout empty ---------------


def cli_replay(tmp_path: Path, header: dict[str, Any], *events: dict[str, Any]) -> Any:
    lines = [json.dumps({"type": "game", **header}, ensure_ascii=False)]
    lines += [json.dumps(e) for e in events]
    return replay_cli(tmp_path, lines)


def assert_cli_error(
    tmp_path: Path, line: int, header: dict[str, Any], *events: dict[str, Any]
) -> None:
    proc = cli_replay(tmp_path, header, *events)
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, (proc.returncode, stderr)
    assert proc.stdout == b"", "nothing may be printed as if it were a valid result"
    named = re.findall(r"\bline (\d+):", stderr)
    assert named and int(named[0]) == line, stderr
