"""Start ``svoyak run --headless`` as a real process for a benchmark."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile


def spawn_run(pin: str, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """The process and its panel URL, once it has printed its PIN.

    Each run journals its game (as ``svoyak run`` always does) in a throwaway folder.
    """
    env = {**os.environ, "XDG_DATA_HOME": tempfile.mkdtemp(prefix="svoyak-bench-")}
    command = [
        sys.executable,
        "-m",
        "buzzer.cli",
        "run",
        "--headless",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--pin",
        pin,
        *extra,
    ]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    assert proc.stdout is not None
    url = None
    for line in proc.stdout:
        found = re.search(r"http://\d+\.\d+\.\d+\.\d+:\d+", line)
        url = url or (found.group(0) if found else None)
        if line.strip().startswith("PIN:"):
            break
    if url is None:
        proc.kill()
        raise RuntimeError("svoyak run did not print its panel's URL")
    return proc, url
