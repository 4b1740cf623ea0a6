"""The firmware's edge ring (firmware_bridge/firmware/logic.py): the first edge
counts and bounce is held off, a bounce longer than the hold-off reconciled at
its own tick, buttons independent, an overflow counted, not fatal.
"""

from __future__ import annotations

from firmware_bridge.firmware import logic
from tests.support.firmware_logic import PERIOD


def _drain(ring: logic.EdgeRing) -> list[tuple[int, int, int, int]]:
    out = []
    while (edge := ring.take()) is not None:
        out.append(edge)
    return out


def test_first_edge_counts_and_bounce_is_held_off() -> None:
    ring = logic.EdgeRing(2, size=16, holdoff_us=10_000)
    t0 = PERIOD - 3_000  # across the counter's wrap
    for dt, level in ((0, 1), (40, 0), (90, 1), (400, 0), (2_000, 1)):  # a bouncing press
        ring.sample(level, logic.ticks_add(t0, dt))
    assert _drain(ring) == [(0, 1, 0, t0)]
    ring.housekeep(logic.ticks_add(t0, 10_000))  # hold-off over, the pin rests pressed
    assert _drain(ring) == []
    release = logic.ticks_add(t0, 50_000)
    ring.sample(0b00, release)
    ring.sample(0b01, logic.ticks_add(release, 30))  # bounce...
    ring.sample(0b00, logic.ticks_add(release, 60))  # ...and back: nothing hidden remains
    assert _drain(ring) == [(0, 0, 0, release)]
    assert ring.hidden_before(logic.ticks_add(release, 100)) == logic.ticks_add(release, 100)


def test_bounce_longer_than_the_hold_off_is_reconciled_at_its_own_tick() -> None:
    ring = logic.EdgeRing(1, size=16, holdoff_us=1_000)
    ring.sample(1, 100)  # press
    ring.sample(0, 1_500)  # a late bounce after the hold-off: taken as a release...
    ring.sample(1, 1_520)  # ...and the contact closes again inside the release's hold-off
    assert [e[1] for e in _drain(ring)] == [1, 0]
    assert ring.hidden_before(2_000) == 1_520
    # The pin rests pressed: when the hold-off ends the state is put right, stamped
    # when the pin really changed (1_520), not when the main loop noticed (2_600).
    ring.housekeep(2_600)
    assert _drain(ring) == [(0, 1, logic.FLAG_RECONCILED, 1_520)]
    assert ring.hidden_before(2_600) == 2_600


def test_two_buttons_are_independent() -> None:
    ring = logic.EdgeRing(2, size=16, holdoff_us=10_000)
    ring.sample(0b01, 1_000)
    ring.sample(0b11, 1_100)
    assert [(b, t) for b, _, _, t in _drain(ring)] == [(0, 1_000), (1, 1_100)]


def test_ring_overflow_is_counted_not_fatal() -> None:
    ring = logic.EdgeRing(8, size=4, holdoff_us=0)
    for button in range(8):
        ring.sample((2 << button) - 1, 10 * button)  # one more button pressed each time
    assert len(_drain(ring)) == 3  # one slot stays free to tell full from empty
    assert ring.overflows == 5
