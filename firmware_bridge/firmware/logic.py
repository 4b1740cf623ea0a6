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

What runs in the hard IRQ is :func:`capture_stamp` and
:meth:`EdgeRing.sample` alone. They allocate nothing: small-int arithmetic
only (never a value of 2**30 or more, a long int on the Pico), small ints
written into preallocated ``array``/``bytearray`` slots, and the
tick-difference function is ``time.ticks_diff`` on the Pico (a builtin, no
allocation). Everything else runs in the main loop, where allocation is
allowed, but the HEARTBEAT (more than 1000 a second) is built in
preallocated buffers (:class:`HeartbeatFrame`): a frame's worth of
garbage every millisecond would make the collector stall the main loop.
"""

import struct
from array import array

# The annotations are for mypy on the host; MicroPython ignores them and has no
# ``typing`` module (mypy takes any name TYPE_CHECKING as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    def const(value: int) -> int: ...

else:
    try:
        # MicroPython's compiler folds ``_NAME = const(n)`` into the code that
        # uses it: no global lookup on the IRQ path.
        from micropython import const
    except ImportError:

        def const(value):
            return value


PROTOCOL_VERSION = 4
FIRMWARE_VERSION = (4, 0, 0)
#: HELLO ``flags`` bit: this chip is not the one the firmware's register
#: addresses are for (a Pico 2's RP2350): the firmware does not capture.
HELLO_UNSUPPORTED_CHIP = 0x01
#: The firmware identity when main.py cannot read its own files (a REPL test).
NO_FIRMWARE_ID = bytes(8)

#: Events kept for the host until its cumulative ACK covers them (a full ring
#: drops its oldest). The host acks every 20 ms; eight buttons cannot make more
#: than ~800 edges a second (each is held off for 10 ms), so a healthy link has
#: a few dozen outstanding at most, and a frame lost on the wire blocks the ACK
#: for one resend (RESEND_US): ~50 events at that worst rate. At a steady
#: 8-button stream (160 events a second) 256 last 1.6 s without any ACK, longer
#: than the host waits (1.5 s) before it calls the link dead. ~2.5 kB of arrays.
UNACKED_RING = 256
#: An unacknowledged event is sent again once it has waited this long since it
#: was last sent (three of the host's 20 ms ACK beats): a frame lost on the wire
#: then holds the host's watermark back ~60-80 ms, below the runtime's 100 ms
#: wait bound, instead of being waited out until the ring gives it up.
RESEND_US = 60000
#: While resends bring no ACK, the wait doubles up to this (a stalled host is
#: not flooded); any ACK that frees an event brings it back to RESEND_US.
RESEND_MAX_US = 1000000
#: At most this many resends per main-loop round: an event frame's CRC and COBS
#: run as Python bytecode (:func:`frame`; main.py's viper ``seal_frame`` serves
#: the heartbeat only), on the RP2040 in the order of a millisecond, and a round
#: must stay short for the heartbeat. A full ring goes again in ~256 rounds.
RESEND_BATCH = 1
#: At most this many ring slots looked at per round while a resend pass goes on.
RESEND_SCAN = 16

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
#: The longest frame the host sends, as it comes on the wire: COBS adds one
#: byte to a frame this short, and the delimiter ends it (16 bytes: a PING).
MAX_HOST_WIRE = 4 + max(HOST_PAYLOAD.values()) + 2 + 2

# MicroPython's ticks_us() wraps at 2**30 on the RP2040 (TICKS_PERIOD is the
# small-int range, not 2**32): the HELLO tells the host so.
TICKS_BITS = 30

# The pin map (GPIO numbers of a Pico): buttons GP2..GP9, lamps GP10..GP17.
# main.py wires them; the chip model drives and watches the same pins.
BUTTON_PINS = (2, 3, 4, 5, 6, 7, 8, 9)
LAMP_PINS = (10, 11, 12, 13, 14, 15, 16, 17)


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


#: Machine-code CRC and COBS, if the device has them (:func:`accelerate`):
#: ``[crc(data, n, table) -> int, cobs(src, n, out) -> length]``.
ACCEL: "list[Callable[..., int] | None]" = [None, None, None]


def accelerate(
    crc: "Callable[..., int]",
    cobs: "Callable[..., int]",
    uncobs: "Callable[..., int] | None" = None,
) -> None:
    """Use machine-code CRC and COBS in :func:`frame` and :func:`parse` (main.py's
    viper versions).

    In Python the loops cost about 2 ms per frame on the RP2040: a burst of
    eight presses would hold the main loop for 16 ms, and every ACK from the
    host as long again. The host's decoder checks every frame the fast
    versions build, and a frame they decode wrongly fails its CRC.
    """
    ACCEL[0] = crc
    ACCEL[1] = cobs
    ACCEL[2] = uncobs


def frame(msg_type: int, seq: int, payload: bytes | bytearray) -> bytes:
    """One frame as it goes on the wire: COBS(header, payload, CRC) and the delimiter."""
    body = bytearray(struct.pack("<BBH", PROTOCOL_VERSION, msg_type, seq & 0xFFFF))
    body += payload
    fast_crc, fast_cobs = ACCEL[0], ACCEL[1]
    if fast_crc is not None and fast_cobs is not None:
        crc = fast_crc(body, len(body), CRC_TABLE)
        body.append(crc >> 8)
        body.append(crc & 0xFF)
        out = bytearray(len(body) + len(body) // 254 + 3)
        end = fast_cobs(body, len(body), out)
        out[end] = 0
        return bytes(out[: end + 1])
    crc = crc16(body)
    body.append(crc >> 8)
    body.append(crc & 0xFF)
    return cobs_encode(body) + b"\x00"


def decode_chunk(data: bytes | bytearray | memoryview, n: int) -> bytes | None:
    """:func:`cobs_decode` of ``data[:n]``, in machine code when accelerated."""
    fast = ACCEL[2]
    if fast is None:
        return cobs_decode(bytes(data[:n]))
    if n == 0:
        return None
    out = bytearray(n)
    size = fast(data, n, out)
    return None if size < 0 else bytes(out[:size])


def parse(raw: bytes | None) -> tuple[int, int, bytes] | None:
    """A COBS-decoded frame -> ``(type, seq, payload)``, or ``None`` if it is bad."""
    if raw is None or len(raw) < 6 or len(raw) > MAX_RAW_FRAME:
        return None
    fast_crc = ACCEL[0]
    crc = crc16(raw) if fast_crc is None else fast_crc(raw, len(raw), CRC_TABLE)
    if crc != 0:
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

    def feed(self, data: bytes | bytearray | memoryview) -> list[tuple[int, int, bytes]]:
        frames: list[tuple[int, int, bytes]] = []
        for byte in data:
            if byte == 0:
                if self.skipping:
                    self.skipping = False
                elif len(self.buf):
                    parsed = parse(decode_chunk(self.buf, len(self.buf)))
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

    def at_frame_start(self) -> bool:
        """True between frames: the next byte starts one (nothing held, nothing skipped)."""
        return not self.skipping and not len(self.buf)

    def whole(self, data: bytes | bytearray | memoryview) -> tuple[int, int, bytes] | None:
        """One whole frame, its delimiter last, read :meth:`at_frame_start`: what
        :meth:`feed` would return for it, decoded in one piece (``None``: bad, or
        a bare delimiter, which counts as nothing)."""
        n = len(data) - 1
        if n <= 0:
            return None
        parsed = parse(decode_chunk(data, n))
        if parsed is None:
            self.bad += 1
        else:
            self.good += 1
        return parsed


def host_frame_wanted(buf: bytes | bytearray | memoryview, n: int, fresh: int = 0) -> int:
    """How many more bytes complete the host's frame whose first ``n`` wire
    bytes are in ``buf``, read from a frame's start; ``fresh``: how many of them
    the last read brought (only those are looked at again; 0: all).

    0: it is whole (its delimiter is the last byte read); -1: these bytes
    cannot be a host frame (a zero inside, or longer than any the host sends),
    and the streaming :class:`FrameReader` must take them. Otherwise COBS says
    it: the last byte read is a code, the count of data bytes before the next
    code (or the delimiter). So the firmware reads a frame in a few calls
    rather than one byte a call (each read costs tens of µs on the RP2040),
    and, since a read blocks until its bytes are there, never asks for a byte
    beyond the frame the host is writing.
    """
    last = buf[n - 1]
    for i in range(n - fresh if fresh else 0, n - 1):
        if buf[i] == 0:
            return -1
    if last == 0:
        return 0
    if n + last > MAX_HOST_WIRE:
        return -1
    return last


class HostInput:
    """The host's bytes, read a whole frame at a time where the stream allows.

    One ``readinto`` of the Pico's USB stdin costs about as much as reading
    one byte (tens of µs on the RP2040, polling included), so reading byte by
    byte held the main loop ~2 ms per ACK. COBS says how many bytes the frame
    still has (:func:`host_frame_wanted`), so a frame takes a few reads; each
    asks only for bytes of the frame the host is writing, which come in the
    same USB packet (a read blocks until its bytes are there). Out of step
    (bytes that cannot start a host frame), one byte at a time goes to the
    streaming reader until it has found a delimiter.

    ``ready`` (main.py: a poll of a few ms) is asked before each read past
    the frame's first byte: a frame torn by a host that then went silent
    (killed mid-write, a bad cable) must not hold the main loop in a read
    until the watchdog resets the chip and its unacknowledged events with
    it. What came of the frame goes to the streaming reader, which finishes
    it from the next bytes as any split frame.
    """

    def __init__(
        self,
        readinto: "Callable[[memoryview], object]",
        device: "Device",
        ready: "Callable[[], object] | None" = None,
    ) -> None:
        self.buf = bytearray(MAX_HOST_WIRE)
        self.view = memoryview(self.buf)
        self.readinto = readinto
        self.device = device
        self.ready = ready

    def read(self, ticks_us: "Callable[[], int]") -> None:
        """Read a frame (out of step: one byte) and act on it; call when a byte waits.

        The frame is handled at the tick read *before* its first byte: the
        nearest this loop comes to when it arrived (a PING's PONG reports it).
        """
        view = self.view
        buf = self.buf
        device = self.device
        readinto = self.readinto
        now = ticks_us()
        readinto(view[0:1])
        if not device.reader.at_frame_start():
            device.feed(view[0:1], now)
            return
        n = 1
        want = host_frame_wanted(buf, 1)
        ready = self.ready
        while want > 0:
            if ready is not None and not ready():
                device.feed(view[0:n], now)
                return
            readinto(view[n : n + want])
            n += want
            want = host_frame_wanted(buf, n, want)
        if want == 0:
            device.feed_frame(view[0:n], now)
        else:
            device.feed(view[0:n], now)


#: ticks, next_event, oldest_unacked, dropped, rx_bad, ring_overflows: u32 each.
HEARTBEAT_PAYLOAD = 24
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
        #: ``seal(raw, wire, table)``: CRC and COBS in machine code, if the
        #: device has it. On the Pico the two Python loops below take about
        #: 2 ms per heartbeat, longer than the heartbeat's own period; main.py
        #: sets a viper version that writes the same bytes (a test holds them).
        self.seal: Callable[[bytearray, bytearray, array[int]], None] | None = None

    def build(
        self,
        seq: int,
        ticks: int,
        next_event: int,
        oldest: int,
        dropped: int,
        rx_bad: int,
        overflows: int = 0,
    ) -> bytearray:
        """Fill the frame; returns :attr:`wire` (valid until the next call).

        The counters are cumulative u32s, passed unmasked: a mask wider than
        MicroPython's small ints (``& 0xFFFFFFFF``) would allocate a long int
        every frame, and no counter of one boot comes near 2**30.
        """
        raw = self.raw
        struct.pack_into(
            "<HIIIIII", raw, 2, seq, ticks, next_event, oldest, dropped, rx_bad, overflows
        )
        seal = self.seal
        if seal is not None:
            seal(raw, self.wire, CRC_TABLE)
            return self.wire
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


# -- edge capture (the PIO samples, the hard IRQ files, the main loop reads) ----------

#: The capture word's counter bits: the PIO pushes ``counter22 << 8 | sample8``
#: (main.py's ``capture``), where counter22 is the low 22 bits of a counter
#: that went down by one every 1 µs loop from 0 at the machine's start. 22 bits
#: (4.2 s) is what fits beside the 8 levels in a word MicroPython reads as a
#: small int (below 2**30): :func:`capture_stamp` allocates nothing.
CAPTURE_COUNTER_BITS = 22
CAPTURE_MASK = (1 << CAPTURE_COUNTER_BITS) - 1
CAPTURE_HALF = 1 << (CAPTURE_COUNTER_BITS - 1)
#: ``2**30 - 1``: the largest small int on the Pico. ``2**30`` itself (the tick
#: period) is a long int there, so nothing on the IRQ path may use it.
TICKS_MASK = (1 << TICKS_BITS) - 1
#: How far behind the round's tick its heartbeat reports (see
#: :meth:`Device._heartbeat`): the PIO pushes a sample up to ~1 µs after it
#: took it, so a sample stamped ``now - 1`` may reach the FIFO only after the
#: round drained it, and is sent in the next round. ``now - 2`` is the latest
#: tick whose every sample was in the FIFO when the round read ``now``. That
#: holds if a stamp is never *earlier* than its sample's true tick, i.e. if
#: main.py's ``base`` is not below the true tick of loop 0: a ``base`` taken
#: as the midpoint of a window of w µs may be up to w/2 early, and this lag
#: must then grow by as much (a ``base`` read *after* the start cannot be).
CAPTURE_LAG_US = 2


def capture_levels(word: int) -> int:
    """The 8 pin levels of a capture word (bit i: button i's pin, 1 = high = released)."""
    return word & 0xFF


def capture_stamp(word: int, now: int, base: int) -> int:
    """The tick (mod 2**30) at which the PIO took the sample in ``word``.

    ``base`` is the tick of the machine's loop 0, ``now`` a tick read shortly
    after the sample (the drain's). The word knows the loops elapsed only mod
    2**22, so the stamp is the one tick congruent to ``base + loops`` within
    2**21 µs (2.1 s) of ``now``: the RX FIFO holds a few words and the IRQ
    drains it within µs, so a sample is never that old. It may come out a few µs
    *after* ``now``: ``base`` is measured to within a few µs only, and that
    error is the same for every button. Runs in the hard IRQ: every
    intermediate value stays a small int (|x| < 2**30; ``now - age`` could
    pass 2**30, hence the two branches), so nothing is allocated.
    """
    # loops ≡ -counter22 (it counts down), so now - (base + loops) ≡ now - base + counter22.
    since_base = (now - base) & CAPTURE_MASK
    counter = (word >> 8) & CAPTURE_MASK
    age = ((since_base + counter + CAPTURE_HALF) & CAPTURE_MASK) - CAPTURE_HALF
    if age < 0:
        # now - age may pass 2**30: take 2**30 off first (as -TICKS_MASK - 1).
        return (now - TICKS_MASK - age - 1) & TICKS_MASK
    return (now - age) & TICKS_MASK


# Slots of EdgeRing.idx (see its __init__).
_HEAD = const(0)
_TAIL = const(1)
_OVERFLOWS = const(2)
_COMMIT = const(3)
_LEVELS = const(4)
_HOLDING = const(5)
_HIDDEN = const(6)
_PENDING = const(7)


class EdgeRing:
    """Button edges from whole-register samples, in a preallocated ring.

    :meth:`sample` is called from the hard IRQ with every sample the PIO
    took (the pressed levels of all buttons at one tick): a change of several
    buttons in one sample gives their edges the *same* stamp, whatever their
    pin order. Per button the ring keeps the raw level and the tick of its
    last raw change (``raw``, ``raw_tick``), and the reported state.

    **Hold-off** (a contact's bounce): a change when the button is not held
    off is an edge at once, stamped with its sample's tick, and starts a
    hold-off of ``holdoff_us``; the raw changes inside it are only recorded.
    When it ends (:meth:`housekeep`, or the button's next sample), a raw
    level other than the reported one (the bounce outlasted the hold-off, or
    a real press came inside a release's hold-off) is the **reconciled**
    edge, flagged ``FLAG_RECONCILED`` and stamped with that raw change's own
    tick ``raw_tick`` (its true time, not when the firmware noticed it);
    the next hold-off starts from that tick. So the stamps do not depend on
    when the main loop comes round, nor on pin order.

    **Stamp order.** The host takes the device's events to be numbered in
    stamp order (an event moves its watermark to its own stamp). A reconciled
    edge is stamped in the past, so: it is inserted in stamp order, and the
    edges stamped at or after a raw change still hidden in a hold-off are
    held back (:meth:`take` does not see them) until that change is settled.
    The ring has a *commit* point for this: the producer (the IRQ, or
    :meth:`housekeep` with IRQs off) owns the slots from it to the head and
    moves it on; :meth:`take` (main loop, IRQs on) reads only before it, so
    an insertion never moves a slot it is reading. The heartbeat must not
    pass a hidden change either: :meth:`hidden_before`.

    **Glitch check** (``glitch_us`` > 0; ``GLITCH_US`` in main.py): a change
    outside a hold-off is first a *candidate*, stamped with its sample's
    tick. It becomes the edge, with that first tick, only if the raw level
    still differs from the reported one ``glitch_us`` later (the level *at*
    that instant: the next sample of the button, or :meth:`housekeep`, settles
    it). A spike shorter than that (a lamp's MOSFET switching beside the
    cable) is no press and no release; a bouncing press keeps its first
    edge's stamp (a spike followed by a press within ``glitch_us`` reads as
    a bounce, so that press is stamped at the spike). A confirmed edge's
    hold-off runs from its candidate's tick; a glitch leaves none. A
    candidate is hidden like a change in a hold-off (the heartbeat and the
    edges after it wait for it), so the check costs each press
    ``glitch_us`` of delivery, never its stamp or its order. The Pi's GPIO
    path applies the same rule (``hardware/buttons.py`` ``EdgeFilter``).

    Nothing called from the IRQ allocates: small ints in preallocated
    ``array``/``bytearray`` slots, and ``diff`` is the builtin
    ``time.ticks_diff`` on the Pico.
    """

    def __init__(
        self,
        buttons: int,
        size: int = 64,
        holdoff_us: int = 10000,
        diff: "Callable[[int, int], int]" = ticks_diff,
        glitch_us: int = 0,
    ) -> None:
        self.buttons = buttons
        self.mask = (1 << buttons) - 1
        self.size = size
        self.holdoff = holdoff_us
        self.glitch = glitch_us
        self.diff = diff
        self.ticks = array("I", [0] * size)
        self.what = bytearray(size)  # button | pressed << 6 | reconciled << 7
        # [HEAD] (producer), [TAIL] (main loop), [OVERFLOWS], [COMMIT] (producer:
        # take() reads up to it), [LEVELS] (the last sample), and bit masks of the
        # buttons [HOLDING] off, of those whose raw level differs from the
        # reported one while held off ([HIDDEN]), and of those whose change is a
        # candidate awaiting its glitch check ([PENDING], also HOLDING). The masks
        # make the usual case cheap: the main loop runs housekeep() with IRQs off
        # every round, and with no hold-off running it must cost next to nothing.
        self.idx = array("I", [0, 0, 0, 0, 0, 0, 0, 0])
        # The tick the hold-off started at (a pending candidate's own tick).
        self.last = array("I", [0] * buttons)
        self.state = bytearray(buttons)  # 1: reported pressed
        self.raw = bytearray(buttons)  # 1: the last sample read it pressed
        self.raw_tick = array("I", [0] * buttons)  # the tick of its last raw change

    def sample(self, levels: int, tick: int) -> None:
        """One sample of all buttons (bit i set: button i pressed) taken at ``tick``.

        Called from the hard IRQ, samples in the order taken. Every button
        whose level changed since the last sample is handled, in ascending
        index but all with this one ``tick``: a tie stays a tie. No allocation.
        """
        levels &= self.mask
        idx = self.idx
        changed = levels ^ idx[_LEVELS]
        if not changed:
            return
        idx[_LEVELS] = levels
        button = 0
        while changed:
            if changed & 1:
                self._level(button, (levels >> button) & 1, tick)
            changed >>= 1
            button += 1
        if idx[_COMMIT] != idx[_HEAD]:
            self._commit()

    def resync(self, levels: int, tick: int) -> None:
        """The buttons' levels read from the pins at ``tick``, after samples were lost.

        The capture machine pushes changes only, so after a dropped word the
        ring's levels may be stale (main.py reads the pins on FDEBUG.RXSTALL).
        A candidate awaiting its glitch check whose button now reads its new
        level is taken as held through the loss (the lost word was its
        bounce settling back), so it keeps its first edge's stamp rather than
        being dropped at a check that read the stale level; everything else
        is an ordinary :meth:`sample` at ``tick``. No allocation (hard IRQ).
        """
        levels &= self.mask
        pending = self.idx[_PENDING]
        button = 0
        while pending:
            if pending & 1:
                level = (levels >> button) & 1
                if self.raw[button] != level:
                    self.raw[button] = level
                    self.raw_tick[button] = tick
            pending >>= 1
            button += 1
        self.sample(levels, tick)

    def _level(self, button: int, pressed: int, tick: int) -> None:
        idx = self.idx
        bit = 1 << button
        if idx[_HOLDING] & bit:
            self._expire(button, bit, tick)
        self.raw[button] = pressed
        self.raw_tick[button] = tick
        if idx[_HOLDING] & bit:
            if idx[_PENDING] & bit:
                return  # a candidate's bounce, or its end: its check decides
            # Inside the hold-off: recorded, settled when it ends.
            if pressed == self.state[button]:
                idx[_HIDDEN] &= ~bit
            else:
                idx[_HIDDEN] |= bit
            return
        idx[_HOLDING] |= bit
        self.last[button] = tick
        if self.glitch:
            idx[_PENDING] |= bit  # a candidate until its glitch check
            return
        self.state[button] = pressed
        self._insert(button | (pressed << 6), tick)

    def _expire(self, button: int, bit: int, now: int) -> None:
        """End the held-off button's hold-off if it is over at ``now``, reconciling
        what it hid."""
        idx = self.idx
        if idx[_PENDING] & bit:
            if self.diff(now, self.last[button]) < self.glitch:
                return
            # The glitch check: the raw level now is the level at the check
            # instant (any later change would have called this first).
            idx[_PENDING] &= ~bit
            pressed = self.raw[button]
            if pressed == self.state[button]:
                idx[_HOLDING] &= ~bit  # gone again by the check: a glitch, no edge
                return
            self.state[button] = pressed
            self._insert(button | (pressed << 6), self.last[button])
        while self.diff(now, self.last[button]) >= self.holdoff:
            pressed = self.raw[button]
            if pressed == self.state[button]:
                idx[_HOLDING] &= ~bit
                return
            # The hidden change is an edge at its own tick, and holds off from there.
            tick = self.raw_tick[button]
            self.state[button] = pressed
            self.last[button] = tick
            idx[_HIDDEN] &= ~bit
            self._insert(button | (pressed << 6) | 0x80, tick)

    def _insert(self, what: int, tick: int) -> None:
        """Add an edge in stamp order (after any with the same stamp), past the commit."""
        idx = self.idx
        size = self.size
        head = idx[_HEAD]
        nxt = head + 1
        if nxt == size:
            nxt = 0
        if nxt == idx[_TAIL]:
            idx[_OVERFLOWS] += 1  # full: the edge is lost, and counted
            return
        ticks = self.ticks
        whats = self.what
        stop = idx[_COMMIT]
        pos = head
        while pos != stop:
            prev = pos - 1
            if prev < 0:
                prev = size - 1
            if self.diff(ticks[prev], tick) <= 0:
                break
            ticks[pos] = ticks[prev]
            whats[pos] = whats[prev]
            pos = prev
        ticks[pos] = tick
        whats[pos] = what
        idx[_HEAD] = nxt

    def _hidden(self) -> int:
        """The earliest tick that may yet be reported, or -1 (none): a change hidden
        in a hold-off (its ``raw_tick``) or a candidate awaiting its glitch check
        (its ``last``)."""
        pending = self.idx[_PENDING]
        hidden = self.idx[_HIDDEN] | pending
        earliest = -1
        button = 0
        while hidden:
            if hidden & 1:
                tick = self.last[button] if (pending >> button) & 1 else self.raw_tick[button]
                if earliest < 0 or self.diff(tick, earliest) < 0:
                    earliest = tick
            hidden >>= 1
            button += 1
        return earliest

    def _commit(self) -> None:
        """Let :meth:`take` see every edge stamped before the earliest hidden change."""
        idx = self.idx
        hidden = self._hidden()
        head = idx[_HEAD]
        commit = idx[_COMMIT]
        while commit != head:
            if hidden >= 0 and self.diff(self.ticks[commit], hidden) >= 0:
                break
            commit += 1
            if commit == self.size:
                commit = 0
        idx[_COMMIT] = commit

    def hidden_before(self, now: int) -> int:
        """The tick of the earliest raw change still hidden in a hold-off, or ``now``.

        Such a change may yet be reported (reconciled) with that stamp, so a
        heartbeat must stay below it (:meth:`Device.service`). A change after
        ``now`` (a stamp a few µs ahead, see :func:`capture_stamp`) is
        reported as ``now``: the heartbeat stays below that anyway.
        """
        if not (self.idx[_HIDDEN] | self.idx[_PENDING]):
            return now
        hidden = self._hidden()
        if self.diff(hidden, now) > 0:
            return now
        return hidden

    def take(self) -> tuple[int, int, int, int] | None:
        """The oldest edge as ``(button, pressed, flags, ticks)``, or ``None``.

        Edges come out in stamp order; one stamped at or after a change
        still hidden in a hold-off waits until that change is settled.
        """
        idx = self.idx
        tail = idx[_TAIL]
        if tail == idx[_COMMIT]:
            return None
        what = self.what[tail]
        ticks = self.ticks[tail]
        tail += 1
        if tail == self.size:
            tail = 0
        idx[_TAIL] = tail
        flags = FLAG_RECONCILED if what & 0x80 else 0
        return what & 0x3F, (what >> 6) & 1, flags, ticks

    def housekeep(self, now: int) -> None:
        """End the hold-offs over at ``now`` and report what they hid (main loop, IRQs off).

        A raw level left other than the reported one gives the reconciled
        edge, stamped with its own raw change's tick (see the class). With no
        hold-off running (nearly every round) it only reads two slots.
        """
        idx = self.idx
        holding = idx[_HOLDING]
        button = 0
        while holding:
            if holding & 1:
                self._expire(button, 1 << button, now)
            holding >>= 1
            button += 1
        if idx[_COMMIT] != idx[_HEAD]:
            self._commit()

    @property
    def overflows(self) -> int:
        return self.idx[_OVERFLOWS]

    def lost(self) -> None:
        """Count samples lost before they reached the ring (the capture FIFO was
        full: main.py reads the PIO's RXSTALL flag). From the hard IRQ: no allocation."""
        self.idx[_OVERFLOWS] += 1

    def holding(self, button: int) -> bool:
        """True while ``button`` is held off (for tests and the emulator)."""
        return bool(self.idx[_HOLDING] & (1 << button))


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
    reports two µs less, and less still while a hold-off hides a change that
    may yet be reported in the past (:meth:`_heartbeat`); never less than the
    previous heartbeat. While the host is there, a heartbeat goes out once
    ``heartbeat_us - heartbeat_slack_us`` have passed since the last one, so
    that with main-loop rounds at most ``heartbeat_slack_us`` apart no two are
    more than ``heartbeat_us`` apart; while it is not (nothing heard for
    ``host_timeout_us``), only every ``idle_heartbeat_us``.

    Every PRESS/RELEASE gets the next event number and stays in a ring of
    unacknowledged events until the host's cumulative ACK covers it. After a
    HOST_HELLO (a reconnect) the whole ring is sent again. While the host
    listens, an event still unacknowledged ``resend_us`` after it was last
    sent goes again, with every other event that has waited as long: the
    wait runs per event from its own transmission, never restarted by an ACK
    that frees nothing, so a frame lost in a steady stream of presses (whose
    ACKs keep coming, all stuck just below it) is resent in time instead of
    waiting until the ring has to give it up. Resends go out a few per round
    (``resend_batch``), so a big ring never stalls the main loop, and the
    wait doubles (to ``resend_max_us``) while they bring no ACK. A full ring
    drops its oldest event (counted in the heartbeat's ``dropped``, so the
    host can tell a gap it will never fill); :data:`UNACKED_RING` is sized
    so that a host that is there and acking never sees that happen.

    The heartbeat also carries ``ring_overflows``: edges the capture ring
    lost before they got a number (the host cannot see those as a gap).
    :meth:`service` keeps it equal to the edge ring's ``overflows``.
    """

    def __init__(
        self,
        buttons: int,
        lamps: int,
        board_id: bytes,
        boot_id: int,
        tick_bits: int = TICKS_BITS,
        ring_size: int = UNACKED_RING,
        resend_us: int = RESEND_US,
        heartbeat_us: int = 1000,
        heartbeat_slack_us: int = 250,
        idle_heartbeat_us: int = 250000,
        host_timeout_us: int = 2000000,
        on_lamp: "Callable[[int, int], None] | None" = None,
        on_pulse: "Callable[[int, bool], None] | None" = None,
        diff: "Callable[[int, int], int] | None" = None,
        add: "Callable[[int, int], int] | None" = None,
        resend_max_us: int = RESEND_MAX_US,
        resend_batch: int = RESEND_BATCH,
        firmware_id: bytes = NO_FIRMWARE_ID,
        held_at_boot: int = 0,
        hello_flags: int = 0,
    ) -> None:
        period = 1 << tick_bits
        # What the HELLO tells of the device itself: the hash of the files it
        # runs (main.py and logic.mpy), the buttons found held at power-up
        # (a stuck cable), and HELLO_UNSUPPORTED_CHIP.
        self.firmware_id = (bytes(firmware_id) + bytes(8))[:8]
        self.held_at_boot = held_at_boot & 0xFF
        self.hello_flags = hello_flags & 0xFF
        self.buttons = buttons
        self.lamps = lamps
        self.board_id = (bytes(board_id) + bytes(8))[:8]
        self.boot_id = boot_id & 0xFFFFFFFF
        self.tick_bits = tick_bits
        if ring_size < 1 or resend_batch < 1:
            raise ValueError("need ring_size >= 1 and resend_batch >= 1")
        self.ring_size = ring_size
        self.resend_us = resend_us
        self.resend_max_us = max(resend_max_us, resend_us)
        self.resend_batch = resend_batch
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
        # The unacknowledged events, oldest first from slot ``ev_head``: always the
        # ``ev_count`` events numbered just below ``next_event`` (numbers are given
        # in order and acked cumulatively, so none needs storing). Preallocated
        # arrays: no garbage per event, and no list shifted on every ACK.
        self.ev_ticks = array("I", [0] * ring_size)  # the edge's stamp
        self.ev_what = bytearray(ring_size)  # button | pressed << 6
        self.ev_flags = bytearray(ring_size)
        self.ev_sent = array("I", [0] * ring_size)  # tick of its last transmission
        self.ev_head = 0
        self.ev_count = 0
        self.dropped = 0
        # The resend pass under way: the next event to look at (0: none), the
        # first event past the pass, and how long an event must have waited.
        self.resend_next = 0
        self.resend_stop = 0
        self.resend_age = 0
        self.rto = resend_us  # the wait before the next pass (doubles while unanswered)
        self.resends = 0
        #: The edge ring's overflow count, reported in every heartbeat (service() sets it).
        self.ring_overflows = 0
        self.last_heartbeat: int | None = None  # tick of the last heartbeat sent
        #: The ``ticks`` the last heartbeat reported (the watermark: never lowered).
        self.beat_ticks: int | None = None
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
        # A PING answered at the next write (see write_output): the host's t0
        # echoed, and the tick at which its frame began to be read.
        self.pong_t0: bytes | None = None
        self.pong_rx = 0

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

    def _settle_pong(self, now: "int | None") -> None:
        """Queue the pending PONG, stamped ``now`` as it leaves (the read's tick if None).

        The PONG carries two ticks, NTP's way: when the PING's frame began to
        be read, and when the PONG was handed to USB. The host takes the time
        between them out of the round trip, so however long the main loop
        held the ping (reading it, edges, heartbeats: milliseconds on a slow
        CPU) the clock fit sees only the wire's delay.
        """
        t0 = self.pong_t0
        if t0 is None:
            return
        self.pong_t0 = None
        rx = self.pong_rx
        self._send(T_PONG, t0 + struct.pack("<II", rx, rx if now is None else now))

    def take_output(self, now: "int | None" = None) -> bytes:
        """The bytes to write to the host now (and forget them); ``now`` stamps a PONG."""
        self._settle_pong(now)
        self._settle_beat()
        out = self.out
        self.out = bytearray()
        return bytes(out)

    def write_output(
        self,
        write: "Callable[[bytes | bytearray], object]",
        ticks_us: "Callable[[], int] | None" = None,
    ) -> None:
        """Write what is queued, in order, with ``write`` (the main loop's way).

        A round that queued nothing but its heartbeat (nearly every round)
        writes it straight from its preallocated buffer: no copy, no garbage.
        A pending PONG is stamped with ``ticks_us()`` here, as late as the
        firmware can, and goes last (frames leave in their seq order).
        """
        if self.pong_t0 is not None:
            self._settle_pong(None if ticks_us is None else ticks_us())
        out = self.out
        if out:
            write(out)
            out[:] = b""
        if self.beat_pending:
            self.beat_pending = False
            write(self.beat.wire)

    def oldest_unacked(self) -> int:
        return self.next_event - self.ev_count

    @property
    def unacked(self) -> list[list[int]]:
        """The unacknowledged events as ``[event, type, button, flags, ticks]``,
        oldest first (for the tests and the emulator: it allocates)."""
        out: list[list[int]] = []
        first = self.oldest_unacked()
        for i in range(self.ev_count):
            slot = (self.ev_head + i) % self.ring_size
            what = self.ev_what[slot]
            msg_type = T_PRESS if what & 0x40 else T_RELEASE
            out.append([first + i, msg_type, what & 0x3F, self.ev_flags[slot], self.ev_ticks[slot]])
        return out

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
            self.hello_flags,
        )
        payload += self.board_id
        payload += struct.pack("<IIII", self.boot_id, now, self.next_event, self.oldest_unacked())
        payload += self.firmware_id
        payload += struct.pack("<B", self.held_at_boot)
        self._send(T_HELLO, payload)

    def _send_slot(self, event: int, slot: int, flags: int) -> None:
        what = self.ev_what[slot]
        msg_type = T_PRESS if what & 0x40 else T_RELEASE
        flags |= self.ev_flags[slot]
        self._send(msg_type, struct.pack("<IIBB", event, self.ev_ticks[slot], what & 0x3F, flags))

    def _free(self, count: int) -> None:
        """The host acknowledged the ``count`` oldest events: forget them.

        Progress: the resend wait is back to ``resend_us`` (an ACK that frees
        nothing restarts no timer: see the class docstring).
        """
        if count > self.ev_count:
            count = self.ev_count  # an ACK beyond every event sent: nothing more to free
        head = self.ev_head + count
        if head >= self.ring_size:
            head -= self.ring_size
        self.ev_head = head
        self.ev_count -= count
        self.rto = self.resend_us

    def _start_resend(self, age: int) -> None:
        """A pass over every unacknowledged event that was last sent ``age`` µs ago
        or longer (0: all of them), oldest first, a few per round (:meth:`_resend`)."""
        self.resend_next = self.oldest_unacked()
        self.resend_stop = self.next_event
        self.resend_age = age

    def _resend(self, now: int) -> None:
        """Go on with the resend pass: at most ``resend_batch`` frames and
        :data:`RESEND_SCAN` slots this round, so the round stays short."""
        count = self.ev_count
        oldest = self.next_event - count
        event = self.resend_next
        if event < oldest:
            event = oldest  # acked or dropped since the pass began
        stop = self.resend_stop
        size = self.ring_size
        slot = self.ev_head + (event - oldest)
        if slot >= size:
            slot -= size
        diff = self.diff
        need = self.resend_age
        sent = 0
        scanned = 0
        while event < stop and sent < self.resend_batch and scanned < RESEND_SCAN:
            age = diff(now, self.ev_sent[slot])
            # (A negative age: sent more than half the counter's period ago.)
            if age < 0 or age >= need:
                self._send_slot(event, slot, FLAG_RESENT)
                self.ev_sent[slot] = now
                self.resends += 1
                sent += 1
            event += 1
            scanned += 1
            slot += 1
            if slot == size:
                slot = 0
        self.resend_next = event if event < stop else 0

    # -- input -------------------------------------------------------------------

    def edge(self, button: int, pressed: int, ticks: int, now: int, flags: int = 0) -> None:
        """A captured edge: number it, keep it until acked, send it at once."""
        if self.pulse_edges[button]:
            self.pulse_edges[button] -= 1
            flags |= FLAG_TEST
        size = self.ring_size
        if self.ev_count >= size:
            # Full: the oldest goes. The host learns it from oldest_unacked (and
            # ``dropped``): it has that event already, or counts it lost.
            self.ev_head = self.ev_head + 1 if self.ev_head + 1 < size else 0
            self.ev_count -= 1
            self.dropped += 1
        slot = self.ev_head + self.ev_count
        if slot >= size:
            slot -= size
        self.ev_ticks[slot] = ticks
        self.ev_what[slot] = button | (0x40 if pressed else 0)
        self.ev_flags[slot] = flags
        self.ev_sent[slot] = now
        self.ev_count += 1
        event = self.next_event
        self.next_event = event + 1
        self._send_slot(event, slot, 0)

    def feed(self, data: bytes | bytearray | memoryview, now: int) -> None:
        """Bytes from the host: decode and act on every good frame."""
        for msg_type, seq, payload in self.reader.feed(data):
            self._take(msg_type, seq, payload, now)

    def feed_frame(self, data: bytes | bytearray | memoryview, now: int) -> None:
        """One whole frame from the host, its delimiter last (see
        :func:`host_frame_wanted`): as :meth:`feed` would take it, in one piece.
        Out of step (the reader holds part of a chunk), the bytes go to :meth:`feed`."""
        reader = self.reader
        if not reader.at_frame_start():
            self.feed(data, now)
            return
        parsed = reader.whole(data)
        if parsed is not None:
            self._take(parsed[0], parsed[1], parsed[2], now)

    def _take(self, msg_type: int, seq: int, payload: bytes, now: int) -> None:
        size = HOST_PAYLOAD.get(msg_type)
        if size is None or len(payload) != size:
            self.reader.bad += 1
            return
        self.host_seen = now
        self._handle(msg_type, seq, payload, now)

    def _handle(self, msg_type: int, seq: int, payload: bytes, now: int) -> None:
        if msg_type == T_PING:
            # Echo the host's t0 untouched (no 64-bit arithmetic on the device),
            # answered as the round's output is written (_settle_pong). A second
            # PING in the same round sends the first's answer now.
            self._settle_pong(now)
            self.pong_t0 = bytes(payload)
            self.pong_rx = now
        elif msg_type == T_ACK:
            acked = struct.unpack("<I", payload)[0]
            freed = acked - self.oldest_unacked() + 1
            if freed > 0:
                self._free(freed)
        elif msg_type == T_HOST_HELLO:
            self.hello(now)
            # The host drops whatever came before the HELLO: everything unacked
            # goes again, oldest first. The first of it right behind the HELLO, in
            # this round, so that the host holds the ring's oldest event before any
            # heartbeat tells it where the ring starts; the rest over the next rounds.
            self.rto = self.resend_us
            if self.ev_count:
                self._start_resend(0)
                self._resend(now)
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

        A raw change still hidden in a hold-off may yet be reported stamped
        with its own (past) tick, and the edges after it wait in the ring
        until it is, so the heartbeat is also kept below the earliest one
        (:meth:`EdgeRing.hidden_before`). That is read right after the tick,
        *before* the drain: an IRQ during or after the drain may settle a
        hidden change and release edges stamped after it that this drain
        then no longer hands on; read before, the cap stays below them. (An
        IRQ before the read releases them before the drain, which sends them.)
        """
        now = ticks_us()
        hidden = ring.hidden_before(now)
        while True:
            edge = ring.take()
            if edge is None:
                break
            button, pressed, flags, ticks = edge
            self.edge(button, pressed, ticks, now, flags)
        # The capture ring's lost edges go out in every heartbeat (never silent).
        self.ring_overflows = ring.overflows
        self.poll(now, hidden)
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

    def _heartbeat(self, now: int, hidden: int | None = None) -> None:
        """Queue a heartbeat for a round whose edges were all handed on before ``now``.

        Its ``ticks`` is ``min(now - 2, hidden - 1)``, wrap-safe: every edge
        stamped at or before it has been sent (see :meth:`service`).

        - ``now - 2``, not ``now - 1`` (:data:`CAPTURE_LAG_US`): the PIO takes
          a sample and pushes its word up to ~1 µs later, so the word of a
          sample stamped ``now - 1`` may not have been in the FIFO when the
          round drained it at ``now``.
        - ``hidden - 1``: ``hidden`` (:meth:`EdgeRing.hidden_before`) is the
          earliest raw change still hidden in a hold-off, which may yet be
          reported with that stamp.
        - Never below the last heartbeat's (the host's watermark does not go
          back): a lower cap repeats the previous value.
        """
        ticks = self.add(now, -CAPTURE_LAG_US)
        if hidden is not None:
            cap = self.add(hidden, -1)
            if self.diff(cap, ticks) < 0:
                ticks = cap
        sent = self.beat_ticks
        if sent is not None and self.diff(ticks, sent) < 0:
            ticks = sent
        self.beat_ticks = ticks
        self._settle_beat()
        self.beat.build(
            self.tx_seq,
            ticks,
            self.next_event,
            self.oldest_unacked(),
            self.dropped,
            self.reader.bad,
            self.ring_overflows,
        )
        self.tx_seq = (self.tx_seq + 1) & 0xFFFF
        self.heartbeats += 1
        self.last_heartbeat = now
        if self.out:
            self.out += self.beat.wire
        else:
            self.beat_pending = True

    def poll(self, now: int, hidden: int | None = None) -> None:
        """Timers: blink, test pulses, resend, heartbeat.

        ``now`` must have been read before the edge ring was last drained
        (:meth:`service` does both in that order): the heartbeat reports it,
        less :data:`CAPTURE_LAG_US`, and below ``hidden`` if given (the
        ring's earliest hidden change: :meth:`_heartbeat`).
        """
        diff = self.diff
        # The two loops run only when there is something to do: each pass costs
        # tens of µs per lamp on the Pico, and nearly every round has neither a
        # blinking lamp nor a test pulse (max and count run in C; LAMP_BLINK is
        # the highest mode).
        blinking = self.lamps > 0 and max(self.lamp_mode) == LAMP_BLINK
        for i in range(self.lamps) if blinking else ():
            if self.lamp_mode[i] == LAMP_BLINK and diff(now, self.lamp_next[i]) >= 0:
                self._set_level(i, self.lamp_level[i] ^ 1)
                nxt = self.add(self.lamp_next[i], self.lamp_half[i])
                if diff(now, nxt) >= 0:  # fell behind (a long stall): restart the phase
                    nxt = self.add(now, self.lamp_half[i])
                self.lamp_next[i] = nxt
        pulsing = self.pulse_end.count(None) != self.buttons
        for button in range(self.buttons) if pulsing else ():
            end = self.pulse_end[button]
            if end is not None and diff(now, end) >= 0:
                self.pulse_end[button] = None
                if self.on_pulse is not None:
                    self.on_pulse(button, False)
        host_alive = self._host_alive(now)
        # Resend only while the host is there; a HOST_HELLO resends the lot anyway.
        if self.ev_count and host_alive:
            if not self.resend_next:
                age = diff(now, self.ev_sent[self.ev_head])
                if age < 0 or age >= self.rto:
                    # The oldest has waited its full time (lost on the wire, or
                    # its ACK was): a pass over all that waited as long, and twice
                    # the wait for the next one unless an ACK frees something.
                    self._start_resend(self.rto)
                    self.rto = min(self.rto * 2, self.resend_max_us)
            if self.resend_next:
                self._resend(now)
        last = self.last_heartbeat
        if last is None or diff(now, last) >= self._beat_period(now):
            self._heartbeat(now, hidden)
