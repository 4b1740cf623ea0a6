"""Play a journal onto the screen: the core fed line by line as game time passes.

This is the display's demo and test driver, not a second controller: it
feeds the journal's inputs to a :class:`buzzer.core.GameCore` in order, and
between them ticks at the core's own deadlines, as the live controller does
(``Controller.tick``), so that a press window is seen to close on time. What
the host may do at each moment comes from the core too
(:meth:`JournalPlayer.host_options`), as the live controller publishes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from buzzer.arbiter.decisions import Decision
from buzzer.arbiter.events import Input, Tick
from buzzer.core import GameCore
from buzzer.journal.codec import InputParser, parse_header
from display.scene import Facts, Memory
from rules.snapshot import HostOptions, LiveSnapshot

Listener = Callable[[list[Decision], LiveSnapshot], None]


class JournalPlayer:
    """A journal's game, advanced to any instant of game time (ns)."""

    def __init__(self, lines: Sequence[str], base: Path | None = None) -> None:
        lines = [line for line in lines if line.strip()]
        self.setup = parse_header(lines[0], base)
        self.core = GameCore(self.setup)
        parser = InputParser(len(self.setup.players))
        self.items: list[Input] = [parser.parse(text, n) for n, text in enumerate(lines[1:], 2)]
        self.memory = Memory()
        self.memory.feed(self.core.started)
        self.index = 0
        self.now = 0
        self.version = 0
        self.finished = False
        self._options: tuple[int, HostOptions] | None = None

    @property
    def end(self) -> int:
        """The instant of the last input."""
        return max((item.t for item in self.items), default=0)

    @property
    def done(self) -> bool:
        return self.index >= len(self.items)

    def next_time(self) -> int | None:
        """When the next input or deadline falls, if any."""
        candidates = []
        if not self.done:
            candidates.append(self.items[self.index].t)
        deadline = self.core.next_deadline()
        if deadline is not None and deadline > self.now:
            candidates.append(deadline)
        return min(candidates) if candidates else None

    def advance(self, t: int, limit: int | None = None) -> list[Decision]:
        """Apply every input and deadline up to ``t``; the decisions they made.

        ``limit``: push no input past this many (the journal's first ``limit`` inputs).
        """
        out: list[Decision] = []
        count = len(self.items) if limit is None else min(limit, len(self.items))
        while True:
            deadline = self.core.next_deadline()
            upcoming = self.items[self.index].t if self.index < count else None
            if (
                deadline is not None
                and deadline <= t
                and (upcoming is None or deadline <= upcoming)
            ):
                self.core.push(Tick(deadline), out)
                if self.core.next_deadline() == deadline:  # nothing moved it: stop ticking
                    break
                continue
            if upcoming is not None and upcoming <= t:
                self.core.push(self.items[self.index], out)
                self.index += 1
                continue
            break
        if self.done and not self.finished and t >= self.end:
            self.core.finish(out)
            self.finished = True
        self.now = max(self.now, t)
        if out:
            self.version += 1
            self.memory.feed(out)
        return out

    def through(self, line: int) -> list[Decision]:
        """The state after journal line ``line`` (the header is line 1): every input up
        to it applied and decided, none after it (``svoyak display shot --line``).

        A live journal's input waits in the settle window before it is decided, so
        the game is taken past that window (and the deadlines in it, as live), not
        only to the line's own instant, at which the line would still be waiting.
        """
        count = max(0, min(line - 1, len(self.items)))
        if count == 0:
            return []
        settled = self.items[count - 1].t + self.core.buffer.settle_ns + 1
        return self.advance(max(self.now, settled), limit=count)

    def step(self) -> list[Decision]:
        """Advance to the next input or deadline."""
        t = self.next_time()
        return self.advance(self.end if t is None else t)

    def snapshot(self) -> LiveSnapshot:
        return {**self.core.snapshot(), "version": self.version, "now": self.now}

    def host_options(self) -> HostOptions:
        """What the host may do now (:meth:`GameCore.host_options`), kept per version
        as the live controller keeps them (the next round's preview copies the core)."""
        cached = self._options
        if cached is None or cached[0] != self.version:
            cached = (self.version, self.core.host_options(self.now))
            self._options = cached
        return cached[1]

    def facts(self) -> Facts:
        """The facts a scene of this moment shows: the decisions' and the host options'."""
        return self.memory.facts().with_options(self.host_options())


def read_journal(path: Path) -> list[str]:
    """A journal's lines: JSON Lines, or a game's SQLite journal."""
    data = path.read_bytes()
    if data.startswith(b"SQLite format 3\x00"):
        from buzzer.journal.store import JournalStore

        with JournalStore(path, readonly=True) as store:
            return list(store.lines())
    return data.decode("utf-8").splitlines()
