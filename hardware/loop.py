"""A minimal owner loop: button inputs from a queue into :class:`GameCore`, decisions to lamps.

This is the seam the live controller (``buzzer/``, a later issue) fills with
the journal: there, every input is appended to the journal (fsync) *before*
``push``. Here there is no journal — the loop serves the benchmark, the
self-test and ``check-buttons``, which measure or exercise the input path.

One thread owns the core. It waits for the next input or the core's next
deadline (the settle window's end, a press window's end), whichever comes
first, and ticks the core at that deadline. The wait is a blocking
``get(timeout)`` that stops ``spin_ns`` short of the deadline, then polls:
a lamp lights within a few µs of the settle window's end rather than after
the scheduler's timer slack.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from buzzer.arbiter.decisions import Decision
from buzzer.arbiter.events import Tick
from buzzer.core import GameCore
from hardware.buttons import ButtonFreed, ButtonStuck
from hardware.lamps import LampBoard

DEFAULT_SPIN_NS = 300_000


class CoreLoop:
    """Runs ``core`` on its own thread, fed from ``inputs``; see the module docstring.

    Items on ``inputs``: core inputs (``Press``, ``ReadingEnd``…), button
    notices (:class:`ButtonStuck`/:class:`ButtonFreed`, passed to ``on_notice``)
    and callables (run on the loop's thread: e.g. to start a new game with
    :meth:`call`).
    """

    def __init__(
        self,
        core: GameCore,
        inputs: queue.SimpleQueue[Any],
        lamps: LampBoard | None = None,
        *,
        on_decisions: Callable[[list[Decision]], None] | None = None,
        on_notice: Callable[[ButtonStuck | ButtonFreed], None] | None = None,
        clock: Callable[[], int] = time.monotonic_ns,
        spin_ns: int = DEFAULT_SPIN_NS,
    ) -> None:
        self.core = core
        self.inputs = inputs
        self.lamps = lamps
        self.on_decisions = on_decisions
        self.on_notice = on_notice
        self.clock = clock
        self.spin_ns = spin_ns
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> CoreLoop:
        self._thread = threading.Thread(target=self.run, name="svoyak-core", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.inputs.put(None)  # wake the loop
        if self._thread is not None:
            self._thread.join(timeout=5)

    def call(self, fn: Callable[[], object]) -> None:
        """Run ``fn`` on the loop's thread, in order with the inputs (e.g. swap the core)."""
        self.inputs.put(fn)

    def run(self) -> None:
        while not self._stop.is_set():
            item = self._next()
            if item is None:
                continue
            try:
                self._handle(item)
            except Exception as exc:  # keep the loop alive; the caller inspects errors
                self.errors.append(exc)

    def _next(self) -> Any:
        """The next input, or a :class:`Tick` at the core's next deadline."""
        deadline = self.core.next_deadline()
        get = self.inputs.get
        if deadline is None:
            return get()
        clock = self.clock
        wait_ns = deadline - clock() - self.spin_ns
        if wait_ns > 0:
            try:
                return get(timeout=wait_ns / 1e9)
            except queue.Empty:
                pass
        get_nowait = self.inputs.get_nowait
        while True:
            now = clock()
            try:
                return get_nowait()
            except queue.Empty:
                if now >= deadline:
                    return Tick(now)
                time.sleep(0)  # let the callback threads have the GIL while we poll

    def _handle(self, item: Any) -> None:
        if callable(item):
            item()
            return
        if isinstance(item, ButtonStuck | ButtonFreed):
            if self.on_notice is not None:
                self.on_notice(item)
            return
        out: list[Decision] = []
        self.core.push(item, out)
        if out:
            if self.lamps is not None:
                self.lamps.apply(out)
            if self.on_decisions is not None:
                self.on_decisions(out)
