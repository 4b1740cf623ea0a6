"""The event-time merge: inputs of every live source, released in timestamp order.

Pure (no clock, no threads): the runtime adds inputs as they arrive, in
whatever order the threads happened to deliver them, and asks for those
whose time is *proven complete* — stamped before the minimum watermark of
the live sources ("nothing stamped before W will still come from me"). So
the core, and the journal, see inputs in the order they happened at their
sources, never in the order their bytes arrived.

Inputs sharing a timestamp come out host inputs first, then presses, then
releases (the inputs' ``PRIORITY``, as docs/journal-contract.md says), then by arrival.
"""

from __future__ import annotations

import heapq
from typing import Generic, TypeVar

from buzzer.arbiter.events import Input

#: What travels with an input (the runtime's reply slot, its source…).
Payload = TypeVar("Payload")


class EventTimeMerge(Generic[Payload]):
    """Holds inputs until the watermark passes them; releases them in time order."""

    __slots__ = ("_heap", "_seq", "released_until")

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, int, Input, Payload]] = []
        self._seq = 0
        #: The highest watermark released so far: every input stamped before it is out.
        self.released_until = -(1 << 62)

    def __len__(self) -> int:
        return len(self._heap)

    def add(self, item: Input, payload: Payload) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (item.t, item.PRIORITY, self._seq, item, payload))

    def is_behind(self, item: Input) -> bool:
        """Was ``item`` stamped before a time already released (a late delivery)?"""
        return item.t < self.released_until

    def oldest(self) -> int | None:
        """The stamp of the oldest held input (None when nothing is held)."""
        return self._heap[0][0] if self._heap else None

    def release(self, watermark: int) -> list[tuple[Input, Payload]]:
        """Every held input stamped before ``watermark``, in (time, priority, arrival) order."""
        if watermark > self.released_until:
            self.released_until = watermark
        heap = self._heap
        out: list[tuple[Input, Payload]] = []
        while heap and heap[0][0] < watermark:
            _, _, _, item, payload = heapq.heappop(heap)
            out.append((item, payload))
        return out

    def release_all(self) -> list[tuple[Input, Payload]]:
        """Everything held, in order (shutting down: nothing more will come)."""
        heap = self._heap
        out = [(entry[3], entry[4]) for entry in sorted(heap)]
        heap.clear()
        return out
