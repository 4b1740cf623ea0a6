"""The promise through the Pico path: the earliest edge on the device wins, whatever the load.

The Pico emulator (the firmware's own ``Device`` on a pseudo-terminal, its
heartbeat every millisecond) → the real ``BridgeLink`` (pyserial, its reader
and keeper threads, the clock mapping) → the runtime's link source (the
link's watermark) → the runtime thread → a real SQLite journal. Presses are
scripted at exact device times, a few hundred µs after the host's signal was
submitted and 20–400 µs apart, in a random order of seats; the runtime must
recognise the seat whose edge came first on the device, rule nothing late,
and write a journal whose replay makes the live decisions — quiet, and with
a CPU hog, garbage-collector pressure and an 8 ms journal commit together.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from buzzer.arbiter.events import Judge, ReadingEnd, ReadingStart, Select
from buzzer.runtime.controller import Controller
from buzzer.runtime.inputs import attach_bridge
from buzzer.runtime.runtime import Runtime
from firmware_bridge.emulator import Emulator
from tests.fairness_rig import (
    LiveRecord,
    SlowJournal,
    cpu_hog,
    gc_pressure,
    header,
    host,
    replayed_decisions,
)

SEATS = 6


@dataclass
class PicoOutcome:
    winners: list[tuple[int, int | None]] = field(default_factory=list)
    late: int = 0
    behind: int = 0
    late_edges: int = 0
    lost: int = 0
    faults: int = 0
    live: list[str] = field(default_factory=list)
    journal: Path | None = None


@contextlib.contextmanager
def nothing() -> Iterator[None]:
    yield


def play_pico(
    tmp_path: Path, questions: int, *, delay_s: float, seed: int, lead_us: int = 300
) -> PicoOutcome:
    """``lead_us``: how far in the device's future the presses are scripted. The
    script is a thread of this process: under a CPU hog and GC pressure it can
    itself be held longer than 300 µs between reading the device's time and
    scripting the edges, and an edge scripted for a time the device already
    reported past cannot be stamped exactly (``late_edges``)."""
    path = tmp_path / f"pico-{seed}.sqlite"
    store = SlowJournal(path, delay_s)
    controller = Controller.new(header(SEATS, questions), store)
    outcome = PicoOutcome(journal=path)
    record = LiveRecord()
    recognized = record.recognized
    lock = record.lock
    controller.subscribe(record)
    runtime = Runtime(controller).start()
    rng = random.Random(seed)
    with Emulator(buttons=SEATS, lamps=SEATS + 1) as emulator:
        attached = attach_bridge(runtime, emulator.path)
        try:
            assert attached.link.wait_connected(10), "the emulated Pico never connected"
            _wait(lambda: attached.link.watermark() is not None, "the Pico's watermark")
            for number in range(questions):
                host(runtime, lambda t: Select(t, None, None), ReadingStart)
                signal = runtime.command(ReadingEnd)
                seats = list(range(1, SEATS + 1))
                rng.shuffle(seats)
                at = lead_us  # in the device's future: exact stamps
                offsets: dict[int, int] = {}
                for seat in seats:
                    offsets[seat] = at
                    at += rng.randint(20, 400)
                script = list(offsets.items())
                rng.shuffle(script)  # the script's order is not the press order
                emulator.press_after({seat - 1: offset for seat, offset in script})
                runtime.wait(signal, timeout=30)
                _wait(lambda n=number: len(recognized) > n, f"question {number + 1} decided")
                with lock:
                    outcome.winners.append((seats[0], recognized[number]))
                host(runtime, lambda t: Judge(t, True))
                # After the presses' hold-off, scheduled atomically: a release the
                # script asked for too late would stretch its hold-off over the next press.
                released = emulator.release_after(
                    {seat - 1: max(11_000, lead_us) for seat in seats}
                )
                release_at = max(released.values())
                _wait(lambda: emulator.pending_edges() == 0, "the releases")
                # And past the releases' own hold-off: a press hidden in it would be
                # stamped when the firmware notices it (FLAG_RECONCILED), not at its edge.
                quiet_at = release_at + 11_000
                _wait(lambda q=quiet_at: emulator.now_us() > q, "the releases' hold-off")
            time.sleep(0.02)
            runtime.settle()
            outcome.lost = attached.link.stats().lost
        finally:
            attached.close()
            runtime.stop()
            store.close()
        outcome.late_edges = emulator.late_edges
    outcome.live = record.decisions
    outcome.late = record.late
    outcome.behind = runtime.stats.behind
    outcome.faults = runtime.stats.faults
    return outcome


def _wait(check: Any, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.0005)


@pytest.mark.parametrize(
    ("load", "delay_s", "questions"),
    [("quiet", 0.0, 60), ("hog-gc-journal-8ms", 0.008, 60)],
    ids=["quiet", "hog-gc-journal-8ms"],
)
def test_the_earliest_edge_on_the_pico_wins_under_load(
    tmp_path: Path, load: str, delay_s: float, questions: int
) -> None:
    loaded = load != "quiet"
    with cpu_hog() if loaded else nothing(), gc_pressure() if loaded else nothing():
        outcome = play_pico(
            tmp_path, questions, delay_s=delay_s, seed=len(load), lead_us=20_000 if loaded else 300
        )
    assert len(outcome.winners) == questions
    assert outcome.late_edges == 0, "the script fell behind the device: stamps not exact"
    wrong = [w for w in outcome.winners if w[0] != w[1]]
    assert wrong == [], f"a later edge won: {wrong}"
    assert outcome.late == 0, f"{outcome.late} in-time presses were ruled late"
    assert outcome.behind == 0, "a press reached the runtime after its time was decided"
    assert outcome.lost == 0
    assert outcome.faults == 0, "the Pico's watermark fell behind the wait bound"
    assert outcome.journal is not None
    assert replayed_decisions(outcome.journal) == outcome.live
