"""``svoyak doctor``'s checks of the machine and the GPIO, each on a faked machine.

Every probe comes through ``Host`` (tests/support/doctor_host.py): gpiozero's
mock pins (a held button, a lamp lit while undriven, a pin the service holds),
a fake ``/proc`` with the service's threads, ``vcgencmd`` and ``systemctl``
answering what the test says, an fsync that takes as long as the test says.
Each test would fail if its check stopped seeing what it is about.
"""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from buzzer.app import doctor_system
from buzzer.app.doctor import (
    FAIL,
    PASS,
    SKIP,
    TITLES,
    WARN,
    DoctorOptions,
    GpioChip,
    Verdict,
    exit_status,
    run_doctor,
)
from buzzer.app.doctor_gpio import judge_chip
from hardware.factory import FactoryUnavailable
from hardware.mockpins import LevelFirstMockPin
from hardware.pinmap import example_path
from tests.support.doctor_host import PI5_CHIP, FakeMachine

EXAMPLE = str(example_path())
MS = 1_000_000


def doctor(machine: FakeMachine, **options: Any) -> dict[str, Verdict]:
    """Run every check; the verdicts by check, all present, in the documented order."""
    options.setdefault("pins", EXAMPLE)
    verdicts = run_doctor(DoctorOptions(**options), machine.host())
    assert [v.check for v in verdicts] == list(TITLES)
    return {v.check: v for v in verdicts}


def statuses(found: dict[str, Verdict]) -> dict[str, str]:
    return {check: v.status for check, v in found.items()}


# -- a box that is ready ------------------------------------------------------------------


def test_a_ready_gpio_box_passes_and_says_why_the_pico_checks_did_not_run(
    tmp_path: Path,
) -> None:
    machine = FakeMachine(tmp_path)
    found = doctor(machine)
    assert statuses(found) == {
        "config": SKIP,
        "groups": PASS,
        "pinmap": PASS,
        "gpiochip": PASS,
        "buttons": PASS,
        "lamps": PASS,
        "pico": SKIP,
        "firmware": SKIP,
        "pico_buttons": SKIP,
        "pico_lamps": SKIP,
        "clock": SKIP,
        "realtime": PASS,
        "fsync": PASS,
        "disk": PASS,
        "power": PASS,
        "lan": PASS,
    }
    assert exit_status(list(found.values())) == 0
    assert found["groups"].data["needed"] == ["gpio"]  # a pin map, no Pico: no dialout
    assert "gpiochip0 (pinctrl-rp1" in found["gpiochip"].found("en")
    assert found["buttons"].found("en") == "all 8 buttons are up (the players' and the host's)"
    assert "http://192.168.1.23:8000/" in found["lan"].found("en")
    # A skip says why, in both languages.
    assert "no Pico" in found["pico"].found("en") and "Pico нет" in found["pico"].found("ru")


# -- buttons ---------------------------------------------------------------------------------


def grounding(*pins: int) -> tuple[Any, set[int]]:
    """Mock pins where the lines in the returned set are shorted to GND (a button stuck
    down, a shorted cable): no pull-up raises them until the test takes them out."""
    grounded = set(pins)

    class GroundedPin(LevelFirstMockPin):  # type: ignore[misc]
        def _change_state(self, value: bool) -> bool:
            shorted = self.info.name in {f"GPIO{pin}" for pin in grounded}
            return bool(super()._change_state(value and not shorted))

    factory = MockFactory(pin_class=GroundedPin)
    factory.chip = 0
    return factory, grounded


def test_a_held_button_fails_naming_its_seat_and_pin(tmp_path: Path) -> None:
    factory, _ = grounding(27)
    found = doctor(FakeMachine(tmp_path, factory=factory))
    buttons = found["buttons"]
    assert buttons.status == FAIL
    assert buttons.data["held"] == [{"key": "2", "pin": 27}]  # seat 2 is GPIO27 in the example
    assert "seat 2 (GPIO27)" in buttons.found("en")
    assert "место 2 (GPIO27)" in buttons.found("ru")
    assert buttons.fix is not None and "check-buttons" in buttons.fix("en")
    assert exit_status(list(found.values())) == 1


