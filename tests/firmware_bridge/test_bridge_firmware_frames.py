"""The firmware's frames (firmware_bridge/firmware/logic.py): the same bytes as the
host's protocol module (CRC, COBS, frames both ways, constants, the ticks'
wrap), and the host's frames read off the USB cable whole, a read per COBS
block and never past a frame's end, as the byte stream would be read.
"""

from __future__ import annotations

import random
import struct

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import protocol as p
from firmware_bridge.firmware import logic
from firmware_bridge.protocol import FrameDecoder, encode_frame
from tests.support.firmware_logic import PERIOD, Host
from tests.support.firmware_logic import new_device as _device

# -- the same bytes as the host's protocol module ------------------------------------------


def test_crc_and_cobs_agree_with_the_host_implementation() -> None:
    assert logic.crc16(b"123456789") == 0x29B1
    rng = random.Random(11)
    for _ in range(500):
        n = rng.choice([0, 1, 253, 254, 255, 300, rng.randrange(100)])
        data = bytes(rng.choice([0, rng.randrange(1, 256)]) for _ in range(n))
        assert logic.crc16(data) == p.crc16(data)
        assert logic.cobs_encode(data) == p.cobs_encode(data)
        assert logic.cobs_decode(p.cobs_encode(data)) == data


def test_device_frames_decode_on_the_host_and_host_frames_on_the_device() -> None:
    wire = logic.frame(logic.T_PRESS, 3, struct.pack("<IIBB", 9, 1234, 2, 0))
    assert FrameDecoder().feed(wire) == [p.Frame(3, p.Press(9, 1234, 2, 0))]
    reader = logic.FrameReader()
    host = encode_frame(p.Lamp(1, p.LampMode.BLINK, 300), 77)
    assert reader.feed(host) == [(logic.T_LAMP, 77, p.Lamp(1, 2, 300).pack())]


def test_constants_match_the_protocol() -> None:
    assert logic.PROTOCOL_VERSION == p.PROTOCOL_VERSION
    assert logic.MAX_RAW_FRAME == p.MAX_RAW_FRAME
    for name in ("HELLO", "PRESS", "RELEASE", "HEARTBEAT", "PONG", "CMD_ACK", "PULSED"):
        assert getattr(logic, f"T_{name}") == p.MsgType[name]
    for name in ("HOST_HELLO", "ACK", "PING", "LAMP", "TEST_PULSE"):
        assert getattr(logic, f"T_{name}") == p.MsgType[name]
        _cls, size = p.MESSAGES[p.MsgType[name]]
        assert logic.HOST_PAYLOAD[p.MsgType[name]] == size
    assert (logic.FLAG_RESENT, logic.FLAG_RECONCILED, logic.FLAG_TEST) == (
        p.FLAG_RESENT,
        p.FLAG_RECONCILED,
        p.FLAG_TEST,
    )


def test_ticks_arithmetic_wraps() -> None:
    assert logic.ticks_diff(5, PERIOD - 5) == 10
    assert logic.ticks_diff(PERIOD - 5, 5) == -10
    assert logic.ticks_add(PERIOD - 1, 2) == 1
    assert logic.ticks_add(0, -1) == PERIOD - 1


# -- the host's frames, read whole --------------------------------------------------------------


class Wire:
    """The host's side of the USB cable as the firmware reads it: ``readinto``
    blocks until its bytes are there, so asking for a byte the host has not
    written would hang the main loop. Records each read's size; past the end
    it hands out ``then`` (what the host writes next), as a host would."""

    def __init__(self, data: bytes, then: bytes = b"") -> None:
        self.data = bytearray(data)
        self.then = bytearray(then)
        self.reads: list[int] = []
        self.taken = bytearray()

    def readinto(self, view: memoryview) -> int:
        n = len(view)
        if len(self.data) < n:
            if len(self.data) + len(self.then) < n:
                raise AssertionError(f"a read of {n} bytes would block: the host sent no more")
            self.data += self.then
            self.then = bytearray()
        view[:] = self.data[:n]
        del self.data[:n]
        self.taken += view
        self.reads.append(n)
        return n


HOST_MESSAGES: list[p.Message] = [
    p.HostHello(),
    p.Ping(0x0102030405060708),
    p.Lamp(1, logic.LAMP_ON),
    p.Ack(0),
    p.Ping(0),
    p.Lamp(logic.LAMP_ALL, logic.LAMP_OFF),
    p.Ack(0x01000001),
    p.TestPulse(2, token=7, width_us=50),
]


