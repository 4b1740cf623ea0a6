"""The host link (firmware_bridge/link.py) against the emulator over a real pty pair.

No assertion here depends on how fast this machine is: waits poll a
condition with a generous timeout (only so that a bug cannot hang the run),
and timestamps are compared with the emulator's own truth, with a tolerance
far wider than any scheduling delay.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from buzzer.arbiter.events import Press, Release
from firmware_bridge import protocol as p
from firmware_bridge.emulator import Emulator
from firmware_bridge.link import BridgeLink, EventInfo, LinkConfig
from tests.support.paths import REPO

TIMEOUT = 20.0
#: Mapped time vs the emulator's truth. Typical error is tens of µs on a pty;
#: the bound is wide so that a loaded machine cannot make the test flaky, and
#: still catches any real mistake (the emulated counter is ~987 s off the host's).
MAPPING_TOLERANCE_NS = 5_000_000


def wait_for(condition: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.002)


def take(events: queue.SimpleQueue[Press | Release], n: int) -> list[Press | Release]:
    return [events.get(timeout=TIMEOUT) for _ in range(n)]


def config(emulator: Emulator, **kwargs: object) -> LinkConfig:
    return LinkConfig(
        emulator.path,
        backoff_initial_s=0.01,
        backoff_max_s=0.05,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    with Emulator(drift_ppm=35.0, offset_us=(1 << 30) - 2_000_000) as emu:
        yield emu


@pytest.fixture
def link(emulator: Emulator) -> Iterator[BridgeLink]:
    infos: list[EventInfo] = []
    link = BridgeLink(config(emulator), on_event=infos.append)
    link.infos = infos  # type: ignore[attr-defined]
    link.start()
    try:
        assert link.wait_connected(TIMEOUT)
        yield link
    finally:
        link.stop()


def test_handshake(link: BridgeLink, emulator: Emulator) -> None:
    hello = link.device
    assert hello is not None
    assert (hello.buttons, hello.lamps, hello.tick_bits) == (8, 8, 30)
    assert hello.board_id == b"EMULATOR" and hello.boot_id == emulator.boot_id
    assert link.clock is not None and link.clock.samples >= 1


def test_presses_arrive_with_seats_and_mapped_times(link: BridgeLink, emulator: Emulator) -> None:
    # The device counter wraps 2 s after the emulator started: these straddle it.
    start = emulator.now_us() + 30_000
    emulator.press(4, start)
    emulator.press(2, start + 100)  # 100 µs later, another seat
    emulator.release(4, start + 40_000)
    emulator.release(2, start + 40_100)
    got = take(link.events, 4)
    assert [type(e) for e in got] == [Press, Press, Release, Release]
    assert [e.seat for e in got] == [5, 3, 5, 3]
    truth = [emulator.host_ns_at(t) for t in (start, start + 100, start + 40_000, start + 40_100)]
    for event, true_ns in zip(got, truth, strict=True):
        assert abs(event.t - true_ns) < MAPPING_TOLERANCE_NS
    # Order and spacing of the two presses come from the device's own counter.
    assert got[0].t < got[1].t
    assert got[1].t - got[0].t == pytest.approx(100_000, rel=0.01)
    stats = link.stats()
    assert (stats.events, stats.duplicates, stats.gaps, stats.lost) == (4, 0, 0, 0)


def test_ordering_survives_the_counter_wrap(emulator: Emulator) -> None:
    with BridgeLink(config(emulator)) as link:
        assert link.wait_connected(TIMEOUT)
        wrap = 1 << 30  # unwrapped µs at which the 30-bit counter wraps
        wait_for(lambda: emulator.now_us() > wrap - 300_000, "the wrap to come near")
        at = max(emulator.now_us() + 20_000, wrap - 50)
        emulator.press(0, at)
        emulator.press(1, at + 100)  # across the wrap when at = wrap - 50
        first, second = take(link.events, 2)
        assert (first.seat, second.seat) == (1, 2)
        assert 0 < second.t - first.t < 200_000


def test_lamp_commands_reach_the_device(link: BridgeLink, emulator: Emulator) -> None:
    link.set_lamp(3, p.LampMode.ON)
    wait_for(lambda: emulator.lamp_levels[3] == 1, "lamp 4 on")
    link.set_lamp(5, p.LampMode.BLINK, period_ms=40)
    wait_for(lambda: sum(1 for _, lamp, _ in emulator.lamp_log if lamp == 5) >= 4, "blinking")
    assert emulator.device.lamp_mode[5] == p.LampMode.BLINK
    link.set_lamp(p.Lamp.ALL, p.LampMode.OFF)
    wait_for(lambda: not any(emulator.lamp_levels), "all lamps off")
    wait_for(lambda: link.stats().lamp_sent >= 3, "lamp commands acknowledged")


def test_unplug_and_replug_mid_stream_loses_and_duplicates_nothing(
    link: BridgeLink, emulator: Emulator
) -> None:
    clicks = 30
    hold = 12_000  # longer than the 10 ms hold-off, so the release is its own edge
    start = emulator.click_after(0, hold, lead_us=20_000)
    for i in range(1, clicks):  # a press every 15 ms on rotating buttons, over ~450 ms
        emulator.click_after(i % 8, hold, not_before_us=start + i * 15_000)
    wait_for(lambda: emulator.now_us() > start + 100_000, "the stream to be under way")
    emulator.unplug()
    wait_for(lambda: not link.connected, "the host to notice")
    wait_for(lambda: emulator.now_us() > start + 300_000, "presses while unplugged")
    emulator.replug()
    got = take(link.events, 2 * clicks)
    assert emulator.pending_edges() == 0
    expected = []
    for i in range(clicks):
        expected.append((Press, i % 8 + 1, emulator.host_ns_at(start + i * 15_000)))
        expected.append((Release, i % 8 + 1, emulator.host_ns_at(start + i * 15_000 + hold)))
    ordered = sorted(got, key=lambda e: e.t)
    assert [(type(e), e.seat) for e in ordered] == [(k, s) for k, s, _ in expected]
    for event, (_, _, true_ns) in zip(ordered, expected, strict=True):
        assert abs(event.t - true_ns) < MAPPING_TOLERANCE_NS
    time.sleep(0.3)  # any late duplicate would arrive now (resends come every 200 ms)
    assert link.events.empty()
    stats = link.stats()
    assert stats.events == 2 * clicks and stats.lost == 0 and stats.missing == 0
    assert stats.disconnects >= 1 and stats.handshakes >= 2 and stats.device_restarts == 0


def test_events_beyond_the_device_ring_are_reported_lost() -> None:
    with Emulator(ring_size=4) as emulator, BridgeLink(config(emulator)) as link:
        assert link.wait_connected(TIMEOUT)
        emulator.unplug()
        wait_for(lambda: not link.connected, "the host to notice")
        start = emulator.click_after(0, 10_000)
        for i in range(1, 5):  # 10 events into a ring of 4
            emulator.click_after(i, 10_000, not_before_us=start + i * 20_000)
        wait_for(lambda: emulator.pending_edges() == 0, "the presses")
        emulator.replug()
        got = take(link.events, 4)
        assert [(type(e), e.seat) for e in got] == [
            (Press, 4),
            (Release, 4),
            (Press, 5),
            (Release, 5),
        ]
        wait_for(lambda: link.stats().lost == 6, "the loss to be reported")
        assert link.stats().missing == 0


def test_a_device_restart_is_a_new_boot(link: BridgeLink, emulator: Emulator) -> None:
    emulator.click_after(0, 20_000)
    take(link.events, 2)
    old_boot = emulator.boot_id
    emulator.power_cycle()
    wait_for(lambda: link.device is not None and link.device.boot_id != old_boot, "new HELLO")
    wait_for(lambda: link.connected, "reconnect")
    emulator.press(1, emulator.now_us() + 5_000)
    (event,) = take(link.events, 1)
    assert event.seat == 2
    stats = link.stats()
    assert stats.device_restarts == 1 and stats.lost == 0


def test_test_pulse_round_trip(link: BridgeLink, emulator: Emulator) -> None:
    emulator.longest_step_gap_us = 0
    token = link.test_pulse(6, width_us=15_000)  # wider than the 10 ms hold-off
    assert token is not None
    report = link.pulses.get(timeout=TIMEOUT)
    assert (report.token, report.button, report.status) == (token, 6, 0)
    press, release = take(link.events, 2)
    assert (type(press), press.seat, type(release), release.seat) == (Press, 7, Release, 7)
    latency_us = press.t - report.t_ns
    assert 0 < latency_us <= 1_000_000
    infos = link.infos  # type: ignore[attr-defined]
    # (on_event is told after the event is handed on: the release's may still come.)
    wait_for(lambda: len(infos) >= 2, "both edges' event info")
    assert [i.flags & p.FLAG_TEST for i in infos[-2:]] == [p.FLAG_TEST, p.FLAG_TEST]
    # The pulse is as wide as asked, on the device's own clock, within the main loop's
    # pace. Its end is timed from the tick the command was handled at, but the pin goes
    # down when the loop gets to it (a suite run saw 14,960 µs with a 1.3 ms gap), and
    # it ends within the rounds that follow 15 ms. The emulator's loop runs on this
    # machine's scheduler (a loaded run saw a 132 ms pulse), so the bound is the
    # loop's pace as measured over this pulse: the step that sees the end, the step
    # that drives the pin, the step that samples it.
    width = infos[-1].device_us - infos[-2].device_us
    gap = emulator.longest_step_gap_us
    assert 15_000 - gap <= width <= 15_000 + 3 * gap + 1_000, (width, gap)


def test_bounce_gives_one_press(link: BridgeLink, emulator: Emulator) -> None:
    at = emulator.now_us() + 10_000
    emulator.bounce(0, at, [80, 120, 300, 900])  # ends pressed, all within the hold-off
    emulator.release(0, at + 60_000)
    got = take(link.events, 2)
    assert [(type(e), e.seat) for e in got] == [(Press, 1), (Release, 1)]
    assert abs(got[0].t - emulator.host_ns_at(at)) < MAPPING_TOLERANCE_NS


def test_presses_from_before_the_host_started_are_not_delivered() -> None:
    with Emulator() as emulator:
        emulator.click_after(0, 1_000)
        wait_for(lambda: emulator.pending_edges() == 0, "the early press")
        time.sleep(0.01)
        with BridgeLink(config(emulator)) as link:
            assert link.wait_connected(TIMEOUT)
            emulator.press(1, emulator.now_us() + 5_000)
            (event,) = take(link.events, 1)
            assert event.seat == 2
            assert link.stats().stale == 2


def test_seat_map(emulator: Emulator) -> None:
    seats = (3, 1, 2, 4, 5, 6, 7, 8)
    with BridgeLink(config(emulator, seats=seats)) as link:
        assert link.wait_connected(TIMEOUT)
        emulator.press(0, emulator.now_us() + 5_000)
        (event,) = take(link.events, 1)
        assert event.seat == 3


def test_silent_device_is_dropped_and_reconnected(emulator: Emulator) -> None:
    with BridgeLink(config(emulator, silence_timeout_s=0.3)) as link:
        assert link.wait_connected(TIMEOUT)
        link.force_reconnect()
        wait_for(lambda: link.stats().handshakes >= 2, "a second handshake")
        assert link.wait_connected(TIMEOUT)


def test_no_device_at_all_keeps_retrying_quietly(tmp_path: object) -> None:
    link = BridgeLink(LinkConfig("/nonexistent/ttyNOPE", backoff_initial_s=0.01)).start()
    try:
        assert not link.wait_connected(0.2)
        assert link.stats().connects == 0
    finally:
        link.stop()


def test_loop_url_link_reads_its_own_frames_and_stays_up() -> None:
    # loop:// echoes the host's own HOST_HELLO back: decoded fine, never a device.
    link = BridgeLink(LinkConfig("loop://", hello_retry_s=0.05)).start()
    try:
        wait_for(lambda: link.stats().frames >= 2, "the echoed hellos")
        stats = link.stats()
        assert stats.bad_frames == 0 and stats.handshakes == 0 and not link.connected
    finally:
        link.stop()


def test_svoyak_emulate_prints_its_port() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "buzzer.cli",
            "emulate",
            "--duration",
            "0.3",
            "--press",
            "2@10",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith("svoyak emulate: serial port ") and "ttyPICO" in first


def test_svoyak_emulate_rejects_a_bad_press() -> None:
    from buzzer.cli import main

    assert main(["emulate", "--press", "9@10", "--buttons", "8", "--duration", "0"]) == 2


def test_selftest_pulse_source_contract() -> None:
    from firmware_bridge.emulator import selftest_pulse_source

    got: list[Press | Release] = []
    source = selftest_pulse_source(("1", "2", "3"), got.append, hold_off_ns=5_000_000)
    try:
        assert source.channels() == ("1", "2", "3")
        # The self-test's report says a pair's offset is exact on this path: the
        # presses are placed on the emulated device's own clock.
        assert source.exact_offsets is True
        t1, t2 = source.press_pair("2", "3", 100_000)
        wait_for(lambda: sum(isinstance(e, Press) for e in got) == 2, "the pair")
        first, second = [e for e in got if isinstance(e, Press)]
        assert (first.seat, second.seat) == (2, 3)
        assert second.t - first.t == pytest.approx(t2 - t1, abs=1_000)
        assert abs(first.t - t1) < MAPPING_TOLERANCE_NS
        source.release("2")
        source.release("3")
        got.clear()
        source.burst("1", 5, 100_000)  # ends pressed; all inside the hold-off
        wait_for(lambda: any(isinstance(e, Press) for e in got), "the burst's press")
        time.sleep(0.05)
        assert [e.seat for e in got if isinstance(e, Press)] == [1]
    finally:
        source.close()
