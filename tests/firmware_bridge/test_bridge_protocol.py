"""The wire protocol (firmware_bridge/protocol.py): CRC, COBS, frames, the decoder, fuzzing."""

from __future__ import annotations

import random

import pytest
import serial

from firmware_bridge import protocol as p
from firmware_bridge.protocol import (
    BadFrame,
    FrameDecoder,
    cobs_decode,
    cobs_encode,
    crc16,
    encode_frame,
    encode_raw,
)

# -- CRC-16/CCITT-FALSE --------------------------------------------------------------


def test_crc_check_value() -> None:
    # The catalogue's check value for CRC-16/CCITT-FALSE (a.k.a. CRC-16/IBM-3740).
    assert crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize(
    ("data", "crc"),
    [
        (b"", 0xFFFF),  # the initial value, untouched
        (b"\x00", 0xE1F0),
        (b"A", 0xB915),
    ],
)
def test_crc_vectors(data: bytes, crc: int) -> None:
    assert crc16(data) == crc


def test_crc_of_a_whole_frame_is_zero() -> None:
    raw = encode_raw(p.Press(7, 123, 2), seq=9)
    assert crc16(raw) == 0
    assert crc16(raw[:-2]) == int.from_bytes(raw[-2:], "big")


def test_crc_is_incremental() -> None:
    data = bytes(range(200))
    assert crc16(data[100:], crc16(data[:100])) == crc16(data)


