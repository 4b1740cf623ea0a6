"""The PIO capture path of the firmware (firmware_bridge/firmware/logic.py): capture
words to stamps, whole-register samples to fair edges, hidden changes to
reconciled edges at their own tick, and the heartbeat watermark kept below them.

docs/wire-protocol.md, *Edge capture on the Pico* and *The heartbeat is the
watermark*. The MicroPython side (no allocation on the IRQ path) is in
tests/firmware_bridge/test_bridge_firmware_micropython.py (``ALLOC_CHECK``) and
tests/firmware_bridge/test_bridge_firmware_heartbeat.py (``HEARTBEAT_SCENARIO``).
"""

from __future__ import annotations

import contextlib
import errno
import os
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import protocol as p
from firmware_bridge.emulator import Emulator
from firmware_bridge.firmware import logic
from firmware_bridge.protocol import FrameDecoder, encode_frame

PERIOD = 1 << logic.TICKS_BITS
COUNTER = 1 << logic.CAPTURE_COUNTER_BITS


def word(loops: int, pressed: int) -> int:
    """The word the PIO pushes after ``loops`` loops with ``pressed`` buttons down:
    its down-counter's low 22 bits, then the 8 pin levels (active low)."""
    return ((-loops % COUNTER) << 8) | (~pressed & 0xFF)


def drain(ring: logic.EdgeRing) -> list[tuple[int, int, int, int]]:
    out = []
    while (edge := ring.take()) is not None:
        out.append(edge)
    return out


# -- capture words ---------------------------------------------------------------------


