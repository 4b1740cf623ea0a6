"""The pin map: which GPIO pin is which button or lamp, read from a TOML file.

A technician edits this file, so every problem is reported with the file and
the key it concerns, all problems at once, and what to do about it::

    pins.toml: [players] 3: pin 31 is out of range: use a BCM GPIO number 2–27 ...

Pins are BCM GPIO numbers (``GPIO17`` is 17, on physical pin 11 of the
40-pin header). The format, with every key, is in ``pinmap.example.toml``
next to this module and in ``docs/raspberry-pi-gpio.md``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from buzzer.errors import SvoyakError

#: BCM GPIO numbers usable on the 40-pin header. GPIO0/1 (ID_SD/ID_SC) are kept
#: for a HAT's ID EEPROM and are refused.
FIRST_PIN = 2
LAST_PIN = 27

#: GPIO2 and GPIO3 (I2C SDA/SCL) carry fixed 1.8 kΩ pull-ups on the board.
FIXED_PULL_UP = frozenset({2, 3})

#: Host buttons: what each one sends when pressed.
HOST_ROLES = ("reading_start", "reading_end", "correct", "wrong")
REQUIRED_HOST_ROLES = ("reading_start", "reading_end")

PULLS = ("up", "down", "none")

DEFAULT_HOLD_OFF_MS = 20.0
DEFAULT_STUCK_AFTER_S = 10.0
#: The glitch check: a change counts only if the line still holds it this long after its first edge.
DEFAULT_GLITCH_MS = 1.0

_SECTIONS = ("timing", "players", "host", "lamps", "selftest")
_TIMING_KEYS = ("hold_off_ms", "stuck_after_s", "glitch_ms")
_BUTTON_KEYS = ("pin", "pull", "active_low")
_LAMP_KEYS = ("pin", "active_low")


@dataclass(frozen=True, slots=True)
class ButtonPin:
    """One button's input: ``pull`` is the internal resistor, ``active_low`` the pressed level.

    With ``pull = "up"`` (the default) the button connects the pin to GND:
    pressed reads low. ``"down"``: the button connects to 3V3, pressed reads
    high. ``"none"``: an external resistor; ``active_low`` says which level
    is pressed.
    """

    key: str
    pin: int
    pull: str = "up"
    active_low: bool = True

    @property
    def pull_up(self) -> bool | None:
        """gpiozero's ``pull_up`` argument (None: floating, external resistor)."""
        return {"up": True, "down": False}.get(self.pull)

    @property
    def active_state(self) -> bool | None:
        """gpiozero's ``active_state`` (only given for a floating input)."""
        return None if self.pull != "none" else not self.active_low


@dataclass(frozen=True, slots=True)
class LampPin:
    """One lamp's output; ``active_low`` when the driver lights the lamp on a low level."""

    key: str
    pin: int
    active_low: bool = False


def _frozen(mapping: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True, slots=True)
class PinMap:
    """A validated pin map. Buttons are named by key: the seat (``"1"``) or a host role."""

    source: str
    players: Mapping[int, ButtonPin]
    host: Mapping[str, ButtonPin] = field(default_factory=lambda: _frozen({}))
    podium_lamps: Mapping[int, LampPin] = field(default_factory=lambda: _frozen({}))
    signal_lamp: LampPin | None = None
    #: Self-test loopbacks: button key → the output pin wired to that button's input.
    loopback: Mapping[str, int] = field(default_factory=lambda: _frozen({}))
    hold_off_ns: int = round(DEFAULT_HOLD_OFF_MS * 1e6)
    stuck_ns: int = round(DEFAULT_STUCK_AFTER_S * 1e9)
    glitch_ns: int = round(DEFAULT_GLITCH_MS * 1e6)

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(sorted(self.players))

    def buttons(self) -> dict[str, ButtonPin]:
        """Every button by key: seats first (``"1"``, ``"2"``…), then host roles."""
        found: dict[str, ButtonPin] = {str(s): self.players[s] for s in self.seats}
        found.update((role, self.host[role]) for role in HOST_ROLES if role in self.host)
        return found

    def used_pins(self) -> dict[int, str]:
        """Every pin in use → what it is (for finding spare pins, and for messages)."""
        used: dict[int, str] = {}
        for key, button in self.buttons().items():
            used[button.pin] = describe_key(key)
        for seat, lamp in self.podium_lamps.items():
            used[lamp.pin] = f"lamp of seat {seat}"
        if self.signal_lamp is not None:
            used[self.signal_lamp.pin] = "signal lamp"
        for key, pin in self.loopback.items():
            used[pin] = f"loopback of {describe_key(key)}"
        return used


