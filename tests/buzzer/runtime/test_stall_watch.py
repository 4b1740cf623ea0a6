"""The stall watch under the garbage collector it watches (``buzzer/runtime/stalls.py``).

The collector calls the watch's callback in whichever thread allocated, at any
allocation, including one made while that thread holds the watch's lock. A
loaded run caught the runtime's thread deadlocked so (every thread's stack at
a panel test's failure: ``stalled`` holding the lock, a collection inside its
list building, the callback waiting for the same lock): no decision and no
host command was ever applied again.
"""

from __future__ import annotations

import gc
import itertools
import threading

from buzzer.runtime.stalls import StallWatch

MS = 1_000_000


def test_a_collection_while_the_watch_holds_its_lock_neither_deadlocks_nor_is_lost() -> None:
    ticks = itertools.count(0, 2 * MS)  # each reading 2 ms on: the collection is a stall
    watch = StallWatch(clock=lambda: next(ticks), threshold_ns=MS)
    done = threading.Event()

    def collect_inside_the_lock() -> None:
        # As in _add's list building: the thread holds the watch's lock when the
        # collector runs, and the collector calls the watch back in this thread.
        with watch._lock:
            gc.collect()
        done.set()

    watch.watch_gc()
    try:
        threading.Thread(target=collect_inside_the_lock, daemon=True).start()
        finished = done.wait(10)
    finally:
        watch.unwatch_gc()
    assert finished, "a collection inside the watch's lock deadlocked its thread"
    # The collection was handed over, not lost: one stall of one clock step.
    assert watch.stalled_between(0, 10**15) == 2 * MS
    assert watch.count == 1
