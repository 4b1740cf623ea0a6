"""`svoyak pico install`: everything a technician does to put the firmware on a Pico.

Five steps, each a line of progress:

1. **MicroPython.** A Pico in BOOTSEL mode (its ``RPI-RP2`` drive mounted)
   gets the MicroPython 1.28 this release ships
   (``firmware_bridge/chip/rp2040/firmware.uf2``) with an empty file system
   (firmware_bridge/uf2.py says why); then the install waits for its serial
   port. A Pico 2 (``RP2350``) is refused. No drive: MicroPython is taken to
   be on the Pico already.
2. **The port**: ``--port``, or the one MicroPython board under
   /dev/serial/by-id (pico_devices.py).
3. **Compile** ``logic.py`` with mpy-cross (firmware_bridge/shipped.py, the
   one home of what a Pico holds).
4. **Copy** with mpremote at the raw REPL: ``main.py`` removed first and
   written last, every file read back and checked, a stale ``logic.py``
   removed (pico_repl.py). A Pico already running svoyak's firmware has
   closed its REPL (``micropython.kbd_intr(-1)``: a 0x03 inside a frame
   must not stop it), so no REPL answers; the install then asks the
   firmware for its HELLO: this release's identity means there is nothing
   to do; another means the technician must put the Pico in BOOTSEL mode,
   and the message says how (step 1 then wipes the old firmware).
5. **Reset** (``machine.reset()``) and wait for the firmware's HELLO, whose
   identity must be this release's (:func:`shipped.hello_refusal`).

Every failure is an :class:`InstallError` whose message says what to do.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TextIO

from . import pico_devices, shipped, uf2
from .pico_devices import InstallError, Places
from .pico_repl import MpremoteRepl, NoRepl, PicoRepl, copy_firmware
from .ports import HELD_ADVICE, port_held_elsewhere
from .protocol import BadFrame, FrameDecoder, Hello, HostHello, encode_frame

STEPS = 5
#: MicroPython v1.28.0 for RPI_PICO: what the chip model runs, and a Pico is given.
MICROPYTHON_UF2 = Path(__file__).resolve().parent / "chip" / "rp2040" / "firmware.uf2"
#: How to get a Pico whose REPL is closed into a state the install can use.
BOOTSEL_HOWTO = (
    "unplug the Pico, hold its BOOTSEL button while you plug it back in, let go, and run "
    "`svoyak pico install` again: it flashes MicroPython with an empty file system, then "
    "copies the firmware"
)
#: Between two HOST_HELLOs while waiting for a HELLO.
HELLO_EVERY_S = 0.25


class Progress(Protocol):
    """Where the install reports what it does."""

    def step(self, number: int, text: str) -> None: ...
    def note(self, text: str) -> None: ...
    def transfer(self, name: str, done: int, total: int) -> None: ...


class ConsoleProgress:
    """Progress lines on a terminal (a file's copy counts up in place on a tty)."""

    def __init__(self, stream: TextIO = sys.stdout) -> None:
        self.stream = stream
        self.live = stream.isatty()

    def step(self, number: int, text: str) -> None:
        print(f"[{number}/{STEPS}] {text}", file=self.stream, flush=True)

    def note(self, text: str) -> None:
        print(f"      {text}", file=self.stream, flush=True)

    def transfer(self, name: str, done: int, total: int) -> None:
        line = f"      {name}: {done:,} of {total:,} bytes"
        if self.live:
            end = "\n" if done >= total else ""
            print(f"\r{line}", end=end, file=self.stream, flush=True)
        elif done >= total:
            print(line, file=self.stream, flush=True)


@dataclass(frozen=True)
class InstallOptions:
    """The technician's options, and the waits (tests shorten them)."""

    port: str | None = None
    drive: Path | None = None
    #: The longest wait for the Pico: its port after flashing, its HELLO after the reset.
    timeout: float = 60.0
    #: How long a raw REPL may take to answer before the port is asked for a HELLO,
    #: and how long that HELLO may take.
    repl_timeout: float = 5.0
    probe_timeout: float = 3.0
    #: After the reset, listen this long before speaking: a byte of a frame
    #: (0x03) would be a Ctrl-C to a main.py that has not turned Ctrl-C off yet.
    hello_quiet: float = 2.0


@dataclass(frozen=True)
class Installed:
    port: str
    hello: Hello
    #: False: the Pico already ran this release's firmware; nothing was copied.
    copied: bool
    #: The UF2 written onto a BOOTSEL drive, if one was.
    flashed: Path | None = None


@dataclass(frozen=True)
class Heard:
    """What a port said while the install listened for a HELLO."""

    hello: Hello | None
    #: Good frames of this protocol (a HELLO among them, if ``hello`` is set).
    frames: int
    #: Frames of another protocol version (an older svoyak firmware).
    bad_versions: int


def install(
    options: InstallOptions,
    progress: Progress,
    places: Places | None = None,
    build: Callable[[], Mapping[str, bytes]] = shipped.firmware_files,
    open_repl: Callable[[str, float], PicoRepl] = MpremoteRepl.open,
) -> Installed:
    """All five steps (see the module doc); InstallError says what to do."""
    places = places or Places()
    flashed, new_port = flash_if_bootsel(options, places, progress)
    port = new_port or pico_devices.pick_port(options.port, places)
    port = pico_devices.stable_name(port, places)
    check_free(port)
    progress.step(2, f"the Pico's serial port: {port}")
    progress.step(3, "compiling logic.py for the RP2040 (mpy-cross 1.28)")
    try:
        files = dict(build())
    except shipped.FirmwareBuildError as exc:
        raise InstallError(str(exc)) from exc
    identity = shipped.identity_of(files)
    sizes = ", ".join(f"{name} {len(data):,} bytes" for name, data in sorted(files.items()))
    progress.note(f"{sizes}: firmware identity {identity.hex()}")
    progress.step(4, f"copying {' and '.join(sorted(files))} with mpremote")
    try:
        repl = open_repl(port, options.repl_timeout)
    except NoRepl as exc:
        hello = already_installed(port, identity, exc, options.probe_timeout)
        progress.note("the Pico already runs this release's firmware: nothing to copy")
        return Installed(port, hello, copied=False, flashed=flashed)
    try:
        refuse_pico2(repl.machine())
        copy_firmware(repl, files, progress.transfer)
        progress.step(5, "resetting the Pico and waiting for its HELLO")
        repl.reset()
    finally:
        repl.close()
    hello = wait_for_hello(port, identity, options)
    return Installed(port, hello, copied=True, flashed=flashed)


# -- step 1: MicroPython on a Pico in BOOTSEL mode -------------------------------------------


def flash_if_bootsel(
    options: InstallOptions, places: Places, progress: Progress
) -> tuple[Path | None, str | None]:
    """Step 1: flash MicroPython onto a Pico in BOOTSEL mode and wait for its
    port; (the UF2 written, the port), or (None, None) with no such Pico."""
    if options.drive is not None:
        drive: pico_devices.BootselDrive | None = pico_devices.check_drive(options.drive)
    else:
        drive = pico_devices.pick_drive(pico_devices.find_drives(places))
    if drive is None:
        hint = pico_devices.unmounted_drive(places)
        if hint is not None and options.port is None:
            raise InstallError(hint)
        progress.step(1, "no Pico in BOOTSEL mode: MicroPython is taken to be on it already")
        return None, None
    progress.step(
        1, f"Pico in BOOTSEL mode at {drive.path}: flashing MicroPython 1.28, empty file system"
    )
    image = micropython_image()
    before = pico_devices.serial_ports(places)
    written = pico_devices.flash(drive, image)
    progress.note(f"{len(image):,} bytes copied; waiting for the Pico's serial port")
    port = pico_devices.wait_for_port(before, places, options.timeout, wanted=options.port)
    if port is None:
        raise InstallError(
            f"MicroPython was copied onto the Pico's drive at {drive.path}, but no new "
            f"serial port appeared within {options.timeout:g} s (looked in {places.by_id} "
            f"and {places.tty_glob}): unplug the Pico, plug it in again without BOOTSEL, "
            "and run `svoyak pico install` again"
        )
    progress.note(f"MicroPython is up on {port}")
    return written, port


def micropython_image() -> bytes:
    """The shipped MicroPython UF2 with the file-system wipe (firmware_bridge/uf2.py)."""
    try:
        return uf2.with_empty_filesystem(MICROPYTHON_UF2.read_bytes())
    except (OSError, uf2.Uf2Error) as exc:
        raise InstallError(
            f"this installation's MicroPython image {MICROPYTHON_UF2} is unusable ({exc}): "
            "reinstall svoyak"
        ) from exc


# -- steps 2 and 4: the port, a closed REPL -------------------------------------------------


def check_free(port: str) -> None:
    """InstallError if another program holds ``port`` (most often the svoyak service)."""
    import serial  # type: ignore[import-untyped]

    try:
        conn = serial.Serial(port, 115200, exclusive=True)
    except (serial.SerialException, OSError, ValueError) as exc:
        if port_held_elsewhere(exc):
            raise InstallError(f"{port}: {HELD_ADVICE}") from exc
        return  # not held: whatever else is wrong, opening the REPL says it
    conn.close()


def refuse_pico2(machine: str) -> None:
    """A Pico 2 running MicroPython names its chip: refused before anything is copied."""
    if "RP2350" in machine.upper():
        raise InstallError(f"{shipped.PICO2_REFUSAL} (MicroPython says: {machine})")


def already_installed(port: str, identity: bytes, no_repl: NoRepl, timeout: float) -> Hello:
    """No REPL answered: the Pico's HELLO if it runs this very firmware, else
    InstallError saying what runs there and how to get it into BOOTSEL mode."""
    heard = listen(port, timeout=timeout, quiet=0.0)
    hello = heard.hello
    if hello is not None:
        if hello.unsupported_chip:
            raise InstallError(f"{shipped.PICO2_REFUSAL} (the Pico on {port} says so)")
        if hello.firmware_id == identity:
            return hello
        raise InstallError(
            f"the Pico on {port} runs another svoyak firmware (identity "
            f"{hello.firmware_id.hex()}; this release ships {identity.hex()}), which keeps "
            f"MicroPython's REPL closed, so nothing can be copied over the port: {BOOTSEL_HOWTO}"
        )
    if heard.frames or heard.bad_versions:
        what = "frames of another protocol version" if heard.bad_versions else "no HELLO"
        raise InstallError(
            f"the Pico on {port} runs an older svoyak firmware ({what}), which keeps "
            f"MicroPython's REPL closed, so nothing can be copied over the port: {BOOTSEL_HOWTO}"
        )
    raise InstallError(
        f"{no_repl}, and no svoyak firmware answered either: is it a Pico with MicroPython? "
        f"To start afresh: {BOOTSEL_HOWTO}"
    )


# -- step 5: the HELLO ---------------------------------------------------------------------


def wait_for_hello(port: str, identity: bytes, options: InstallOptions) -> Hello:
    """The firmware's HELLO after the reset, checked against this release."""
    heard = listen(port, timeout=options.timeout, quiet=options.hello_quiet)
    hello = heard.hello
    if hello is None:
        raise InstallError(
            f"the files are on the Pico, but its firmware did not say HELLO on {port} within "
            f"{options.timeout:g} s of its reset: unplug the Pico and plug it in again, then "
            "run `svoyak pico install` again (it checks the files and copies what differs)"
        )
    refusal = shipped.hello_refusal(hello, identity)
    if refusal is not None:
        raise InstallError(f"after the install the Pico says: {refusal}")
    return hello


def listen(
    port: str, timeout: float, quiet: float, clock: Callable[[], float] = time.monotonic
) -> Heard:
    """Open ``port`` (again, while it comes and goes: a Pico resetting), listen
    ``quiet`` seconds (or until a first frame shows the firmware's loop runs),
    then send a HOST_HELLO every 0.25 s until a HELLO comes or ``timeout``
    runs out (it comes at boot unasked, too)."""
    import serial

    deadline = clock() + timeout
    frames = bad_versions = 0
    conn = None
    decoder = FrameDecoder()
    speak_at = 0.0
    seq = 0
    try:
        while clock() < deadline:
            if conn is None:
                try:
                    conn = serial.Serial(port, 115200, timeout=0.05, exclusive=True)
                except (serial.SerialException, OSError, ValueError):
                    time.sleep(0.2)
                    continue
                bad_versions += decoder.stats.bad[BadFrame.VERSION]
                decoder = FrameDecoder()
                speak_at = clock() + quiet
                first = True
            try:
                if clock() >= speak_at:
                    # A sender starts each connection with a lone 0x00 (docs/wire-protocol.md).
                    lead = b"\x00" if first else b""
                    conn.write(lead + encode_frame(HostHello(), seq))
                    first, seq, speak_at = False, seq + 1, clock() + HELLO_EVERY_S
                data = conn.read(512)
            except (serial.SerialException, OSError):
                conn.close()
                conn = None
                time.sleep(0.2)
                continue
            for frame in decoder.feed(data):
                frames += 1
                if isinstance(frame.message, Hello):
                    return Heard(frame.message, frames, bad_versions)
                # A frame (a heartbeat): main.py's loop runs, Ctrl-C is off, speak now.
                speak_at = min(speak_at, clock())
        return Heard(None, frames, bad_versions + decoder.stats.bad[BadFrame.VERSION])
    finally:
        if conn is not None:
            conn.close()


__all__ = [
    "MICROPYTHON_UF2",
    "ConsoleProgress",
    "Heard",
    "InstallError",
    "InstallOptions",
    "Installed",
    "Progress",
    "install",
    "listen",
]
