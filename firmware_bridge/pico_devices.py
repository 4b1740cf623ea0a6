"""Where a Raspberry Pi Pico shows up on the host: its BOOTSEL drive and its serial port.

For `svoyak pico install` (firmware_bridge/install.py). A Pico plugged in
with its BOOTSEL button held is a USB drive (label ``RPI-RP2``) whose
``INFO_UF2.TXT`` names the board (``Board-ID: RPI-RP2``; a Pico 2 says
``RP2350``); a UF2 file copied onto it is flashed, and the Pico reboots into
it. A Pico running MicroPython is a USB serial port, named by udev
``/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_<serial>-if00`` (a
stable name: it stays the same across resets and replugs, where
``/dev/ttyACM<n>`` may change).

Every function looks only where :class:`Places` says, so the tests run them
on a temporary folder.
"""

from __future__ import annotations

import contextlib
import fnmatch
import glob
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from buzzer.errors import SvoyakError

from .shipped import PICO2_REFUSAL

#: The boot ROM's drive of a Pico (RP2040) in BOOTSEL mode, and a Pico 2's.
RP2040_BOARD = "RPI-RP2"
RP2350_BOARD = "RP2350"
INFO_FILE = "INFO_UF2.TXT"
#: The name the UF2 gets on the drive (any name is flashed the same).
UF2_NAME = "svoyak-micropython.uf2"
#: udev's stable name of MicroPython's USB serial port (rp2 port's USB descriptors).
MICROPYTHON_BY_ID = "usb-MicroPython_Board_in_FS_mode_*-if00"


class InstallError(SvoyakError, RuntimeError):
    """`svoyak pico install` cannot go on; the message says what to do."""


@dataclass(frozen=True)
class Places:
    """Where the host shows a Pico (the system's folders; tests pass temporary ones)."""

    #: Where a desktop mounts a USB drive (udisks: /media/USER/LABEL, or
    #: /run/media/USER/LABEL), and where a technician mounts one by hand.
    mount_globs: tuple[str, ...] = ("/media/*/*", "/run/media/*/*", "/media/*", "/mnt", "/mnt/*")
    by_id: Path = Path("/dev/serial/by-id")
    by_label: Path = Path("/dev/disk/by-label")
    tty_glob: str = "/dev/ttyACM*"


@dataclass(frozen=True)
class BootselDrive:
    """A mounted UF2 boot drive and the board its INFO_UF2.TXT names."""

    path: Path
    board: str


# -- the BOOTSEL drive --------------------------------------------------------------------


def board_of(info: str) -> str:
    """The ``Board-ID`` an INFO_UF2.TXT names (``""`` if it names none)."""
    for line in info.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == "board-id":
            return value.strip()
    return ""


def drive_at(path: Path) -> BootselDrive | None:
    """The UF2 drive mounted at ``path``, or ``None`` if it is not one."""
    info = path / INFO_FILE
    try:
        text = info.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return BootselDrive(path, board_of(text))


def find_drives(places: Places) -> list[BootselDrive]:
    """Every mounted UF2 drive under the places' mount folders, each once."""
    seen: set[str] = set()
    drives = []
    for pattern in places.mount_globs:
        for found in sorted(glob.glob(pattern)):
            real = os.path.realpath(found)
            if real in seen or not os.path.isdir(found):
                continue
            drive = drive_at(Path(found))
            if drive is not None:
                seen.add(real)
                drives.append(drive)
    return drives


def is_pico2(drive: BootselDrive) -> bool:
    return RP2350_BOARD in drive.board.upper()


def is_pico(drive: BootselDrive) -> bool:
    return drive.board.upper() == RP2040_BOARD


def pick_drive(drives: list[BootselDrive]) -> BootselDrive | None:
    """The one Pico in BOOTSEL mode, ``None`` if there is none; InstallError for a
    Pico 2 or several Picos. Drives of other UF2 boards are not Picos: left alone."""
    for drive in drives:
        if is_pico2(drive):
            raise InstallError(
                f"{PICO2_REFUSAL} (its BOOTSEL drive is mounted at {drive.path}): unplug it"
            )
    picos = [drive for drive in drives if is_pico(drive)]
    if len(picos) > 1:
        where = ", ".join(str(drive.path) for drive in picos)
        raise InstallError(
            f"several Picos are in BOOTSEL mode ({where}): leave one plugged in, "
            "or pass --drive PATH with the one to install on"
        )
    return picos[0] if picos else None


def check_drive(path: Path) -> BootselDrive:
    """The drive a technician named with ``--drive``; InstallError if it is not a Pico's."""
    drive = drive_at(path)
    if drive is None:
        raise InstallError(
            f"--drive {path}: no {INFO_FILE} there, so it is not a Pico in BOOTSEL mode "
            f"(hold BOOTSEL while plugging the Pico in; its drive is labelled {RP2040_BOARD})"
        )
    if is_pico2(drive):
        raise InstallError(f"{PICO2_REFUSAL} (the drive at {path} is a Pico 2's)")
    if not is_pico(drive):
        raise InstallError(
            f"--drive {path}: its {INFO_FILE} says Board-ID {drive.board or '(none)'!r}, "
            f"not {RP2040_BOARD}: that is not a Raspberry Pi Pico"
        )
    return drive


