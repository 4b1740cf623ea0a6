"""The link's event-time watermark (firmware_bridge/link.py) against stamps the
device could not have made yet (issue 33): an honest stamp past the device's
latest time waits for its heartbeat, one beyond what its clock could have read
is refused (an event's stamp or a heartbeat's tick, 32-bit ticks too, across a
reboot) and holds nothing; an ACK covers an event only once it is on the record.

Most tests connect with :func:`connect_now`: a fit that puts the scripted
device's clock at the frozen host instant, so what it "could have read" is exact.
"""

from __future__ import annotations

from concurrent.futures import Future

from buzzer.arbiter.events import Press, Release
from firmware_bridge import protocol as p
from firmware_bridge.link import BridgeLink, LinkConfig, LinkTrouble
from tests.support.scripted_device import (
    MASK,
    NOW_NS,
    START_US,
    ScriptedDevice,
    beat,
    hello,
    press,
    scripted_link,
    wait_for,
)


def connect_now(device: ScriptedDevice, link: BridgeLink, at_us: int = START_US) -> None:
    """The handshake, and a fit that puts device µs ``at_us`` at the frozen clock's
    instant (a round trip of 0: no uncertainty): as every frame arrives, the
    host's model says the device's clock reads ``at_us``."""
    device.send(hello(at_us), p.Pong(NOW_NS, at_us & MASK, at_us & MASK))
    device.sync(link)
    assert link.connected


def now_mapped(device_us: int) -> int:
    """Host ns of a device µs under :func:`connect_now`'s fit."""
    return NOW_NS + 1_000 * (device_us - START_US)


def acks(device: ScriptedDevice) -> list[int]:
    """The cumulative ACKs the host wrote so far."""
    with device._host_lock:
        return [m.event for m in device.host if isinstance(m, p.Ack)]


def test_an_event_stamped_past_the_devices_latest_time_waits_for_its_heartbeat() -> None:
    """The firmware sends a round's events before the heartbeat that covers them,
    so an honest stamp may lie past every tick the host has heard: it is held
    (neither handed on nor passed by the watermark) and taken, with its own
    stamp, as soon as the device reports a time at or past it."""
    with scripted_link() as (device, link, seen):
        connect_now(device, link)
        t = START_US
        device.send(beat(t + 100, 1), press(1, t + 500))
        device.sync(link)
        assert seen.infos == []
        assert link.watermark() == now_mapped(t + 100)
        device.send(beat(t + 600, 2))
        device.sync(link)
        (info,) = seen.infos
        assert (info.device_us, info.t_ns) == (t + 500, now_mapped(t + 500))
        assert link.watermark() == now_mapped(t + 600)
        stats = link.stats()
        assert (stats.stamp_waits, stats.future_stamps, stats.watermark_clamps) == (1, 0, 0)
        # A PONG's sent tick is the device's time too.
        device.send(press(2, t + 900), p.Pong(NOW_NS, (t + 950) & MASK, (t + 950) & MASK))
        device.sync(link)
        assert [i.device_us for i in seen.infos] == [t + 500, t + 900]
        seen.check()


def test_a_stamp_from_the_devices_future_is_refused_and_holds_nothing() -> None:
    """Issue 33: one PRESS stamped 20 s ahead of the device's own heartbeat held
    the watermark, and the honest presses after it were raised 20 s. Refused
    now: not handed on, no watermark near it, counted and reported; the
    honest presses keep their stamps, the watermark follows the heartbeats."""
    with scripted_link() as (device, link, seen):
        connect_now(device, link)
        t = START_US
        device.send(beat(t + 100, 1), press(1, t + 20_000_000, 0))
        device.sync(link)
        assert seen.infos == []
        assert link.watermark() == now_mapped(t + 100)
        stats = link.stats()
        assert (stats.events, stats.future_stamps, stats.stamp_waits) == (1, 1, 0)
        # Its resend is a duplicate, not a second refusal; the honest presses after it
        # are taken with their own stamps.
        device.send(press(1, t + 20_000_000, 0, p.FLAG_RESENT))
        device.send(press(2, t + 300, 1), press(3, t + 400, 2), beat(t + 500, 4))
        device.sync(link)
        assert [i.t_ns for i in seen.infos] == [now_mapped(t + 300), now_mapped(t + 400)]
        assert link.watermark() == now_mapped(t + 500)
        device.send(beat(t + 1_500, 4))
        device.sync(link)
        assert link.watermark() == now_mapped(t + 1_500)
        stats = link.stats()
        assert (stats.future_stamps, stats.duplicates, stats.watermark_clamps) == (1, 1, 0)
        wait_for(lambda: bool(seen.troubles), "the refusal's report")
        (trouble,) = seen.troubles
        assert (trouble.kind, trouble.count, trouble.ahead_us) == ("future", 1, 20_000_000 - 100)
        assert trouble.detail.startswith("1 event(s) refused: stamped up to 19999 ms past")
        assert len(trouble.detail) <= 200
        seen.check()


