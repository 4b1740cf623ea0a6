"""The runtime: the one thread that owns time in a live game.

Every live input — a GPIO edge, a Pico frame, a key, a host's tap — is
handed to :meth:`Runtime.deliver` by its source's thread, already stamped at
its source. The runtime thread alone applies inputs to the controller, in
**event time**:

1. read every live source's watermark *first* (``sources.py``: nothing
   stamped before it will still come from that source);
2. then take everything delivered so far into the merge (``merge.py``);
3. release, in timestamp order, what is stamped before the minimum
   watermark W, and apply it as one batch: host commands tried on a copy of
   the core, one journal commit for the batch, a ``tick`` at W when a
   deadline (a window's end) is due by then — then the listeners.

So the arrival order of bytes, the scheduling of threads, or a slow journal
write may delay a decision, never change it: the core's time never passes
an input that is still on its way.

A source whose watermark falls more than ``wait_bound_ns`` behind the clock
(an unplugged Pico, a stalled thread), not counting the time the whole
process itself stood still (``stalls.py``: a long garbage collection stops
every source alike), is a **fault**: journaled (a ``fault``
line), shown to the host, and left out of the minimum until it catches up,
so one dead source cannot freeze the game. A press it delivers afterwards
for a time already decided is journaled and ruled ``late`` — never dropped
in silence.

Tests drive it by hand (:meth:`step`, with the controller's clock injected);
``svoyak run`` starts its thread.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from buzzer.arbiter.decisions import Decision, Ignored
from buzzer.arbiter.events import Fault, Input, Press
from buzzer.journal.store import JournalWriteError
from buzzer.runtime.controller import Applied, Controller
from buzzer.runtime.host_commands import HostCommands
from buzzer.runtime.journal_outage import JOURNAL_SOURCE, JournalOutage
from buzzer.runtime.merge import EventTimeMerge
from buzzer.runtime.results import Accepted as Accepted
from buzzer.runtime.results import CommandRefused as CommandRefused
from buzzer.runtime.sources import ClockSource, EdgeSource, LinkSource, Source
from buzzer.runtime.stalls import StallWatch

log = logging.getLogger(__name__)

MS = 1_000_000
#: How long a decision may wait for a silent source before it is a fault.
DEFAULT_WAIT_BOUND_NS = 100 * MS
#: Python hands the GIL between threads at most this often (the default is
#: 5 ms): a callback thread holding a stamped edge waits for the GIL at most
#: about this long per thread ahead of it, instead of 5 ms each.
SWITCH_INTERVAL_S = 0.0005


#: Told when the journal fails (``back`` False) and when it works again (True).
JournalListener = Callable[[JournalOutage, bool], None]

#: An inbox entry that carries no input: "a watermark moved, step now".
_NUDGE: Any = ("nudge", None)


@dataclass(frozen=True, slots=True)
class _Delivery:
    source: Source
    trial: bool
    future: Future[Any]
    #: The panel's id of a host command, journaled with its line.
    command_id: str | None = None


@dataclass
class RuntimeStats:
    """Counters for the technician, the benchmarks and the tests."""

    batches: int = 0
    inputs: int = 0
    refused: int = 0
    #: Inputs delivered stamped before a time already decided (a faulted source's).
    behind: int = 0
    #: Of those, inputs stamped before their own source's watermark: a source that
    #: broke its promise (a defect in the source, never the load); always 0.
    broken_promises: int = 0
    late_presses: int = 0
    faults: int = 0
    journal_errors: int = 0
    #: Inputs the journal could not record (a full or failing disk): not applied.
    not_journaled: int = 0
    #: Per source name: the worst lag of its watermark behind the clock seen (ns).
    worst_lag_ns: dict[str, int] = field(default_factory=dict)


class Runtime:
    """Event-time application of live inputs to one controller (see the module docstring)."""

    def __init__(
        self,
        controller: Controller,
        *,
        wait_bound_ns: int = DEFAULT_WAIT_BOUND_NS,
        poll_s: float = 0.0002,
        idle_s: float = 0.02,
    ) -> None:
        self.controller = controller
        self.wait_bound_ns = wait_bound_ns
        self.poll_s = poll_s
        self.idle_s = idle_s
        self.stats = RuntimeStats()
        #: Stalls of the whole process (GC, a starved CPU): edges may be held in them.
        self.stalls = StallWatch(controller.clock)
        self._inbox: queue.SimpleQueue[tuple[Input, _Delivery] | None] = queue.SimpleQueue()
        self._merge: EventTimeMerge[_Delivery] = EventTimeMerge()
        self._sources: list[Source] = []
        self._faulted: set[str] = set()
        #: Per source: the highest watermark it gave while healthy, as of the last
        #: inbox drain (what it promised: everything stamped before was delivered).
        self._promised: dict[str, int] = {}
        #: The watermarks read this step, promised once this step's inbox is drained.
        self._promising: dict[str, int] = {}
        self._pending_faults: list[Input] = []
        self._sources_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._idle = threading.Condition()
        self._busy = 0
        #: The host's own taps, keys and simulated buttons are stamped here by default.
        self.host = self.clock_source("host")
        #: The one gate of host commands, whichever entrance they come by (the panel,
        #: the host's buttons, the board's keys, scripts): ids, pause, staleness.
        self.commands = HostCommands(self)
        #: The journal's outage now (a full disk), or None while it is written.
        self.outage: JournalOutage | None = None
        self._journal_listeners: list[JournalListener] = []

    # -- time ------------------------------------------------------------------------

    def now(self) -> int:
        """The game clock (ns since t = 0), the controller's."""
        return self.controller.now()

    def game_time(self, monotonic_ns: int) -> int:
        return self.controller.game_time(monotonic_ns)

    # -- sources ---------------------------------------------------------------------

    def add_source(self, source: Source) -> Source:
        with self._sources_lock:
            self._sources.append(source)
        return source

    def remove_source(self, source: Source) -> None:
        with self._sources_lock:
            if source in self._sources:
                self._sources.remove(source)
            self._faulted.discard(source.name)
            self._promised.pop(source.name, None)

    def clock_source(self, name: str) -> ClockSource:
        source = ClockSource(self, name)
        self.add_source(source)
        return source

    def edge_source(self, name: str) -> EdgeSource:
        """A GPIO source; its proof (``ButtonBank.proven_until``) comes once the bank exists."""
        source = EdgeSource(self, name)
        self.add_source(source)
        return source

    def link_source(self, name: str, link: Any) -> LinkSource:
        source = LinkSource(self, name, link)
        self.add_source(source)
        return source

    @property
    def faulted(self) -> frozenset[str]:
        """The sources left out of the watermark now (for the panel)."""
        return frozenset(self._faulted)

    # -- inputs ----------------------------------------------------------------------

    def deliver(
        self, source: Source, item: Input, *, trial: bool = False, command_id: str | None = None
    ) -> Future[Any]:
        """Hand over one input stamped on the game clock (any thread; quick).

        ``command_id``: the panel's id of a host command, journaled with it.
        """
        future: Future[Any] = Future()
        with self._idle:
            self._busy += 1
        self._inbox.put((item, _Delivery(source, trial, future, command_id)))
        return future

    def nudge(self) -> None:
        """A source's watermark moved on (any thread; quick): step now if anything waits.

        Without it a held input is decided at the next poll (``poll_s``);
        a nudge with nothing held costs nothing but this check.
        """
        if self._thread is not None and (len(self._merge) or self._busy):
            self._inbox.put(_NUDGE)

    def command(
        self, make: Any, source: ClockSource | None = None, command_id: str | None = None
    ) -> Future[Any]:
        """A host command ``make(t)``, stamped now by ``source`` (the host's by default),
        through the host-command service (:attr:`commands`: the pause, the id).

        The future resolves to :class:`Accepted`, or fails with
        :class:`CommandRefused` (nothing journaled). ``command_id`` is
        journaled with the command's line.
        """
        return self.commands.command(make, source, command_id)

    def press(self, seat: int, source: ClockSource | None = None) -> Future[Any]:
        """A simulated button, pressed now (the demo's, the tests')."""
        return (source or self.host).put(lambda t: Press(t, seat))

    def wait(self, future: Future[Any], timeout: float = 10.0) -> Any:
        """The future's result: waits for the thread, or steps by hand when none runs."""
        if self._thread is None:
            for _ in range(10_000):
                if future.done():
                    break
                self.step()
            else:
                raise TimeoutError("the runtime made no progress (is the clock moving?)")
        return future.result(timeout)

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until every input delivered so far has been applied (tests, benchmarks)."""
        if self._thread is None:
            for _ in range(10_000):
                self.step()
                if self._busy == 0:
                    return True
            return False
        with self._idle:
            return self._idle.wait_for(lambda: self._busy == 0, timeout)

    # -- the thread ------------------------------------------------------------------

    def start(self) -> Runtime:
        """Run the runtime's thread (and hand the GIL between threads every 0.5 ms)."""
        if sys.getswitchinterval() > SWITCH_INTERVAL_S:
            sys.setswitchinterval(SWITCH_INTERVAL_S)
        if self._thread is None:
            self.stalls.watch_gc()
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="svoyak-runtime", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        thread = self._thread
        if thread is None:
            return
        self._stop.set()
        self._inbox.put(None)
        thread.join(timeout)
        self._thread = None
        self.stalls.unwatch_gc()

    def _run(self) -> None:
        clock = self.controller.clock
        stalls = self.stalls
        while not self._stop.is_set():
            wait_s = self._wait_s()
            slept_from = clock()
            try:
                first = self._inbox.get(timeout=wait_s)
            except queue.Empty:
                first = None
                # Woken late: this thread could not run, nor could the others.
                stalls.woke(round(wait_s * 1e9), slept_from, clock())
            try:
                self.step(first)
            except Exception:  # the runtime must outlive any one bad batch
                log.exception("runtime: a batch failed")

    def _wait_s(self) -> float:
        """How long the thread may sleep with no new input."""
        if len(self._merge) or self._pending_faults:
            return self.poll_s
        deadline = self.controller.core.next_deadline()
        if deadline is None:
            return self.idle_s
        ahead = (deadline - self.now()) / 1e9
        return min(self.idle_s, max(self.poll_s, ahead))

    # -- one step --------------------------------------------------------------------

    def step(self, first: tuple[Input, _Delivery] | None = None) -> int:
        """Read the watermarks, take the inbox, apply what they prove complete.

        Returns the number of inputs applied or refused. Safe to call by hand
        (tests with an injected clock) when the thread is not running.
        """
        mark = self._watermark()
        if first is _NUDGE:
            first = None
        taken = 0 if first is None else 1
        merge = self._merge
        if first is not None:
            self._take(*first)
        while True:
            try:
                entry = self._inbox.get_nowait()
            except queue.Empty:
                break
            if entry is not None and entry is not _NUDGE:
                self._take(*entry)
                taken += 1
        # Read before the drain, the marks covered everything just drained; from now
        # on an input stamped before one of them is its source breaking its word.
        for name, promised in self._promising.items():
            self._promised[name] = max(promised, self._promised.get(name, promised))
        self._promising.clear()
        decided = merge.released_until
        released = merge.release(mark)
        faults, self._pending_faults = self._pending_faults, []
        try:
            done = self._apply(released, mark, faults, decided)
        finally:
            if taken or released:
                with self._idle:
                    self._busy -= len(released)
                    if self._busy == 0:
                        self._idle.notify_all()
        return done

    def _take(self, item: Input, delivery: _Delivery) -> None:
        if self._merge.is_behind(item):
            self.stats.behind += 1
            name = delivery.source.name
            promised = self._promised.get(name)
            if promised is not None and item.t < promised:
                # The decided time passed this stamp on the source's own word, not
                # because it was faulted: its watermark lied. Never the load's doing.
                self.stats.broken_promises += 1
                log.error(
                    "runtime: %s broke its watermark: an input stamped %.1f ms before "
                    "the time it had proven complete",
                    name,
                    (promised - item.t) / 1e6,
                )
            else:
                log.warning(
                    "runtime: %s delivered an input stamped %.1f ms before the decided time",
                    name,
                    (self._merge.released_until - item.t) / 1e6,
                )
        self._merge.add(item, delivery)

    def _watermark(self) -> int:
        """The minimum watermark of the live sources; marks and clears faults."""
        now = self.now()
        marks: list[int] = []
        with self._sources_lock:
            sources = list(self._sources)
        stats = self.stats
        for source in sources:
            mark = source.watermark()
            lag = None if mark is None else now - mark
            if lag is not None and lag > stats.worst_lag_ns.get(source.name, 0):
                stats.worst_lag_ns[source.name] = lag
            # Only the time the source could have run counts against its bound:
            # while the whole process stalled (a long collection) nobody reported.
            healthy = lag is not None and (
                lag <= self.wait_bound_ns or lag - self._stalled_since(mark) <= self.wait_bound_ns
            )
            name = source.name
            if healthy:
                assert mark is not None
                marks.append(mark)
                self._promising[name] = mark
                if name in self._faulted:
                    self._faulted.discard(name)
                    self._pending_faults.append(Fault(0, name, True, "proving its time again"))
            elif name not in self._faulted:
                self._faulted.add(name)
                stats.faults += 1
                detail = (
                    "no watermark (not connected)"
                    if lag is None
                    else f"watermark {lag / 1e6:.0f} ms behind the clock"
                )
                log.warning("runtime: input source %s stalled: %s", name, detail)
                self._pending_faults.append(Fault(0, name, False, detail))
        mark = min(marks) if marks else now
        return max(mark, self._merge.released_until)

    def _stalled_since(self, mark: int | None) -> int:
        """ns of process stall between game time ``mark`` and now."""
        assert mark is not None
        clock = self.controller.clock()
        since = clock - (self.now() - mark)
        return self.stalls.stalled_between(since, clock)

    def _apply(
        self,
        released: list[tuple[Input, _Delivery]],
        mark: int,
        faults: list[Input],
        decided: int | None = None,
    ) -> int:
        stamped_faults = [
            Fault(mark, f.source, f.ok, f.detail) for f in faults if isinstance(f, Fault)
        ]
        core = self.controller.core
        deadline = core.next_deadline()
        outage = self.outage
        if outage is not None:
            # While the journal fails, time alone (a due tick) tries it only now and
            # then; an input always does. The first batch that is written carries the
            # journal's own line saying what was not recorded (journal_outage.py).
            if not released and self.now() < outage.next_probe:
                return 0
            stamped_faults.append(Fault(mark, JOURNAL_SOURCE, True, outage.detail(mark)))
        elif not released and not stamped_faults and (deadline is None or deadline > mark):
            return 0
        items = [(item, delivery.trial) for item, delivery in released]
        ids = [delivery.command_id for _, delivery in released]
        try:
            results, decisions = self.controller.apply_batch(
                items, mark, stamped_faults, ids, decided
            )
        except JournalWriteError as exc:
            # Nothing of the batch was recorded, shown or decided: counted and told,
            # never a traceback; the game goes on when the journal does.
            self._journal_failed(exc, released)
            return len(released)
        except Exception as exc:
            self.stats.journal_errors += 1
            for _, delivery in released:
                delivery.future.set_exception(exc)
            raise
        if outage is not None:
            self._journal_back(outage, mark)
        stats = self.stats
        stats.batches += 1
        stats.inputs += len(released)
        for (_, delivery), applied in zip(released, results, strict=True):
            self._resolve(delivery, applied, decisions)
        for decision in decisions:
            if isinstance(decision, Ignored) and decision.reason == "late":
                stats.late_presses += 1
        return len(released)

    # -- the journal's outage -------------------------------------------------------

    def on_journal(self, listener: JournalListener) -> None:
        """Call ``listener(outage, back)`` on the runtime's thread when the journal
        fails (``back`` False; again for every input it could not record) and
        when it works again (``back`` True): the panel's alert."""
        self._journal_listeners.append(listener)

    def _journal_failed(
        self, exc: JournalWriteError, released: list[tuple[Input, _Delivery]]
    ) -> None:
        self.stats.journal_errors += 1
        now = self.now()
        outage = self.outage
        first = outage is None
        if outage is None:
            outage = JournalOutage(exc.why, exc.recorded, now, str(exc))
            self.outage = outage
            log.error("runtime: %s", exc)  # once per outage; the counts come when it ends
        lost = outage.lost
        outage.count([item for item, _ in released], now)
        self.stats.not_journaled += len(released)
        # The alert before the answers: whoever was refused finds it up to date.
        if first or outage.lost != lost:  # a probe that failed again tells nothing new
            self._tell_journal(outage, back=False)
        for _, delivery in released:
            delivery.future.set_exception(exc)

    def _journal_back(self, outage: JournalOutage, mark: int) -> None:
        self.outage = None
        log.warning("runtime: the journal is written again; %s", outage.detail(mark))
        self._tell_journal(outage, back=True)

    def _tell_journal(self, outage: JournalOutage, *, back: bool) -> None:
        for listener in list(self._journal_listeners):
            try:
                listener(outage, back)
            except Exception:  # a listener's bug must not stop the game
                log.exception("runtime: a journal listener failed")

    def _resolve(self, delivery: _Delivery, applied: Applied, decisions: list[Decision]) -> None:
        future = delivery.future
        if applied.refused is not None:
            self.stats.refused += 1
            if not delivery.trial:
                # A source's own input (a press) that the journal could not hold: the
                # source is not told, so the technician is.
                log.warning(
                    "runtime: an input from %s was refused: %s",
                    delivery.source.name,
                    applied.refused,
                )
            future.set_exception(CommandRefused(applied.refused))
        else:
            future.set_result(Accepted(applied.line, decisions[applied.first :]))
