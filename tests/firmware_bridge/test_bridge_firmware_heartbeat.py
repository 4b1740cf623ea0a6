"""The firmware's heartbeat, the host's event-time watermark
(firmware_bridge/firmware/logic.py): a main-loop scenario under CPython and
MicroPython (``HEARTBEAT_SCENARIO``: nothing stamped at or before a
heartbeat's tick comes after it), the tick two µs before the round, the slow
beat while no host listens, the interval, the preallocated frame, output
order, and rounds that allocate nothing under MicroPython.
"""

from __future__ import annotations

import itertools
import struct
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import protocol as p
from firmware_bridge.firmware import logic
from firmware_bridge.protocol import FrameDecoder
from tests.support.firmware_logic import PERIOD, Host
from tests.support.firmware_logic import new_device as _device
from tests.support.firmware_logic import run_cpython as _run_cpython
from tests.support.firmware_logic import run_micropython as _micropython

# Runs unchanged on CPython and MicroPython; prints one JSON line. The main loop of
# main.py, on an injected clock: each round the clock moves on by at most 200 µs
# (under the default heartbeat_slack_us), and "the PIO" samples the 4 buttons at
# random points (one or two of them change per sample: two is a tie), also
# *during* the drain (right after a take() that found the ring empty: the moment
# a tick read after the drain would get wrong). Its IRQ files a sample 1 µs after
# taking it, as the PIO pushes it, so a heartbeat at ``now - 1`` would be passed
# by a sample still on its way. The 300 µs hold-off hides many changes (presses
# inside a release's hold-off and the other way round), reconciled later with
# their own stamps. The host pings now and then so that the device knows it
# listens. Then the output is decoded: when heartbeats went out and what they
# said, every event that came after a heartbeat whose tick it is stamped at or
# before (there must be none), and whether every stamp is a real pin change.
HEARTBEAT_SCENARIO = r"""
import json
import struct
import logic

seed = [777]
def rand(n):
    seed[0] = (seed[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return seed[0] % n

HOLDOFF = 300
period = 1 << logic.TICKS_BITS
mask = logic.TICKS_MASK
clock = [period - 400000]   # unwrapped µs: the counter wraps 0.4 s in
pins = [0]                  # the pressed mask the PIO reads
last_sample = [0]
raw_changes = set()         # (button, tick) of every change the PIO sampled
samples = [0]

def ticks_us():
    clock[0] += rand(3)
    return clock[0] & mask

def irq():
    ticks_us()
    at = clock[0] - 1       # taken 1 µs before the IRQ files it
    if at <= last_sample[0]:
        return              # the PIO samples once a µs
    last_sample[0] = at
    flip = 1 << rand(4)
    if rand(4) == 0:
        flip |= 1 << rand(4)
    pins[0] ^= flip
    for b in range(4):
        if (flip >> b) & 1:
            raw_changes.add((b, at & mask))
    samples[0] += 1
    ring.sample(pins[0], at & mask)

class IrqRing(logic.EdgeRing):
    # An IRQ may fire between any two instructions of the main loop; here,
    # right after each take(), also the one that found the ring empty.
    def take(self):
        edge = logic.EdgeRing.take(self)
        if rand(5) == 0:
            irq()
        return edge

def now_and_drain():
    now = ticks_us()
    ring.housekeep(now)     # IRQs off in main.py: nothing fires here
    return now

ring = IrqRing(4, 64, HOLDOFF)
dev = logic.Device(4, 2, b"PICO", 5)
out = bytearray()
sent_at = []
ping = 0
rounds = 0
while clock[0] < period + 400000:
    clock[0] += 1 + rand(200)
    rounds += 1
    if rand(3) == 0:
        irq()               # an IRQ between rounds
    if rounds % 500 == 1:
        dev.feed(logic.frame(logic.T_PING, ping, struct.pack("<II", ping, 0)), ticks_us())
        ping += 1
    beats_before = dev.heartbeats
    now = dev.service(ring, now_and_drain)
    if dev.heartbeats != beats_before:
        sent_at.append(now)
    dev.write_output(out.extend)

beat_ticks = []
events = []
reconciled = 0
late = 0
not_raw = 0
for msg_type, seq, payload in logic.FrameReader().feed(out):
    if msg_type == logic.T_HEARTBEAT:
        beat_ticks.append(struct.unpack("<I", payload[:4])[0])
    elif msg_type in (logic.T_PRESS, logic.T_RELEASE):
        event, ticks, button, flags = struct.unpack("<IIBB", payload)
        if flags & logic.FLAG_RESENT:
            continue
        events.append(ticks)
        if flags & logic.FLAG_RECONCILED:
            reconciled += 1
        if (button, ticks) not in raw_changes:
            not_raw += 1
        if beat_ticks and logic.ticks_diff(ticks, beat_ticks[-1]) <= 0:
            late += 1
intervals = [logic.ticks_diff(sent_at[i], sent_at[i - 1]) for i in range(1, len(sent_at))]
lags = [logic.ticks_diff(sent_at[i], beat_ticks[i]) for i in range(len(beat_ticks))]
steps = [logic.ticks_diff(beat_ticks[i], beat_ticks[i - 1]) for i in range(1, len(beat_ticks))]
backwards = 0
ties = 0
for i in range(1, len(events)):
    d = logic.ticks_diff(events[i], events[i - 1])
    if d < 0:
        backwards += 1
    elif d == 0:
        ties += 1
print(json.dumps({
    "rounds": rounds,
    "samples": samples[0],
    "heartbeats": len(beat_ticks),
    "sent_at": len(sent_at),
    "sent_heartbeats": dev.heartbeats,
    "longest": max(intervals),
    "shortest": min(intervals),
    "least_lag": min(lags),
    "most_lag": max(lags),
    "held": len([lag for lag in lags if lag > logic.CAPTURE_LAG_US]),
    "beat_backwards": len([s for s in steps if s < 0]),
    "events": len(events),
    "reconciled": reconciled,
    "ties": ties,
    "not_raw": not_raw,
    "late": late,
    "backwards": backwards,
}))
"""


