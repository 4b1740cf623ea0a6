"""``GameCore.push`` takes a button's edge by a shortcut; it decides as the general way.

A press or a release skips the checks only other inputs need (an undo, a
fault note, a draw, a tick). The general way still takes any other class, so
a subclass of :class:`Press` or :class:`Release` goes through it: the same
inputs pushed both ways must make the same decisions and leave the same game.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from buzzer.arbiter.decisions import Decision
from buzzer.arbiter.events import Input, Press, Release
from buzzer.core import GameCore
from buzzer.journal.codec import InputParser, parse_header

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
S = 1_000_000_000
MS = 1_000_000


class _GeneralPress(Press):
    """A press the shortcut does not recognize by its class."""

    __slots__ = ()


class _GeneralRelease(Release):
    __slots__ = ()


def _general(item: Input) -> Input:
    if type(item) is Press:
        return _GeneralPress(item.t, item.seat, item.ref)
    if type(item) is Release:
        return _GeneralRelease(item.t, item.seat, item.ref)
    return item


def _decide(header: str, inputs: list[Input]) -> tuple[list[list[str]], object]:
    """The decisions each push released (as a live game shows them), then the end."""
    core = GameCore(parse_header(header, EXAMPLES))
    steps = [[d.to_json() for d in core.started]]
    for item in inputs:
        out: list[Decision] = []
        core.push(item, out)
        steps.append([d.to_json() for d in out])
    out = []
    core.finish(out)
    steps.append([d.to_json() for d in out])
    return steps, (core.game.result(), core.snapshot())


def _both_ways(header: str, inputs: list[Input]) -> list[list[str]]:
    shortcut = _decide(header, inputs)
    general = _decide(header, [_general(item) for item in inputs])
    assert shortcut == general
    return shortcut[0]


def _journal(path: Path) -> tuple[str, list[Input]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    parser = InputParser(len(json.loads(lines[0])["players"]))
    return lines[0], [parser.parse(text, n) for n, text in enumerate(lines[1:], 2)]


@pytest.mark.parametrize(
    "name",
    ["tv-modern.jsonl", "tv-modern-tie-pick-and-substitute.jsonl", "sport-false-start.jsonl"],
)
def test_an_example_decides_the_same_both_ways(name: str) -> None:
    header, inputs = _journal(EXAMPLES / name)
    assert any(type(item) is Press for item in inputs)
    assert any(_both_ways(header, inputs))


HEADER = json.dumps(
    {"type": "game", "rules": "tv-modern", "players": ["A", "B", "C"], "chooser": 1, "seed": 3}
)


def test_a_tie_without_its_draw_line_is_settled_before_the_next_press() -> None:
    """The shortcut keeps the general way's first step: a tie still waiting when
    another input comes has no draw line in the journal, so the seed decides it."""
    lines = [
        '{"t": 1.0, "type": "select", "theme": 1, "price": 100}',
        '{"t": 2.0, "type": "reading_start"}',
        '{"t": 3.0, "type": "reading_end"}',
        '{"t": 3.5, "type": "press", "seat": 1}',
        '{"t": 3.5, "type": "press", "seat": 2}',
        '{"t": 3.6, "type": "release", "seat": 1}',
        '{"t": 3.7, "type": "press", "seat": 3}',
    ]
    parser = InputParser(3)
    inputs = [parser.parse(text, n) for n, text in enumerate(lines, 2)]
    steps = _both_ways(HEADER, inputs)  # steps[n]: what the push of inputs[n - 1] released
    # The release at 3.6 s releases the two presses of 3.5 s: a tie, and no draw line.
    assert [json.loads(d)["type"] for d in steps[6]] == ["tie"]
    # The next input, a press, settles it by the seed before it is taken itself.
    settled = [json.loads(d) for d in steps[7]]
    assert [d["type"] for d in settled] == ["recognized", "ignored"]
    winner = settled[0]["seat"]
    assert winner in (1, 2)
    assert (settled[1]["seat"], settled[1]["reason"]) == (3 - winner, "lost_draw")


def test_a_late_press_is_ruled_late_by_the_shortcut_too() -> None:
    """A press stamped more than the settle window before one seen earlier."""
    parser = InputParser(3)
    inputs = [
        parser.parse('{"t": 1.0, "type": "select", "theme": 1, "price": 100}', 2),
        parser.parse('{"t": 2.0, "type": "reading_start"}', 3),
        parser.parse('{"t": 3.0, "type": "reading_end"}', 4),
        Press(5 * S, 2, 5),
        Release(5 * S + 50 * MS, 2, 6),
        Press(4 * S + 900 * MS, 1, 7),  # 150 ms before the release seen already
    ]
    steps = _both_ways(HEADER, inputs)
    # Ruled at once, by the push of the late press itself.
    assert [json.loads(d) for d in steps[6]] == [
        {
            "t": 4.9,
            "type": "ignored",
            "seat": 1,
            "reason": "late",
            "late_us": 150000,
            "ahead_of": 2,
            "ahead_us": 100000,
        }
    ]
