"""Buttons on gpiozero's MockFactory: edge stamps, hold-off, stuck buttons, host buttons.

Every press must carry the time of its edge (the pin's ``ticks``), never the
time its callback ran: :class:`DeferredPin` holds the callbacks back and
delivers them late and out of order, and the presses still say when and in
which order the contacts closed.
"""

from __future__ import annotations

import itertools
import queue
import time

import gpiozero.pins.mock  # type: ignore[import-untyped]
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin
from gpiozero.pins.pi import PiPin

from buzzer.arbiter.decisions import Decision, Recognized
from buzzer.arbiter.events import (
    Input,
    Judge,
    Press,
    ReadingEnd,
    ReadingStart,
    Release,
    Select,
    Tick,
)
from buzzer.core import GameCore
from hardware.buttons import ButtonBank, ButtonEvent, ButtonFreed, ButtonStuck, EdgeFilter
from hardware.edgeclock import (
    DetectedTicks,
    MonotonicTicks,
    UnsupportedPinFactory,
    edge_clock_for,
)
from hardware.pinmap import PinMap, parse_pinmap
from rules.game import GameSetup
from rules.profiles import find_rules

MS = 1_000_000
S = 1_000_000_000


def pinmap(hold_off_ms: float = 20, stuck_s: float = 10, glitch_ms: float = 1) -> PinMap:
    return parse_pinmap(
        {
            "timing": {
                "hold_off_ms": hold_off_ms,
                "stuck_after_s": stuck_s,
                "glitch_ms": glitch_ms,
            },
            "players": {"1": 17, "2": 27, "3": {"pin": 22, "pull": "down"}},
            "host": {"reading_start": 5, "reading_end": 6, "correct": 13, "wrong": 19},
        },
        "test.toml",
    )


def drain(q: queue.SimpleQueue[ButtonEvent]) -> list[ButtonEvent]:
    got = []
    while not q.empty():
        got.append(q.get_nowait())
    return got


def ns(ticks: float) -> int:
    return round(ticks * 1e9)


class DeferredPin(MockPin):  # type: ignore[misc]
    """A mock pin whose edge callbacks wait until :meth:`deliver` (a busy callback thread)."""

    def _call_when_changed(self) -> None:
        if not hasattr(self, "pending"):
            self.pending = []
        self.pending.append((self._last_change, self._state))

    def deliver(self) -> None:
        for ticks, state in self.pending:
            PiPin._call_when_changed(self, ticks, state)
        self.pending = []


# -- EdgeFilter: the pure logic -------------------------------------------------------


def test_the_first_edge_is_taken_at_once_and_bounces_are_ignored() -> None:
    f = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=False, now=0)
    assert f.edge(1000, True) == [("press", 1000)]
    for t, level in [(1100, False), (1300, True), (1400, False), (1600, True)]:
        assert f.edge(t, level) == []  # bounce inside the hold-off
    assert f.edge(500 * MS, False) == [("release", 500 * MS)]
    assert f.edge(500 * MS + 50, True) == []  # release bounce
    assert f.edge(500 * MS + 90, False) == []
    assert f.edge(900 * MS, True) == [("press", 900 * MS)]


def test_a_change_hidden_in_the_hold_off_is_reported_at_its_own_time() -> None:
    f = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=False, now=0)
    assert f.edge(1 * MS, True) == [("press", 1 * MS)]
    assert f.edge(8 * MS, False) == []  # a 7 ms tap: released inside the hold-off
    assert f.next_wakeup() == 21 * MS
    assert f.poll(20 * MS) == []
    assert f.poll(21 * MS) == [("release", 8 * MS)]
    # ...or at the next edge, if that comes first
    g = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=False, now=0)
    g.edge(1 * MS, True)
    g.edge(8 * MS, False)
    assert g.edge(40 * MS, True) == [("release", 8 * MS), ("press", 40 * MS)]


def test_stuck_then_excluded_until_released() -> None:
    f = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=False, now=0)
    f.edge(1 * S, True)
    assert f.next_wakeup() == 11 * S
    assert f.poll(11 * S - 1) == []
    assert f.poll(11 * S) == [("stuck", 11 * S)]
    assert f.stuck
    assert f.poll(20 * S) == []  # reported once
    assert f.edge(30 * S, False) == [("release", 30 * S), ("freed", 30 * S)]
    assert not f.stuck
    assert f.edge(31 * S, True) == [("press", 31 * S)]


