"""What the Pico link tells its watchers: counters and per-event reports.

:class:`LinkStats` (the technician's and the tests' counters, a copy from
:meth:`~firmware_bridge.link.BridgeLink.stats`), :class:`EventInfo` (one
accepted event, to ``on_event``) and :class:`PulseReport` (a test pulse's
start, in ``BridgeLink.pulses``): plain records, apart from the link's threads so that
their fields are read in one place; ``firmware_bridge.link`` re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class LinkStats:
    """Counters, for the technician and the tests (a copy: ``BridgeLink.stats()``)."""

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
    #: behind one): protocol errors, ignored (see
    #: :meth:`~firmware_bridge.ledger.EventLedger.counters_problem`).
    bad_counters: int = 0
    #: Delivered events whose mapped stamp was raised to the watermark already
    #: reported, because the clock mapping moved (see :mod:`firmware_bridge.link`).
    watermark_clamps: int = 0
    #: Edges the device's capture ring lost before they were numbered (summed over
    #: its boots, from the heartbeat's ``ring_overflows``): presses that never were.
    ring_overflows: int = 0
    #: Handshakes with a device that has fewer buttons than the game has seats.
    short_of_buttons: int = 0
    #: Troubles handed to ``on_trouble`` (see
    #: :class:`~firmware_bridge.link_troubles.LinkTrouble`).
    troubles: int = 0
    #: Frames of another protocol version (of ``bad_frames``): firmware of
    #: another release than this host's, if the line is otherwise clean.
    bad_versions: int = 0
    #: Events refused because their stamp lay in the device's future (beyond the
    #: time its clock could have read when the frame arrived; see
    #: :mod:`firmware_bridge.link_stamps`).
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


__all__ = ["EventInfo", "LinkStats", "PulseReport"]