def test_a_press_let_go_before_the_check_is_not_a_held_button(tmp_path: Path) -> None:
    factory, grounded = grounding(17)
    machine = FakeMachine(tmp_path, factory=factory)
    host = machine.host()

    def let_go(seconds: float) -> None:  # seat 1 let go while the doctor waits
        grounded.discard(17)
        factory.pin(17).drive_high()

    host.sleep = let_go
    buttons = {v.check: v for v in run_doctor(DoctorOptions(pins=EXAMPLE), host)}["buttons"]
    assert buttons.status == PASS, buttons


# -- lamps -----------------------------------------------------------------------------------


def test_a_lamp_lit_while_undriven_fails_and_is_switched_off(tmp_path: Path) -> None:
    machine = FakeMachine(tmp_path)
    lamp = machine.factory.pin(16)  # seat 1's lamp in the example pin map
    lamp.drive_high()  # what the wiring holds the line at, nobody driving it
    found = doctor(machine)
    lamps = found["lamps"]
    assert lamps.status == FAIL
    assert lamps.data["lit_undriven"] == [16]
    assert "seat 1's lamp (GPIO16)" in lamps.found("en")
    assert "лампа места 1 (GPIO16)" in lamps.found("ru")
    assert lamps.fix is not None and "4.7 kΩ gate-to-GND" in lamps.fix("en")
    # ...and the doctor drove it off before letting it go.
    assert lamp.states[-1].state is False or lamp.state is False
    assert [s.state for s in lamp.states][-2:] == [True, False]


def test_a_lamp_on_a_pin_with_the_boards_pull_up_is_told_to_move(tmp_path: Path) -> None:
    from buzzer.app.doctor_gpio import check_lamps
    from buzzer.app.doctor_system import resolve
    from hardware.pinmap import LampPin, PinMap, parse_pinmap

    machine = FakeMachine(tmp_path)
    host = machine.host()
    # Built by hand: the pin map refuses a lamp on GPIO2/3 (issue 34), but a map of
    # an older release may still have one, and the doctor must see it lit.
    buttons = parse_pinmap({"players": {"1": 17}, "host": {"reading_start": 5, "reading_end": 6}})
    pinmap = PinMap(
        source="old.toml",
        players=buttons.players,
        host=buttons.host,
        podium_lamps={1: LampPin("1", 3)},
    )
    setup = resolve(DoctorOptions(pins=EXAMPLE), host, None, {})
    verdict = check_lamps(pinmap, machine.factory, setup, host)
    assert verdict.status == FAIL
    assert verdict.data["lit_undriven"] == [3]
    assert verdict.fix is not None and "GPIO3 has a 1.8 kΩ pull-up" in verdict.fix("en")


class BusyPin(LevelFirstMockPin):  # type: ignore[misc]
    """A line another program has claimed: lgpio's 'GPIO busy' at the claim."""

    def __init__(self, factory: Any, info: Any) -> None:
        raise OSError(errno.EBUSY, "GPIO busy")


def test_pins_the_running_service_holds_are_skipped_with_the_way_to_check_them(
    tmp_path: Path,
) -> None:
    factory = MockFactory(pin_class=BusyPin)
    factory.chip = 0
    found = doctor(FakeMachine(tmp_path, factory=factory))
    for check in ("buttons", "lamps"):
        assert found[check].status == SKIP, found[check]
        assert "running svoyak service holds the pins" in found[check].found("en")
        fix = found[check].fix
        assert fix is not None and "sudo systemctl stop svoyak" in fix("en")


def test_pins_another_program_holds_fail(tmp_path: Path) -> None:
    factory = MockFactory(pin_class=BusyPin)
    factory.chip = 0
    machine = FakeMachine(tmp_path, factory=factory)
    machine.systemctl = "LoadState=loaded\nActiveState=inactive\nMainPID=0\n"
    found = doctor(machine)
    assert found["buttons"].status == FAIL
    assert "in use by another program" in found["buttons"].found("en")


# -- the pin map and the chip ------------------------------------------------------------------


def test_a_broken_pin_map_fails_with_its_own_message_and_the_pins_are_not_read(
    tmp_path: Path,
) -> None:
    pins = tmp_path / "pins.toml"
    pins.write_text("[players]\n1 = 17\n2 = 17\n[host]\nreading_start = 5\nreading_end = 6\n")
    found = doctor(FakeMachine(tmp_path), pins=str(pins))
    assert found["pinmap"].status == FAIL
    assert "GPIO17 is already used" in found["pinmap"].found("en")
    assert found["buttons"].status == SKIP and found["lamps"].status == SKIP