def test_host_frames_are_read_whole_never_past_their_end() -> None:
    """Each host frame takes one read per COBS block and one for its start, not
    one per byte, and no read asks for a byte beyond the frame (it would block
    until the host's next one)."""
    device, _, lamps, pulses = _device()
    for seq, message in enumerate(HOST_MESSAGES):
        wire = encode_frame(message, seq)
        assert len(wire) <= logic.MAX_HOST_WIRE
        link = Wire(wire)
        logic.HostInput(link.readinto, device).read(lambda: 1234)
        assert link.data == bytearray() and bytes(link.taken) == wire
        assert len(link.reads) == len(_cobs_blocks(wire)) + 1
    assert device.reader.bad == 0 and device.reader.good == len(HOST_MESSAGES)
    assert (1, 1) in lamps and pulses == [(2, True)]
    pongs = [m for m in Host(device).read() if isinstance(m, p.Pong)]
    assert [(m.host_t0, m.ticks) for m in pongs] == [(0x0102030405060708, 1234), (0, 1234)]


def test_a_frame_torn_by_a_silent_host_never_holds_the_main_loop() -> None:
    """Only the first 5 bytes of a PING came, and the host went silent: the
    reader asks ``ready`` before reading on, gets no, and returns without a
    read that would wait for bytes that never come (on the Pico, until the
    watchdog reset the chip and lost its unacknowledged events). When the host
    is back, the torn one is counted bad and the next frame read whole."""
    device, _, _, _ = _device()
    torn = encode_frame(p.Ping(7), 0)[:5]
    link = Wire(torn)
    reads: list[int] = []

    def readinto(view: memoryview) -> None:
        assert len(view) <= len(link.data), "a read past the bytes the host sent"
        reads.append(len(view))
        link.readinto(view)

    reader = logic.HostInput(readinto, device, lambda: bool(link.data))
    reader.read(lambda: 100)
    assert link.data == bytearray() and reads
    assert not [m for m in Host(device).read() if isinstance(m, p.Pong)]
    # The host back: its leading delimiter closes the torn frame (docs/wire-protocol.md).
    link.data.extend(b"\x00" + encode_frame(p.Ping(8), 1))
    while link.data:
        reader.read(lambda: 200)
    pongs = [m for m in Host(device).read() if isinstance(m, p.Pong)]
    assert [m.host_t0 for m in pongs] == [8]
    assert device.reader.bad == 1


def test_a_frame_is_handled_at_the_tick_read_before_its_first_byte() -> None:
    """The read itself takes time on a slow CPU; the PONG's ``ticks`` is when
    the loop found the frame waiting, the nearest it knows to its arrival."""
    device, _, _, _ = _device()
    clock = [5_000]

    def ticks_us() -> int:
        return clock[0]

    link = Wire(encode_frame(p.Ping(3), 0))

    def slow_readinto(view: memoryview) -> None:
        clock[0] += 700  # each read costs 700 µs
        link.readinto(view)

    logic.HostInput(slow_readinto, device).read(ticks_us)
    (pong,) = [m for m in Host(device).read() if isinstance(m, p.Pong)]
    assert pong.ticks == 5_000


def _cobs_blocks(wire: bytes) -> list[int]:
    """The code bytes of one COBS frame (its delimiter last)."""
    codes, i = [], 0
    while wire[i] != 0:
        codes.append(wire[i])
        i += wire[i]
    return codes


_host_frames = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(range(len(HOST_MESSAGES))), st.integers(0, 0xFFFF)).map(
            lambda pair: encode_frame(HOST_MESSAGES[pair[0]], pair[1])
        ),
        st.binary(min_size=1, max_size=40),  # garbage, a torn frame, stray zeros
    ),
    max_size=12,
)


@given(_host_frames, st.lists(st.booleans(), max_size=64))
def test_reading_frames_whole_acts_as_the_byte_stream_does(
    chunks: list[bytes], pauses: list[bool]
) -> None:
    """Whatever the host's bytes (frames, garbage, torn frames), reading them a
    frame at a time leaves the device exactly as feeding them byte by byte:
    the same replies, lamps, pulses and good/bad counts. Also when the rest of
    a frame is not there yet (``ready`` says no: the host paused mid-frame, or
    went silent), and the frame is finished from the bytes that come later."""
    tail = encode_frame(p.Ping(99), 1) * 3  # the host's next pings, if a read runs on
    link = Wire(b"".join(chunks), then=tail)
    fast, fast_host, fast_lamps, fast_pulses = _device()
    answers = iter(pauses)
    reader = logic.HostInput(link.readinto, fast, lambda: next(answers, True))
    while link.data:
        reader.read(lambda: 5)
    slow, slow_host, slow_lamps, slow_pulses = _device()
    for byte in bytes(link.taken):
        slow.feed(bytes([byte]), 5)
    assert fast_host.read() == slow_host.read()
    assert (fast_lamps, fast_pulses) == (slow_lamps, slow_pulses)
    assert (fast.reader.good, fast.reader.bad) == (slow.reader.good, slow.reader.bad)
