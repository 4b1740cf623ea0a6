"""``svoyak doctor``'s readers of the real machine: groups, GPIO chips, commands, the board.

What :func:`buzzer.app.doctor.system_host` wires into a
:class:`~buzzer.app.doctor.Host` (the checks never call these directly, so a
test gives them a fake machine), and the board's model the checks ask a
host for. Apart from the checks so that the one place touching ``/dev``,
``/proc`` and subprocesses is short and read on its own.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence

from buzzer.app.doctor import (
    GpioChip,
    Host,
    Ran,
)

# -- the real machine (doctor.system_host) -------------------------------------------


def process_groups() -> frozenset[str]:
    import grp

    names = set()
    for gid in {os.getegid(), *os.getgroups()}:
        try:
            names.add(grp.getgrgid(gid).gr_name)
        except KeyError:
            names.add(str(gid))
    return frozenset(names)


def user_name() -> str:
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


def listed_groups() -> frozenset[str]:
    import grp

    user = user_name()
    listed = {g.gr_name for g in grp.getgrall() if user in g.gr_mem}
    with contextlib.suppress(KeyError):
        import pwd

        listed.add(grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name)
    return frozenset(listed)


#: GPIO_GET_CHIPINFO_IOCTL: _IOR(0xB4, 0x01, struct gpiochip_info), the struct being
#: char name[32], char label[32], __u32 lines (linux/gpio.h): what gpiodetect asks.
_CHIPINFO_IOCTL = 0x8044B401
_CHIPINFO_SIZE = 68


def list_gpiochips(dev: str = "/dev") -> list[GpioChip]:
    """Every ``/dev/gpiochipN`` with the name, label and line count its driver gives."""
    import fcntl
    import glob
    import struct

    chips = []
    for path in glob.glob(os.path.join(dev, "gpiochip*")):
        suffix = os.path.basename(path)[len("gpiochip") :]
        if not suffix.isdigit():
            continue
        real = os.path.realpath(path)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                raw = fcntl.ioctl(fd, _CHIPINFO_IOCTL, bytes(_CHIPINFO_SIZE))
            finally:
                os.close(fd)
        except OSError as exc:
            chips.append(GpioChip(int(suffix), path, real, error=exc.strerror or str(exc)))
            continue
        name, label, lines = struct.unpack("32s32sI", raw)
        chips.append(
            GpioChip(
                int(suffix),
                path,
                real,
                name.split(b"\0")[0].decode("ascii", "replace"),
                label.split(b"\0")[0].decode("ascii", "replace"),
                lines,
            )
        )
    return sorted(chips, key=lambda chip: chip.number)


def run_command(argv: Sequence[str]) -> Ran | None:
    """Run ``argv`` (a few seconds at most); None when it is not installed."""
    import subprocess

    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=10, check=False)
    except FileNotFoundError:
        return None
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Ran(127, "", str(exc))
    return Ran(done.returncode, done.stdout, done.stderr)


def board_model(host: Host) -> str | None:
    """The board's model (``Raspberry Pi 5 Model B Rev 1.0``), or None when unknown."""
    try:
        raw = (host.proc / "device-tree" / "model").read_bytes()
    except OSError:
        return None
    return raw.rstrip(b"\0").decode("utf-8", "replace").strip() or None


def is_raspberry_pi(host: Host) -> bool:
    return "raspberry pi" in (board_model(host) or "").lower()