def describe_key(key: str) -> str:
    """A button key as a technician reads it: ``seat 2``, ``host reading_end``."""
    return f"seat {key}" if key.isdigit() else f"host {key}"


class PinMapError(SvoyakError, ValueError):
    """A pin map that cannot be used; ``problems`` are ``(key, message)`` pairs."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = [f"{source}: {key}: {msg}" if key else f"{source}: {msg}" for key, msg in problems]
        head = f"the pin map {source} has {len(problems)} problem(s):" if len(problems) > 1 else ""
        super().__init__("\n".join([head, *lines]) if head else lines[0])


# -- loading -----------------------------------------------------------------


def example_path() -> Path:
    """The example pin map shipped with the package (``hardware/pinmap.example.toml``)."""
    return Path(str(resources.files("hardware").joinpath("pinmap.example.toml")))


def load_pinmap(path: str | Path) -> PinMap:
    """Read and validate a pin map; :class:`PinMapError` names the file and the key."""
    source = str(path)
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise PinMapError(source, [("", "no such file")]) from None
    except OSError as exc:
        raise PinMapError(source, [("", f"cannot be read: {exc.strerror}")]) from None
    except tomllib.TOMLDecodeError as exc:
        raise PinMapError(source, [("", f"is not valid TOML: {exc}")]) from None
    return parse_pinmap(data, source)


def parse_pinmap(data: Mapping[str, Any], source: str = "<pin map>") -> PinMap:
    """Validate the decoded TOML of a pin map (see :func:`load_pinmap`)."""
    return _Parser(source).parse(data)


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[tuple[str, str]] = []
        self.owners: dict[int, str] = {}

    def problem(self, key: str, message: str) -> None:
        self.problems.append((key, message))

    def parse(self, data: Mapping[str, Any]) -> PinMap:
        for name in data:
            if name not in _SECTIONS:
                self.problem(
                    f"[{name}]", f"unknown section; the sections are {', '.join(_SECTIONS)}"
                )
        hold_off_ns, stuck_ns, glitch_ns = self.timing(self.table(data, "timing"))
        players = self.players(self.table(data, "players"))
        host = self.host(self.table(data, "host"))
        podiums, signal = self.lamps(self.table(data, "lamps"), players)
        buttons = {str(s): b for s, b in players.items()} | dict(host)
        loopback = self.selftest(self.table(data, "selftest"), buttons)
        if self.problems:
            raise PinMapError(self.source, self.problems)
        return PinMap(
            source=self.source,
            players=_frozen(players),
            host=_frozen(host),
            podium_lamps=_frozen(podiums),
            signal_lamp=signal,
            loopback=_frozen(loopback),
            hold_off_ns=hold_off_ns,
            stuck_ns=stuck_ns,
            glitch_ns=glitch_ns,
        )

    def table(self, data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
        value = data.get(name, {})
        if not isinstance(value, dict):
            self.problem(f"[{name}]", "must be a table ([" + name + "] with keys under it)")
            return {}
        return value

    # -- sections --------------------------------------------------------------

    def timing(self, table: Mapping[str, Any]) -> tuple[int, int, int]:
        for key in table:
            if key not in _TIMING_KEYS:
                self.problem(f"[timing] {key}", f"unknown key; known: {', '.join(_TIMING_KEYS)}")
        hold_off = self.number(table, "hold_off_ms", DEFAULT_HOLD_OFF_MS, 0.0, 500.0, "[timing]")
        stuck = self.number(table, "stuck_after_s", DEFAULT_STUCK_AFTER_S, 1.0, 3600.0, "[timing]")
        glitch = self.number(table, "glitch_ms", DEFAULT_GLITCH_MS, 0.0, 10.0, "[timing]")
        return round(hold_off * 1e6), round(stuck * 1e9), round(glitch * 1e6)

    def players(self, table: Mapping[str, Any]) -> dict[int, ButtonPin]:
        if not table:
            self.problem("[players]", "no player buttons: add lines like `1 = 17` (seat = BCM pin)")
            return {}
        found: dict[int, ButtonPin] = {}
        for key, value in table.items():
            where = f"[players] {key}"
            if not key.isdigit() or int(key) < 1:
                self.problem(where, "a player key is a seat number 1, 2, 3…")
                continue
            button = self.button(where, key, value)
            if button is not None:
                found[int(key)] = button
        declared = sorted(int(k) for k in table if k.isdigit() and int(k) >= 1)
        missing = [s for s in range(1, (declared[-1] if declared else 0) + 1) if s not in declared]
        if missing:
            self.problem(
                "[players]",
                "seats must be numbered 1..N without gaps; missing: "
                + ", ".join(str(s) for s in missing),
            )
        return found

    def host(self, table: Mapping[str, Any]) -> dict[str, ButtonPin]:
        found: dict[str, ButtonPin] = {}
        for key, value in table.items():
            where = f"[host] {key}"
            if key not in HOST_ROLES:
                self.problem(where, f"unknown host button; known: {', '.join(HOST_ROLES)}")
                continue
            button = self.button(where, key, value)
            if button is not None:
                found[key] = button
        for role in REQUIRED_HOST_ROLES:
            if role not in table:
                self.problem(
                    "[host]",
                    f"{role} is missing: the host's {role.replace('_', ' ')} button "
                    f"(add `{role} = <BCM pin>`)",
                )
        return found

    def lamps(
        self, table: Mapping[str, Any], players: Mapping[int, ButtonPin]
    ) -> tuple[dict[int, LampPin], LampPin | None]:
        podiums: dict[int, LampPin] = {}
        signal: LampPin | None = None
        for key, value in table.items():
            if key == "signal":
                signal = self.lamp("[lamps] signal", "signal", value)
            elif key == "podiums":
                if not isinstance(value, dict):
                    self.problem("[lamps.podiums]", "must be a table of seat = BCM pin")
                    continue
                for seat, lamp_value in value.items():
                    where = f"[lamps.podiums] {seat}"
                    if not seat.isdigit() or int(seat) < 1:
                        self.problem(where, "a podium key is a seat number 1, 2, 3…")
                        continue
                    if players and int(seat) not in players:
                        self.problem(where, f"there is no player button for seat {seat}")
                    lamp = self.lamp(where, seat, lamp_value)
                    if lamp is not None:
                        podiums[int(seat)] = lamp
            else:
                self.problem(
                    f"[lamps] {key}", "unknown key; known: signal, and the [lamps.podiums] table"
                )
        return podiums, signal

    def selftest(
        self, table: Mapping[str, Any], buttons: Mapping[str, ButtonPin]
    ) -> dict[str, int]:
        found: dict[str, int] = {}
        for key, value in table.items():
            if key != "loopback":
                self.problem(
                    f"[selftest] {key}", "unknown key; known: the [selftest.loopback] table"
                )
                continue
            if not isinstance(value, dict):
                self.problem("[selftest.loopback]", "must be a table of button = output BCM pin")
                continue
            for button_key, pin_value in value.items():
                where = f"[selftest.loopback] {button_key}"
                if button_key not in buttons:
                    self.problem(
                        where,
                        "no such button: use a seat number from [players] or a role from [host]",
                    )
                    continue
                pin = self.pin(where, pin_value)
                if pin is not None:
                    found[button_key] = pin
        return found

    # -- values ----------------------------------------------------------------

    def button(self, where: str, key: str, value: Any) -> ButtonPin | None:
        if isinstance(value, dict):
            for name in value:
                if name not in _BUTTON_KEYS:
                    self.problem(where, f"unknown key {name!r}; known: {', '.join(_BUTTON_KEYS)}")
            if "pin" not in value:
                self.problem(where, "the table needs pin = <BCM pin>")
                return None
            pin = self.pin(where, value["pin"])
            pull = value.get("pull", "up")
            if pull not in PULLS:
                self.problem(where, f'pull = {pull!r}: use "up", "down" or "none"')
                return None
            implied = {"up": True, "down": False}.get(pull)
            active_low = value.get("active_low", True if implied is None else implied)
            if not isinstance(active_low, bool):
                self.problem(where, "active_low must be true or false")
                return None
            if implied is not None and active_low != implied:
                self.problem(
                    where,
                    f'pull = "{pull}" means the button reads '
                    f"{'low' if implied else 'high'} when pressed (active_low = "
                    f'{str(implied).lower()}): remove active_low, or use pull = "none" '
                    "with an external resistor",
                )
                return None
        else:
            pin = self.pin(where, value)
            pull, active_low = "up", True
        if pin is None:
            return None
        if pin in FIXED_PULL_UP and pull != "up":
            # gpiozero refuses any other pull there (PinFixedPull) when the button
            # is built: at start-up, in a restart loop under systemd. Said here,
            # when the pin map is read, instead.
            self.problem(
                where,
                f"GPIO{pin} has a fixed 1.8 kΩ pull-up on the board: pull = "
                f'"{pull}" cannot work there (gpiozero refuses it); wire the button to GND '
                'with pull = "up", or use another pin',
            )
            return None
        self.claim(where, pin)
        return ButtonPin(key, pin, pull, active_low)

    def lamp(self, where: str, key: str, value: Any) -> LampPin | None:
        active_low = False
        if isinstance(value, dict):
            for name in value:
                if name not in _LAMP_KEYS:
                    self.problem(where, f"unknown key {name!r}; known: {', '.join(_LAMP_KEYS)}")
            if "pin" not in value:
                self.problem(where, "the table needs pin = <BCM pin>")
                return None
            active_low = value.get("active_low", False)
            if not isinstance(active_low, bool):
                self.problem(where, "active_low must be true or false")
                return None
            value = value["pin"]
        pin = self.pin(where, value)
        if pin is None:
            return None
        if pin in FIXED_PULL_UP and not active_low:
            # The board's 1.8 kΩ pull-up outweighs the driver's 4.7 kΩ gate
            # pull-down whenever nothing drives the pin (at boot, svoyak stopped):
            # the gate sits far above the MOSFET's threshold and the lamp is lit.
            # docs/raspberry-pi-gpio.md has the simulated gate voltage. An
            # active-low driver (a relay board lit by a low pin) is dark at a
            # high pin, so the pull-up keeps it off: that one is allowed.
            self.problem(
                where,
                f"GPIO{pin} has a fixed 1.8 kΩ pull-up on the board: it would hold the "
                "lamp driver's gate on, so this lamp would be lit at boot and whenever "
                "svoyak is stopped; use another pin for a lamp (GPIO2/3 suit buttons "
                "to GND, or a driver that lights on a low pin: active_low = true)",
            )
            return None
        self.claim(where, pin)
        return LampPin(key, pin, active_low)

    def pin(self, where: str, value: Any) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.problem(where, f"{value!r} is not a pin: use a BCM GPIO number such as 17")
            return None
        if value in (0, 1):
            self.problem(
                where,
                f"GPIO{value} (ID_SD/ID_SC) is reserved for a HAT's ID EEPROM: use another pin",
            )
            return None
        if not FIRST_PIN <= value <= LAST_PIN:
            self.problem(
                where,
                f"pin {value} is out of range: use a BCM GPIO number {FIRST_PIN}–{LAST_PIN} "
                "(GPIO17 is 17, not the header's physical pin number)",
            )
            return None
        return value

    def claim(self, where: str, pin: int) -> None:
        owner = self.owners.get(pin)
        if owner is not None:
            self.problem(where, f"GPIO{pin} is already used by {owner}: every pin may be used once")
        else:
            self.owners[pin] = where

    def number(
        self,
        table: Mapping[str, Any],
        key: str,
        default: float,
        low: float,
        high: float,
        section: str,
    ) -> float:
        value = table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.problem(f"{section} {key}", f"{value!r} is not a number")
            return default
        if not low <= value <= high:
            self.problem(f"{section} {key}", f"{value} is out of range {low:g}–{high:g}")
            return default
        return float(value)
