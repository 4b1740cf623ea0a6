"""The controller: the one owner of a game's state.

Every input — a press stamped at its source, a host's tap, a timer's tick —
goes through :meth:`Controller.submit`, which (1) appends it to the journal,
durably, (2) pushes it into the pure core, (3) journals and applies the
seeded draw if it left a tie waiting, and only then (4) tells the listeners
(lamps, board, panel) what was decided. A crash at any point loses nothing
that was shown: the journal holds it, and :meth:`Controller.resume` rebuilds
the same state.

Inputs may come from several threads (gpiozero callbacks, the serial
reader, the web server); a lock makes their order of arrival the journal's
order. Nothing slow runs under the lock but the journal append.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from buzzer.arbiter.decisions import Decision
from buzzer.arbiter.events import Input, Tick
from buzzer.core import GameCore
from buzzer.journal.codec import parse_header
from buzzer.journal.encode import encode_input
from buzzer.journal.resume import rebuild
from buzzer.journal.store import JournalStore

Listener = Callable[[list[Decision], dict[str, Any]], None]
Clock = Callable[[], int]


class Controller:
    """Journal first, then decide, then publish."""

    def __init__(
        self,
        core: GameCore,
        store: JournalStore | None,
        t0_ns: int,
        clock: Clock = time.monotonic_ns,
    ) -> None:
        self.core = core
        self.store = store
        #: The monotonic instant of the game's t = 0.
        self.t0_ns = t0_ns
        self.clock = clock
        self.version = 0
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self._lines = 1 if store is None else len(store)

    # -- construction --------------------------------------------------------

    @classmethod
    def new(
        cls,
        header: dict[str, Any],
        store: JournalStore | None = None,
        clock: Clock = time.monotonic_ns,
        base: Path | None = None,
    ) -> Controller:
        """A new game: the header is journaled first (line 1)."""
        line = json.dumps({"type": "game", **header}, ensure_ascii=False)
        core = GameCore(parse_header(line, base))
        if store is not None:
            if len(store):
                raise ValueError(f"{store.path} already holds a game: resume it instead")
            store.append_line(line)
        return cls(core, store, clock(), clock)

    @classmethod
    def resume(cls, store: JournalStore, clock: Clock = time.monotonic_ns) -> Controller:
        """The game in ``store``, rebuilt; its clock goes on from the last journaled instant."""
        lines = list(store.lines())
        core, _ = rebuild(lines, store.path.resolve().parent)
        last = max((json.loads(x).get("t", 0.0) for x in lines[1:]), default=0.0)
        return cls(core, store, clock() - round(last * 1e9), clock)

    @property
    def lock(self) -> threading.RLock:
        """Held by whoever must check and submit as one step (the panel's trial run)."""
        return self._lock

    # -- time ----------------------------------------------------------------

    def now(self) -> int:
        """The game clock: ns since the game's t = 0."""
        return self.clock() - self.t0_ns

    def game_time(self, monotonic_ns: int) -> int:
        """A source timestamp on the monotonic clock → the game clock."""
        return monotonic_ns - self.t0_ns

    # -- inputs --------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def submit(self, item: Input) -> list[Decision]:
        """Journal ``item``, apply it, publish what it decided; returns the decisions.

        The core's errors (an input that makes no sense) propagate after the
        input was journaled: the journal is the record of what happened, and
        a replay refuses at the same line. Callers validate host commands
        against the snapshot first (the panel does).
        """
        with self._lock:
            out: list[Decision] = []
            self._apply(item, out)
            draw = self.core.draw_for_pending_tie()
            if draw is not None:
                self._apply(draw, out)
            self.version += 1
            snapshot = self.snapshot()
            listeners = list(self._listeners)
        for listener in listeners:
            listener(out, snapshot)
        return out

    def tick(self) -> list[Decision]:
        """Let time pass: when a deadline is due (a settle window, a press window,
        a round clock), journal a tick and apply it. A live loop calls this
        often (every millisecond or so); most calls do nothing."""
        with self._lock:
            deadline = self.core.next_deadline()
            now = self.now()
            if deadline is None or now < deadline:
                return []
        # Submitted outside the check's lock: listeners must never run while a
        # thread other than the submitter's own holds the controller's lock.
        return self.submit(Tick(now))

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            snapshot = self.core.snapshot()
            snapshot["version"] = self.version
            snapshot["now"] = self.now()
            return snapshot

    def _apply(self, item: Input, out: list[Decision]) -> None:
        self._lines += 1
        if self.store is not None:
            self._lines = self.store.append_line(encode_input(item))
        self.core.push(dataclasses.replace(item, ref=self._lines), out)
