"""The controller: the one owner of a game's state.

Every input — a press stamped at its source, a host's tap, a timer's tick —
is (1) appended to the journal, durably, (2) pushed into the pure core,
(3) followed by the seeded draw if it left a tie waiting, and only then
(4) shown to the listeners (lamps, board, panel). A crash at any point
loses nothing that was shown: the journal holds it, and
:meth:`Controller.resume` rebuilds the same state.

In a live game only the runtime's thread calls it (``runtime.py``,
:meth:`Controller.apply_batch`): inputs arrive already in event time, a
batch at a time, one journal commit each. :meth:`Controller.submit` and
:meth:`Controller.tick` apply one input at a time for replays, the demo
and tests that need no live sources. The lock guards the core against
readers on other threads (snapshots); nothing slow runs under it but the
journal's commit.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from buzzer.arbiter.decisions import Decision
from buzzer.arbiter.events import Input, Tick
from buzzer.arbiter.machine import SequenceError
from buzzer.core import GameCore, InputError
from buzzer.journal.codec import LONE_SURROGATE, InputParser, JournalError, parse_header
from buzzer.journal.encode import checked_line, command_key
from buzzer.journal.resume import rebuild
from buzzer.journal.store import JournalStore
from rules.snapshot import HostOptions, LiveSnapshot

log = logging.getLogger(__name__)

Listener = Callable[[list[Decision], LiveSnapshot], None]
Clock = Callable[[], int]


@dataclasses.dataclass(frozen=True, slots=True)
class Applied:
    """What became of one input of a batch: its journal line, or why it was refused.

    ``first`` indexes the batch's decisions: ``decisions[first:]`` came from
    this input on (its own effect, and what followed it in the batch).
    """

    line: int | None
    refused: str | None
    first: int


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
        self._host_options: tuple[int, HostOptions] | None = None
        self._listeners: list[Listener] = []
        self._lines = 1 if store is None else len(store)
        #: The journal's lines when there is no store (to rebuild after a refusal).
        self._memory: list[str] = []
        #: The replay's parser: every line is checked by it before it is journaled.
        self._parser = InputParser(len(core.setup.players))
        #: Journaled host commands by the panel's id: id → (line, command_key).
        self._command_ids: dict[str, tuple[int, str]] = {}

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
        try:
            line.encode("utf-8")  # a name from a command line of bad bytes (surrogateescape)
        except UnicodeEncodeError:
            raise JournalError(1, LONE_SURROGATE) from None
        core = GameCore(parse_header(line, base))
        if store is not None:
            if len(store):
                raise ValueError(f"{store.path} already holds a game: resume it instead")
            store.append_line(line)
        controller = cls(core, store, clock(), clock)
        if store is None:
            controller._memory.append(line)
        return controller

    @classmethod
    def resume(cls, store: JournalStore, clock: Clock = time.monotonic_ns) -> Controller:
        """The game in ``store``, rebuilt; its clock goes on from the last journaled instant."""
        lines = list(store.lines())
        core, _ = rebuild(lines, store.path.resolve().parent)
        last = 0.0
        ids: dict[str, tuple[int, str]] = {}
        for number, text in enumerate(lines[1:], 2):
            record = json.loads(text)
            last = max(last, record.get("t", 0.0))
            command_id = record.get("id")
            if isinstance(command_id, str):
                ids[command_id] = (number, command_key(text))
        controller = cls(core, store, clock() - round(last * 1e9), clock)
        controller._command_ids = ids
        return controller

    def journaled_command(self, command_id: str) -> tuple[int, str] | None:
        """The journal line of the host command the panel named ``command_id``, and its
        :func:`~buzzer.journal.encode.command_key`; None if no such command was journaled.

        Kept across restarts (the ``id`` field of the command's line): a retry
        after ``--resume`` is answered with the first outcome, never applied again.
        """
        return self._command_ids.get(command_id)

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
        against the snapshot first (the panel does). An input the journal
        could not even hold (a seat the game does not have, a value out of
        range: :func:`~buzzer.journal.encode.checked_line`) is an
        :class:`InputError` *before* anything is journaled.
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

    def apply_batch(
        self,
        items: list[tuple[Input, bool]],
        until: int | None = None,
        after: Sequence[Input] = (),
        ids: Sequence[str | None] = (),
        decided: int | None = None,
    ) -> tuple[list[Applied], list[Decision]]:
        """Apply inputs already in event-time order, journal them in one commit, then publish.

        The live runtime's path (``runtime.py``). Each ``(input, trial)``: with
        ``trial`` (a host command) the input is first tried on a copy of the
        core and, if the engine refuses it, left out — never journaled.
        ``after``: inputs stamped at ``until`` that decide nothing by
        themselves (source faults). ``until``: the time proven complete —
        when a deadline is due by then (a window's end, a held input), a
        ``tick`` at ``until`` is applied last. ``ids``: the panel's command
        id of each item (or None), journaled with its line. ``decided``: the
        time the runtime had proven complete before this batch. When the batch
        holds inputs stamped before it (a starved source's, delivered after
        their time) and every one of them is late for the core anyway, a
        ``tick`` at ``decided`` goes first: it changes no ruling, and the
        journal then records how far the game had gone, so the core rules them
        late by that margin (``Ignored.late_us``: the starvation the host is
        told of), live and in replay alike. One the core can still place
        fairly (nothing decided past it yet) gets no tick and keeps its place.

        Every line is checked as a replay will read it before it is staged
        (:func:`~buzzer.journal.encode.checked_line`): an input the journal
        could not replay — a press of a button with no seat in this game, a
        host value out of the journal's range — is refused like a refused
        trial, never journaled, so that a resume always replays what was shown.

        The inputs reach the core before the disk, but nothing leaves this
        method — no listener, no reply — before the journal's one commit
        (group commit: one sync for the whole batch). If the commit fails,
        the core is rebuilt from what the journal holds and the error
        propagates: nothing that is not on disk was ever shown.
        """
        from buzzer.runtime.trial import Refused, try_input

        results: list[Applied] = []
        out: list[Decision] = []
        with self._lock:
            lines: list[str] = []
            start = self._lines
            named: list[tuple[str, int, str]] = []
            try:
                self._catch_up(items, decided, lines, out)
                for index, (item, trial) in enumerate(items):
                    if trial:
                        try:
                            try_input(self.core, item)
                        except Refused as exc:
                            results.append(Applied(None, exc.message, len(out)))
                            continue
                    first = len(out)
                    staged = len(lines)
                    command_id = ids[index] if index < len(ids) else None
                    try:
                        line = self._stage(item, lines, out, command_id)
                    except (InputError, SequenceError, JournalError) as exc:
                        # A live input the engine cannot take (a late host input), or
                        # one the journal could not replay: left out of the journal
                        # like a refused trial.
                        if len(lines) > staged:
                            del lines[staged:]
                            self._rebuild(lines)
                        del out[first:]
                        message = str(exc) if isinstance(exc, SequenceError) else exc.message
                        results.append(Applied(None, message, first))
                        continue
                    if command_id is not None:
                        named.append((command_id, line, command_key(lines[staged])))
                    results.append(Applied(line, None, first))
                for item in after:
                    self._stage_quietly(item, lines, out)
                if until is not None:
                    deadline = self.core.next_deadline()
                    if deadline is not None and deadline <= until:
                        self._stage_quietly(Tick(until), lines, out)
                if lines:
                    if self.store is not None:
                        self.store.append_lines(lines)
                    else:
                        self._memory.extend(lines)
                for command_id, line, key in named:
                    self._command_ids[command_id] = (line, key)
            except BaseException:
                self._lines = start
                self._rebuild([])
                raise
            if not lines:
                return results, out
            self.version += 1
            snapshot = self.snapshot()
            listeners = list(self._listeners)
        for listener in listeners:
            listener(out, snapshot)
        return results, out

    def _catch_up(
        self,
        items: list[tuple[Input, bool]],
        decided: int | None,
        lines: list[str],
        out: list[Decision],
    ) -> None:
        """The tick at ``decided`` before inputs delivered after their time (apply_batch)."""
        buffer = self.core.buffer
        if decided is None or decided <= buffer.watermark:
            return
        behind = [item.t for item, _ in items if item.t < decided]
        if behind and all(buffer.is_late(t) for t in behind):
            self._stage_quietly(Tick(decided), lines, out)

    def _stage(
        self, item: Input, lines: list[str], out: list[Decision], command_id: str | None = None
    ) -> int:
        """Give ``item`` its journal line, push it (and a tie's draw) into the core.

        The line is checked first (:func:`checked_line`): a :class:`JournalError`
        leaves everything as it was.
        """
        line = self._lines + 1
        item = dataclasses.replace(item, ref=line)
        text = checked_line(item, self._parser, line, command_id)
        self._lines = line
        lines.append(text)
        self.core.push(item, out)
        draw = self.core.draw_for_pending_tie()
        if draw is not None:
            self._stage(draw, lines, out)
        return line

    def _stage_quietly(self, item: Input, lines: list[str], out: list[Decision]) -> None:
        """Stage an input of the runtime's own (a fault, a tick): one the journal could
        not hold (a time beyond its range) is left out and logged, never the batch's end."""
        try:
            self._stage(item, lines, out)
        except JournalError as exc:
            log.warning("controller: %s left out of the journal: %s", item, exc.message)

    def _rebuild(self, staged: list[str]) -> None:
        """The core as the journal (plus ``staged`` lines not yet written) has it."""
        if self.store is not None:
            journaled = list(self.store.lines())
            base: Path | None = self.store.path.resolve().parent
        else:
            journaled = list(self._memory)
            base = None
        self.core, _ = rebuild(journaled + staged, base)
        self._lines = len(journaled) + len(staged)

    def seal(self) -> str | None:
        """The journal's seal now (docs/journal.md; None: no journal, or one from before
        the seal). Shown at the game's end, for the host's paper scoresheet."""
        return None if self.store is None else self.store.seal()

    def journal_lines(self) -> list[str]:
        """Every line journaled so far, the header first (the report's input)."""
        with self._lock:
            if self.store is None:
                return list(self._memory)
            return list(self.store.lines())

    def snapshot(self) -> LiveSnapshot:
        """The core's snapshot, with this controller's version and clock."""
        with self._lock:
            return {**self.core.snapshot(), "version": self.version, "now": self.now()}

    def host_options(self) -> HostOptions:
        """What the host's controls may offer now (:meth:`GameCore.host_options`),
        kept per version: the next round's preview plays a select on a copy of
        the core, once per change rather than once per panel that asks."""
        with self._lock:
            cached = self._host_options
            if cached is None or cached[0] != self.version:
                cached = (self.version, self.core.host_options(self.now()))
                self._host_options = cached
            return cached[1]

    def _apply(self, item: Input, out: list[Decision]) -> None:
        line = self._lines + 1
        try:
            text = checked_line(dataclasses.replace(item, ref=line), self._parser, line)
        except JournalError as exc:
            raise InputError(line, exc.message) from None
        self._lines = line
        if self.store is not None:
            self._lines = self.store.append_line(text)
        else:
            self._memory.append(text)
        self.core.push(dataclasses.replace(item, ref=self._lines), out)
