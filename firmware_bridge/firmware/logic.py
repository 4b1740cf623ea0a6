"""The firmware's pure logic: runs unchanged under MicroPython and CPython.

Copied to the Pico as ``logic.py`` next to ``main.py`` (the hardware glue).
The host imports it too: the emulator (``firmware_bridge/emulator.py``) runs
this very code behind a pseudo-terminal, and the tests run it under CPython
and under the MicroPython WebAssembly port. So it may use only what both
interpreters have: no dataclasses, enum, typing or f-string tricks, no
``struct.Struct`` (MicroPython's ``struct`` has only the functions), no
``binascii.crc_hqx``; ``array``, ``struct`` and plain classes only.

It is an independent implementation of the bytes that
``firmware_bridge/protocol.py`` describes (docs/wire-protocol.md): the tests
hold the two against each other.

What runs in the hard IRQ is :meth:`EdgeRing.put` alone. It allocates
nothing: it writes small ints into preallocated ``array``/``bytearray``
slots, and the tick-difference function it calls is ``time.ticks_diff`` on
the Pico (a builtin, no allocation). Everything else runs in the main loop,
where allocation is allowed, but the HEARTBEAT (more than 1000 a second) is
built in preallocated buffers (:class:`HeartbeatFrame`): a frame's worth of
garbage every millisecond would make the collector stall the main loop.
"""

import struct
from array import array

# The annotations are for mypy on the host; MicroPython ignores them and has no
# ``typing`` module (mypy takes any name TYPE_CHECKING as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable


PROTOCOL_VERSION = 1
FIRMWARE_VERSION = (1, 0, 0)

# Message types (docs/wire-protocol.md); the high bit marks host -> device.
T_HELLO = 0x01
T_PRESS = 0x02
T_RELEASE = 0x03
T_HEARTBEAT = 0x04
T_PONG = 0x05
T_CMD_ACK = 0x06
T_PULSED = 0x07
T_HOST_HELLO = 0x81
T_ACK = 0x82
T_PING = 0x83
T_LAMP = 0x84
T_TEST_PULSE = 0x85

# Exact payload sizes of the messages the device accepts.
HOST_PAYLOAD = {
    T_HOST_HELLO: 2,
    T_ACK: 4,
    T_PING: 8,
    T_LAMP: 4,
    T_TEST_PULSE: 8,
}

LAMP_OFF = 0
LAMP_ON = 1
LAMP_BLINK = 2
LAMP_ALL = 0xFF
DEFAULT_BLINK_MS = 500

ACK_OK = 0
ACK_BAD_ARGUMENT = 1

FLAG_RESENT = 0x01
FLAG_RECONCILED = 0x02
FLAG_TEST = 0x04

MAX_RAW_FRAME = 54  # header 4 + payload 48 + CRC 2
MAX_ENCODED_FRAME = MAX_RAW_FRAME + MAX_RAW_FRAME // 254 + 1

# MicroPython's ticks_us() wraps at 2**30 on the RP2040 (TICKS_PERIOD is the
# small-int range, not 2**32): the HELLO tells the host so.
TICKS_BITS = 30


# -- wrap-safe tick arithmetic (the same as time.ticks_diff / time.ticks_add) --------


def ticks_diff(a: int, b: int, period: int = 1 << TICKS_BITS) -> int:
    """Signed ``a - b`` on a counter of ``period`` values (a power of two):
    correct whenever the true difference lies in ``[-period/2, period/2)``."""
    half = period >> 1
    return ((a - b + half) & (period - 1)) - half


def ticks_add(a: int, delta: int, period: int = 1 << TICKS_BITS) -> int:
    """``a + delta`` on the wrapping counter."""
    return (a + delta) & (period - 1)


# -- CRC-16/CCITT-FALSE and COBS -----------------------------------------------------


def _crc_table() -> "array[int]":
    table = array("H", [0] * 256)
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table[byte] = crc & 0xFFFF
    return table


CRC_TABLE = _crc_table()


