"""The runtime in event time, stepped by hand on a clock the test moves.

Each test plays a source whose watermark it controls, so every claim is about
the runtime's rule, not about this machine's speed: a press still on its way
holds the decision back; the core's time never passes a watermark; a source
that stops proving its time is a journaled fault, and what it delivers late is
ruled late, never dropped; the time the whole process stood still is not a
source's fault. (tests/buzzer/runtime/test_runtime_fairness.py runs the same promise through
the started thread with real faults injected.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from buzzer.arbiter.events import Input, Press, ReadingEnd, Release, Select
from buzzer.journal.store import JournalStore
from buzzer.panel.demo import demo_header
from buzzer.replay import replay_lines
from buzzer.runtime.controller import Controller
from buzzer.runtime.merge import EventTimeMerge
from buzzer.runtime.runtime import Accepted, CommandRefused, Runtime
from buzzer.runtime.stalls import StallWatch

MS = 1_000_000
S = 1_000_000_000


class FakeClock:
    def __init__(self) -> None:
        self.ns = 100 * S

    def __call__(self) -> int:
        return self.ns


class ManualSource:
    """A source the test drives: it delivers what it is told, proves what it is told."""

    def __init__(self, runtime: Runtime, name: str = "pins") -> None:
        self.runtime = runtime
        self.name = name
        self.mark: int | None = None
        runtime.add_source(self)

    def watermark(self) -> int | None:
        return self.mark

    def deliver(self, item: Press | Release) -> None:
        self.runtime.deliver(self, item)


class Game:
    def __init__(self, tmp_path: Path, wait_bound_ns: int = 100 * MS) -> None:
        self.clock = FakeClock()
        self.store = JournalStore(tmp_path / "game.sqlite")
        header = {**demo_header("tv-modern"), "settle_ms": 0}  # as `svoyak run` writes it
        self.controller = Controller.new(header, self.store, self.clock)
        self.runtime = Runtime(self.controller, wait_bound_ns=wait_bound_ns)
        self.pins = ManualSource(self.runtime)

    def now(self) -> int:
        return self.controller.now()

    def advance(self, ns: int) -> None:
        self.clock.ns += ns

    def open_window(self) -> int:
        """Select a question and end its reading; returns the window's opening (game ns)."""
        self.host(lambda t: Select(t, 1, 100))
        self.advance(MS)
        self.host(lambda t: ReadingEnd(t))
        opened = json.loads(list(self.store.lines())[-1])["t"]
        return round(opened * 1e9)

    def host(self, make: Callable[[int], Input]) -> Accepted:
        """A host command stamped now, decided once the pins have proven their time past it."""
        future = self.runtime.command(make)
        self.pins.mark = self.now() + 1
        accepted = self.runtime.wait(future)
        assert isinstance(accepted, Accepted)
        return accepted

    def journal(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in self.store.lines()]


def test_a_press_still_on_its_way_holds_the_decision(tmp_path: Path) -> None:
    game = Game(tmp_path)
    opened = game.open_window()
    # Seat 3 pressed 0.2 ms after the window opened; its bytes are slow. Seat 2
    # pressed later, but its delivery came first.
    game.advance(3 * MS)
    game.pins.deliver(Press(opened + 2 * MS, 2))
    game.pins.mark = opened + 1 * MS  # the pins have proven only up to here
    game.runtime.step()
    assert game.controller.snapshot()["answering"] is None  # nothing decided yet
    game.pins.deliver(Press(opened + 200_000, 3))
    game.pins.mark = game.now()
    game.runtime.step()
    assert game.controller.snapshot()["answering"] == 3
    presses = [x for x in game.journal() if x.get("type") == "press"]
    assert [p["seat"] for p in presses] == [3, 2]  # the journal is in event time


def test_the_core_never_ticks_past_the_minimum_watermark(tmp_path: Path) -> None:
    game = Game(tmp_path, wait_bound_ns=60 * S)  # a patient bound: no fault here
    opened = game.open_window()
    # The window (3 s) is long over on the clock, but the pins have proven only 1 s:
    # the window must not close, a press may still come.
    game.advance(10 * S)
    game.pins.mark = opened + 1 * S
    game.runtime.step()
    assert game.controller.snapshot()["stage"] != "board"
    ticks = [x["t"] for x in game.journal() if x.get("type") == "tick"]
    assert all(t * 1e9 <= opened + 1 * S + 1 for t in ticks)
    game.pins.deliver(Press(opened + 2 * S, 1))
    game.pins.mark = game.now()
    game.runtime.step()
    assert game.controller.snapshot()["answering"] == 1  # 2 s into a 3 s window: in time