def test_a_stamp_is_refused_only_beyond_what_the_devices_clock_could_have_read() -> None:
    """The bound is the device's time as the host's model has it at the frame's
    arrival (or the device's own latest report, if later), plus the slack:
    a stamp within it is held for its proof, one beyond it refused."""
    clock = [NOW_NS]
    with scripted_link(clock, future_slack_us=100_000) as (device, link, seen):
        connect_now(device, link)
        t = START_US
        device.send(beat(t + 100, 1), press(1, t + 99_000), press(2, t + 101_000, 1))
        device.sync(link)
        stats = link.stats()
        assert (stats.stamp_waits, stats.future_stamps) == (1, 1)
        # 150 ms on, the device's own report moves the bound: later stamps are
        # judged from it (a heartbeat is held to the clock model as a stamp is).
        clock[0] += 150_000_000
        device.send(beat(t + 150_000, 3), press(3, t + 240_000, 2), beat(t + 250_000, 4))
        device.sync(link)
        assert [i.event for i in seen.infos] == [1, 3]
        assert link.stats().future_stamps == 1
        seen.check()


def test_a_heartbeat_beyond_what_the_devices_clock_could_have_read_moves_nothing() -> None:
    """A heartbeat's tick is held to the same bound as an event's stamp: within
    it the watermark follows the heartbeat; beyond it (a forged or broken tick)
    the heartbeat is refused whole, counted and reported, and neither the
    watermark nor the device's proven time moves."""
    clock = [NOW_NS]
    with scripted_link(clock, future_slack_us=100_000) as (device, link, seen):
        connect_now(device, link)
        t = START_US
        device.send(beat(t + 50_000, 1))
        device.sync(link)
        before = link.watermark()
        assert before == NOW_NS + 50_000_000
        device.send(beat(t + 20_000_000, 1))  # 20 s ahead of the device's clock
        device.sync(link)
        assert link.stats().future_ticks == 1
        assert link.watermark() == before
        # An honest press stamped now is taken as ever, not held behind the forgery.
        clock[0] += 1_000_000
        device.send(press(1, t + 60_000), beat(t + 61_000, 2))
        device.sync(link)
        assert [i.event for i in seen.infos] == [1]
        assert link.watermark() == NOW_NS + 61_000_000
        wait_for(lambda: any(x.kind == "future_tick" for x in seen.troubles), "the trouble")
        (trouble,) = [x for x in seen.troubles if x.kind == "future_tick"]
        assert trouble.count == 1 and trouble.detail.startswith("1 heartbeat(s) refused")
        seen.check()


def test_with_32_bit_ticks_a_stamp_half_an_hour_ahead_is_refused() -> None:
    """A 32-bit counter's half period is 35.8 minutes: a stamp that far ahead is
    still "ahead" to the unwrapper. Refused, it never becomes the reference the
    next ticks are unwrapped against, nor anything the watermark waits for."""
    bits = 32
    wide = (1 << bits) - 1
    t = 3_000_000_000  # and the counter wraps on the way
    clock = [NOW_NS]
    # The test jumps the host's clock 2,000 s at once (with the device's): the link's
    # keeper must not take that jump for 2,000 s of silence before the next heartbeat is
    # read (it did, now and then, on a loaded machine). Silence is not this test's subject.
    with scripted_link(clock, silence_timeout_s=1e6) as (device, link, seen):
        device.send(
            p.Hello(p.PROTOCOL_VERSION, (2, 0, 0), 4, 4, bits, b"SCRIPTED", 0xB032, t, 1, 1),
            p.Pong(NOW_NS, t, t),
        )
        device.sync(link)
        half_hour = 30 * 60 * 1_000_000

        def beat32(ticks: int, next_event: int) -> p.Heartbeat:
            return p.Heartbeat(ticks & wide, next_event, 1, 0, 0)

        device.send(beat32(t + 100, 1), p.Press(1, (t + half_hour) & wide, 0, 0))
        device.send(p.Press(2, (t + 200) & wide, 1, 0), beat32(t + 300, 3))
        device.sync(link)
        assert link.stats().future_stamps == 1
        (info,) = seen.infos
        assert info.device_us == t + 200
        clock[0] += 2_000_000_000_000  # 2,000 s on, the device's time too:
        device.send(beat32(t + 2_000_000_000, 3))  # past the wrap
        device.sync(link)
        assert link.watermark() == NOW_NS + 1_000 * 2_000_000_000
        seen.check()