def test_no_pin_map_and_no_pico_means_no_buttons(tmp_path: Path) -> None:
    found = doctor(FakeMachine(tmp_path), pins=None)
    assert found["pinmap"].status == FAIL
    assert "the game has no buttons" in found["pinmap"].found("en")
    assert found["groups"].status == SKIP  # nothing needs gpio or dialout


def test_the_system_pin_map_is_the_default(tmp_path: Path) -> None:
    machine = FakeMachine(tmp_path)
    system = tmp_path / "etc" / "svoyak" / "pins.toml"
    system.parent.mkdir(parents=True)
    system.write_text(Path(EXAMPLE).read_text())
    found = doctor(machine, pins=None)
    assert found["pinmap"].status == PASS
    assert found["pinmap"].data["path"] == str(system)


def test_the_chip_svoyak_opens_must_be_the_headers() -> None:
    factory = MockFactory()
    bcm = GpioChip(
        0, "/dev/gpiochip0", "/dev/gpiochip0", "gpiochip0", "gpio-brcmstb@107d508500", 32
    )
    rp1 = GpioChip(4, "/dev/gpiochip4", "/dev/gpiochip4", "gpiochip4", "pinctrl-rp1", 54)
    factory.chip = 0
    wrong = judge_chip([bcm, rp1], factory, None, None)
    assert wrong.status == FAIL
    assert "svoyak opens gpiochip0 (gpio-brcmstb@107d508500), but the header is gpiochip4" in (
        wrong.found("en")
    )
    assert wrong.fix is not None and "--gpiochip 4" in wrong.fix("en")
    factory.chip = 4
    assert judge_chip([bcm, rp1], factory, None, None).status == PASS
    # A Pi 5 image keeping gpiochip4 as a symlink to the header's gpiochip0.
    link = GpioChip(4, "/dev/gpiochip4", "/dev/gpiochip0", "gpiochip0", "pinctrl-rp1", 54)
    assert judge_chip([PI5_CHIP, link], factory, None, None).status == PASS


def test_a_chip_that_does_not_open_or_is_not_there_fails() -> None:
    refused = judge_chip([PI5_CHIP], None, "cannot open /dev/gpiochip0: Permission denied", None)
    assert refused.status == FAIL and "Permission denied" in refused.found("en")
    assert judge_chip([], None, "no lgpio", None).status == FAIL
    unreadable = GpioChip(0, "/dev/gpiochip0", "/dev/gpiochip0", error="Permission denied")
    verdict = judge_chip([unreadable], None, "x", None)
    assert verdict.status == FAIL and "gpio group" in (verdict.fix or verdict.found)("en")


def test_a_chip_the_factory_cannot_open_skips_the_buttons(tmp_path: Path) -> None:
    machine = FakeMachine(tmp_path, factory_error=FactoryUnavailable("cannot open gpiochip0"))
    found = doctor(machine)
    assert found["gpiochip"].status == FAIL
    assert found["buttons"].status == SKIP


# -- groups ---------------------------------------------------------------------------------------


def test_a_missing_group_says_to_add_it(tmp_path: Path) -> None:
    machine = FakeMachine(tmp_path, groups=frozenset({"pi"}), listed=frozenset({"pi"}))
    groups = doctor(machine)["groups"]
    assert groups.status == FAIL
    assert groups.data["missing"] == ["gpio"]
    assert groups.fix is not None and "sudo usermod -aG gpio pi" in groups.fix("en")


def test_a_group_added_after_this_login_says_to_log_in_again(tmp_path: Path) -> None:
    machine = FakeMachine(tmp_path, groups=frozenset({"pi"}), listed=frozenset({"pi", "gpio"}))
    groups = doctor(machine)["groups"]
    assert groups.status == FAIL
    assert groups.fix is not None and "log out and back in" in groups.fix("en")
    assert "usermod" not in groups.fix("en")