def test_a_button_down_at_the_start_is_not_a_press_but_can_be_stuck() -> None:
    f = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=True, now=5 * S)
    assert f.held_at_start
    assert f.poll(15 * S) == [("stuck", 15 * S)]
    assert f.edge(16 * S, False) == [("freed", 16 * S)]  # no press was reported: no release
    assert not f.held_at_start


# -- the glitch check (issue 15): a level check 1 ms after the first edge -----------------

US = 1_000


def test_a_1_us_spike_is_not_a_press() -> None:
    f = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=False, now=0, glitch_ns=1 * MS)
    assert f.edge(5 * MS, True) == []
    assert f.edge(5 * MS + 1 * US, False) == []  # the line is back up a microsecond later
    assert f.next_wakeup() == 6 * MS
    assert f.poll(6 * MS) == []
    assert f.pending_since is None and not f.down
    # nothing was reported, so no hold-off either: a real press right after counts at once
    assert f.edge(6 * MS + 10 * US, True) == []
    assert f.poll(7 * MS + 10 * US) == [("press", 6 * MS + 10 * US)]


def test_a_press_is_confirmed_at_its_check_with_its_first_edges_stamp() -> None:
    f = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=False, now=0, glitch_ns=1 * MS)
    assert f.edge(1 * MS, True) == []
    assert f.pending_since == 1 * MS
    assert f.poll(2 * MS - 1) == []  # a nanosecond before the check: still a candidate
    assert f.poll(2 * MS) == [("press", 1 * MS)]
    assert f.pending_since is None and f.down


def test_the_level_at_the_check_decides_bounces_before_it_do_not() -> None:
    f = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=False, now=0, glitch_ns=1 * MS)
    f.edge(1 * MS, True)
    for t, level in [(1 * MS + 50 * US, False), (1 * MS + 80 * US, True)]:
        assert f.edge(t, level) == []  # a bouncing contact, closed again long before the check
    # the next edge, after the check, decides the candidate from the level before it
    assert f.edge(3 * MS, False) == [("press", 1 * MS)]
    # ...and a contact open at the very instant of the check loses that candidate
    g = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=False, now=0, glitch_ns=1 * MS)
    g.edge(1 * MS, True)
    g.edge(1 * MS + 900 * US, False)
    assert g.edge(2 * MS + 100 * US, True) == []  # open at 2 ms: dropped; this is a new candidate
    assert g.poll(3 * MS + 100 * US) == [("press", 2 * MS + 100 * US)]


def test_an_edge_exactly_at_the_check_counts_as_the_level_there() -> None:
    f = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=False, now=0, glitch_ns=1 * MS)
    f.edge(1 * MS, True)
    assert f.edge(2 * MS, False) == []  # released at the check instant: not held for 1 ms
    assert f.poll(10 * MS) == []


def test_releases_pass_the_same_check_so_a_dropout_while_held_is_not_a_new_press() -> None:
    f = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=False, now=0, glitch_ns=1 * MS)
    f.edge(1 * MS, True)
    assert f.poll(2 * MS) == [("press", 1 * MS)]
    assert f.edge(100 * MS, False) == []  # a 1 µs drop-out of a held button
    assert f.edge(100 * MS + 1 * US, True) == []
    assert f.poll(200 * MS) == []
    assert f.edge(300 * MS, False) == []  # the real release, confirmed at its check
    assert f.poll(301 * MS) == [("release", 300 * MS)]


def test_a_change_hidden_in_the_hold_off_is_checked_too() -> None:
    f = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=False, now=0, glitch_ns=1 * MS)
    f.edge(1 * MS, True)
    f.poll(2 * MS)
    f.edge(20 * MS + 600 * US, False)  # released 0.4 ms before the hold-off ends
    assert f.next_wakeup() == 21 * MS + 600 * US  # not at the hold-off's end: at the check
    assert f.poll(21 * MS) == []
    assert f.poll(21 * MS + 600 * US) == [("release", 20 * MS + 600 * US)]


def test_no_glitch_check_takes_every_change_at_once() -> None:
    f = EdgeFilter(hold_off_ns=20 * MS, stuck_ns=10 * S, active=False, now=0, glitch_ns=0)
    assert f.edge(1 * MS, True) == [("press", 1 * MS)]


