"""The Pico link's record tracking: the cumulative ACK follows the record.

**The ACK follows the record.** The cumulative ACK covers an event only
once it is on the record: what the sink returned for it (the runtime's
future) is done — the batch holding it was journaled, or the controller
refused it for good — or the event was never this game's (a button with no
seat, a stamp from before the game), or it was refused on the record (its
fault journaled: :mod:`firmware_bridge.link_troubles`). So a press the host
received but had not journaled when it stopped is still in the device's ring,
and the device resends it to the next host. A delivery whose record failed
(the journal could not be written) is handed on again, as it was, when the
device resends the event.

:class:`Record` is one event's way to the record and :func:`ack_point` the
ACK the device may have; the link (:class:`firmware_bridge.link.BridgeLink`)
holds its lock around both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from buzzer.arbiter.events import Press, Release


@dataclass
class Record:
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


def ack_point(acked: int, records: dict[int, Record]) -> int:
    """The cumulative ACK the device may have (lock held): every event up to it
    is in hand and on the record, or gone for good (lost, known to be so).

    ``acked`` is the ledger's: every event up to it is in hand or known lost.
    ``records``: the events on their way to the record, by number; those up to
    the point, on the record, are forgotten. An event handed on whose record is
    not written yet (the runtime holds it for the watermark, its batch's commit
    is under way) holds the ACK below it, and so does one still held for its
    stamp, or refused and not yet reported: the device keeps them, and resends
    them to the next host if this one stops first.
    """
    point = acked
    for event in sorted(records):
        if event > point:
            break
        if records[event].state() is not True:
            return event - 1
        del records[event]
    return point


__all__ = ["Record", "ack_point"]
