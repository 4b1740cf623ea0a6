"""What one open port of the Pico link knows, and the port's small mercies.

A :class:`Session` lives from one (re)open of the serial port to its drop;
:class:`LampState` is one lamp command on its way to the device's
acknowledgement. Apart from :mod:`firmware_bridge.link` so that the link's
threads read as what they do, not what they keep.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge.protocol import FrameDecoder
from firmware_bridge.protocol import Press as PressMsg
from firmware_bridge.protocol import Release as ReleaseMsg


@dataclass
class LampState:
    """A lamp command: resent until the device acknowledges it."""

    mode: int
    period_ms: int
    #: frame seq of the last send not yet acknowledged, and when it was sent.
    pending_seq: int | None = None
    sent_ns: int | None = None
    acked: bool = False


@dataclass
class Session:
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


def cancel_read(port: Any) -> None:
    """Wake a reader blocked on ``port`` (best effort)."""
    cancel = getattr(port, "cancel_read", None)
    if cancel is not None:
        with contextlib.suppress(Exception):  # best effort on a port that may be gone
            cancel()


def fresh_decoder(old: FrameDecoder) -> FrameDecoder:
    """A decoder with no partial frame, keeping the counters."""
    decoder = FrameDecoder()
    decoder.stats = old.stats
    return decoder


__all__ = ["LampState", "Session", "cancel_read", "fresh_decoder"]