def test_a_device_reboot_settles_what_was_held_and_keeps_nothing_of_the_old_boot() -> None:
    """A new boot's clock will never reach a stamp the old one still owed: the
    held event is judged by the host's model of the old clock (on this frozen
    clock it never got there: refused). The new boot's presses flow at once."""
    with scripted_link() as (device, link, seen):
        connect_now(device, link)
        t = START_US
        device.send(beat(t + 100, 1), press(1, t + 50_000))
        device.sync(link)
        assert link.stats().stamp_waits == 1
        before = link.watermark()
        assert before == now_mapped(t + 100)
        device.send(hello(100, boot_id=0xB008), p.Pong(NOW_NS, 100, 100))
        device.send(beat(200, 1), press(1, 300, 1), beat(400, 2))
        device.sync(link)
        assert link.stats().future_stamps == 1
        (info,) = seen.infos
        assert info.device_us == 300 and info.t_ns >= before
        assert link.watermark() is not None and link.watermark() >= info.t_ns
        seen.check()


def test_the_ack_covers_an_event_only_once_it_is_on_the_record() -> None:
    """The sink answers a future per input (the runtime's: done once journaled).
    Until it is done, every ACK stays below the event, however often the device
    resends it; a failed record (the journal could not be written) is handed on
    again, as it was, when the device resends; a refused event waits for its
    report's record the same way."""
    device = ScriptedDevice()
    handed: list[tuple[Press | Release, Future[None]]] = []
    reports: list[Future[None]] = []

    def sink(item: Press | Release) -> Future[None]:
        done: Future[None] = Future()
        handed.append((item, done))
        return done

    def on_trouble(trouble: LinkTrouble) -> Future[None]:
        done: Future[None] = Future()
        reports.append(done)
        return done

    config = LinkConfig(device.path, drop_before_start=False, ack_interval_s=0.005)
    link = BridgeLink(config, clock=lambda: NOW_NS, sink=sink, on_trouble=on_trouble)
    t = START_US

    def acked_after_resend(event: int, flags: int = p.FLAG_RESENT) -> list[int]:
        """The ACKs the host wrote after a resend of ``event`` (a duplicate, which it
        answers at its next beat)."""
        before = len(acks(device))
        device.send(press(event, t + 50 if event == 1 else t + 20_000_000, 0, flags))
        device.sync(link)
        wait_for(lambda: len(acks(device)) > before, "an ACK after the resend")
        return acks(device)[before:]

    try:
        link.start()
        wait_for(lambda: device.host_sent(p.HostHello), "the host's HOST_HELLO")
        connect_now(device, link)
        device.send(beat(t + 100, 1), press(1, t + 50), beat(t + 200, 2))
        device.sync(link)
        assert len(handed) == 1
        assert set(acked_after_resend(1)) == {0}
        assert set(acked_after_resend(1)) == {0}
        # The journal could not be written: the resend hands it on again, as it was.
        handed[0][1].set_exception(OSError("the disk is full"))
        assert set(acked_after_resend(1)) == {0}
        wait_for(lambda: len(handed) == 2, "the event handed on again")
        assert handed[1][0] == handed[0][0]
        assert link.stats().record_retries == 1
        handed[1][1].set_result(None)
        wait_for(lambda: 1 in acks(device), "the ACK of the event on the record")
        # A refused event: acknowledged once its report is on the record.
        device.send(press(2, t + 20_000_000, 1), beat(t + 300, 3))
        device.sync(link)
        wait_for(lambda: len(reports) == 1, "the refusal's report")
        assert set(acked_after_resend(2)) == {1}
        reports[0].set_result(None)
        wait_for(lambda: 2 in acks(device), "the ACK of the refused event")
        assert len(handed) == 2 and link.stats().future_stamps == 1
    finally:
        link.stop()
        device.close()
