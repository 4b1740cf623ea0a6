"""The host's PIN is never on the board (every player sees it); it is printed on the
console ``svoyak run`` was started from and kept in a 0600 file that ``svoyak pin``
reads for the technician of an appliance with no console."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.buzzer.panel.test_panel_cli import served
from tests.support.live_run import IdleServer

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

CLI = [sys.executable, "-m", "buzzer.cli"]
ARGS = ("--headless", "--host", "127.0.0.1", "--port", "0", "--no-journal")


def state_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    env.pop("SVOYAK_PIN", None)
    env.update(extra)
    return env


def svoyak_pin(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "pin"], capture_output=True, text=True, timeout=60, env=env)


def printed_pin(out: list[str]) -> str:
    return next(line.split(":")[1].strip() for line in out if line.strip().startswith("PIN:"))


def test_the_start_screen_carries_no_pin() -> None:
    from display.scene import StartInfo

    assert "pin" not in {f.name for f in dataclasses.fields(StartInfo)}
    with pytest.raises(TypeError):
        StartInfo("4821", "http://10.0.0.5:8000/")  # type: ignore[misc]  # a PIN first: refused


def test_the_board_of_a_live_game_shows_the_address_and_never_the_pin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``svoyak run``'s board (SDL's dummy driver): the start screen it draws has the
    panel's address and QR code, and the host's PIN is nowhere in what it draws."""
    import pygame

    import display.app
    from buzzer.app.board import run_with_board
    from buzzer.panel.app import create_app
    from buzzer.panel.demo import demo_header
    from buzzer.runtime.controller import Controller
    from buzzer.runtime.runtime import Runtime
    from display import scene as screens

    boards: list[Any] = []

    class Watched(display.app.BoardApp):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            boards.append(self)

    monkeypatch.setattr(display.app, "BoardApp", Watched)
    pin = "864209"
    controller = Controller.new({**demo_header("tv-modern"), "settle_ms": 0})
    runtime = Runtime(controller).start()
    create_app(runtime, pin)  # the game's panel and its PIN exist, as in `svoyak run`
    url = "http://192.168.1.23:8000/"
    drawn: list[Any] = []
    try:
        with socket.socket() as sock:
            original = Watched.frame

            def frame(self: Any) -> Any:
                dirty = original(self)
                drawn.append(self.scene())
                return dirty

            monkeypatch.setattr(Watched, "frame", frame)
            assert run_with_board(IdleServer(0.5), sock, runtime, url) == 0
    finally:
        runtime.stop()
    (board,) = boards
    assert board.start == screens.StartInfo(url=url, title="«Своя игра», ТВ, с 2008")
    assert drawn and all(screens.screen_kind(s) == screens.START for s in drawn)
    from display.renderer import Renderer

    renderer = Renderer(pygame.Surface((640, 360)))
    for scene in drawn:
        (widget,) = renderer._start(scene, 0)
        shown = json.dumps(widget.key, ensure_ascii=False)
        assert url in shown and pin not in shown
        assert pin not in json.dumps(dataclasses.asdict(scene.start), ensure_ascii=False)


def test_the_pin_is_printed_and_svoyak_pin_reads_it_back(tmp_path: Path) -> None:
    env = state_env(tmp_path)
    with served(*ARGS, env=env) as (url, out):
        pin = printed_pin(out)
        assert re.fullmatch(r"\d{6}", pin)
        assert any("на табло его нет" in line and "never on the board" in line for line in out)
        done = svoyak_pin(env)
        assert done.returncode == 0, done.stderr
        assert f"PIN: {pin}" in done.stdout and f"{url}/" in done.stdout
        folder = tmp_path / "state" / "svoyak"
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert stat.S_IMODE((folder / "panel.json").stat().st_mode) == 0o600
    assert not (tmp_path / "state" / "svoyak" / "panel.json").exists()  # gone with the game
    done = svoyak_pin(env)
    assert done.returncode == 2 and done.stdout == ""
    assert "игра не запущена" in done.stderr and "no game is running" in done.stderr


def test_a_fixed_pin_from_the_environment_and_a_stop_by_sigterm(tmp_path: Path) -> None:
    """$SVOYAK_PIN fixes the PIN; ``systemctl stop`` (SIGTERM) removes the file too."""
    env = state_env(tmp_path, SVOYAK_PIN="409600")
    proc = subprocess.Popen(
        [*CLI, "run", *ARGS], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or ()), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 30
        while not any(line.strip() == "PIN: 409600" for line in list(lines)):
            assert time.monotonic() < deadline and proc.poll() is None, lines
            time.sleep(0.05)
        assert "PIN: 409600" in svoyak_pin(env).stdout
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    assert not (tmp_path / "state" / "svoyak" / "panel.json").exists()


def test_the_pin_file_belongs_to_its_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from buzzer.appliance import hostpin

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    path = hostpin.publish("246813", ["http://10.0.0.2:8000/"])
    assert json.loads(path.read_text(encoding="utf-8"))["pin"] == "246813"
    assert hostpin.read()["urls"] == ["http://10.0.0.2:8000/"]
    # A newer game replaced the file: the older one leaving does not remove it.
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # a process id that is no longer running
    hostpin.publish("135791", [], pid=child.pid)
    hostpin.withdraw()
    assert path.exists()
    with pytest.raises(FileNotFoundError, match="no longer running"):
        hostpin.read()
    hostpin.withdraw(child.pid)
    assert not path.exists()
