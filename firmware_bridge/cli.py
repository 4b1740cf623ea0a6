"""Subcommands this package adds to ``svoyak`` (see ``buzzer.cli._COMMAND_MODULES``).

Keep this module light: it is imported every time ``svoyak`` parses its
arguments, so handlers import their heavy dependencies when they run.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any


def add_commands(subparsers: Any) -> None:
    """Register this package's subcommands on ``svoyak``'s subparsers."""
    emulate = subparsers.add_parser(
        "emulate",
        help="run the Pico firmware emulator on a pseudo-terminal (demos, tests)",
        description="Run the buzzer firmware's own logic behind a pseudo-terminal, as if a "
        "Raspberry Pi Pico were plugged in. Prints the serial port path to give the host "
        "(a stable symlink, like /dev/ttyACM0), then the lamp commands it receives. "
        "Scripted presses: --press SEAT@MS (repeatable) presses seat SEAT's button MS "
        "milliseconds after start; --random-presses RATE presses random buttons. "
        "--chip runs the real firmware instead (main.py and logic.py on MicroPython "
        "v1.28 in an emulated RP2040, paced to the wall clock; needs Node.js and "
        "`npm ci --prefix firmware_bridge/chip`).",
    )
    emulate.add_argument(
        "--chip",
        action="store_true",
        help="run the real firmware on the chip model (MicroPython on an emulated RP2040)",
    )
    emulate.add_argument("--buttons", type=int, default=8, help="buttons (default 8)")
    emulate.add_argument("--lamps", type=int, default=8, help="lamps (default 8)")
    emulate.add_argument(
        "--drift-ppm", type=float, default=0.0, help="the emulated crystal's error (ppm)"
    )
    emulate.add_argument(
        "--offset-us", type=int, default=987_654_321, help="the device counter at start (µs)"
    )
    emulate.add_argument(
        "--heartbeat-us",
        type=int,
        default=1_000,
        help="longest gap between heartbeats while a host listens (µs; default 1000): "
        "the step of the host's event-time watermark",
    )
    emulate.add_argument(
        "--press",
        action="append",
        default=[],
        metavar="SEAT@MS",
        help="press seat SEAT's button MS ms after start (repeatable)",
    )
    emulate.add_argument(
        "--hold-ms", type=float, default=150.0, help="how long a scripted press is held"
    )
    emulate.add_argument(
        "--random-presses", type=float, default=0.0, metavar="PER_S", help="random presses/s"
    )
    emulate.add_argument("--seed", type=int, default=0, help="seed of the random presses")
    emulate.add_argument(
        "--duration", type=float, default=None, help="stop after this many seconds"
    )
    emulate.set_defaults(handler=_cmd_emulate)
    _add_pico(subparsers)


def _add_pico(subparsers: Any) -> None:
    """``svoyak pico install``: the firmware onto a Pico (firmware_bridge/install.py)."""
    pico = subparsers.add_parser("pico", help="the Raspberry Pi Pico: install its firmware")
    actions = pico.add_subparsers(dest="pico_command", metavar="ACTION")
    actions.required = True
    install = actions.add_parser(
        "install",
        help="put this release's firmware on a Pico (MicroPython too, from BOOTSEL mode)",
        description="Everything a technician does to put the buzzer firmware on a Raspberry "
        "Pi Pico, with a line of progress per step: (1) a Pico in BOOTSEL mode (its RPI-RP2 "
        "drive mounted) gets MicroPython 1.28 with an empty file system; (2) the Pico's "
        "serial port is found; (3) logic.py is compiled with mpy-cross; (4) main.py and "
        "logic.mpy are copied with mpremote and checked, a stale logic.py removed; (5) the "
        "Pico is reset and its HELLO must carry this release's firmware identity. A Pico "
        "already running svoyak's firmware keeps its REPL closed: the message then says how "
        "to put it in BOOTSEL mode. Exit status 0 when the Pico runs this release's "
        "firmware, 2 with a message on stderr otherwise.",
    )
    install.add_argument(
        "--port",
        help="the Pico's serial port (default: the one MicroPython board under "
        "/dev/serial/by-id; prefer that stable name to /dev/ttyACM0, which may change "
        "when the Pico resets)",
    )
    install.add_argument(
        "--drive",
        type=Path,
        metavar="PATH",
        help="the mounted drive of a Pico in BOOTSEL mode (default: looked for under "
        "/media, /run/media and /mnt)",
    )
    install.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="the longest wait for the Pico's port after flashing and for its HELLO after "
        "the reset (seconds, default 60)",
    )
    install.set_defaults(handler=_cmd_pico_install)


def _cmd_pico_install(args: argparse.Namespace) -> int:
    import sys

    from firmware_bridge.install import ConsoleProgress, InstallError, InstallOptions, install

    if args.timeout <= 0:
        print("svoyak pico install: --timeout must be positive", file=sys.stderr)
        return 2
    options = InstallOptions(port=args.port, drive=args.drive, timeout=args.timeout)
    try:
        done = install(options, ConsoleProgress(sys.stdout))
    except InstallError as exc:
        print(f"svoyak pico install: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # main.py goes last (install.py): a Pico stopped mid-copy boots to its REPL.
        print(
            "svoyak pico install: interrupted; run `svoyak pico install` again to finish",
            file=sys.stderr,
        )
        return 2
    hello = done.hello
    print(
        f"{'installed' if done.copied else 'already installed'}: firmware identity "
        f"{hello.firmware_id.hex()}, {hello.buttons} buttons, {hello.lamps} lamps",
        flush=True,
    )
    return 0


def _parse_press(text: str, buttons: int) -> tuple[int, float]:
    seat_text, _, ms_text = text.partition("@")
    try:
        seat, ms = int(seat_text), float(ms_text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--press wants SEAT@MS, not {text!r}") from None
    if not 1 <= seat <= buttons or ms < 0:
        raise argparse.ArgumentTypeError(f"--press {text}: seat must be 1..{buttons}, MS >= 0")
    return seat - 1, ms


def _cmd_emulate(args: argparse.Namespace) -> int:
    import os
    import sys

    from firmware_bridge.emulator import Emulator

    try:
        presses = [_parse_press(text, args.buttons) for text in args.press]
    except argparse.ArgumentTypeError as exc:
        print(f"svoyak emulate: {exc}", file=sys.stderr)
        return 2
    if args.heartbeat_us < 2:
        print("svoyak emulate: --heartbeat-us must be at least 2", file=sys.stderr)
        return 2
    if args.chip:
        return _emulate_chip(args, presses)
    emulator = Emulator(
        buttons=args.buttons,
        lamps=args.lamps,
        drift_ppm=args.drift_ppm,
        offset_us=args.offset_us,
        heartbeat_us=args.heartbeat_us,
        heartbeat_slack_us=args.heartbeat_us // 4,
    )
    with emulator:
        start = emulator.now_us()
        hold = int(args.hold_ms * 1000)
        for button, ms in presses:
            emulator.click(button, start + int(ms * 1000), hold)
        target = os.readlink(emulator.path)
        print(f"svoyak emulate: serial port {emulator.path} (pty {target})", flush=True)
        print(
            f"  {args.buttons} buttons, {args.lamps} lamps, drift {args.drift_ppm:g} ppm; "
            "connect the host with that path as its serial URL; Ctrl-C stops",
            flush=True,
        )
        return _watch(
            args,
            lambda: [(lamp + 1, bool(level)) for _, lamp, level in emulator.lamp_log],
            lambda button: emulator.click(button, emulator.now_us() + 1_000, hold),
        )


def _watch(
    args: argparse.Namespace,
    lamps: Callable[[], list[tuple[int, bool]]],
    press: Callable[[int], object],
    stopped: Callable[[], str | None] = lambda: None,
) -> int:
    """The foreground of ``svoyak emulate`` (both kinds): print each lamp change
    (``lamps()``: every (lamp, on) so far), make the ``--random-presses``, until
    ``--duration`` or Ctrl-C; 1 if the device stopped (``stopped()`` says why)."""
    import random
    import sys
    import time

    rng = random.Random(args.seed)
    deadline = None if args.duration is None else time.monotonic() + args.duration
    shown = 0
    next_random = time.monotonic()
    try:
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.02)
            log = lamps()
            for lamp, on in log[shown:]:
                if lamp <= args.lamps:
                    print(f"  lamp {lamp} {'on' if on else 'off'}", flush=True)
            shown = len(log)
            if args.random_presses > 0 and time.monotonic() >= next_random:
                press(rng.randrange(args.buttons))
                next_random += rng.expovariate(args.random_presses)
            reason = stopped()
            if reason is not None:
                print(f"svoyak emulate: the emulator stopped: {reason}", file=sys.stderr)
                return 1
    except KeyboardInterrupt:
        pass
    return 0


def _emulate_chip(args: argparse.Namespace, presses: list[tuple[int, float]]) -> int:
    """``svoyak emulate --chip``: the same options, backed by the chip model."""
    import os
    import sys
    import tempfile

    from firmware_bridge.chip import ChipModel, ChipModelError
    from firmware_bridge.firmware import logic

    pins = len(logic.BUTTON_PINS)
    if args.heartbeat_us != 1_000:
        print(
            "svoyak emulate --chip: the heartbeat is the firmware's own HEARTBEAT_US "
            "(main.py); --heartbeat-us applies to the Python model only",
            file=sys.stderr,
        )
        return 2
    if not 1 <= args.buttons <= pins or not 1 <= args.lamps <= len(logic.LAMP_PINS):
        print(
            f"svoyak emulate --chip: the firmware's pin map has {pins} buttons and "
            f"{len(logic.LAMP_PINS)} lamps",
            file=sys.stderr,
        )
        return 2
    chip = ChipModel(pace=True, drift_ppm=args.drift_ppm, start_us=args.offset_us % (1 << 30))
    try:
        chip.start()
    except ChipModelError as exc:
        print(f"svoyak emulate --chip: {exc}", file=sys.stderr)
        return 2
    # USB enumerates before main.py runs (MicroPython boots, then imports
    # logic.py: seconds on the paced chip), and `svoyak run --serial` gives a
    # Pico 5 s to answer. So the port is printed once the firmware has spoken
    # (its HELLO at boot), as a Pico plugged in before the host starts would
    # have; the link asks for a fresh HELLO when it connects.
    try:
        chip.wait_firmware(60)
    except ChipModelError as exc:
        print(f"svoyak emulate --chip: {exc}", file=sys.stderr)
        chip.stop()
        return 1
    folder = tempfile.mkdtemp(prefix="svoyak-chip-")
    path = os.path.join(folder, "ttyACM0")
    try:
        os.symlink(chip.open_pty(), path)
        hold_ns = int(args.hold_ms * 1_000_000)
        chip.schedule(
            edge
            for button, ms in presses
            for edge in (
                (chip.button_pins[button], 0, int(ms * 1_000_000)),
                (chip.button_pins[button], 1, int(ms * 1_000_000) + hold_ns),
            )
        )
        print(f"svoyak emulate --chip: serial port {path} (pty {os.readlink(path)})", flush=True)
        print(
            f"  MicroPython firmware on an emulated RP2040, {args.buttons} of {pins} buttons "
            f"pressed, drift {args.drift_ppm:g} ppm; connect the host with that path as its "
            "serial URL; Ctrl-C stops",
            flush=True,
        )
        lamp_index = {pin: i for i, pin in enumerate(chip.lamp_pins)}
        return _watch(
            args,
            lambda: [(lamp_index[pin] + 1, state == 1) for pin, state, _, _ in chip.pin_log],
            lambda button: chip.press_after({button: 1_000}, hold_ns / 1000),
            lambda: None if chip.running else ("; ".join(chip.errors) or "no reason given"),
        )
    finally:
        chip.stop()
        with contextlib.suppress(OSError):
            os.unlink(path)
            os.rmdir(folder)


__all__ = ["add_commands"]
