"""The Pico link's troubles: what the technician must hear of, counted, summed, worded.

**Never silent**: what the technician must hear of — events lost for good,
edges the device's capture ring lost before they were numbered (the
heartbeat's ``ring_overflows``: no gap in the numbers shows those), a button
with no seat in the game, a device with fewer buttons than the game has
seats, buttons held at the device's power-up, events stamped in the device's
future — is counted in :class:`~firmware_bridge.link_reports.LinkStats`,
logged, and handed to ``on_trouble`` as a :class:`LinkTrouble` (the runtime
journals it as a source fault and the host's panel shows it). Losses and
refusals are summed and reported at most once per ``trouble_interval_s``
each, so a flood is a few alerts.

:class:`TroubleDesk` is that bookkeeping, apart from the link's threads: the
link (:class:`firmware_bridge.link.BridgeLink`) holds its lock around every
method here that says so, and hands what :meth:`TroubleDesk.collect` returns
to ``on_trouble`` with :func:`hand_on`, outside the lock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge.link_records import Record
from firmware_bridge.link_reports import LinkStats
from firmware_bridge.protocol import Hello
from firmware_bridge.shipped import held_at_boot_detail

log = logging.getLogger("firmware_bridge.link")

_NS = 1_000_000_000


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


class TroubleDesk:
    """Troubles on their way to ``on_trouble`` (see the module docstring).

    Losses of one kind are summed (:meth:`count`) until their interval has
    passed; a trouble told at once (:meth:`tell`) waits only for the next
    :meth:`collect`. Events refused for a trouble (:meth:`refused`) are
    acknowledged to the device once that trouble is on the record.
    """

    def __init__(self, interval_s: float) -> None:
        self._interval_ns = int(interval_s * _NS)
        # Losses summed per kind until they may be reported again (host ns), and
        # troubles ready to hand on.
        self._counts: dict[str, int] = {}
        self._due: dict[str, int] = {}
        self._ready: list[LinkTrouble] = []
        #: Refusals waiting for their trouble to be handed on, by kind.
        self._waiting: dict[str, list[Record]] = {}
        #: The furthest a refused stamp lay ahead since the last "future" report (µs).
        self._future_ahead_us = 0
        #: The furthest a refused heartbeat's tick lay ahead since the last report (µs).
        self._future_tick_ahead_us = 0
        #: The boot a "too few buttons" trouble was reported for.
        self._short_reported: int | None = None
        self._held_reported: int | None = None

    @property
    def pending(self) -> bool:
        """Something to hand on now or later (read without the lock: a hint)."""
        return bool(self._ready or self._counts)

    def count(self, kind: str, count: int) -> None:
        """A loss to report: summed with others of its kind (lock held)."""
        self._counts[kind] = self._counts.get(kind, 0) + count

    def ahead(self, kind: str, ahead_us: int) -> None:
        """A refusal of ``kind`` ("future", "future_tick") ``ahead_us`` past the
        device's time: the report says the furthest (lock held)."""
        if kind == "future":
            self._future_ahead_us = max(self._future_ahead_us, ahead_us)
        else:
            self._future_tick_ahead_us = max(self._future_tick_ahead_us, ahead_us)

    def refused(self, kind: str, record: Record) -> None:
        """An event refused for a trouble of ``kind``: on the record with it (lock held)."""
        self._waiting.setdefault(kind, []).append(record)

    def tell(self, trouble: LinkTrouble) -> None:
        """A trouble to hand on at the next :meth:`collect` (lock held)."""
        self._ready.append(trouble)

    def collect(self, now: int) -> tuple[int, list[tuple[LinkTrouble, list[Record]]]]:
        """What is ready, and the summed losses whose interval has passed, each with
        the events refused for it (lock held); ns until the next summed loss may be
        reported."""
        interval = self._interval_ns
        wait = interval
        ready, self._ready = self._ready, []
        out: list[tuple[LinkTrouble, list[Record]]] = [(trouble, []) for trouble in ready]
        for kind in list(self._counts):
            due = self._due.get(kind, now)
            if now < due:
                wait = min(wait, due - now)
                continue
            count = self._counts.pop(kind)
            self._due[kind] = now + interval
            ahead = 0
            if kind == "future":
                ahead, self._future_ahead_us = self._future_ahead_us, 0
            elif kind == "future_tick":
                ahead, self._future_tick_ahead_us = self._future_tick_ahead_us, 0
            # The events it refused: acknowledged once it is on the record.
            out.append((loss(kind, count, ahead), self._waiting.pop(kind, [])))
        return wait, out

    def short_of_buttons(
        self, hello: Hello, seats: tuple[int, ...] | None, stats: LinkStats, listened: bool
    ) -> LinkTrouble | None:
        """A trouble if the device has fewer buttons than the game has seats (once
        per boot; lock held). ``listened``: someone takes ``on_trouble``."""
        if seats is None or hello.buttons >= len(seats):
            return None
        stats.short_of_buttons += 1
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
        (log.info if listened else log.warning)("bridge: %s", detail)
        return LinkTrouble("buttons", hello.buttons, detail, seats=len(seats))

    def held_at_boot(self, hello: Hello) -> LinkTrouble | None:
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


def hand_on(
    due: list[tuple[LinkTrouble, list[Record]]],
    hook: Callable[[LinkTrouble], object] | None,
    lock: threading.Lock,
) -> None:
    """Hand each trouble to ``hook`` (no lock held); the events refused for it are
    on the record with what the hook returned (a future, done once journaled)."""
    for trouble, records in due:
        handle = None
        if hook is not None:
            try:
                handle = hook(trouble)
            except Exception:  # a bad listener must not take the link down
                log.exception("bridge: on_trouble failed")
        if records:
            with lock:
                for record in records:
                    record.handle = handle
                    record.handed = True


def loss(kind: str, count: int, ahead_us: int = 0) -> LinkTrouble:
    """The report of ``count`` summed losses (or refusals) of ``kind``."""
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


__all__ = ["LinkTrouble", "TroubleDesk", "hand_on", "loss"]