def test_simulated_pins_need_no_group(tmp_path: Path) -> None:
    machine = FakeMachine(tmp_path, groups=frozenset({"pi"}))
    found = doctor(machine, simulate=True)
    assert found["groups"].status == SKIP
    assert found["gpiochip"].status == SKIP
    assert found["buttons"].status == PASS


# -- the service's priority ----------------------------------------------------------------------


def test_a_thread_of_the_service_not_at_real_time_priority_fails_by_name(tmp_path: Path) -> None:
    machine = FakeMachine(tmp_path)
    machine.threads = [("svoyak", 2, 10), ("bridge-reader", 0, 0), ("runtime", 2, 1)]
    realtime = doctor(machine)["realtime"]
    assert realtime.status == FAIL
    assert "2 of 3 threads" in realtime.found("en")
    assert "bridge-reader (OTHER 0), runtime (RR 1)" in realtime.found("en")
    assert realtime.fix is not None and "CPUSchedulingResetOnFork=no" in realtime.fix("en")


def test_all_threads_at_rr_10_pass(tmp_path: Path) -> None:
    realtime = doctor(FakeMachine(tmp_path))["realtime"]
    assert realtime.status == PASS
    assert realtime.data["pid"] == 4242
    assert {t["policy"] for t in realtime.data["threads"]} == {"RR"}


@pytest.mark.parametrize(
    ("systemctl", "reason"),
    [
        (None, "no systemd here"),
        ("LoadState=not-found\nMainPID=0\n", "not installed"),
        ("LoadState=loaded\nActiveState=inactive\nMainPID=0\n", "not running"),
    ],
)
def test_no_running_service_is_a_skip_that_says_why(
    tmp_path: Path, systemctl: str | None, reason: str
) -> None:
    machine = FakeMachine(tmp_path, systemctl=systemctl)
    realtime = doctor(machine)["realtime"]
    assert realtime.status == SKIP
    assert reason in realtime.found("en")


# -- the journal's disk ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fsync_ns", "status"),
    [((2 * MS,), PASS), ((2 * MS,) * 20 + (40 * MS,), WARN), ((2 * MS,) * 20 + (400 * MS,), FAIL)],
    ids=["quick", "slow", "stalling"],
)
def test_the_journal_disks_fsync_p99_against_its_thresholds(
    tmp_path: Path, fsync_ns: tuple[int, ...], status: str
) -> None:
    machine = FakeMachine(tmp_path, fsync_ns=fsync_ns)
    found = doctor(machine, journal=str(tmp_path / "games" / "game.sqlite"))
    fsync = found["fsync"]
    assert fsync.status == status, fsync
    assert machine.fsyncs == 50
    assert fsync.data["median_ms"] == 2.0
    assert fsync.data["p99_ms"] == max(fsync_ns) / MS
    # Measured where the journal will be (its folder does not exist yet: the nearest one).
    assert fsync.data["measured_in"] == str(tmp_path)
    assert not list(tmp_path.glob(".svoyak-doctor-*"))  # the probe file is gone
    if status != PASS:
        assert fsync.fix is not None and "SD card" in fsync.fix("en")


@pytest.mark.parametrize(
    ("free", "status"), [(50_000_000, FAIL), (500_000_000, WARN), (5_000_000_000, PASS)]
)
def test_free_space_on_the_journals_disk(tmp_path: Path, free: int, status: str) -> None:
    disk = doctor(FakeMachine(tmp_path, free_bytes=free))["disk"]
    assert disk.status == status
    assert disk.data["free_mb"] == free / 1e6


# -- power -----------------------------------------------------------------------------------------


def test_throttled_bits_are_decoded_and_under_voltage_fails(tmp_path: Path) -> None:
    power = doctor(FakeMachine(tmp_path, throttled="throttled=0x50005\n"))["power"]
    assert power.status == FAIL
    assert power.data["bits"] == [0, 2, 16, 18]
    assert power.found("en").startswith(
        "under-voltage now, throttled now, under-voltage has occurred, throttling has occurred"
    )
    assert power.fix is not None and "5 V 3 A" in power.fix("en")


