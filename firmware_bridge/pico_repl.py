"""The Pico's files over MicroPython's raw REPL, through mpremote (for `svoyak pico install`).

mpremote is MicroPython's own tool for the raw REPL and its file transfer
(raw-paste mode with its flow control, the chunked writes, the errors as
OSError); it is used here as a library, not as the ``mpremote`` command:
one process and one open port for the whole copy, a progress callback per
chunk, and its exceptions turned into what the technician reads, where the
command would print its own words and leave an exit status to guess from.
Its library API is young (mpremote's own note says it will change), so it
is held to here, in :class:`MpremoteRepl`, and tested end to end against a
real MicroPython REPL (tests/firmware_bridge/test_pico_install.py).

:func:`copy_firmware` is the plan, against the small :class:`PicoRepl`
interface: which file goes first, what is removed, what is checked.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from .pico_devices import InstallError

#: A file of the firmware, its bytes sent so far, its size.
TransferProgress = Callable[[str, int, int], None]
#: Left by an older install (the firmware ran as source once): MicroPython
#: imports ``logic.py`` before ``logic.mpy``, so it would shadow the new code.
STALE_FILES = ("logic.py",)
#: Bytes of a file per exec on the REPL (mpremote's default is 256).
CHUNK = 1024


class NoRepl(InstallError):
    """No MicroPython raw REPL answered on the port."""


class PicoRepl(Protocol):
    """What the copy needs of a Pico at its raw REPL."""

    def machine(self) -> str: ...
    def exists(self, name: str) -> bool: ...
    def remove(self, name: str) -> None: ...
    def rename(self, old: str, new: str) -> None: ...
    def write(self, name: str, data: bytes, progress: Callable[[int, int], None]) -> None: ...
    def sha256(self, name: str) -> bytes: ...
    def reset(self) -> None: ...
    def close(self) -> None: ...


def copy_firmware(repl: PicoRepl, files: Mapping[str, bytes], progress: TransferProgress) -> None:
    """Put ``files`` at the root of the Pico's file system, ``main.py`` last.

    ``main.py`` goes first (removed) and comes back last (written under a
    temporary name, checked, renamed): until the very end a Pico that loses
    power or is reset boots to its REPL, not into a half-installed firmware
    that would close the REPL again. Every file is checked by its SHA-256 as
    the Pico reads it back; a stale ``logic.py`` is removed.
    """
    if repl.exists("main.py"):
        repl.remove("main.py")
    order = sorted(files, key=lambda name: name == "main.py")
    for name in order:
        data = files[name]
        target = name + ".new" if name == "main.py" else name
        repl.write(target, data, functools.partial(progress, name))
        if repl.sha256(target) != hashlib.sha256(data).digest():
            raise InstallError(
                f"{name} on the Pico differs from what was sent (a flaky USB cable or "
                "hub?): run `svoyak pico install` again, with the Pico straight on the host"
            )
        if name == "main.py":
            for stale in STALE_FILES:
                if repl.exists(stale):
                    repl.remove(stale)
            repl.rename(target, name)


class MpremoteRepl:
    """A Pico's raw REPL through mpremote's ``SerialTransport`` (see the module doc)."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport

    @classmethod
    def open(cls, port: str, timeout: float) -> MpremoteRepl:
        """Interrupt whatever runs (Ctrl-C) and enter the raw REPL (Ctrl-A).

        NoRepl if the port cannot be opened or no raw REPL answers within
        ``timeout`` (a program that turned Ctrl-C off, such as svoyak's own
        firmware, or not MicroPython at all).
        """
        from mpremote.transport import TransportError  # type: ignore[import-untyped]
        from mpremote.transport_serial import SerialTransport  # type: ignore[import-untyped]

        deadline = time.monotonic() + timeout
        while True:
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    transport = SerialTransport(port, baudrate=115200)
                break
            except TransportError as exc:
                # Just enumerated: udev (or ModemManager) may still hold it a moment.
                if time.monotonic() >= deadline:
                    raise NoRepl(f"cannot open {port}: {exc}") from exc
                time.sleep(0.3)
        try:
            # mpremote prints what it got when it fails: that is for us, not the screen.
            with contextlib.redirect_stdout(io.StringIO()):
                transport.enter_raw_repl(
                    soft_reset=False, timeout_overall=max(deadline - time.monotonic(), 1.0)
                )
        except (TransportError, OSError) as exc:  # OSError: pyserial's, a port gone away
            _close(transport)
            raise NoRepl(f"no MicroPython raw REPL answered on {port}: {exc}") from exc
        return cls(transport)

    def _exec(self, code: str) -> bytes:
        from mpremote.transport import TransportError

        try:
            return bytes(self._transport.exec(code))
        except TransportError as exc:
            what = code.splitlines()[-1]
            raise InstallError(f"the Pico's REPL failed at {what!r}: {exc}") from exc

    def machine(self) -> str:
        """MicroPython's name for the board and its chip (``sys.implementation._machine``,
        e.g. "Raspberry Pi Pico with RP2040"; ``os.uname`` is not in every port)."""
        code = "import sys\nprint(getattr(sys.implementation, '_machine', ''))"
        return self._exec(code).decode(errors="replace").strip()

    def exists(self, name: str) -> bool:
        # Not mpremote's fs_exists: it tells "no such file" by the errno's
        # number in the traceback, which not every port numbers as the Pico does.
        code = f"import os\ntry:\n os.stat({name!r})\n print(1)\nexcept OSError:\n print(0)"
        return self._exec(code).strip() == b"1"

    def remove(self, name: str) -> None:
        self._file_op(lambda: self._transport.fs_rmfile(name), f"remove {name}")

    def rename(self, old: str, new: str) -> None:
        self._exec(f"import os\nos.rename({old!r}, {new!r})")

    def write(self, name: str, data: bytes, progress: Callable[[int, int], None]) -> None:
        self._file_op(
            lambda: self._transport.fs_writefile(
                name, data, chunk_size=CHUNK, progress_callback=progress
            ),
            f"write {name}",
        )

    def sha256(self, name: str) -> bytes:
        digest: bytes = self._file_op(
            lambda: self._transport.fs_hashfile(name, "sha256"), f"read back {name}"
        )
        return bytes(digest)

    def _file_op(self, op: Callable[[], Any], what: str) -> Any:
        from mpremote.transport import TransportError

        try:
            return op()
        except OSError as exc:
            raise InstallError(
                f"the Pico could not {what} ({exc}): is its file system full or damaged? "
                "Hold BOOTSEL while plugging it in and run `svoyak pico install` again "
                "(MicroPython is then flashed with an empty file system)"
            ) from exc
        except TransportError as exc:
            raise InstallError(f"the Pico's REPL failed to {what}: {exc}") from exc

    def reset(self) -> None:
        """``machine.reset()``: the Pico reboots and runs main.py. Its port goes
        away at once, so an error on the way out is the reset working."""
        with contextlib.suppress(Exception):
            self._transport.exec_raw_no_follow("import machine\nmachine.reset()")
        self._transport.in_raw_repl = False  # no Ctrl-B into a rebooting Pico
        self.close()

    def close(self) -> None:
        _close(self._transport)


def _close(transport: Any) -> None:
    with contextlib.suppress(Exception):
        if transport.in_raw_repl:
            transport.exit_raw_repl()
    with contextlib.suppress(Exception):
        transport.close()


__all__ = ["STALE_FILES", "MpremoteRepl", "NoRepl", "PicoRepl", "copy_firmware"]