# -- COBS ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "encoded"),
    [
        (b"", b"\x01"),
        (b"\x00", b"\x01\x01"),
        (b"\x00\x00", b"\x01\x01\x01"),
        (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
        (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
        (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
        (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255)) + b"\x01"),
        (bytes(range(0, 255)), b"\x01\xff" + bytes(range(1, 255)) + b"\x01"),
        (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
    ],
)
def test_cobs_known_encodings(data: bytes, encoded: bytes) -> None:
    assert cobs_encode(data) == encoded
    assert cobs_decode(encoded) == data


def test_cobs_round_trip_random() -> None:
    rng = random.Random(1)
    for _ in range(2000):
        n = rng.choice([0, 1, 2, 253, 254, 255, 256, 508, 509, rng.randrange(600)])
        zeros = rng.random()
        data = bytes(0 if rng.random() < zeros else rng.randrange(1, 256) for _ in range(n))
        encoded = cobs_encode(data)
        assert 0 not in encoded
        assert len(encoded) <= len(data) + len(data) // 254 + 1
        assert cobs_decode(encoded) == data


@pytest.mark.parametrize("bad", [b"", b"\x05\x11", b"\x03\x11\x00", b"\x02\x11\x09"])
def test_cobs_rejects_malformed(bad: bytes) -> None:
    with pytest.raises(p.CobsError):
        cobs_decode(bad)


# -- messages and frames -----------------------------------------------------------------

ALL_MESSAGES: list[p.Message] = [
    p.Hello(1, (1, 2, 3), 8, 6, 30, b"\x01\x02\x03\x04\x05\x06\x07\x08", 0xDEADBEEF, 5, 17, 12),
    p.Press(1, 0, 0),
    p.Press(0xFFFFFFFF, (1 << 30) - 1, 7, p.FLAG_RESENT | p.FLAG_TEST),
    p.Release(42, 123456, 3, p.FLAG_RECONCILED),
    p.Heartbeat(99, 10, 8, 1, 2),
    p.Heartbeat(99, 10, 8, 70_000, 2**32 - 1, 3),
    p.Pong(2**64 - 1, 77, 2**30 - 1),
    p.CmdAck(int(p.MsgType.LAMP), 0xFFFF, p.AckStatus.BAD_ARGUMENT),
    p.Pulsed(5, 1, 0, 1000),
    p.HostHello(),
    p.Ack(0),
    p.Ping(1_700_000_000_000_000_000),
    p.Lamp(p.Lamp.ALL, p.LampMode.BLINK, 500),
    p.TestPulse(3, 9, 2000),
]


@pytest.mark.parametrize("message", ALL_MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips(message: p.Message) -> None:
    wire = encode_frame(message, seq=0x1234)
    assert wire.endswith(b"\x00") and 0 not in wire[:-1]
    assert len(wire) <= p.MAX_ENCODED_FRAME + 1
    frames = FrameDecoder().feed(wire)
    assert frames == [p.Frame(0x1234, message)]


def test_every_type_has_a_message_class() -> None:
    assert set(p.MESSAGES) == {int(t) for t in p.MsgType}
    for type_, (cls, size) in p.MESSAGES.items():
        assert type_ == cls.TYPE and cls.FORMAT.size == size


def test_press_layout_is_as_documented() -> None:
    # docs/wire-protocol.md: event u32 LE, ticks u32 LE, button u8, flags u8.
    raw = encode_raw(p.Press(0x01020304, 0x0A0B0C0D, 5, 1), seq=0x0201)
    assert raw[:4] == bytes([p.PROTOCOL_VERSION, 0x02, 0x01, 0x02])
    assert raw[4:14] == bytes([4, 3, 2, 1, 0x0D, 0x0C, 0x0B, 0x0A, 5, 1])


def test_heartbeat_layout_is_as_documented() -> None:
    # docs/wire-protocol.md: ticks, next_event, oldest_unacked, dropped, rx_bad,
    # ring_overflows: u32 LE each (24 bytes).
    raw = encode_raw(p.Heartbeat(1, 2, 3, 0x10004, 5, 0x01020306), seq=0)
    assert raw[1] == p.MsgType.HEARTBEAT and len(raw) == 4 + 24 + 2
    assert raw[4:28] == bytes(
        [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 1, 0, 5, 0, 0, 0, 6, 3, 2, 1]
    )


def test_hello_rejects_tick_bits_out_of_range() -> None:
    bad = p.Hello(1, (1, 0, 0), 8, 8, 0, bytes(8), 1, 2, 3, 4)
    stats = FrameDecoder()
    assert stats.feed(encode_frame(bad, 1)) == []
    assert stats.stats.bad[BadFrame.PAYLOAD] == 1


def test_decoder_streams_byte_by_byte() -> None:
    wire = b"".join(encode_frame(m, i) for i, m in enumerate(ALL_MESSAGES))
    decoder = FrameDecoder()
    got = []
    for i in range(len(wire)):
        got += decoder.feed(wire[i : i + 1])
    assert [f.message for f in got] == ALL_MESSAGES
    assert decoder.stats.bad_total == 0


def test_decoder_counts_each_kind_of_bad_frame() -> None:
    decoder = FrameDecoder()
    good = encode_raw(p.Press(1, 2, 3), 0)

    def reframe(raw: bytes) -> bytes:
        body = raw[:-2]
        return cobs_encode(body + crc16(body).to_bytes(2, "big")) + b"\x00"

    wire = b"\x00\x00"  # empty chunks: not bad frames
    wire += b"\x05\x01\x02\x00"  # COBS block runs past the end
    wire += cobs_encode(b"\x01\x02\x03") + b"\x00"  # too short
    wire += cobs_encode(good[:-1] + bytes([good[-1] ^ 0x40])) + b"\x00"  # CRC
    wire += reframe(bytes([1]) + good[1:])  # version 1: a Pico of older firmware
    wire += reframe(good[:1] + bytes([0x55]) + good[2:])  # unknown type
    wire += reframe(good[:-3] + good[-2:])  # payload one byte short
    wire += b"\x7f" * (p.MAX_ENCODED_FRAME + 5) + b"\x00"  # overlong: dropped as it grows
    wire += encode_frame(p.Press(1, 2, 3), 0)
    frames = decoder.feed(wire)
    assert [f.message for f in frames] == [p.Press(1, 2, 3)]
    bad = decoder.stats.bad
    assert bad[BadFrame.COBS] == 1
    assert bad[BadFrame.LENGTH] == 3
    assert bad[BadFrame.CRC] == 1
    assert bad[BadFrame.VERSION] == 1
    assert bad[BadFrame.TYPE] == 1
    assert decoder.stats.empty == 2
    assert decoder.stats.frames == 1


def test_decoder_resynchronises_after_garbage_without_delimiter() -> None:
    # Garbage glued to the front of a frame spoils that frame (one bad), never the next.
    decoder = FrameDecoder()
    frame = encode_frame(p.Release(3, 4, 5), 1)
    frames = decoder.feed(b"\x13\x37" + frame + frame)
    assert [f.message for f in frames] == [p.Release(3, 4, 5)]
    assert decoder.stats.bad_total == 1


# -- fuzzing: 100,000 random or corrupted frames --------------------------------------------

FUZZ_FRAMES = 100_000


def _random_message(rng: random.Random) -> p.Message:
    kind = rng.randrange(6)
    if kind == 0:
        return p.Press(rng.randrange(1, 2**32), rng.randrange(2**30), rng.randrange(8))
    if kind == 1:
        return p.Release(rng.randrange(1, 2**32), rng.randrange(2**30), rng.randrange(8))
    if kind == 2:
        return p.Heartbeat(rng.randrange(2**30), rng.randrange(2**20), rng.randrange(2**20), 0, 0)
    if kind == 3:
        return p.Pong(rng.randrange(2**64), rng.randrange(2**30), rng.randrange(2**30))
    if kind == 4:
        return p.CmdAck(int(p.MsgType.LAMP), rng.randrange(2**16))
    return p.Pulsed(rng.randrange(2**16), rng.randrange(8), 0, rng.randrange(2**30))


def _recrc(body: bytes) -> bytes:
    return body + crc16(body).to_bytes(2, "big")


def _corrupt(rng: random.Random, raw: bytes) -> bytes:
    """A chunk (no delimiter) that is not a good frame. Most kinds are bad by
    construction; the random ones pass the CRC with odds 2**-16, and then
    still need this version, a known type and its exact length."""
    kind = rng.randrange(8)
    if kind == 0:  # flip up to 8 bits of one byte: CRC-16 catches every such burst
        i = rng.randrange(len(raw))
        flipped = raw[i] ^ rng.randrange(1, 256)
        return cobs_encode(raw[:i] + bytes([flipped]) + raw[i + 1 :])
    if kind == 1:  # truncated on the wire
        encoded = cobs_encode(raw)
        return encoded[: rng.randrange(1, len(encoded))]
    if kind == 2:  # line noise: random non-zero bytes
        return bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 70)))
    if kind == 3:  # another protocol version, CRC correct
        other = rng.choice([v for v in range(256) if v != p.PROTOCOL_VERSION])
        return cobs_encode(_recrc(bytes([other]) + raw[1:-2]))
    if kind == 4:  # unknown type, CRC correct
        unknown = rng.choice([t for t in range(256) if t not in p.MESSAGES])
        return cobs_encode(_recrc(raw[:1] + bytes([unknown]) + raw[2:-2]))
    if kind == 5:  # payload of the wrong length, CRC correct
        body = raw[:-2]
        body = body[:-1] if rng.random() < 0.5 else body + b"\x01"
        return cobs_encode(_recrc(body))
    if kind == 6:  # one wire byte replaced by another non-zero byte
        encoded = bytearray(cobs_encode(raw))
        i = rng.randrange(len(encoded))
        encoded[i] = rng.choice([b for b in range(1, 256) if b != encoded[i]])
        return bytes(encoded)
    # two frames run together (their delimiter lost)
    return cobs_encode(raw) + cobs_encode(raw)