def test_a_silent_source_is_a_journaled_fault_and_its_late_press_is_ruled_late(
    tmp_path: Path,
) -> None:
    game = Game(tmp_path, wait_bound_ns=100 * MS)
    opened = game.open_window()
    game.pins.mark = opened
    game.advance(50 * MS)
    game.runtime.step()
    assert game.runtime.faulted == frozenset()  # 50 ms behind: still waited for
    game.advance(6 * S)
    game.runtime.step()
    assert game.runtime.faulted == {"pins"}
    faults = [x for x in game.journal() if x.get("type") == "fault"]
    assert faults and faults[0]["source"] == "pins" and faults[0]["state"] == "stalled"
    assert game.controller.snapshot()["stage"] == "board"  # the game went on without it
    # The stalled source wakes up with a press from inside the closed window.
    game.pins.deliver(Press(opened + 1 * S, 2))
    game.pins.mark = game.now()
    game.runtime.step()
    assert game.runtime.stats.behind == 1
    assert game.runtime.stats.broken_promises == 0  # faulted: excused, not a lie
    assert game.runtime.stats.late_presses == 1
    journal = game.journal()
    assert any(x.get("type") == "press" and x["seat"] == 2 for x in journal)  # not dropped
    back = [x for x in journal if x.get("type") == "fault" and x["state"] == "back"]
    assert back and back[0]["source"] == "pins"
    assert game.runtime.faulted == frozenset()
    replay_lines(list(game.store.lines()))  # the live journal replays


