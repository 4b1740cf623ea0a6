"""The device's protocol state machine (firmware_bridge/firmware/logic.py's
``Device``), driven by a host that writes frames into it and decodes what it
writes: the handshake, events numbered, acknowledged and resent, a full ring,
pings and their pongs, lamps, test pulses, garbage from the host.
"""

from __future__ import annotations

import random

from firmware_bridge import protocol as p
from firmware_bridge.firmware import logic
from firmware_bridge.protocol import FrameDecoder
from tests.support.firmware_logic import PERIOD, Host
from tests.support.firmware_logic import new_device as _device


def test_handshake_reports_what_the_device_is() -> None:
    _, host, _, _ = _device()
    host.send(p.HostHello(), 500)
    (hello,) = [m for m in host.read() if isinstance(m, p.Hello)]
    assert hello == p.Hello(4, (4, 0, 0), 4, 3, 30, b"BOARD-01", 0xABCDEF01, 500, 1, 1)


def test_the_hello_says_the_firmware_identity_the_held_buttons_and_a_refused_chip() -> None:
    identity = bytes(range(1, 9))
    _, host, _, _ = _device(
        firmware_id=identity, held_at_boot=0b0101, hello_flags=logic.HELLO_UNSUPPORTED_CHIP
    )
    host.send(p.HostHello(), 500)
    (hello,) = [m for m in host.read() if isinstance(m, p.Hello)]
    assert hello.firmware_id == identity
    assert hello.held_at_boot == 0b0101
    assert hello.unsupported_chip
    assert p.HELLO_UNSUPPORTED_CHIP == logic.HELLO_UNSUPPORTED_CHIP


def _edges(host: Host) -> list[p.Message]:
    return [m for m in host.read() if isinstance(m, p.Press | p.Release)]


def test_events_are_numbered_acked_and_resent() -> None:
    device, host, _, _ = _device(resend_us=1_000)
    host.send(p.HostHello(), 0)
    host.read()
    device.edge(2, 1, 100, 150)
    device.edge(2, 0, 900, 950)
    assert host.read() == [p.Press(1, 100, 2), p.Release(2, 900, 2)]
    device.poll(1_100)  # neither has waited 1 ms since it was sent
    assert _edges(host) == []
    device.poll(1_200)  # event 1 has: it goes again (event 2 not yet)
    assert _edges(host) == [p.Press(1, 100, 2, p.FLAG_RESENT)]
    device.poll(2_000)  # the pass goes on, one a round: event 2 has waited 1 ms now
    assert _edges(host) == [p.Release(2, 900, 2, p.FLAG_RESENT)]
    device.poll(3_100)  # no ACK came: the next pass waits twice as long
    assert _edges(host) == []
    device.poll(3_200)  # event 1 has waited 2 ms since its resend; event 2 not yet
    device.poll(3_210)
    assert _edges(host) == [p.Press(1, 100, 2, p.FLAG_RESENT)]
    host.send(p.Ack(1), 3_300)  # progress: the wait is 1 ms again
    device.poll(4_300)
    assert _edges(host) == [p.Release(2, 900, 2, p.FLAG_RESENT)]
    host.send(p.Ack(2), 4_400)
    assert device.unacked == [] and device.oldest_unacked() == device.next_event == 3
    device.poll(100_000)
    assert _edges(host) == []


