"""The Pico link's stamp gate: an event's stamp is taken, held, or refused.

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
acknowledged once that fault is on the record. A HEARTBEAT whose tick lies
beyond that bound is refused whole (``future_ticks``). Event stamps never
move the tick unwrapper's reference (:meth:`TickUnwrapper.place`): only the
device's own times do, so a stamp placed half a period ahead cannot carry
later ticks into the wrong period.

:class:`StampGate` keeps the device's latest time and the held events; the
link's reader thread (:class:`firmware_bridge.link.BridgeLink`), its only
user, hands on, refuses, counts and reports what it says.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.clock import ClockMapper
from firmware_bridge.link_records import Record
from firmware_bridge.protocol import Press as PressMsg
from firmware_bridge.protocol import Release as ReleaseMsg


@dataclass(frozen=True)
class Held:
    """An event stamped past the device's latest reported time, waiting for it."""

    message: PressMsg | ReleaseMsg
    device_us: int
    recv_ns: int
    record: Record


def could_read(mapper: ClockMapper, recv_ns: int) -> int | None:
    """The latest time (device µs) the device's clock could have read at host
    ``recv_ns`` by the clock model (plus its stated uncertainty); None without a
    model."""
    estimate = mapper.estimate
    if estimate is None:
        return None
    return mapper.to_device_us(recv_ns) - (-estimate.uncertainty_ns // 1_000)


class StampGate:
    """The device's own latest time and the events held for it (reader thread only)."""

    def __init__(self) -> None:
        #: The device's own latest time (unwrapped µs, this boot): the highest tick it
        #: reported as its time (HELLO, HEARTBEAT, PONG's sent tick).
        self.device_us: int | None = None
        #: Events stamped past it, held until it reaches them.
        self.held: list[Held] = []

    def new_boot(self) -> None:
        """Another clock: its latest time is not known yet."""
        self.device_us = None

    def future_bound(self, mapper: ClockMapper, recv_ns: int, slack_us: int) -> int:
        """The latest stamp (device µs) an event read at ``recv_ns`` may carry: the
        latest time the device's clock could have read by then — the clock model's
        (plus its stated uncertainty), or the device's own latest report if later —
        plus ``slack_us``. An honest stamp is never later than the tick its frame
        was sent at, so only a wrong one can lie beyond it."""
        could = could_read(mapper, recv_ns)
        assert could is not None and self.device_us is not None
        return max(could, self.device_us) + slack_us

    def prove(self, device_us: int) -> list[Held]:
        """The device reported its own time ``device_us``: the events held for a
        stamp at or before it, in their order, to hand on (no longer held)."""
        proven = self.device_us
        if proven is None or device_us > proven:
            self.device_us = proven = device_us
        if not self.held:
            return []
        ready = [h for h in self.held if h.device_us <= proven]
        if not ready:
            return []
        self.held = [h for h in self.held if h.device_us > proven]
        return sorted(ready, key=lambda h: h.message.event)

    def release_all(self) -> list[Held]:
        """Every event held, in their order (no longer held): a new boot's clock
        will never reach them."""
        held, self.held = self.held, []
        return sorted(held, key=lambda h: h.message.event)


__all__ = ["Held", "StampGate", "could_read"]
