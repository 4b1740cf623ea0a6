"""A Pico's serial port for `svoyak pico install`'s tests, played by real MicroPython.

:class:`MicroPythonPico` gives a port path (``<folder>/ttyPICO``, a symlink
as /dev/serial/by-id's names are) behind which, until a reset, MicroPython's
WebAssembly port runs its REPL (``micropython_pico.mjs`` under node: the
raw REPL, raw-paste mode and a file system are MicroPython's own, so
mpremote talks to it as to a Pico). ``machine.reset()`` ends that run as a
reset ends MicroPython on a Pico: the files then on its file system are kept
(:attr:`files_at_reset`) and the Pico "boots" them: the Python emulator of
the firmware (firmware_bridge/emulator.py) takes the port over, saying in its
HELLO the identity of exactly those files (``shipped.identity_of``), as
main.py computes it on a Pico. The symlink then points at the emulator's
pty and the REPL's pty is closed, as a Pico's port goes away and comes back.

It needs node and ``@micropython/micropython-webassembly-pyscript`` in
``.cache/micropython-wasm`` (scripts/test installs it; or wherever
``SVOYAK_MICROPYTHON_WASM`` points): :func:`require_micropython` fails a test
without node or without the package, saying how to install it.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import threading
import tty
from collections.abc import Mapping
from pathlib import Path

import pytest

from firmware_bridge.emulator import Emulator
from firmware_bridge.shipped import identity_of
from tests.support.paths import REPO

SCRIPT = Path(__file__).resolve().parent / "micropython_pico.mjs"
WASM_DIR = Path(
    os.environ.get("SVOYAK_MICROPYTHON_WASM", REPO / ".cache" / "micropython-wasm")
).resolve()
WASM_PACKAGE = WASM_DIR / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
WASM_MODULE = WASM_PACKAGE / "micropython.mjs"
RESET_MARK = b"SVOYAK-PICO-RESET "


def require_micropython() -> str:
    """node's path; fails, saying what to install, without node or the npm package
    (a skipped install test would prove nothing)."""
    node = shutil.which("node")
    if node is None:
        pytest.fail(
            "node and npm are needed to run MicroPython (its WebAssembly port): "
            "apt-get install nodejs npm, then scripts/test"
        )
    if not WASM_MODULE.is_file():
        pytest.fail(
            "MicroPython's WebAssembly port is missing: npm install --prefix "
            f"{WASM_DIR} @micropython/micropython-webassembly-pyscript@1.27.0 "
            "(scripts/test does it)"
        )
    return node


class MicroPythonPico:
    """See the module docstring. Use as a context manager."""

    def __init__(self, folder: Path, files: Mapping[str, bytes] | None = None) -> None:
        self.folder = folder
        self.seed = dict(files or {})
        #: The port, as a technician names it: a symlink that follows the Pico.
        self.path = str(folder / "ttyPICO")
        #: The REPL's file system when ``machine.reset()`` was called.
        self.files_at_reset: dict[str, bytes] | None = None
        #: The firmware "booted" after the reset.
        self.emulator: Emulator | None = None
        self.reset_seen = threading.Event()
        self._proc: subprocess.Popen[bytes] | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self._threads: list[threading.Thread] = []
        self._stderr = bytearray()

    def start(self) -> MicroPythonPico:
        node = require_micropython()
        self.folder.mkdir(parents=True, exist_ok=True)
        seed = self.folder / "seed.json"
        seed.write_text(
            json.dumps({name: base64.b64encode(data).decode() for name, data in self.seed.items()})
        )
        master, slave = os.openpty()
        tty.setraw(slave)
        tty.setraw(master)
        self._master, self._slave = master, slave
        os.symlink(os.ttyname(slave), self.path)
        self._proc = subprocess.Popen(
            [node, str(SCRIPT), str(WASM_MODULE), str(seed)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for target, name in (
            (self._host_to_repl, "pico-in"),
            (self._repl_to_host, "pico-out"),
            (self._watch_stderr, "pico-err"),
        ):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()
        if proc is not None:
            proc.wait(5)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        self._close_pty()
        for thread in self._threads:
            thread.join(5)
        if self.emulator is not None:
            self.emulator.stop()

    def __enter__(self) -> MicroPythonPico:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def stderr(self) -> str:
        return self._stderr.decode(errors="replace")

    def _close_pty(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None

    def _host_to_repl(self) -> None:
        master, proc = self._master, self._proc
        assert master is not None and proc is not None and proc.stdin is not None
        while proc.poll() is None and not self.reset_seen.is_set():
            try:
                ready, _, _ = select.select([master], [], [], 0.1)
                if not ready:
                    continue
                data = os.read(master, 4096)
                proc.stdin.write(data)
                proc.stdin.flush()
            except (OSError, ValueError):
                return

    def _repl_to_host(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        while data := proc.stdout.read1(4096):
            master = self._master
            if master is None:
                return
            view = memoryview(data)
            while view:
                try:
                    view = view[os.write(master, view) :]
                except OSError:
                    return

    def _watch_stderr(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        for line in proc.stderr:
            if line.startswith(RESET_MARK):
                files = json.loads(line[len(RESET_MARK) :])
                self._boot({name: base64.b64decode(data) for name, data in files.items()})
            else:
                self._stderr += line

    def _boot(self, files: dict[str, bytes]) -> None:
        """The reset: the firmware on these files takes the port; the REPL's pty goes."""
        self.files_at_reset = files
        emulator = Emulator(directory=str(self.folder), firmware_id=identity_of(files))
        emulator.start()  # re-points self.path at its own pty
        self.emulator = emulator
        self.reset_seen.set()
        self._close_pty()
