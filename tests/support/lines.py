"""Journal input lines for tests: one small builder per input type."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

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
