"""``svoyak doctor``'s GPIO checks: the pin map, the header's chip, the buttons, the lamps.

Through the project's own pieces: the pin map is loaded and validated by
:mod:`hardware.pinmap` (never validated again here), the chip is opened by
:func:`hardware.factory.open_pin_factory` (the one the game opens), the
buttons are read by a :class:`hardware.buttons.ButtonBank` and the lamps
driven by a :class:`hardware.lamps.LampBoard`, on the pin factory
:class:`buzzer.app.doctor.Host` gives (gpiozero's mock pins in the tests).
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from buzzer.app.doctor import FAIL, PASS, SKIP, GpioChip, Host, Setup, Verdict, Words, skipped
from buzzer.app.doctor_system import STOP_SERVICE, service_holds

#: The labels the kernel gives the 40-pin header's GPIO chip (what `gpiodetect` lists).
HEADER_LABELS = {
    "pinctrl-rp1": "Raspberry Pi 5",
    "pinctrl-bcm2711": "Raspberry Pi 4 / 400 / CM4",
    "pinctrl-bcm2835": "Raspberry Pi 3, Zero and older",
}
#: How long the buttons are watched before their levels are judged (a press in
#: passing is let go by then; a held button or a short is not).
BUTTON_SETTLE_S = 0.05
#: How long an undriven lamp line is left before it is read: a MOSFET gate that was
#: driven high discharges through its 4.7 kΩ pull-down in microseconds.
LAMP_SETTLE_S = 0.002


def check_gpio(setup: Setup, host: Host, pico: Any) -> list[Verdict]:
    """``pinmap``, ``gpiochip``, ``buttons``, ``lamps``, in that order."""
    from hardware.factory import FactoryUnavailable
    from hardware.pinmap import PinMapError, load_pinmap

    if setup.pins is None:
        return [_no_pinmap(setup, host, pico), *_all_skipped(_NO_PINMAP)]
    pinmap = None
    try:
        pinmap = load_pinmap(setup.pins)
        verdicts = [_pinmap_ok(pinmap, setup)]
    except PinMapError as exc:
        verdicts = [
            Verdict(
                "pinmap",
                FAIL,
                Words.of("doctor.gpio.pin_map_cannot_be_used_because") + Words(str(exc), str(exc)),
                Words.of("doctor.gpio.fix_file_message_says"),
                {"path": setup.pins, "from": setup.pins_from},
            )
        ]
    factory = None
    try:
        if setup.simulate:
            factory = host.open_factory(True, None)
            verdicts.append(
                skipped(
                    "gpiochip",
                    Words.of("doctor.gpio.simulated_mock_pins_no"),
                )
            )
        else:
            error = None
            try:
                factory = host.open_factory(False, setup.gpiochip)
            except FactoryUnavailable as exc:
                error = str(exc)
            verdicts.append(judge_chip(host.gpiochips(), factory, error, setup.gpiochip))
        if pinmap is None:
            verdicts += _all_skipped(
                Words.of("doctor.gpio.pin_map_cannot_be_used_see_above"),
                only=("buttons", "lamps"),
            )
        elif factory is None:
            verdicts += _all_skipped(
                Words.of("doctor.gpio.gpio_chip_did_not"),
                only=("buttons", "lamps"),
            )
        else:
            verdicts.append(check_buttons(pinmap, factory, setup, host))
            verdicts.append(check_lamps(pinmap, factory, setup, host))
    finally:
        if factory is not None:
            with contextlib.suppress(Exception):  # closing a factory must not hide a verdict
                factory.close()
    return verdicts


_NO_PINMAP = Words.of("doctor.gpio.no_gpio_pin_map")


def _all_skipped(
    why: Words, only: tuple[str, ...] = ("gpiochip", "buttons", "lamps")
) -> list[Verdict]:
    return [skipped(check, why) for check in only]


def _no_pinmap(setup: Setup, host: Host, pico: Any) -> Verdict:
    where = Words.of("doctor.gpio.pins_svoyak_pins_hardware", system_pinmap=host.system_pinmap)
    if setup.serial is not None:
        return skipped(
            "pinmap",
            Words.of("doctor.gpio.pico_path_no_gpio") + where,
        )
    if setup.config_unknown:
        return skipped(
            "pinmap",
            Words.of("doctor.gpio.no_gpio_pin_map_where")
            + where
            + Words.of("doctor.gpio.whether_config_names_one"),
        )
    unnamed = pico is not None and pico.port is not None
    return Verdict(
        "pinmap",
        FAIL,
        Words.of("doctor.gpio.game_has_no_buttons")
        + where
        + (Words.of("doctor.gpio.pico_not_config") if unnamed else Words.of("doctor.gpio.no_pico")),
        Words.of("doctor.gpio.buttons_gpio_sudo_cp"),
    )


def _pinmap_ok(pinmap: Any, setup: Setup) -> Verdict:
    lamps = len(pinmap.podium_lamps) + (pinmap.signal_lamp is not None)
    host_buttons = ", ".join(pinmap.host) or "—"
    return Verdict(
        "pinmap",
        PASS,
        Words.of(
            "doctor.gpio.players_host_buttons_lamps",
            pins=setup.pins,
            players=len(pinmap.players),
            host_buttons=host_buttons,
            lamps=lamps,
        ),
        None,
        {
            "path": setup.pins,
            "from": setup.pins_from,
            "players": len(pinmap.players),
            "host": list(pinmap.host),
            "lamps": lamps,
        },
    )


# -- the header's chip -------------------------------------------------------------------


def _chip_name(chip: GpioChip) -> str:
    return f"gpiochip{chip.number} ({chip.label}, {chip.lines} lines)"


def judge_chip(
    chips: list[GpioChip], factory: Any, error: str | None, asked: int | None
) -> Verdict:
    """Whether the chip svoyak opens (``factory``'s, or why it did not open: ``error``)
    is the one whose label is the 40-pin header's."""
    header: list[GpioChip] = []
    for chip in chips:
        if chip.label in HEADER_LABELS and all(chip.real != h.real for h in header):
            header.append(chip)
    data: dict[str, Any] = {
        "chips": [
            {"path": c.path, "label": c.label, "lines": c.lines, "error": c.error} for c in chips
        ],
        "asked": asked,
    }
    if not chips:
        return Verdict(
            "gpiochip",
            FAIL,
            Words.of("doctor.gpio.no_dev_gpiochip_all"),
            Words.of("doctor.gpio.run_svoyak_doctor_pi"),
            data,
        )
    if not header:
        unreadable = [c for c in chips if c.error]
        if unreadable:
            return Verdict(
                "gpiochip",
                FAIL,
                Words.of(
                    "doctor.gpio.cannot_read", path=unreadable[0].path, error=unreadable[0].error
                ),
                Words.of("doctor.gpio.gpio_group_needed_see"),
                data,
            )
        labels = ", ".join(f"gpiochip{c.number}: {c.label}" for c in chips)
        known = ", ".join(f"{label} ({board})" for label, board in HEADER_LABELS.items())
        return Verdict(
            "gpiochip",
            FAIL,
            Words.of("doctor.gpio.no_chip_pi_s", labels=labels),
            Words.of("doctor.gpio.raspberry_pi_header_s", known=known),
            data,
        )
    chip = header[0]
    data["header"] = chip.path
    if factory is None:
        return Verdict(
            "gpiochip",
            FAIL,
            Words.of(
                "doctor.gpio.header_but_svoyak_cannot", chip_name=_chip_name(chip), error=error
            ),
            _chip_fix(chip),
            data,
        )
    opened = getattr(factory, "chip", asked)
    data["opened"] = opened
    same = next((c for c in chips if c.number == opened), None)
    opened_real = same.real if same is not None else os.path.realpath(f"/dev/gpiochip{opened}")
    if opened_real == chip.real:
        return Verdict(
            "gpiochip",
            PASS,
            Words.of(
                "doctor.gpio.svoyak_opens_40_pin",
                chip_name=_chip_name(chip),
                value=HEADER_LABELS[chip.label or ""],
            ),
            None,
            data,
        )
    what = f"gpiochip{opened}" + (f" ({same.label})" if same is not None else "")
    return Verdict(
        "gpiochip",
        FAIL,
        Words.of("doctor.gpio.svoyak_opens_but_header", what=what, chip_name=_chip_name(chip)),
        _chip_fix(chip),
        data,
    )


def _chip_fix(chip: GpioChip) -> Words:
    return Words.of("doctor.gpio.add_gpiochip_svoyak_run", number=chip.number)


# -- buttons and lamps --------------------------------------------------------------------


def _busy(check: str, exc: BaseException, setup: Setup) -> Verdict:
    """A pin another program holds: the running service (skipped, and why), or another."""
    if service_holds(setup):
        return Verdict(
            check,
            SKIP,
            Words.of("doctor.gpio.running_svoyak_service_holds"),
            STOP_SERVICE,
        )
    return Verdict(
        check,
        FAIL,
        Words(str(exc), str(exc)),
        Words.of("doctor.gpio.stop_program_holding_pin"),
    )


def _button_name(key: str, pin: int) -> Words:
    if key.isdigit():
        return Words.of("doctor.gpio.seat_gpio", key=key, pin=pin)
    return Words.of("doctor.gpio.host_gpio", key=key, pin=pin)


def _joined(names: list[Words]) -> Words:
    return Words(", ".join(n.ru for n in names), ", ".join(n.en for n in names))


def check_buttons(pinmap: Any, factory: Any, setup: Setup, host: Host) -> Verdict:
    """Every button of the pin map up: one down from the start, and still down, is held,
    stuck or shorted (read through a ButtonBank, as the game reads it)."""
    from hardware.buttons import ButtonBank
    from hardware.factory import PinBusy

    try:
        bank = ButtonBank(pinmap, factory, lambda event: None, watchdog=False)
    except PinBusy as exc:
        return _busy("buttons", exc, setup)
    except Exception as exc:  # the pin library's refusal (lgpio.error, gpiozero's errors)
        return Verdict(
            "buttons",
            FAIL,
            Words.of("doctor.gpio.buttons_cannot_opened", exc=exc),
            Words.of("doctor.gpio.check_pin_map_groups"),
        )
    try:
        host.sleep(BUTTON_SETTLE_S)
        bank.poll()
        down = {key for key, device in bank.devices.items() if device.is_active}
        held = [key for key in bank.keys if key in bank.held_at_start() and key in down]
        specs = dict(bank.specs)
    finally:
        bank.close()
    data = {
        "buttons": len(specs),
        "held": [{"key": k, "pin": specs[k].pin} for k in held],
    }
    if not held:
        return Verdict(
            "buttons",
            PASS,
            Words.of("doctor.gpio.all_buttons_up_players", specs=len(specs)),
            None,
            data,
        )
    names = _joined([_button_name(key, specs[key].pin) for key in held])
    return Verdict(
        "buttons",
        FAIL,
        Words.of("doctor.gpio.down_held_stuck_cable", names=names),
        Words.of("doctor.gpio.let_go_if_it"),
        data,
    )


def _lamps_of(pinmap: Any) -> list[tuple[Words, Any]]:
    lamps = [
        (
            Words.of("doctor.gpio.seat_s_lamp_gpio", seat=seat, pin=lamp.pin),
            lamp,
        )
        for seat, lamp in sorted(pinmap.podium_lamps.items())
    ]
    signal = pinmap.signal_lamp
    if signal is not None:
        lamps.append(
            (Words.of("doctor.gpio.signal_lamp_gpio", pin=signal.pin),
             signal)
        )  # fmt: skip
    return lamps


def _undriven_level(pin: int, factory: Any) -> Any:
    """The line as an input with no pull of its own: what the wiring holds it at when
    nothing drives it (a pin with a fixed pull keeps that one: GPIO2/3's pull-up)."""
    from gpiozero import DigitalInputDevice  # type: ignore[import-untyped]
    from gpiozero.exc import PinFixedPull  # type: ignore[import-untyped]

    try:
        return DigitalInputDevice(pin, pull_up=None, active_state=True, pin_factory=factory)
    except PinFixedPull:
        return DigitalInputDevice(pin, pull_up=True, pin_factory=factory)


def check_lamps(pinmap: Any, factory: Any, setup: Setup, host: Host) -> Verdict:
    """Every lamp dark while nothing drives its line, then driven off and read back."""
    from hardware.factory import PinBusy, claim_error
    from hardware.lamps import LampBoard
    from hardware.pinmap import FIXED_PULL_UP

    lamps = _lamps_of(pinmap)
    if not lamps:
        return skipped("lamps", Words.of("doctor.gpio.pin_map_has_no"))
    lit_undriven: list[tuple[Words, Any]] = []
    still_lit: list[Words] = []
    probes: list[Any] = []
    try:
        try:
            for _, lamp in lamps:
                try:
                    probes.append(_undriven_level(lamp.pin, factory))
                except Exception as exc:
                    raise claim_error(exc, lamp.pin, "a lamp") from exc
            host.sleep(LAMP_SETTLE_S)
            for (name, lamp), probe in zip(lamps, probes, strict=True):
                high = bool(probe.pin.state)
                if high != lamp.active_low:
                    lit_undriven.append((name, lamp))
        finally:
            for probe in probes:
                probe.close()
        board = LampBoard(pinmap, factory)
        try:
            board.all_off()
            leds = [*(board.podiums[seat] for seat in sorted(board.podiums)), board.signal]
            for (name, _), led in zip(lamps, [led for led in leds if led is not None], strict=True):
                if led.is_lit:
                    still_lit.append(name)
        finally:
            board.close()
    except PinBusy as exc:
        return _busy("lamps", exc, setup)
    except Exception as exc:  # the pin library's refusal
        return Verdict(
            "lamps",
            FAIL,
            Words.of("doctor.gpio.lamps_cannot_opened", exc=exc),
            Words.of("doctor.gpio.check_pin_map_groups"),
        )
    data = {
        "lamps": len(lamps),
        "lit_undriven": [lamp.pin for _, lamp in lit_undriven],
        "still_lit": len(still_lit),
    }
    if still_lit:
        names = _joined(still_lit)
        return Verdict(
            "lamps",
            FAIL,
            Words.of("doctor.gpio.will_not_switch_off", names=names),
            Words.of("doctor.gpio.check_lamp_s_driver"),
            data,
        )
    if lit_undriven:
        names = _joined([name for name, _ in lit_undriven])
        fixed = [lamp.pin for _, lamp in lit_undriven if lamp.pin in FIXED_PULL_UP]
        fix = Words.of("doctor.gpio.fit_4_7_k")
        if fixed:
            pins = ", ".join(f"GPIO{p}" for p in fixed)
            fix = (
                Words.of("doctor.gpio.has_1_8_k", pins=pins)
                + Words.of("doctor.gpio.otherwise")
                + fix
            )
        return Verdict(
            "lamps",
            FAIL,
            Words.of("doctor.gpio.lit_while_nothing_drives", names=names),
            fix,
            data,
        )
    return Verdict(
        "lamps",
        PASS,
        Words.of("doctor.gpio.all_lamps_dark_while", lamps=len(lamps)),
        None,
        data,
    )


__all__ = ["HEADER_LABELS", "check_buttons", "check_gpio", "check_lamps", "judge_chip"]