def test_on_mock_pins_a_spike_is_never_a_press_and_a_held_button_is() -> None:
    factory = MockFactory()
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    # The watchdog thread runs the checks by itself, as in a game.
    with ButtonBank(pinmap(glitch_ms=1), factory, inputs.put) as bank:
        pin = factory.pin(17)
        wide: set[int] = set()  # spikes this machine stretched past the check
        for _ in range(20):
            pin.drive_low()  # back to back: a spike of a few microseconds...
            low = ns(pin._last_change)
            pin.drive_high()
            if ns(pin._last_change) - low >= 1_000_000:
                wide.add(low)  # ...unless a busy CPU held this thread for a ms between them
            time.sleep(0.003)
        if wide:
            time.sleep(0.1)  # a stretched spike's release comes after its hold-off
        events = drain(inputs)
        presses = [e.t for e in events if isinstance(e, Press)]
        assert len(wide) < 20, "every spike was stretched: this run tested nothing"
        # A spike held under 1 ms is never a press; one the scheduler stretched
        # past 1 ms is, rightly, a press by the pin's own stamps.
        assert set(presses) <= wide
        assert bank.proven_until() is not None
        pin.drive_low()
        stamp = ns(pin._last_change)
        press = inputs.get(timeout=5)
    assert press == Press(stamp, 1, len(events) + 1)  # refs count the bank's events


def test_a_spikes_end_still_in_flight_holds_the_check() -> None:
    factory = MockFactory(pin_class=DeferredPin)
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    with ButtonBank(pinmap(), factory, inputs.put, watchdog=False) as bank:
        pin = factory.pin(27)
        pin.pending = []
        pin.drive_low()
        stamp = ns(pin._last_change)
        pin.deliver()  # the spike's first edge is in...
        pin.drive_high()  # ...its end waits in a busy callback thread
        bank.poll(stamp + 5 * MS)
        assert drain(inputs) == [], "the pin reads up: deciding now would take a spike for a press"
        pin.deliver()
        bank.poll(stamp + 5 * MS)
        assert drain(inputs) == []
        assert bank.proven_until() is not None


def test_the_pin_map_sets_the_glitch_check() -> None:
    assert pinmap().glitch_ns == 1 * MS
    assert pinmap(glitch_ms=0).glitch_ns == 0
    factory = MockFactory()
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    with ButtonBank(pinmap(glitch_ms=0), factory, inputs.put, watchdog=False):
        factory.pin(17).drive_low()
        assert [type(e) for e in drain(inputs)] == [Press]  # no check: at once


# -- the bank on mock pins ----------------------------------------------------------


def test_presses_carry_the_edge_stamp_not_the_callback_time() -> None:
    factory = MockFactory(pin_class=DeferredPin)
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    with ButtonBank(pinmap(), factory, inputs.put, watchdog=False) as bank:
        one, two = factory.pin(17), factory.pin(27)
        one.pending, two.pending = [], []
        one.drive_low()  # seat 1 presses first...
        time.sleep(0.002)
        two.drive_low()  # ...seat 2 two milliseconds later
        edge_one, edge_two = ns(one.pending[0][0]), ns(two.pending[0][0])
        assert inputs.empty()  # the callbacks have not run yet
        time.sleep(0.02)
        delivered_at = time.monotonic_ns()
        two.deliver()  # the callbacks run late, and seat 2's first
        bank.poll()  # seat 1's pin reads down but its edge is not in: only seat 2 is checked
        one.deliver()
        bank.poll()
        arrived = drain(inputs)
    assert [type(e) for e in arrived] == [Press, Press]
    second, first = arrived
    assert isinstance(first, Press) and isinstance(second, Press)
    assert (first.seat, first.t) == (1, edge_one)
    assert (second.seat, second.t) == (2, edge_two)
    assert first.t < second.t < delivered_at - 15 * MS

    # Fed to the core in arrival order (seat 2 first), the earlier edge still wins. (A settle
    # window of 1 s: however long the sleep above took, the presses are within it.)
    settle = 1 * S
    setup = GameSetup(find_rules("tv-modern"), ("a", "b", "c"), chooser=1, settle_ns=settle)
    core = GameCore(setup)
    out: list[Decision] = []
    t0 = first.t - 100 * MS
    items: list[Input] = [Select(t0, 1, 100), ReadingStart(t0 + 1), ReadingEnd(t0 + 2)]
    for item in items + [e for e in arrived if isinstance(e, Press)]:
        core.push(item, out)
    core.push(Tick(second.t + settle + 1), out)
    assert [d.seat for d in out if isinstance(d, Recognized)] == [1]


