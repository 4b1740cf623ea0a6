"""The settle window's edges (buzzer/arbiter/sequencer.py), one instant at a time.

The properties in test_properties.py hold the buffer to "any arrival order
within the window gives the same decisions"; these pin the exact instants the
live controller relies on (when to tick, what is late), which a property over
random games only brushes. Written from the mutants a mutation run of the core
left alive (docs/design.md, "Mutation testing").
"""

from __future__ import annotations

from buzzer.arbiter.decisions import Ignored
from buzzer.arbiter.events import Press, ReadingEnd, Release, Select
from buzzer.arbiter.sequencer import ReorderBuffer
from buzzer.core import GameCore
from buzzer.journal.codec import parse_header

SETTLE = 3_000_000  # 3 ms


def test_the_deadline_is_the_first_instant_the_oldest_input_may_go() -> None:
    buffer = ReorderBuffer(SETTLE)
    press = Press(10_000_000, 1)
    assert buffer.offer(press, 1)
    buffer.offer(Press(12_000_000, 2), 2)
    deadline = buffer.next_deadline()
    assert deadline == 10_000_000 + SETTLE + 1
    buffer.observe(deadline - 1)  # an input stamped 10 ms could still arrive
    assert buffer.pop_ready() is None
    buffer.observe(deadline)
    assert buffer.pop_ready() == (press,)
    assert buffer.next_deadline() == 12_000_000 + SETTLE + 1
    assert ReorderBuffer(SETTLE).next_deadline() is None


def test_a_late_input_is_refused_and_changes_nothing() -> None:
    buffer = ReorderBuffer(SETTLE)
    buffer.offer(Press(20_000_000, 1), 1)
    before = (len(buffer), buffer.watermark)
    late = Press(20_000_000 - SETTLE - 1, 2)
    assert buffer.is_late(late.t)
    assert not buffer.offer(late, 2)
    assert (len(buffer), buffer.watermark) == before
    on_the_edge = Press(20_000_000 - SETTLE, 3)  # exactly settle behind: still in time
    assert not buffer.is_late(on_the_edge.t)
    assert buffer.offer(on_the_edge, 3)
    assert len(buffer) == 2


def test_the_core_reports_a_late_press_rather_than_playing_it() -> None:
    header = '{"type": "game", "rules": "championship-2003", "players": ["A", "B"], "chooser": 1}'
    core = GameCore(parse_header(header))
    out: list[object] = []
    core.push(Select(1_000_000, 1, 10), out)
    core.push(ReadingEnd(2_000_000), out)
    core.push(Press(50_000_000, 1), out)
    core.push(Press(50_000_000 - core.buffer.settle_ns - 1, 2), out)  # overtaken long ago
    late = [d for d in out if isinstance(d, Ignored) and d.seat == 2]
    assert late and late[0].reason == "late"


def test_inputs_of_one_instant_go_host_first_then_presses_then_releases() -> None:
    buffer = ReorderBuffer(SETTLE)
    t = 5_000_000
    release, press, host = Release(t, 1), Press(t, 2), ReadingEnd(t)
    for arrival, item in enumerate((release, press, host)):
        buffer.offer(item, arrival)
    buffer.observe(t + SETTLE + 1)
    assert buffer.pop_ready() == host
    assert buffer.pop_ready() == (press,)
    assert buffer.pop_ready() == release
    assert buffer.pop_ready() is None


def test_presses_of_one_instant_come_out_together_in_arrival_order() -> None:
    buffer = ReorderBuffer(SETTLE)
    t = 5_000_000
    presses = [Press(t, seat) for seat in (3, 1, 2)]
    for arrival, press in enumerate(presses):
        buffer.offer(press, arrival)
    buffer.offer(Press(t + 1, 4), len(presses))
    buffer.observe(t + SETTLE + 2)
    assert buffer.pop_ready() == tuple(presses)
    assert buffer.pop_ready() == (Press(t + 1, 4),)


def test_A_G1_inputs_added_at_one_instant_keep_their_arrival_order() -> None:
    buffer = ReorderBuffer(SETTLE)
    t = 5_000_000
    select, reading_end = Select(t, 1, 10), ReadingEnd(t)
    presses = [Press(t, seat) for seat in (3, 1, 2)]
    for arrival, item in enumerate((select, reading_end, *presses)):
        buffer.add(item, arrival)
    assert buffer.held() == [select, reading_end, *presses]  # what is about to happen
    buffer.observe(t + SETTLE + 1)
    assert buffer.pop_ready() == select
    assert buffer.pop_ready() == reading_end
    assert buffer.pop_ready() == tuple(presses)
    assert buffer.held() == [] and buffer.pop_ready() is None