def test_an_input_stamped_before_its_own_sources_watermark_is_a_broken_promise(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Behind because the source lied, not because it was faulted: counted apart.

    The fairness tests excuse a press delivered behind only where the source
    was faulted; one stamped before what its own source had proven complete
    is a defect in that source whatever the machine's load, and says so.
    """
    game = Game(tmp_path)
    opened = game.open_window()
    game.advance(10 * MS)
    game.pins.mark = game.now()  # "nothing before now will still come"
    game.runtime.step()
    assert game.runtime.faulted == frozenset()
    game.pins.deliver(Press(opened + 2 * MS, 4))  # ... and then it does
    game.runtime.step()
    assert game.runtime.stats.behind == 1
    assert game.runtime.stats.broken_promises == 1
    assert "pins broke its watermark" in caplog.text


def test_a_source_with_no_proof_at_all_is_a_fault_too(tmp_path: Path) -> None:
    game = Game(tmp_path)
    game.pins.mark = None  # unplugged before anything was heard
    game.runtime.step()
    assert game.runtime.faulted == {"pins"}
    fault = next(x for x in game.journal() if x.get("type") == "fault")
    assert "not connected" in str(fault["detail"])


def test_time_the_whole_process_stood_still_is_not_a_sources_fault(tmp_path: Path) -> None:
    game = Game(tmp_path, wait_bound_ns=100 * MS)
    game.open_window()
    start = game.clock.ns
    game.pins.mark = game.now()
    # A 300 ms garbage collection: no thread of the process ran, the pins could not report.
    game.advance(300 * MS)
    game.runtime.stalls.stalled(start, game.clock.ns)
    game.advance(20 * MS)
    game.runtime.step()
    assert game.runtime.faulted == frozenset()
    # The same lag without a stall is a fault.
    game.pins.mark = game.now()
    game.advance(320 * MS)
    game.runtime.step()
    assert game.runtime.faulted == {"pins"}


def test_a_refused_host_command_is_never_journaled(tmp_path: Path) -> None:
    game = Game(tmp_path)
    lines = len(game.store)
    future = game.runtime.command(lambda t: ReadingEnd(t))  # no question is open
    game.pins.mark = game.now() + 1
    try:
        game.runtime.wait(future)
    except CommandRefused as refused:
        assert refused.message
    else:
        raise AssertionError("reading_end with no question must be refused")
    assert len(game.store) == lines


def test_stalled_between_counts_overlapping_stalls_once() -> None:
    watch = StallWatch(clock=lambda: 0, threshold_ns=MS)
    watch.stalled(10 * MS, 30 * MS)
    watch.stalled(20 * MS, 40 * MS)  # overlaps the first
    watch.stalled(100 * MS, 100 * MS + 500_000)  # shorter than the threshold: not a stall
    assert watch.stalled_between(0, 50 * MS) == 30 * MS
    assert watch.stalled_between(25 * MS, 35 * MS) == 10 * MS
    assert watch.stalled_between(50 * MS, 200 * MS) == 0


def test_a_gpio_edge_in_flight_holds_the_decision_and_then_wins(tmp_path: Path) -> None:
    """The GPIO source's watermark is its bank's proof: while an edge is in
    flight (no proof) time stands still for the core; the edge, once it
    arrives, is decided at its own stamp and wins over a later press."""
    game = Game(tmp_path)
    proofs: list[int | None] = []
    gpio = game.runtime.edge_source("gpio")
    gpio.proof = lambda: proofs[-1] if proofs else game.clock.ns + 1
    opened = game.open_window()
    game.pins.mark = None  # the manual source leaves: only the GPIO proof counts
    game.runtime.remove_source(game.pins)
    early = game.controller.t0_ns + opened + 1 * MS  # a host monotonic stamp
    game.advance(3 * MS)
    proofs.append(None)  # in flight: the level moved, the callback has not run
    for _ in range(5):
        game.advance(10 * MS)
        game.runtime.step()
    assert game.controller.snapshot()["answering"] is None
    gpio.put(Press(early + 30 * MS, 2))  # a later press arrives first
    game.runtime.step()
    assert game.controller.snapshot()["answering"] is None
    gpio.put(Press(early, 1))  # the edge in flight
    proofs.append(game.clock.ns + 1)
    game.runtime.step()
    assert game.controller.snapshot()["answering"] == 1
    assert game.runtime.stats.late_presses == 0 and game.runtime.stats.faults == 0
    assert gpio.held == 6  # every step while the edge was in flight


stamps = st.lists(
    st.tuples(st.integers(0, 50), st.integers(1, 6), st.booleans()), min_size=1, max_size=40
)


@given(items=stamps, marks=st.lists(st.integers(0, 60), min_size=1, max_size=10))
@settings(max_examples=200, deadline=None)
def test_the_merge_releases_in_time_order_and_never_behind_a_watermark(
    items: list[tuple[int, int, bool]], marks: list[int]
) -> None:
    """Whatever the arrival order: released in (time, priority) order, each only
    once the watermark passed it, and nothing released twice or lost."""
    merge: EventTimeMerge[int] = EventTimeMerge()
    for n, (t, seat, pressed) in enumerate(items):
        merge.add(Press(t, seat) if pressed else Release(t, seat), n)
    out: list[tuple[int, int]] = []
    high = -1
    for mark in marks:
        high = max(high, mark)
        released = merge.release(mark)
        assert all(item.t < high for item, _ in released)
        out += [(item.t, item.PRIORITY) for item, _ in released]
    out += [(item.t, item.PRIORITY) for item, _ in merge.release_all()]
    assert out == sorted(out)
    assert len(out) == len(items)


def test_the_first_press_wins_whatever_order_the_bytes_arrive(tmp_path: Path) -> None:
    """Three presses delivered latest-first within one watermark step."""
    game = Game(tmp_path)
    opened = game.open_window()
    game.advance(10 * MS)
    for offset, seat in [(3 * MS, 1), (2 * MS, 2), (1 * MS, 3)]:
        game.pins.deliver(Press(opened + offset, seat))
    game.pins.mark = game.now()
    game.runtime.step()
    assert game.controller.snapshot()["answering"] == 3
    assert game.runtime.stats.late_presses == 0


def test_a_nudge_decides_a_held_press_at_once_not_at_the_next_poll(tmp_path: Path) -> None:
    """The Pico link nudges the runtime when its watermark moves (``on_watermark``):
    with a poll of 30 s, only the nudge can decide the held press in time."""
    store = JournalStore(tmp_path / "game.sqlite")
    header = {**demo_header("tv-modern"), "settle_ms": 0}
    controller = Controller.new(header, store)
    runtime = Runtime(controller, poll_s=30.0, idle_s=30.0)
    pins = ManualSource(runtime)
    pins.mark = controller.now() + 3600 * S  # the host's commands need not wait for it
    runtime.start()
    try:
        runtime.wait(runtime.command(lambda t: Select(t, 1, 100)))
        runtime.wait(runtime.command(ReadingEnd))
        stamp = controller.now()
        pins.mark = stamp  # nothing proven past the press yet: it is held
        future = runtime.deliver(pins, Press(stamp + 1, 2))
        with pytest.raises(FutureTimeout):
            future.result(timeout=0.3)
        pins.mark = stamp + 2
        runtime.nudge()
        assert isinstance(future.result(timeout=10), Accepted)
        assert controller.snapshot()["answering"] == 2
    finally:
        runtime.stop()
        store.close()


def test_a_sources_fault_is_an_alert_on_the_hosts_panel_until_it_is_back(
    tmp_path: Path,
) -> None:
    from buzzer.panel.hub import PanelHub

    game = Game(tmp_path, wait_bound_ns=100 * MS)
    hub = PanelHub(game.runtime.commands)
    opened = game.open_window()
    game.pins.mark = opened
    game.advance(1 * S)
    game.runtime.step()
    (alert,) = [a for a in hub.alerts if a["kind"] == "source"]
    assert alert["source"] == "pins" and "behind the clock" in str(alert["detail"])
    # The page words it from these, in the host's language (panel.alert.source.silent).
    assert alert["why"] == "silent" and alert["ms"] == 1000
    game.pins.mark = game.now()
    game.runtime.step()
    assert [a for a in hub.alerts if a["kind"] == "source"] == []


def test_a_starved_press_earlier_than_the_winner_s_is_ruled_late_with_its_margins(
    tmp_path: Path,
) -> None:
    """Seat 2 pressed 1.2 ms before seat 1, but its input's thread was starved and
    its press reached the game 0.76 s late: the runtime faulted the source after
    its wait bound and gave seat 1 the floor. The ruling stands, and says so:
    late by how much (past the last instant the game had decided), earlier than
    whom by how much (the host's alert reads it); the journal holds the press and
    the fault, and its replay says the same."""
    game = Game(tmp_path, wait_bound_ns=100 * MS)
    starved = ManualSource(game.runtime, "gpio-2")
    starved.mark = game.now() + 60 * S  # it proves its time until its thread starves
    opened = game.open_window()
    starved.mark = opened  # from here on its thread does not run
    game.advance(3 * MS)
    game.pins.deliver(Press(opened + 2_200_000, 1))
    game.advance(200 * MS)
    game.pins.mark = game.now()  # the other buttons' thread runs
    game.runtime.step()
    assert game.runtime.faulted == {"gpio-2"}
    assert game.controller.snapshot()["answering"] == 1
    game.advance(560 * MS)
    game.pins.mark = game.now()
    starved.deliver(Press(opened + 1_000_000, 2))  # pressed 1.2 ms before seat 1
    starved.mark = game.now()
    game.runtime.step()
    assert game.runtime.stats.late_presses == 1
    assert game.controller.snapshot()["answering"] == 1  # the decision stands
    journal = game.journal()
    assert [x["seat"] for x in journal if x.get("type") == "press"] == [1, 2]
    assert [x["state"] for x in journal if x.get("type") == "fault"] == ["stalled", "back"]
    out = [json.loads(line) for line in replay_lines(list(game.store.lines()))]
    (late,) = [x for x in out if x.get("type") == "ignored" and x["seat"] == 2]
    assert late["reason"] == "late"
    assert (late["ahead_of"], late["ahead_us"]) == (1, 1200)
    # How far past its stamp the game had decided when it came: the stalled fault's
    # line, the last before it, 203 ms after the window opened.
    before = max(x["t"] for x in journal if x.get("type") == "fault" and x["state"] == "stalled")
    assert late["late_us"] == (round(before * 1e9) - round(late["t"] * 1e9)) // 1000, late
    assert late["late_us"] > 200_000
