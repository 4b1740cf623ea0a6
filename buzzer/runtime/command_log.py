"""The host's command log: the recent host commands, newest first, with their lines.

Read from the core's history, not kept beside it: the journal line numbers
there are what ``undo`` names, an undo rebuilds what is undone, and a resumed
game has its log back. Each entry is the command's journal record (its
declared wire fields), its ``line``, whether it was ``undone``, and what it
acted on (``context``: the round, the theme by its own round's name, whose
answer; ``GameCore.context``). It holds the hidden final stakes: the host's
alone.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from buzzer.arbiter.events import HostInput, Input
from buzzer.journal.encode import encode_input
from buzzer.runtime.controller import Controller


class CommandLog:
    """The last ``size`` host commands of one game (the records cached by line)."""

    def __init__(self, controller: Controller, size: int = 30) -> None:
        self.controller = controller
        self.size = size
        self._lock = threading.Lock()
        self._records: dict[int, tuple[object, dict[str, Any]]] = {}

    @staticmethod
    def shows(item: Input) -> bool:
        """Whether the log shows this input (every host command the core keeps)."""
        return isinstance(item, HostInput)

    def recent(self) -> list[dict[str, Any]]:
        """The recent host commands, newest first, with their journal lines."""
        with self._lock:
            return self._recent()

    def _recent(self) -> list[dict[str, Any]]:
        core = self.controller.core
        undone = core.undone
        cache = self._records
        out: list[dict[str, Any]] = []
        for item in reversed(core.history):
            if isinstance(item, HostInput):
                record = cache.get(item.ref)
                if record is None or record[0] is not item:
                    record = (item, json.loads(encode_input(item)))
                    cache[item.ref] = record
                entry = {**record[1], "line": item.ref, "undone": item.ref in undone}
                # what it acted on (the round's own theme name, whose answer): the core's
                context = core.context.get(item.ref)
                if context is not None:
                    entry["context"] = dict(context)
                out.append(entry)
                if len(out) >= self.size:
                    break
        if len(cache) > 4 * self.size:
            keep = {entry["line"] for entry in out}
            for ref in [ref for ref in cache if ref not in keep]:
                del cache[ref]
        return out
