"""The link's event ledger, by property: against a plain model of the device's numbers.

The device numbers its events 1, 2, 3, … per boot; the host sees them out of
order, twice, or never, and the device's counters (a heartbeat's
``oldest_unacked``, a HELLO's after a restart) say which it can no longer
resend. Whatever the order: no event is handed on twice, each missing number
is reported in one gap only, the losses are exactly the numbers that never
came, and the published watermark never goes back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.ledger import EventLedger

#: One step of the device's story as the host reads it.
Step = tuple[str, int]

steps = st.lists(
    st.one_of(
        st.tuples(st.just("arrive"), st.integers(1, 30)),
        # A heartbeat's oldest_unacked.
        st.tuples(st.just("settle"), st.integers(1, 31)),
        # The device restarted; its HELLO's oldest_unacked.
        st.tuples(st.just("boot"), st.integers(1, 5)),
    ),
    max_size=80,
)


@dataclass
class Model:
    """What the ledger must know, said the plain way: sets of numbers per boot."""

    #: Every number up to it is settled (before the boot's first, or given up for lost).
    floor: int = 0
    received: set[int] = field(default_factory=set)
    lost: set[int] = field(default_factory=set)
    reported_gaps: set[int] = field(default_factory=set)
    lost_total: int = 0

    def settled(self, event: int) -> bool:
        return event <= self.floor or event in self.received

    @property
    def highest(self) -> int:
        return max([self.floor, *self.received])

    def holes(self) -> set[int]:
        return {n for n in range(self.floor + 1, self.highest) if n not in self.received}


def play(ledger: EventLedger, model: Model, step: Step) -> None:
    kind, number = step
    if kind == "arrive":
        arrival = ledger.arrive(number)
        assert arrival.duplicate == model.settled(number)
        if arrival.duplicate:
            return
        # Never handed on twice in a boot, never after it was given up for lost.
        assert number not in model.received and number not in model.lost
        highest = model.highest
        if number > highest + 1:
            assert arrival.gap == (highest + 1, number - 1)
            gap = set(range(highest + 1, number))
            assert not gap & model.reported_gaps  # a missing number: in one gap only
            model.reported_gaps |= gap
        else:
            assert arrival.gap is None
        assert arrival.recovered == (number < highest)
        model.received.add(number)
        assert arrival.in_order == all(model.settled(n) for n in range(1, number + 1))
    elif kind == "settle":
        # (The link settles a heartbeat's only up to one past the highest in hand;
        # the ledger's contract holds beyond it too.)
        oldest = number
        gone = {n for n in range(model.floor + 1, oldest) if n not in model.received}
        assert ledger.settle_lost(oldest) == len(gone)
        model.lost |= gone
        model.lost_total += len(gone)
        model.floor = max(model.floor, oldest - 1)
    else:
        holes = model.holes()
        assert ledger.new_boot(number) == len(holes)  # the old ring is gone with its boot
        model.lost_total += len(holes)
        fresh = Model(floor=number - 1, lost_total=model.lost_total)
        model.__dict__.update(fresh.__dict__)


@settings(max_examples=300, deadline=None)
@given(steps)
def test_the_ledger_agrees_with_the_plain_model(story: list[Step]) -> None:
    ledger, model = EventLedger(), Model()
    accepted = 0
    for step in story:
        before = ledger.events
        play(ledger, model, step)
        accepted += ledger.events - before
        # The numbers' bookkeeping at every step, not only at the end.
        assert ledger.highest == model.highest
        assert ledger.missing == len(model.holes())
        assert ledger.acked == max(
            n
            for n in range(model.floor, model.highest + 1)
            if all(model.settled(m) for m in range(1, n + 1))
        )
        assert ledger.lost == model.lost_total  # the losses are exactly the holes given up
    assert ledger.events == accepted


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 40), max_size=60))
def test_each_gap_is_reported_once_and_counted(arrivals: list[int]) -> None:
    ledger = EventLedger()
    reported: list[int] = []
    gaps = 0
    for event in arrivals:
        gap = ledger.arrive(event).gap
        if gap is not None:
            gaps += 1
            reported.extend(range(gap[0], gap[1] + 1))
    assert ledger.gaps == gaps
    assert len(reported) == len(set(reported))
    # Every number still missing below the highest was reported; any other reported
    # number came later (a resend that filled the gap), and was counted as recovered.
    never = set(range(1, ledger.highest + 1)) - set(arrivals)
    assert never <= set(reported)
    assert set(reported) - never <= set(arrivals)
    assert ledger.recovered == len(set(reported) & set(arrivals))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 40), max_size=60))
def test_settling_everything_accounts_for_every_number(arrivals: list[int]) -> None:
    """A heartbeat that settles up to the highest: every number is in hand or lost, once."""
    ledger = EventLedger()
    for event in arrivals:
        ledger.arrive(event)
    highest = ledger.highest
    ledger.settle_lost(highest + 1)
    assert ledger.events + ledger.lost == highest == ledger.acked
    assert ledger.missing == 0
    assert ledger.duplicates == len(arrivals) - len(set(arrivals))


watermark_steps = st.lists(
    st.one_of(
        st.tuples(st.just("advance"), st.integers(0, 1_000)),
        st.tuples(st.just("publish"), st.integers(0, 1_000)),
        st.tuples(st.just("boot"), st.integers(1, 3)),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(watermark_steps)
def test_the_watermark_never_goes_backwards(story: list[Step]) -> None:
    ledger = EventLedger()
    published: list[int] = []
    mark_us = None
    for kind, value in story:
        if kind == "advance":
            ledger.advance_mark(value)
            assert ledger.mark_us is not None
            assert mark_us is None or ledger.mark_us >= mark_us  # in device time too
            assert ledger.mark_us >= value
        elif kind == "publish":
            before = ledger.mark_ns
            moved = ledger.publish(value)
            assert moved == (ledger.mark_us is not None and (before is None or value > before))
            if moved:
                published.append(value)
                assert ledger.mark_at_us == ledger.mark_us
            else:
                assert ledger.mark_ns == before
        else:
            ledger.new_boot(value)
            # Another clock: nothing promised on it yet; the published mark stays.
            assert ledger.mark_us is None and ledger.mark_at_us is None
        mark_us = ledger.mark_us
        assert published == sorted(set(published))
        assert ledger.mark_ns == (published[-1] if published else None)


def test_counters_that_cannot_be_true_are_named() -> None:
    ledger = EventLedger()
    for event in (1, 2, 3):
        ledger.arrive(event)
    assert ledger.counters_problem(4, 5) is not None  # oldest beyond next
    assert ledger.counters_problem(3, 1) is not None  # next not past event 3
    assert ledger.counters_problem(9, 6) is not None  # ahead of every event received
    assert ledger.counters_problem(9, 6, hello=True) is None  # a HELLO may be
    assert ledger.counters_problem(2, 1, new_boot=True) is None  # another boot's numbers
    assert ledger.counters_problem(9, 4) is None
