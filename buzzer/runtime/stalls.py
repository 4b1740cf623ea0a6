"""Stalls of the whole process: while no Python thread could run, no source could report.

If the process stalls — a full garbage collection holds the GIL, the CPU is
taken by another process — every source's watermark falls behind together,
through no fault of its own. The runtime thread stalls too, so it can see
that it happened: a garbage collection through :data:`gc.callbacks`,
anything else as a wake-up that came late. :class:`StallWatch` remembers
recent stalls, and the runtime counts only the rest of a source's lag
against its wait bound (a stall delays decisions; it never makes a fault).

The collector calls :meth:`StallWatch._on_gc` in whichever thread allocated,
at any allocation — including one made while that thread holds the watch's
own lock. So the callback takes no lock: it hands the collection's span over
through a deque, whose appends are atomic, and the next reader folds it in.
(It once took the lock, and a collection during the watch's own list
building deadlocked the runtime's thread: every decision and host command
waited for ever.)
"""

from __future__ import annotations

import gc
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

MS = 1_000_000


class StallWatch:
    """Recent stalls of the process, as ``(start, end)`` on the monotonic clock (ns)."""

    def __init__(
        self,
        clock: Callable[[], int] = time.monotonic_ns,
        threshold_ns: int = MS,
        keep_ns: int = 500 * MS,
    ) -> None:
        self.clock = clock
        self.threshold_ns = threshold_ns
        self.keep_ns = keep_ns
        self._lock = threading.Lock()
        self._stalls: list[tuple[int, int]] = []
        self._gc_started: int | None = None
        #: Collections ended, not yet folded into ``_stalls`` (filled without a lock).
        self._collected: deque[tuple[int, int]] = deque()
        self.count = 0
        self.worst_ns = 0

    # -- what stalled ----------------------------------------------------------------

    def stalled(self, start: int, end: int) -> None:
        """The process could not run Python code from ``start`` to ``end``."""
        with self._lock:
            self._fold()
            self._add(start, end)

    def _add(self, start: int, end: int) -> None:
        """One stall, under the lock (a collection may run meanwhile: see the module)."""
        if end - start < self.threshold_ns:
            return
        self._stalls.append((start, end))
        self.count += 1
        self.worst_ns = max(self.worst_ns, end - start)
        horizon = end - self.keep_ns
        self._stalls = [s for s in self._stalls if s[1] >= horizon]

    def _fold(self) -> None:
        """The collections the callback handed over, under the lock: those there now
        (folding allocates, and a collection it causes waits for the next fold)."""
        collected = self._collected
        for _ in range(len(collected)):
            self._add(*collected.popleft())

    def woke(self, asked_ns: int, slept_from: int, woke_at: int) -> None:
        """A wait of ``asked_ns`` from ``slept_from`` ended at ``woke_at``: late means stalled."""
        due = slept_from + asked_ns
        if woke_at - due >= self.threshold_ns:
            self.stalled(due, woke_at)

    # -- garbage collections -------------------------------------------------------

    def watch_gc(self) -> None:
        if self._on_gc not in gc.callbacks:
            gc.callbacks.append(self._on_gc)

    def unwatch_gc(self) -> None:
        if self._on_gc in gc.callbacks:
            gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        # No lock here, ever (see the module docstring): this may run inside _add.
        now = self.clock()
        if phase == "start":
            self._gc_started = now
        elif self._gc_started is not None:
            self._collected.append((self._gc_started, now))
            self._gc_started = None

    # -- how long the process could not run ------------------------------------------

    def stalled_between(self, start: int, end: int) -> int:
        """How many ns of ``[start, end]`` the process spent stalled (recent stalls only).

        A source cannot report while no thread of the process runs: the
        runtime counts only the rest of a watermark's lag against its wait
        bound, so a long garbage collection is not a source's fault.
        """
        with self._lock:
            self._fold()
            spans = sorted(self._stalls)
        gc_started = self._gc_started
        if gc_started is not None:
            spans.append((gc_started, end))
        total = 0
        reach = start
        for s, e in sorted(spans):
            s, e = max(s, reach), min(e, end)
            if e > s:
                total += e - s
                reach = e
        return total
