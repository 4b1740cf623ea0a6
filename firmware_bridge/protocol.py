"""The wire protocol between the Pico firmware and the host (docs/wire-protocol.md).

Pure: no I/O, no clock, no threads. The host's link (:mod:`.link`) and the
emulator (:mod:`.emulator`) build on it; the firmware has an independent
implementation of the same bytes in :mod:`.firmware.logic` (MicroPython has
neither dataclasses nor ``binascii.crc_hqx``), and the tests hold the two
against each other, so a mistake in one does not hide in both.

A frame on the wire is ``COBS(version | type | seq | payload | crc16) 0x00``:

- **COBS** removes every zero byte from the frame, so ``0x00`` can only be a
  delimiter: a decoder that starts mid-stream, or sees garbage, resynchronises
  at the next zero without any escape state (SLIP's escapes can be desynced
  by a single lost byte; COBS cannot).
- **CRC-16/CCITT-FALSE** (poly 0x1021, init 0xFFFF) over everything before it,
  sent big-endian so that the CRC of a whole good frame is zero. It catches
  every error burst up to 16 bits, which is what a flipped byte on a USB CDC
  line or a half-written frame after a replug looks like.
- ``seq`` (u16) counts frames per direction, for link-quality counters; the
  button events carry their own u32 event number, which is what the acks and
  the resend-after-reconnect work on (a resent event keeps its number, a frame
  never does).

Every multi-byte field is little-endian (as the RP2040 and ``struct`` ``<``),
except the trailing CRC.
"""

from __future__ import annotations

import binascii
import enum
import struct
from dataclasses import dataclass, field
from typing import ClassVar, Final, Self

from buzzer.errors import SvoyakError

#: The protocol version in every frame's first byte and in the handshake.
#: A frame of another version is counted as bad and dropped (never guessed at):
#: the decoder's ``BadFrame.VERSION`` count is how a host tells a Pico with
#: older firmware from line noise. 2: the HEARTBEAT's counters are u32 and it
#: carries the capture ring's overflows. 3: the PONG carries the tick it was
#: sent at, besides the tick the ping was read at.
PROTOCOL_VERSION: Final = 4

#: The delimiter between frames (the only zero byte COBS leaves on the wire).
DELIMITER: Final = b"\x00"

#: version, type, seq.
HEADER: Final = struct.Struct("<BBH")
CRC_SIZE: Final = 2

#: The longest raw frame (header + payload + CRC) any message of this version
#: can have. The decoder drops any chunk longer than its COBS encoding, so a
#: stream of garbage with no zero in it cannot grow a buffer without bound.
MAX_PAYLOAD: Final = 48
MAX_RAW_FRAME: Final = HEADER.size + MAX_PAYLOAD + CRC_SIZE
MAX_ENCODED_FRAME: Final = MAX_RAW_FRAME + MAX_RAW_FRAME // 254 + 1


# -- CRC and COBS ------------------------------------------------------------------


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (check value: ``crc16(b"123456789") == 0x29B1``).

    ``binascii.crc_hqx`` is exactly this CRC (poly 0x1021, no reflection,
    no final xor) with the initial value as its second argument, in C: the
    decoder's hot path spends almost nothing on it.
    """
    return binascii.crc_hqx(data, crc)


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: ``data`` with every zero byte removed.

    Each zero-free run of up to 254 bytes is preceded by a code byte: the
    run's length plus one. A code of 0xFF means "254 bytes and no zero
    after them". The overhead is one byte per 254, plus one.
    """
    out = bytearray()
    for run in data.split(b"\x00"):
        # A run longer than 254 bytes is cut into 0xFF blocks with no implied zero.
        while len(run) >= 0xFE:
            out.append(0xFF)
            out += run[:0xFE]
            run = run[0xFE:]
        out.append(len(run) + 1)
        out += run
    return bytes(out)


class CobsError(SvoyakError, ValueError):
    """The bytes between two delimiters are not a valid COBS encoding."""