def crc16(data: bytes | bytearray, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not reflected, no xorout)."""
    table = CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFF00) ^ table[(crc >> 8) ^ byte]
    return crc


def cobs_encode(data: bytes | bytearray) -> bytes:
    """COBS-encode ``data`` (no zero byte in the result)."""
    out = bytearray()
    code_at = 0
    out.append(0)  # placeholder for the first code byte
    code = 1
    for byte in data:
        if byte == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(byte)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes | bytearray) -> bytes | None:
    """Decode one COBS chunk; ``None`` if it is malformed (never raises on bytes)."""
    n = len(data)
    if n == 0:
        return None
    out = bytearray()
    i = 0
    while i < n:
        code = data[i]
        if code == 0 or i + code > n:
            return None
        j = i + 1
        end = i + code
        while j < end:
            byte = data[j]
            if byte == 0:
                return None
            out.append(byte)
            j += 1
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def frame(msg_type: int, seq: int, payload: bytes | bytearray) -> bytes:
    """One frame as it goes on the wire: COBS(header, payload, CRC) and the delimiter."""
    body = bytearray(struct.pack("<BBH", PROTOCOL_VERSION, msg_type, seq & 0xFFFF))
    body += payload
    crc = crc16(body)
    body.append(crc >> 8)
    body.append(crc & 0xFF)
    return cobs_encode(body) + b"\x00"


def parse(raw: bytes | None) -> tuple[int, int, bytes] | None:
    """A COBS-decoded frame -> ``(type, seq, payload)``, or ``None`` if it is bad."""
    if raw is None or len(raw) < 6 or len(raw) > MAX_RAW_FRAME:
        return None
    if crc16(raw) != 0:
        return None
    if raw[0] != PROTOCOL_VERSION:
        return None
    msg_type = raw[1]
    seq = raw[2] | (raw[3] << 8)
    return msg_type, seq, raw[4:-2]


class FrameReader:
    """The device's streaming decoder: bytes in, ``(type, seq, payload)`` out.

    Counts bad chunks (``bad``) and never raises; a chunk longer than any
    frame is dropped as it grows, so memory stays bounded.
    """

    def __init__(self) -> None:
        self.buf = bytearray()
        self.skipping = False
        self.good = 0
        self.bad = 0

    def feed(self, data: bytes | bytearray) -> list[tuple[int, int, bytes]]:
        frames: list[tuple[int, int, bytes]] = []
        for byte in data:
            if byte == 0:
                if self.skipping:
                    self.skipping = False
                elif len(self.buf):
                    parsed = parse(cobs_decode(bytes(self.buf)))
                    if parsed is None:
                        self.bad += 1
                    else:
                        self.good += 1
                        frames.append(parsed)
                self.buf = bytearray()
            elif not self.skipping:
                self.buf.append(byte)
                if len(self.buf) > MAX_ENCODED_FRAME:
                    self.bad += 1
                    self.buf = bytearray()
                    self.skipping = True
        return frames


HEARTBEAT_PAYLOAD = 16
HEARTBEAT_RAW = 4 + HEARTBEAT_PAYLOAD + 2
#: COBS adds one code byte to a run this short (no 254-byte block), then the delimiter.
HEARTBEAT_WIRE = HEARTBEAT_RAW + 2


class HeartbeatFrame:
    """The HEARTBEAT frame, built in place: the same bytes as :func:`frame`, no garbage.

    It goes out more than 1000 times a second. :func:`frame` allocates a few
    objects per call, and on the Pico that garbage would bring a collection
    (milliseconds with the main loop stopped) every second or two: the very
    stall the heartbeat exists to bound. The frame has a fixed length, so
    the header, payload, CRC and COBS output all live in two preallocated
    ``bytearray`` s and :meth:`build` allocates nothing (a test checks this
    under MicroPython with the GC's own counter).
    """

    def __init__(self) -> None:
        self.raw = bytearray(HEARTBEAT_RAW)
        self.raw[0] = PROTOCOL_VERSION
        self.raw[1] = T_HEARTBEAT
        self.wire = bytearray(HEARTBEAT_WIRE)

    def build(
        self, seq: int, ticks: int, next_event: int, oldest: int, dropped: int, rx_bad: int
    ) -> bytearray:
        """Fill the frame; returns :attr:`wire` (valid until the next call)."""
        raw = self.raw
        struct.pack_into("<HIIIHH", raw, 2, seq, ticks, next_event, oldest, dropped, rx_bad)
        crc = 0xFFFF
        table = CRC_TABLE
        end = HEARTBEAT_RAW - 2
        for i in range(end):
            crc = ((crc << 8) & 0xFF00) ^ table[(crc >> 8) ^ raw[i]]
        raw[end] = crc >> 8
        raw[end + 1] = crc & 0xFF
        wire = self.wire
        # COBS into the fixed buffer (the run is shorter than 254: no 0xFF blocks).
        code_at = 0
        code = 1
        j = 1
        for i in range(HEARTBEAT_RAW):
            byte = raw[i]
            if byte == 0:
                wire[code_at] = code
                code_at = j
                code = 1
            else:
                wire[j] = byte
                code += 1
            j += 1
        wire[code_at] = code
        wire[j] = 0
        return wire


# -- edge capture (the hard IRQ writes, the main loop reads) --------------------------


class EdgeRing:
    """Button edges stamped in the hard IRQ, in a preallocated ring.

    Hold-off: the first edge of a button is taken at once, stamped with the
    tick the IRQ read, and further edges of that button are ignored for
    ``holdoff_us`` (a contact's bounce). An accepted edge toggles the
    button's reported state: after a quiet hold-off, any edge is a change
    away from the steady state, whatever level a late read of the pin would
    show mid-bounce. :meth:`housekeep` (main loop, IRQs off) ends each
    hold-off and, if the pin then rests in the other state than reported
    (the bounce outlasted the hold-off), adds the missing edge, flagged
    ``FLAG_RECONCILED`` and stamped when it was noticed.
    """

    def __init__(
        self,
        buttons: int,
        size: int = 64,
        holdoff_us: int = 10000,
        diff: "Callable[[int, int], int]" = ticks_diff,
    ) -> None:
        self.size = size
        self.holdoff = holdoff_us
        self.diff = diff
        self.ticks = array("I", [0] * size)
        self.what = bytearray(size)  # button | pressed << 6 | reconciled << 7
        self.idx = array("I", [0, 0, 0])  # head (IRQ writes), tail (main reads), overflows
        self.last = array("I", [0] * buttons)
        self.holding = bytearray(buttons)
        self.state = bytearray(buttons)  # 1: reported pressed

    def put(self, button: int, now: int) -> None:
        """Called from the hard IRQ with the tick read first thing. No allocation."""
        if self.holding[button]:
            d = self.diff(now, self.last[button])
            if 0 <= d < self.holdoff:
                return
        self.holding[button] = 1
        self.last[button] = now
        pressed = self.state[button] ^ 1
        self.state[button] = pressed
        self._push(button | (pressed << 6), now)

    def _push(self, what: int, now: int) -> None:
        idx = self.idx
        head = idx[0]
        nxt = head + 1
        if nxt == self.size:
            nxt = 0
        if nxt == idx[1]:
            idx[2] += 1  # full: the edge is lost, and counted
            return
        self.ticks[head] = now
        self.what[head] = what
        idx[0] = nxt

    def take(self) -> tuple[int, int, int, int] | None:
        """The oldest edge as ``(button, pressed, flags, ticks)``, or ``None``."""
        idx = self.idx
        tail = idx[1]
        if tail == idx[0]:
            return None
        what = self.what[tail]
        ticks = self.ticks[tail]
        tail += 1
        if tail == self.size:
            tail = 0
        idx[1] = tail
        flags = FLAG_RECONCILED if what & 0x80 else 0
        return what & 0x3F, (what >> 6) & 1, flags, ticks

    def housekeep(self, now: int, levels: "bytes | bytearray | list[int]") -> None:
        """End expired hold-offs; fix a state a long bounce left wrong (IRQs off).

        ``levels[i]`` is 1 while button ``i`` reads pressed.
        """
        for button in range(len(self.holding)):
            if self.holding[button] and self.diff(now, self.last[button]) >= self.holdoff:
                self.holding[button] = 0
            if not self.holding[button] and levels[button] != self.state[button]:
                pressed = levels[button]
                self.state[button] = pressed
                self.holding[button] = 1
                self.last[button] = now
                self._push(button | (pressed << 6) | 0x80, now)

    @property
    def overflows(self) -> int:
        return self.idx[2]


# -- the protocol state machine of the device ------------------------------------------


class Device:
    """Everything the firmware does between the edge ring and the USB serial line.

    The main loop calls :meth:`feed` with the bytes the host sent, then
    :meth:`service` (which hands every captured edge to :meth:`edge` and
    runs :meth:`poll`), and writes what :meth:`write_output` (or
    :meth:`take_output`) gives. ``now`` is always the current tick. The
    hardware is reached only through ``on_lamp(index, level)`` and
    ``on_pulse(button, active)``, so the emulator and the tests drive this
    same class.

    The HEARTBEAT is the host's event-time **watermark**: its ``ticks`` H
    promises that every event stamped at or before H was sent before it.
    :meth:`service` makes that true by reading the tick *before* it drains
    the edge ring (an edge stamped earlier is already in the ring: a hard IRQ
    stamps and appends before the main loop runs again) and :meth:`poll`
    reports one µs less. While the host is there, a heartbeat goes out once
    ``heartbeat_us - heartbeat_slack_us`` have passed since the last one, so
    that with main-loop rounds at most ``heartbeat_slack_us`` apart no two are
    more than ``heartbeat_us`` apart; while it is not (nothing heard for
    ``host_timeout_us``), only every ``idle_heartbeat_us``.

    Every PRESS/RELEASE gets the next event number and stays in a ring of
    unacknowledged events until the host's cumulative ACK covers it; the ring
    is resent after a HOST_HELLO (a reconnect) and whenever no ACK came for
    ``resend_us``. A full ring drops its oldest event (counted in the
    heartbeat's ``dropped``, so the host can tell a gap it will never fill).
    """

    def __init__(
        self,
        buttons: int,
        lamps: int,
        board_id: bytes,
        boot_id: int,
        tick_bits: int = TICKS_BITS,
        ring_size: int = 32,
        resend_us: int = 200000,
        heartbeat_us: int = 1000,
        heartbeat_slack_us: int = 250,
        idle_heartbeat_us: int = 250000,
        host_timeout_us: int = 2000000,
        on_lamp: "Callable[[int, int], None] | None" = None,
        on_pulse: "Callable[[int, bool], None] | None" = None,
        diff: "Callable[[int, int], int] | None" = None,
        add: "Callable[[int, int], int] | None" = None,
    ) -> None:
        period = 1 << tick_bits
        self.buttons = buttons
        self.lamps = lamps
        self.board_id = (bytes(board_id) + bytes(8))[:8]
        self.boot_id = boot_id & 0xFFFFFFFF
        self.tick_bits = tick_bits
        self.ring_size = ring_size
        self.resend_us = resend_us
        if not 0 <= heartbeat_slack_us < heartbeat_us:
            raise ValueError("need 0 <= heartbeat_slack_us < heartbeat_us")
        self.heartbeat_us = heartbeat_us
        self.heartbeat_slack_us = heartbeat_slack_us
        self.idle_heartbeat_us = idle_heartbeat_us
        self.host_timeout_us = host_timeout_us
        self.on_lamp = on_lamp
        self.on_pulse = on_pulse
        self.diff: Callable[[int, int], int] = (
            diff if diff is not None else (lambda a, b: ticks_diff(a, b, period))
        )
        self.add: Callable[[int, int], int] = (
            add if add is not None else (lambda a, d: ticks_add(a, d, period))
        )
        self.reader = FrameReader()
        self.out = bytearray()
        self.tx_seq = 0
        self.next_event = 1
        self.unacked: list[list[int]] = []  # [event, type, button, flags, ticks], oldest first
        self.dropped = 0
        self.resend_at: int | None = None
        self.last_heartbeat: int | None = None  # tick of the last heartbeat sent
        self.heartbeats = 0
        self.beat = HeartbeatFrame()
        # The last heartbeat is still in ``beat.wire``, not yet in ``out`` (see write_output).
        self.beat_pending = False
        self.host_seen: int | None = None  # tick of the last good frame from the host
        self.lamp_mode = bytearray(lamps)
        self.lamp_level = bytearray(lamps)
        self.lamp_half = [0] * lamps
        self.lamp_next = [0] * lamps
        self.pulse_end: list[int | None] = [None] * buttons
        # Edges still expected from a test pulse (its press and its release): flagged.
        self.pulse_edges = bytearray(buttons)
        self.pulses = 0

    # -- output ----------------------------------------------------------------

    def _send(self, msg_type: int, payload: bytes | bytearray) -> None:
        self._settle_beat()
        self.out += frame(msg_type, self.tx_seq, payload)
        self.tx_seq = (self.tx_seq + 1) & 0xFFFF

    def _settle_beat(self) -> None:
        """Move a pending heartbeat into ``out``: whatever is queued after it goes after it."""
        if self.beat_pending:
            self.out += self.beat.wire
            self.beat_pending = False

    def take_output(self) -> bytes:
        """The bytes to write to the host now (and forget them)."""
        self._settle_beat()
        out = self.out
        self.out = bytearray()
        return bytes(out)

    def write_output(self, write: "Callable[[bytes | bytearray], object]") -> None:
        """Write what is queued, in order, with ``write`` (the main loop's way).

        A round that queued nothing but its heartbeat (nearly every round)
        writes it straight from its preallocated buffer: no copy, no garbage.
        """
        out = self.out
        if out:
            write(out)
            out[:] = b""
        if self.beat_pending:
            self.beat_pending = False
            write(self.beat.wire)

    def oldest_unacked(self) -> int:
        return self.unacked[0][0] if self.unacked else self.next_event

    def hello(self, now: int) -> None:
        """Queue a HELLO (a leading delimiter first: any partial frame the host
        holds from before is closed off as bad, not glued to this one)."""
        self.out += b"\x00"
        major, minor, patch = FIRMWARE_VERSION
        payload = struct.pack(
            "<BBBBBBBB",
            PROTOCOL_VERSION,
            major,
            minor,
            patch,
            self.buttons,
            self.lamps,
            self.tick_bits,
            0,
        )
        payload += self.board_id
        payload += struct.pack("<IIII", self.boot_id, now, self.next_event, self.oldest_unacked())
        self._send(T_HELLO, payload)

    def _send_event(self, entry: list[int], flags: int) -> None:
        event, msg_type, button, eflags, ticks = entry
        self._send(msg_type, struct.pack("<IIBB", event, ticks, button, eflags | flags))

    # -- input -------------------------------------------------------------------

    def edge(self, button: int, pressed: int, ticks: int, now: int, flags: int = 0) -> None:
        """A captured edge: number it, keep it until acked, send it at once."""
        if self.pulse_edges[button]:
            self.pulse_edges[button] -= 1
            flags |= FLAG_TEST
        entry = [self.next_event, T_PRESS if pressed else T_RELEASE, button, flags, ticks]
        self.next_event += 1
        if len(self.unacked) >= self.ring_size:
            self.unacked.pop(0)
            self.dropped += 1
        self.unacked.append(entry)
        if self.resend_at is None:
            self.resend_at = self.add(now, self.resend_us)
        self._send_event(entry, 0)

    def feed(self, data: bytes | bytearray, now: int) -> None:
        """Bytes from the host: decode and act on every good frame."""
        for msg_type, seq, payload in self.reader.feed(data):
            size = HOST_PAYLOAD.get(msg_type)
            if size is None or len(payload) != size:
                self.reader.bad += 1
                continue
            self.host_seen = now
            self._handle(msg_type, seq, payload, now)

    def _handle(self, msg_type: int, seq: int, payload: bytes, now: int) -> None:
        if msg_type == T_PING:
            # Echo the host's t0 untouched (no 64-bit arithmetic on the device).
            self._send(T_PONG, bytes(payload) + struct.pack("<I", now))
        elif msg_type == T_ACK:
            acked = struct.unpack("<I", payload)[0]
            unacked = self.unacked
            while unacked and unacked[0][0] <= acked:
                unacked.pop(0)
            self.resend_at = self.add(now, self.resend_us) if unacked else None
        elif msg_type == T_HOST_HELLO:
            self.hello(now)
            for entry in self.unacked:
                self._send_event(entry, FLAG_RESENT)
            self.resend_at = self.add(now, self.resend_us) if self.unacked else None
        elif msg_type == T_LAMP:
            lamp, mode, period_ms = struct.unpack("<BBH", payload)
            status = self._lamp(lamp, mode, period_ms, now)
            self._send(T_CMD_ACK, struct.pack("<BHB", msg_type, seq, status))
        elif msg_type == T_TEST_PULSE:
            button, _flags, token, width = struct.unpack("<BBHI", payload)
            status = ACK_OK
            if button >= self.buttons or width == 0 or self.pulse_end[button] is not None:
                status = ACK_BAD_ARGUMENT
            self._send(T_CMD_ACK, struct.pack("<BHB", msg_type, seq, status))
            self._send(T_PULSED, struct.pack("<HBBI", token, button, status, now))
            if status == ACK_OK:
                self.pulse_end[button] = self.add(now, width)
                self.pulse_edges[button] = 2
                self.pulses += 1
                if self.on_pulse is not None:
                    self.on_pulse(button, True)

    # -- lamps -------------------------------------------------------------------

    def _lamp(self, lamp: int, mode: int, period_ms: int, now: int) -> int:
        if mode > LAMP_BLINK or (lamp >= self.lamps and lamp != LAMP_ALL):
            return ACK_BAD_ARGUMENT
        targets: Iterable[int] = range(self.lamps) if lamp == LAMP_ALL else (lamp,)
        for i in targets:
            self.lamp_mode[i] = mode
            if mode == LAMP_BLINK:
                half = (period_ms or DEFAULT_BLINK_MS) * 500
                self.lamp_half[i] = half
                self.lamp_next[i] = self.add(now, half)
                self._set_level(i, 1)
            else:
                self._set_level(i, mode)
        return ACK_OK

    def _set_level(self, i: int, level: int) -> None:
        if self.lamp_level[i] != level:
            self.lamp_level[i] = level
            if self.on_lamp is not None:
                self.on_lamp(i, level)

    # -- time passes ---------------------------------------------------------------

    def service(self, ring: EdgeRing, ticks_us: "Callable[[], int]") -> int:
        """One main-loop round's device work: every captured edge, then the timers.

        The tick is read *first*: an edge the IRQ stamped before it is then
        already in the ring (the hard IRQ stamps and appends atomically with
        respect to this loop), so the drain below hands it on before
        :meth:`poll` may send a heartbeat that says nothing older is still to
        come. Reading the tick after the drain would break that promise for
        an edge caught in between. Returns the tick used.
        """
        now = ticks_us()
        while True:
            edge = ring.take()
            if edge is None:
                break
            button, pressed, flags, ticks = edge
            self.edge(button, pressed, ticks, now, flags)
        self.poll(now)
        return now

    def heartbeat_in(self, now: int) -> int:
        """µs until :meth:`poll` will send the next heartbeat (0: due now);
        for a loop that sleeps between rounds, as the emulator's does."""
        last = self.last_heartbeat
        if last is None:
            return 0
        return max(self._beat_period(now) - self.diff(now, last), 0)

    def _host_alive(self, now: int) -> bool:
        seen = self.host_seen
        return seen is not None and self.diff(now, seen) < self.host_timeout_us

    def _beat_period(self, now: int) -> int:
        if self._host_alive(now):
            return self.heartbeat_us - self.heartbeat_slack_us
        return self.idle_heartbeat_us

    def _heartbeat(self, now: int) -> None:
        """Queue a heartbeat for a round whose edges were all handed on before ``now``.

        Its ``ticks`` is ``now - 1``: every edge stamped at or before it has
        been sent (see :meth:`service`).
        """
        self._settle_beat()
        self.beat.build(
            self.tx_seq,
            self.add(now, -1),
            self.next_event,
            self.oldest_unacked(),
            self.dropped & 0xFFFF,
            self.reader.bad & 0xFFFF,
        )
        self.tx_seq = (self.tx_seq + 1) & 0xFFFF
        self.heartbeats += 1
        self.last_heartbeat = now
        if self.out:
            self.out += self.beat.wire
        else:
            self.beat_pending = True

    def poll(self, now: int) -> None:
        """Timers: blink, test pulses, resend, heartbeat.

        ``now`` must have been read before the edge ring was last drained
        (:meth:`service` does both in that order): the heartbeat reports it.
        """
        diff = self.diff
        for i in range(self.lamps):
            if self.lamp_mode[i] == LAMP_BLINK and diff(now, self.lamp_next[i]) >= 0:
                self._set_level(i, self.lamp_level[i] ^ 1)
                nxt = self.add(self.lamp_next[i], self.lamp_half[i])
                if diff(now, nxt) >= 0:  # fell behind (a long stall): restart the phase
                    nxt = self.add(now, self.lamp_half[i])
                self.lamp_next[i] = nxt
        for button in range(self.buttons):
            end = self.pulse_end[button]
            if end is not None and diff(now, end) >= 0:
                self.pulse_end[button] = None
                if self.on_pulse is not None:
                    self.on_pulse(button, False)
        host_alive = self._host_alive(now)
        if self.resend_at is not None and diff(now, self.resend_at) >= 0:
            # Resend only while the host is there; a HOST_HELLO resends the lot anyway.
            if host_alive:
                for entry in self.unacked:
                    self._send_event(entry, FLAG_RESENT)
            self.resend_at = self.add(now, self.resend_us) if self.unacked else None
        last = self.last_heartbeat
        if last is None or diff(now, last) >= self._beat_period(now):
            self._heartbeat(now)
