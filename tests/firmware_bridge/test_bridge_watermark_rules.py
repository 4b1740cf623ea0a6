"""The link's event-time watermark (firmware_bridge/link.py), one rule at a time:
no watermark before the handshake and a clock fit, the PONG's hold taken out,
gaps held until a resend fills them (or released when it no longer can),
events waiting for the fit, a moved fit, a device restart, a silent link.

Each test scripts the frames of one situation for a
:class:`tests.support.scripted_device.ScriptedDevice` and reads the link's
watermark after each step.
"""

from __future__ import annotations

import time

import pytest

from firmware_bridge import protocol as p
from firmware_bridge.link import BridgeLink, LinkConfig
from tests.support.scripted_device import (
    MASK,
    NOW_NS,
    START_US,
    ScriptedDevice,
    beat,
    connect,
    hello,
    mapped,
    pong,
    press,
    scripted_link,
    wait_for,
)


def test_no_watermark_before_the_handshake_and_the_clock_fit() -> None:
    with scripted_link() as (device, link, seen):
        assert link.watermark() is None and link.last_heard_ns() is None
        device.send(hello(START_US), beat(START_US + 100, 1))
        device.sync(link)
        # Handshaken, a heartbeat in, but the only placement is the HELLO's rough seed.
        assert link.device is not None and link.watermark() is None
        assert link.last_heard_ns() == NOW_NS
        device.send(pong(START_US + 200, mapped(START_US + 200)))
        device.sync(link)
        # The fit is there; the heartbeat already said "nothing older than +100".
        assert link.watermark() == mapped(START_US + 100)
        device.send(beat(START_US + 900, 1))
        device.sync(link)
        assert link.watermark() == mapped(START_US + 900)
        seen.check()


def test_the_pongs_hold_is_taken_out_and_a_hold_before_the_read_ignored() -> None:
    """Protocol 3: the PONG says when the ping was read and when the answer
    left; the host's midpoint stands for the middle of that hold."""
    with scripted_link() as (device, link, seen):
        t = START_US
        hold = 3_000
        device.send(hello(t))
        # Sent "before" it was read (a corrupt or foreign PONG): no sample.
        device.send(p.Pong(2 * mapped(t) - NOW_NS, t & MASK, (t - 1) & MASK))
        device.sync(link)
        assert not link.mapper.ready
        mid = mapped(t) + hold * 1_000 // 2
        device.send(p.Pong(2 * mid - NOW_NS, t & MASK, (t + hold) & MASK))
        device.sync(link)
        assert link.mapper.ready and link.mapper.to_host_ns(t) == mapped(t)
        seen.check()


def test_a_gap_holds_the_watermark_until_a_resend_fills_it() -> None:
    with scripted_link() as (device, link, seen):
        connect(device, link)
        t = START_US
        # Event 2 is lost on the wire; 3 and a heartbeat that counts it arrive.
        device.send(press(1, t + 100), press(3, t + 300, 1), beat(t + 400, 4))
        device.sync(link)
        assert link.stats().gaps == 1
        assert link.watermark() == mapped(t + 100)  # the last event with no gap before it
        device.send(beat(t + 900, 4), beat(t + 1_800, 4))
        device.sync(link)
        assert link.watermark() == mapped(t + 100)  # still: a resend may bring event 2
        # The device's resend: the whole ring, the gap filled.
        resent = p.FLAG_RESENT
        device.send(press(1, t + 100, 0, resent), press(2, t + 200, 2, resent))
        device.send(press(3, t + 300, 1, resent))
        device.sync(link)
        assert link.watermark() == mapped(t + 200)
        device.send(beat(t + 2_700, 4))
        device.sync(link)
        assert link.watermark() == mapped(t + 2_700)
        stats = link.stats()
        assert (stats.events, stats.duplicates, stats.recovered) == (3, 2, 1)
        # Event 2 came late, but with its own stamp, after no watermark past it.
        assert [i.t_ns for i in seen.infos] == [mapped(t + 100), mapped(t + 300), mapped(t + 200)]
        assert stats.watermark_clamps == 0
        seen.check()


