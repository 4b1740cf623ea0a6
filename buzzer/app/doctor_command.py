"""``svoyak doctor``: registered on ``svoyak``'s subparsers (``buzzer.cli._COMMAND_MODULES``).

Keep this module light: it is imported every time ``svoyak`` parses its
arguments; the checks (:mod:`buzzer.app.doctor`) are imported when it runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_commands(subparsers: Any) -> None:
    from hardware.factory import GPIOCHIP_HELP, chip_number

    doctor = subparsers.add_parser(
        "doctor",
        help="the technician's one command before a game: is this box ready, and what to fix",
        description="Check everything a game needs, one line per check with its verdict "
        "(ok / warn / FAIL / skip, and why) and, for what is wrong, what to do: the user's "
        "groups (gpio, dialout), the 40-pin header's GPIO chip, the pin map, every button "
        "up, every lamp off, the Pico (by /dev/serial/by-id), its firmware identity, buttons "
        "held at its power-up, its clock fit, the service's real-time priority, the "
        "journal disk's fsync latency and free space, under-voltage or throttling, the "
        "panel's LAN address. By default it checks what the svoyak service uses (its "
        "command line, /etc/svoyak/svoyak.toml, /etc/svoyak/pins.toml); the options below "
        "say otherwise. While the service runs it holds the pins and the Pico's port: "
        "those checks are then skipped (stop it to run them). Exit status 0: no check "
        "failed (warnings and skips do not fail); 1: a check failed; 2: it could not run.",
    )
    doctor.add_argument(
        "--pins",
        metavar="PATH",
        help="the GPIO pin map (default: $SVOYAK_PINS, the service's, [hardware] pins of the "
        "config, /etc/svoyak/pins.toml; with --simulate the example shipped with svoyak)",
    )
    doctor.add_argument(
        "--serial",
        metavar="PORT",
        help="the Pico's serial port (default: $SVOYAK_SERIAL, the service's, [hardware] "
        "serial of the config, else the one MicroPython board under /dev/serial/by-id)",
    )
    doctor.add_argument(
        "--config",
        metavar="PATH",
        help="svoyak run's config file (default: the service's --config, else "
        "/etc/svoyak/svoyak.toml if present)",
    )
    doctor.add_argument(
        "--journal",
        metavar="PATH",
        help="the game's journal or its folder, whose disk is checked (default: the "
        "service's --journal, [journal] path of the config, else svoyak run's games folder)",
    )
    doctor.add_argument("--gpiochip", type=chip_number, metavar="N", help=GPIOCHIP_HELP)
    doctor.add_argument(
        "--simulate",
        action="store_true",
        help="gpiozero's mock pins instead of the Pi's (GPIOZERO_PIN_FACTORY=mock does the same)",
    )
    doctor.add_argument(
        "--clock-s",
        type=float,
        default=3.0,
        metavar="S",
        help="how long to listen to the Pico for its clock fit (default 3 s)",
    )
    doctor.add_argument(
        "--pico-timeout",
        type=float,
        default=5.0,
        metavar="S",
        help="how long the Pico may take to answer (default 5 s, as svoyak run gives it)",
    )
    doctor.add_argument(
        "--json",
        action="store_true",
        help="a JSON list for scripts: one object per check (check, title, status, found, "
        "fix, data)",
    )
    doctor.add_argument(
        "--lang", choices=("ru", "en"), default="ru", help="the language (default ru)"
    )
    doctor.set_defaults(handler=_cmd_doctor)


def _cmd_doctor(args: argparse.Namespace) -> int:
    from buzzer.app import doctor
    from buzzer.errors import SvoyakError

    for name, value in (("--clock-s", args.clock_s), ("--pico-timeout", args.pico_timeout)):
        if not value > 0:
            print(f"svoyak doctor: {name} must be positive", file=sys.stderr)
            return 2
    options = doctor.DoctorOptions(
        pins=args.pins,
        serial=args.serial,
        config=args.config,
        journal=args.journal,
        gpiochip=args.gpiochip,
        simulate=args.simulate,
        pico_timeout_s=args.pico_timeout,
        clock_s=args.clock_s,
    )
    lang = args.lang

    def show(verdict: doctor.Verdict) -> None:
        for line in doctor.verdict_lines(verdict, lang):
            print(line, flush=True)

    try:
        host = doctor.system_host()
        if args.json:
            verdicts = doctor.run_doctor(options, host)
            print(doctor.render_json(verdicts, lang))
        else:
            print(doctor.heading(lang), flush=True)
            verdicts = doctor.run_doctor(options, host, show)
            print(doctor.summary(verdicts, lang), flush=True)
    except SvoyakError as exc:
        print(f"svoyak doctor: {exc}", file=sys.stderr)
        return 2
    return doctor.exit_status(verdicts)


__all__ = ["add_commands"]
