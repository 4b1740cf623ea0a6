"""``svoyak doctor``'s Pico checks through the real command line and the game's own link.

The Pico is the project's fake (tests/support/fake_pico.py: the wire protocol
on a pty, saying the firmware identity and held buttons the test gives it),
named as udev names a real one (a ``/dev/serial/by-id`` link in the fake
machine's folder); once, the real firmware on the chip model. The rest of the
machine is faked (tests/support/doctor_host.py).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from buzzer.app import doctor
from buzzer.cli import main
from firmware_bridge import protocol
from firmware_bridge.shipped import shipped_identity
from tests.support.doctor_host import FakeMachine
from tests.support.fake_pico import FakePico

BY_ID_NAME = "usb-MicroPython_Board_in_FS_mode_e6614103e7452d2f-if00"
PICO_CHECKS = ("pico", "firmware", "pico_buttons", "pico_lamps", "clock")
#: How far behind the wall clock a paced chip may fall during the check before
#: its clock fit is this machine's load rather than the firmware's (ChipModel.starved).
CLOCK_LAG_TOLERANCE_NS = 10_000_000


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeMachine:
    fake = FakeMachine(tmp_path)
    monkeypatch.setattr(doctor, "system_host", fake.host)
    return fake


@pytest.fixture
def this_release() -> Iterator[FakePico]:
    with FakePico(firmware_id=shipped_identity()) as pico:
        yield pico


def plug(machine: FakeMachine, port: str) -> str:
    """The Pico's stable name, as udev makes it: a link under /dev/serial/by-id."""
    machine.by_id.mkdir(parents=True, exist_ok=True)
    link = machine.by_id / BY_ID_NAME
    link.symlink_to(port)
    return str(link)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    status = main(["doctor", "--json", "--lang", "en", "--clock-s", "1", *args])
    rows = json.loads(capsys.readouterr().out)
    return status, {row["check"]: row for row in rows}


def test_a_missing_pico_fails_and_says_what_to_plug_in(
    machine: FakeMachine, capsys: pytest.CaptureFixture[str]
) -> None:
    status, rows = run(capsys, "--serial", str(machine.by_id / BY_ID_NAME))
    assert status == 1
    assert rows["pico"]["status"] == "fail"
    assert rows["pico"]["found"].startswith(f"no port {machine.by_id / BY_ID_NAME}")
    assert "plug the Pico in" in rows["pico"]["fix"]
    for check in PICO_CHECKS[1:]:
        assert rows[check]["status"] == "skip"
    # The Pico path: no GPIO pin map is no failure, and dialout is what it needs.
    assert rows["pinmap"]["status"] == "skip"
    assert rows["groups"]["data"]["needed"] == ["dialout"]


def test_no_pico_at_all_on_the_gpio_path_is_skipped(
    machine: FakeMachine, capsys: pytest.CaptureFixture[str]
) -> None:
    status, rows = run(capsys, "--simulate")
    assert status == 0
    assert [rows[check]["status"] for check in PICO_CHECKS] == ["skip"] * 5
    assert "none under /dev/serial/by-id" in rows["pico"]["found"]


