"""Running the firmware's pure logic (firmware_bridge/firmware/logic.py) in tests:
a :class:`logic.Device` with a :class:`Host` that decodes what it writes and
writes host frames into it (:func:`new_device`), and a scenario's code run
under CPython (:func:`run_cpython`) or under a real MicroPython, its
WebAssembly port run by node (:func:`run_micropython`).

The MicroPython run needs node and the npm package
``@micropython/micropython-webassembly-pyscript`` installed by ``scripts/test``
into ``.cache/micropython-wasm`` (or wherever ``SVOYAK_MICROPYTHON_WASM``
points). It fails without node or npm, and with node present and the package
missing, saying how to install it.

Used by tests/firmware_bridge/test_bridge_firmware_*.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.firmware import logic
from firmware_bridge.protocol import FrameDecoder, encode_frame
from tests.support.paths import REPO

ROOT = REPO
LOGIC = ROOT / "firmware_bridge" / "firmware" / "logic.py"
WASM_DIR = Path(
    os.environ.get("SVOYAK_MICROPYTHON_WASM", ROOT / ".cache" / "micropython-wasm")
).resolve()
WASM_MODULE = (
    WASM_DIR
    / "node_modules"
    / "@micropython"
    / "micropython-webassembly-pyscript"
    / "micropython.mjs"
)
PERIOD = 1 << logic.TICKS_BITS


class Host:
    """Decodes what a Device writes, and writes host frames into it."""

    def __init__(self, device: logic.Device) -> None:
        self.device = device
        self.decoder = FrameDecoder()
        self.seq = 0

    def send(self, message: p.Message, now: int) -> None:
        self.device.feed(encode_frame(message, self.seq), now)
        self.seq += 1

    def read(self) -> list[p.Message]:
        return [f.message for f in self.decoder.feed(self.device.take_output())]


def new_device(**kwargs: Any) -> tuple[logic.Device, Host, list[tuple[int, int]], list[Any]]:
    """A 4-button Device (``kwargs`` its options), its Host, and the lamp and pulse
    calls it made, (lamp, level) and (button, active), in order."""
    lamps: list[tuple[int, int]] = []
    pulses: list[Any] = []
    device = logic.Device(
        4,
        3,
        b"BOARD-01",
        0xABCDEF01,
        on_lamp=lambda i, level: lamps.append((i, level)),
        on_pulse=lambda b, active: pulses.append((b, active)),
        **kwargs,
    )
    return device, Host(device), lamps, pulses


def run_cpython(code: str) -> dict[str, Any]:
    """Run a scenario under this CPython with ``import logic`` the firmware's logic;
    the JSON line it prints."""
    import contextlib
    import io
    import sys

    buffer = io.StringIO()
    saved = sys.modules.get("logic")
    sys.modules["logic"] = logic
    try:
        with contextlib.redirect_stdout(buffer):
            exec(compile(code, "<scenario>", "exec"), {"__name__": "__scenario__"})
    finally:
        if saved is None:
            del sys.modules["logic"]
        else:
            sys.modules["logic"] = saved
    result: dict[str, Any] = json.loads(buffer.getvalue())
    return result


_RUNNER = r"""
import { loadMicroPython } from %(module)s;
import { readFileSync } from "node:fs";
let out = "";
const mp = await loadMicroPython({
  heapsize: 4 * 1024 * 1024,
  linebuffer: false,
  stdout: (data) => { out += new TextDecoder().decode(data); },
});
mp.FS.mkdir("/fw");
mp.FS.writeFile("/fw/logic.py", readFileSync(%(logic)s, "utf8"));
try {
  mp.runPython("import sys\nsys.path.insert(0, '/fw')\n" + readFileSync(0, "utf8"));
} catch (error) {
  process.stderr.write(String(error.message || error));
  process.exit(3);
}
process.stdout.write(out);
"""


def run_micropython(code: str) -> dict[str, Any]:
    """Run a scenario under MicroPython (WebAssembly, node) with logic.py on its
    path; the last JSON line it prints."""
    node = shutil.which("node")
    if node is None or shutil.which("npm") is None:
        pytest.fail(
            "node and npm are needed to run the firmware's logic under MicroPython "
            "(its WebAssembly port): install Node.js 20+, then run ./scripts/test"
        )
    if not WASM_MODULE.is_file():
        pytest.fail(
            f"MicroPython WebAssembly not found at {WASM_MODULE}; install it with\n"
            f"  npm install --prefix {WASM_DIR} --no-audit --no-fund "
            "@micropython/micropython-webassembly-pyscript@1.27.0\n"
            "(scripts/test does this)"
        )
    runner = _RUNNER % {
        "module": json.dumps(WASM_MODULE.as_uri()),
        "logic": json.dumps(str(LOGIC)),
    }
    proc = subprocess.run(
        [node, "--input-type=module", "-e", runner],
        input=code,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines, proc.stderr
    result: dict[str, Any] = json.loads(lines[-1])
    return result
