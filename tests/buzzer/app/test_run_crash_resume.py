"""`svoyak run --headless` as a real process: a game played through button presses
(on the Pico emulator, over a pseudo-terminal, through the real serial link) and
the panel's API, `kill -9` mid-game, `--resume`, the game finishes, and the
exported journal replays to the same result (issue 7's end-to-end test)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from buzzer.replay import replay_lines
from firmware_bridge.emulator import Emulator
from tests.support.http import http_client

RUN = [sys.executable, "-m", "buzzer.cli", "run", "--headless", "--host", "127.0.0.1"]
PIN = "864208"
PACKAGE = {
    "name": "Мини-пакет",
    "rounds": [
        {
            "name": "Раунд",
            "themes": [
                {
                    "name": "Реки",
                    "questions": [
                        {"price": 10, "text": "Самая длинная река Европы?", "answer": "Волга"},
                        {"price": 20, "text": "На какой реке стоит Омск?", "answer": "Иртыш"},
                        {"price": 30, "text": "Куда впадает Кама?", "answer": "В Волгу"},
                    ],
                }
            ],
        }
    ],
}


def start(args: list[str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [*RUN, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert proc.stdout is not None
    url = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        found = re.search(r"http://127\.0\.0\.1:\d+", line)
        url = url or (found.group(0) if found else None)
        if line.strip().startswith("PIN:"):
            assert url is not None
            return proc, url
    proc.kill()
    raise AssertionError("svoyak run did not print its URL and PIN")


def settled(client: httpx.Client, check: Any) -> dict[str, Any]:
    """The state once ``check(snapshot)`` holds (decisions wait for the settle window)."""
    deadline = time.monotonic() + 20
    while True:
        snapshot = client.get("/api/state").json()["snapshot"]
        if check(snapshot) or time.monotonic() > deadline:
            return snapshot
        time.sleep(0.02)


class Host:
    def __init__(self, url: str, emulator: Any) -> None:
        self.emulator = emulator
        self.client = http_client(base_url=url, timeout=10)
        assert self.client.post("/api/login", json={"pin": PIN}).status_code == 200
        self.count = 0

    def command(self, **command: Any) -> None:
        self.count += 1
        body = {"id": f"{command['type']}-{self.count}-{time.monotonic_ns()}", "command": command}
        response = self.client.post("/api/command", json=body)
        assert response.status_code == 200, response.text

    def press(self, seat: int) -> None:
        self.emulator.press(seat - 1)  # the Pico's button index: seat - 1

    def play(self, price: int, seat: int, verdict: str) -> dict[str, Any]:
        self.command(type="select", theme=1, price=price)
        self.command(type="reading_start")
        self.command(type="reading_end")
        settled(self.client, lambda s: s["phase"] == "open")
        self.press(seat)
        settled(self.client, lambda s: s["answering"] == seat)
        self.command(type="judge", verdict=verdict)
        return settled(self.client, lambda s: s["stage"] in ("board", "over"))


def test_kill_9_mid_game_then_resume_finishes_and_the_journal_replays(tmp_path: Path) -> None:
    package = tmp_path / "mini.json"
    package.write_text(json.dumps(PACKAGE, ensure_ascii=False), encoding="utf-8")
    journal = tmp_path / "game.sqlite"
    emulator = Emulator().start()  # the Pico, on a pseudo-terminal
    common = ["--journal", str(journal), "--pin", PIN, "--port", "0", "--serial", emulator.path]
    first, url = start(
        [
            *common,
            "--rules",
            "sport-no-false-start",
            "--package",
            str(package),
            "--players",
            "Аня,Борис,Вера",
        ]
    )
    try:
        host = Host(url, emulator)
        state = host.play(10, 2, "correct")
        assert state["scores"] == {"1": 0, "2": 10, "3": 0}
        host.command(type="select", theme=1, price=20)  # mid-question...
        host.command(type="reading_start")
        settled(host.client, lambda s: s["phase"] == "reading")
    finally:
        os.kill(first.pid, signal.SIGKILL)  # ...the power goes
        first.wait()

    second, url = start([*common, "--resume"])
    try:
        host = Host(url, emulator)
        state = host.client.get("/api/state").json()["snapshot"]
        assert state["scores"] == {"1": 0, "2": 10, "3": 0}
        assert state["cell"] == [1, 20] and state["phase"] == "reading"
        host.command(type="reading_end")
        settled(host.client, lambda s: s["phase"] == "open")
        host.press(3)
        settled(host.client, lambda s: s["answering"] == 3)
        host.command(type="judge", verdict="wrong")
        settled(host.client, lambda s: s["scores"]["3"] == -20)
        host.command(type="timeout")
        final = host.play(30, 1, "correct")
        assert final["over"] is True
        assert final["scores"] == {"1": 30, "2": 10, "3": -20}
    finally:
        second.send_signal(signal.SIGINT)
        second.wait(timeout=15)
        emulator.stop()

    exported = tmp_path / "game.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "buzzer.cli", "journal", "export", str(journal), str(exported)],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(replay_lines(exported.read_text(encoding="utf-8").splitlines())[-1])
    assert result["scores"] == {"1": 30, "2": 10, "3": -20}
    assert result["winner"] == 1
