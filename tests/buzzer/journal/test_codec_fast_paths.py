"""The codec's shortcuts for the common line read it exactly as the full way does.

A press or release line is read at once when its fields are well formed, and
a line that is one JSON value alone is read by the decoder's scanner; every
other line takes the full way. These tests pin that the shortcut's result is
the full way's result, and that whatever the shortcut declines still gets the
full way's message.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from buzzer.arbiter.events import Press, Release, Tick
from buzzer.journal.codec import InputParser, JournalError

SEATS = 3


def _parse(text: str, line: int = 7) -> object:
    return InputParser(SEATS).parse(text, line)


def _message(text: str, line: int = 7) -> str:
    with pytest.raises(JournalError) as caught:
        _parse(text, line)
    return caught.value.message


@pytest.mark.parametrize(("kind", "cls"), [("press", Press), ("release", Release)])
def test_a_button_edge_is_the_same_event_as_its_class_makes(
    kind: str, cls: type[Press] | type[Release]
) -> None:
    made = _parse(f'{{"t": 4.184443, "type": "{kind}", "seat": 2}}', 9)
    expected = cls(4_184_443_000, 2, 9)
    assert type(made) is cls
    assert made == expected
    assert hash(made) == hash(expected)
    assert repr(made) == repr(expected)
    assert isinstance(made, cls)
    assert dataclasses.replace(made, seat=3) == cls(4_184_443_000, 3, 9)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.seat = 1  # type: ignore[misc]


def test_compact_json_and_extra_fields_read_as_the_full_way_reads_them() -> None:
    assert _parse('{"t":3.5,"type":"press","seat":3}', 4) == Press(3_500_000_000, 3, 4)
    assert _parse('{"type": "release", "note": "x", "seat": 1, "t": 0.0}', 5) == Release(0, 1, 5)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # whole seconds as an integer: declined by the shortcut, accepted in full
        ('{"t": 3, "type": "press", "seat": 1}', Press(3_000_000_000, 1, 7)),
        # whitespace around the object: declined by the scanner, read by decode()
        (' {"t": 3.0, "type": "press", "seat": 1}\t', Press(3_000_000_000, 1, 7)),
        ('{"t": 3.0, "type": "tick"}', Tick(3_000_000_000, 7)),
    ],
)
def test_what_a_shortcut_declines_is_still_read(text: str, expected: object) -> None:
    assert _parse(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"t": 3.0, "type": "press", "seat": 4}', "field 'seat' is out of range: 4 is not in"),
        ('{"t": 3.0, "type": "press", "seat": 0}', "field 'seat' is out of range: 0 is not in"),
        ('{"t": 3.0, "type": "release", "seat": true}', "field 'seat' must be a whole number"),
        ('{"t": 3.0, "type": "press", "seat": 2.0}', "field 'seat' must be a whole number"),
        ('{"t": 3.0, "type": "press"}', "missing field 'seat'"),
        ('{"type": "press", "seat": 1}', "missing field 't'"),
        ('{"t": "3.0", "type": "press", "seat": 1}', "field 't' must be a number of seconds"),
        ('{"t": NaN, "type": "press", "seat": 1}', "field 't' is out of range"),
        ('{"t": -1.0, "type": "press", "seat": 1}', "field 't' is out of range"),
        ('{"t": 1000000.5, "type": "release", "seat": 1}', "field 't' is out of range"),
        # the time is checked before the seat, whichever way the line is read
        ('{"t": -1.0, "type": "press", "seat": 9}', "field 't' is out of range"),
        ('{"t": 3.0, "type": ["press"], "seat": 1}', "unknown type ['press']"),
        ('{"t": 3.0, "type": "game"}', "a second header"),
    ],
)
def test_a_bad_button_line_gets_the_full_ways_message(text: str, message: str) -> None:
    assert _message(text).startswith(message)


@pytest.mark.parametrize(
    "text",
    [
        '{"t": 3.0, "type": "press", "seat": 1}{"t": 4.0}',  # a second value
        '{"t": 3.0, "type": "press", "seat": 1',  # cut short
        "\ufeff" + '{"t": 3.0, "type": "press", "seat": 1}',  # a BOM inside the journal
        "",
        "   ",
    ],
)
def test_a_line_the_scanner_declines_gets_json_loads_own_words(text: str) -> None:
    with pytest.raises(ValueError) as loads:
        json.loads(text)
    assert _message(text) == f"not valid JSON ({loads.value})"


@pytest.mark.parametrize(("text", "name"), [("null", "NoneType"), ("[]", "list"), ("5", "int")])
def test_a_value_that_is_not_an_object_is_named(text: str, name: str) -> None:
    assert _message(text) == f"expected a JSON object, got {name}"


def test_nesting_too_deep_for_the_scanner_is_a_message_not_a_crash() -> None:
    assert _message("[" * 100_000 + "]" * 100_000).startswith("not valid JSON (")


def test_a_lone_surrogate_in_a_button_line_is_refused() -> None:
    text = '{"t": 3.0, "type": "press", "seat": 1, "note": "\\ud800"}'
    assert "lone UTF-16 surrogate" in _message(text)
