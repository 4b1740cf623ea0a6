"""The host side of the Pico bridge: a serial link that turns frames into presses.

The port is a pyserial URL or a device path (``serial_port.open_port``:
``/dev/ttyACM0`` on the Pi, the emulator's pty path in a demo or a test,
``loop://`` for a framing check; a device waits on ``poll()``, so any
descriptor number will do). Two threads:

- the **reader** owns the connection: it opens the port (again and again,
  with backoff, after an unplug), sends the handshake, and then only reads,
  decodes, stamps and enqueues: each PRESS/RELEASE becomes a
  :class:`buzzer.arbiter.events.Press`/``Release`` whose ``t`` is the
  device's tick mapped onto the host's monotonic ns (:mod:`.clock`), with
  ``seat = button + 1`` (or the configured seat map);
- the **keeper** writes everything that is not urgent: cumulative ACKs
  (every ``ack_interval_s``, never woken by a press),
  pings (a burst after each handshake, then every ``ping_interval_s``),
  lamp commands not yet acknowledged, the handshake again if unanswered, and
  it declares the link dead after ``silence_timeout_s`` without a frame.

No press is lost or duplicated across a reconnect: the device keeps every
event until the host's cumulative ACK covers it and resends them after the
handshake (and any one left unacknowledged for 60 ms); the host accepts each
event number once. Gaps in the event numbers are counted and logged; one the
device can no longer fill (its heartbeat says the ring moved past it) is
counted as lost (that bookkeeping, and the watermark's, is the pure
:class:`~firmware_bridge.ledger.EventLedger`: this module reads, writes,
stamps, locks and reports around it). A heartbeat whose
counters cannot be true — an ``oldest_unacked`` beyond its ``next_event`` or
ahead of every event received, a ``next_event`` behind one — is a protocol
error, counted (``bad_counters``) and ignored: it never opens a window that
would take every later press for a duplicate.

Around the frames, one module per job: the record/ACK tracking
(:mod:`.link_records`: **the ACK follows the record**, an event is
acknowledged only once it is journaled or refused on the record), the stamp
gate (:mod:`.link_stamps`: **a stamp from the device's future is refused**,
one just past the device's latest time held until it reaches it), the
troubles (:mod:`.link_troubles`: **never silent**, what the technician must
hear of counted, summed, handed to ``on_trouble``), the configuration
(:mod:`.link_config`), the counters and reports (:mod:`.link_reports`) and
what one open port knows (:mod:`.link_session`). This module reads, writes,
stamps, locks and threads them together; the names callers import
(:class:`BridgeLink`, :class:`LinkConfig`, :class:`LinkStats`,
:class:`LinkTrouble`, :class:`EventInfo`, :class:`PulseReport`) are all
here.

Lamp commands (:meth:`BridgeLink.set_lamp`) are written at once from the
caller's thread (the lamp is on the latency path), remembered, resent until
the device acknowledges them, and replayed after every reconnect.

**The watermark** (:meth:`BridgeLink.watermark`): the host decides in event
time, up to the minimum of its sources' watermarks; this link's W promises
that no Press/Release with ``t < W`` will still be handed to the sink. It is
kept in the device's own time (unwrapped µs) and only the reader thread
moves it, always *after* handing on the events it covers:

- a HEARTBEAT's ``ticks`` H (the firmware sent every event stamped at or
  before H ahead of it, at least every millisecond) moves it to H, but only
  when every event the heartbeat counts (``next_event``) is in hand or known
  lost: past a gap that a resend may still fill it waits;
- a delivered event moves it to its own stamp when no gap lies before it
  (the device numbers events in stamp order, so no later number is older).

It is published in host ns by the same clock mapping as the events, and
never goes backwards. The mapping may move between frames (a ping's new fit,
drift), so an event delivered after W was published could map a little
below it although it is later on the device: its stamp is then raised above
W by its device distance from the tick W stands for (order and spacing kept,
never a false tie: :meth:`ClockMapper.map_event_at_least`), and counted in
``LinkStats.watermark_clamps``. An event's own mapped stamp, not the model's,
is what the watermark moves to after it, so a burst spaced by the device's
counter is not raised press by press. That is the only way a stamp is ever
moved, and it needs a model that moved by more than the event's distance
from the last heartbeat.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import serial  # type: ignore[import-untyped]

from buzzer.arbiter.events import Press, Release
from firmware_bridge.clock import ClockEstimate, ClockMapper
from firmware_bridge.link_config import LinkConfig
from firmware_bridge.link_frames import FrameReader
from firmware_bridge.link_records import ack_point
from firmware_bridge.link_reports import EventInfo, LinkStats, PulseReport
from firmware_bridge.link_session import LampState, Session, cancel_read, fresh_decoder
from firmware_bridge.link_troubles import LinkTrouble
from firmware_bridge.protocol import (
    DELIMITER,
    PROTOCOL_VERSION,
    Ack,
    BadFrame,
    FrameDecoder,
    Hello,
    HostHello,
    Lamp,
    LampMode,
    Message,
    Ping,
    TestPulse,
    encode_frame,
)
from firmware_bridge.serial_port import open_port

log = logging.getLogger("firmware_bridge.link")

Clock = Callable[[], int]
SerialFactory = Callable[..., Any]

_NS = 1_000_000_000


class BridgeLink(FrameReader):
    """The serial link to one Pico (see the module docstring)."""

    def __init__(
        self,
        config: LinkConfig,
        *,
        events: queue.SimpleQueue[Press | Release] | None = None,
        clock: Clock = time.monotonic_ns,
        serial_factory: SerialFactory | None = None,
        on_event: Callable[[EventInfo], None] | None = None,
        mapper: ClockMapper | None = None,
        sink: Callable[[Press | Release], object] | None = None,
        on_watermark: Callable[[], None] | None = None,
        on_trouble: Callable[[LinkTrouble], object] | None = None,
    ) -> None:
        self.events: queue.SimpleQueue[Press | Release] = (
            events if events is not None else queue.SimpleQueue()
        )
        # Each Press/Release goes to ``events.put`` unless a ``sink`` is given (e.g.
        # the controller's own input queue); called on the reader thread. A sink may
        # return a future, done once the input is on the record (see ``_put``).
        super().__init__(
            config,
            clock=clock,
            mapper=mapper or ClockMapper(),
            put=sink or self.events.put,
            on_event=on_event,
            on_watermark=on_watermark,
            on_trouble=on_trouble,
        )
        self._serial_factory = serial_factory or open_port
        self._stop = threading.Event()
        self._write_lock = threading.Lock()
        self._tx_seq = 0
        self._threads: list[threading.Thread] = []
        self._token = 0
        self._decoder = FrameDecoder()

    # -- life cycle ------------------------------------------------------------------

    def start(self) -> BridgeLink:
        if self._threads:
            raise RuntimeError("link already started")
        self._started_ns = self._clock()
        for name, target in (("reader", self._run_reader), ("keeper", self._run_keeper)):
            thread = threading.Thread(target=target, name=f"bridge-{name}", daemon=True)
            self._threads.append(thread)
            thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._wake.set()
        session = self._session
        if session is not None:
            cancel_read(session.port)
        for thread in self._threads:
            thread.join(timeout)

    def __enter__(self) -> BridgeLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_connected(self, timeout: float) -> bool:
        """Block until the handshake is done and the clock has a real fit."""
        return self._connected.wait(timeout)

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def device(self) -> Hello | None:
        """The device's last HELLO (what it is, which boot)."""
        return self._hello

    @property
    def clock(self) -> ClockEstimate | None:
        return self.mapper.estimate

    def watermark(self) -> int | None:
        """Host monotonic ns W: no Press/Release with ``t < W`` will still come from here.

        None while there is no such promise to make: not connected (no
        handshake yet, or the link was declared dead), no real clock fit, or
        no heartbeat or event yet. Never goes backwards, across reconnects
        and device restarts too. Thread-safe and lock-free: the reader
        thread publishes it as one int, after handing on every event it
        covers (see the module docstring).
        """
        if not self._connected.is_set() or not self.mapper.ready:
            return None
        return self._ledger.mark_ns

    def last_heard_ns(self) -> int | None:
        """Host monotonic ns at which the last good frame was read (None: never):
        the caller may call a link that has gone quiet a fault before the keeper's
        ``silence_timeout_s`` drops it."""
        return self._last_heard_ns

    def stats(self) -> LinkStats:
        with self._lock:
            stats = replace(self._stats)
            stats.bad_frames = self._decoder.stats.bad_total
            stats.bad_versions = self._decoder.stats.bad[BadFrame.VERSION]
            ledger = self._ledger
            stats.events = ledger.events
            stats.duplicates = ledger.duplicates
            stats.gaps = ledger.gaps
            stats.recovered = ledger.recovered
            stats.lost = ledger.lost
            stats.missing = ledger.missing
        return stats

    def force_reconnect(self) -> None:
        """Drop the connection (the reader reopens it): as after a silent device."""
        session = self._session
        if session is not None:
            self._drop(session, "forced")

    # -- commands ----------------------------------------------------------------------

    def set_lamp(self, lamp: int, mode: LampMode | int, period_ms: int = 0) -> None:
        """Set a lamp (``Lamp.ALL`` for every lamp); written at once, resent
        until acknowledged, replayed after a reconnect."""
        with self._lock:
            if lamp == Lamp.ALL:
                self._lamps.clear()
            self._lamps.pop(lamp, None)
            state = self._lamps[lamp] = LampState(int(mode), period_ms)
        self._send_lamp(lamp, state)

    def test_pulse(self, button: int, width_us: int = 20_000) -> int | None:
        """Ask the firmware to pulse ``button``'s input; the token, or None if
        not connected. The answer arrives in :attr:`pulses`; the press it
        causes arrives as any press (flagged ``FLAG_TEST`` in ``on_event``).
        Keep ``width_us`` above the firmware's hold-off (10 ms), or the
        release is only noticed when the hold-off ends."""
        with self._lock:
            self._token = (self._token + 1) & 0xFFFF
            token = self._token
        seq = self._send(TestPulse(button, token, width_us))
        return None if seq is None else token

    # -- writing -----------------------------------------------------------------------

    def _send(
        self,
        message: Message,
        session: Session | None = None,
        on_seq: Callable[[int], None] | None = None,
        prefix: bytes = b"",
    ) -> int | None:
        with self._write_lock:
            session = session or self._session
            if session is None:
                return None
            seq = self._tx_seq
            self._tx_seq = (seq + 1) & 0xFFFF
            if on_seq is not None:
                on_seq(seq)
            try:
                session.port.write(prefix + encode_frame(message, seq))
            except (serial.SerialException, OSError, ValueError, TypeError, AttributeError) as exc:
                # (a port closed under our feet raises TypeError/AttributeError in pyserial)
                with self._lock:
                    self._stats.write_errors += 1
                self._drop(session, f"write failed: {exc}")
                return None
            return seq

    def _send_lamp(self, lamp: int, state: LampState, resend: bool = False) -> None:
        session = self._session
        if session is None or not session.handshaken:
            return

        def track(seq: int) -> None:
            with self._lock:
                state.pending_seq = seq
                state.sent_ns = self._clock()
                state.acked = False
                if resend:
                    self._stats.lamp_resent += 1
                else:
                    self._stats.lamp_sent += 1

        self._send(Lamp(lamp, state.mode, state.period_ms), session, track)

    def _drop(self, session: Session, why: str) -> None:
        """Mark the session dead; the reader closes it and reconnects."""
        with self._lock:
            if self._session is not session:
                return
            self._session = None
            self._connected.clear()
            self._stats.disconnects += 1
        if not self._stop.is_set():
            log.warning("bridge link to %s lost: %s", self.config.url, why)
        cancel_read(session.port)

    # -- the reader thread -------------------------------------------------------------

    def _run_reader(self) -> None:
        backoff = self.config.backoff_initial_s
        while not self._stop.is_set():
            session = self._open()
            if session is None:
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self.config.backoff_max_s)
                continue
            self._read_session(session)
            if session.handshaken:
                backoff = self.config.backoff_initial_s
            self._drop(session, "closed")
            with contextlib.suppress(Exception):  # a dead port may fail to close any way
                session.port.close()
            self._stop.wait(backoff)
            backoff = min(backoff * 2, self.config.backoff_max_s)

    def _open(self) -> Session | None:
        config = self.config
        try:
            # exclusive: a second svoyak (a technician's selftest while the
            # service runs) is refused at open, instead of both reading the
            # Pico's bytes and each getting half of every frame.
            port = self._serial_factory(
                config.url,
                baudrate=config.baudrate,
                timeout=config.read_timeout_s,
                write_timeout=config.write_timeout_s,
                exclusive=True,
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            log.debug("cannot open %s: %s", config.url, exc)
            return None
        session = Session(port, self._clock())
        # A partial frame from before the drop is worthless now.
        self._decoder = fresh_decoder(self._decoder)
        with self._lock:
            self._session = session
            self._stats.connects += 1
        session.hello_sent_ns = self._clock()
        # The leading delimiter closes off whatever the device's decoder holds.
        self._send(HostHello(PROTOCOL_VERSION), session, prefix=DELIMITER)
        self._wake.set()
        return session

    def _read_session(self, session: Session) -> None:
        port = session.port
        decoder = self._decoder
        clock = self._clock
        while not self._stop.is_set() and self._session is session:
            try:
                data = port.read(port.in_waiting or 1)
            except (serial.SerialException, OSError, TypeError, ValueError) as exc:
                log.debug("read from %s failed: %s", self.config.url, exc)
                return
            if not data:
                continue
            now = clock()
            for frame in decoder.feed(data):
                self._on_frame(session, frame, now)
            if self._troubles.pending:
                self._flush_troubles(now)

    # -- the keeper thread -------------------------------------------------------------

    def _run_keeper(self) -> None:
        config = self.config
        while not self._stop.is_set():
            self._wake.clear()
            now = self._clock()
            wait_ns = int(config.ping_interval_s * _NS)
            session = self._session
            if session is not None:
                try:
                    wait_ns = min(wait_ns, self._keep(session, now))
                except Exception:  # the keeper must outlive any one bad round
                    log.exception("bridge keeper: upkeep failed")
            self._wake.wait(max(wait_ns, 0) / _NS)

    def _keep(self, session: Session, now: int) -> int:
        """One round of upkeep; how long (ns) until the next one is due."""
        config = self.config
        if not session.handshaken:
            due = session.hello_sent_ns + int(config.hello_retry_s * _NS)
            if now >= due:
                session.hello_sent_ns = now
                self._send(HostHello(PROTOCOL_VERSION), session, prefix=DELIMITER)
                due = now + int(config.hello_retry_s * _NS)
            return due - now
        if now - session.last_rx_ns > config.silence_timeout_s * _NS:
            self._drop(session, f"no frame for {config.silence_timeout_s} s")
            return 0
        with self._lock:
            point = ack_point(self._ledger.acked, self._records)
            ack = self._ack_due or point != self._ack_sent
            if ack:
                self._ack_due = False
                self._ack_sent = point
        if ack:
            self._send(Ack(point), session)
        waits = [int(config.ping_interval_s * _NS), int(config.ack_interval_s * _NS)]
        if now >= session.next_ping_ns:
            t0 = self._clock()
            self._send(Ping(t0), session)
            if session.pings_left > 0:
                session.pings_left -= 1
                interval = config.ping_burst_interval_s
            else:
                interval = config.ping_interval_s
            session.next_ping_ns = t0 + int(interval * _NS)
        waits.append(session.next_ping_ns - now)
        retry_ns = int(config.lamp_retry_s * _NS)
        with self._lock:
            due_lamps = [
                (lamp, state)
                for lamp, state in self._lamps.items()
                if not state.acked and (state.sent_ns is None or now - state.sent_ns >= retry_ns)
            ]
            pending_sent = [
                s.sent_ns for s in self._lamps.values() if not s.acked and s.sent_ns is not None
            ]
        for lamp, state in due_lamps:
            self._send_lamp(lamp, state, resend=True)
        if due_lamps or pending_sent:
            waits.append(retry_ns)
        if self._troubles.pending:
            waits.append(self._flush_troubles(now))
        return min(waits)


__all__ = ["BridgeLink", "EventInfo", "LinkConfig", "LinkStats", "LinkTrouble", "PulseReport"]