def test_an_ack_that_frees_nothing_does_not_hold_the_resend_back() -> None:
    """The loss mechanism of a steady stream: every ACK used to restart one resend
    timer, so while presses (and their ACKs, all stuck below a frame lost on the
    wire) kept coming, the lost one was never resent, until the ring dropped it."""
    device, host, _, _ = _device(resend_us=60_000)
    host.send(p.HostHello(), 0)
    host.read()
    now = 1_000
    device.edge(0, 1, now, now)  # event 1: lost on the wire (the host never reads it)
    host.read()
    resent = []
    for i in range(40):  # a press every 5 ms, each acked up to event 0 only
        now += 5_000
        device.edge(1 + i % 3, i % 2, now, now)
        host.send(p.Ack(0), now + 100)
        device.poll(now + 200)
        resent += [m for m in _edges(host) if m.flags & p.FLAG_RESENT]
    # Event 1 went again once it had waited 60 ms; nothing younger than that did.
    assert [m.event for m in resent][:1] == [1]
    assert all(m.event <= 1 + 60_000 // 5_000 for m in resent)
    assert device.dropped == 0


def test_a_reconnect_resends_the_ring_a_few_per_round_oldest_first() -> None:
    device, host, _, _ = _device(resend_batch=2)
    for i in range(7):  # while nobody listens
        device.edge(i % 4, 1, 10 * i, 10 * i)
    device.take_output()
    host.send(p.HostHello(), 5_000)
    first = host.read()
    # The HELLO, then at once the oldest events: the host holds the ring's start
    # before any heartbeat says where it is.
    assert isinstance(first[0], p.Hello)
    assert [m.event for m in first[1:] if isinstance(m, p.Press)] == [1, 2]
    events = []
    for now in range(5_100, 6_000, 100):
        device.poll(now)
        events += [m.event for m in _edges(host)]
    assert events == [3, 4, 5, 6, 7]
    assert device.resends == 7


def test_reconnect_resends_everything_unacked_after_the_hello() -> None:
    device, host, _, _ = _device()
    device.edge(0, 1, 10, 20)  # while nobody listens
    device.take_output()
    host.send(p.HostHello(), 5_000)
    messages = host.read()
    kinds = [type(m) for m in messages]
    assert kinds.index(p.Hello) < kinds.index(p.Press)
    assert p.Press(1, 10, 0, p.FLAG_RESENT) in messages


def test_full_ring_drops_the_oldest_and_says_so() -> None:
    device, host, _, _ = _device(ring_size=3)
    for i in range(5):
        device.edge(0, (i + 1) % 2, 10 * i, 10 * i)
    device.take_output()
    assert [e[0] for e in device.unacked] == [3, 4, 5]
    device.poll(100)
    (beat,) = [m for m in host.read() if isinstance(m, p.Heartbeat)]
    assert (beat.next_event, beat.oldest_unacked, beat.dropped) == (6, 3, 2)


def test_the_heartbeat_reports_the_capture_rings_overflows() -> None:
    device, host, _, _ = _device()
    device.ring_overflows = 70_000  # past what a u16 could count
    device.dropped = 65_537
    device.poll(0)
    (beat,) = [m for m in host.read() if isinstance(m, p.Heartbeat)]
    assert (beat.ring_overflows, beat.dropped) == (70_000, 65_537)


def test_ping_is_answered_with_the_host_stamp_echoed() -> None:
    _, host, _, _ = _device()
    host.send(p.Ping(2**63 + 5), PERIOD - 1)
    assert p.Pong(2**63 + 5, PERIOD - 1, PERIOD - 1) in host.read()


def test_a_pong_reports_when_the_ping_was_read_and_when_the_answer_left() -> None:
    """NTP's four timestamps: the device's hold (reading, edges, heartbeat)
    is on its own clock, so the host can take it out of the round trip."""
    device, host, _, _ = _device()
    host.send(p.Ping(7), 100)
    device.edge(0, 1, 150, 150)
    device.poll(200)
    chunks: list[bytes] = []
    device.write_output(lambda data: chunks.append(bytes(data)), lambda: 2_350)
    frames = FrameDecoder().feed(b"".join(chunks))
    assert frames[-1].message == p.Pong(7, 100, 2_350)  # last: frames leave in seq order
    assert [f.seq for f in frames] == sorted(f.seq for f in frames)


def test_a_second_ping_in_one_round_sends_the_first_ones_answer_then() -> None:
    device, host, _, _ = _device()
    host.send(p.Ping(1), 100)
    host.send(p.Ping(2), 400)
    chunks: list[bytes] = []
    device.write_output(lambda data: chunks.append(bytes(data)), lambda: 900)
    pongs = [m for m in FrameDecoder().feed(b"".join(chunks)) if isinstance(m.message, p.Pong)]
    assert [f.message for f in pongs] == [p.Pong(1, 100, 400), p.Pong(2, 400, 900)]


def test_lamps_on_off_blink_all() -> None:
    device, host, lamps, _ = _device()
    host.send(p.Lamp(1, p.LampMode.ON), 0)
    host.send(p.Lamp(2, p.LampMode.BLINK, 200), 0)  # 100 ms on, 100 ms off
    acks = [m for m in host.read() if isinstance(m, p.CmdAck)]
    assert [(a.acked, a.seq, a.status) for a in acks] == [(0x84, 0, 0), (0x84, 1, 0)]
    assert lamps == [(1, 1), (2, 1)]
    for now in range(0, 450_001, 10_000):
        device.poll(now)
    assert lamps[2:] == [(2, 0), (2, 1), (2, 0), (2, 1)]
    host.send(p.Lamp(p.Lamp.ALL, p.LampMode.OFF), 460_000)
    assert set(lamps[-2:]) == {(1, 0), (2, 0)}
    host.send(p.Lamp(7, p.LampMode.ON), 0)
    host.send(p.Lamp(0, 9), 0)
    statuses = [m.status for m in host.read() if isinstance(m, p.CmdAck)]
    assert statuses[-2:] == [p.AckStatus.BAD_ARGUMENT, p.AckStatus.BAD_ARGUMENT]


def test_test_pulse_drives_the_input_and_flags_its_edges() -> None:
    device, host, _, pulses = _device()
    host.send(p.TestPulse(1, token=42, width_us=2_000), PERIOD - 500)
    pulsed = [m for m in host.read() if isinstance(m, p.Pulsed)]
    assert pulsed == [p.Pulsed(42, 1, 0, PERIOD - 500)]
    assert pulses == [(1, True)]
    device.poll(logic.ticks_add(PERIOD - 500, 1_999))
    assert pulses == [(1, True)]
    device.poll(logic.ticks_add(PERIOD - 500, 2_000))
    assert pulses == [(1, True), (1, False)]
    device.edge(1, 1, 5, 6)  # the edges the pulse caused, as the IRQ captured them
    device.edge(1, 0, 7, 8)
    device.edge(1, 1, 9, 10)  # a later real press is not flagged
    flags = [m.flags for m in host.read() if isinstance(m, p.Press | p.Release)]
    assert flags == [p.FLAG_TEST, p.FLAG_TEST, 0]
    host.send(p.TestPulse(9, token=1, width_us=10), 0)
    assert [m.status for m in host.read() if isinstance(m, p.Pulsed)] == [1]


def test_garbage_from_the_host_is_counted_and_does_nothing() -> None:
    device, host, lamps, pulses = _device()
    rng = random.Random(4)
    for _ in range(3_000):
        device.feed(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80))), 0)
    assert lamps == [] and pulses == [] and device.unacked == []
    assert device.reader.bad > 100
    device.poll(0)
    assert [m for m in host.read() if not isinstance(m, p.Heartbeat | p.Pong)] == []
