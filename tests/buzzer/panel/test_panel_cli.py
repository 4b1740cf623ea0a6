"""``svoyak run --headless`` as a real process: it prints what it plays, the URL and
the PIN, serves the demo game, and resumes the game from its journal when started
again. (The LAN address and mDNS: test_run_network.py; the PIN kept off the board:
test_run_pin.py; the Pico's errors and alerts: test_run_pico_link.py.)"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.http import http_client
from tests.support.paths import REPO

RUN = [sys.executable, "-m", "buzzer.cli", "run"]


@contextmanager
def served(*args: str, env: dict[str, str] | None = None) -> Iterator[tuple[str, list[str]]]:
    """Start ``svoyak run``; yield its panel URL and what it printed, then stop it.

    The list grows with what the process prints after the start (the mDNS name).
    """
    proc = subprocess.Popen(
        [*RUN, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    printed: list[str] = []
    started = threading.Event()

    def pump() -> None:
        for line in proc.stdout or ():
            printed.append(line)
            if line.strip().startswith("PIN:"):
                started.set()
        started.set()  # it stopped before its PIN: the assertion below shows why

    threading.Thread(target=pump, daemon=True).start()
    try:
        assert started.wait(30), "svoyak run did not start:\n" + "".join(printed)
        assert any(line.strip().startswith("PIN:") for line in printed), "".join(printed)
        found = (re.search(r"http://\S+?/(?=\s|$)", line) for line in printed)
        url = next(m.group(0) for m in found if m)
        yield url.rstrip("/"), printed
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_run_headless_serves_the_demo_game_and_resumes_its_journal(tmp_path: Path) -> None:
    journal = tmp_path / "game.sqlite"
    args = ("--headless", "--host", "127.0.0.1", "--port", "0", "--journal", str(journal))
    with served(*args, "--players", "Аня,Борис", "--rules", "championship-2003") as (url, out):
        assert "PIN: 246813" not in "".join(out)
        pin = next(line.split(":")[1].strip() for line in out if line.strip().startswith("PIN:"))
        assert re.fullmatch(r"\d{6}", pin)
        state = httpx.get(url + "/api/state", timeout=10).json()["snapshot"]
        assert state["players"] == ["Аня", "Борис"] and state["rules"] == "championship-2003"
        client = http_client(base_url=url, timeout=10)
        assert client.post("/api/login", json={"pin": pin}).status_code == 200
        body = {"id": "c1", "command": {"type": "select", "theme": 1, "price": 10}}
        assert client.post("/api/command", json=body).status_code == 200
        assert httpx.get(url + "/view", timeout=10).status_code == 200
    with served(*args, "--pin", "246813") as (url, out):
        assert any("resumed" in line for line in out)
        assert any("PIN: 246813" in line for line in out)
        state = httpx.get(url + "/api/state", timeout=10).json()["snapshot"]
        assert state["cell"] == [1, 10] and state["players"] == ["Аня", "Борис"]


def test_the_banner_says_what_is_really_played(tmp_path: Path) -> None:
    """The package by name and file, the rules, the players, every input source
    (here GPIO on mock pins): never the old «демо-игра, имитация кнопок»."""
    package = tmp_path / "reki.json"
    package.write_text(
        json.dumps(
            {
                "name": "Реки России",
                "rounds": [
                    {
                        "name": "Раунд",
                        "themes": [
                            {
                                "name": "Реки",
                                "questions": [
                                    {
                                        "price": 10,
                                        "text": "Длиннейшая река Европы?",
                                        "answer": "Волга",
                                    }
                                ],
                            }
                        ],
                    }
                ],
            },
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    pins = REPO / "hardware" / "pinmap.example.toml"
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}
    args = ("--headless", "--host", "127.0.0.1", "--port", "0", "--no-journal")
    more = ("--package", str(package), "--rules", "championship-2003", "--players", "Ира,Олег")
    with served(*args, *more, "--pins", str(pins), env=env) as (_url, out):
        printed = "".join(out)
    assert "демо-игра" not in printed and "demo game" not in printed
    assert f"пакет / package: «Реки России» — {package.resolve()}" in printed
    assert "правила / rules: championship-2003 — " in printed
    # the championship plays a final, this package has none: said before the game
    assert "внимание: в пакете нет финала" in printed and "the package has no final" in printed
    assert "игроки / players: Ира, Олег" in printed
    assert f"GPIO: {pins} — кнопок игроков / players' buttons: 4" in printed
    # Real buttons: no simulated ones (/api/simulate/* is not served).
    assert "имитация нажатий с панели ведущего" not in printed
    assert "клавиатура" not in printed  # --headless: no board window, no keyboard


def test_run_refuses_what_it_cannot_do() -> None:
    for args, message in (
        (["--headless", "--rules", "nope"], "unknown rules id"),
        (["--headless", "--pin", "12"], "has 2 digits, too few to be safe; it must have 6 digits"),
        (["--headless", "--players", "А,,Б"], "--players"),
    ):
        done = subprocess.run([*RUN, *args], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr and done.stdout == ""


def test_run_with_the_board_window_serves_the_panel_and_draws(tmp_path: Path) -> None:
    """The full ``svoyak run`` on a laptop: the board window (SDL's dummy driver here),
    the panel beside it; a command on the panel reaches the game."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    journal = tmp_path / "g.sqlite"
    args = ("--host", "127.0.0.1", "--port", "0", "--journal", str(journal), "--pin", "135791")
    with served(*args, env=env) as (url, _printed):
        client = http_client(base_url=url, timeout=10)
        assert client.post("/api/login", json={"pin": "135791"}).status_code == 200
        body = {"id": "w1", "command": {"type": "select", "theme": 1, "price": 100}}
        assert client.post("/api/command", json=body).status_code == 200
        # The select is decided once the settle window has passed (the ticker's work).
        deadline = time.monotonic() + 20
        state = client.get("/api/state").json()["snapshot"]
        while state["cell"] is None and time.monotonic() < deadline:
            time.sleep(0.02)
            state = client.get("/api/state").json()["snapshot"]
        assert state["cell"] == [1, 100]


def test_run_takes_its_options_from_a_config_file(tmp_path: Path) -> None:
    config = tmp_path / "svoyak.toml"
    config.write_text(
        '[game]\nrules = "championship-2003"\nplayers = ["Ира", "Олег"]\n'
        '[panel]\npin = "975319"\nhost = "127.0.0.1"\nport = 0\n'
        f'[journal]\npath = "{tmp_path / "g.sqlite"}"\n',
        encoding="utf-8",
    )
    with served("--headless", "--config", str(config)) as (url, out):
        assert any("PIN: 975319" in line for line in out)
        state = httpx.get(url + "/api/state", timeout=10).json()["snapshot"]
        assert state["rules"] == "championship-2003" and state["players"] == ["Ира", "Олег"]
    assert (tmp_path / "g.sqlite").exists()
    bad = tmp_path / "bad.toml"
    bad.write_text("[game]\ncolour = 'red'\n", encoding="utf-8")
    done = subprocess.run(
        [*RUN, "--headless", "--config", str(bad)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "unknown key [game] colour" in done.stderr


def test_the_host_sees_the_question_and_its_answer_the_viewer_does_not(tmp_path: Path) -> None:
    """With a question package, the host's panel gets the question's text and answer;
    the viewer's page (a player's phone) never gets the answer."""
    import asyncio

    import websockets

    journal = tmp_path / "g.sqlite"
    args = (
        "--headless",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--journal",
        str(journal),
        "--package",
        "svoyak:demo",
        "--pin",
        "258025",
    )
    with served(*args) as (url, _printed):
        client = http_client(base_url=url, timeout=10)
        assert client.post("/api/login", json={"pin": "258025"}).status_code == 200
        body = {"id": "q1", "command": {"type": "select", "theme": 1, "price": 100}}
        assert client.post("/api/command", json=body).status_code == 200
        deadline = time.monotonic() + 20
        while client.get("/api/state").json()["snapshot"]["cell"] is None:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        cookie = "; ".join(f"{k}={v}" for k, v in client.cookies.items())

        async def first_state(headers: dict[str, str]) -> dict[str, Any]:
            ws_url = url.replace("http://", "ws://") + "/ws"
            async with websockets.connect(ws_url, additional_headers=headers) as ws:
                return json.loads(await asyncio.wait_for(ws.recv(), 10))

        host = asyncio.run(first_state({"Cookie": cookie}))
        viewer = asyncio.run(first_state({}))
    question = host["panel"]["question"]
    assert question["text"] and question["answer"]
    assert "question" not in viewer["panel"]
    assert question["answer"][0] not in json.dumps(viewer, ensure_ascii=False)


def test_a_stream_of_presses_never_hangs_the_server(tmp_path: Path) -> None:
    """Regression: the host panel's message once looked the question up through the
    controller while holding the hub's lock, as the ticker held the controller's lock
    and waited for the hub: a few hundred presses hung the server."""
    args = (
        "--headless",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--pin",
        "147036",
        "--journal",
        str(tmp_path / "g.sqlite"),
    )
    with served(*args) as (url, _printed):
        client = http_client(base_url=url, timeout=10)
        assert client.post("/api/login", json={"pin": "147036"}).status_code == 200
        for i in range(400):
            response = client.post("/api/simulate/press", json={"seat": 1 + i % 3})
            assert response.status_code == 200, (i, response.text)
        assert client.get("/api/state").status_code == 200


@pytest.mark.parametrize(
    ("given", "port", "host"),
    [
        ([], 9001, "127.0.0.1"),  # the file fills what the command line left unset
        (["--port", "8000", "--host", "0.0.0.0"], 8000, "0.0.0.0"),  # given = the default: wins
        (["--port", "7000"], 7000, "127.0.0.1"),
    ],
)
def test_an_option_on_the_command_line_beats_the_config_file_even_at_its_default(
    tmp_path: Path, given: list[str], port: int, host: str
) -> None:
    from buzzer.app.run_command import _apply_config, _apply_defaults
    from buzzer.cli import build_parser

    config = tmp_path / "svoyak.toml"
    config.write_text('[panel]\nport = 9001\nhost = "127.0.0.1"\n', encoding="utf-8")
    args = build_parser().parse_args(["run", *given, "--config", str(config)])
    _apply_config(args, config)
    _apply_defaults(args)
    assert (args.port, args.host) == (port, host)
    # With no file at all, the defaults.
    bare = build_parser().parse_args(["run"])
    _apply_defaults(bare)
    assert (bare.port, bare.host) == (8000, "0.0.0.0")
