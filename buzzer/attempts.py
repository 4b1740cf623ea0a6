"""Failed tries of a secret (a room's token, a PIN): limited per address and overall.

One policy for every server that checks a secret a stranger may guess:

- **per address**: after ``per_client`` failures within ``window_s`` seconds
  that address is refused (429) until its oldest failure ages out;
- **overall**: after ``overall`` failures within ``window_s`` from all
  addresses together, every address is refused until the oldest of them ages
  out, so fresh addresses (a whole /24, or 127.0.0.0/8) gain nothing
  (``overall=None``: no such budget);
- **bounded memory**: at most ``per_client`` times per address, ``overall``
  times in all, and ``max_clients`` addresses (the one whose last failure is
  the oldest is forgotten first).

A caller asks :meth:`FailureLimit.retry_after` before it checks the secret
(refusing with ``Retry-After`` when it is not 0), then reports the outcome
with :meth:`failed` or :meth:`succeeded`. The tournament server uses it for
the rooms' tokens (docs/tournament.md gives its numbers), the panel's
``PinGuard`` for the host's PIN (docs/panel.md).

The bottom layer (pyproject.toml's import-linter contract): any server may
import it; it imports nothing of the project.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable


class FailureLimit:
    """Failures per address and overall within a sliding window; thread-safe."""

    def __init__(
        self,
        *,
        per_client: int = 5,
        overall: int | None = 60,
        window_s: float = 60.0,
        max_clients: int = 4096,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if min(per_client, overall or 1, max_clients) < 1 or window_s <= 0:
            raise ValueError("a failure limit needs positive numbers")
        self.per_client = per_client
        self.overall = overall
        self.window_s = window_s
        self.max_clients = max_clients
        self._clock = clock
        self._lock = threading.Lock()
        self._clients: OrderedDict[str, deque[float]] = OrderedDict()
        self._all: deque[float] = deque(maxlen=overall or 1)

    def retry_after(self, client: str) -> int:
        """Whole seconds until ``client`` may try again (0: now)."""
        with self._lock:
            now = self._clock()
            self._age(self._all, now)
            waits = []
            if self.overall is not None and len(self._all) >= self.overall:
                waits.append(self._all[0] + self.window_s - now)
            failures = self._clients.get(client)
            if failures is not None:
                self._age(failures, now)
                if len(failures) >= self.per_client:
                    waits.append(failures[0] + self.window_s - now)
            return max(1, int(max(waits)) + 1) if waits else 0

    def overall_retry_after(self) -> int:
        """Whole seconds until the overall budget lets anyone try again (0: now)."""
        with self._lock:
            now = self._clock()
            self._age(self._all, now)
            if self.overall is None or len(self._all) < self.overall:
                return 0
            return max(1, int(self._all[0] + self.window_s - now) + 1)

    def failed(self, client: str) -> None:
        """Count one failure of ``client``."""
        with self._lock:
            now = self._clock()
            failures = self._clients.pop(client, None)
            if failures is None:
                failures = deque(maxlen=self.per_client)
            failures.append(now)
            self._clients[client] = failures  # the most recent last
            while len(self._clients) > self.max_clients:
                self._clients.popitem(last=False)
            self._all.append(now)

    def succeeded(self, client: str) -> None:
        """``client`` knew the secret: its own failures are forgotten."""
        with self._lock:
            self._clients.pop(client, None)

    @property
    def clients(self) -> int:
        """Addresses remembered (at most ``max_clients``)."""
        with self._lock:
            return len(self._clients)

    def _age(self, times: deque[float], now: float) -> None:
        horizon = now - self.window_s
        while times and times[0] <= horizon:
            times.popleft()