def cobs_decode(data: bytes) -> bytes:
    """Undo :func:`cobs_encode`; raises :class:`CobsError` on a malformed block.

    Works block by block with slices (no per-byte Python loop): a frame of
    this protocol is one or two blocks, so decoding costs a few slices.
    """
    if not data:
        raise CobsError("empty frame")
    if 0 in data:
        raise CobsError("zero byte inside a COBS frame")
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        end = i + code
        if end > n:
            raise CobsError("block runs past the end of the frame")
        out += data[i + 1 : end]
        i = end
        # A block shorter than 0xFF implies a zero after it, except at the very end.
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


# -- messages -----------------------------------------------------------------------


class MsgType(enum.IntEnum):
    """Message types. The high bit marks host → device messages, so a frame
    read in the wrong direction is recognisable (and counted) as such."""

    HELLO = 0x01
    PRESS = 0x02
    RELEASE = 0x03
    HEARTBEAT = 0x04
    PONG = 0x05
    CMD_ACK = 0x06
    PULSED = 0x07
    HOST_HELLO = 0x81
    ACK = 0x82
    PING = 0x83
    LAMP = 0x84
    TEST_PULSE = 0x85


class LampMode(enum.IntEnum):
    """What a lamp does; ``BLINK`` toggles every half ``period_ms`` on the device."""

    OFF = 0
    ON = 1
    BLINK = 2


class AckStatus(enum.IntEnum):
    """The device's answer to a command (:class:`CmdAck`)."""

    OK = 0
    BAD_ARGUMENT = 1
    BUSY = 2


#: ``Hello.flags`` bit: the firmware runs on a chip it has no register map for
#: (a Pico 2's RP2350) and captures nothing.
HELLO_UNSUPPORTED_CHIP: Final = 0x01

#: ``Event.flags`` bit: this event was sent before and is being resent.
FLAG_RESENT: Final = 0x01
#: ``Event.flags`` bit: the edge was synthesised by the firmware's level check after
#: the hold-off (a bounce the IRQ filtered out ended in the other state), not by an IRQ.
FLAG_RECONCILED: Final = 0x02
#: ``Event.flags`` bit: the edge is the firmware's own test pulse (TEST_PULSE).
FLAG_TEST: Final = 0x04


@dataclass(frozen=True, slots=True)
class Hello:
    """Device → host, in answer to :class:`HostHello` (and once at boot).

    ``boot_id`` is drawn at power-up: the same value after a reconnect means
    the device kept running (its tick count, its event numbers and its ring
    of unacknowledged events are still valid); a new value means it
    restarted. ``tick_bits`` is the width of the device's tick counter:
    MicroPython's ``ticks_us`` wraps at ``2**30`` on the RP2040, not ``2**32``.
    """

    TYPE: ClassVar[MsgType] = MsgType.HELLO
    FORMAT: ClassVar[struct.Struct] = struct.Struct("<BBBBBBBB8sIIII8sB")

    protocol: int
    firmware: tuple[int, int, int]
    buttons: int
    lamps: int
    tick_bits: int
    board_id: bytes
    boot_id: int
    ticks: int
    next_event: int
    oldest_unacked: int
    flags: int = 0
    #: The first 8 bytes of SHA-256 over the files the device runs (main.py,
    #: then logic.mpy): which firmware this is, not only its version number.
    firmware_id: bytes = bytes(8)
    #: Buttons found held at power-up (bit i: button i): a stuck button or
    #: cable, which the host reports as a fault.
    held_at_boot: int = 0

    @property
    def unsupported_chip(self) -> bool:
        """The firmware found itself on a chip it has no register map for (an RP2350)."""
        return bool(self.flags & HELLO_UNSUPPORTED_CHIP)

    def pack(self) -> bytes:
        major, minor, patch = self.firmware
        return self.FORMAT.pack(
            self.protocol,
            major,
            minor,
            patch,
            self.buttons,
            self.lamps,
            self.tick_bits,
            self.flags,
            self.board_id,
            self.boot_id,
            self.ticks,
            self.next_event,
            self.oldest_unacked,
            self.firmware_id,
            self.held_at_boot,
        )

    @classmethod
    def unpack(cls, payload: bytes) -> Hello:
        (proto, major, minor, patch, buttons, lamps, bits, flags, board, boot, ticks, nxt, old,
         firmware_id, held) = cls.FORMAT.unpack(payload)  # fmt: skip
        if not 1 <= bits <= 32:
            raise ValueError("tick_bits out of range")
        return cls(
            proto,
            (major, minor, patch),
            buttons,
            lamps,
            bits,
            board,
            boot,
            ticks,
            nxt,
            old,
            flags,
            firmware_id,
            held,
        )


