"""Where the host's PIN is kept for the technician: never on the board, a 0600 file instead.

The board is what every player looks at: a PIN shown there would let any of
them log in to the panel and judge their own answer. So the PIN goes only
where the host or the technician is: the console ``svoyak run`` was started
from (for the appliance, the systemd journal, ``journalctl -u svoyak``), and
this file, which ``svoyak pin`` reads. The file lives in the user's state
folder (``$XDG_STATE_HOME/svoyak/panel.json``, by default
``~/.local/state/svoyak/``), the folder ``0700`` and the file ``0600``: only
the user the game runs as (and root) can read it. It holds the PIN, the
panel's addresses and the process id, is written at start (atomically: a
reader never sees half a file) and removed when that game stops.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import platformdirs

FILE_NAME = "panel.json"


def state_dir() -> Path:
    """The user's state folder for svoyak (XDG Base Directory: ``$XDG_STATE_HOME``, by
    platformdirs: the maintained reading of the spec, a relative value ignored)."""
    return platformdirs.user_state_path("svoyak")


def panel_file() -> Path:
    return state_dir() / FILE_NAME


def publish(pin: str, urls: list[str], pid: int | None = None) -> Path:
    """Write the running game's PIN and addresses, readable by this user alone."""
    folder = state_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)  # an older, looser folder is tightened too
    body = json.dumps(
        {"pin": pin, "urls": urls, "pid": os.getpid() if pid is None else pid},
        ensure_ascii=False,
    )
    # mkstemp creates the file 0600 before a byte of the PIN is in it.
    fd, temp = tempfile.mkstemp(dir=folder, prefix=".panel-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(body + "\n")
        os.replace(temp, folder / FILE_NAME)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return folder / FILE_NAME


def withdraw(pid: int | None = None) -> None:
    """Remove the file if it is still this process's (a newer game may have replaced it)."""
    path = panel_file()
    try:
        owner = json.loads(path.read_text(encoding="utf-8")).get("pid")
    except (OSError, ValueError, AttributeError):
        return
    if owner == (os.getpid() if pid is None else pid):
        with contextlib.suppress(OSError):
            path.unlink()


def running(pid: int) -> bool:
    """Is process ``pid`` alive? (Another user's process counts: it exists.)"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read() -> dict[str, Any]:
    """The running game's ``{"pin", "urls", "pid"}``.

    Raises ``FileNotFoundError`` when no game of this user is running (or the
    one that wrote the file is gone), ``ValueError`` for a file that is not ours.
    """
    path = panel_file()
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("pin"), str):
        raise ValueError(f"{path}: not a svoyak panel file")
    pid = data.get("pid")
    if not isinstance(pid, int) or not running(pid):
        raise FileNotFoundError(f"{path} was left by a game that is no longer running")
    return data
