"""Journal input lines for tests: one small builder per input type, and the two
readers every replay test wants: the result line and the line the replay refuses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from buzzer.journal.codec import JournalError
from tests.conftest import run
from tests.support.paths import REPO

ROOT = REPO


def sel(t: float, theme: int | None = None, price: int | None = None) -> dict[str, Any]:
    """``select``; without theme and price (the sport systems' next question)."""
    event: dict[str, Any] = {"t": t, "type": "select"}
    if theme is not None:
        event["theme"] = theme
    if price is not None:
        event["price"] = price
    return event


def rs(t: float) -> dict[str, Any]:
    return {"t": t, "type": "reading_start"}


def re_(t: float) -> dict[str, Any]:
    return {"t": t, "type": "reading_end"}


def pr(t: float, seat: int) -> dict[str, Any]:
    return {"t": t, "type": "press", "seat": seat}


def ok(t: float) -> dict[str, Any]:
    return {"t": t, "type": "judge", "verdict": "correct"}


def bad(t: float) -> dict[str, Any]:
    return {"t": t, "type": "judge", "verdict": "wrong"}


def tick(t: float) -> dict[str, Any]:
    return {"t": t, "type": "tick"}


def timeout(t: float) -> dict[str, Any]:
    return {"t": t, "type": "timeout"}


def bid(t: float, seat: int, amount: int) -> dict[str, Any]:
    return {"t": t, "type": "bid", "seat": seat, "amount": amount}


def replay_cli(tmp_path: Path, lines: list[str]) -> subprocess.CompletedProcess[bytes]:
    """``svoyak replay`` of ``lines`` written to a journal file, as a user runs it."""
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "buzzer.cli", "replay", str(path)],
        capture_output=True,
        check=False,
        cwd=ROOT,
        timeout=60,
    )


# -- special questions, the final round, objections ------------------------------------


def pas(t: float, seat: int) -> dict[str, Any]:
    return {"t": t, "type": "pass", "seat": seat}


def cat_give(t: float, seat: int) -> dict[str, Any]:
    return {"t": t, "type": "cat_give", "seat": seat}


def cat_price(t: float, price: int) -> dict[str, Any]:
    return {"t": t, "type": "cat_price", "price": price}


def remove(t: float, theme: int, seat: int | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"t": t, "type": "final_remove", "theme": theme}
    if seat is not None:
        event["seat"] = seat
    return event


def stake(t: float, seat: int, amount: int) -> dict[str, Any]:
    return {"t": t, "type": "final_stake", "seat": seat, "amount": amount}


def fjudge(t: float, verdict: str, seat: int | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"t": t, "type": "final_judge", "verdict": verdict}
    if seat is not None:
        event["seat"] = seat
    return event


def read_final(t: float) -> tuple[dict[str, Any], dict[str, Any]]:
    """The host reads the final question from ``t`` for a second: the answers are in 30 s on."""
    return rs(t), re_(t + 1.0)


def objection(t: float, seat: int) -> dict[str, Any]:
    return {"t": t, "type": "objection", "seat": seat}


# -- what the replay answers -----------------------------------------------------------


def result(out: list[dict[str, Any]]) -> dict[str, Any]:
    assert out[-1]["type"] == "result"
    return out[-1]


def rejected_line(header: dict[str, Any], *events: dict[str, Any]) -> int:
    """The journal line the replay refuses (in-process)."""
    with pytest.raises(JournalError) as info:
        run(header, *events)
    return info.value.line
