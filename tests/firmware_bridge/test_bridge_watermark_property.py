"""The link's event-time watermark (firmware_bridge/link.py), as a property over
any frame sequence a device may send (edges lost on the wire, heartbeats, clock
fits that move, resends of the whole ring): never back, never passed by an
event, every event handed on once, the last heartbeat reached.

Hypothesis writes the script (:class:`DeviceModel` keeps it to what a real
device may send); one scripted device plays it to the link in one go.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as p
from tests.support.scripted_device import (
    MASK,
    START_US,
    TICK_BITS,
    beat,
    hello,
    mapped,
    pong,
    scripted_link,
)


@dataclass(frozen=True)
class Edge:
    button: int
    gap_us: int
    lost: bool


@dataclass(frozen=True)
class Beat:
    gap_us: int


@dataclass(frozen=True)
class Fit:
    gap_us: int
    shift_us: int


@dataclass(frozen=True)
class Resend:
    pass


Step = Edge | Beat | Fit | Resend

steps = st.one_of(
    # One edge in five lost on the wire (a gap until the next resend).
    st.builds(
        Edge, st.integers(0, 3), st.integers(0, 3_000), st.integers(0, 4).map(lambda n: n == 0)
    ),
    st.builds(Beat, st.integers(0, 1_500)),
    st.builds(Fit, st.integers(0, 2_000), st.integers(-400, 400)),
    st.just(Resend()),
)


class DeviceModel:
    """What a real device may send: events numbered in stamp order, each sent (or
    lost on the wire) at once; heartbeats whose tick is at or after every event
    stamped so far, the next event at least 1 µs after it; the whole ring resent."""

    def __init__(self, start_us: int) -> None:
        self.now = start_us
        self.events: list[p.Press | p.Release] = []
        self.pressed = [False] * 4
        self.frames: list[p.Message] = []
        self.fits = 0
        self.last_beat: int | None = None

    def edge(self, step: Edge) -> None:
        self.now += step.gap_us
        self.pressed[step.button] = not self.pressed[step.button]
        kind = p.Press if self.pressed[step.button] else p.Release
        event = kind(len(self.events) + 1, self.now & MASK, step.button)
        self.events.append(event)
        if not step.lost:
            self.frames.append(event)

    def beat(self, step: Beat) -> None:
        self.now += step.gap_us
        self.frames.append(beat(self.now, len(self.events) + 1))
        self.last_beat = self.now
        self.now += 1

    def fit(self, step: Fit) -> None:
        self.now += step.gap_us
        self.frames.append(pong(self.now, mapped(self.now) + step.shift_us * 1_000))
        self.fits += 1

    def resend(self) -> None:
        for event in self.events:
            self.frames.append(type(event)(event.event, event.ticks, event.button, p.FLAG_RESENT))

    def play(self, script: list[Step]) -> None:
        for step in script:
            if isinstance(step, Edge):
                self.edge(step)
            elif isinstance(step, Beat):
                self.beat(step)
            elif isinstance(step, Fit):
                self.fit(step)
            else:
                self.resend()
        if self.fits == 0:
            self.fit(Fit(0, 0))
        self.resend()
        self.beat(Beat(1))


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    start=st.sampled_from([START_US, (1 << TICK_BITS) - 20_000]),  # the second wraps
    early_fit=st.booleans(),
    script=st.lists(steps, max_size=40),
)
def test_watermark_property_over_device_frame_sequences(
    start: int, early_fit: bool, script: list[Step]
) -> None:
    model = DeviceModel(start)
    model.frames.append(hello(start))
    if early_fit:
        model.fit(Fit(0, 0))
    model.play(script)
    with scripted_link() as (device, link, seen):
        device.send(*model.frames)
        device.sync(link)
        final = link.watermark()
        highest = seen.check()
        stats = link.stats()
        # Every event handed on exactly once, whatever was lost and resent.
        delivered = sorted(i.event for i in seen.infos)
        assert delivered == list(range(1, len(model.events) + 1))
        assert (stats.events, stats.lost, stats.missing) == (len(model.events), 0, 0)
        # The last heartbeat, past every gap by then, is reached.
        last_beat = model.last_beat
        assert last_beat is not None and final is not None
        assert highest is None or final >= highest
        assert final >= link.mapper.to_host_ns(last_beat)
        if model.fits == 1:
            # One fit, never moved: no stamp was ever raised (so no watermark ever
            # passed an event still to come, a gap's included), every stamp is the
            # fit's own, and the watermark is exactly the last heartbeat.
            assert stats.watermark_clamps == 0
            assert all(i.t_ns == link.mapper.to_host_ns(i.device_us) for i in seen.infos)
            assert final == link.mapper.to_host_ns(last_beat)