def _check_heartbeat_scenario(result: dict[str, Any]) -> None:
    # At most 1 ms apart (the default), never more often than the slack allows.
    assert result["longest"] <= 1_000
    assert result["shortest"] >= 1_000 - 250
    assert result["heartbeats"] == result["sent_at"] == result["sent_heartbeats"] >= 800
    # Not vacuous: many edges, many of them caught mid-drain, ties, changes hidden
    # in hold-offs and reconciled, heartbeats held back below them.
    assert result["events"] > 1_000
    assert result["reconciled"] > 100
    assert result["ties"] > 10
    assert result["held"] > 50
    # Every stamp is a pin change's own tick: a reconciled edge too, not the
    # moment the main loop noticed it.
    assert result["not_raw"] == 0
    # The promise: nothing stamped at or before a heartbeat's tick comes after it
    # (``now - 2``: a sample filed 1 µs late is not passed), the watermark never
    # goes back, the device numbers its events in stamp order, and a hidden change
    # holds the watermark back by no more than its hold-off and a round.
    assert result["late"] == 0
    assert result["beat_backwards"] == 0
    assert result["backwards"] == 0
    assert result["least_lag"] == logic.CAPTURE_LAG_US
    assert result["most_lag"] <= 300 + 250


def test_heartbeat_scenario_under_cpython() -> None:
    _check_heartbeat_scenario(_run_cpython(HEARTBEAT_SCENARIO))


def test_heartbeat_scenario_under_micropython() -> None:
    result = _micropython(HEARTBEAT_SCENARIO)
    _check_heartbeat_scenario(result)
    assert result == _run_cpython(HEARTBEAT_SCENARIO)


def _beats(host: Host) -> list[p.Heartbeat]:
    return [m for m in host.read() if isinstance(m, p.Heartbeat)]


def test_heartbeat_tick_is_two_before_the_round_that_drained_the_ring() -> None:
    device, host, _, _ = _device()
    ring = logic.EdgeRing(4, size=8, holdoff_us=0)
    ring.sample(0b10, 5_000)  # stamped in the very µs the round then reads
    device.service(ring, lambda: 5_000)
    messages = host.read()
    assert [type(m) for m in messages] == [p.Press, p.Heartbeat]
    beat = messages[1]
    assert isinstance(beat, p.Heartbeat)
    # Every event stamped at or before it was sent; and a sample taken at 4_999,
    # whose word the PIO pushes up to ~1 µs later, was in the FIFO by 5_000.
    assert beat.ticks == 5_000 - logic.CAPTURE_LAG_US == 4_998


def _beat_times(device: logic.Device, host: Host, rounds: range) -> list[int]:
    """Run the device's timers at each tick of ``rounds``; the ticks it sent a heartbeat at."""
    sent = []
    for now in rounds:
        device.poll(now)
        sent += [now for _ in _beats(host)]
    return sent


def _gaps(times: list[int]) -> list[int]:
    return [b - a for a, b in itertools.pairwise(times)]


def test_heartbeats_slow_down_while_no_host_listens() -> None:
    device, host, _, _ = _device(host_timeout_us=50_000)
    # Nobody there: the slow beat (a 1 kHz stream into an unopened port is waste).
    assert _beat_times(device, host, range(0, 1_000_001, 100)) == [
        0,
        250_000,
        500_000,
        750_000,
        1_000_000,
    ]
    host.send(p.Ping(1), 1_000_050)  # the host is there: 1 kHz from the next round on
    host.read()
    fast = _beat_times(device, host, range(1_000_100, 1_050_001, 100))
    assert fast[0] <= 1_001_000 and len(fast) >= 50 and max(_gaps(fast)) <= 1_000
    # Silent for host_timeout_us: the slow beat again.
    assert _beat_times(device, host, range(1_050_100, 1_250_001, 100)) == []


