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
                Words("карта пинов не годится: ", "the pin map cannot be used: ")
                + Words(str(exc), str(exc)),
                Words(
                    "исправьте файл, как сказано (docs/raspberry-pi-gpio.md, «The pin map»); "
                    "svoyak run с ней не запустится (код 78)",
                    "fix the file as the message says (docs/raspberry-pi-gpio.md, The pin map); "
                    "svoyak run refuses it (exit status 78)",
                ),
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
                    Words("имитация пинов (mock): чипа нет", "simulated (mock) pins: no chip"),
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
                Words(
                    "карта пинов не годится (см. выше)", "the pin map cannot be used (see above)"
                ),
                only=("buttons", "lamps"),
            )
        elif factory is None:
            verdicts += _all_skipped(
                Words("GPIO-чип не открылся (см. выше)", "the GPIO chip did not open (see above)"),
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


_NO_PINMAP = Words("нет карты пинов GPIO", "no GPIO pin map")


def _all_skipped(
    why: Words, only: tuple[str, ...] = ("gpiochip", "buttons", "lamps")
) -> list[Verdict]:
    return [skipped(check, why) for check in only]


def _no_pinmap(setup: Setup, host: Host, pico: Any) -> Verdict:
    where = Words(
        f"(--pins, $SVOYAK_PINS, [hardware] pins, {host.system_pinmap})",
        f"(--pins, $SVOYAK_PINS, [hardware] pins, {host.system_pinmap})",
    )
    if setup.serial is not None:
        return skipped(
            "pinmap",
            Words("путь через Pico: карты пинов GPIO нет ", "the Pico path: no GPIO pin map ")
            + where,
        )
    if setup.config_unknown:
        return skipped(
            "pinmap",
            Words("карты пинов GPIO нет ", "no GPIO pin map ")
            + where
            + Words(
                "; называет ли конфигурация карту или Pico — не прочитать (см. «конфигурация»)",
                "; whether the config names one or a Pico cannot be read (see config)",
            ),
        )
    unnamed = pico is not None and pico.port is not None
    return Verdict(
        "pinmap",
        FAIL,
        Words("у игры нет кнопок: нет карты пинов ", "the game has no buttons: no pin map ")
        + where
        + (
            Words(", а Pico не указан в настройках", ", and the Pico is not in the config")
            if unnamed
            else Words(" и нет Pico", " and no Pico")
        ),
        Words(
            "для кнопок на GPIO: sudo cp hardware/pinmap.example.toml /etc/svoyak/pins.toml и "
            "поправьте пины (docs/raspberry-pi-gpio.md); для Pico: [hardware] serial в "
            "/etc/svoyak/svoyak.toml",
            "for buttons on GPIO: sudo cp hardware/pinmap.example.toml /etc/svoyak/pins.toml "
            "and set its pins (docs/raspberry-pi-gpio.md); for a Pico: [hardware] serial in "
            "/etc/svoyak/svoyak.toml",
        ),
    )


def _pinmap_ok(pinmap: Any, setup: Setup) -> Verdict:
    lamps = len(pinmap.podium_lamps) + (pinmap.signal_lamp is not None)
    host_buttons = ", ".join(pinmap.host) or "—"
    return Verdict(
        "pinmap",
        PASS,
        Words(
            f"{setup.pins}: игроков {len(pinmap.players)}, кнопки ведущего: {host_buttons}; "
            f"ламп {lamps}",
            f"{setup.pins}: {len(pinmap.players)} players, host buttons: {host_buttons}; "
            f"{lamps} lamps",
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
            Words(
                "нет ни одного /dev/gpiochip*: это не Raspberry Pi или нет драйвера GPIO",
                "no /dev/gpiochip* at all: this is not a Raspberry Pi, or its GPIO driver "
                "is missing",
            ),
            Words(
                "запустите svoyak doctor на Pi; на другом компьютере — svoyak doctor --simulate",
                "run svoyak doctor on the Pi; on another computer, svoyak doctor --simulate",
            ),
            data,
        )
    if not header:
        unreadable = [c for c in chips if c.error]
        if unreadable:
            return Verdict(
                "gpiochip",
                FAIL,
                Words(
                    f"{unreadable[0].path} не читается ({unreadable[0].error})",
                    f"cannot read {unreadable[0].path} ({unreadable[0].error})",
                ),
                Words("нужна группа gpio (см. «группы»)", "the gpio group is needed (see groups)"),
                data,
            )
        labels = ", ".join(f"gpiochip{c.number}: {c.label}" for c in chips)
        known = ", ".join(f"{label} ({board})" for label, board in HEADER_LABELS.items())
        return Verdict(
            "gpiochip",
            FAIL,
            Words(
                f"ни один чип не похож на 40-контактный разъём Pi ({labels})",
                f"no chip is the Pi's 40-pin header ({labels})",
            ),
            Words(
                f"это Raspberry Pi? Чип разъёма называется {known}",
                f"is this a Raspberry Pi? The header's chip is labelled {known}",
            ),
            data,
        )
    chip = header[0]
    data["header"] = chip.path
    if factory is None:
        return Verdict(
            "gpiochip",
            FAIL,
            Words(
                f"разъём — {_chip_name(chip)}, но svoyak его не открыл: {error}",
                f"the header is {_chip_name(chip)}, but svoyak cannot open it: {error}",
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
            Words(
                f"svoyak открывает {_chip_name(chip)}: это 40-контактный разъём "
                f"({HEADER_LABELS[chip.label or '']})",
                f"svoyak opens {_chip_name(chip)}: the 40-pin header's "
                f"({HEADER_LABELS[chip.label or '']})",
            ),
            None,
            data,
        )
    what = f"gpiochip{opened}" + (f" ({same.label})" if same is not None else "")
    return Verdict(
        "gpiochip",
        FAIL,
        Words(
            f"svoyak открывает {what}, а разъём — {_chip_name(chip)}",
            f"svoyak opens {what}, but the header is {_chip_name(chip)}",
        ),
        _chip_fix(chip),
        data,
    )


def _chip_fix(chip: GpioChip) -> Words:
    return Words(
        f"добавьте --gpiochip {chip.number} к svoyak run (ExecStart службы), svoyak selftest "
        "и check-buttons, или обновите gpiozero (pip install -U gpiozero; нужна 2.0.1.post3+)",
        f"add --gpiochip {chip.number} to svoyak run (the unit's ExecStart), svoyak selftest "
        "and check-buttons, or upgrade gpiozero (pip install -U gpiozero; 2.0.1.post3 or later)",
    )


# -- buttons and lamps --------------------------------------------------------------------


def _busy(check: str, exc: BaseException, setup: Setup) -> Verdict:
    """A pin another program holds: the running service (skipped, and why), or another."""
    if service_holds(setup):
        return Verdict(
            check,
            SKIP,
            Words(
                "пины держит работающая служба svoyak (о зажатой кнопке она сама скажет на "
                "панели ведущего)",
                "the running svoyak service holds the pins (it tells the host's panel of a "
                "stuck button itself)",
            ),
            STOP_SERVICE,
        )
    return Verdict(
        check,
        FAIL,
        Words(str(exc), str(exc)),
        Words(
            "остановите программу, что держит пин (lsof /dev/gpiochip*), и проверьте снова",
            "stop the program holding the pin (lsof /dev/gpiochip*), then check again",
        ),
    )


def _button_name(key: str, pin: int) -> Words:
    if key.isdigit():
        return Words(f"место {key} (GPIO{pin})", f"seat {key} (GPIO{pin})")
    return Words(f"ведущий {key} (GPIO{pin})", f"host {key} (GPIO{pin})")


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
            Words(f"кнопки не открываются: {exc}", f"the buttons cannot be opened: {exc}"),
            Words("проверьте карту пинов и группы", "check the pin map and the groups"),
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
            Words(
                f"все {len(specs)} кнопок отпущены (игроки и ведущий)",
                f"all {len(specs)} buttons are up (the players' and the host's)",
            ),
            None,
            data,
        )
    names = _joined([_button_name(key, specs[key].pin) for key in held])
    return Verdict(
        "buttons",
        FAIL,
        Words(
            f"нажаты: {names.ru} — зажаты, залипли или кабель замкнут",
            f"down: {names.en} — held, stuck, or the cable shorted",
        ),
        Words(
            "отпустите; если кнопка так и нажата — проверьте её и кабель "
            "(docs/raspberry-pi-gpio.md), затем svoyak check-buttons",
            "let go; if it stays down, check the button and its cable "
            "(docs/raspberry-pi-gpio.md), then svoyak check-buttons",
        ),
        data,
    )


def _lamps_of(pinmap: Any) -> list[tuple[Words, Any]]:
    lamps = [
        (
            Words(f"лампа места {seat} (GPIO{lamp.pin})", f"seat {seat}'s lamp (GPIO{lamp.pin})"),
            lamp,
        )
        for seat, lamp in sorted(pinmap.podium_lamps.items())
    ]
    signal = pinmap.signal_lamp
    if signal is not None:
        lamps.append(
            (Words(f"сигнальная лампа (GPIO{signal.pin})", f"the signal lamp (GPIO{signal.pin})"),
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
        return skipped("lamps", Words("в карте пинов нет ламп", "the pin map has no lamps"))
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
            Words(f"лампы не открываются: {exc}", f"the lamps cannot be opened: {exc}"),
            Words("проверьте карту пинов и группы", "check the pin map and the groups"),
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
            Words(f"не гаснут: {names.ru}", f"will not switch off: {names.en}"),
            Words(
                "проверьте драйвер лампы (MOSFET) и карту пинов (active_low)",
                "check the lamp's driver (the MOSFET) and the pin map (active_low)",
            ),
            data,
        )
    if lit_undriven:
        names = _joined([name for name, _ in lit_undriven])
        fixed = [lamp.pin for _, lamp in lit_undriven if lamp.pin in FIXED_PULL_UP]
        fix = Words(
            "поставьте резистор 4,7 кОм от затвора к GND (docs/raspberry-pi-gpio.md)",
            "fit the 4.7 kΩ gate-to-GND resistor (docs/raspberry-pi-gpio.md)",
        )
        if fixed:
            pins = ", ".join(f"GPIO{p}" for p in fixed)
            fix = (
                Words(
                    f"{pins} подтянут к 3,3 В резистором 1,8 кОм на плате: перенесите лампу на "
                    "другой пин; ",
                    f"{pins} has a 1.8 kΩ pull-up on the board: move the lamp to another pin; ",
                )
                + Words("иначе ", "otherwise ")
                + fix
            )
        return Verdict(
            "lamps",
            FAIL,
            Words(
                f"горят, когда пин никто не ведёт: {names.ru} — так они горят при загрузке и "
                "всякий раз, когда svoyak остановлен (сейчас выключены)",
                f"lit while nothing drives the pin: {names.en} — so they light at boot and "
                "whenever svoyak is stopped (switched off now)",
            ),
            fix,
            data,
        )
    return Verdict(
        "lamps",
        PASS,
        Words(
            f"все {len(lamps)} ламп темны без управления и выключены",
            f"all {len(lamps)} lamps dark while undriven, and switched off",
        ),
        None,
        data,
    )


__all__ = ["HEADER_LABELS", "check_buttons", "check_gpio", "check_lamps", "judge_chip"]