@dataclass(frozen=True, slots=True)
class _Edge:
    """A button edge at device tick ``ticks`` (µs); PRESS and RELEASE share the layout.

    ``event`` numbers every PRESS and RELEASE of one boot from 1, and is
    what the host acknowledges: a resend keeps its number, so the host can
    drop a duplicate without comparing timestamps.
    """

    FORMAT: ClassVar[struct.Struct] = struct.Struct("<IIBB")

    event: int
    ticks: int
    button: int
    flags: int = 0

    def pack(self) -> bytes:
        return self.FORMAT.pack(self.event, self.ticks, self.button, self.flags)

    @classmethod
    def unpack(cls, payload: bytes) -> Self:
        return cls(*cls.FORMAT.unpack(payload))


@dataclass(frozen=True, slots=True)
class Press(_Edge):
    """Device → host: a button went down."""

    TYPE: ClassVar[MsgType] = MsgType.PRESS


@dataclass(frozen=True, slots=True)
class Release(_Edge):
    """Device → host: a button went up."""

    TYPE: ClassVar[MsgType] = MsgType.RELEASE


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Device → host, at least every millisecond while the host listens (every
    250 ms while it does not): alive, its watermark tick, and its counters.

    ``oldest_unacked`` lets the host tell a gap that a resend will fill from
    one that can no longer be filled (the device's ring overflowed: ``dropped``).
    Always ``oldest_unacked <= next_event``; the host ignores a heartbeat whose
    counters contradict the events it holds (``EventLedger.counters_problem``).
    ``ring_overflows`` counts edges the device's capture ring lost *before*
    they got an event number: a loss no gap in the numbers can show, so the
    device must say it. The counters are cumulative over the boot, u32: a
    16-bit one would wrap within minutes of a long outage.
    """

    TYPE: ClassVar[MsgType] = MsgType.HEARTBEAT
    FORMAT: ClassVar[struct.Struct] = struct.Struct("<IIIIII")

    ticks: int
    next_event: int
    oldest_unacked: int
    dropped: int
    rx_bad: int
    ring_overflows: int = 0

    def pack(self) -> bytes:
        return self.FORMAT.pack(
            self.ticks,
            self.next_event,
            self.oldest_unacked,
            self.dropped,
            self.rx_bad,
            self.ring_overflows,
        )

    @classmethod
    def unpack(cls, payload: bytes) -> Heartbeat:
        return cls(*cls.FORMAT.unpack(payload))


@dataclass(frozen=True, slots=True)
class Pong:
    """Device → host: the answer to :class:`Ping`, echoing the host's ``t0``,
    with two device ticks (NTP's way): ``ticks`` as the device began to read
    the ping, ``sent_ticks`` as it handed the answer to USB. The time between
    them is the device's own delay, which the clock fit takes out of the
    round trip (``firmware_bridge/clock.py``)."""

    TYPE: ClassVar[MsgType] = MsgType.PONG
    FORMAT: ClassVar[struct.Struct] = struct.Struct("<QII")

    host_t0: int
    ticks: int
    sent_ticks: int

    def pack(self) -> bytes:
        return self.FORMAT.pack(self.host_t0, self.ticks, self.sent_ticks)

    @classmethod
    def unpack(cls, payload: bytes) -> Pong:
        return cls(*cls.FORMAT.unpack(payload))


@dataclass(frozen=True, slots=True)
class CmdAck:
    """Device → host: the command frame ``seq`` of type ``acked`` was applied."""

    TYPE: ClassVar[MsgType] = MsgType.CMD_ACK
    FORMAT: ClassVar[struct.Struct] = struct.Struct("<BHB")

    acked: int
    seq: int
    status: int = AckStatus.OK

    def pack(self) -> bytes:
        return self.FORMAT.pack(self.acked, self.seq, self.status)

    @classmethod
    def unpack(cls, payload: bytes) -> CmdAck:
        return cls(*cls.FORMAT.unpack(payload))


@dataclass(frozen=True, slots=True)
class Pulsed:
    """Device → host: the test pulse ``token`` started driving ``button`` at ``ticks``.

    The PRESS that the pulse causes arrives as any press does (flagged
    :data:`FLAG_TEST`); the self-test's latency is its ``ticks`` minus these.
    """

    TYPE: ClassVar[MsgType] = MsgType.PULSED
    FORMAT: ClassVar[struct.Struct] = struct.Struct("<HBBI")

    token: int
    button: int
    status: int
    ticks: int

    def pack(self) -> bytes:
        return self.FORMAT.pack(self.token, self.button, self.status, self.ticks)

    @classmethod
    def unpack(cls, payload: bytes) -> Pulsed:
        return cls(*cls.FORMAT.unpack(payload))


@dataclass(frozen=True, slots=True)
class HostHello:
    """Host → device: the host opened the port; answer with :class:`Hello`
    and resend every unacknowledged event."""

    TYPE: ClassVar[MsgType] = MsgType.HOST_HELLO
    FORMAT: ClassVar[struct.Struct] = struct.Struct("<BB")

    protocol: int = PROTOCOL_VERSION
    flags: int = 0

    def pack(self) -> bytes:
        return self.FORMAT.pack(self.protocol, self.flags)

    @classmethod
    def unpack(cls, payload: bytes) -> HostHello:
        return cls(*cls.FORMAT.unpack(payload))


@dataclass(frozen=True, slots=True)
class Ack:
    """Host → device: every event up to and including ``event`` has arrived
    (cumulative, like TCP's: one number frees the device's whole ring prefix)."""

    TYPE: ClassVar[MsgType] = MsgType.ACK
    FORMAT: ClassVar[struct.Struct] = struct.Struct("<I")

    event: int

    def pack(self) -> bytes:
        return self.FORMAT.pack(self.event)

    @classmethod
    def unpack(cls, payload: bytes) -> Ack:
        return cls(*cls.FORMAT.unpack(payload))


@dataclass(frozen=True, slots=True)
class Ping:
    """Host → device: ``host_t0`` is the host's monotonic ns when it was sent."""

    TYPE: ClassVar[MsgType] = MsgType.PING
    FORMAT: ClassVar[struct.Struct] = struct.Struct("<Q")

    host_t0: int

    def pack(self) -> bytes:
        return self.FORMAT.pack(self.host_t0)

    @classmethod
    def unpack(cls, payload: bytes) -> Ping:
        return cls(*cls.FORMAT.unpack(payload))


@dataclass(frozen=True, slots=True)
class Lamp:
    """Host → device: set a lamp (``lamp`` 0xFF: every lamp). Idempotent, so
    the host may resend it until it sees the :class:`CmdAck`."""

    TYPE: ClassVar[MsgType] = MsgType.LAMP
    FORMAT: ClassVar[struct.Struct] = struct.Struct("<BBH")
    ALL: ClassVar[int] = 0xFF

    lamp: int
    mode: int
    period_ms: int = 0

    def pack(self) -> bytes:
        return self.FORMAT.pack(self.lamp, self.mode, self.period_ms)

    @classmethod
    def unpack(cls, payload: bytes) -> Lamp:
        return cls(*cls.FORMAT.unpack(payload))


@dataclass(frozen=True, slots=True)
class TestPulse:
    """Host → device: drive ``button``'s input as pressed for ``width_us``,
    from inside the firmware (the self-test without loopback wiring)."""

    TYPE: ClassVar[MsgType] = MsgType.TEST_PULSE
    FORMAT: ClassVar[struct.Struct] = struct.Struct("<BBHI")

    button: int
    token: int
    width_us: int
    flags: int = 0

    def pack(self) -> bytes:
        return self.FORMAT.pack(self.button, self.flags, self.token, self.width_us)

    @classmethod
    def unpack(cls, payload: bytes) -> TestPulse:
        button, flags, token, width = cls.FORMAT.unpack(payload)
        return cls(button, token, width, flags)


Message = (
    Hello
    | Press
    | Release
    | Heartbeat
    | Pong
    | CmdAck
    | Pulsed
    | HostHello
    | Ack
    | Ping
    | Lamp
    | TestPulse
)

_MESSAGE_CLASSES: tuple[type[Message], ...] = (
    Hello,
    Press,
    Release,
    Heartbeat,
    Pong,
    CmdAck,
    Pulsed,
    HostHello,
    Ack,
    Ping,
    Lamp,
    TestPulse,
)
#: type byte → (class, exact payload size). A payload of any other size is a bad frame.
MESSAGES: Final[dict[int, tuple[type[Message], int]]] = {
    int(cls.TYPE): (cls, cls.FORMAT.size) for cls in _MESSAGE_CLASSES
}
assert max(size for _, size in MESSAGES.values()) <= MAX_PAYLOAD


# -- frames ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Frame:
    """A decoded, checked frame: its per-direction ``seq`` and its message."""

    seq: int
    message: Message


def encode_raw(message: Message, seq: int, version: int = PROTOCOL_VERSION) -> bytes:
    """Header, payload and CRC, not yet COBS-encoded (the tests corrupt this)."""
    body = HEADER.pack(version, int(message.TYPE), seq & 0xFFFF) + message.pack()
    return body + crc16(body).to_bytes(2, "big")


def encode_frame(message: Message, seq: int) -> bytes:
    """One frame as it goes on the wire, delimiter included."""
    return cobs_encode(encode_raw(message, seq)) + DELIMITER


class BadFrame(enum.Enum):
    """Why a chunk between two delimiters was dropped (the decoder counts each)."""

    COBS = "cobs"
    LENGTH = "length"
    CRC = "crc"
    VERSION = "version"
    TYPE = "type"
    PAYLOAD = "payload"


class FrameError(SvoyakError, ValueError):
    """A chunk that is not a good frame; ``reason`` says why."""

    def __init__(self, reason: BadFrame) -> None:
        super().__init__(reason.value)
        self.reason = reason


def parse_raw(raw: bytes) -> Frame:
    """Check and parse a COBS-decoded frame; raises :class:`FrameError`."""
    if len(raw) < HEADER.size + CRC_SIZE or len(raw) > MAX_RAW_FRAME:
        raise FrameError(BadFrame.LENGTH)
    # The CRC of a whole good frame, its big-endian CRC included, is zero.
    if crc16(raw) != 0:
        raise FrameError(BadFrame.CRC)
    version, type_, seq = HEADER.unpack_from(raw)
    if version != PROTOCOL_VERSION:
        raise FrameError(BadFrame.VERSION)
    entry = MESSAGES.get(type_)
    if entry is None:
        raise FrameError(BadFrame.TYPE)
    cls, size = entry
    payload = raw[HEADER.size : -CRC_SIZE]
    if len(payload) != size:
        raise FrameError(BadFrame.LENGTH)
    try:
        message = cls.unpack(payload)
    except (ValueError, struct.error):
        raise FrameError(BadFrame.PAYLOAD) from None
    return Frame(seq, message)


def decode_frame(chunk: bytes) -> Frame:
    """One chunk (the bytes between two delimiters) → a frame; raises :class:`FrameError`."""
    if len(chunk) > MAX_ENCODED_FRAME:
        raise FrameError(BadFrame.LENGTH)
    try:
        raw = cobs_decode(chunk)
    except CobsError:
        raise FrameError(BadFrame.COBS) from None
    return parse_raw(raw)


@dataclass(slots=True)
class DecoderStats:
    """What a :class:`FrameDecoder` has seen. Every non-empty chunk between two
    delimiters is either in ``frames`` or in exactly one of the bad counters."""

    frames: int = 0
    empty: int = 0
    bad: dict[BadFrame, int] = field(default_factory=lambda: dict.fromkeys(BadFrame, 0))

    @property
    def bad_total(self) -> int:
        return sum(self.bad.values())


class FrameDecoder:
    """A streaming decoder: fed bytes as they arrive, returns the good frames.

    Never raises on its input. Bytes are cut at each ``0x00``; the bytes
    before the first delimiter after a (re)start are a partial frame and are
    counted as bad like any other chunk that is not a frame. A chunk that
    grows past the longest possible frame is dropped at once (one bad
    ``LENGTH``) and the rest of it, up to the next delimiter, is skipped, so
    memory stays bounded whatever arrives. Empty chunks (two delimiters in a
    row: a sender may send a lone ``0x00`` to flush the line) are counted
    apart, not as bad frames.
    """

    def __init__(self) -> None:
        self._partial = bytearray()
        self._skipping = False
        self.stats = DecoderStats()

    def feed(self, data: bytes) -> list[Frame]:
        """Decode every frame completed by ``data``, in order."""
        frames: list[Frame] = []
        if not data:
            return frames
        parts = data.split(DELIMITER)
        # The last part has no delimiter after it yet: keep it for the next call.
        for part in parts[:-1]:
            self._finish(part, frames)
        self._grow(parts[-1])
        return frames

    def _grow(self, part: bytes) -> None:
        if self._skipping or not part:
            return
        self._partial += part
        if len(self._partial) > MAX_ENCODED_FRAME:
            self._count(BadFrame.LENGTH)
            self._partial.clear()
            self._skipping = True

    def _finish(self, part: bytes, frames: list[Frame]) -> None:
        if self._skipping:
            # The tail of an overlong chunk, already counted.
            self._skipping = False
            self._partial.clear()
            return
        if self._partial:
            chunk = bytes(self._partial) + part
            self._partial.clear()
        else:
            chunk = part
        if not chunk:
            self.stats.empty += 1
            return
        try:
            frame = decode_frame(chunk)
        except FrameError as exc:
            self._count(exc.reason)
            return
        self.stats.frames += 1
        frames.append(frame)

    def _count(self, reason: BadFrame) -> None:
        self.stats.bad[reason] += 1


__all__ = [
    "DELIMITER",
    "FLAG_RECONCILED",
    "FLAG_RESENT",
    "FLAG_TEST",
    "HELLO_UNSUPPORTED_CHIP",
    "MAX_ENCODED_FRAME",
    "MAX_RAW_FRAME",
    "MESSAGES",
    "PROTOCOL_VERSION",
    "Ack",
    "AckStatus",
    "BadFrame",
    "CmdAck",
    "CobsError",
    "DecoderStats",
    "Frame",
    "FrameDecoder",
    "FrameError",
    "Heartbeat",
    "Hello",
    "HostHello",
    "Lamp",
    "LampMode",
    "Message",
    "MsgType",
    "Ping",
    "Pong",
    "Press",
    "Pulsed",
    "Release",
    "TestPulse",
    "cobs_decode",
    "cobs_encode",
    "crc16",
    "decode_frame",
    "encode_frame",
    "encode_raw",
    "parse_raw",
]
