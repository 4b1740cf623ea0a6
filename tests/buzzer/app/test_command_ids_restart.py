"""A retried tap after a restart is answered, not applied twice (issue 13).

The panel names each host command with an id and the gate applies an id once.
The id is journaled with the command's line, so a real `svoyak run` killed with
`kill -9` and started again with `--resume` still knows it: the tablet's retry
of a command that was journaled before the crash gets the first outcome (its
journal line, ``X-Svoyak-Repeat: 1``), and the score moves once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx

from buzzer.journal.store import JournalStore
from buzzer.panel.demo import demo_header
from buzzer.panel.gate import CommandGate
from buzzer.panel.models import CommandRequest
from buzzer.replay import replay_lines
from buzzer.runtime.controller import Controller
from buzzer.runtime.runtime import Runtime
from tests.buzzer.app.test_run_crash_resume import start as start_run
from tests.support.http import http_client

PIN = "864208"


def start(journal: Path, *more: str) -> tuple[subprocess.Popen[str], str]:
    """`svoyak run` on ``journal``, waited for until it prints its URL and PIN."""
    args = ["--no-mdns", "--port", "0", "--pin", PIN, "--journal", str(journal), *more]
    return start_run(args)


def login(url: str) -> httpx.Client:
    client = http_client(base_url=url, timeout=10)
    assert client.post("/api/login", json={"pin": PIN}).status_code == 200
    return client


def tap(client: httpx.Client, id: str, command: dict[str, Any]) -> httpx.Response:
    return client.post("/api/command", json={"id": id, "command": command})


def scores(client: httpx.Client) -> dict[str, int]:
    snapshot: dict[str, int] = client.get("/api/state").json()["snapshot"]["scores"]
    return snapshot


PLUS = {"type": "correction", "seat": 1, "delta": 100, "reason": "штраф снят"}
SELECT = {"type": "select"}


def test_a_retry_after_kill_9_and_resume_returns_the_first_outcome(tmp_path: Path) -> None:
    journal = tmp_path / "game.sqlite"
    first, url = start(journal)
    try:
        client = login(url)
        applied = tap(client, "tap-1", PLUS)
        assert applied.status_code == 200, applied.text
        line = applied.json()["line"]
        chosen = tap(client, "tap-2", SELECT)
        assert chosen.status_code == 200, chosen.text
        assert scores(client)["1"] == 100
    finally:
        os.kill(first.pid, signal.SIGKILL)  # the power goes before the tablet heard back
        first.wait()

    second, url = start(journal, "--resume")
    try:
        client = login(url)
        retried = tap(client, "tap-1", PLUS)  # the tablet retries what it never heard
        assert retried.status_code == 200, retried.text
        assert retried.headers.get("X-Svoyak-Repeat") == "1"
        assert retried.json()["line"] == line and retried.json()["id"] == "tap-1"
        again = tap(client, "tap-2", SELECT)
        assert again.status_code == 200 and again.headers.get("X-Svoyak-Repeat") == "1"
        assert again.json()["line"] == chosen.json()["line"]
        assert scores(client)["1"] == 100  # once, not twice
        # The same id for another command is refused, as before the restart.
        other = tap(client, "tap-1", {**PLUS, "delta": 50})
        assert other.status_code == 409, other.text
        # A new id is a new command.
        fresh = tap(client, "tap-3", PLUS)
        assert fresh.status_code == 200 and "X-Svoyak-Repeat" not in fresh.headers
        assert scores(client)["1"] == 200
    finally:
        second.send_signal(signal.SIGINT)
        second.wait(timeout=30)

    with JournalStore(journal) as store:
        lines = list(store.lines())
    ids = [json.loads(x).get("id") for x in lines[1:]]
    assert [i for i in ids if i is not None] == ["tap-1", "tap-2", "tap-3"]
    replay_lines(lines)  # the id is an extra field: the journal replays as any


def test_old_journals_without_ids_resume_and_ids_survive_a_resume_in_process(
    tmp_path: Path,
) -> None:
    """A journal from before ids (no ``id`` field) resumes as it did; one with ids gives
    them back to a new gate after ``Controller.resume``."""
    old = tmp_path / "old.sqlite"
    with JournalStore(old) as store:
        store.append_lines(
            [
                json.dumps({"type": "game", **demo_header()}, ensure_ascii=False),
                json.dumps({"t": 1.0, "type": "correction", "seat": 1, "delta": 5}),
                json.dumps({"t": 2.0, "type": "tick"}),
            ]
        )
        resumed = Controller.resume(store)
        assert resumed.journaled_command("anything") is None
        assert resumed.core.snapshot()["scores"]["1"] == 5

    new = tmp_path / "new.sqlite"
    with JournalStore(new) as store:
        controller = Controller.new({**demo_header(), "settle_ms": 0}, store)
        gate = CommandGate(Runtime(controller))
        request = CommandRequest.model_validate({"id": "t1", "command": PLUS})
        first = gate.execute(request)
        assert first.status == 200 and not first.repeat
        line = first.body["line"]
        assert json.loads(list(store.lines())[line - 1])["id"] == "t1"

        after = Controller.resume(store)
        gate = CommandGate(Runtime(after))
        again = gate.execute(request)
        assert again.status == 200 and again.repeat and again.body["line"] == line
        reused = gate.execute(
            CommandRequest.model_validate({"id": "t1", "command": {**PLUS, "delta": 1}})
        )
        assert reused.status == 409 and not reused.repeat
        assert sum('"t1"' in x for x in store.lines()) == 1