@pytest.mark.parametrize(
    ("value", "status", "fix"),
    [
        ("0x10000", FAIL, "5 V 3 A"),  # under-voltage since boot: the supply will sag again
        ("0x4", FAIL, "heatsink"),  # throttled now
        ("0x80000", WARN, "heatsink"),  # a soft temperature limit since boot
        ("0x0", PASS, None),
    ],
)
def test_each_throttled_bit_is_judged(
    tmp_path: Path, value: str, status: str, fix: str | None
) -> None:
    power = doctor(FakeMachine(tmp_path, throttled=f"throttled={value}\n"))["power"]
    assert power.status == status
    assert power.data["throttled"] == value
    if fix is None:
        assert power.fix is None
    else:
        assert power.fix is not None and fix in power.fix("en")


def test_no_vcgencmd_is_a_skip_off_a_pi_and_a_warning_on_one(tmp_path: Path) -> None:
    assert doctor(FakeMachine(tmp_path, throttled=None, model=None))["power"].status == SKIP
    on_pi = doctor(FakeMachine(tmp_path / "pi", throttled=None))["power"]
    assert on_pi.status == WARN and "raspi-utils" in (on_pi.fix or on_pi.found)("en")


# -- the network and the set-up -------------------------------------------------------------------


def test_no_lan_address_fails(tmp_path: Path) -> None:
    lan = doctor(FakeMachine(tmp_path, addresses=["127.0.0.1"]))["lan"]
    assert lan.status == FAIL and "only 127.0.0.1" in lan.found("en")


def test_the_doctor_checks_what_the_service_is_started_with(tmp_path: Path) -> None:
    pins = tmp_path / "service-pins.toml"
    pins.write_text(Path(EXAMPLE).read_text())
    journal = tmp_path / "var" / "lib" / "svoyak"
    journal.mkdir(parents=True)
    config = tmp_path / "svoyak.toml"
    config.write_text('[panel]\nport = 8080\n[journal]\npath = "/elsewhere/game.sqlite"\n')
    machine = FakeMachine(tmp_path)
    machine.systemctl = (
        "LoadState=loaded\nMainPID=4242\nExecStart={ path=/opt/svoyak/.venv/bin/svoyak ; "
        f"argv[]=/opt/svoyak/.venv/bin/svoyak run --config {config} --pins {pins} "
        f"--journal {journal}/game.sqlite --resume ; ignore_errors=no ; pid=4242 }}"
    )
    found = doctor(machine, pins=None)
    assert found["config"].status == PASS
    assert found["config"].data["path"] == str(config)
    assert found["pinmap"].data["path"] == str(pins)
    # The service's --journal beats the config's [journal] path (the command line wins).
    assert found["fsync"].data["measured_in"] == str(journal)
    assert "http://192.168.1.23:8080/" in found["lan"].found("en")


def test_a_config_svoyak_run_would_refuse_fails(tmp_path: Path) -> None:
    config = tmp_path / "svoyak.toml"
    config.write_text("[hardware]\npins = 3\nspeed = 9\n")
    found = doctor(FakeMachine(tmp_path), config=str(config))
    assert found["config"].status == FAIL
    assert "[hardware] speed" in found["config"].found("en")


def test_a_config_with_a_pin_svoyak_run_refuses_fails_without_showing_it(tmp_path: Path) -> None:
    """A 4-digit [panel] pin (fine before issue 36) stops svoyak run: doctor says so first."""
    config = tmp_path / "svoyak.toml"
    config.write_text("[panel]\npin = '2468'\n")
    found = doctor(FakeMachine(tmp_path), config=str(config))
    assert found["config"].status == FAIL
    assert "[panel] pin is refused" in found["config"].found("en")
    assert "6 digits" in found["config"].found("en")
    assert "2468" not in found["config"].found("en") + found["config"].found("ru")


def test_a_config_the_user_cannot_read_is_a_warning(tmp_path: Path, monkeypatch: Any) -> None:
    config = tmp_path / "svoyak.toml"
    config.write_text("[panel]\npin = '246813'\n")
    host = FakeMachine(tmp_path).host()

    def denied(self: Path, *args: Any, **kwargs: Any) -> Any:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(Path, "open", denied)
    verdict, values = doctor_system.read_config(DoctorOptions(config=str(config)), host, None)
    assert verdict.status == WARN and values == {doctor_system.UNREADABLE: True}
    assert verdict.fix is not None and "sudo /opt/svoyak/.venv/bin/svoyak doctor" in verdict.fix(
        "en"
    )
