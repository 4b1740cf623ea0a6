"""Trying a host command on a copy of the core (``buzzer.runtime.trial``)."""

from __future__ import annotations

import logging

import pytest

from buzzer.arbiter.events import Judge, Select
from buzzer.core import GameCore
from buzzer.journal.codec import parse_header
from buzzer.runtime.trial import Refused, try_input

S = 1_000_000_000


def core() -> GameCore:
    return GameCore(
        parse_header('{"type": "game", "rules": "tv-modern", "players": ["a", "b"], "chooser": 1}')
    )


def test_a_refusal_carries_the_engines_own_message() -> None:
    live = core()
    with pytest.raises(Refused, match="nobody is answering"):
        try_input(live, Judge(1 * S, True))
    assert live.history == []  # the copy was refused, the live core never saw it


def test_an_engine_bug_is_a_refusal_and_its_traceback_is_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    live = core()

    def broken(self: GameCore, item: object, out: list[object]) -> None:
        raise KeyError("a bug in the engine")

    monkeypatch.setattr(GameCore, "push", broken)
    with (
        caplog.at_level(logging.ERROR, logger="buzzer.runtime.trial"),
        pytest.raises(Refused) as info,
    ):
        try_input(live, Select(1 * S, 1, 100))
    assert "KeyError: a bug, logged" in info.value.message
    assert "the game goes on" in info.value.message
    (record,) = caplog.records
    assert record.exc_info is not None and record.exc_info[0] is KeyError