def test_a_bouncing_press_is_confirmed_with_its_first_edges_stamp_the_rest_ignored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The mock pins stamp each change from a clock this test moves, 50 µs a change:
    # four real bounces once took a loaded machine past the check's millisecond, and
    # the check then rightly read the contact open.
    start = time.monotonic()
    changes = itertools.count()
    monkeypatch.setattr(gpiozero.pins.mock, "monotonic", lambda: start + next(changes) * 50e-6)
    factory = MockFactory()
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    with ButtonBank(pinmap(hold_off_ms=500), factory, inputs.put, watchdog=False) as bank:
        pin = factory.pin(17)
        pin.drive_low()
        stamp = ns(pin._last_change)
        for _ in range(4):  # the contact bounces inside the glitch check's millisecond
            pin.drive_high()
            pin.drive_low()
        assert drain(inputs) == []  # a candidate until the level check
        bank.poll(stamp + 1 * MS)
        assert drain(inputs) == [Press(stamp, 1, 1)]  # the first edge's stamp, not the check's
        for _ in range(4):
            pin.drive_high()
            pin.drive_low()
        bank.poll(stamp + 100 * MS)
        assert drain(inputs) == []


def test_a_pull_down_button_presses_on_a_high_level() -> None:
    factory = MockFactory()
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    with ButtonBank(pinmap(), factory, inputs.put, watchdog=False) as bank:
        pin = factory.pin(22)
        pin.drive_high()
        bank.poll(ns(pin._last_change) + 1 * MS)
        (press,) = drain(inputs)
        assert isinstance(press, Press) and press.seat == 3


def test_host_buttons_send_host_inputs() -> None:
    factory = MockFactory()
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    with ButtonBank(pinmap(hold_off_ms=0), factory, inputs.put, watchdog=False):
        for number in (5, 6, 13, 19):
            factory.pin(number).drive_low()
            time.sleep(0.002)  # held past the glitch check: its release confirms the press
            factory.pin(number).drive_high()
        got = drain(inputs)
    assert [type(e) for e in got] == [ReadingStart, ReadingEnd, Judge, Judge]
    assert [e.correct for e in got if isinstance(e, Judge)] == [True, False]
    assert [e.t for e in got] == sorted(e.t for e in got)


def test_a_stuck_button_is_reported_and_excluded_until_released() -> None:
    factory = MockFactory()
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    # No hold-off: the release below comes at once in real time, ten "seconds" of polls later.
    with ButtonBank(pinmap(hold_off_ms=0), factory, inputs.put, watchdog=False) as bank:
        pin = factory.pin(27)
        pin.drive_low()
        bank.poll(ns(pin._last_change) + 1 * MS)
        (press,) = drain(inputs)
        assert isinstance(press, Press)
        bank.poll(press.t + 9 * S)
        assert drain(inputs) == [] and bank.stuck() == frozenset()
        bank.poll(press.t + 10 * S)
        (stuck,) = drain(inputs)
        assert stuck == ButtonStuck(press.t + 10 * S, "2", 27, press.t)
        assert stuck.seat == 2 and "held for 10.0 s" in stuck.describe()
        assert bank.stuck() == frozenset({"2"})
        pin.drive_high()
        bank.poll(ns(pin._last_change) + 1 * MS)
        release, freed = drain(inputs)
        assert isinstance(release, Release) and release.seat == 2
        assert isinstance(freed, ButtonFreed) and freed.key == "2"
        assert bank.stuck() == frozenset()


def test_the_watchdog_reports_a_stuck_button_by_itself() -> None:
    factory = MockFactory()
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    with ButtonBank(pinmap(), factory, inputs.put, stuck_ns=50 * MS):
        factory.pin(17).drive_low()
        assert isinstance(inputs.get(timeout=5), Press)
        stuck = inputs.get(timeout=5)
        assert isinstance(stuck, ButtonStuck) and stuck.key == "1"


def test_a_button_down_at_start_is_listed_and_sends_no_press() -> None:
    # An external pull-up (pull = "none"): a mock pin's internal pull would drive the level.
    external = parse_pinmap(
        {
            "players": {"1": {"pin": 17, "pull": "none", "active_low": True}},
            "host": {"reading_start": 5, "reading_end": 6},
        }
    )
    factory = MockFactory()
    factory.pin(17).drive_low()  # held down as the bank starts
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    with ButtonBank(external, factory, inputs.put, watchdog=False) as bank:
        assert bank.held_at_start() == frozenset({"1"})
        assert drain(inputs) == []
        factory.pin(17).drive_high()
        bank.poll(ns(factory.pin(17)._last_change) + 1 * MS)
        assert drain(inputs) == []  # no press was sent, so no release either
        assert bank.held_at_start() == frozenset()


