"""The firmware's glitch check (logic.EdgeRing with ``glitch_us``; GLITCH_US in main.py).

Issue 15 item 3, on the Pico's side: a change is a press (or a release) only
if the line still holds its new level ``glitch_us`` after its first edge,
which keeps its stamp. A 1 µs spike is nothing; a bouncing press is stamped
at its first edge; the heartbeat and every later edge wait for a candidate's
check, so the check delays delivery but never changes a stamp or an order.
The same rule as the Pi's GPIO path (tests/hardware/test_hardware_buttons.py).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.emulator import Emulator
from firmware_bridge.firmware import logic, settings
from tests.firmware_bridge.test_bridge_capture import drain

GLITCH = 1_000


def ring(buttons: int = 2) -> logic.EdgeRing:
    return logic.EdgeRing(buttons, holdoff_us=10_000, glitch_us=GLITCH)


def feed(r: logic.EdgeRing, *samples: tuple[int, int]) -> logic.EdgeRing:
    """``(levels, tick)`` samples in turn, as the capture IRQ hands them over."""
    for levels, tick in samples:
        r.sample(levels, tick)
    return r


def test_a_one_microsecond_spike_is_no_press_and_no_release() -> None:
    r = ring()
    r.sample(0b01, 100)
    r.sample(0b00, 101)
    assert r.hidden_before(500) == 100  # the heartbeat waits for the check
    r.housekeep(1_100)
    assert drain(r) == []
    assert r.hidden_before(1_100) == 1_100
    assert not r.holding(0)  # a glitch leaves no hold-off: a real press right after counts
    r.sample(0b01, 1_200)
    r.housekeep(2_200)
    assert drain(r) == [(0, 1, 0, 1_200)]


def test_a_held_press_is_confirmed_at_the_check_with_its_first_edge_s_stamp() -> None:
    r = ring()
    r.sample(0b01, 100)
    r.housekeep(1_099)
    assert drain(r) == []  # not yet checked
    assert r.hidden_before(1_099) == 100
    r.housekeep(1_100)  # exactly glitch_us after the edge
    assert drain(r) == [(0, 1, 0, 100)]
    assert r.hidden_before(1_100) == 1_100


def test_a_bouncing_press_keeps_its_first_edge_s_stamp() -> None:
    r = feed(ring(), (1, 100), (0, 140), (1, 180), (0, 260), (1, 300))
    r.housekeep(1_500)
    assert drain(r) == [(0, 1, 0, 100)]


def test_a_spike_ending_just_before_the_check_is_still_a_glitch() -> None:
    r = ring()
    r.sample(0b01, 100)
    r.sample(0b00, 1_099)
    r.housekeep(5_000)
    assert drain(r) == []


def test_the_next_sample_settles_the_check_when_the_main_loop_is_late() -> None:
    # The release at 4_000 calls the check first, with the level before it.
    r = ring()
    r.sample(0b01, 100)
    r.sample(0b00, 4_000)
    assert drain(r) == [(0, 1, 0, 100)]
    r.housekeep(20_000)  # the release, inside the press's hold-off, reconciled
    assert drain(r) == [(0, 0, logic.FLAG_RECONCILED, 4_000)]


def test_a_release_passes_the_same_check() -> None:
    r = ring()
    r.sample(0b01, 100)
    r.housekeep(20_000)
    assert drain(r) == [(0, 1, 0, 100)]
    r.sample(0b00, 30_000)  # a 1 µs drop-out while the button is held
    r.sample(0b01, 30_001)
    r.housekeep(32_000)
    assert drain(r) == []
    r.sample(0b00, 40_000)  # the real release
    r.housekeep(41_000)
    assert drain(r) == [(0, 0, 0, 40_000)]


def test_a_later_edge_waits_for_an_earlier_candidate_and_order_holds() -> None:
    r = ring()
    r.sample(0b01, 100)  # button 0's candidate
    r.sample(0b11, 102)  # button 1, 2 µs later
    r.housekeep(1_101)  # button 0 confirmed; button 1's check is not due yet
    assert drain(r) == [(0, 1, 0, 100)]
    assert r.hidden_before(1_101) == 102  # the heartbeat stays below button 1's candidate
    r.housekeep(1_102)
    assert drain(r) == [(1, 1, 0, 102)]


def test_an_edge_stamped_after_a_candidate_is_held_back_until_its_check() -> None:
    # Button 1 has no glitch check pending when button 0's candidate is dropped:
    # it must still come out, and not before the candidate is settled.
    r = ring()
    r.sample(0b01, 100)
    r.sample(0b00, 101)  # button 0: a spike
    r.sample(0b10, 500)  # button 1: a press
    r.housekeep(1_200)
    assert drain(r) == []
    r.housekeep(1_500)
    assert drain(r) == [(1, 1, 0, 500)]


def test_simultaneous_presses_stay_a_tie_through_the_check() -> None:
    r = ring(8)
    r.sample(0b1000_0001, 700)
    r.housekeep(1_700)
    assert drain(r) == [(0, 1, 0, 700), (7, 1, 0, 700)]


@given(
    spikes=st.lists(
        st.tuples(st.integers(0, 7), st.integers(1, GLITCH - 1)), min_size=1, max_size=20
    )
)
def test_no_spike_shorter_than_the_check_ever_becomes_an_edge(
    spikes: list[tuple[int, int]],
) -> None:
    r = ring(8)
    t = 1_000
    for button, width in spikes:
        r.sample(1 << button, t)
        r.sample(0, t + width)
        t += width + 20_000
        r.housekeep(t)
    assert drain(r) == []
    assert r.overflows == 0


def test_the_firmware_and_its_python_model_apply_the_same_check() -> None:
    assert settings.glitch_us() == GLITCH
    with Emulator(buttons=2, lamps=2) as emulator:
        assert emulator.ring.glitch == settings.glitch_us()
        assert emulator.ring.holdoff == settings.holdoff_us()


def test_a_resync_after_a_lost_word_keeps_a_bouncing_press_s_first_stamp() -> None:
    # The capture FIFO dropped the bounce's last word (pressed again at 400):
    # the ring last saw "released" at 300. Read from the pins 4 ms later, the
    # button is pressed: the candidate held through the loss and keeps tick 100.
    bounce = ((1, 100), (0, 200), (1, 250), (0, 300))
    r = feed(ring(), *bounce)
    r.resync(0b01, 4_100)
    r.housekeep(20_000)
    assert drain(r) == [(0, 1, 0, 100)]
    # An ordinary sample instead would have dropped the candidate at its check
    # (the stale "released") and stamped the press at the read: 4 ms late.
    late = feed(ring(), *bounce, (0b01, 4_100))
    late.housekeep(20_000)
    assert drain(late) == [(0, 1, 0, 4_100)]


def test_a_resync_that_reads_the_old_level_is_still_a_glitch() -> None:
    r = ring()
    r.sample(0b01, 100)
    r.sample(0b00, 101)
    r.resync(0b00, 4_000)
    r.housekeep(20_000)
    assert drain(r) == []
