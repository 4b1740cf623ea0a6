"""The link's event ledger: which of the device's numbered events are in hand, and the watermark.

The Pico numbers its events 1, 2, 3, … in one boot and keeps each until the
host's cumulative ACK covers it; it resends them after a reconnect, so the
host sees numbers out of order, twice, or never. The ledger is the host's
account of those numbers — what arrived, what is a duplicate, which gaps a
resend may still fill, which the device says it can no longer fill (lost) —
and of the watermark the link publishes: the device time up to which every
event is in hand, and the host time it was published as (never backwards).

It is pure, so that its rules can be checked on their own, by property
(``tests/firmware_bridge/test_ledger.py``): no I/O, no threads, no clock. The
caller (:class:`firmware_bridge.link.BridgeLink`) holds the locks, reads the
frames and the clocks, maps device time to host time, logs and reports what
a method returns; a time here is only ever an argument.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Arrival:
    """What one event number's arrival meant (:meth:`EventLedger.arrive`)."""

    #: Already in hand, or before the point every event is settled to (in hand or
    #: lost): not to be handed on again.
    duplicate: bool
    #: The numbers this arrival showed missing for the first time (first, last),
    #: or None: each missing number is in at most one reported gap.
    gap: tuple[int, int] | None = None
    #: It fills an earlier gap (a resend that came after a later event).
    recovered: bool = False
    #: No gap before it: every event numbered before it is in hand or lost, so
    #: every event stamped before it (the device numbers in stamp order) is too.
    in_order: bool = False


class EventLedger:
    """The event numbers of one device boot, and the watermark (see the module docstring).

    ``acked``: every event up to it is in hand or known lost (the cumulative
    ACK's ceiling); ``highest``: the highest number in hand or settled; the
    numbers in hand above ``acked`` are kept apart until the gap below them
    closes. The counters (``events``, ``duplicates``, ``gaps``, ``recovered``,
    ``lost``) sum over boots, as the link's statistics do.
    """

    def __init__(self) -> None:
        self.acked = 0
        self.highest = 0
        self._above: set[int] = set()
        self.events = 0
        self.duplicates = 0
        self.gaps = 0
        self.recovered = 0
        self.lost = 0
        #: The watermark in device time (unwrapped µs of this boot): every event
        #: stamped before it is in hand. None: nothing promised on this clock yet.
        self.mark_us: int | None = None
        #: The watermark as published in host ns: only ever moves forward, across
        #: boots too (a host's decision, once made, cannot be taken back).
        self.mark_ns: int | None = None
        #: The device time the published watermark stands for (None after a new boot:
        #: the old clock's tick means nothing to the new one).
        self.mark_at_us: int | None = None

    @property
    def missing(self) -> int:
        """Numbers below the highest that are neither in hand nor settled: gaps open now."""
        return self.highest - self.acked - len(self._above)

    def holds(self, event: int) -> bool:
        """Whether ``event`` is settled (in hand or lost) already."""
        return event <= self.acked or event in self._above

    def arrive(self, event: int) -> Arrival:
        """Event number ``event`` arrived: a duplicate, or new (past a gap, or filling one)."""
        if self.holds(event):
            self.duplicates += 1
            return Arrival(duplicate=True)
        gap = None
        recovered = False
        if event > self.highest + 1:
            self.gaps += 1
            gap = (self.highest + 1, event - 1)
        elif event < self.highest:
            self.recovered += 1
            recovered = True
        self.highest = max(self.highest, event)
        self._above.add(event)
        self._advance()
        self.events += 1
        return Arrival(False, gap, recovered, in_order=self.acked >= event)

    def in_order(self, event: int) -> bool:
        """No gap before ``event``: every number up to it is in hand or lost."""
        return self.acked >= event

    def settle_lost(self, oldest_unacked: int) -> int:
        """The device keeps nothing before ``oldest_unacked``: what never arrived of
        those never will. Returns how many that is (added to ``lost``)."""
        if oldest_unacked - 1 <= self.acked:
            return 0
        arrived = sum(1 for s in self._above if s < oldest_unacked)
        lost = oldest_unacked - 1 - self.acked - arrived
        if lost > 0:
            self.lost += lost
        self._above = {s for s in self._above if s >= oldest_unacked}
        self.acked = oldest_unacked - 1
        self.highest = max(self.highest, self.acked)
        self._advance()
        return max(lost, 0)

    def complete(self, next_event: int) -> bool:
        """Every event the device has numbered before ``next_event`` is in hand or lost."""
        return self.acked >= next_event - 1

    def counters_problem(
        self, next_event: int, oldest_unacked: int, *, hello: bool = False, new_boot: bool = False
    ) -> str | None:
        """Why a frame's event counters cannot be true, or None.

        The device numbers its events from 1 and keeps the unacknowledged
        ones, so ``oldest_unacked <= next_event`` always; and in one boot,
        ``next_event`` is past every event the host has received. A
        HEARTBEAT's ``oldest_unacked`` is never ahead of every event the host
        has received: the device resends its ring (the newest events) before
        it could tell of older ones lost. A frame that says otherwise would
        turn every later press into a "duplicate": it is a protocol error.
        (A HELLO may be ahead — it comes before the resends — and is settled
        only up to the events in hand.)
        """
        if oldest_unacked > next_event:
            return f"oldest_unacked {oldest_unacked} is beyond next_event {next_event}"
        if new_boot:
            return None
        if next_event <= self.highest:
            return f"next_event {next_event} is not past event {self.highest}, already received"
        if not hello and oldest_unacked > self.highest + 1:
            return (
                f"oldest_unacked {oldest_unacked} is ahead of every event received "
                f"(the highest is {self.highest}): their resends would come first"
            )
        return None

    def new_boot(self, oldest_unacked: int) -> int:
        """The device restarted: the gaps of the old boot are lost with its ring, and
        numbering starts again before ``oldest_unacked``. Returns the lost (added to
        ``lost``). The device-time watermark is forgotten (another clock); the
        published one stays."""
        missing = self.missing
        if missing > 0:
            self.lost += missing
        self.mark_us = None
        self.mark_at_us = None
        self.acked = self.highest = max(oldest_unacked - 1, 0)
        self._above.clear()
        return max(missing, 0)

    def _advance(self) -> None:
        above = self._above
        while self.acked + 1 in above:
            self.acked += 1
            above.discard(self.acked)

    # -- the watermark -----------------------------------------------------------------

    def advance_mark(self, device_us: int) -> None:
        """Every event stamped before ``device_us`` is in hand: the device-time
        watermark moves there, if that is forward."""
        mark = self.mark_us
        if mark is None or device_us > mark:
            self.mark_us = device_us

    def publish(self, mark_ns: int) -> bool:
        """Publish the device-time watermark as ``mark_ns`` (the caller's mapping of
        :attr:`mark_us`, or the stamp of the event it stands at): True if the
        published watermark moved; never backwards, and nothing without a mark."""
        mark = self.mark_us
        if mark is None:
            return False
        published = self.mark_ns
        if published is None or mark_ns > published:
            self.mark_at_us = mark
            self.mark_ns = mark_ns
            return True
        return False


__all__ = ["Arrival", "EventLedger"]
