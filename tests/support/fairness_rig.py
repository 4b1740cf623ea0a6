"""A live game under load, for the fairness tests and the benchmarks.

The real live path: gpiozero mock pins → ``ButtonBank`` → the runtime's GPIO
source → the runtime thread (event-time merge, trial, group commit) → a real
SQLite journal → the controller's listeners. Host commands go through the
runtime as the panel's do. Faults are injected around it: a journal whose
every commit takes ``delay_s`` longer (an SD card's fsync), a CPU hog in
another process, garbage-collector pressure in this one.

Each question: select, start and end the reading (the signal), then — a
fraction of a millisecond after the signal was *submitted*, before the
runtime has applied it — every player presses, one after another in a
random order, from one driver thread. So the first driven press is the
earliest stamp (gpiozero's mock pin stamps each edge as it is driven), and
it must win; nothing may be ruled late.
"""

from __future__ import annotations

import contextlib
import gc
import json
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from buzzer.app.inputs import attach_gpio
from buzzer.arbiter.decisions import Decision, Ignored, Recognized
from buzzer.arbiter.events import Judge, ReadingEnd, ReadingStart, Select, Timeout
from buzzer.journal.store import JournalStore
from buzzer.runtime.controller import Controller
from buzzer.runtime.results import CommandRefused
from buzzer.runtime.runtime import Runtime
from hardware.mockpins import mock_factory
from hardware.pinmap import ButtonPin, example_path, load_pinmap

#: Ten players' buttons on pins the example map leaves free of host buttons and lamps.
PLAYER_PINS = (17, 27, 22, 23, 24, 25, 4, 18, 7, 8)


class SlowJournal(JournalStore):
    """A real SQLite journal whose every commit takes ``delay_s`` longer."""

    def __init__(self, path: Path, delay_s: float) -> None:
        super().__init__(path)
        self.delay_s = delay_s

    def append_line(self, line: str) -> int:
        if self.delay_s:
            time.sleep(self.delay_s)
        return super().append_line(line)

    def append_lines(self, lines: list[str]) -> int:
        if self.delay_s:
            time.sleep(self.delay_s)
        return super().append_lines(lines)


