"""Live input sources: each hands inputs to the runtime and proves how far its time is complete.

A source's **watermark** W is its promise: "nothing stamped before W will
still come from me". The runtime decides only up to the minimum watermark of
the live sources (``runtime.py``), so an input that is still in a queue, or
whose thread the CPU has not run yet, holds the decision back instead of
losing it.

- :class:`ClockSource` — the panel, the keyboard, simulated buttons: the
  source stamps its inputs itself, from the runtime's clock, under its own
  lock, and hands them over under the same lock; its watermark, read under
  that lock, is exact.
- :class:`EdgeSource` — GPIO: inputs arrive stamped by the hardware (the
  kernel's edge time), from gpiozero's callback thread. Its watermark is
  proven by the pins' levels (``ButtonBank.proven_until``): read the time,
  then every pin's level; when each level equals the last edge handled for
  its pin, nothing stamped before that time is still on its way.
- :class:`LinkSource` — the Pico: the link's own watermark, from the
  firmware's heartbeat (its tick, at least every millisecond) and the events
  already delivered, mapped onto the host clock. What it hands over comes
  back as a future that is done once it is on the record, for the link to
  acknowledge the device's event only then.

All times here are game time (ns since the game's t = 0); host monotonic
stamps are moved onto it at the door (:meth:`Runtime.game_time`).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Protocol

from buzzer.arbiter.events import Fault, Input

if TYPE_CHECKING:
    from buzzer.runtime.runtime import Runtime


class Source(Protocol):
    """What the runtime needs of a source: a name and a watermark (game ns, or None)."""

    name: str

    def watermark(self) -> int | None:
        """Nothing stamped before this will still come; None: no proof now (not live)."""


class ClockSource:
    """Inputs stamped by the source itself from the runtime's clock (panel, keyboard)."""

    def __init__(self, runtime: Runtime, name: str) -> None:
        self.runtime = runtime
        self.name = name
        self._lock = threading.Lock()
        self._last = -(1 << 62)

    def _stamp(self) -> int:
        # Strictly increasing, so that the watermark (last + 1) is a promise even
        # when the clock reads the same nanosecond twice (or does not move: tests).
        t = max(self.runtime.now(), self._last + 1)
        self._last = t
        return t

    def put(
        self,
        make: Callable[[int], Input],
        *,
        trial: bool = False,
        command_id: str | None = None,
    ) -> Future[Any]:
        """Stamp ``make(t)`` now and hand it to the runtime; the future gets its outcome.

        ``trial``: a host command, tried on a copy of the core when its time
        comes, so that a refused one never reaches the journal.
        ``command_id``: the panel's id of the command, journaled with it.
        """
        with self._lock:
            item = make(self._stamp())
            return self.runtime.deliver(self, item, trial=trial, command_id=command_id)

    def watermark(self) -> int | None:
        with self._lock:
            return max(self.runtime.now(), self._last + 1)


class EdgeSource:
    """Inputs stamped at the hardware on the host's monotonic clock (GPIO edges).

    Its watermark is proven by ``proof`` (``ButtonBank.proven_until``): a
    host instant before which every edge has reached the sink, or None while
    an edge is still in flight — then the last proven instant holds, and the
    runtime's wait bound turns an edge that never arrives into a fault.
    """

    def __init__(
        self, runtime: Runtime, name: str, proof: Callable[[], int | None] | None = None
    ) -> None:
        self.runtime = runtime
        self.name = name
        #: Set once the buttons exist; before that no edge can be on its way.
        self.proof = proof
        self._mark = runtime.now()
        self.held = 0

    def put(self, item: Input, *, trial: bool = False) -> Future[Any]:
        """The sink for gpiozero's callbacks: ``item.t`` is a host monotonic stamp."""
        runtime = self.runtime
        stamped = dataclasses.replace(item, t=runtime.game_time(item.t))
        return runtime.deliver(self, stamped, trial=trial)

    def watermark(self) -> int | None:
        runtime = self.runtime
        proof = self.proof
        proven = runtime.controller.clock() if proof is None else proof()
        if proven is None:
            self.held += 1
        else:
            self._mark = max(self._mark, runtime.game_time(proven))
        return self._mark


class LinkSource:
    """The Pico: its link's watermark (host monotonic ns) on the game clock.

    While the link has no promise to make (a reconnection, a new clock fit
    after a device restart), the last watermark it gave stands: the runtime
    waits, and only a gap longer than its wait bound is a fault. Before its
    first watermark it stands at the instant the source was made: a link
    that never connects is a fault once the wait bound has passed.
    """

    def __init__(self, runtime: Runtime, name: str, link: Any) -> None:
        self.runtime = runtime
        self.name = name
        self.link = link
        self._last: int | None = runtime.now()

    def put(self, item: Input) -> Future[None]:
        """The link's sink (its reader thread): ``item.t`` is a host monotonic stamp.

        The future is done once the input is on the record (:func:`on_record`):
        the link acknowledges the device's event only then.
        """
        runtime = self.runtime
        return on_record(
            runtime.deliver(self, dataclasses.replace(item, t=runtime.game_time(item.t)))
        )

    def trouble(self, trouble: Any) -> Future[None]:
        """A :class:`firmware_bridge.link.LinkTrouble` (presses lost, a button with no
        seat, too few buttons, stamps from the device's future): delivered as this
        source's fault, stamped now, so that it is journaled where it happened (a
        replay shows it) and the host's panel raises it (``hub.py``) — a loss is
        never only a line in a log. The future is done once the fault is journaled."""
        runtime = self.runtime
        fault = Fault(runtime.now(), self.name, False, str(trouble.detail)[:200])
        return on_record(runtime.deliver(self, fault))

    def watermark(self) -> int | None:
        mark = self.link.watermark()
        if mark is not None:
            self._last = self.runtime.game_time(mark)
        return self._last


def on_record(delivered: Future[Any]) -> Future[None]:
    """A future that is done once the delivered input is on the record: journaled,
    or refused for good (the runtime's :class:`~buzzer.runtime.runtime.CommandRefused`:
    an input the journal can never hold, logged and counted there) — and that fails
    with the error when the journal could not be written (the input may come again)."""
    from buzzer.runtime.runtime import CommandRefused  # (runtime.py imports this module)

    out: Future[None] = Future()

    def relay(done: Future[Any]) -> None:
        if done.cancelled():
            out.cancel()
            return
        error = done.exception()
        if error is None or isinstance(error, CommandRefused):
            out.set_result(None)
        else:
            out.set_exception(error)

    delivered.add_done_callback(relay)
    return out
