"""The pin map: the shipped example loads; every mistake names the file and the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hardware.pinmap import FIXED_PULL_UP, PinMapError, example_path, load_pinmap, parse_pinmap

BASE: dict[str, Any] = {
    "players": {"1": 17, "2": 27},
    "host": {"reading_start": 5, "reading_end": 6},
}


def problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(PinMapError) as caught:
        parse_pinmap(data, "pins.toml")
    return caught.value.problems


def with_(**sections: Any) -> dict[str, Any]:
    return {**BASE, **sections}


def test_the_shipped_example_loads() -> None:
    pinmap = load_pinmap(example_path())
    assert pinmap.seats == (1, 2, 3, 4)
    assert set(pinmap.host) == {"reading_start", "reading_end", "correct", "wrong"}
    assert pinmap.signal_lamp is not None and pinmap.signal_lamp.pin == 12
    assert {s: lamp.pin for s, lamp in pinmap.podium_lamps.items()} == {1: 16, 2: 20, 3: 21, 4: 26}
    assert pinmap.hold_off_ns == 20_000_000
    assert pinmap.stuck_ns == 10_000_000_000
    button = pinmap.players[1]
    assert (button.pin, button.pull, button.active_low) == (17, "up", True)
    assert (button.pull_up, button.active_state) == (True, None)


def test_long_forms_pull_and_active_level() -> None:
    pinmap = parse_pinmap(
        {
            "players": {
                "1": {"pin": 17, "pull": "none", "active_low": False},
                "2": {"pin": 27, "pull": "down"},
            },
            "host": BASE["host"],
            "lamps": {"signal": {"pin": 12, "active_low": True}, "podiums": {"1": 16}},
            "selftest": {"loopback": {"1": 7, "reading_end": 8}},
            "timing": {"hold_off_ms": 5, "stuck_after_s": 2.5, "glitch_ms": 0.5},
        }
    )
    one, two = pinmap.players[1], pinmap.players[2]
    assert (one.pull_up, one.active_state, one.active_low) == (None, True, False)
    assert (two.pull_up, two.active_state, two.active_low) == (False, None, False)
    assert pinmap.signal_lamp is not None and pinmap.signal_lamp.active_low
    assert dict(pinmap.loopback) == {"1": 7, "reading_end": 8}
    assert (pinmap.hold_off_ns, pinmap.stuck_ns) == (5_000_000, 2_500_000_000)
    assert pinmap.glitch_ns == 500_000


def test_a_duplicate_pin_names_both_keys() -> None:
    found = problems(with_(lamps={"podiums": {"1": 27}}))
    assert found == [
        (
            "[lamps.podiums] 1",
            "GPIO27 is already used by [players] 2: every pin may be used once",
        )
    ]


def test_unknown_keys_and_sections() -> None:
    found = dict(
        problems(
            with_(
                timing={"holdoff": 3},
                host={**BASE["host"], "signal": 9},
                lamps={"signal": 12, "colour": "red"},
                extra={},
            )
        )
    )
    assert "unknown section" in found["[extra]"]
    assert "unknown key; known: hold_off_ms, stuck_after_s, glitch_ms" in found["[timing] holdoff"]
    assert "unknown host button" in found["[host] signal"]
    assert "unknown key" in found["[lamps] colour"]


@pytest.mark.parametrize(
    ("pin", "words"),
    [
        (40, "pin 40 is out of range: use a BCM GPIO number 2–27"),
        (28, "out of range"),
        (1, "reserved for a HAT's ID EEPROM"),
        ("17", "is not a pin"),
        (True, "is not a pin"),
    ],
)
def test_pins_out_of_range(pin: Any, words: str) -> None:
    (key, message), *_ = problems(with_(players={"1": pin, "2": 27}))
    assert key == "[players] 1"
    assert words in message


def test_the_message_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "pins.toml"
    path.write_text("[players]\n1 = 17\n2 = 17\n[host]\nreading_start = 5\nreading_end = 99\n")
    with pytest.raises(PinMapError) as caught:
        load_pinmap(path)
    text = str(caught.value)
    assert text.startswith(f"the pin map {path} has 2 problem(s):")
    assert f"{path}: [players] 2: GPIO17 is already used by [players] 1" in text
    assert f"{path}: [host] reading_end: pin 99 is out of range" in text


def test_bad_toml_and_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "pins.toml"
    path.write_text("[players\n1 = 17\n")
    with pytest.raises(PinMapError, match=r"pins\.toml: is not valid TOML"):
        load_pinmap(path)
    with pytest.raises(PinMapError, match="no such file"):
        load_pinmap(tmp_path / "nope.toml")


def test_seats_without_gaps_and_required_host_buttons() -> None:
    found = dict(problems({"players": {"1": 17, "3": 22}, "host": {"reading_end": 6}}))
    assert "missing: 2" in found["[players]"]
    assert "reading_start is missing" in found["[host]"]
    assert "no player buttons" in dict(problems({"host": BASE["host"]}))["[players]"]


def test_pull_conflicts_and_fixed_pull_ups() -> None:
    found = dict(
        problems(
            with_(
                players={
                    "1": {"pin": 17, "pull": "up", "active_low": False},
                    "2": {"pin": 2, "pull": "down"},
                    "3": {"pin": 22, "pull": "sideways"},
                }
            )
        )
    )
    assert 'pull = "up" means the button reads low when pressed' in found["[players] 1"]
    assert "GPIO2 has a fixed 1.8 kΩ pull-up" in found["[players] 2"]
    assert 'use "up", "down" or "none"' in found["[players] 3"]


@pytest.mark.parametrize("pin", sorted(FIXED_PULL_UP))
def test_a_floating_button_on_a_fixed_pull_up_pin_is_refused_when_the_map_is_read(
    pin: int,
) -> None:
    """gpiozero itself refuses any pull but "up" on GPIO2/3 (PinFixedPull), only when
    the button is built: the pin map must say it first, never a crash at start-up."""
    from gpiozero import Button
    from gpiozero.exc import PinFixedPull
    from gpiozero.pins.mock import MockFactory

    factory = MockFactory()
    with pytest.raises(PinFixedPull):
        Button(pin, pull_up=None, active_state=False, pin_factory=factory)
    found = dict(problems(with_(players={"1": {"pin": pin, "pull": "none", "active_low": True}})))
    expected = f'GPIO{pin} has a fixed 1.8 kΩ pull-up on the board: pull = "none"'
    assert expected in found["[players] 1"]
    # "up" (the default) is fine there: the board's resistor and gpiozero agree.
    pins = parse_pinmap(with_(players={"1": {"pin": pin, "pull": "up"}, "2": 27}), "pins.toml")
    Button(pins.players[1].pin, pull_up=pins.players[1].pull_up, pin_factory=factory)


def test_lamps_and_loopbacks_must_name_real_buttons() -> None:
    found = dict(
        problems(
            with_(
                lamps={"podiums": {"5": 16}},
                selftest={"loopback": {"9": 7}},
                timing={"hold_off_ms": 900, "glitch_ms": 50},
            )
        )
    )
    assert "there is no player button for seat 5" in found["[lamps.podiums] 5"]
    assert "no such button" in found["[selftest.loopback] 9"]
    assert "out of range 0–500" in found["[timing] hold_off_ms"]
    assert "out of range 0–10" in found["[timing] glitch_ms"]


@pytest.mark.parametrize("pin", sorted(FIXED_PULL_UP))
def test_a_lamp_on_a_fixed_pull_up_pin_is_refused_because_it_would_light_at_boot(
    pin: int,
) -> None:
    """GPIO2/3's board pull-ups hold an active-high driver's gate on whenever the
    pin is not driven (issue 34): the map says so when read, for the signal lamp
    and a podium lamp alike."""
    found = dict(problems(with_(lamps={"signal": pin})))
    assert f"GPIO{pin} has a fixed 1.8 kΩ pull-up" in found["[lamps] signal"]
    assert "lit at boot and whenever svoyak is stopped" in found["[lamps] signal"]
    found = dict(problems(with_(lamps={"podiums": {"1": {"pin": pin}}})))
    assert "lit at boot" in found["[lamps.podiums] 1"]


def test_an_active_low_lamp_may_use_a_fixed_pull_up_pin() -> None:
    """A driver lit by a low pin is dark while the pull-up holds the pin high."""
    pins = parse_pinmap(with_(lamps={"signal": {"pin": 2, "active_low": True}}), "pins.toml")
    assert pins.signal_lamp is not None and pins.signal_lamp.pin == 2
