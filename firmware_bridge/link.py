"""The host side of the Pico bridge: a serial link that turns frames into presses.

The port is a pyserial URL (``serial.serial_for_url``): ``/dev/ttyACM0`` on
the Pi, the emulator's pty path in a demo or a test, ``loop://`` for a
framing check. Two threads:

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

**The ACK follows the record.** The cumulative ACK covers an event only
once it is on the record: what the sink returned for it (the runtime's
future) is done — the batch holding it was journaled, or the controller
refused it for good — or the event was never this game's (a button with no
seat, a stamp from before the game), or it was refused on the record (its
fault journaled: below). So a press the host received but had not journaled
when it stopped is still in the device's ring, and the device resends it to
the next host. A delivery whose record failed (the journal could not be
written) is handed on again, as it was, when the device resends the event.

**A stamp from the device's future is refused.** The device's own latest
time is the highest tick it reported as its time: a HEARTBEAT's ``ticks``,
a HELLO's, a PONG's ``sent_ticks``. An event stamped at or before it is
taken at once. One stamped after it may be honest — the firmware sends a
round's events *before* the heartbeat that covers them — so it is held
(not handed on, no watermark past or at it) until the device's time reaches
its stamp, normally the very next frame. But one stamped beyond what the
device's clock could have read when the frame arrived — the clock model's
device time at its arrival, plus the model's stated uncertainty, or the
device's own latest time if later, plus ``future_slack_us`` (0.25 s) — is
refused: never handed on, never near the watermark, counted
(``future_stamps``) and reported (``LinkTrouble`` ``"future"``), and
acknowledged once that fault is on the record. Event stamps never move the
tick unwrapper's reference (:meth:`TickUnwrapper.place`): only the device's
own times do, so a stamp placed half a period ahead cannot carry later
ticks into the wrong period.

**Never silent**: what the technician must hear of — events lost for good,
edges the device's capture ring lost before they were numbered (the
heartbeat's ``ring_overflows``: no gap in the numbers shows those), a button
with no seat in the game, a device with fewer buttons than the game has
seats, events stamped in the device's future — is counted in
:class:`LinkStats`, logged, and handed to ``on_trouble`` as a
:class:`LinkTrouble` (the runtime journals it as a source fault and the
host's panel shows it). Losses and refusals are summed and reported at most
once per ``trouble_interval_s`` each, so a flood is a few alerts.

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
from dataclasses import dataclass, field, replace
from typing import Any

import serial  # type: ignore[import-untyped]

from buzzer.arbiter.events import Press, Release
from firmware_bridge.clock import ClockEstimate, ClockMapper, TickUnwrapper
from firmware_bridge.ledger import EventLedger
from firmware_bridge.protocol import (
    DELIMITER,
    PROTOCOL_VERSION,
    Ack,
    BadFrame,
    CmdAck,
    Frame,
    FrameDecoder,
    Heartbeat,
    Hello,
    HostHello,
    Lamp,
    LampMode,
    Message,
    MsgType,
    Ping,
    Pong,
    Pulsed,
    TestPulse,
    encode_frame,
)
from firmware_bridge.protocol import Press as PressMsg
from firmware_bridge.protocol import Release as ReleaseMsg
from firmware_bridge.shipped import held_at_boot_detail

log = logging.getLogger("firmware_bridge.link")

Clock = Callable[[], int]
SerialFactory = Callable[..., Any]

_NS = 1_000_000_000


@dataclass(frozen=True)
class LinkConfig:
    """How to reach the device and how patient to be."""

    url: str
    #: ``seats[i]`` is the seat of button ``i``; default: button index + 1. A button
    #: beyond the map has no seat: its presses are counted (``unseated``), never
    #: delivered (``attach_bridge`` maps exactly the game's seats).
    seats: tuple[int, ...] | None = None
    baudrate: int = 115_200
    ping_interval_s: float = 0.25
    ping_burst: int = 8
    ping_burst_interval_s: float = 0.004
    silence_timeout_s: float = 1.5
    #: An unanswered HOST_HELLO is sent again this soon: a Pico answers in a few
    #: ms, and while the handshake waits its ring of unacknowledged events fills
    #: (256 events hold ~1.6 s of eight players hammering); a lost HELLO must cost
    #: a tenth of a second, not half of one.
    hello_retry_s: float = 0.1
    lamp_retry_s: float = 0.05
    #: How often the keeper sends the cumulative ACK while events await one: far
    #: below the device's 200 ms resend, and never on the press's own path.
    ack_interval_s: float = 0.02
    backoff_initial_s: float = 0.05
    backoff_max_s: float = 2.0
    read_timeout_s: float = 0.1
    write_timeout_s: float = 0.5
    #: Drop events stamped before the link was started (presses from before the
    #: program ran, still in a freshly met device's ring): they are not this game's.
    drop_before_start: bool = True
    #: With ``drop_before_start``: the host instant (the link's clock) before which
    #: a stamp is not this game's, instead of the link's start. ``attach_bridge``
    #: gives the game's t = 0: a resumed game takes what the device still holds
    #: from its own time (unacknowledged, so never journaled), presses of the
    #: moments the host was down included.
    not_before_ns: int | None = None
    #: How far (µs) an event's stamp may lie past the latest time the device could
    #: have read when its frame arrived before it is refused as a stamp from the
    #: device's future (see the module docstring). Far above any error of the
    #: clock model (its stated uncertainty is added on top) and the slowest
    #: emulated chip's wander: it only decides how soon a wrong stamp is refused
    #: rather than held, never whether an honest one is taken.
    future_slack_us: int = 250_000
    #: Losses of one kind are reported (``on_trouble``) at most this often, summed.
    trouble_interval_s: float = 1.0


@dataclass
class LinkStats:
    """Counters, for the technician and the tests (a copy: :meth:`BridgeLink.stats`)."""

    connects: int = 0
    disconnects: int = 0
    handshakes: int = 0
    device_restarts: int = 0
    incompatible: int = 0
    frames: int = 0
    bad_frames: int = 0
    frame_gaps: int = 0
    events: int = 0
    duplicates: int = 0
    gaps: int = 0
    missing: int = 0
    recovered: int = 0
    lost: int = 0
    stale: int = 0
    bad_events: int = 0
    pongs: int = 0
    lamp_sent: int = 0
    lamp_resent: int = 0
    write_errors: int = 0
    device_dropped: int = 0
    device_rx_bad: int = 0
    heartbeats: int = 0
    #: Presses and releases of a button with no seat in the game (beyond ``seats``).
    unseated: int = 0
    #: HEARTBEATs and HELLOs whose event counters contradict what the host has
    #: received (an ``oldest_unacked`` ahead of every event, a ``next_event``
    #: behind one): protocol errors, ignored (see :meth:`EventLedger.counters_problem`).
    bad_counters: int = 0
    #: Delivered events whose mapped stamp was raised to the watermark already
    #: reported, because the clock mapping moved (see the module docstring).
    watermark_clamps: int = 0
    #: Edges the device's capture ring lost before they were numbered (summed over
    #: its boots, from the heartbeat's ``ring_overflows``): presses that never were.
    ring_overflows: int = 0
    #: Handshakes with a device that has fewer buttons than the game has seats.
    short_of_buttons: int = 0
    #: Troubles handed to ``on_trouble`` (see :class:`LinkTrouble`).
    troubles: int = 0
    #: Frames of another protocol version (of ``bad_frames``): firmware of
    #: another release than this host's, if the line is otherwise clean.
    bad_versions: int = 0
    #: Events refused because their stamp lay in the device's future (beyond the
    #: time its clock could have read when the frame arrived; see the module docstring).
    future_stamps: int = 0
    #: HEARTBEATs refused because their tick lay in the device's future (the same
    #: bound as an event's): a forged tick would carry the watermark ahead and make
    #: every honest press after it late.
    future_ticks: int = 0
    #: Events stamped after the device's latest reported time when they arrived,
    #: held until it reported a time at or past their stamp (honest: a round's
    #: events go out before the heartbeat that covers them).
    stamp_waits: int = 0
    #: Events handed on again because the record of the first delivery failed (the
    #: sink's future failed: the journal could not be written).
    record_retries: int = 0


@dataclass(frozen=True)
class LinkTrouble:
    """Something about the link the technician must be told of (``on_trouble``).

    ``kind``:

    - ``"lost"``: ``count`` events the device numbered and dropped from its
      ring before they arrived (a gap the host can never fill);
    - ``"overflow"``: ``count`` edges the device's capture ring lost before
      it numbered them (its main loop fell behind the buttons);
    - ``"future"``: ``count`` events refused, their stamps (up to ``ahead_us``
      past the device's latest reported time) in the device's future: a
      firmware fault; never handed on, never holding the watermark;
    - ``"future_tick"``: ``count`` HEARTBEATs refused, their ticks (up to
      ``ahead_us``) past what the device's clock could have read: never
      moving the watermark;
    - ``"unseated"``: ``button`` (1-based) has no seat in this game (of
      ``seats``); its presses are ignored;
    - ``"buttons"``: the device has ``count`` buttons, fewer than the game's
      ``seats``: the seats beyond them cannot press;
    - ``"held"``: ``count`` buttons were held at the device's power-up (its
      HELLO's ``held_at_boot``; ``button`` the first): a stuck button or a
      shorted cable.

    ``detail`` says it in one English line (at most 200 characters: it is
    journaled as the source fault's detail, and the host's panel words it from
    the numbers in it).
    """

    kind: str
    count: int
    detail: str
    button: int | None = None
    seats: int | None = None
    #: ``"future"``: how far (µs) the furthest refused stamp lay past the device's time.
    ahead_us: int | None = None


@dataclass(frozen=True)
class EventInfo:
    """Everything known of one accepted event (``on_event`` callback)."""

    event: int
    button: int
    seat: int
    pressed: bool
    device_us: int
    t_ns: int
    recv_ns: int
    flags: int


@dataclass(frozen=True)
class PulseReport:
    """The device started test pulse ``token`` at ``device_us`` (mapped: ``t_ns``)."""

    token: int
    button: int
    status: int
    device_us: int
    t_ns: int


@dataclass
class _LampState:
    mode: int
    period_ms: int
    #: frame seq of the last send not yet acknowledged, and when it was sent.
    pending_seq: int | None = None
    sent_ns: int | None = None
    acked: bool = False


@dataclass
class _Session:
    """What one open port knows (reset at every (re)open)."""

    port: Any
    opened_ns: int
    hello_sent_ns: int = 0
    handshaken: bool = False
    rx_seq: int | None = None
    last_rx_ns: int = 0
    pings_left: int = 0
    next_ping_ns: int = 0
    pending: list[tuple[PressMsg | ReleaseMsg, int]] = field(default_factory=list)


@dataclass
class _Record:
    """One event on its way to the record: the ACK covers it only once it is there."""

    #: Handed on: the input to the sink, or its refusal (a trouble) to ``on_trouble``.
    handed: bool = False
    #: What the sink (or ``on_trouble``) returned for it: a future, done once the
    #: input (or the fault) is on the record; anything else (None): nothing to wait for.
    handle: Any = None
    #: The input handed to the sink: handed on again, as it was, if its record failed.
    item: Press | Release | None = None

    def state(self) -> bool | None:
        """True: on the record; False: not yet; None: its record failed (hand it on again)."""
        if not self.handed:
            return False
        handle = self.handle
        done = getattr(handle, "done", None)
        if done is None:
            return True
        if not done():
            return False
        return None if handle.cancelled() or handle.exception() is not None else True


@dataclass(frozen=True)
class _Held:
    """An event stamped past the device's latest reported time, waiting for it."""

    message: PressMsg | ReleaseMsg
    device_us: int
    recv_ns: int
    record: _Record


class BridgeLink:
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
        self.config = config
        #: Called (reader or keeper thread) with each :class:`LinkTrouble`. It may
        #: return a future, done once the trouble is on the record (journaled): an
        #: event refused for it is acknowledged to the device only then.
        self.on_trouble = on_trouble
        #: Called (reader thread) each time the published watermark moves on: the
        #: runtime need not poll for the moment a held press becomes decidable.
        self.on_watermark = on_watermark
        self.events: queue.SimpleQueue[Press | Release] = (
            events if events is not None else queue.SimpleQueue()
        )
        #: Where each Press/Release goes: ``events.put`` unless a ``sink`` is given
        #: (e.g. the controller's own input queue); called on the reader thread. A
        #: sink may return a future (``concurrent.futures.Future``), done once the
        #: input is on the record — journaled, or refused for good — and failed if
        #: the record could not be written: the device's event is acknowledged only
        #: once it is done (see the module docstring). Anything else (``None``: a
        #: queue) is on the record at once.
        self._put: Callable[[Press | Release], object] = sink or self.events.put
        self.pulses: queue.SimpleQueue[PulseReport] = queue.SimpleQueue()
        self._clock = clock
        self._serial_factory = serial_factory or serial.serial_for_url
        self._event_hook = on_event
        self.mapper = mapper or ClockMapper()
        self._stats = LinkStats()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._connected = threading.Event()
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._session: _Session | None = None
        self._tx_seq = 0
        self._threads: list[threading.Thread] = []
        self._started_ns = 0
        # Device identity and event bookkeeping (kept across reconnects of one boot).
        self._hello: Hello | None = None
        self._boot_id: int | None = None
        self._unwrapper: TickUnwrapper | None = None
        #: The event numbers (in hand, duplicate, missing, lost) and the watermark, in
        #: device µs (reader thread only) and as published in host ns (written by the
        #: reader thread, read by anyone: one immutable int). Lock held for the numbers.
        self._ledger = EventLedger()
        #: Buttons with no seat already reported in the log (once each).
        self._unseated_logged: set[int] = set()
        #: The device's ``ring_overflows`` already counted (this boot).
        self._overflows_seen = 0
        #: The boot a "too few buttons" trouble was reported for.
        self._short_reported: int | None = None
        self._held_reported: int | None = None
        # Troubles: losses summed per kind until they may be reported again (host
        # ns), and troubles ready to hand on (lock held to touch either).
        self._trouble_counts: dict[str, int] = {}
        self._trouble_due: dict[str, int] = {}
        self._trouble_ready: list[LinkTrouble] = []
        self._ack_due = False
        self._lamps: dict[int, _LampState] = {}
        self._token = 0
        self._decoder = FrameDecoder()
        #: The device's own latest time (unwrapped µs, this boot): the highest tick it
        #: reported as its time (HELLO, HEARTBEAT, PONG's sent tick). Reader thread only.
        self._device_us: int | None = None
        #: Events stamped past it, held until it reaches them (reader thread only).
        self._held: list[_Held] = []
        #: Events on their way to the record, by number, this boot (lock held).
        self._records: dict[int, _Record] = {}
        #: The last cumulative ACK sent (lock held).
        self._ack_sent: int | None = None
        #: Refusals waiting for their trouble to be handed on, by kind (lock held).
        self._trouble_waiting: dict[str, list[_Record]] = {}
        #: The furthest a refused stamp lay ahead since the last "future" report (µs).
        self._future_ahead_us = 0
        #: The furthest a refused heartbeat's tick lay ahead since the last report (µs).
        self._future_tick_ahead_us = 0
        self._last_heard_ns: int | None = None

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
            _cancel_read(session.port)
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
            state = self._lamps[lamp] = _LampState(int(mode), period_ms)
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
        session: _Session | None = None,
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

    def _send_lamp(self, lamp: int, state: _LampState, resend: bool = False) -> None:
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

    def _drop(self, session: _Session, why: str) -> None:
        """Mark the session dead; the reader closes it and reconnects."""
        with self._lock:
            if self._session is not session:
                return
            self._session = None
            self._connected.clear()
            self._stats.disconnects += 1
        if not self._stop.is_set():
            log.warning("bridge link to %s lost: %s", self.config.url, why)
        _cancel_read(session.port)

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

    def _open(self) -> _Session | None:
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
        session = _Session(port, self._clock())
        # A partial frame from before the drop is worthless now.
        self._decoder = _fresh_decoder(self._decoder)
        with self._lock:
            self._session = session
            self._stats.connects += 1
        session.hello_sent_ns = self._clock()
        # The leading delimiter closes off whatever the device's decoder holds.
        self._send(HostHello(PROTOCOL_VERSION), session, prefix=DELIMITER)
        self._wake.set()
        return session

    def _read_session(self, session: _Session) -> None:
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
            if self._trouble_ready or self._trouble_counts:
                self._flush_troubles(now)

    def _on_frame(self, session: _Session, frame: Frame, now: int) -> None:
        message = frame.message
        session.last_rx_ns = now
        self._last_heard_ns = now
        with self._lock:
            self._stats.frames += 1
            if session.rx_seq is not None and session.handshaken:
                skipped = (frame.seq - session.rx_seq - 1) & 0xFFFF
                if skipped:
                    self._stats.frame_gaps += 1
            session.rx_seq = frame.seq
        if isinstance(message, Hello):
            self._on_hello(session, message, now)
        elif not session.handshaken:
            return  # whatever came before the HELLO is resent after it
        elif isinstance(message, PressMsg | ReleaseMsg):
            if self.mapper.ready:
                self._on_event(message, now)
            else:
                session.pending.append((message, now))
        elif isinstance(message, Heartbeat):
            self._on_heartbeat(session, message, now)
        elif isinstance(message, Pong):
            self._on_pong(session, message, now)
        elif isinstance(message, CmdAck):
            self._on_cmd_ack(message)
        elif isinstance(message, Pulsed):
            unwrapper = self._unwrapper
            assert unwrapper is not None
            device_us = unwrapper.unwrap(message.ticks)
            t_ns = self.mapper.to_host_ns(device_us)
            report = PulseReport(message.token, message.button, message.status, device_us, t_ns)
            self.pulses.put(report)
        # Host → device types read back (a loop:// port) are ignored.

    def _on_hello(self, session: _Session, hello: Hello, now: int) -> None:
        if hello.protocol != PROTOCOL_VERSION:
            with self._lock:
                self._stats.incompatible += 1
            log.error(
                "device speaks protocol %d, this host %d: not connecting",
                hello.protocol,
                PROTOCOL_VERSION,
            )
            return
        if hello.boot_id != self._boot_id and self._held:
            # The old boot's clock will never reach what is still held.
            self._settle_unproven(now)
        with self._lock:
            new_boot = hello.boot_id != self._boot_id
            oldest = hello.oldest_unacked
            problem = self._ledger.counters_problem(
                hello.next_event, oldest, hello=True, new_boot=new_boot
            )
            if problem is not None:
                self._stats.bad_counters += 1
                log.warning("bridge: a HELLO's counters ignored: %s", problem)
                oldest = min(oldest, hello.next_event)
            if new_boot:
                if self._boot_id is not None:
                    self._stats.device_restarts += 1
                # Known gaps of the old boot are lost: its ring is gone with it. Its
                # numbers and its device-time watermark mean nothing to this one (the
                # published watermark stays: it never goes back).
                missing = self._ledger.new_boot(oldest)
                if missing > 0:
                    self._count_trouble("lost", missing)
                self._boot_id = hello.boot_id
                self._overflows_seen = 0
                self._unwrapper = TickUnwrapper(hello.tick_bits)
                # Another clock: no fit yet.
                self._connected.clear()
                self.mapper.reset()
                device_us = self._unwrapper.unwrap(hello.ticks)
                self.mapper.seed(device_us, now)
                # The old boot's numbers and times mean nothing to this one.
                self._device_us = None
                self._records.clear()
                self._ack_sent = None
            else:
                unwrapper = self._unwrapper
                assert unwrapper is not None
                if self.mapper.estimate is not None:
                    device_us = unwrapper.rebase(hello.ticks, self.mapper.to_device_us(now))
                else:
                    device_us = unwrapper.unwrap(hello.ticks)
                # Only up to the events in hand: the ring's resends come next, and the
                # heartbeat after them (checked against them) settles the rest.
                if problem is None:
                    self._settle_lost(min(oldest, self._ledger.highest + 1))
            self._hello = hello
            session.handshaken = True
            session.rx_seq = None
            session.pings_left = self.config.ping_burst
            session.next_ping_ns = now
            self._stats.handshakes += 1
            self._ack_due = True
            lamps = list(self._lamps.items())
            short = self._short_of_buttons(hello)
            held = self._held_at_boot(hello)
        for trouble in (short, held):
            if trouble is not None:
                self._trouble(trouble)
        log.info(
            "bridge handshake: firmware %s, %d buttons, boot %08x%s",
            ".".join(map(str, hello.firmware)),
            hello.buttons,
            hello.boot_id,
            " (new boot)" if new_boot else " (same boot: resuming)",
        )
        # The HELLO's tick is the device's time as it answered: what is held and
        # stamped at or before it is taken (after a reconnect of the same boot).
        self._prove(device_us)
        for lamp, state in lamps:
            self._send_lamp(lamp, state, resend=True)
        if self.mapper.ready:
            self._connected.set()
        self._wake.set()

    def _on_pong(self, session: _Session, pong: Pong, now: int) -> None:
        unwrapper = self._unwrapper
        assert unwrapper is not None
        device_us = unwrapper.unwrap(pong.ticks)
        hold_us = (pong.sent_ticks - pong.ticks) & (unwrapper.period - 1)
        if hold_us < unwrapper.period >> 1:  # else garbage: the answer before the read
            self.mapper.add_sample(pong.host_t0, device_us, now, hold_us)
        else:
            hold_us = 0
        with self._lock:
            self._stats.pongs += 1
        # The device's time as it answered (what is held and stamped before it is taken).
        self._prove(device_us + hold_us)
        if session.pending:
            pending, session.pending = session.pending, []
            for message, recv_ns in pending:
                self._on_event(message, recv_ns)
        # A heartbeat that came before the first fit may have moved the mark already.
        self._publish_mark()
        if session.handshaken and self._session is session:
            self._connected.set()

    def _on_heartbeat(self, session: _Session, heartbeat: Heartbeat, recv_ns: int) -> None:
        """Counters, lost events, and the watermark: every event stamped at or
        before the heartbeat's tick came ahead of it, so once all those it
        counts are in hand (none missing, none waiting for the clock fit),
        nothing older than its tick is still to come.

        A tick beyond what the device's clock could have read when the frame
        came (the clock model's time, its uncertainty and ``future_slack_us``)
        is refused whole, as an event's stamp is: taken, it would carry the
        watermark ahead, the host would decide that far ahead, and every honest
        press stamped before it would be late."""
        unwrapper = self._unwrapper
        assert unwrapper is not None
        if self._future_tick(heartbeat, unwrapper.place(heartbeat.ticks), recv_ns):
            return
        with self._lock:
            self._stats.heartbeats += 1
            problem = self._ledger.counters_problem(heartbeat.next_event, heartbeat.oldest_unacked)
            if problem is not None:
                # Counted and ignored whole: its counters would declare presses
                # lost that are still to come, its tick promise nothing.
                self._stats.bad_counters += 1
                count = self._stats.bad_counters
                if count & (count - 1) == 0:  # the 1st, 2nd, 4th, 8th …: a flood logs little
                    log.warning("bridge: HEARTBEAT ignored (%d so far): %s", count, problem)
                return
            self._stats.device_dropped = heartbeat.dropped
            self._stats.device_rx_bad = heartbeat.rx_bad
            overflows = heartbeat.ring_overflows - self._overflows_seen
            if overflows > 0:
                self._overflows_seen = heartbeat.ring_overflows
                self._stats.ring_overflows += overflows
                self._count_trouble("overflow", overflows)
                log.warning(
                    "bridge: the device's capture ring lost %d edge(s) before numbering them "
                    "(%d this boot)",
                    overflows,
                    heartbeat.ring_overflows,
                )
            self._settle_lost(heartbeat.oldest_unacked)
            complete = self._ledger.complete(heartbeat.next_event) and not session.pending
        device_us = unwrapper.unwrap(heartbeat.ticks)
        # Events held for a stamp past the device's time that it now reached are
        # handed on first: the watermark passes nothing still to be handed on.
        self._prove(device_us)
        if complete:
            self._advance_mark(device_us)

    def _future_tick(self, heartbeat: Heartbeat, device_us: int, recv_ns: int) -> bool:
        """True (counted, reported, logged) if ``heartbeat``'s tick lies past what
        the device's clock could have read at ``recv_ns``; reader thread."""
        estimate = self.mapper.estimate
        if estimate is None:
            return False  # no model of the device's clock yet: nothing to hold it to
        could = self.mapper.to_device_us(recv_ns) - (-estimate.uncertainty_ns // 1_000)
        ahead = device_us - could
        if ahead <= self.config.future_slack_us:
            return False
        with self._lock:
            self._stats.future_ticks += 1
            count = self._stats.future_ticks
            self._count_trouble("future_tick", 1)
            self._future_tick_ahead_us = max(self._future_tick_ahead_us, ahead)
        if count & (count - 1) == 0:  # the 1st, 2nd, 4th …: a flood logs little
            log.warning(
                "bridge: HEARTBEAT refused (%d so far): its tick %.3f s past what the "
                "device's clock could have read",
                count,
                ahead / 1e6,
            )
        return True

    def _advance_mark(self, device_us: int, mapped_ns: int | None = None) -> None:
        """Move the watermark to ``device_us`` (reader thread only) and publish it.

        ``mapped_ns``: the host stamp the event at ``device_us`` was given;
        the watermark then stands at that stamp, so that the next events,
        spaced from it, need no raise. A heartbeat's tick is mapped by the
        model.
        """
        self._ledger.advance_mark(device_us)
        self._publish_mark(mapped_ns)

    def _publish_mark(self, mapped_ns: int | None = None) -> None:
        """Publish the device-time watermark in host ns, if there is a real fit to
        map it with (reader thread only); the published value never goes back."""
        mark = self._ledger.mark_us
        if mark is None or not self.mapper.ready:
            return
        mark_ns = self.mapper.to_host_ns(mark) if mapped_ns is None else mapped_ns
        if self._ledger.publish(mark_ns):
            hook = self.on_watermark
            if hook is not None:
                hook()

    def _on_cmd_ack(self, ack: CmdAck) -> None:
        if ack.acked != MsgType.LAMP:
            return
        with self._lock:
            for state in self._lamps.values():
                if state.pending_seq == ack.seq:
                    state.pending_seq = None
                    state.acked = True

    def _settle_lost(self, oldest_unacked: int) -> None:
        """Events before ``oldest_unacked`` that never arrived never will (lock held):
        counted by the ledger, reported and logged here."""
        lost = self._ledger.settle_lost(oldest_unacked)
        if lost > 0:
            self._count_trouble("lost", lost)
            log.warning("bridge: %d event(s) lost for good (device ring overflowed)", lost)

    def _on_event(self, message: PressMsg | ReleaseMsg, recv_ns: int) -> None:
        event = message.event
        unwrapper = self._unwrapper
        assert unwrapper is not None
        failed: _Record | None = None
        with self._lock:
            self._ack_due = True
            arrival = self._ledger.arrive(event)
            duplicate = arrival.duplicate
            if duplicate:
                known = self._records.get(event)
                if known is not None and known.state() is None:
                    failed = known
            else:
                if arrival.gap is not None:
                    log.warning(
                        "bridge: events %d..%d missing (a resend should fill them)", *arrival.gap
                    )
                # No gap before it: every event stamped before it is in hand.
                in_order = arrival.in_order
                record = self._records[event] = _Record()
        if duplicate:
            if failed is not None:
                # Its record failed (the journal could not be written): the
                # device's resend brings it to the record again.
                self._retry(event, failed)
            return
        # No wake-up of the keeper here: it acks on its own beat (``ack_interval_s``),
        # so that no other thread competes for the GIL while the press is handed on.
        # Placed, not unwrapped: a stamp is not the device's time until it is proven.
        device_us = unwrapper.place(message.ticks)
        proven = self._device_us
        assert proven is not None  # the HELLO's tick, at least
        if device_us <= proven:
            self._take(message, device_us, recv_ns, record, in_order)
        elif device_us > self._future_bound(recv_ns):
            self._refuse(message, device_us, record)
        else:
            # Stamped after the device's latest reported time, as an honest event
            # may be (a round's events go out before its heartbeat): held until
            # the device's time reaches it, normally at the very next frame.
            with self._lock:
                self._stats.stamp_waits += 1
            self._held.append(_Held(message, device_us, recv_ns, record))

    def _take(
        self,
        message: PressMsg | ReleaseMsg,
        device_us: int,
        recv_ns: int,
        record: _Record,
        in_order: bool,
    ) -> None:
        """Hand the event on and, with no gap before it, move the watermark to it."""
        t_ns = self._deliver(message, device_us, recv_ns, record)
        # Only now, with the event handed on, may the watermark pass its stamp.
        if in_order:
            self._advance_mark(device_us, t_ns)

    def _future_bound(self, recv_ns: int) -> int:
        """The latest stamp (device µs) an event read at ``recv_ns`` may carry: the
        latest time the device's clock could have read by then — the clock model's
        (plus its stated uncertainty), or the device's own latest report if later —
        plus ``future_slack_us``. An honest stamp is never later than the tick its
        frame was sent at, so only a wrong one can lie beyond it."""
        estimate = self.mapper.estimate
        assert estimate is not None and self._device_us is not None
        could = self.mapper.to_device_us(recv_ns) - (-estimate.uncertainty_ns // 1_000)
        return max(could, self._device_us) + self.config.future_slack_us

    def _refuse(self, message: PressMsg | ReleaseMsg, device_us: int, record: _Record) -> None:
        """A stamp from the device's future: never handed on, never near the watermark;
        counted and reported (acknowledged once the report is on the record)."""
        proven = self._device_us
        assert proven is not None
        ahead = device_us - proven
        with self._lock:
            self._stats.future_stamps += 1
            count = self._stats.future_stamps
            self._count_trouble("future", 1)
            self._future_ahead_us = max(self._future_ahead_us, ahead)
            self._trouble_waiting.setdefault("future", []).append(record)
        if count & (count - 1) == 0:  # the 1st, 2nd, 4th …: a flood logs little
            log.warning(
                "bridge: event %d refused (%d so far): stamped %.3f s past the device's "
                "latest time, beyond what its clock could have read",
                message.event,
                count,
                ahead / 1e6,
            )

    def _prove(self, device_us: int) -> None:
        """The device reported its own time ``device_us`` (reader thread): the events
        held for a stamp at or before it are handed on, in their order."""
        proven = self._device_us
        if proven is None or device_us > proven:
            self._device_us = proven = device_us
        if not self._held:
            return
        ready = [h for h in self._held if h.device_us <= proven]
        if not ready:
            return
        self._held = [h for h in self._held if h.device_us > proven]
        for held in sorted(ready, key=lambda h: h.message.event):
            in_order = self._ledger.in_order(held.message.event)
            self._take(held.message, held.device_us, held.recv_ns, held.record, in_order)

    def _settle_unproven(self, now: int) -> None:
        """A new boot: the old clock will never reach the events still held. The
        host's model of that clock judges them instead (reader thread, before the
        model is reset): one whose stamp it has passed by now is handed on (it was
        plausible when it came, and no watermark passed it), any other refused."""
        held, self._held = self._held, []
        device_now = self.mapper.to_device_us(now)
        for item in sorted(held, key=lambda h: h.message.event):
            if item.device_us <= device_now:
                self._take(item.message, item.device_us, item.recv_ns, item.record, False)
            else:
                self._refuse(item.message, item.device_us, item.record)

    def _retry(self, event: int, record: _Record) -> None:
        """Bring to the record again an event whose record failed (reader thread)."""
        item = record.item
        if item is not None:
            # As it was: its own stamp, though the watermark may have passed it
            # since (the runtime then journals it and rules it late).
            handle = self._put(item)
            with self._lock:
                record.handle = handle
                self._stats.record_retries += 1
            log.warning("bridge: event %d handed on again: its record failed", event)
            return
        with self._lock:  # a refusal whose fault was not journaled: reported again
            record.handed = False
            record.handle = None
            self._stats.record_retries += 1
            self._count_trouble("future", 1)
            self._trouble_waiting.setdefault("future", []).append(record)

    def _deliver(
        self, message: PressMsg | ReleaseMsg, device_us: int, recv_ns: int, record: _Record
    ) -> int:
        """Map the event's stamp (never below the watermark already published) and hand
        it to the sink, unless it is not for this game (bad button, stale); the stamp.
        ``record`` learns what the sink returned (or that it is on the record already)."""
        hello = self._hello
        assert hello is not None
        published, at_us = self._ledger.mark_ns, self._ledger.mark_at_us
        # After a device restart the floor's tick is of the old clock: raise to
        # the published watermark itself (at worst a tie, settled by lot).
        floor = None if published is None else (device_us if at_us is None else at_us, published)
        t_ns, raised = self.mapper.map_event_at_least(device_us, floor)
        button = message.button
        seats = self.config.seats
        if button >= hello.buttons:
            with self._lock:
                self._stats.bad_events += 1
                record.handed = True
            return t_ns
        if seats is not None and button >= len(seats):
            # A button wired beyond the game's players (button 7 of 8 in a 3-player
            # game): no seat to press for. Never journaled as one; told once.
            with self._lock:
                self._stats.unseated += 1
                first = button not in self._unseated_logged
                self._unseated_logged.add(button)
                record.handed = True
            if first:
                detail = (
                    f"button {button + 1} of the device has no seat in this game "
                    f"({len(seats)} seats): its presses are ignored"
                )
                log.warning("bridge: %s (counted in unseated)", detail)
                self._trouble(
                    LinkTrouble("unseated", 1, detail, button=button + 1, seats=len(seats))
                )
            return t_ns
        not_before = self.config.not_before_ns
        if self.config.drop_before_start and t_ns < (
            self._started_ns if not_before is None else not_before
        ):
            with self._lock:
                self._stats.stale += 1
                record.handed = True
            return t_ns
        if raised:
            with self._lock:
                self._stats.watermark_clamps += 1
        seat = seats[button] if seats is not None else button + 1
        pressed = isinstance(message, PressMsg)
        item = Press(t_ns, seat) if pressed else Release(t_ns, seat)
        handle = self._put(item)
        with self._lock:
            record.item = item
            record.handle = handle
            record.handed = True
        if self._event_hook is not None:
            self._event_hook(
                EventInfo(
                    message.event, button, seat, pressed, device_us, t_ns, recv_ns, message.flags
                )
            )
        return t_ns

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

    def _keep(self, session: _Session, now: int) -> int:
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
            point = self._ack_point()
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
        if self._trouble_ready or self._trouble_counts:
            waits.append(self._flush_troubles(now))
        return min(waits)

    def _ack_point(self) -> int:
        """The cumulative ACK the device may have (lock held): every event up to it
        is in hand and on the record, or gone for good (lost, known to be so).

        An event handed on whose record is not written yet (the runtime holds it
        for the watermark, its batch's commit is under way) holds the ACK below
        it, and so does one still held for its stamp, or refused and not yet
        reported: the device keeps them, and resends them to the next host if
        this one stops first.
        """
        point = self._ledger.acked
        records = self._records
        for event in sorted(records):
            if event > point:
                break
            if records[event].state() is not True:
                return event - 1
            del records[event]
        return point

    # -- troubles ----------------------------------------------------------------------

    def _short_of_buttons(self, hello: Hello) -> LinkTrouble | None:
        """A trouble if the device has fewer buttons than the game has seats (once
        per boot; lock held)."""
        seats = self.config.seats
        if seats is None or hello.buttons >= len(seats):
            return None
        self._stats.short_of_buttons += 1
        if self._short_reported == hello.boot_id:
            return None
        self._short_reported = hello.boot_id
        beyond = ", ".join(str(seat) for seat in seats[hello.buttons :])
        detail = (
            f"the device has {hello.buttons} buttons, the game {len(seats)} seats: "
            f"seat(s) {beyond} cannot press"
        )[:200]
        # Told once: to whoever listens (svoyak run words it for the technician),
        # else to the log.
        (log.info if self.on_trouble is not None else log.warning)("bridge: %s", detail)
        return LinkTrouble("buttons", hello.buttons, detail, seats=len(seats))

    def _held_at_boot(self, hello: Hello) -> LinkTrouble | None:
        """A trouble if the device found buttons held at power-up (once per boot;
        lock held): pressed before the device could see the edge, so the
        capture reports them at its first sample, and a cable may be shorted."""
        detail = held_at_boot_detail(hello)
        if detail is None or self._held_reported == hello.boot_id:
            return None
        self._held_reported = hello.boot_id
        buttons = [i + 1 for i in range(8) if hello.held_at_boot >> i & 1]
        log.warning("bridge: %s", detail)
        return LinkTrouble("held", len(buttons), detail[:200], button=buttons[0])

    def _count_trouble(self, kind: str, count: int) -> None:
        """A loss to report: summed with others of its kind (lock held)."""
        self._trouble_counts[kind] = self._trouble_counts.get(kind, 0) + count

    def _trouble(self, trouble: LinkTrouble) -> None:
        """Report ``trouble`` now (no lock held)."""
        with self._lock:
            self._trouble_ready.append(trouble)
        self._flush_troubles(self._clock())

    def _flush_troubles(self, now: int) -> int:
        """Hand on what is ready, and the summed losses whose interval has passed
        (no lock held); ns until the next summed loss may be reported."""
        interval = int(self.config.trouble_interval_s * _NS)
        wait = interval
        waiting: dict[int, list[_Record]] = {}
        with self._lock:
            ready, self._trouble_ready = self._trouble_ready, []
            for kind in list(self._trouble_counts):
                due = self._trouble_due.get(kind, now)
                if now < due:
                    wait = min(wait, due - now)
                    continue
                count = self._trouble_counts.pop(kind)
                self._trouble_due[kind] = now + interval
                ahead = 0
                if kind == "future":
                    ahead, self._future_ahead_us = self._future_ahead_us, 0
                elif kind == "future_tick":
                    ahead, self._future_tick_ahead_us = self._future_tick_ahead_us, 0
                trouble = _loss(kind, count, ahead)
                ready.append(trouble)
                # The events it refused: acknowledged once it is on the record.
                waiting[id(trouble)] = self._trouble_waiting.pop(kind, [])
            self._stats.troubles += len(ready)
        hook = self.on_trouble
        for trouble in ready:
            handle = None
            if hook is not None:
                try:
                    handle = hook(trouble)
                except Exception:  # a bad listener must not take the link down
                    log.exception("bridge: on_trouble failed")
            records = waiting.get(id(trouble))
            if records:
                with self._lock:
                    for record in records:
                        record.handle = handle
                        record.handed = True
        return wait


def _loss(kind: str, count: int, ahead_us: int = 0) -> LinkTrouble:
    if kind == "overflow":
        detail = (
            f"{count} edge(s) lost: the device's capture ring overflowed before they were numbered"
        )
    elif kind == "future":
        detail = (
            f"{count} event(s) refused: stamped up to {ahead_us // 1_000} ms past the "
            "device's latest time, beyond what its clock could have read"
        )
        return LinkTrouble(kind, count, detail, ahead_us=ahead_us)
    elif kind == "future_tick":
        detail = (
            f"{count} heartbeat(s) refused: their time up to {ahead_us // 1_000} ms past "
            "what the device's clock could have read"
        )
        return LinkTrouble(kind, count, detail, ahead_us=ahead_us)
    else:
        detail = f"{count} event(s) lost: the device dropped them before they arrived"
    return LinkTrouble(kind, count, detail)


def _cancel_read(port: Any) -> None:
    cancel = getattr(port, "cancel_read", None)
    if cancel is not None:
        with contextlib.suppress(Exception):  # best effort on a port that may be gone
            cancel()


def _fresh_decoder(old: FrameDecoder) -> FrameDecoder:
    """A decoder with no partial frame, keeping the counters."""
    decoder = FrameDecoder()
    decoder.stats = old.stats
    return decoder


__all__ = ["BridgeLink", "EventInfo", "LinkConfig", "LinkStats", "LinkTrouble", "PulseReport"]
