"""`svoyak pico install` end to end, against real MicroPython and the real mpremote.

The Pico's port is :class:`tests.support.micropython_pico.MicroPythonPico`:
MicroPython's WebAssembly port behind a pseudo-terminal, whose raw REPL and
file system are MicroPython's own (its raw-paste mode cannot work in that
port, so mpremote uses the plain raw REPL there, as it does with any
MicroPython without raw-paste). Its ``machine.reset()`` hands the port to
the Python emulator of the firmware, whose HELLO carries the identity of the
files then on the REPL's file system: what main.py would compute on a Pico.
What is not MicroPython here: the emulated firmware after the reset (its
logic.py is the real one, under CPython), the BOOTSEL drive (a folder) and
udev's names (symlinks in a folder).

A Pico that already runs svoyak's firmware is the emulator from the start:
mpremote really tries its raw REPL and gets none, and the install asks the
firmware for its HELLO.
"""

from __future__ import annotations

import contextlib
import io
import os
import select
import threading
import time
import tty
from pathlib import Path

import pytest

from buzzer import cli
from firmware_bridge import install as install_module
from firmware_bridge import shipped
from firmware_bridge.emulator import Emulator
from firmware_bridge.install import (
    ConsoleProgress,
    InstallError,
    InstallOptions,
    install,
    micropython_image,
)
from firmware_bridge.pico_devices import Places
from firmware_bridge.protocol import Heartbeat, cobs_encode, encode_raw
from tests.support.micropython_pico import MicroPythonPico

RP2040_INFO = "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"