def test_fuzz_decoder_counts_every_bad_frame_and_invents_no_press() -> None:
    rng = random.Random(20260430)
    stream = bytearray()
    expected: list[p.Frame] = []
    corrupted = empties = 0
    for i in range(FUZZ_FRAMES):
        message = _random_message(rng)
        seq = i & 0xFFFF
        raw = encode_raw(message, seq)
        if rng.random() < 0.5:
            stream += cobs_encode(raw) + b"\x00"
            expected.append(p.Frame(seq, message))
        else:
            stream += _corrupt(rng, raw) + b"\x00"
            corrupted += 1
        if rng.random() < 0.02:
            stream += b"\x00"
            empties += 1
    decoder = FrameDecoder()
    got: list[p.Frame] = []
    data = bytes(stream)
    at = 0
    while at < len(data):  # arbitrary read sizes, as a serial port returns them
        step = rng.randrange(1, 600)
        got += decoder.feed(data[at : at + step])
        at += step
    stats = decoder.stats
    assert got == expected  # every good frame, in order; nothing invented
    assert stats.frames == len(expected)
    assert stats.bad_total == corrupted
    assert stats.empty == empties
    presses_sent = sum(isinstance(f.message, p.Press) for f in expected)
    assert sum(isinstance(f.message, p.Press) for f in got) == presses_sent


def test_fuzz_pure_garbage_never_raises_and_counts_every_chunk() -> None:
    rng = random.Random(7)
    decoder = FrameDecoder()
    stream = bytearray()
    for _ in range(2000):
        # Mostly non-zero bytes, so that long chunks (and overlong ones) occur too.
        chunk = bytes(
            rng.randrange(256) if rng.random() < 0.02 else rng.randrange(1, 256)
            for _ in range(rng.randrange(1, 300))
        )
        stream += chunk
        decoder.feed(chunk)
    *complete, tail = bytes(stream).split(b"\x00")
    chunks = [c for c in complete if c]
    if len(tail) > p.MAX_ENCODED_FRAME:
        chunks.append(tail)  # an overlong chunk is dropped (and counted) as it grows
    assert decoder.stats.frames == 0
    assert decoder.stats.bad_total == len(chunks)


def _crc_bitwise(data: bytes) -> int:
    """CRC-16/CCITT-FALSE bit by bit, straight from its definition."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def test_crc_agrees_with_its_definition() -> None:
    rng = random.Random(3)
    for n in range(0, 300, 7):
        data = bytes(rng.randrange(256) for _ in range(n))
        assert crc16(data) == _crc_bitwise(data)


# -- loop:// : the framing through a real pyserial port ----------------------------------------


def test_loop_url_round_trip() -> None:
    port = serial.serial_for_url("loop://", timeout=0.5)
    try:
        wire = b"".join(encode_frame(m, i) for i, m in enumerate(ALL_MESSAGES))
        port.write(b"\x00" + wire)
        received = port.read(len(wire) + 1)
    finally:
        port.close()
    decoder = FrameDecoder()
    assert [f.message for f in decoder.feed(received)] == ALL_MESSAGES
    assert decoder.stats.bad_total == 0