def test_devices_use_the_injected_factory_only() -> None:
    before = Device.pin_factory  # None, unless another test set a global default
    factory = MockFactory()
    sink: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    with ButtonBank(pinmap(), factory, sink.put, watchdog=False) as bank:
        assert all(d.pin_factory is factory for d in bank.devices.values())
    assert Device.pin_factory is before
    with pytest.raises(ValueError, match="pin factory"):
        ButtonBank(pinmap(), None, sink.put)


def test_edge_clocks() -> None:
    assert isinstance(edge_clock_for(MockFactory()), MonotonicTicks)

    class LGPIOFactory:  # stands in for gpiozero's, found by class name
        pass

    assert isinstance(edge_clock_for(LGPIOFactory()), DetectedTicks)
    with pytest.raises(UnsupportedPinFactory, match="LGPIOFactory"):
        edge_clock_for(object())

    mono = time.monotonic_ns() - 5 * MS
    detected = DetectedTicks()
    assert detected.to_ns(mono / 1e9) == pytest.approx(mono, abs=1_000)
    assert detected.name == "monotonic"
    real = time.time_ns() - 5 * MS
    other = DetectedTicks()
    converted = other.to_ns(real / 1e9)
    assert other.name == "realtime"
    assert converted == pytest.approx(time.monotonic_ns() - 5 * MS, abs=5 * MS)


# -- the watermark: the pins' levels prove which edges have arrived --------------------


def test_the_levels_prove_every_edge_so_far_has_reached_the_sink() -> None:
    factory = MockFactory()
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    with ButtonBank(pinmap(hold_off_ms=0), factory, inputs.put, watchdog=False) as bank:
        before = time.monotonic_ns()
        proven = bank.proven_until()
        assert proven is not None and proven >= before
        factory.pin(17).drive_low()
        stamp = ns(factory.pin(17)._last_change)
        # a candidate waiting for its glitch check may still be reported at its stamp
        assert bank.proven_until() == stamp
        bank.poll(stamp + 1 * MS)
        assert [type(e) for e in drain(inputs)] == [Press]
        after = time.monotonic_ns()
        proven = bank.proven_until()
        assert proven is not None and proven >= after


def test_an_edge_whose_callback_has_not_run_holds_the_proof_until_it_arrives() -> None:
    factory = MockFactory(pin_class=DeferredPin)
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    with ButtonBank(pinmap(hold_off_ms=0), factory, inputs.put, watchdog=False) as bank:
        pin = factory.pin(27)
        pin.drive_low()  # the line is down; its callback waits (a busy callback thread)
        stamp = ns(pin._last_change)
        assert bank.proven_until() is None, "an edge in flight must hold the watermark"
        assert bank.proven_until() is None  # still: time passing proves nothing
        pin.deliver()
        bank.poll(stamp + 1 * MS)
        assert drain(inputs) == [Press(stamp, 2, 1)]
        proven = bank.proven_until()
        assert proven is not None and proven > stamp


def test_a_change_held_in_the_hold_off_caps_the_proof_at_its_own_stamp() -> None:
    factory = MockFactory()
    inputs: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
    with ButtonBank(pinmap(hold_off_ms=500), factory, inputs.put, watchdog=False) as bank:
        pin = factory.pin(17)
        pin.drive_low()
        time.sleep(0.002)  # past the glitch check: a press
        pin.drive_high()  # released inside the hold-off: reported when it ends, at this stamp
        released = ns(pin._last_change)
        drain(inputs)
        assert bank.proven_until() == released
        bank.poll(released + 600 * MS)
        assert [type(e) for e in drain(inputs)] == [Release]
        proven = bank.proven_until()
        assert proven is not None and proven > released


def test_the_simulated_pins_change_level_before_the_edge_is_stamped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As on a real line; gpiozero's own MockPin stamps first (see hardware/mockpins.py)."""
    import gpiozero.pins.mock as mock

    from hardware.mockpins import mock_factory

    factory = mock_factory()
    pin = factory.pin(17)
    pin.function = "input"
    seen: list[bool] = []
    real = mock.monotonic

    def stamp() -> float:
        seen.append(bool(pin.state))
        return real()

    level = bool(pin.state)
    monkeypatch.setattr(mock, "monotonic", stamp)
    pin.drive_low() if level else pin.drive_high()
    monkeypatch.undo()
    assert seen == [not level], "the new level must be readable when the edge is stamped"
    assert bool(pin.state) is (not level)
