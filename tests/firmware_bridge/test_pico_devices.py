"""Where `svoyak pico install` finds a Pico: its BOOTSEL drive, its serial port
(firmware_bridge/pico_devices.py), on a temporary folder laid out as the host's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from firmware_bridge import pico_devices as dev
from firmware_bridge.pico_devices import BootselDrive, InstallError, Places

RP2040_INFO = "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"
RP2350_INFO = "UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\nBoard-ID: RP2350\n"
PICO2 = "Pico 2 / RP2350 is not supported by this firmware"


def _places(root: Path) -> Places:
    for sub in ("media", "run-media", "mnt", "by-id", "by-label", "dev"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    return Places(
        mount_globs=(str(root / "media/*/*"), str(root / "run-media/*/*"), str(root / "mnt/*")),
        by_id=root / "by-id",
        by_label=root / "by-label",
        tty_glob=str(root / "dev/ttyACM*"),
    )


def _drive(folder: Path, info: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "INFO_UF2.TXT").write_text(info)
    (folder / "INDEX.HTM").write_text("<html></html>")
    return folder


def _port(places: Places, name: str, tty: str) -> str:
    device = Path(places.tty_glob).parent / tty
    device.touch()
    link = places.by_id / name
    link.symlink_to(device)
    return str(link)


def _micropython(places: Places, serial: str, tty: str) -> str:
    return _port(places, f"usb-MicroPython_Board_in_FS_mode_{serial}-if00", tty)


# -- the BOOTSEL drive ---------------------------------------------------------------------------


def test_the_board_id_is_read_from_info_uf2() -> None:
    assert dev.board_of(RP2040_INFO) == "RPI-RP2"
    assert dev.board_of(RP2350_INFO) == "RP2350"
    assert dev.board_of("no board here\n") == ""


def test_a_pico_in_bootsel_mode_is_found_and_the_uf2_lands_on_it(tmp_path: Path) -> None:
    places = _places(tmp_path)
    folder = _drive(tmp_path / "media" / "pi" / "RPI-RP2", RP2040_INFO)
    _drive(tmp_path / "mnt" / "stick", "UF2 Bootloader\nBoard-ID: SAMD21-Feather\n")
    (tmp_path / "media" / "pi" / "photos").mkdir()
    drives = dev.find_drives(places)
    assert [d.board for d in drives] == ["RPI-RP2", "SAMD21-Feather"]
    drive = dev.pick_drive(drives)  # the other UF2 board is not a Pico: left alone
    assert drive == BootselDrive(folder, "RPI-RP2")
    written = dev.flash(drive, b"\x55" * 1024)
    assert written.parent == folder and written.read_bytes() == b"\x55" * 1024


def test_a_drive_mounted_by_hand_under_run_media_is_found(tmp_path: Path) -> None:
    places = _places(tmp_path)
    _drive(tmp_path / "run-media" / "tech" / "RPI-RP2", RP2040_INFO)
    drive = dev.pick_drive(dev.find_drives(places))
    assert drive is not None and drive.path.name == "RPI-RP2"


def test_no_drive_is_none(tmp_path: Path) -> None:
    assert dev.pick_drive(dev.find_drives(_places(tmp_path))) is None


def test_a_pico2_in_bootsel_mode_is_refused(tmp_path: Path) -> None:
    places = _places(tmp_path)
    _drive(tmp_path / "media" / "pi" / "RP2350", RP2350_INFO)
    with pytest.raises(InstallError, match=PICO2) as caught:
        dev.pick_drive(dev.find_drives(places))
    assert "unplug it" in str(caught.value)


def test_several_picos_in_bootsel_mode_ask_for_drive(tmp_path: Path) -> None:
    places = _places(tmp_path)
    _drive(tmp_path / "media" / "pi" / "RPI-RP2", RP2040_INFO)
    _drive(tmp_path / "media" / "pi" / "RPI-RP21", RP2040_INFO)
    with pytest.raises(InstallError, match="several Picos are in BOOTSEL mode") as caught:
        dev.pick_drive(dev.find_drives(places))
    assert "--drive PATH" in str(caught.value) and "RPI-RP21" in str(caught.value)


def test_drive_option_must_name_a_picos_drive(tmp_path: Path) -> None:
    good = _drive(tmp_path / "a", RP2040_INFO)
    assert dev.check_drive(good) == BootselDrive(good, "RPI-RP2")
    with pytest.raises(InstallError, match=r"no INFO_UF2\.TXT there"):
        dev.check_drive(tmp_path)
    with pytest.raises(InstallError, match=PICO2):
        dev.check_drive(_drive(tmp_path / "b", RP2350_INFO))
    with pytest.raises(InstallError, match="not a Raspberry Pi Pico"):
        dev.check_drive(_drive(tmp_path / "c", "Board-ID: SAMD21\n"))


def test_a_bootsel_pico_whose_drive_is_not_mounted_says_how_to_mount(tmp_path: Path) -> None:
    places = _places(tmp_path)
    assert dev.unmounted_drive(places) is None
    (places.by_label / "RPI-RP2").touch()
    hint = dev.unmounted_drive(places)
    assert hint is not None
    assert f"sudo mount -o uid=$(id -u) {places.by_label / 'RPI-RP2'} /mnt" in hint
    (places.by_label / "RP2350").touch()
    assert PICO2 in (dev.unmounted_drive(places) or "")


def test_a_read_only_drive_says_so(tmp_path: Path) -> None:
    drive = BootselDrive(tmp_path / "gone", "RPI-RP2")
    with pytest.raises(InstallError, match="cannot write onto the Pico's drive"):
        dev.flash(drive, b"x")


# -- the serial port ---------------------------------------------------------------------------


def test_the_one_micropython_board_is_the_port(tmp_path: Path) -> None:
    places = _places(tmp_path)
    _port(places, "usb-FTDI_FT232R_USB_UART_A1-if00-port0", "ttyUSB0")
    pico = _micropython(places, "e6614c311b7e6f35", "ttyACM0")
    assert dev.pick_port(None, places) == pico


def test_no_micropython_board_lists_what_was_found(tmp_path: Path) -> None:
    places = _places(tmp_path)
    other = _port(places, "usb-FTDI_FT232R_USB_UART_A1-if00-port0", "ttyUSB0")
    (Path(places.tty_glob).parent / "ttyACM3").touch()
    with pytest.raises(InstallError, match="no MicroPython board") as caught:
        dev.pick_port(None, places)
    message = str(caught.value)
    assert other in message and "ttyACM3" in message and "--port PORT" in message
    empty = _places(tmp_path / "empty")
    with pytest.raises(InstallError, match="no serial port at all"):
        dev.pick_port(None, empty)


def test_several_micropython_boards_ask_for_port(tmp_path: Path) -> None:
    places = _places(tmp_path)
    first = _micropython(places, "aaaa", "ttyACM0")
    second = _micropython(places, "bbbb", "ttyACM1")
    with pytest.raises(InstallError, match="several MicroPython boards") as caught:
        dev.pick_port(None, places)
    message = str(caught.value)
    assert first in message and second in message and "--port" in message


def test_port_option_wins_and_must_exist(tmp_path: Path) -> None:
    places = _places(tmp_path)
    _micropython(places, "aaaa", "ttyACM0")
    chosen = str(Path(places.tty_glob).parent / "ttyACM0")
    assert dev.pick_port(chosen, places) == chosen
    with pytest.raises(InstallError, match="no such port"):
        dev.pick_port(str(tmp_path / "ttyACM9"), places)


def test_a_tty_is_named_by_its_stable_by_id_name(tmp_path: Path) -> None:
    places = _places(tmp_path)
    pico = _micropython(places, "aaaa", "ttyACM0")
    tty = str(Path(places.tty_glob).parent / "ttyACM0")
    assert dev.stable_name(tty, places) == pico
    lone = Path(places.tty_glob).parent / "ttyACM5"
    lone.touch()
    assert dev.stable_name(str(lone), places) == str(lone)


def test_a_freshly_flashed_pico_is_waited_for(tmp_path: Path) -> None:
    places = _places(tmp_path)
    _port(places, "usb-FTDI_FT232R_USB_UART_A1-if00-port0", "ttyUSB0")
    before = dev.serial_ports(places)
    naps: list[float] = []

    def nap(seconds: float) -> None:
        naps.append(seconds)
        if len(naps) == 3:  # the Pico enumerates while the install waits
            _micropython(places, "cafe", "ttyACM0")

    port = dev.wait_for_port(before, places, timeout=60, sleep=nap)
    assert port is not None and os.path.basename(port).startswith("usb-MicroPython_Board")
    assert len(naps) == 3


def test_a_pico_that_never_comes_back_is_none(tmp_path: Path) -> None:
    places = _places(tmp_path)
    now = [0.0]

    def nap(seconds: float) -> None:
        now[0] += seconds

    assert dev.wait_for_port(set(), places, 5, sleep=nap, clock=lambda: now[0]) is None
    assert now[0] >= 5
    wanted = str(tmp_path / "by-id" / "pico")
    assert dev.wait_for_port(set(), places, 1, wanted, sleep=nap, clock=lambda: now[0]) is None
    Path(wanted).touch()
    assert dev.wait_for_port(set(), places, 1, wanted, sleep=nap, clock=lambda: now[0]) == wanted


def test_a_new_ttyacm_without_a_stable_name_will_do(tmp_path: Path) -> None:
    places = _places(tmp_path)
    before = dev.serial_ports(places)
    tty = Path(places.tty_glob).parent / "ttyACM0"
    tty.touch()
    assert dev.wait_for_port(before, places, 1, sleep=lambda _s: None) == str(tty)