@contextlib.contextmanager
def cpu_hog(processes: int = 1, nice: int = 10) -> Iterator[None]:
    """Busy loops in other processes: the OS must share the cores with them.

    At ``nice`` 10 below the controller, as on the appliance, whose systemd
    unit runs svoyak at ``Nice=-10``: a background job takes what the
    controller leaves, not the instants between an edge and its callback.
    """
    command = [sys.executable, "-c", f"import os; os.nice({nice})\nwhile True: pass"]
    hogs = [subprocess.Popen(command) for _ in range(processes)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


@contextlib.contextmanager
def gc_pressure(pause_s: float = 0.005) -> Iterator[None]:
    """A thread of this process making cyclic garbage and forcing full collections.

    A full collection walks the whole heap with the GIL held: in a test
    session's big heap one takes tens of milliseconds, during which no
    thread of the process runs. ``pause_s`` between them keeps the game
    moving (a collection every few milliseconds is far more than a game
    night's), so the test measures what a collection does to decisions, not
    how long a game of back-to-back collections takes.
    """
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            junk: list[Any] = []
            for _ in range(2000):
                node: dict[str, Any] = {"self": None, "pad": [0] * 8}
                node["self"] = node
                junk.append(node)
            del junk
            gc.collect()
            stop.wait(pause_s)

    thread = threading.Thread(target=churn, name="gc-pressure", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(5)


@contextlib.contextmanager
def websocket_flood(runtime: Runtime, sockets: int = 4) -> Iterator[None]:
    """The real panel on uvicorn, and viewer sockets sending ``resync`` as fast as they can.

    Every resync makes the server send a whole state: the web adapter's threads
    compete with the runtime for the GIL the whole time. The server throttles a
    flooding viewer, closes it (1008) and refuses its address for a while (the
    hub's SocketPolicy): each socket connects again at once, so the flood (now
    of refused handshakes, too) goes on as long as the test does.
    """
    import asyncio

    import websockets

    from buzzer.panel.app import create_app
    from buzzer.panel.server import BackgroundServer

    app = create_app(runtime, "432187")
    server = BackgroundServer(app).start()
    stop = threading.Event()
    sent = [0]

    async def flood_one(url: str) -> None:
        while not stop.is_set():
            try:
                async with websockets.connect(url, max_size=None) as ws:
                    while not stop.is_set():
                        await ws.send('{"type": "resync"}')
                        sent[0] += 1
                        with contextlib.suppress(asyncio.TimeoutError):
                            await asyncio.wait_for(ws.recv(), 0.001)
            except (websockets.ConnectionClosed, websockets.InvalidStatus, OSError):
                sent[0] += 1  # closed for flooding, or refused: connect again
                await asyncio.sleep(0.001)

    async def flood() -> None:
        url = f"ws://{server.host}:{server.port}/ws"
        await asyncio.gather(*(flood_one(url) for _ in range(sockets)))

    thread = threading.Thread(target=lambda: asyncio.run(flood()), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(10)
        server.stop()
    assert sent[0] > 100, "the flood never got going"


class LiveRecord:
    """A controller listener: every live decision (as JSON), the seats recognized
    in order, and how many presses were ruled ``late``. Thread-safe."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.decisions: list[str] = []
        self.recognized: list[int] = []
        self.late = 0

    def __call__(self, decisions: list[Decision], snapshot: dict[str, Any]) -> None:
        with self.lock:
            for decision in decisions:
                self.decisions.append(decision.to_json())
                if isinstance(decision, Recognized):
                    self.recognized.append(decision.seat)
                elif isinstance(decision, Ignored) and decision.reason == "late":
                    self.late += 1


@dataclass
class Outcome:
    presses: int = 0
    questions: int = 0
    #: (question, the first driven seat, the seat recognized)
    winners: list[tuple[int, int, int | None]] = field(default_factory=list)
    late: int = 0
    live_decisions: list[str] = field(default_factory=list)
    journal: Path | None = None
    behind: int = 0
    #: The runtime's own account of starvation: the questions (1-based) during which
    #: an input source was faulted (its watermark beyond the wait bound, not counting
    #: stalls of the whole process), and how many faults it raised in all.
    faulted: set[int] = field(default_factory=set)
    faults: int = 0
    #: Per question: (presses ruled late, inputs delivered behind the decided time).
    per_question: dict[int, tuple[int, int]] = field(default_factory=dict)
    #: Per question: inputs stamped before their own source's watermark.
    broken: dict[int, int] = field(default_factory=dict)

    @property
    def wrong_winners(self) -> list[tuple[int, int, int | None]]:
        return [w for w in self.winners if w[1] != w[2]]

    def unexplained(self) -> list[str]:
        """What went wrong that no fault explains (:func:`unexplained`)."""
        return unexplained(self.per_question, self.faulted, self.wrong_winners, self.broken)


class QuestionWindows:
    """Per question, what the runtime ruled and whether a fault touched it.

    A question's window runs from its start to the next one's (a listener may hear
    a late press just after the host's judge command came back). It counts as
    faulted when a source was out at its start or its end, a fault was raised in
    it, or an input was delivered behind the decided time in it — which, with no
    broken promise (counted apart, never excused), only a faulted source does.
    The runtime's thread moves its counters while this one reads them, so one
    step's consequences can straddle two windows (its behind input counted in
    one, the press it made late in the next): the question after a faulted one
    is excused too.
    """

    def __init__(self, record: LiveRecord, runtime: Runtime) -> None:
        self.record = record
        self.runtime = runtime
        #: Per question (1-based): (presses ruled late, inputs delivered behind).
        self.per_question: dict[int, tuple[int, int]] = {}
        #: Per question: inputs stamped before their own source's watermark (a defect).
        self.broken: dict[int, int] = {}
        self.faulted: set[int] = set()
        self._touched: set[int] = set()
        self._opened: tuple[int, tuple[int, int, int, int], bool] | None = None
        self._first = 0

    def _counters(self) -> tuple[int, int, int, int]:
        with self.record.lock:
            late = self.record.late
        stats = self.runtime.stats
        return late, stats.behind, stats.faults, stats.broken_promises

    def open(self, number: int) -> None:
        self.close()
        faulted_at_start = bool(self.runtime.faulted)
        self._opened = (number, self._counters(), faulted_at_start)
        with self.record.lock:
            self._first = len(self.record.recognized)

    def late_so_far(self) -> int:
        """Presses ruled late since the open question's start."""
        assert self._opened is not None
        with self.record.lock:
            return self.record.late - self._opened[1][0]

    def decide(self, presses: int, what: str) -> int | None:
        """The seat the open question recognized — or None when the runtime ruled every
        one of its ``presses`` late (an input starved beyond the wait bound all through
        them: a faulted question), and then the host calls the question dead."""
        _wait(
            lambda: len(self.record.recognized) > self._first or self.late_so_far() >= presses,
            what,
        )
        with self.record.lock:
            if len(self.record.recognized) > self._first:
                return self.record.recognized[self._first]
        with contextlib.suppress(CommandRefused):  # its window's deadline closed it already
            host(self.runtime, Timeout)
        return None

    def close(self) -> None:
        if self._opened is None:
            return
        number, before, faulted_at_start = self._opened
        self._opened = None
        after = self._counters()
        late, behind, faults, broken = (a - b for a, b in zip(after, before, strict=True))
        self.per_question[number] = (late, behind)
        if broken:
            self.broken[number] = broken
        if faulted_at_start or faults or behind or self.runtime.faulted:
            self._touched.add(number)
        if number in self._touched or number - 1 in self._touched:
            self.faulted.add(number)


def unexplained(
    per_question: dict[int, tuple[int, int]],
    faulted: set[int],
    wrong_winners: list[tuple[int, int, int | None]],
    broken: dict[int, int] | None = None,
) -> list[str]:
    """What went wrong that no fault of the runtime's explains: each is a defect.

    A source starved beyond the wait bound (a thread the OS did not run for
    hundreds of ms while the rest of the process ran) is, by design, a fault:
    journaled, shown to the host, and a press it delivers for a time already
    decided is ruled ``late`` (``buzzer/runtime/runtime.py``). That is the
    load the test injected, measured by the runtime itself; a late press, a
    press behind the decided time or a later press winning in a question
    *without* a fault is the runtime breaking its promise — and so, in any
    question, is an input stamped before its own source's watermark.
    """
    out = [
        f"question {q}: {n} inputs stamped before their own source's watermark"
        for q, n in sorted((broken or {}).items())
    ]
    out += [
        f"question {q}: {late} ruled late, {behind} delivered behind"
        for q, (late, behind) in sorted(per_question.items())
        if (late or behind) and q not in faulted
    ]
    out += [
        f"question {q}: seat {won} beat seat {first}"
        for q, first, won in wrong_winners
        if q not in faulted
    ]
    return out


def header(seats: int, questions: int) -> dict[str, Any]:
    themes = max(1, (questions + 9) // 10)
    return {
        "rules": "sport-no-false-start",
        "players": [f"P{i}" for i in range(1, seats + 1)],
        "board": {"themes": themes, "prices": [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]},
        "settle_ms": 0,
        "seed": 7,
    }


def play(
    tmp_path: Path,
    questions: int,
    *,
    delay_s: float = 0.0,
    seats: int = 10,
    after_signal_s: float = 0.0002,
    seed: int = 1,
    around: Any = None,
) -> Outcome:
    """Play ``questions`` questions through the live path; every player presses each."""
    base = load_pinmap(example_path())
    players = {seat: ButtonPin(str(seat), pin) for seat, pin in enumerate(PLAYER_PINS[:seats], 1)}
    pinmap = replace(
        base,
        players=players,
        podium_lamps={},
        loopback={},
        hold_off_ns=0,
    )
    factory = mock_factory()
    path = tmp_path / f"fair-{seed}-{delay_s}.sqlite"
    store = SlowJournal(path, delay_s)
    controller = Controller.new(header(seats, questions), store)
    outcome = Outcome(journal=path)
    record = LiveRecord()
    controller.subscribe(record)
    runtime = Runtime(controller).start()
    attached = attach_gpio(runtime, pinmap, factory)
    pins = {seat: factory.pin(pin.pin) for seat, pin in players.items()}
    rng = random.Random(seed)
    stack = contextlib.ExitStack()
    if around is not None:
        stack.enter_context(around(runtime))
    # A release shorter than the glitch check is a drop-out, not a release: the
    # buttons go up a little longer than that before the next signal.
    up_ns = pinmap.glitch_ns + 500_000
    released_at = 0

    windows = QuestionWindows(record, runtime)
    try:
        for number in range(questions):
            windows.open(number + 1)
            host(runtime, lambda t: Select(t, None, None), ReadingStart)
            order = list(players)
            rng.shuffle(order)
            while time.monotonic_ns() < released_at + up_ns:
                time.sleep(0.0002)
            signal = runtime.command(ReadingEnd)
            spin_until = time.perf_counter() + after_signal_s
            while time.perf_counter() < spin_until:
                pass
            for seat in order:
                pins[seat].drive_low()
            outcome.presses += len(order)
            runtime.wait(signal)
            won = windows.decide(len(order), f"question {number + 1} decided")
            outcome.winners.append((number + 1, order[0], won))
            for pin in pins.values():
                pin.drive_high()  # every button up (a release each)
            released_at = time.monotonic_ns()
            if won is not None:
                host(runtime, lambda t: Judge(t, True))
            outcome.questions += 1
        for pin in pins.values():
            pin.drive_high()
        runtime.settle()
        windows.close()
    finally:
        stack.close()
        attached.close()
        runtime.stop()
        outcome.behind = runtime.stats.behind
        outcome.faults = runtime.stats.faults
        store.close()
    outcome.live_decisions = record.decisions
    outcome.late = record.late
    outcome.per_question, outcome.faulted = windows.per_question, windows.faulted
    outcome.broken = windows.broken
    return outcome


def host(runtime: Runtime, *makes: Any) -> None:
    for make in makes:
        runtime.wait(runtime.command(make), timeout=30)


def _wait(check: Any, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.0005)


def replayed_decisions(journal: Path) -> list[str]:
    """The decisions a replay of the journal makes after the game's start (no result line).

    The decisions made at the start (before any input) are left out: a live
    listener subscribes after them.
    """
    from buzzer.core import GameCore
    from buzzer.journal.codec import parse_header
    from buzzer.replay import replay_lines

    with JournalStore(journal) as store:
        lines = list(store.lines())
    at_start = len(GameCore(parse_header(lines[0])).started)
    out = [line for line in replay_lines(lines) if json.loads(line).get("type") != "result"]
    return out[at_start:]


def journaled_faults(journal: Path) -> int:
    """How many times the journal says an input source's watermark stalled (its fault lines)."""
    with JournalStore(journal) as store:
        rows = [json.loads(line) for line in store.lines()]
    return sum(
        1
        for r in rows
        if r.get("type") == "fault"
        and r.get("state") == "stalled"
        and "watermark" in str(r.get("detail", ""))
    )
