"""The ticker: lets time pass in the controller, precisely at its deadlines.

A host command and a press are both held for the settle window before they
decide anything (docs/design.md), and a press window closes at its
``closes_at``: something must call ``controller.tick()`` when those
deadlines come. A thread does it, sleeping until the core's next deadline
(at most ``period`` at a time, so about a thousand wake-ups a second when
idle): an asyncio task would be woken only to the millisecond (epoll), which
would add up to a millisecond to every host tap. Every update pokes it, so a
new deadline is noticed at once.
"""

from __future__ import annotations

import logging
import threading

from buzzer.controller import Controller
from buzzer.panel.hub import controller_lock

log = logging.getLogger(__name__)


class Ticker:
    def __init__(self, controller: Controller, period_s: float = 0.001) -> None:
        self.controller = controller
        self.period_s = period_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.errors = 0

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="svoyak-ticker", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None

    def poke(self) -> None:
        """A new input arrived: recompute the next deadline."""
        self._wake.set()

    def _run(self) -> None:
        controller = self.controller
        lock = controller_lock(controller)
        while not self._stop.is_set():
            try:
                controller.tick()
                with lock:
                    deadline = controller.core.next_deadline()
                    now = controller.now()
            except Exception:  # keep ticking: a stuck ticker would freeze the game
                self.errors += 1
                log.exception("controller.tick() failed")
                deadline, now = None, 0
            wait = self.period_s
            if deadline is not None:
                wait = min(wait, max(0.0, (deadline - now) / 1e9))
            if wait > 0:
                self._wake.wait(wait)
                self._wake.clear()
