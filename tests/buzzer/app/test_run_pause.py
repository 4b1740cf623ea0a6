"""A-G-D1 through a real ``svoyak run --headless``: the host's pause stops the game.

The panel on 127.0.0.1, driven by HTTP (``/api/command``, ``/api/simulate/press``)
as a host's tablet would: a question's press window is open (tv-modern: 3 s),
the host pauses for longer than the whole window, a press during the pause
is journaled and ignored as ``paused``; after ``resume`` the window is still
open and the first press gets the floor. Then ``svoyak replay`` of the journal
the run wrote makes the same decisions.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.http import http_client
from tests.support.live_run import PIN, rivers_package, served, svoyak

WINDOW_S = 3.0  # tv-modern's press window (TV-M-A3)
PACKAGE = rivers_package("Пауза", 2)


class Host:
    """The host's tablet: commands with ids, presses from the panel's simulation."""

    def __init__(self, url: str) -> None:
        self.client = http_client(base_url=url, timeout=10)
        assert self.client.post("/api/login", json={"pin": PIN}).status_code == 200
        self.count = 0
        #: every decision the live game answered with, in order
        self.decided: list[dict[str, Any]] = []

    def command(self, **command: Any) -> dict[str, Any]:
        self.count += 1
        body = {"id": f"{command['type']}-{self.count}", "command": command}
        response = self.client.post("/api/command", json=body)
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        self.decided.extend(answer["decisions"])
        return answer

    def press(self, seat: int) -> dict[str, Any]:
        response = self.client.post("/api/simulate/press", json={"seat": seat})
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        self.decided.extend(answer["decisions"])
        return answer

    def state(self) -> dict[str, Any]:
        body: dict[str, Any] = self.client.get("/api/state").json()
        return body

    def settled(self, check: Any) -> dict[str, Any]:
        deadline = time.monotonic() + 20
        while True:
            snapshot: dict[str, Any] = self.state()["snapshot"]
            if check(snapshot) or time.monotonic() > deadline:
                return snapshot
            time.sleep(0.02)


def test_A_G_D1_a_window_open_at_the_pause_outlives_a_longer_pause_live_and_in_replay(
    tmp_path: Path,
) -> None:
    package = tmp_path / "pause.json"
    package.write_text(json.dumps(PACKAGE, ensure_ascii=False), encoding="utf-8")
    journal = tmp_path / "game.sqlite"
    args = ("--journal", str(journal), "--rules", "tv-modern", "--package", str(package),
            "--players", "Аня,Борис,Вера")  # fmt: skip
    with served(*args) as run:
        host = Host(run.url)
        host.command(type="select", theme=1, price=100)
        host.command(type="reading_start")
        host.command(type="reading_end")
        opened = host.settled(lambda s: s["phase"] == "open")
        closes_at = opened["closes_at"]
        paused = host.command(type="pause")
        assert paused["paused"] is True
        state = host.state()
        assert state["panel"]["paused"] is True and state["snapshot"]["paused_at"] is not None
        paused_at = state["snapshot"]["paused_at"]
        left = closes_at - paused_at
        assert 0 < left < WINDOW_S * 1e9
        # A player presses during the pause: journaled, ignored as paused.
        host.press(3)
        time.sleep(WINDOW_S + 1.0)  # longer than the whole window
        during = host.settled(lambda s: True)
        assert during["phase"] == "open" and during["answering"] is None
        assert during["closes_at"] == closes_at  # frozen, not run out
        resumed = host.command(type="resume")
        assert resumed["paused"] is False
        after = host.settled(lambda s: s["paused_at"] is None)
        assert after["phase"] == "open"
        assert after["closes_at"] - after["now"] > left - 0.5e9  # about what was left
        # The first press after the resume gets the floor.
        host.press(2)
        answering = host.settled(lambda s: s["answering"] is not None)
        assert answering["answering"] == 2 and answering["phase"] == "answering"
        host.command(type="judge", verdict="correct")
        live = host.settled(lambda s: s["stage"] == "board")
        assert live["scores"] == {"1": 0, "2": 100, "3": 0}
        live_decided = list(host.decided)
    # svoyak replay of the journal the run wrote: the same decisions.
    done = svoyak("replay", str(journal))
    assert done.returncode == 0, done.stderr
    replayed = [json.loads(line) for line in done.stdout.splitlines()]
    assert replayed[-1]["scores"] == {"1": 0, "2": 100, "3": 0}
    kinds = ("paused", "resumed", "ignored", "recognized", "window_opened", "window_closed")
    in_replay = [o for o in replayed if o["type"] in kinds]
    assert [o for o in live_decided if o["type"] in kinds] == in_replay
    assert [(o["type"], o.get("seat"), o.get("reason")) for o in in_replay] == [
        ("window_opened", None, None),
        ("paused", None, None),
        ("ignored", 3, "paused"),
        ("resumed", None, None),
        ("recognized", 2, None),
    ]
    resumed_line = next(o for o in replayed if o["type"] == "resumed")
    assert resumed_line["paused_s"] > WINDOW_S
    exported = tmp_path / "game.jsonl"
    subprocess.run(
        [sys.executable, "-m", "buzzer.cli", "journal", "export", str(journal), str(exported)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    types = [json.loads(line)["type"] for line in exported.read_text("utf-8").splitlines()]
    assert types.count("pause") == 1 and types.count("resume") == 1
    assert types.index("pause") < types.index("press") < types.index("resume")
