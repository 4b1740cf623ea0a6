"""The Pico's port at any descriptor number (``firmware_bridge/serial_port.py``).

``svoyak run`` raises its descriptor limit to serve many panels, so a Pico
plugged back in during a busy night can get a descriptor numbered 1024 or
more, which pyserial's ``select()`` cannot wait on. A pseudo-terminal stands
in for the Pico's USB serial port, opened after enough other descriptors
that its own is past ``select()``'s reach.
"""

from __future__ import annotations

import os
import tty
from collections.abc import Iterator

import pytest
import serial  # type: ignore[import-untyped]

from firmware_bridge.serial_port import PollSerial, open_port
from tests.support.descriptors import SELECT_LIMIT, past_selects_reach
from tests.support.scripted_device import wait_for


@pytest.fixture
def high_pty() -> Iterator[tuple[int, str]]:
    """A pty's master fd and slave path, with every descriptor below 1024 taken, so
    that the port the test opens on the slave gets one past select()'s reach."""
    master, slave = os.openpty()
    tty.setraw(master)
    try:
        with past_selects_reach():
            yield master, os.ttyname(slave)
    finally:
        os.close(slave)
        os.close(master)


def test_a_port_past_selects_reach_reads_writes_and_times_out(high_pty: tuple[int, str]) -> None:
    master, path = high_pty
    port = open_port(path, baudrate=115200, timeout=0.2, write_timeout=0.5, exclusive=True)
    try:
        assert isinstance(port, PollSerial)
        assert port.fd >= SELECT_LIMIT
        assert port.write(b"HELLO") == 5
        assert os.read(master, 100) == b"HELLO"
        os.write(master, b"PRESS")
        assert port.read(5) == b"PRESS"
        assert port.read(1) == b""  # a timeout with nothing read is no error
        os.write(master, b"AB")
        # the pty hands the bytes over on its own time
        wait_for(lambda: port.in_waiting >= 2, "both bytes waiting")
        assert port.read(port.in_waiting) == b"AB"
    finally:
        port.close()


def test_pyserial_s_own_port_fails_there(high_pty: tuple[int, str]) -> None:
    """Why the link does not use pyserial's class for a device: at such a descriptor
    every write that waits fails (a test worker holding over 1024 descriptors lost
    its emulated Pico so: "write failed: filedescriptor out of range in select()")."""
    _, path = high_pty
    port = serial.Serial(path, baudrate=115200, timeout=0.2, write_timeout=0.5)
    try:
        assert port.fd >= SELECT_LIMIT
        with pytest.raises(ValueError, match="filedescriptor out of range"):
            port.write(b"HELLO")
    finally:
        port.close()


def test_a_url_is_pyserial_s_to_open() -> None:
    port = open_port("loop://", timeout=0.2)
    try:
        assert not isinstance(port, PollSerial)
        port.write(b"framing")
        assert port.read(7) == b"framing"
    finally:
        port.close()
