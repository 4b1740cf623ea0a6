"""The Pico link's frame handling: what each frame from the device means.

The reader thread of :class:`firmware_bridge.link.BridgeLink` reads and
decodes; every frame then comes here (:meth:`FrameReader._on_frame`): a HELLO
(the handshake, a new boot, the device's troubles), a HEARTBEAT (counters,
lost events, the watermark), a PONG (the clock fit), a PRESS/RELEASE (the
ledger, the stamp gate, the hand-off to the sink), a lamp's CMD_ACK, a test
pulse's PULSED. :class:`FrameReader` holds what the frames teach (the
device's identity, the ledger, the records, the held stamps, the troubles)
and the link builds on it: the threads, the port and the writing stay in
:mod:`firmware_bridge.link`, which this module does not import. The rules it
keeps are told there and in :mod:`.link_records`, :mod:`.link_stamps` and
:mod:`.link_troubles`.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

from buzzer.arbiter.events import Press, Release
from firmware_bridge.clock import ClockMapper, TickUnwrapper
from firmware_bridge.ledger import EventLedger
from firmware_bridge.link_config import LinkConfig
from firmware_bridge.link_records import Record
from firmware_bridge.link_reports import EventInfo, LinkStats, PulseReport
from firmware_bridge.link_session import LampState, Session
from firmware_bridge.link_stamps import Held, StampGate, could_read
from firmware_bridge.link_troubles import LinkTrouble, TroubleDesk, hand_on
from firmware_bridge.protocol import (
    PROTOCOL_VERSION,
    CmdAck,
    Frame,
    Heartbeat,
    Hello,
    MsgType,
    Pong,
    Pulsed,
)
from firmware_bridge.protocol import Press as PressMsg
from firmware_bridge.protocol import Release as ReleaseMsg

log = logging.getLogger("firmware_bridge.link")

Clock = Callable[[], int]


class FrameReader:
    """What the device's frames mean, and what they teach (see the module docstring)."""

    def __init__(
        self,
        config: LinkConfig,
        *,
        clock: Clock,
        mapper: ClockMapper,
        put: Callable[[Press | Release], object],
        on_event: Callable[[EventInfo], None] | None,
        on_watermark: Callable[[], None] | None,
        on_trouble: Callable[[LinkTrouble], object] | None,
    ) -> None:
        self.config = config
        #: Called (reader or keeper thread) with each :class:`LinkTrouble`. It may
        #: return a future, done once the trouble is on the record (journaled): an
        #: event refused for it is acknowledged to the device only then.
        self.on_trouble = on_trouble
        #: Called (reader thread) each time the published watermark moves on: the
        #: runtime need not poll for the moment a held press becomes decidable.
        self.on_watermark = on_watermark
        #: Where each Press/Release goes (reader thread). It may return a future
        #: (``concurrent.futures.Future``), done once the input is on the record —
        #: journaled, or refused for good — and failed if the record could not be
        #: written: the device's event is acknowledged only once it is done
        #: (:mod:`.link_records`). Anything else (``None``: a queue) is on the
        #: record at once.
        self._put = put
        self.pulses: queue.SimpleQueue[PulseReport] = queue.SimpleQueue()
        self._clock = clock
        self._event_hook = on_event
        self.mapper = mapper
        self._stats = LinkStats()
        self._wake = threading.Event()
        self._connected = threading.Event()
        self._lock = threading.Lock()
        self._session: Session | None = None
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
        #: Troubles on their way to ``on_trouble`` (lock held).
        self._troubles = TroubleDesk(config.trouble_interval_s)
        self._ack_due = False
        self._lamps: dict[int, LampState] = {}
        #: The device's own latest time and the events held for it (reader thread only).
        self._stamps = StampGate()
        #: Events on their way to the record, by number, this boot (lock held).
        self._records: dict[int, Record] = {}
        #: The last cumulative ACK sent (lock held).
        self._ack_sent: int | None = None
        self._last_heard_ns: int | None = None

    def _send_lamp(self, lamp: int, state: LampState, resend: bool = False) -> None:
        """Write a lamp command: the link's writer (:class:`firmware_bridge.link.BridgeLink`)."""
        raise NotImplementedError

    def _on_frame(self, session: Session, frame: Frame, now: int) -> None:
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

    def _on_hello(self, session: Session, hello: Hello, now: int) -> None:
        if hello.protocol != PROTOCOL_VERSION:
            with self._lock:
                self._stats.incompatible += 1
            log.error(
                "device speaks protocol %d, this host %d: not connecting",
                hello.protocol,
                PROTOCOL_VERSION,
            )
            return
        if hello.boot_id != self._boot_id and self._stamps.held:
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
                    self._troubles.count("lost", missing)
                self._boot_id = hello.boot_id
                self._overflows_seen = 0
                self._unwrapper = TickUnwrapper(hello.tick_bits)
                # Another clock: no fit yet.
                self._connected.clear()
                self.mapper.reset()
                device_us = self._unwrapper.unwrap(hello.ticks)
                self.mapper.seed(device_us, now)
                # The old boot's numbers and times mean nothing to this one.
                self._stamps.new_boot()
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
            short = self._troubles.short_of_buttons(
                hello, self.config.seats, self._stats, self.on_trouble is not None
            )
            held = self._troubles.held_at_boot(hello)
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

    def _on_pong(self, session: Session, pong: Pong, now: int) -> None:
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

    def _on_heartbeat(self, session: Session, heartbeat: Heartbeat, recv_ns: int) -> None:
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
                self._troubles.count("overflow", overflows)
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
        could = could_read(self.mapper, recv_ns)
        if could is None:
            return False  # no model of the device's clock yet: nothing to hold it to
        ahead = device_us - could
        if ahead <= self.config.future_slack_us:
            return False
        with self._lock:
            self._stats.future_ticks += 1
            count = self._stats.future_ticks
            self._troubles.count("future_tick", 1)
            self._troubles.ahead("future_tick", ahead)
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
            self._troubles.count("lost", lost)
            log.warning("bridge: %d event(s) lost for good (device ring overflowed)", lost)

    def _on_event(self, message: PressMsg | ReleaseMsg, recv_ns: int) -> None:
        event = message.event
        unwrapper = self._unwrapper
        assert unwrapper is not None
        failed: Record | None = None
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
                record = self._records[event] = Record()
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
        proven = self._stamps.device_us
        assert proven is not None  # the HELLO's tick, at least
        if device_us <= proven:
            self._take(message, device_us, recv_ns, record, in_order)
        elif device_us > self._stamps.future_bound(
            self.mapper, recv_ns, self.config.future_slack_us
        ):
            self._refuse(message, device_us, record)
        else:
            # Stamped after the device's latest reported time, as an honest event
            # may be (a round's events go out before its heartbeat): held until
            # the device's time reaches it, normally at the very next frame.
            with self._lock:
                self._stats.stamp_waits += 1
            self._stamps.held.append(Held(message, device_us, recv_ns, record))

    def _take(
        self,
        message: PressMsg | ReleaseMsg,
        device_us: int,
        recv_ns: int,
        record: Record,
        in_order: bool,
    ) -> None:
        """Hand the event on and, with no gap before it, move the watermark to it."""
        t_ns = self._deliver(message, device_us, recv_ns, record)
        # Only now, with the event handed on, may the watermark pass its stamp.
        if in_order:
            self._advance_mark(device_us, t_ns)

    def _refuse(self, message: PressMsg | ReleaseMsg, device_us: int, record: Record) -> None:
        """A stamp from the device's future: never handed on, never near the watermark;
        counted and reported (acknowledged once the report is on the record)."""
        proven = self._stamps.device_us
        assert proven is not None
        ahead = device_us - proven
        with self._lock:
            self._stats.future_stamps += 1
            count = self._stats.future_stamps
            self._troubles.count("future", 1)
            self._troubles.ahead("future", ahead)
            self._troubles.refused("future", record)
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
        for held in self._stamps.prove(device_us):
            in_order = self._ledger.in_order(held.message.event)
            self._take(held.message, held.device_us, held.recv_ns, held.record, in_order)

    def _settle_unproven(self, now: int) -> None:
        """A new boot: the old clock will never reach the events still held. The
        host's model of that clock judges them instead (reader thread, before the
        model is reset): one whose stamp it has passed by now is handed on (it was
        plausible when it came, and no watermark passed it), any other refused."""
        held = self._stamps.release_all()
        device_now = self.mapper.to_device_us(now)
        for item in held:
            if item.device_us <= device_now:
                self._take(item.message, item.device_us, item.recv_ns, item.record, False)
            else:
                self._refuse(item.message, item.device_us, item.record)

    def _retry(self, event: int, record: Record) -> None:
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
            self._troubles.count("future", 1)
            self._troubles.refused("future", record)

    def _deliver(
        self, message: PressMsg | ReleaseMsg, device_us: int, recv_ns: int, record: Record
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

    # -- troubles ----------------------------------------------------------------------

    def _trouble(self, trouble: LinkTrouble) -> None:
        """Report ``trouble`` now (no lock held)."""
        with self._lock:
            self._troubles.tell(trouble)
        self._flush_troubles(self._clock())

    def _flush_troubles(self, now: int) -> int:
        """Hand on what is ready, and the summed losses whose interval has passed
        (no lock held); ns until the next summed loss may be reported."""
        with self._lock:
            wait, due = self._troubles.collect(now)
            self._stats.troubles += len(due)
        hand_on(due, self.on_trouble, self._lock)
        return wait


__all__ = ["FrameReader"]