def test_a_pico_with_another_firmware_fails_with_the_install_hint(
    machine: FakeMachine, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakePico() as pico:  # its HELLO says an identity of zeros: not this release's
        status, rows = run(capsys, "--serial", plug(machine, pico.path))
    assert status == 1
    firmware = rows["firmware"]
    assert firmware["status"] == "fail"
    assert firmware["data"]["firmware_id"] == "0000000000000000"
    assert firmware["data"]["expected"] == shipped_identity().hex()
    assert "the Pico runs another firmware" in firmware["found"]
    assert "svoyak pico install" in firmware["fix"]
    assert rows["pico"]["status"] == "pass"
    for check in ("pico_buttons", "pico_lamps", "clock"):
        assert rows[check]["status"] == "skip"


def test_a_pico_with_this_releases_firmware_passes(
    machine: FakeMachine, this_release: FakePico, capsys: pytest.CaptureFixture[str]
) -> None:
    status, rows = run(capsys, "--serial", plug(machine, this_release.path))
    assert {check: rows[check]["status"] for check in PICO_CHECKS} == dict.fromkeys(
        PICO_CHECKS, "pass"
    ), rows
    assert status == 0
    assert rows["pico"]["data"]["device"] == this_release.path
    assert rows["firmware"]["data"]["firmware_id"] == shipped_identity().hex()
    # The lamps: every lamp off, sent to the Pico, which acknowledged it.
    lamps = [m for _, m in this_release.received if isinstance(m, protocol.Lamp)]
    assert lamps and lamps[0] == protocol.Lamp(protocol.Lamp.ALL, protocol.LampMode.OFF)
    clock = rows["clock"]["data"]
    assert clock["samples"] > 0 and clock["pongs"] > 0 and clock["heartbeats"] > 100
    assert 0 < clock["uncertainty_us"] <= clock["pass_us"]
    assert "uncertainty" in rows["clock"]["found"]


def test_buttons_held_at_the_picos_power_up_fail(
    machine: FakeMachine, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakePico(firmware_id=shipped_identity(), held_at_boot=0b100) as pico:
        status, rows = run(capsys, "--serial", plug(machine, pico.path))
    assert status == 1
    buttons = rows["pico_buttons"]
    assert buttons["status"] == "fail"
    assert buttons["data"]["held_at_boot"] == [3]
    assert "held at the Pico's power-up: 3 (GP4)" in buttons["found"]


def test_a_button_down_now_fails_and_the_doctor_acknowledges_no_press(
    machine: FakeMachine, this_release: FakePico, capsys: pytest.CaptureFixture[str]
) -> None:
    this_release.press(1)  # seat 2, pressed before the doctor came, still down
    status, rows = run(capsys, "--serial", plug(machine, this_release.path))
    assert status == 1
    assert rows["pico_buttons"]["data"]["down"] == [2]
    assert "down now: 2 (GP3)" in rows["pico_buttons"]["found"]
    # The press stays in the Pico's ring, for the game: no ACK covered it.
    assert this_release.unacked() == [1]
    assert all(event < 1 for _, event in this_release.acks())


def test_a_pico_plugged_in_but_not_in_the_config_is_checked_and_named(
    machine: FakeMachine, this_release: FakePico, capsys: pytest.CaptureFixture[str]
) -> None:
    port = plug(machine, this_release.path)
    status, rows = run(capsys)  # no --serial, no config: found under /dev/serial/by-id
    assert rows["pico"]["status"] == "warn"
    assert "the config does not name it" in rows["pico"]["found"]
    assert f'[hardware] serial = "{port}"' in rows["pico"]["fix"]
    assert rows["firmware"]["status"] == "pass"
    # ...and with no pin map either, the game as configured has no buttons.
    assert rows["pinmap"]["status"] == "fail"
    assert status == 1


def test_a_ttyacm_name_is_told_its_stable_name(
    machine: FakeMachine, this_release: FakePico, capsys: pytest.CaptureFixture[str]
) -> None:
    stable = plug(machine, this_release.path)
    status, rows = run(capsys, "--serial", this_release.path)
    assert rows["pico"]["status"] == "warn"
    assert rows["pico"]["data"]["stable"] == stable
    assert stable in rows["pico"]["fix"]
    assert status == 0  # a warning: the game would still play


@pytest.mark.serial  # the chip model's paced CPU: scripts/test's sequential phase
def test_the_real_firmware_on_the_chip_model(
    machine: FakeMachine, capsys: pytest.CaptureFixture[str]
) -> None:
    """The one slow test: main.py on MicroPython in the emulated RP2040, paced to the
    wall clock as a Pico's crystal is, its USB serial port on a pty."""
    from firmware_bridge.chip import ChipModel

    chip = ChipModel(pace=True)
    try:
        chip.start()
        chip.wait_firmware(60)
        port = plug(machine, chip.open_pty())
        checked_from = time.monotonic_ns()
        status, rows = run(capsys, "--serial", port, "--clock-s", "3")
        starved = chip.starved(checked_from, CLOCK_LAG_TOLERANCE_NS)
    finally:
        chip.stop()
    statuses = {check: rows[check]["status"] for check in PICO_CHECKS}
    if starved is not None:
        # This machine starved the chip, as the chip model measured: a check that
        # talks to it may fail, and then it must say what it waited for, not crash.
        timed = ("within", "uncertainty")
        for check, row in rows.items():
            if check in PICO_CHECKS and row["status"] == "fail":
                assert any(word in row["found"] for word in timed), (starved, row)
        assert status == (1 if "fail" in statuses.values() else 0)
        return
    assert statuses["pico"] == "pass"
    assert statuses["firmware"] == "pass", rows["firmware"]
    assert rows["firmware"]["data"]["firmware_id"] == shipped_identity().hex()
    assert statuses["pico_buttons"] == "pass"
    assert statuses["pico_lamps"] == "pass", rows["pico_lamps"]
    # A paced chip's CPU is slower than a Pico's: its fit may be a warning, never a failure.
    assert statuses["clock"] in ("pass", "warn"), rows["clock"]
    assert rows["clock"]["data"]["samples"] > 0
    assert status == 0


class DeafPico(FakePico):
    """This release's Pico that ignores one kind of the host's frames."""

    def __init__(self, deaf_to: type, **kwargs: Any) -> None:
        super().__init__(firmware_id=shipped_identity(), **kwargs)
        self.deaf_to = deaf_to

    def _on_host(self, frame: protocol.Frame) -> None:
        if not isinstance(frame.message, self.deaf_to):
            super()._on_host(frame)


def test_lamps_the_pico_does_not_acknowledge_fail(
    machine: FakeMachine, capsys: pytest.CaptureFixture[str]
) -> None:
    with DeafPico(protocol.Lamp) as pico:
        status, rows = run(capsys, "--serial", plug(machine, pico.path))
    assert status == 1
    assert rows["pico_lamps"]["status"] == "fail"
    assert "did not acknowledge the lamps' all-off" in rows["pico_lamps"]["found"]
    assert rows["clock"]["status"] == "pass"


def test_a_pico_that_answers_no_ping_has_no_clock_fit(
    machine: FakeMachine, capsys: pytest.CaptureFixture[str]
) -> None:
    with DeafPico(protocol.Ping) as pico:
        status, rows = run(capsys, "--serial", plug(machine, pico.path), "--pico-timeout", "1")
    assert status == 1
    assert rows["firmware"]["status"] == "pass"  # its HELLO said this release's identity
    assert rows["clock"]["status"] == "fail"
    assert "answered no PING" in rows["clock"]["found"]
    assert rows["pico_lamps"]["status"] == "skip"


def test_a_config_this_user_cannot_read_leaves_a_found_pico_unjudged(
    machine: FakeMachine,
    this_release: FakePico,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The appliance's svoyak.toml is 640 root:svoyak (it holds the PIN): run as the
    technician, the doctor cannot tell whether it names the Pico, and says so."""
    config = machine.root / "etc" / "svoyak" / "svoyak.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[hardware]\nserial = "/dev/serial/by-id/x"\n')
    opened = Path.open

    def guarded(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self == config:
            raise PermissionError(13, "Permission denied")
        return opened(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", guarded)
    plug(machine, this_release.path)
    status, rows = run(capsys)
    assert rows["config"]["status"] == "warn"
    assert rows["pico"]["status"] == "pass"
    assert "whether the config names it cannot be read" in rows["pico"]["found"]
    assert rows["pinmap"]["status"] == "skip"
    assert status == 0
