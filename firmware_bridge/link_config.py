"""How the Pico link reaches its device and how patient it is: :class:`LinkConfig`.

Apart from :mod:`firmware_bridge.link` so that a caller that only builds a
configuration (the app's composition, the doctor, the self-test's rigs) reads
the knobs in one place; ``firmware_bridge.link`` re-exports it.
"""

from __future__ import annotations

from dataclasses import dataclass


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
    #: device's future (see :mod:`firmware_bridge.link_stamps`). Far above any error of the
    #: clock model (its stated uncertainty is added on top) and the slowest
    #: emulated chip's wander: it only decides how soon a wrong stamp is refused
    #: rather than held, never whether an honest one is taken.
    future_slack_us: int = 250_000
    #: Losses of one kind are reported (``on_trouble``) at most this often, summed.
    trouble_interval_s: float = 1.0


__all__ = ["LinkConfig"]