def _places(root: Path) -> Places:
    for sub in ("media", "by-id", "by-label", "dev"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    return Places(
        mount_globs=(str(root / "media/*/*"),),
        by_id=root / "by-id",
        by_label=root / "by-label",
        tty_glob=str(root / "dev/ttyACM*"),
    )


def test_the_cli_installs_the_shipped_files_on_real_micropython(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    places = _places(tmp_path / "host")
    monkeypatch.setattr(install_module, "Places", lambda: places)
    old = {"main.py": b"print('an older svoyak')\n", "logic.py": b"# stale source\n"}
    with MicroPythonPico(tmp_path / "pico", {**old, "boot.py": b"# the owner's\n"}) as pico:
        status = cli.main(["pico", "install", "--port", pico.path, "--timeout", "60"])
        out, err = capsys.readouterr()
        assert status == 0, err + pico.stderr
        assert err == ""
    files = shipped.firmware_files()
    # Byte for byte what this release ships; the stale logic.py is gone; the
    # rest of the file system is left alone.
    assert pico.files_at_reset == {**files, "boot.py": b"# the owner's\n"}
    identity = shipped.shipped_identity().hex()
    lines = out.splitlines()
    assert [line[:5] for line in lines if line.startswith("[")] == [
        "[1/5]",
        "[2/5]",
        "[3/5]",
        "[4/5]",
        "[5/5]",
    ]
    assert f"[2/5] the Pico's serial port: {pico.path}" in lines
    assert f"firmware identity {identity}" in out
    for name, data in files.items():
        assert f"      {name}: {len(data):,} of {len(data):,} bytes" in lines
    assert lines[-1] == f"installed: firmware identity {identity}, 8 buttons, 8 lamps"


def test_a_pico_in_bootsel_mode_gets_micropython_then_the_files(tmp_path: Path) -> None:
    places = _places(tmp_path / "host")
    drive = tmp_path / "host" / "media" / "pi" / "RPI-RP2"
    drive.mkdir(parents=True)
    (drive / "INFO_UF2.TXT").write_text(RP2040_INFO)
    # Small files: this test is about the steps around the copy, not its bytes.
    files = {"main.py": b"import logic\n", "logic.mpy": bytes(range(256)) * 4}
    stable = places.by_id / "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00"
    with MicroPythonPico(tmp_path / "pico") as pico:

        def the_pico_reboots() -> None:
            # The boot ROM takes the UF2, reboots, and MicroPython's port appears.
            deadline = time.monotonic() + 60
            while not list(drive.glob("*.uf2")) and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.3)
            stable.symlink_to(pico.path)

        thread = threading.Thread(target=the_pico_reboots, daemon=True)
        thread.start()
        out = io.StringIO()
        done = install(
            InstallOptions(timeout=60, hello_quiet=0.2),
            ConsoleProgress(out),
            places,
            build=lambda: files,
        )
        thread.join(5)
    assert done.flashed is not None and done.flashed.read_bytes() == micropython_image()
    assert done.port == str(stable) and done.copied
    assert done.hello.firmware_id == shipped.identity_of(files)
    assert pico.files_at_reset == files
    text = out.getvalue()
    assert f"[1/5] Pico in BOOTSEL mode at {drive}: flashing MicroPython 1.28" in text
    assert f"MicroPython is up on {stable}" in text
    assert f"[2/5] the Pico's serial port: {stable}" in text


def test_a_pico_already_running_this_release_is_left_as_it_is(tmp_path: Path) -> None:
    out = io.StringIO()
    with Emulator() as emulator:
        done = install(
            InstallOptions(port=emulator.path, repl_timeout=1.0, probe_timeout=1.5),
            ConsoleProgress(out),
            _places(tmp_path),
        )
    assert not done.copied
    assert done.hello.firmware_id == shipped.shipped_identity()
    assert "the Pico already runs this release's firmware: nothing to copy" in out.getvalue()


def test_a_pico_running_another_firmware_is_told_the_way_to_bootsel(tmp_path: Path) -> None:
    with (
        Emulator(firmware_id=bytes.fromhex("0102030405060708")) as emulator,
        pytest.raises(InstallError) as caught,
    ):
        install(
            InstallOptions(port=emulator.path, repl_timeout=1.0, probe_timeout=1.5),
            ConsoleProgress(io.StringIO()),
            _places(tmp_path),
        )
    message = str(caught.value)
    shipped_id = shipped.shipped_identity().hex()
    assert (
        f"runs another svoyak firmware (identity 0102030405060708; this release ships "
        f"{shipped_id})" in message
    )
    assert "hold its BOOTSEL button while you plug it back in" in message
    assert "run `svoyak pico install` again" in message


def test_a_pico_with_an_older_protocol_is_told_the_way_to_bootsel(tmp_path: Path) -> None:
    # Protocol 3's firmware (before the identity): heartbeats of version 3, no
    # REPL, and no HELLO this host could read.
    master, slave = os.openpty()
    tty.setraw(slave)
    port = tmp_path / "ttyOLD"
    port.symlink_to(os.ttyname(slave))
    stop = threading.Event()

    def old_firmware() -> None:
        beat = Heartbeat(1, 1, 1, 0, 0, 0)
        seq = 0
        while not stop.wait(0.05):
            frame = cobs_encode(encode_raw(beat, seq, version=3)) + b"\x00"
            with contextlib.suppress(OSError):
                os.write(master, frame)
                while select.select([master], [], [], 0)[0]:
                    os.read(master, 4096)  # what the host sends: ignored
            seq += 1

    thread = threading.Thread(target=old_firmware, daemon=True)
    thread.start()
    try:
        with pytest.raises(InstallError, match="runs an older svoyak firmware") as caught:
            install(
                InstallOptions(port=str(port), repl_timeout=1.0, probe_timeout=1.5),
                ConsoleProgress(io.StringIO()),
                _places(tmp_path),
            )
    finally:
        stop.set()
        thread.join(5)
        os.close(master)
        os.close(slave)
    assert "frames of another protocol version" in str(caught.value)
    assert "hold its BOOTSEL button while you plug it back in" in str(caught.value)


def test_a_pico2_is_refused(tmp_path: Path) -> None:
    with (
        Emulator(unsupported_chip=True) as emulator,
        pytest.raises(InstallError, match="Pico 2 / RP2350 is not supported"),
    ):
        install(
            InstallOptions(port=emulator.path, repl_timeout=1.0, probe_timeout=1.5),
            ConsoleProgress(io.StringIO()),
            _places(tmp_path),
        )


def test_a_port_held_by_the_service_says_stop_it_first(tmp_path: Path) -> None:
    import serial  # type: ignore[import-untyped]

    with Emulator() as emulator:
        held = serial.Serial(emulator.path, exclusive=True)
        try:
            with pytest.raises(InstallError, match="sudo systemctl stop svoyak"):
                install(
                    InstallOptions(port=emulator.path),
                    ConsoleProgress(io.StringIO()),
                    _places(tmp_path),
                )
        finally:
            held.close()


def test_cli_errors_are_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    places = _places(tmp_path)
    monkeypatch.setattr(install_module, "Places", lambda: places)
    assert cli.main(["pico", "install"]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("svoyak pico install: no MicroPython board under ")
    assert "pass --port PORT" in err and len(err.splitlines()) == 1
    assert "Traceback" not in out + err
    (places.by_label / "RPI-RP2").touch()
    assert cli.main(["pico", "install"]) == 2
    assert "its drive is not mounted: sudo mount" in capsys.readouterr().err
    assert cli.main(["pico", "install", "--drive", str(tmp_path)]) == 2
    assert "no INFO_UF2.TXT there" in capsys.readouterr().err
