"""Subcommands this package adds to ``svoyak`` (see ``buzzer.cli._COMMAND_MODULES``).

Keep this module light: it is imported every time ``svoyak`` parses its
arguments, so handlers import their heavy dependencies when they run.

* ``svoyak selftest`` — the technician's self-test (:mod:`hardware.selftest`)
* ``svoyak check-buttons`` — press each button in turn (:mod:`hardware.checkbuttons`)
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

_SOURCE_HELP = (
    "the pin map (TOML); default: $SVOYAK_PINS, /etc/svoyak/pins.toml, or with --simulate "
    "the example shipped with svoyak"
)


def _csv_ints(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers separated by commas: {text!r}"
        ) from None
    if not values or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected non-negative numbers: {text!r}")
    return values


def _csv(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _positive(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value

    return parse


def _open(args: argparse.Namespace, command: str) -> tuple[Any, Any] | None:
    """The pin map and the pin factory, or None after printing why not (exit status 2)."""
    from hardware.factory import FactoryUnavailable, open_pin_factory, resolve_pinmap
    from hardware.pinmap import PinMapError

    # The Pico's paths use no GPIO of the host: the example pin map's seats will do.
    no_gpio = getattr(args, "emulate", False) or bool(
        getattr(args, "generator", None) and getattr(args, "serial", None)
    )
    try:
        pinmap = resolve_pinmap(args.pins, args.simulate or no_gpio)
        factory = (
            None if no_gpio else open_pin_factory(args.simulate, getattr(args, "gpiochip", None))
        )
    except (PinMapError, FileNotFoundError, FactoryUnavailable) as exc:
        print(f"svoyak {command}: {exc}", file=sys.stderr)
        return None
    return pinmap, factory


def _png_path(given: str | None) -> Path | str:
    """The histogram's path, or why it cannot be written (checked before the long test).

    Without ``--png``: a new file in the user's state folder, its folder created
    (:func:`hardware.selftest.default_png_path`). A path given on the command
    line must be in a folder that exists and can be written to: a typo there is
    better told now than after minutes of pressing.
    """
    from hardware.selftest import default_png_path

    if given is None:
        return default_png_path()
    path = Path(given).expanduser().absolute()
    if path.is_dir():
        return f"{path} is a folder; give a file name, e.g. {path / 'selftest-latency.png'}"
    if not path.parent.is_dir():
        return f"no such folder: {path.parent}"
    if not os.access(path.parent, os.W_OK):
        return f"cannot write to the folder {path.parent}"
    return path


def _cmd_selftest(args: argparse.Namespace) -> int:
    from hardware.factory import FactoryUnavailable
    from hardware.report import report_output
    from hardware.selftest import (
        CHECKS,
        PICO_CONNECT_TIMEOUT_S,
        SelftestOptions,
        SelftestUnavailable,
        chip_rig,
        emulator_rig,
        generator_rig,
        gpio_rig,
        pico_generator_rig,
        run_selftest,
    )

    if args.chip and not args.emulate:
        print(
            "svoyak selftest: --chip goes with --emulate (the real firmware on the emulated "
            "Pico): svoyak selftest --emulate --chip",
            file=sys.stderr,
        )
        return 2
    if args.serial and not args.generator:
        print(
            "svoyak selftest: --serial goes with --generator (the generator presses the "
            "Pico's buttons): svoyak selftest --generator GEN_PORT --serial PICO_PORT",
            file=sys.stderr,
        )
        return 2
    unknown = [c for c in args.checks if c not in CHECKS]
    if unknown:
        print(
            f"svoyak selftest: unknown check(s) {', '.join(unknown)}; known: {', '.join(CHECKS)}",
            file=sys.stderr,
        )
        return 2
    opened = _open(args, "selftest")
    if opened is None:
        return 2
    pinmap, factory = opened
    # (before the rig: the chip takes seconds to boot, and a typo is better told now)
    png = None if args.no_png else _png_path(args.png)
    if isinstance(png, str):
        print(f"svoyak selftest: --png: {png}", file=sys.stderr)
        return 2
    hold_off_ns = None if args.hold_off_ms is None else round(args.hold_off_ms * 1e6)
    try:
        if args.emulate and args.chip:
            rig = chip_rig(pinmap, hold_off_ns=hold_off_ns)
            mode = "emulate-chip"
        elif args.emulate:
            rig = emulator_rig(pinmap, hold_off_ns=hold_off_ns)
            mode = "emulate"
        elif args.generator and args.serial:
            rig = pico_generator_rig(pinmap, args.generator, args.serial, PICO_CONNECT_TIMEOUT_S)
            mode = "generator-pico"
        elif args.generator:
            rig = generator_rig(
                pinmap,
                factory,
                args.generator,
                hold_off_ns=hold_off_ns,
                stuck_ns=round(args.stuck_s * 1e9),
            )
            mode = "generator"
        else:
            rig = gpio_rig(
                pinmap,
                factory,
                simulate=args.simulate,
                hold_off_ns=hold_off_ns,
                stuck_ns=round(args.stuck_s * 1e9),
            )
            mode = "simulate" if args.simulate else "gpio"
    except (SelftestUnavailable, FactoryUnavailable) as exc:  # the service holds the pins
        print(f"svoyak selftest: {exc}", file=sys.stderr)
        return 2
    options = SelftestOptions(
        checks=tuple(args.checks),
        count=args.count,
        trials=args.trials,
        offsets_us=args.offsets,
        rules=args.rules,
        pair=(args.pair[0], args.pair[1]) if args.pair else None,
        png=png,
        phantom_switches=args.phantom_switches,
        phantom_period_ms=args.phantom_period_ms,
    )
    fatal: tuple[type[Exception], ...] = (SelftestUnavailable, *rig.fatal)
    try:
        report = run_selftest(rig, options, mode=mode, progress=not args.no_progress)
    except fatal as exc:
        print(f"svoyak selftest: {exc}", file=sys.stderr)
        return 2
    finally:
        rig.close()
    print(report_output(report, args.json))
    return 0 if report.ok else 1


def _cmd_check_buttons(args: argparse.Namespace) -> int:
    from hardware.checkbuttons import check_buttons, mock_presser
    from hardware.factory import FactoryUnavailable

    opened = _open(args, "check-buttons")
    if opened is None:
        return 2
    pinmap, factory = opened
    known = set(pinmap.buttons())
    unknown = [k for k in args.simulate_missing if k not in known]
    if unknown:
        print(
            f"svoyak check-buttons: --simulate-missing: no such button(s) {', '.join(unknown)}; "
            f"known: {', '.join(known)}",
            file=sys.stderr,
        )
        return 2
    timeout = args.timeout if args.timeout is not None else (0.3 if args.simulate else 15.0)
    press = mock_presser(pinmap, factory, args.simulate_missing) if args.simulate else None
    try:
        result = check_buttons(
            pinmap,
            factory,
            out=sys.stdout,
            timeout_s=timeout,
            press=press,
            lamps=not args.no_lamps,
            linger_s=0.0 if args.simulate else 1.0,
        )
    except FactoryUnavailable as exc:  # a pin held by another program (the service)
        print(f"\nsvoyak check-buttons: {exc}", file=sys.stderr)
        return 2
    return 0 if result.ok else 1


def add_commands(subparsers: Any) -> None:
    """Register this package's subcommands on ``svoyak``'s subparsers."""
    from hardware.factory import GPIOCHIP_HELP, chip_number

    selftest = subparsers.add_parser(
        "selftest",
        help="the technician's self-test: latency, fairness, bounce, glitches, phantoms, "
        "stuck buttons",
        description="Press the buttons through loopbacks (an output pin wired to each button "
        "input; --generator PORT: a second Pico's PIO wired to the inputs, the independent "
        "reference; --simulate: gpiozero mock pins; --emulate: the Pico firmware emulator; "
        "--emulate --chip: the real firmware on an emulated RP2040, MicroPython v1.28 + "
        "rp2040js, presses at exact offsets on the chip's own clock, needs Node.js and "
        "`npm ci --prefix firmware_bridge/chip`) and "
        "measure: latency per button (edge stamp minus drive time), fairness of two presses "
        "an offset apart through a running game, bounce filtering, that a spike is not a "
        "press (the glitch check), that no press comes while every lamp switches (phantom), "
        "stuck-button detection (not on the Pico path: reported as not run). "
        "A table (or --json) on stdout, a histogram PNG, a progress bar on stderr. "
        "Exit status 0: every check that ran passed; 1: a check failed; 2: could not run.",
    )
    source = selftest.add_mutually_exclusive_group()
    source.add_argument(
        "--simulate", action="store_true", help="gpiozero MockFactory, MockConnectedPin loopbacks"
    )
    source.add_argument(
        "--emulate", action="store_true", help="through the Pico firmware emulator on a pty"
    )
    source.add_argument(
        "--generator",
        metavar="PORT",
        help="press the Pi's buttons with the pulse generator on PORT (a second Pico running "
        "firmware_bridge/generator/main.py, GP2.. wired to seats 1..; edges exact to 40 ns), "
        "e.g. /dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_…-if00",
    )
    selftest.add_argument(
        "--chip",
        action="store_true",
        help="with --emulate: the real firmware (main.py on MicroPython) on an emulated "
        "RP2040, through BridgeLink; the firmware's own hold-off",
    )
    selftest.add_argument(
        "--serial",
        metavar="PICO_PORT",
        help="with --generator: the Pico under test on this port, its GP2.. wired to the "
        "generator's GP2..; its presses come back through the serial link as in svoyak run",
    )
    selftest.add_argument("--pins", metavar="PATH", help=_SOURCE_HELP)
    selftest.add_argument("--gpiochip", type=chip_number, metavar="N", help=GPIOCHIP_HELP)
    selftest.add_argument(
        "--checks",
        type=_csv,
        default=("latency", "fairness", "bounce", "glitch", "phantom", "stuck"),
        metavar="LIST",
        help="which checks, comma-separated (default: "
        "latency,fairness,bounce,glitch,phantom,stuck)",
    )
    selftest.add_argument(
        "--count", type=_positive(int), default=100, help="presses per button (default 100)"
    )
    selftest.add_argument(
        "--trials", type=_positive(int), default=40, help="fairness trials per offset (default 40)"
    )
    selftest.add_argument(
        "--offsets",
        type=_csv_ints,
        default=(0, 10, 100, 1000),
        metavar="US",
        help="fairness offsets in µs (default 0,10,100,1000)",
    )
    selftest.add_argument(
        "--rules",
        choices=("tv-modern", "championship-2003"),
        default="tv-modern",
        help="the rule system of the fairness games (default tv-modern)",
    )
    selftest.add_argument(
        "--pair", type=_csv, metavar="A,B", help="the two seats of the fairness check (default 1,2)"
    )
    selftest.add_argument(
        "--hold-off-ms", type=float, help="override the pin map's hold-off for the test"
    )
    selftest.add_argument(
        "--phantom-switches",
        type=_positive(int),
        default=20,
        metavar="N",
        help="the phantom check: how many times every lamp goes on and off (default 20; "
        "the bench plan's 10 minutes at 10 Hz: 6000 with --phantom-period-ms 100)",
    )
    selftest.add_argument(
        "--phantom-period-ms",
        type=_positive(float),
        default=20.0,
        metavar="MS",
        help="the phantom check: one on-and-off, in ms (default 20)",
    )
    selftest.add_argument(
        "--stuck-s",
        type=_positive(float),
        default=0.5,
        help="the stuck threshold the test uses (default 0.5 s; the game's is the pin map's)",
    )
    selftest.add_argument("--json", action="store_true", help="print the report as JSON")
    selftest.add_argument(
        "--png",
        metavar="PATH",
        help="where to write the latency histogram (default: a new "
        "selftest-latency-YYYYmmdd-HHMMSS.png in $XDG_STATE_HOME/svoyak/selftest/, "
        "i.e. ~/.local/state/svoyak/selftest/; the report prints the path)",
    )
    selftest.add_argument("--no-png", action="store_true", help="do not write the histogram")
    selftest.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    selftest.set_defaults(handler=_cmd_selftest)

    check = subparsers.add_parser(
        "check-buttons",
        help="press each button in turn: its lamp lights, the missing ones are listed",
        description="Asks for each button in turn and waits for it; its podium lamp lights "
        "(the signal lamp for a host button). Buttons that never answer are listed at the "
        "end (exit status 1). --simulate presses them itself on gpiozero mock pins.",
    )
    check.add_argument("--pins", metavar="PATH", help=_SOURCE_HELP)
    check.add_argument("--gpiochip", type=chip_number, metavar="N", help=GPIOCHIP_HELP)
    check.add_argument(
        "--simulate", action="store_true", help="scripted presses on gpiozero mock pins"
    )
    check.add_argument(
        "--simulate-missing",
        type=_csv,
        default=(),
        metavar="KEYS",
        help="with --simulate: buttons the script leaves out, e.g. 3,wrong (a broken wire)",
    )
    check.add_argument(
        "--timeout",
        type=_positive(float),
        help="seconds to wait for each button (default 15; 0.3 with --simulate)",
    )
    check.add_argument("--no-lamps", action="store_true", help="do not drive the lamps")
    check.set_defaults(handler=_cmd_check_buttons)


__all__ = ["add_commands"]
