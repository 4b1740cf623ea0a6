"""Opening the Pi's GPIO: the chip (``--gpiochip``, the Pi 5) and pins another program holds.

The lgpio factory itself needs a Pi; here it is stood in for by a module that
records what it was asked, so the tests check svoyak's side of the contract:
the chip number is passed and verified, and a "GPIO busy" from the kernel
becomes a message that tells the technician to stop the service.
"""

from __future__ import annotations

import errno
import sys
import types
from pathlib import Path
from typing import Any, ClassVar

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from buzzer.cli import main
from hardware import factory as factory_module
from hardware.buttons import ButtonBank
from hardware.factory import FactoryUnavailable, PinBusy, claim_error, open_pin_factory
from hardware.lamps import LampBoard
from hardware.pinmap import example_path, load_pinmap


class LgpioError(Exception):
    """What lgpio raises (``lgpio.error``): a message, no errno."""


class BusyPin(MockPin):  # type: ignore[misc]
    """A line another process has claimed: the kernel refuses it, as lgpio reports."""

    def __init__(self, factory: Any, info: Any) -> None:
        raise LgpioError("GPIO busy")


def busy_factory() -> MockFactory:
    return MockFactory(pin_class=BusyPin)


def test_a_busy_pin_tells_the_technician_to_stop_the_service() -> None:
    pinmap = load_pinmap(example_path())
    with pytest.raises(PinBusy) as info:
        ButtonBank(pinmap, busy_factory(), lambda e: None, watchdog=False)
    message = str(info.value)
    assert message.startswith(f"GPIO{pinmap.players[1].pin} (seat 1) is in use")
    assert "sudo systemctl stop svoyak" in message and "sudo systemctl start svoyak" in message
    with pytest.raises(PinBusy, match="a lamp"):
        LampBoard(pinmap, busy_factory())


def test_other_claim_errors_are_left_as_they_are() -> None:
    error = LgpioError("bad GPIO number")
    assert claim_error(error, 17, "seat 1") is error
    assert isinstance(claim_error(OSError(errno.EBUSY, "Device busy"), 17, "seat 1"), PinBusy)


def test_check_buttons_while_the_service_holds_the_pins(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(factory_module, "open_pin_factory", lambda *a: busy_factory())
    assert main(["check-buttons", "--simulate"]) == 2
    err = capsys.readouterr().err
    assert "is in use by another program" in err and "systemctl stop svoyak" in err
    assert "Traceback" not in err


def test_selftest_while_the_service_holds_the_pins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pins = tmp_path / "pins.toml"
    pins.write_text(
        "[players]\n1 = 17\n2 = 27\n[host]\nreading_start = 5\nreading_end = 6\n"
        "[selftest.loopback]\n1 = 20\n2 = 21\n"
    )
    monkeypatch.setattr(factory_module, "open_pin_factory", lambda *a: busy_factory())
    assert main(["selftest", "--pins", str(pins), "--no-png", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("svoyak selftest: GPIO17 (seat 1) is in use by another program")


class FakeLGPIOFactory:
    """Stands in for gpiozero's LGPIOFactory: opens the chip it is given (4 by default)."""

    opened: ClassVar[list[int]] = []

    def __init__(self, chip: int | None = None) -> None:
        self._chip = 4 if chip is None else chip
        self.closed = False
        FakeLGPIOFactory.opened.append(self._chip)

    def close(self) -> None:
        self.closed = True


class OldLGPIOFactory(FakeLGPIOFactory):
    """gpiozero 2.0.1 as released: ``chip=`` ignored, chip 4 on a Pi 5."""

    def __init__(self, chip: int | None = None) -> None:
        super().__init__(None)


class NoChipFactory:
    def __init__(self, chip: int | None = None) -> None:
        raise LgpioError("can not open gpiochip")


def lgpio_module(monkeypatch: pytest.MonkeyPatch, cls: type) -> None:
    module = types.ModuleType("gpiozero.pins.lgpio")
    module.LGPIOFactory = cls  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", module)


def test_gpiochip_opens_the_chip_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    lgpio_module(monkeypatch, FakeLGPIOFactory)
    FakeLGPIOFactory.opened = []
    assert open_pin_factory(False, 0)._chip == 0
    assert open_pin_factory(False)._chip == 4  # none asked: gpiozero's own choice
    assert FakeLGPIOFactory.opened == [0, 4]


def test_a_gpiozero_that_ignores_the_chip_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    lgpio_module(monkeypatch, OldLGPIOFactory)
    with pytest.raises(FactoryUnavailable, match=r"opened gpiochip4 instead.*2\.0\.1\.post3"):
        open_pin_factory(False, 0)


def test_a_chip_that_cannot_be_opened_names_the_pi_5s(monkeypatch: pytest.MonkeyPatch) -> None:
    lgpio_module(monkeypatch, NoChipFactory)
    with pytest.raises(FactoryUnavailable) as info:
        open_pin_factory(False, 4)
    assert "/dev/gpiochip4" in str(info.value) and "pinctrl-rp1" in str(info.value)
    assert "--gpiochip" in str(info.value)


def test_check_buttons_passes_gpiochip_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    asked: list[Any] = []

    def fake(simulate: bool, chip: int | None = None) -> Any:
        asked.append(chip)
        return busy_factory()

    monkeypatch.setattr(factory_module, "open_pin_factory", fake)
    main(["check-buttons", "--simulate", "--gpiochip", "0"])
    assert asked == [0]
    with pytest.raises(SystemExit):
        main(["check-buttons", "--gpiochip", "64"])
    assert "chips are numbered 0–63" in capsys.readouterr().err
