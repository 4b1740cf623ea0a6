"""The typed contract from the core to its adapters (rules/snapshot.py).

The snapshot is a plain dict at run time; its TypedDict is only worth having
if it is the truth. These tests walk every example journal input by input and
hold each snapshot, and each ``host_options()``, to the declared keys and
types, so a key renamed in the engine and not in the contract (or the
reverse) fails here, not on a screen.
"""

from __future__ import annotations

import types
import typing
from pathlib import Path
from typing import Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints

import pytest

from buzzer.core import GameCore
from buzzer.journal.codec import InputParser, parse_header
from rules import snapshot as contract
from rules.snapshot import GameSnapshot, HostOptions, LiveSnapshot
from tests.support.paths import REPO

EXAMPLES = sorted((REPO / "examples").glob("*.jsonl"))


def conforms(value: Any, hint: Any, where: str) -> None:
    """Assert ``value`` has the shape ``hint`` declares (TypedDicts, lists, unions, literals)."""
    origin = get_origin(hint)
    if origin is NotRequired:
        conforms(value, get_args(hint)[0], where)
    elif origin in (Union, types.UnionType):
        errors = []
        for option in get_args(hint):
            try:
                conforms(value, option, where)
                return
            except AssertionError as exc:
                errors.append(str(exc))
        raise AssertionError(f"{where}: {value!r} is none of {hint}: {errors}")
    elif hint is type(None):
        assert value is None, f"{where}: {value!r} is not None"
    elif origin is Literal:  # the stage's words: a bare string, one of them
        assert type(value) is str and value in get_args(hint), f"{where}: {value!r} not in {hint}"
    elif typing.is_typeddict(hint):
        assert isinstance(value, dict), f"{where}: {value!r} is not an object"
        hints = get_type_hints(hint)
        required = hint.__required_keys__
        assert required <= value.keys(), f"{where}: missing {sorted(required - value.keys())}"
        assert value.keys() <= hints.keys(), f"{where}: undeclared {sorted(value.keys() - hints)}"
        for key, item in value.items():
            conforms(item, hints[key], f"{where}.{key}")
    elif origin is list:
        assert isinstance(value, list), f"{where}: {value!r} is not a list"
        for index, item in enumerate(value):
            conforms(item, get_args(hint)[0], f"{where}[{index}]")
    elif origin is dict:
        assert isinstance(value, dict), f"{where}: {value!r} is not an object"
        key_type, item_type = get_args(hint)
        for key, item in value.items():
            conforms(key, key_type, f"{where} key")
            conforms(item, item_type, f"{where}[{key!r}]")
    elif hint is float:
        assert isinstance(value, int | float) and not isinstance(value, bool), where
    elif hint is int:
        assert isinstance(value, int) and not isinstance(value, bool), f"{where}: {value!r}"
    else:
        assert isinstance(value, hint), f"{where}: {value!r} is not {hint}"


def walk(path: Path) -> list[GameCore]:
    """The core after each input of the journal at ``path`` (copies)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    core = GameCore(parse_header(lines[0], path.parent))
    parser = InputParser(len(core.setup.players))
    states = [core.copy()]
    for number, text in enumerate(lines[1:], 2):
        if not text.strip():
            continue
        core.push(parser.parse(text, number), [])
        states.append(core.copy())
    core.finish([])
    states.append(core)
    return states


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_snapshot_of_every_example_game_is_what_the_contract_says(path: Path) -> None:
    states = walk(path)
    seen_stages = set()
    for index, core in enumerate(states):
        snap = core.snapshot()
        conforms(snap, GameSnapshot, f"{path.stem}#{index}")
        seen_stages.add(snap["stage"])
        t = core.buffer.watermark if core.buffer.watermark is not None else 0
        conforms(core.host_options(t), HostOptions, f"{path.stem}#{index} options")
    assert "board" in seen_stages  # the walk reached the game, not only its header


def test_the_examples_reach_the_optional_parts_of_the_contract() -> None:
    """The walk above is only a check where a part is present: the examples
    must show each optional view at least once."""
    present: set[str] = set()
    options: set[str] = set()
    for path in EXAMPLES:
        for core in walk(path):
            snap = core.snapshot()
            present |= {key for key, value in snap.items() if value is not None}
            t = core.buffer.watermark if core.buffer.watermark is not None else 0
            host = core.host_options(t)
            options |= {key for key, value in host.items() if value is not None}
    for view in ("bidding", "final", "cat_series", "bonus", "cell", "special"):
        assert view in present, view
    for option in ("bid_min", "bid_step", "final_turn", "next_round", "cat_rules"):
        assert option in options, option


def test_a_live_snapshot_is_the_game_snapshot_plus_its_version_and_clock() -> None:
    hints = get_type_hints(LiveSnapshot)
    assert set(hints) - set(get_type_hints(GameSnapshot)) == {"version", "now"}
    assert {"version", "now"} <= LiveSnapshot.__optional_keys__


def test_the_contract_catches_a_renamed_key() -> None:
    states = walk(EXAMPLES[0])
    snap: dict[str, Any] = dict(states[-1].snapshot())
    snap["score"] = snap.pop("scores")
    with pytest.raises(AssertionError, match="missing"):
        conforms(snap, GameSnapshot, "renamed")


def test_every_view_in_the_contract_module_is_used_by_the_snapshot_or_the_options() -> None:
    declared = {
        name
        for name, value in vars(contract).items()
        if typing.is_typeddict(value) and value.__module__ == contract.__name__
    }

    def reachable(hint: Any, found: set[str]) -> None:
        if typing.is_typeddict(hint):
            found.add(hint.__name__)
            for inner in get_type_hints(hint).values():
                reachable(inner, found)
        for arg in get_args(hint):
            reachable(arg, found)

    found: set[str] = set()
    for root in (GameSnapshot, LiveSnapshot, HostOptions):
        reachable(root, found)
    assert declared == found
