"""A Pico written from the wire protocol alone, on a pty: it says what the test tells it.

Not the firmware's logic (``firmware_bridge/emulator.py`` runs that): a
device that keeps the protocol (docs/wire-protocol.md, *Handshake, acks,
resend*) and stamps its events wherever the test asks, as a new user's
own device, or a broken firmware, might. It answers HOST_HELLO with a
HELLO and resends every unacknowledged event (flagged resent) in the same
round, answers each PING with a PONG, sends a HEARTBEAT at least every
millisecond once a host has spoken (its tick ``now − 2``: every event it
stamped at or before that has gone out), keeps each event until a
cumulative ACK covers it, and resends one left unacknowledged for
``resend_us``. Its clock is the host's monotonic clock plus an offset, so
a stamp "20 s ahead of its own heartbeat" is exactly that.

What the host wrote is kept (:attr:`FakePico.received`): the ACKs above
all, each with the device's time when it arrived.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import threading
import time
import tty
from dataclasses import dataclass

from firmware_bridge import protocol as p


@dataclass
class _Unacked:
    message: p.Press | p.Release
    sent_us: int


class FakePico:
    """The device (see the module docstring). Use as a context manager."""

    def __init__(
        self,
        *,
        buttons: int = 4,
        lamps: int = 4,
        tick_bits: int = 30,
        offset_us: int = 123_456_789,
        boot_id: int = 0xFA4E0001,
        resend_us: int = 60_000,
        firmware_id: bytes = bytes(8),
        held_at_boot: int = 0,
    ) -> None:
        self.buttons = buttons
        self.lamps = lamps
        self.tick_bits = tick_bits
        self.mask = (1 << tick_bits) - 1
        self.offset_us = offset_us
        self.boot_id = boot_id
        self.resend_us = resend_us
        #: What its HELLO says it runs (``shipped.shipped_identity()``: this release's
        #: firmware; the default, zeros, is another) and found held at power-up.
        self.firmware_id = firmware_id
        self.held_at_boot = held_at_boot
        self.master, self._slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self._slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self._slave)
        self._lock = threading.RLock()
        self._seq = 0
        self._next_event = 1
        self._ring: dict[int, _Unacked] = {}
        self._host_seen = False
        self._last_beat_us = 0
        #: Every message the host wrote, with the device's (unwrapped) µs at its arrival.
        self.received: list[tuple[int, p.Message]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fake-pico", daemon=True)

    # -- the device's clock ---------------------------------------------------------

    def now_us(self) -> int:
        """The device's µs count now (unwrapped)."""
        return self.offset_us + time.monotonic_ns() // 1_000

    # -- what the test makes it do -----------------------------------------------------

    def press(self, button: int, *, stamp_us: int | None = None) -> int:
        """A PRESS of ``button`` stamped ``stamp_us`` (default: now), sent at once and
        kept until acknowledged; its event number."""
        return self._event(p.Press, button, stamp_us)

    def release(self, button: int, *, stamp_us: int | None = None) -> int:
        return self._event(p.Release, button, stamp_us)

    def _event(self, kind: type[p.Press] | type[p.Release], button: int, stamp: int | None) -> int:
        with self._lock:
            now = self.now_us()
            event = self._next_event
            self._next_event += 1
            message = kind(event, (now if stamp is None else stamp) & self.mask, button, 0)
            self._ring[event] = _Unacked(message, now)
            self._send(message)
            return event

    def forge_heartbeat(self, ahead_us: int) -> None:
        """One HEARTBEAT whose tick is ``ahead_us`` past the device's clock (its
        counters honest): what a firmware fault or a forger might send."""
        with self._lock:
            tick = (self.now_us() + ahead_us) & self.mask
            self._send(p.Heartbeat(tick, *self._counters(), 0, 0, 0))

    def acks(self) -> list[tuple[int, int]]:
        """Every cumulative ACK the host sent: (device µs at its arrival, event)."""
        with self._lock:
            return [(at, m.event) for at, m in self.received if isinstance(m, p.Ack)]

    def unacked(self) -> list[int]:
        """The events the device still keeps for want of an ACK."""
        with self._lock:
            return sorted(self._ring)

    # -- life cycle ---------------------------------------------------------------------

    def start(self) -> FakePico:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5.0)
        for fd in (self._slave, self.master):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> FakePico:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the main loop --------------------------------------------------------------------

    def _run(self) -> None:
        decoder = p.FrameDecoder()
        # poll, not select: a test process may hold over 1024 descriptors by now
        poller = select.poll()
        poller.register(self.master, select.POLLIN)
        while not self._stop.is_set():
            if poller.poll(0.5):  # ms: the device's clock keeps beating between bytes
                try:
                    data = os.read(self.master, 4096)
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EIO):
                        raise
                    data = b""
                for frame in decoder.feed(data):
                    self._on_host(frame)
            with self._lock:
                if not self._host_seen:
                    continue
                now = self.now_us()
                for unacked in list(self._ring.values()):
                    if now - unacked.sent_us >= self.resend_us:
                        self._resend(unacked, now)
                if now - self._last_beat_us >= 1_000:
                    self._last_beat_us = now
                    self._send(p.Heartbeat((now - 2) & self.mask, *self._counters(), 0, 0, 0))

    def _on_host(self, frame: p.Frame) -> None:
        message = frame.message
        with self._lock:
            now = self.now_us()
            self.received.append((now, message))
            if isinstance(message, p.HostHello):
                self._host_seen = True
                next_event, oldest = self._counters()
                hello = p.Hello(
                    p.PROTOCOL_VERSION,
                    (1, 0, 0),
                    self.buttons,
                    self.lamps,
                    self.tick_bits,
                    b"FAKEPICO",
                    self.boot_id,
                    now & self.mask,
                    next_event,
                    oldest,
                    firmware_id=self.firmware_id,
                    held_at_boot=self.held_at_boot,
                )
                self._send(hello, prefix=p.DELIMITER)
                for event in sorted(self._ring):
                    self._resend(self._ring[event], now)
            elif isinstance(message, p.Ping):
                self._send(p.Pong(message.host_t0, now & self.mask, self.now_us() & self.mask))
            elif isinstance(message, p.Ack):
                for event in [e for e in self._ring if e <= message.event]:
                    del self._ring[event]
            elif isinstance(message, p.Lamp):
                self._send(p.CmdAck(p.MsgType.LAMP, frame.seq))

    def _counters(self) -> tuple[int, int]:
        """(next_event, oldest_unacked), as the HELLO and the HEARTBEAT carry them."""
        return self._next_event, min(self._ring, default=self._next_event)

    def _resend(self, unacked: _Unacked, now: int) -> None:
        message = unacked.message
        again = type(message)(message.event, message.ticks, message.button, p.FLAG_RESENT)
        unacked.sent_us = now
        self._send(again)

    def _send(self, message: p.Message, prefix: bytes = b"") -> None:
        wire = prefix + p.encode_frame(message, self._seq)
        self._seq = (self._seq + 1) & 0xFFFF
        view = memoryview(wire)
        deadline = time.monotonic() + 1.0
        while view:
            try:
                view = view[os.write(self.master, view) :]
            except OSError as exc:
                # Nobody reading (no host, or the host's buffer full): as USB CDC
                # with no host, what does not fit is dropped; the ring resends.
                if exc.errno not in (errno.EAGAIN, errno.EIO) or time.monotonic() > deadline:
                    return
                time.sleep(0.001)
