"""The firmware's stamps on the chip model: real MicroPython, emulated RP2040.

The presses are driven at exact emulated nanoseconds by the harness (the
independent reference: it is not the path under test), and the firmware's
PRESS frames are decoded by the host's own protocol module. What must hold
(the Pico issue's goals; RULES C2003-2.4.6 "the first to press answers"):

- on every pair of seats, in both orders, at 0, 2, 5, 10, 20, 100 and
  1000 µs apart: at 0 µs the two stamps are equal (a tie, settled on the
  host by the journaled draw); at 2 µs or more the earlier press has the
  earlier stamp, with the commanded spacing to within the 1 µs sample; never
  an inversion; no press missed or late;
- every stamp is the chip's true edge time (its ``ticks_us`` at the edge) up
  to one constant offset of a few µs, the same for every pin.
"""

from __future__ import annotations

import itertools
import statistics

import pytest

from firmware_bridge import protocol, shipped
from firmware_bridge.chip import ChipModel
from firmware_bridge.firmware import logic
from tests.support.chip_support import ChipHost

OFFSETS_US = (0, 2, 5, 10, 20, 100, 1000)
BUTTONS = len(logic.BUTTON_PINS)
#: A round: presses from 1 ms to 2 ms, releases at 13 ms (past the last press's
#: 10 ms hold-off), the next round's presses 25 ms on (past the release's). An
#: exact-mode chip costs a CPU per emulated second: a round is no longer than
#: the hold-offs and a millisecond's margin on each need.
ROUND_NS = 25_000_000
PRESS_AT_NS = 1_000_000
RELEASE_AT_NS = 13_000_000


@pytest.fixture(scope="module")
def chip_host() -> ChipHost:
    chip = ChipModel().start()
    try:
        yield ChipHost(chip).start()
    finally:
        chip.stop()


def _trials() -> list[tuple[int, int, int]]:
    """(first, second, offset µs) for every seat pair, both orders, every offset."""
    return [
        (a, b, offset)
        for a, b in itertools.permutations(range(BUTTONS), 2)
        for offset in OFFSETS_US
    ]


def _rounds(trials: list[tuple[int, int, int]]) -> list[list[tuple[int, int, int]]]:
    """Pack trials into rounds of disjoint buttons (four pairs at once on eight buttons)."""
    left = list(trials)
    rounds = []
    while left:
        used: set[int] = set()
        this_round = []
        for trial in list(left):
            a, b, _ = trial
            if a in used or b in used:
                continue
            used |= {a, b}
            this_round.append(trial)
            left.remove(trial)
        rounds.append(this_round)
    return rounds


def test_the_shipped_firmware_boots_and_its_hello_is_the_hosts(chip_host: ChipHost) -> None:
    """The HELLO of the firmware as shipped: its pin map, no button held at boot,
    a chip it supports, and its firmware identity, computed by main.py on the
    chip from its file system, the same 8 bytes the host computes over the
    files it put there. (It shares this file's chip, the shipped firmware's:
    test_chip_boot.py's chips each boot something else.)"""
    chip = chip_host.chip
    hello = chip_host.hellos[-1]
    assert hello.protocol == protocol.PROTOCOL_VERSION
    assert hello.buttons == BUTTONS
    assert hello.lamps == len(logic.LAMP_PINS)
    assert hello.tick_bits == logic.TICKS_BITS
    assert hello.firmware == logic.FIRMWARE_VERSION
    assert not hello.unsupported_chip
    assert hello.held_at_boot == 0
    assert hello.firmware_id == shipped.identity_of(chip.files)
    assert hello.firmware_id == shipped.shipped_identity()
    assert shipped.hello_refusal(hello) is None


def test_pairs_on_every_seat_pair_keep_their_order_and_ties(chip_host: ChipHost) -> None:
    """All the rounds go to the harness at once, one after the other on the
    chip's clock (a round's frames are delivered while the next one's presses
    come, as in a game); each press is put in its round by its true edge."""
    chip = chip_host.chip
    pin_button = {pin: i for i, pin in enumerate(chip.button_pins)}
    trials = _trials()
    assert len(trials) == 8 * 7 * 7
    rounds = _rounds(trials)
    edges = []
    for r, this_round in enumerate(rounds):
        at = r * ROUND_NS
        for a, b, offset in this_round:
            edges.append((chip.button_pins[a], 0, at + PRESS_AT_NS))
            edges.append((chip.button_pins[b], 0, at + PRESS_AT_NS + offset * 1000))
            edges.append((chip.button_pins[a], 1, at + RELEASE_AT_NS))
            edges.append((chip.button_pins[b], 1, at + RELEASE_AT_NS))
    presses_before = len(chip_host.presses)
    releases_before = len(chip_host.releases)
    t0 = chip.schedule(edges)
    chip_host.wait_emulated(t0 + len(rounds) * ROUND_NS)
    # Delivery takes its time (a burst of eight frames and their ACKs cost
    # the main loop ~10 ms here); the stamps are what is under test.
    chip_host.wait_for(
        lambda: len(chip_host.releases) >= releases_before + len(trials) * 2,
        60.0,
        "every round's releases",
    )
    # Each press's true edge: the first edge to low of its pin after the
    # previous press of that pin (presses come in order per pin).
    truth_by_pin: dict[int, list[int]] = {}
    for e in chip.edges_since(t0):
        if e.level == 0:
            truth_by_pin.setdefault(pin_button[e.pin], []).append(e.ns)
    by_round: list[dict[int, tuple[int, int]]] = [{} for _ in rounds]
    errors: list[str] = []
    seen = dict.fromkeys(range(BUTTONS), 0)
    for press in chip_host.presses[presses_before:]:
        k = seen[press.button]
        seen[press.button] += 1
        if k >= len(truth_by_pin.get(press.button, [])):
            errors.append(f"button {press.button + 1}: a press nobody made")
            continue
        true_ns = truth_by_pin[press.button][k]
        r = (true_ns - t0) // ROUND_NS
        if press.button in by_round[r]:
            errors.append(f"round {r}: button {press.button + 1} pressed twice")
        by_round[r][press.button] = (press.ticks, true_ns)
    offsets_to_truth: list[int] = []
    for r, this_round in enumerate(rounds):
        stamps = by_round[r]
        if len(stamps) != 2 * len(this_round):
            errors.append(f"round {r}: {len(stamps)} presses for {this_round}")
            continue
        for ticks, true_ns in stamps.values():
            offsets_to_truth.append(logic.ticks_diff(ticks, chip.ticks_at(true_ns)))
        for a, b, offset in this_round:
            gap = logic.ticks_diff(stamps[b][0], stamps[a][0])
            if offset == 0 and gap != 0:
                errors.append(f"seats {a + 1},{b + 1} at 0 µs: stamps {gap} µs apart, not a tie")
            if offset > 0 and not (gap > 0 and abs(gap - offset) <= 1):
                errors.append(f"seats {a + 1} then {b + 1} {offset} µs apart: stamped {gap} µs")
    assert errors == []
    # One constant offset for every pin and press: the stamps are the true times.
    spread = max(offsets_to_truth) - min(offsets_to_truth)
    assert spread <= 1, f"stamp - true edge tick ranges over {spread} µs"
    assert abs(statistics.median(offsets_to_truth)) <= 10