def test_heartbeat_interval_is_configurable() -> None:
    device, host, _, _ = _device(heartbeat_us=400, heartbeat_slack_us=100)
    host.send(p.Ping(1), 0)
    host.read()
    sent = _beat_times(device, host, range(0, 10_001, 50))
    assert len(sent) >= 25 and max(_gaps(sent)) <= 400
    with pytest.raises(ValueError):
        _device(heartbeat_us=100, heartbeat_slack_us=100)


@given(
    seq=st.integers(0, 0xFFFF),
    ticks=st.integers(0, PERIOD - 1),
    next_event=st.integers(0, 0xFFFFFFFF),
    oldest=st.integers(0, 0xFFFFFFFF),
    dropped=st.integers(0, 0xFFFFFFFF),
    rx_bad=st.integers(0, 0xFFFFFFFF),
    overflows=st.integers(0, 0xFFFFFFFF),
)
def test_the_preallocated_heartbeat_is_the_generic_frame(
    seq: int, ticks: int, next_event: int, oldest: int, dropped: int, rx_bad: int, overflows: int
) -> None:
    built = logic.HeartbeatFrame().build(seq, ticks, next_event, oldest, dropped, rx_bad, overflows)
    payload = struct.pack("<IIIIII", ticks, next_event, oldest, dropped, rx_bad, overflows)
    assert bytes(built) == logic.frame(logic.T_HEARTBEAT, seq, payload)
    assert FrameDecoder().feed(bytes(built)) == [
        p.Frame(seq, p.Heartbeat(ticks, next_event, oldest, dropped, rx_bad, overflows))
    ]


def test_output_keeps_its_order_around_a_pending_heartbeat() -> None:
    device, host, _, _ = _device()
    device.poll(0)  # a lone heartbeat: left in its buffer
    host.send(p.Ping(9), 10)  # the pong goes last, stamped as it is written
    device.edge(0, 1, 20, 20)
    chunks: list[bytes] = []
    device.write_output(lambda data: chunks.append(bytes(data)))
    decoded = [f.message for f in FrameDecoder().feed(b"".join(chunks))]
    assert [type(m) for m in decoded] == [p.Heartbeat, p.Press, p.Pong]
    device.poll(5_000)  # the next round has only its heartbeat: written from its buffer
    device.write_output(lambda data: chunks.append(bytes(data)))
    assert chunks[-1] == bytes(device.beat.wire)
    assert device.take_output() == b""


# A round with nothing but its heartbeat (nearly every round at 1 kHz) must not
# allocate, or the collector would stall the main loop every second or two.
# (Measured in steady state: the very first rounds allocate once, 48 bytes.)
HEARTBEAT_ALLOC_CHECK = r"""
import gc, json, struct, time
import logic
dev = logic.Device(4, 2, b"PICO", 1, diff=time.ticks_diff, add=time.ticks_add)
dev.feed(logic.frame(logic.T_PING, 0, bytes(8)), 0)  # a host listens
written = [0]
def write(data):
    written[0] += 1
now = 0
for i in range(4):  # warm up (MicroPython allocates once on a first call)
    dev.poll(now)
    dev.write_output(write)
    now = time.ticks_add(now, 500)
written[0] = 0
beats = dev.heartbeats
gc.collect()
gc.disable()
before = gc.mem_alloc()
for i in range(200):
    now = time.ticks_add(now, 500)
    dev.poll(now)
    dev.write_output(write)
after = gc.mem_alloc()
gc.enable()
print(json.dumps({
    "alloc_bytes": after - before,
    "heartbeats": dev.heartbeats - beats,
    "writes": written[0],
}))
"""


def test_a_heartbeat_round_allocates_nothing_under_micropython() -> None:
    result = _micropython(HEARTBEAT_ALLOC_CHECK)
    # 200 rounds 500 µs apart: a heartbeat every other round (750 µs apart at most).
    assert result == {"alloc_bytes": 0, "heartbeats": 100, "writes": 100}


def test_a_round_with_events_awaiting_their_ack_allocates_nothing_under_micropython() -> None:
    """Events in the ring whose resend is not due yet (the usual state between a
    press and its ACK) cost a round a comparison, not garbage."""
    check = HEARTBEAT_ALLOC_CHECK.replace(
        'dev = logic.Device(4, 2, b"PICO", 1, diff=time.ticks_diff, add=time.ticks_add)',
        'dev = logic.Device(4, 2, b"PICO", 1, resend_us=10000000, diff=time.ticks_diff,'
        " add=time.ticks_add)\ndev.edge(1, 1, 0, 0)\ndev.edge(1, 0, 1, 1)",
    )
    assert check != HEARTBEAT_ALLOC_CHECK
    result = _micropython(check)
    assert result == {"alloc_bytes": 0, "heartbeats": 100, "writes": 100}
