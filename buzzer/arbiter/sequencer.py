"""The settle window: a reorder buffer that turns arrival order into time order.

Presses reach the controller by different paths (a GPIO callback thread, a
serial frame, a keyboard event) and may arrive up to ``settle_ns`` after
their source timestamp. The buffer holds every input until no input with an
earlier timestamp can still arrive, then releases inputs in timestamp order,
so that arrival order never decides (A-G1).

The only notion of "now" is the *watermark*: the latest timestamp seen. Any
input still to come has ``t >= watermark - settle``, so an input with
``t + settle < watermark`` is safe to release. The rule depends only on the
sequence of inputs, so a replay of the journal releases at the same points.
"""

from __future__ import annotations

import heapq

from buzzer.arbiter.events import PRESS, Input, Press

#: Released inputs: a host input, or the presses that share one timestamp.
Batch = Input | tuple[Press, ...]


class ReorderBuffer:
    """Holds inputs for ``settle_ns`` and releases them in timestamp order.

    Inputs of one instant and kind leave in arrival order (two host commands
    stamped alike). The caller numbers the arrivals (``GameCore`` gives each
    input its place in the game's history) rather than the buffer keeping a
    counter of its own: one count of the game's inputs, in one place.
    """

    __slots__ = ("_heap", "settle_ns", "watermark")

    def __init__(self, settle_ns: int) -> None:
        self.settle_ns = settle_ns
        self.watermark = 0
        #: (timestamp, priority, arrival, input): the heap's order is the release order.
        self._heap: list[tuple[int, int, int, Input]] = []

    def __len__(self) -> int:
        return len(self._heap)

    def is_late(self, t: int) -> bool:
        """Did an input stamped ``t`` arrive too late to be ordered fairly?"""
        return t + self.settle_ns < self.watermark

    def observe(self, t: int) -> None:
        """Time has been seen to reach ``t`` (any input, or a tick)."""
        self.watermark = max(self.watermark, t)

    def add(self, item: Input, arrival: int) -> None:
        """Hold ``item``; ``arrival`` grows with every input (ties leave in its order)."""
        self.observe(item.t)
        heapq.heappush(self._heap, (item.t, item.PRIORITY, arrival, item))

    def offer(self, item: Input, arrival: int) -> bool:
        """:meth:`add` the input unless it :meth:`is_late` (then False, and nothing changes).

        One call instead of two for every input of a game: this is the core's hot
        path, so the watermark is moved by a comparison, not by ``max()`` (three
        times the cost here).
        """
        t = item.t
        watermark = self.watermark
        if t + self.settle_ns < watermark:
            return False
        if t > watermark:
            self.watermark = t
        heapq.heappush(self._heap, (t, item.PRIORITY, arrival, item))
        return True

    @property
    def safe_until(self) -> int:
        """Every input still to come has a timestamp at or after this instant."""
        return self.watermark - self.settle_ns

    def held(self) -> list[Input]:
        """The inputs held now, in the order they will be released (what is about to
        happen: a pause the host gave a moment ago, for the host-command service)."""
        return [entry[3] for entry in sorted(self._heap)]

    def next_deadline(self) -> int | None:
        """When the oldest held input becomes releasable (for a live controller's timer)."""
        if not self._heap:
            return None
        return self._heap[0][0] + self.settle_ns + 1

    def pop_ready(self, flush: bool = False) -> Batch | None:
        """The next releasable batch, or None. ``flush`` releases everything (end of input)."""
        heap = self._heap
        if not heap:
            return None
        t, priority, _, item = heap[0]
        if not flush and t + self.settle_ns >= self.watermark:
            return None
        heapq.heappop(heap)
        if priority != PRESS:
            return item
        assert isinstance(item, Press)
        if not heap or heap[0][0] != t or heap[0][1] != PRESS:
            return (item,)  # the usual case: no other press at this very instant
        # Every other press of this very instant leaves with it (A-G4 orders them).
        second = heapq.heappop(heap)[3]
        assert isinstance(second, Press)
        group = [item, second]
        while heap and heap[0][0] == t and heap[0][1] == PRESS:
            other = heapq.heappop(heap)[3]
            assert isinstance(other, Press)
            group.append(other)
        return tuple(group)
