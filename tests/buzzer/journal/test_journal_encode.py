"""Every input survives the journal: parse(encode(x)) == x."""

from __future__ import annotations

import dataclasses

import pytest

from buzzer.arbiter import events as ev
from buzzer.journal.codec import InputParser
from buzzer.journal.encode import TYPE_NAMES, encode_input

S = 1_000_000_000
SAMPLES = [
    ev.Press(1_234_567_000, 2),
    ev.Release(1_300_000_000, 3),
    ev.Select(5 * S, 2, 40),
    ev.Select(5 * S, None, None),
    ev.ReadingStart(6 * S),
    ev.ReadingEnd(7 * S),
    ev.Judge(8 * S, True),
    ev.Judge(8 * S, False),
    ev.Timeout(9 * S),
    ev.Draw(10 * S, (1, 3), 3),
    ev.Tick(11 * S),
    ev.Bid(12 * S, 1, 500),
    ev.Pass(13 * S, 2),
    ev.BidderPick(13 * S, 3),  # TV-S-AUC-3
    ev.CatGive(14 * S, 3),
    ev.CatPrice(15 * S, 1000),
    ev.BonusReply(15 * S, True),
    ev.CatPicture(15 * S),
    ev.FinalRemove(16 * S, 4),
    ev.FinalRemove(16 * S, 4, 2),
    ev.FinalStake(17 * S, 1, 250),
    ev.FinalStake(17 * S, 1, None),
    ev.FinalJudge(18 * S, False, 2),
    ev.Correction(19 * S, 2, -40, "ошибка счёта"),
    ev.Objection(20 * S, 1),
    ev.Substitute(20 * S, 2, "Друзь"),  # SER-CC1-SUB
    ev.Undo(21 * S, 7),
    ev.Fault(22 * S, "pico", False, "watermark 120 ms behind the clock"),
    ev.Fault(23 * S, "gpio", True),
    ev.Pause(24 * S),
    ev.Resume(25 * S),
]


def test_every_input_type_has_a_sample() -> None:
    assert {type(x) for x in SAMPLES} == set(TYPE_NAMES)


@pytest.mark.parametrize("item", SAMPLES, ids=lambda x: type(x).__name__)
def test_parse_of_encode_is_the_input(item: ev.Input) -> None:
    parsed = InputParser(3).parse(encode_input(item), 9)
    assert parsed == dataclasses.replace(item, ref=9)
