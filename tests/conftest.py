"""Shared helpers: build journals in memory and replay them through the real code."""

from __future__ import annotations

import json
from typing import Any

import pytest

from buzzer.replay import replay_lines


def journal(header: dict[str, Any], *events: dict[str, Any]) -> list[str]:
    """A journal's lines from a header and input events (dicts)."""
    head = {"type": "game", **header}
    return [json.dumps(head, ensure_ascii=False)] + [json.dumps(e) for e in events]


def run(header: dict[str, Any], *events: dict[str, Any]) -> list[dict[str, Any]]:
    """Replay a journal; the decoded output lines, the result last."""
    return [json.loads(line) for line in replay_lines(journal(header, *events))]


def of_type(outputs: list[dict[str, Any]], *types: str) -> list[dict[str, Any]]:
    return [o for o in outputs if o["type"] in types]


@pytest.fixture
def three() -> list[str]:
    return ["Аня", "Борис", "Вера"]


@pytest.fixture(autouse=True, scope="session")
def _games_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """`svoyak run` journals every game under $XDG_DATA_HOME and keeps its PIN file and
    the self-test's histograms under $XDG_STATE_HOME: not in the tester's home."""
    import os

    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("xdg-data"))
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("xdg-state"))
