"""Wires between two chip models: one's watched outputs drive the other's inputs.

What a bench does with jumper wires between the pulse generator's Pico and
the Pico under test (GP2 to GP2, GP3 to GP3, ...), for tests and benchmarks
that run both firmwares on emulated RP2040s.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator

from firmware_bridge.chip.model import ChipModel, ChipModelError

Change = tuple[int, int, int]  # (pin, state, emulated ns)


def changes_in_groups(
    events: queue.SimpleQueue[Change | None],
    window_ns: int,
    wait_s: float,
    chip_now: Callable[[], int] | None = None,
) -> Iterator[list[Change]]:
    """Pin changes from ``events`` in groups: each with the changes that follow its first
    within ``window_ns`` on the chip's clock; until None.

    With ``chip_now`` (the emitting chip's :meth:`ChipModel.now_ns`) a group closes
    only once the chip's clock is past its window: the chip answers the question
    after every change it made before it, so what is queued then is all there is.
    The ``wait_s`` between questions is then only a polling period, and a busy
    host (a change's bytes late by more than ``wait_s``) never splits a group.
    Without it, a group closes after ``wait_s`` with no change (wall time).
    """
    pending: Change | None = None
    while True:
        first = pending if pending is not None else events.get()
        pending = None
        if first is None:
            return
        group = [first]
        settled = False  # the chip's clock is known to be past this group's window
        while True:
            try:
                event = events.get(block=not settled, timeout=wait_s)
            except queue.Empty:
                if settled or chip_now is None:
                    break
                settled = _past(chip_now, first[2] + window_ns)
                continue
            if event is None:
                yield group
                return
            if event[2] - first[2] > window_ns:
                pending = event
                break
            group.append(event)
        yield group


def _past(chip_now: Callable[[], int], ns: int) -> bool:
    """Is the chip's clock past ``ns``? A chip that no longer answers is (it is stopping)."""
    try:
        return chip_now() > ns
    except (ChipModelError, OSError):
        return True


class ChipWires:
    """The generator's GP2.. wired to the Pico under test's GP2.., both chip models.

    Each RUN's changes are replayed on the Pico's pins with their exact
    spacing on the generator's clock (``ChipModel.schedule``), the next RUN
    no sooner than the last one's end: what wires would do, but for a
    constant delay that neither side's stamps see.
    """

    #: Changes this close on the generator's clock belong to one RUN (its longest
    #: step here is the bounce burst's 30 ms release).
    RUN_NS = 40_000_000
    WAIT_S = 0.08

    def __init__(self, generator: ChipModel, pico: ChipModel) -> None:
        self.generator = generator
        self.pico = pico
        self.events: queue.SimpleQueue[tuple[int, int, int] | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        generator.on_pin = lambda pin, state, ns: self.events.put((pin, state, ns))

    def _run(self) -> None:
        ends_ns = 0  # when the last replayed RUN ends on the Pico's clock
        for group in changes_in_groups(
            self.events, self.RUN_NS, self.WAIT_S, self.generator.now_ns
        ):
            first = group[0][2]
            edges = [(pin, state, ns - first) for pin, state, ns in group if state in (0, 1)]
            if not edges:
                continue
            lead = max(0, ends_ns - self.pico.now_ns() + 50_000)
            start = self.pico.schedule([(p, s, at + lead) for p, s, at in edges])
            ends_ns = start + lead + edges[-1][2]

    def close(self) -> None:
        self.events.put(None)
        self.thread.join(5)