@given(
    base=st.integers(0, PERIOD - 1),
    loops=st.integers(0, 10 * PERIOD),
    age=st.integers(-(COUNTER // 2), COUNTER // 2 - 1),
    pressed=st.integers(0, 0xFF),
)
def test_a_capture_word_gives_its_sample_tick_within_half_the_counter_of_now(
    base: int, loops: int, age: int, pressed: int
) -> None:
    stamp = (base + loops) % PERIOD
    now = (stamp + age) % PERIOD  # the drain's tick; age < 0: the stamp is after it
    w = word(loops, pressed)
    assert 0 <= w < PERIOD  # a small int on the Pico
    assert logic.capture_stamp(w, now, base) == stamp
    assert logic.capture_levels(w) == ~pressed & 0xFF


def test_capture_stamp_across_the_counter_and_tick_wraps() -> None:
    base = PERIOD - 10  # loop 0 just before ticks_us wraps
    cases = [
        (0, 0),  # at once
        (9, 1),  # the stamp is PERIOD - 1, drained after the tick wrapped
        (10, 3),  # the stamp is 0 exactly
        (COUNTER - 1, 2),  # the 22-bit counter about to wrap...
        (COUNTER, 2),  # ...and wrapped: the word's counter is 0 again
        (COUNTER + 5, -4),  # a few µs after now (base is a midpoint estimate)
        (7 * COUNTER + 123, COUNTER // 2 - 1),  # the oldest a stamp can be
        (PERIOD + 3, -(COUNTER // 2)),  # a whole tick period on; the latest it can be
    ]
    for loops, age in cases:
        stamp = (base + loops) % PERIOD
        now = (stamp + age) % PERIOD
        assert logic.capture_stamp(word(loops, 0), now, base) == stamp, (loops, age)
    # The same sample, drained at any tick within the window, gets the same stamp.
    taken = (base + COUNTER + 5) % PERIOD
    w = word(COUNTER + 5, 0b1)
    stamps = {logic.capture_stamp(w, (taken + a) % PERIOD, base) for a in range(-8, 40)}
    assert stamps == {taken}


# -- whole-register samples: fair stamps ----------------------------------------------------


def test_buttons_that_change_in_one_sample_get_one_stamp_whatever_their_pins() -> None:
    ring = logic.EdgeRing(8, holdoff_us=10_000)
    base = 1_000
    # Buttons 6 and 1 pressed in the same µs: one word, one stamp for both.
    w = word(500, 0b0100_0010)
    ring.sample(~w & 0xFF, logic.capture_stamp(w, base + 503, base))
    assert drain(ring) == [(1, 1, 0, 1_500), (6, 1, 0, 1_500)]
    # A µs apart, the higher pin first: the stamps keep the true order.
    w1, w2 = word(700, 0b0110_0010), word(701, 0b0110_0011)
    ring.sample(~w1 & 0xFF, logic.capture_stamp(w1, base + 705, base))
    ring.sample(~w2 & 0xFF, logic.capture_stamp(w2, base + 705, base))
    assert drain(ring) == [(5, 1, 0, 1_700), (0, 1, 0, 1_701)]


def test_a_sample_with_no_change_does_nothing() -> None:
    ring = logic.EdgeRing(4, holdoff_us=10)
    ring.sample(0b0101, 100)
    ring.sample(0b0101, 200)
    ring.sample(0b1_0101, 300)  # a bit beyond the ring's buttons is ignored
    assert [e[0] for e in drain(ring)] == [0, 2]


# -- hold-off: hidden changes reconciled at their own tick -------------------------------------


def test_a_press_hidden_in_a_release_hold_off_is_reconciled_at_its_own_tick() -> None:
    ring = logic.EdgeRing(2, holdoff_us=10_000)
    ring.sample(0b01, 1_000)  # press
    ring.sample(0b00, 20_000)  # release
    ring.sample(0b01, 25_000)  # pressed again, 5 ms later: inside the release's hold-off
    ring.sample(0b11, 27_000)  # another button, after it
    assert drain(ring) == [(0, 1, 0, 1_000), (0, 0, 0, 20_000)]  # button 1 waits
    assert ring.hidden_before(28_000) == 25_000
    ring.housekeep(29_999)  # the hold-off is not over yet
    assert drain(ring) == []
    ring.housekeep(33_000)  # noticed late (a long main-loop round): stamped 25_000 still
    assert drain(ring) == [(0, 1, logic.FLAG_RECONCILED, 25_000), (1, 1, 0, 27_000)]
    assert ring.hidden_before(33_000) == 33_000
    # The reconciled press holds off from its own tick: a bounce at 34_000 is ignored.
    ring.sample(0b10, 34_000)
    ring.sample(0b11, 34_050)
    ring.housekeep(40_000)
    assert drain(ring) == []


def test_a_hidden_change_is_reconciled_by_the_buttons_next_sample_too() -> None:
    """The IRQ need not wait for the main loop: the outcome does not depend on it."""
    ring = logic.EdgeRing(1, holdoff_us=1_000)
    ring.sample(1, 100)
    ring.sample(0, 600)  # a release hidden in the press's hold-off (a 0.5 ms tap)
    ring.sample(1, 5_000)  # pressed again, long after: the release is reported first
    assert drain(ring) == [(0, 1, 0, 100), (0, 0, logic.FLAG_RECONCILED, 600), (0, 1, 0, 5_000)]


def test_a_bounce_that_settles_back_inside_the_hold_off_reports_nothing() -> None:
    ring = logic.EdgeRing(2, holdoff_us=1_000)
    ring.sample(0b01, 100)
    ring.sample(0b00, 140)
    ring.sample(0b10, 150)  # button 1 while button 0's bounce is open: held back...
    assert drain(ring) == [(0, 1, 0, 100)]
    assert ring.hidden_before(160) == 140
    ring.sample(0b11, 170)  # ...until button 0 is back where it was reported
    assert drain(ring) == [(1, 1, 0, 150)]
    ring.housekeep(2_000)
    assert drain(ring) == []


# -- the heartbeat: kept below a hidden change, monotonic ----------------------------------


class Host:
    def __init__(self, device: logic.Device) -> None:
        self.device = device
        self.decoder = FrameDecoder()

    def read(self) -> list[p.Message]:
        return [f.message for f in self.decoder.feed(self.device.take_output())]


def test_the_heartbeat_never_passes_a_hidden_press_and_it_comes_with_its_own_tick() -> None:
    device = logic.Device(2, 0, b"B", 1, heartbeat_us=1_000, heartbeat_slack_us=250)
    host = Host(device)
    device.feed(encode_frame(p.HostHello(), 0), 0)  # a host listens: 1 kHz heartbeats
    ring = logic.EdgeRing(2, holdoff_us=10_000)
    hidden_press = 25_000  # inside the hold-off of the release at 20_000 (to 30_000)
    samples = [(1_000, 0b01), (20_000, 0b00), (hidden_press, 0b01), (26_000, 0b11)]
    timeline: list[tuple[str, int]] = []
    flags = {}
    rounds = []
    for now in range(500, 40_000, 300):
        while samples and samples[0][0] <= now:  # the IRQ files what the PIO took
            tick, levels = samples.pop(0)
            ring.sample(levels, tick)
        ring.housekeep(now)  # main.py: right after reading now, IRQs off
        beats_before = device.heartbeats
        device.service(ring, lambda now=now: now)
        if device.heartbeats != beats_before:
            rounds.append(now)
        for m in host.read():
            if isinstance(m, p.Heartbeat):
                timeline.append(("beat", m.ticks))
            elif isinstance(m, p.Press | p.Release):
                timeline.append((f"{type(m).__name__.lower()} {m.button}", m.ticks))
                flags[m.ticks] = m.flags
    beats = [t for kind, t in timeline if kind == "beat"]
    assert beats == sorted(beats) and len(beats) == len(rounds) > 40  # monotonic
    reconciled_at = timeline.index(("press 0", hidden_press))
    assert flags[hidden_press] == logic.FLAG_RECONCILED
    # Until it was sent (the first round past 30_000), no heartbeat reached it:
    # the watermark stood just below it, not at now - 2.
    before = [t for kind, t in timeline[:reconciled_at] if kind == "beat"]
    assert max(before) == hidden_press - 1
    assert [kind for kind, _ in timeline[reconciled_at - 1 : reconciled_at + 2]] == [
        "beat",
        "press 0",
        "press 1",  # button 1's later press waited for it: events go in stamp order
    ]
    assert timeline[reconciled_at + 1] == ("press 1", 26_000)
    # Nothing hidden any more: back to now - 2.
    assert beats[-1] == rounds[-1] - logic.CAPTURE_LAG_US


def test_the_heartbeat_tick_never_goes_back() -> None:
    device = logic.Device(2, 0, b"B", 1)
    host = Host(device)
    device.poll(10_000)
    device.poll(300_000, hidden=5_000)  # a cap below the last heartbeat: repeat it
    device.poll(600_000, hidden=550_000)
    device.poll(900_000, hidden=PERIOD - 1)  # wrap-safe: "before 0" is far below
    ticks = [m.ticks for m in host.read() if isinstance(m, p.Heartbeat)]
    assert ticks == [9_998, 9_998, 549_999, 549_999]


def test_a_heartbeat_round_with_nothing_hidden_reports_now_less_the_capture_lag() -> None:
    device = logic.Device(2, 0, b"B", 1)
    host = Host(device)
    ring = logic.EdgeRing(2)
    device.service(ring, lambda: 1)  # across the wrap: 1 - 2
    (beat,) = [m for m in host.read() if isinstance(m, p.Heartbeat)]
    assert beat.ticks == PERIOD - 1


# -- the emulator runs the same path ------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.ns = 10**12

    def __call__(self) -> int:
        return self.ns


def _read_pty(fd: int) -> bytes:
    data = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                return data
            raise
        if not chunk:
            return data
        data += chunk


def _emulated(**kwargs: Any) -> tuple[Emulator, FakeClock, int]:
    """An emulator stepped by hand on a fake clock (no thread), its pty's far end."""
    clock = FakeClock()
    emulator = Emulator(clock=clock, **kwargs)
    emulator._open_pty()
    slave = emulator._slave
    assert slave is not None
    os.set_blocking(slave, False)
    os.write(slave, encode_frame(p.HostHello(), 0))  # a host listens: 1 kHz heartbeats
    return emulator, clock, slave


def _run(emulator: Emulator, clock: FakeClock, slave: int, until_us: int) -> list[p.Message]:
    """Step the emulated main loop every 100 µs up to device time ``until_us``."""
    out = b""
    while emulator.now_us() < until_us:
        clock.ns += 100_000
        with contextlib.suppress(BlockingIOError):
            data = os.read(emulator._master, 4096) if emulator._master is not None else b""
            if data:
                emulator.device.feed(data, emulator.ticks())
        emulator._step()
        out += _read_pty(slave)
    return [f.message for f in FrameDecoder().feed(out)]


def test_the_emulator_stamps_ties_and_hidden_presses_as_the_pico() -> None:
    emulator, clock, slave = _emulated(buttons=3, holdoff_us=10_000)
    try:
        start = emulator.now_us()
        t = start + 5_000
        emulator.press(0, t)
        emulator.press(2, t)  # the same µs: one sample, a tie
        emulator.release(0, t + 20_000)
        emulator.press(0, t + 24_000)  # inside the release's hold-off
        emulator.press(1, t + 26_000)
        messages = _run(emulator, clock, slave, t + 60_000)
        mask = PERIOD - 1
        edges = [
            (type(m).__name__, m.button, m.ticks, m.flags)
            for m in messages
            if isinstance(m, p.Press | p.Release) and not m.flags & logic.FLAG_RESENT
        ]
        assert edges == [
            ("Press", 0, t & mask, 0),
            ("Press", 2, t & mask, 0),
            ("Release", 0, (t + 20_000) & mask, 0),
            ("Press", 0, (t + 24_000) & mask, logic.FLAG_RECONCILED),
            ("Press", 1, (t + 26_000) & mask, 0),
        ]
        assert emulator.late_edges == 0
        # No heartbeat passed the hidden press before it was sent.
        seen_beat = 0
        for m in messages:
            if isinstance(m, p.Heartbeat):
                seen_beat = max(seen_beat, m.ticks)
            elif isinstance(m, p.Press | p.Release) and not m.flags & logic.FLAG_RESENT:
                assert logic.ticks_diff(m.ticks, seen_beat) > 0
    finally:
        emulator.stop()


def test_an_edge_scripted_behind_a_heartbeat_is_stamped_just_past_it() -> None:
    emulator, clock, slave = _emulated(buttons=2)
    try:
        messages = _run(emulator, clock, slave, emulator.now_us() + 3_000)
        last_beat = [m.ticks for m in messages if isinstance(m, p.Heartbeat)][-1]
        emulator.press(1, emulator.now_us() - 50_000)  # long reported past
        messages = _run(emulator, clock, slave, emulator.now_us() + 1_000)
        (press,) = [m for m in messages if isinstance(m, p.Press)]
        assert press.ticks == (last_beat + 1) % PERIOD
        assert emulator.late_edges == 1
    finally:
        emulator.stop()


def test_a_click_scheduled_under_the_lock_is_exact_where_a_stale_reading_is_lost() -> None:
    """A script that read the clock, was preempted, then scheduled a click asked for
    a time the device has reported past: both edges are stamped late at the same
    instant, a press of no length, and the firmware sends nothing (a test waiting
    for them waits forever). ``click_after`` reads the clock and schedules under
    the device's lock: the same stall loses nothing, every stamp is the scripted one."""
    holdoff = 2_000
    hold = holdoff + 500
    emulator, clock, slave = _emulated(buttons=2, holdoff_us=holdoff)
    try:
        first = emulator.click_after(0, hold)
        free_at = first + 2 * hold
        stale = max(emulator.now_us() + 1_000, free_at)
        _run(emulator, clock, slave, stale + 10_000)  # preempted past the time it chose
        emulator.click(0, stale, hold_us=hold)
        messages = _run(emulator, clock, slave, emulator.now_us() + 10_000)
        edges = [m for m in messages if isinstance(m, p.Press | p.Release)]
        assert edges == []
        assert emulator.late_edges == 2
        at = emulator.click_after(0, hold, not_before_us=free_at)
        assert at > stale + 10_000  # a fresh reading: past the stall, in the future
        messages = _run(emulator, clock, slave, at + 10_000)
        fresh = [
            (type(m).__name__, m.ticks)
            for m in messages
            if isinstance(m, p.Press | p.Release) and not m.flags & logic.FLAG_RESENT
        ]
        assert fresh == [("Press", at % PERIOD), ("Release", (at + hold) % PERIOD)]
        assert emulator.late_edges == 2
    finally:
        emulator.stop()
