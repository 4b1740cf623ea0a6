"""changes_in_groups: a group of pin changes closes on the chip's clock, not the host's.

A pulse's second edge whose bytes come late on a busy host must still join the
first (the glitch check's 1 µs spike stays a spike); pure threads and queues,
no chip model needed.
"""

from __future__ import annotations

import queue

from firmware_bridge.chip.model import ChipModelError
from firmware_bridge.chip.wiring import Change, changes_in_groups

WINDOW_NS = 200_000


def test_a_late_second_edge_joins_its_group_while_the_chip_is_inside_the_window() -> None:
    events: queue.SimpleQueue[Change | None] = queue.SimpleQueue()
    events.put((2, 0, 1_000))
    asked: list[int] = []

    def chip_now() -> int:
        # The first question: the chip is still inside the window, and the spike's
        # second edge comes (its bytes were late); the next: the chip is past it.
        asked.append(1)
        if len(asked) == 1:
            events.put((2, 1, 2_000))
            return 1_500
        return 1_000 + WINDOW_NS + 1

    groups = changes_in_groups(events, WINDOW_NS, 0.001, chip_now)
    assert next(groups) == [(2, 0, 1_000), (2, 1, 2_000)]
    assert len(asked) == 2
    events.put(None)
    assert list(groups) == []


def test_without_the_chip_s_clock_a_group_closes_after_the_wall_wait() -> None:
    events: queue.SimpleQueue[Change | None] = queue.SimpleQueue()
    events.put((2, 0, 1_000))
    groups = changes_in_groups(events, WINDOW_NS, 0.001)
    assert next(groups) == [(2, 0, 1_000)]
    events.put((2, 1, 2_000))
    events.put(None)
    assert list(groups) == [[(2, 1, 2_000)]]


def test_a_change_beyond_the_window_starts_the_next_group() -> None:
    events: queue.SimpleQueue[Change | None] = queue.SimpleQueue()
    for change in ((2, 0, 0), (3, 0, 100), (2, 1, WINDOW_NS + 1), None):
        events.put(change)
    groups = list(changes_in_groups(events, WINDOW_NS, 0.001, lambda: 10**12))
    assert groups == [[(2, 0, 0), (3, 0, 100)], [(2, 1, WINDOW_NS + 1)]]


def test_a_chip_that_no_longer_answers_closes_the_group() -> None:
    events: queue.SimpleQueue[Change | None] = queue.SimpleQueue()
    events.put((2, 0, 1_000))

    def stopped() -> int:
        raise ChipModelError("the chip model did not answer 'now'")

    assert next(changes_in_groups(events, WINDOW_NS, 0.001, stopped)) == [(2, 0, 1_000)]
