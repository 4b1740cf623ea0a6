"""``svoyak run`` on a real terminal: the banner before the PIN shows a hostile
package's name and the players' names with their control characters as
visible escapes (ESC → ``\\x1b``), Cyrillic as it is."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.rules.packages.test_package_inspect_tty import HOSTILE_JSON, _controls, _own_json

ROOT = Path(__file__).resolve().parents[3]


def test_the_banner_shows_a_hostile_package_name_escaped(tmp_path: Path) -> None:
    package = _own_json(tmp_path / "hostile.json")
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "PYTHONIOENCODING": "utf-8"}
    env.pop("SVOYAK_PIN", None)
    argv = [
        *("--headless", "--host", "127.0.0.1", "--port", "0", "--no-journal"),
        *("--package", str(package), "--players", "Аня\x1b[2J,Борис"),
    ]
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "buzzer.cli", "run", *argv],
            stdin=subprocess.DEVNULL,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            env=env,
        )
    finally:
        os.close(slave)
    out = bytearray()
    try:
        deadline = time.monotonic() + 60
        while not re.search(rb"  PIN: \S+\r?\n", out):
            assert time.monotonic() < deadline, out.decode("utf-8", "replace")
            ready, _, _ = select.select([master], [], [], 1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(master)
    text = out.decode("utf-8")
    assert "  PIN: " in text, text
    assert _controls(bytes(out)) == set(), text
    assert HOSTILE_JSON not in text
    assert "Пакет \\x1b]0;pwned\\x07\\x1b[2J\\x1b[8mскрыто" in text
    assert "Аня\\x1b[2J, Борис" in text
