"""Inputs → JOURNAL.md lines: what the live controller writes before applying.

The inverse of :class:`buzzer.journal.codec.InputParser`: for every input,
``parse(encode(x))`` gives ``x`` back (but its ``ref``, which is the line
number the journal gives it).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from types import MappingProxyType

from buzzer.arbiter.events import (
    Bid,
    CatGive,
    CatPrice,
    Correction,
    Draw,
    Fault,
    FinalJudge,
    FinalRemove,
    FinalStake,
    Input,
    Judge,
    Objection,
    Pass,
    Press,
    ReadingEnd,
    ReadingStart,
    Release,
    Select,
    Tick,
    Timeout,
    Undo,
)
from buzzer.arbiter.params import NS_PER_S

#: Input class → its journal ``type``.
TYPE_NAMES: Mapping[type, str] = MappingProxyType(
    {
        Press: "press",
        Release: "release",
        Select: "select",
        ReadingStart: "reading_start",
        ReadingEnd: "reading_end",
        Judge: "judge",
        Timeout: "timeout",
        Draw: "draw",
        Tick: "tick",
        Bid: "bid",
        Pass: "pass",
        CatGive: "cat_give",
        CatPrice: "cat_price",
        FinalRemove: "final_remove",
        FinalStake: "final_stake",
        FinalJudge: "final_judge",
        Correction: "correction",
        Objection: "objection",
        Undo: "undo",
        Fault: "fault",
    }
)


def encode_input(item: Input) -> str:
    """One journal line for ``item`` (its ``t`` in seconds since the game started)."""
    record: dict[str, object] = {"t": item.t / NS_PER_S, "type": TYPE_NAMES[type(item)]}
    for field in dataclasses.fields(item):
        name = field.name
        if name in ("t", "ref"):
            continue
        value = getattr(item, name)
        if value is None:
            continue
        if name == "ok":
            record["state"] = "back" if value else "stalled"
        elif name == "correct":
            record["verdict"] = "correct" if value else "wrong"
        elif isinstance(value, tuple):
            record[name] = list(value)
        else:
            record[name] = value
    return json.dumps(record, ensure_ascii=False)
