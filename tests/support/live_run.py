"""``svoyak run --headless`` in a process of its own, and a host's tablet for it.

The live path as a user starts it: the real command line, a real uvicorn on
127.0.0.1, a real journal file. :func:`served` yields once the PIN is printed
and keeps every line the process prints (stdout and stderr) for the test to
read — a traceback there is a defect even when every answer was right.
"""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.support.http import http_client

PIN = "864208"
RUN = [sys.executable, "-m", "buzzer.cli", "run", "--headless", "--host", "127.0.0.1"]


@dataclass
class LiveRun:
    """A running ``svoyak run``: its panel's URL and everything it printed so far."""

    url: str
    proc: subprocess.Popen[str]
    printed: list[str] = field(default_factory=list)
    #: The host's PIN: the one given, or the one ``svoyak run`` made up and printed.
    pin: str = ""

    def output(self) -> str:
        return "".join(self.printed)


@contextmanager
def served(
    *args: str,
    prefix: Sequence[str] = (),
    pin: str | None = PIN,
    env: Mapping[str, str] | None = None,
) -> Iterator[LiveRun]:
    """``svoyak run --headless`` on a free port (``prefix``: run it under, e.g. nsenter).

    ``pin`` None: no ``--pin``, the one ``svoyak run`` makes up is read from its output.
    """
    given = () if pin is None else ("--pin", pin)
    proc = subprocess.Popen(
        [*prefix, *RUN, "--port", "0", *given, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=None if env is None else dict(env),
    )
    run = LiveRun("", proc, pin=pin or "")
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in proc.stdout or ():
            run.printed.append(line)
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    try:
        while True:
            try:
                line = lines.get(timeout=30)
            except queue.Empty:
                raise AssertionError(f"svoyak run did not start:\n{run.output()}") from None
            found = re.search(r"http://127\.0\.0\.1:\d+", line)
            if found and not run.url:
                run.url = found.group(0)
            if line.strip().startswith("PIN:"):
                run.pin = run.pin or line.split(":", 1)[1].strip()
                break
        yield run
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Host:
    """The host's tablet: commands with ids, presses from the panel's simulation.

    ``command`` and ``press`` return the HTTP response: the test says which
    status it expects.
    """

    def __init__(self, url: str, pin: str = PIN) -> None:
        self.client = http_client(base_url=url, timeout=10)
        assert self.client.post("/api/login", json={"pin": pin}).status_code == 200
        self.count = 0

    def command(self, **command: Any) -> httpx.Response:
        self.count += 1
        body = {"id": f"{command['type']}-{self.count}", "command": command}
        return self.client.post("/api/command", json=body)

    def press(self, seat: int) -> httpx.Response:
        return self.client.post("/api/simulate/press", json={"seat": seat})

    def state(self) -> dict[str, Any]:
        body: dict[str, Any] = self.client.get("/api/state").json()
        return body

    def settled(self, check: Any, timeout: float = 20) -> dict[str, Any]:
        """The state once ``check(state)`` holds (or the last one after ``timeout``)."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.state()
            if check(state) or time.monotonic() > deadline:
                return state
            time.sleep(0.02)


class IdleServer:
    """uvicorn's place in ``run_with_board``: serves nothing for a moment, then stops."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.should_exit = False

    def run(self, sockets: Any = None) -> None:
        deadline = time.monotonic() + self.seconds
        while not self.should_exit and time.monotonic() < deadline:
            time.sleep(0.02)


#: The questions of :func:`rivers_package`, in board order.
RIVERS = (
    {"price": 100, "text": "Самая длинная река Европы?", "answer": "Волга"},
    {"price": 200, "text": "На какой реке стоит Омск?", "answer": "Иртыш"},
)


def rivers_package(name: str, questions: int = 2) -> dict[str, Any]:
    """A package of one round, one theme «Реки», ``questions`` questions (1 or 2): a
    game the live tests play to its end in a few commands."""
    theme = {"name": "Реки", "questions": list(RIVERS[:questions])}
    return {"name": name, "rounds": [{"name": "Раунд", "themes": [theme]}]}


def svoyak(*args: str, prefix: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    """A ``svoyak`` command as a user types it (``prefix``: run it under, e.g. nsenter)."""
    return subprocess.run(
        [*prefix, sys.executable, "-m", "buzzer.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