def test_a_gap_the_device_can_no_longer_fill_releases_the_watermark() -> None:
    with scripted_link() as (device, link, _):
        connect(device, link)
        t = START_US
        device.send(press(1, t + 100), press(4, t + 400), beat(t + 500, 5))
        device.sync(link)
        assert link.watermark() == mapped(t + 100)
        # The device's ring overflowed: its oldest unacked event is now 4.
        device.send(beat(t + 600, 5, oldest_unacked=4))
        device.sync(link)
        assert link.stats().lost == 2
        assert link.watermark() == mapped(t + 600)


def test_events_waiting_for_the_clock_fit_hold_the_watermark() -> None:
    with scripted_link() as (device, link, seen):
        t = START_US
        device.send(hello(t), press(1, t + 100), beat(t + 500, 2))
        device.sync(link)
        assert link.watermark() is None and seen.infos == []
        device.send(pong(t + 600, mapped(t + 600)))
        device.sync(link)
        # Handed on at the fit, and only then passed.
        assert [i.t_ns for i in seen.infos] == [mapped(t + 100)]
        assert link.watermark() == mapped(t + 100)
        device.send(beat(t + 700, 2))
        device.sync(link)
        assert link.watermark() == mapped(t + 700)
        seen.check()


def test_a_moved_clock_fit_raises_a_late_event_to_the_watermark_and_keeps_order() -> None:
    with scripted_link() as (device, link, seen):
        connect(device, link)
        t = START_US
        device.send(beat(t + 1_000, 1))
        device.sync(link)
        mark = link.watermark()
        assert mark == mapped(t + 1_000)
        # A new ping says the device is 1 ms earlier than thought.
        device.send(pong(t + 1_100, mapped(t + 1_100) - 1_000_000))
        device.send(press(1, t + 1_010), press(2, t + 1_020, 1))
        device.sync(link)
        first, second = seen.infos
        # Raised above the promise by its device distance from the heartbeat (10 µs):
        # never below it, never a tie with what comes next.
        assert first.t_ns == mark + 10_000
        assert second.t_ns > first.t_ns  # the device's order kept...
        assert second.t_ns - first.t_ns == pytest.approx(10_000, rel=0.01)  # ...and spacing
        assert link.stats().watermark_clamps == 2  # both placed from the promise
        assert link.watermark() == second.t_ns  # never back, though the fit moved back
        seen.check()


def test_a_device_restart_keeps_the_watermark_from_going_back() -> None:
    with scripted_link() as (device, link, seen):
        connect(device, link)
        device.send(beat(START_US + 5_000, 1))
        device.sync(link)
        before = link.watermark()
        assert before == mapped(START_US + 5_000)
        # A new boot, its counter near zero, placed (by its pong) 1 ms before the old mark.
        device.send(hello(100, boot_id=0xB008))
        device.sync(link)
        assert link.watermark() is None  # a new clock, no fit yet
        # The press, stamped past the last heartbeat, is taken with the next one.
        device.send(pong(100, before - 1_000_000), beat(200, 1), press(1, 300), beat(400, 2))
        device.sync(link)
        mark = link.watermark()
        assert mark is not None and mark >= before
        (info,) = seen.infos
        assert info.t_ns >= before
        assert link.stats().device_restarts == 1
        seen.check()


def test_a_silent_link_is_declared_dead_and_its_watermark_withdrawn() -> None:
    device = ScriptedDevice()
    link = BridgeLink(LinkConfig(device.path, silence_timeout_s=0.2, hello_retry_s=30))
    try:
        link.start()
        wait_for(lambda: device.host_sent(p.HostHello), "the host's HOST_HELLO")
        now_us = 7_000_000
        device.send(hello(now_us), p.Pong(time.monotonic_ns(), now_us, now_us), beat(now_us, 1))
        device.sync(link)
        heard = link.last_heard_ns()
        assert link.watermark() is not None and heard is not None
        # Then nothing more: the keeper drops the link, and the promise with it.
        wait_for(lambda: link.stats().disconnects >= 1, "the silence to be noticed")
        assert link.watermark() is None
        assert link.last_heard_ns() == heard  # what the caller judges a stall by
    finally:
        link.stop()
        device.close()