def unmounted_drive(places: Places) -> str | None:
    """What to do when a Pico is in BOOTSEL mode but its drive is not mounted
    (Raspberry Pi OS Lite mounts no USB drive by itself); ``None`` if none is."""
    if (places.by_label / RP2350_BOARD).exists():
        return f"{PICO2_REFUSAL} (a Pico 2 is plugged in in BOOTSEL mode): unplug it"
    device = places.by_label / RP2040_BOARD
    if not device.exists():
        return None
    return (
        f"a Pico is in BOOTSEL mode ({device}) but its drive is not mounted: "
        f"sudo mount -o uid=$(id -u) {device} /mnt, then run `svoyak pico install` again"
    )


def flash(drive: BootselDrive, image: bytes) -> Path:
    """Copy a UF2 ``image`` onto the drive; the Pico flashes it and reboots.

    The boot ROM reboots as soon as the last block has landed, so the drive
    may vanish before the file system has written its own bookkeeping: an
    error then (at sync or close) is not a failed copy. Whether the copy
    worked shows when MicroPython's serial port appears.
    """
    target = drive.path / UF2_NAME
    try:
        handle = open(target, "wb")  # noqa: SIM115 - closed below, its errors tolerated
    except OSError as exc:
        raise InstallError(
            f"cannot write onto the Pico's drive at {drive.path} ({exc.strerror or exc}): "
            "is it mounted read-only, or as another user? "
            f"(sudo mount -o uid=$(id -u) {drive.path} …)"
        ) from exc
    try:
        handle.write(image)
        handle.flush()
    except OSError as exc:
        with contextlib.suppress(OSError):
            handle.close()
        raise InstallError(
            f"copying MicroPython onto the Pico's drive at {drive.path} failed "
            f"({exc.strerror or exc}): unplug the Pico, hold BOOTSEL while you plug it "
            "back in, and run `svoyak pico install` again"
        ) from exc
    with contextlib.suppress(OSError):
        os.fsync(handle.fileno())
    with contextlib.suppress(OSError):
        handle.close()
    return target


# -- the serial port -----------------------------------------------------------------------


def serial_ports(places: Places) -> set[str]:
    """Every serial port the host shows now: its stable names and its ttyACM devices."""
    ports = set(glob.glob(str(places.by_id / "*")))
    ports.update(glob.glob(places.tty_glob))
    return ports


def micropython_ports(places: Places) -> list[str]:
    """The stable names of the MicroPython boards plugged in, sorted."""
    return sorted(glob.glob(str(places.by_id / MICROPYTHON_BY_ID)))


def pick_port(explicit: str | None, places: Places) -> str:
    """The Pico's port: ``--port``, or the one MicroPython board; InstallError
    (listing what was found) when there is none or several."""
    if explicit is not None:
        if explicit.startswith("/") and not os.path.exists(explicit):
            raise InstallError(
                f"--port {explicit}: no such port (is the Pico plugged in? "
                f"its ports: {_listing(places)})"
            )
        return explicit
    found = micropython_ports(places)
    if len(found) == 1:
        return found[0]
    if not found:
        raise InstallError(
            f"no MicroPython board under {places.by_id} (found: {_listing(places)}): plug "
            "the Pico in, or hold BOOTSEL while plugging it in to flash MicroPython first; "
            "or pass --port PORT"
        )
    raise InstallError(
        f"several MicroPython boards are plugged in: {', '.join(found)} (a pulse generator "
        "is a Pico too): pass --port with the one to install on"
    )


def _listing(places: Places) -> str:
    ports = sorted(serial_ports(places))
    return ", ".join(ports) if ports else "no serial port at all"


def stable_name(port: str, places: Places) -> str:
    """``port``'s name under /dev/serial/by-id if it has one (it survives the
    Pico's reset, where /dev/ttyACM0 may come back as /dev/ttyACM1), else ``port``."""
    if not port.startswith("/"):
        return port
    real = os.path.realpath(port)
    for name in sorted(glob.glob(str(places.by_id / "*"))):
        if os.path.realpath(name) == real:
            return name
    return port


def wait_for_port(
    before: set[str],
    places: Places,
    timeout: float,
    wanted: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> str | None:
    """The serial port a freshly flashed Pico comes up as, or ``None`` after ``timeout``.

    ``wanted`` (the technician's ``--port``): that path, once it exists.
    Otherwise a port that was not there ``before``: MicroPython's stable
    name first, else a new ttyACM device.
    """
    deadline = clock() + timeout
    while True:
        if wanted is not None:
            if os.path.exists(wanted):
                return wanted
        else:
            new = serial_ports(places) - before
            stable = sorted(name for name in new if name in set(micropython_ports(places)))
            if stable:
                return stable[0]
            ttys = sorted(name for name in new if fnmatch.fnmatch(name, places.tty_glob))
            if ttys:
                return ttys[0]
        if clock() >= deadline:
            return None
        sleep(0.2)


__all__ = [
    "PICO2_REFUSAL",
    "BootselDrive",
    "InstallError",
    "Places",
    "board_of",
    "check_drive",
    "find_drives",
    "flash",
    "micropython_ports",
    "pick_drive",
    "pick_port",
    "serial_ports",
    "stable_name",
    "unmounted_drive",
    "wait_for_port",
]
