"""``svoyak run --serial``: a missing or silent Pico stops the start (exit 2, a message
naming the port and what to check); a Pico that goes away mid-game is an alert on
the host's panel, in Russian, taken down when it is back. Real processes, the
project's Pico emulator on a pseudo-terminal, the real serial link."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from buzzer import words
from firmware_bridge.emulator import Emulator
from tests.buzzer.panel.test_panel_cli import served
from tests.support.http import http_client
from tests.support.paths import REPO

RUN = [sys.executable, "-m", "buzzer.cli", "run", "--headless", "--host", "127.0.0.1"]
ROOT = REPO


def refused(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    return subprocess.run(
        [*RUN, "--port", "0", "--no-journal", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_a_port_that_does_not_exist_is_an_error_at_start(tmp_path: Path) -> None:
    done = refused("--serial", "/dev/ttyNOPE", tmp_path=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""  # no banner, no PIN: the game did not start
    lines = done.stderr.splitlines()
    assert lines and all(line.startswith("svoyak run: ") for line in lines)
    ru, en = lines
    assert "Pico на /dev/ttyNOPE: порт не открывается (No such file or directory)" in ru
    assert "the Pico on /dev/ttyNOPE: cannot open the port (No such file or directory)" in en
    for what in ("USB", "dialout", "--serial"):
        assert what in ru and what in en


def test_a_port_with_no_pico_behind_it_is_an_error_at_start(tmp_path: Path) -> None:
    """A tty that opens but never answers the handshake (the wrong port, no firmware)."""
    master, slave = os.openpty()
    try:
        done = refused("--serial", os.ttyname(slave), tmp_path=tmp_path)
    finally:
        os.close(master)
        os.close(slave)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert "порт открылся, но Pico не ответил за 5 с" in done.stderr
    assert "the port opened but no Pico answered within 5 s" in done.stderr


def test_a_pico_with_firmware_of_another_protocol_version_is_named_as_such(
    tmp_path: Path,
) -> None:
    """A Pico still on the firmware of protocol 1 answers in whole frames of the wrong
    version: the message says to flash this release's firmware, not "no Pico"."""
    import threading

    from firmware_bridge import protocol as p

    master, slave = os.openpty()
    stop = threading.Event()

    def old_firmware() -> None:
        body = p.HEADER.pack(1, int(p.MsgType.HEARTBEAT), 0) + bytes(16)
        frame = p.cobs_encode(body + p.crc16(body).to_bytes(2, "big")) + p.DELIMITER
        while not stop.wait(0.01):
            try:
                os.write(master, frame)
            except OSError:
                return

    writer = threading.Thread(target=old_firmware, daemon=True)
    writer.start()
    try:
        done = refused("--serial", os.ttyname(slave), tmp_path=tmp_path)
    finally:
        stop.set()
        writer.join(2)
        os.close(master)
        os.close(slave)
    assert done.returncode == 2, done.stderr
    assert f"прошивка другой версии протокола (нужна {p.PROTOCOL_VERSION})" in done.stderr
    assert (
        f"its firmware speaks another protocol version (this host needs {p.PROTOCOL_VERSION})"
        in done.stderr
    )


def test_a_pico_with_fewer_buttons_than_players_is_an_error_at_start(tmp_path: Path) -> None:
    """Three players (the default) on a 2-button Pico: player 3 could never press."""
    with Emulator(buttons=2, lamps=2) as emulator:
        done = refused("--serial", emulator.path, tmp_path=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    ru, en = lines
    assert "у Pico 2 кнопок, а в игре 3 игроков: игрок 3 не сможет нажимать" in ru
    assert "the Pico has 2 buttons but the game has 3 players: player 3 could never" in en
    assert "BUTTON_PINS" in ru and "BUTTON_PINS" in en


def source_alerts(client: httpx.Client) -> list[dict[str, Any]]:
    alerts = client.get("/api/state").json()["panel"]["alerts"]
    return [a for a in alerts if a["kind"] == "source"]


def until(check: Any, what: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return found


def host_text(alert: dict[str, Any]) -> str:
    """The alert as the host's page words it in Russian (the catalogue's panel
    words, common.js alertText)."""
    key = "alert.source." + alert["why"] if alert.get("why") else "alert.source"
    text = words.table("panel", "ru")[key]
    for key in ("source", "detail", "ms"):
        text = text.replace("{" + key + "}", str(alert.get(key) or ""))
    return text


def test_a_pico_unplugged_mid_game_is_an_alert_until_it_is_back(tmp_path: Path) -> None:
    with Emulator(buttons=3, lamps=4) as emulator:
        args = (
            "--port",
            "0",
            "--pin",
            "314159",
            "--journal",
            str(tmp_path / "g.sqlite"),
            "--serial",
            emulator.path,
        )
        env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
        with served(*RUN[4:], *args, env=env) as (url, out):
            printed = "".join(out)
            assert f"Pico: {emulator.path} (EMULATOR" in printed
            assert "демо-игра" not in printed and "simulated buttons" not in printed
            client = http_client(base_url=url, timeout=10)
            assert client.post("/api/login", json={"pin": "314159"}).status_code == 200
            body = {"id": "s1", "command": {"type": "select", "theme": 1, "price": 100}}
            assert client.post("/api/command", json=body).status_code == 200
            assert source_alerts(client) == []

            emulator.unplug()  # the USB cable comes out mid-game
            (alert,) = until(lambda: source_alerts(client), "no alert for the lost Pico")
            assert alert["source"] == "pico" and alert["detail"]
            # The reason is the host's language, not the journal's technical English.
            assert alert["why"] == "silent" and alert["ms"] >= 100, alert
            text = host_text(alert)
            assert text.startswith(f"Кнопки «pico» молчат уже {alert['ms']} мс")
            assert "проверьте подключение" in text and "watermark" not in text
            # The game goes on without the Pico: the host's commands still work.
            body = {"id": "s2", "command": {"type": "reading_start"}}
            assert client.post("/api/command", json=body).status_code == 200

            emulator.replug()  # and back in
            until(lambda: source_alerts(client) == [], "the alert stayed after the Pico came back")
            # The Pico's presses count again.
            client.post("/api/command", json={"id": "s3", "command": {"type": "reading_end"}})
            until(lambda: client.get("/api/state").json()["snapshot"]["phase"] == "open", "open")
            emulator.press(1)  # button index 1: seat 2
            until(
                lambda: client.get("/api/state").json()["snapshot"]["answering"] == 2,
                "the press on the replugged Pico was not taken",
            )


def test_a_pico_on_another_protocol_ends_the_wait_at_once() -> None:
    """Waiting longer changes nothing for a Pico that speaks another protocol: the
    start does not wait out its timeout (an hour here) to say so."""
    import types

    from buzzer.app.inputs import OTHER_PROTOCOL_FRAMES, _wait_for_pico

    waits: list[float] = []

    class OldFirmwareLink:
        def wait_connected(self, timeout: float) -> bool:
            waits.append(timeout)
            return False

        def stats(self) -> types.SimpleNamespace:
            return types.SimpleNamespace(bad_versions=OTHER_PROTOCOL_FRAMES, frames=0)

    assert _wait_for_pico(OldFirmwareLink(), 3600.0) is False
    assert len(waits) == 1 and waits[0] <= 0.05
