"""The dilated chip model: the firmware at full speed, its time at K x the wall clock (issue 14).

Paced, the chip model slows its CPU to keep the wall clock's time, and its
time wanders as far as the machine's load pushes it; dilated, the CPU runs
at the RP2040's 125 MHz and the chip's time on a straight line at K x the
wall clock, for a host that reads the matching clock
(``firmware_bridge/chip/dilation.py``). What is tested here is what makes
that true whatever the machine's load: the chip never runs ahead of its
line, and a real ``BridgeLink`` on the dilated clock sees a crystal at the
right rate and maps every press in its true order. How closely it follows
the line is measured, not asserted (``bench/chip_clock.py --dilate``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from fractions import Fraction

import pytest

from firmware_bridge.chip import ChipModel, ChipModelError
from firmware_bridge.chip.dilation import DilatedClock, DilationError, dilation_factor
from firmware_bridge.link import BridgeLink, EventInfo, LinkConfig

# Timing is the subject (scripts/test's sequential phase): the chip model's clocks.
pytestmark = pytest.mark.serial

FACTOR = Fraction(1, 10)


def test_a_dilation_factor_is_an_exact_fraction_of_the_wall_clock() -> None:
    assert dilation_factor(0.1) == Fraction(1, 10)
    assert dilation_factor("0.25") == Fraction(1, 4)
    assert dilation_factor(1) == 1


@pytest.mark.parametrize("bad", [0, -0.5, 1.5, "fast", float("nan")])
def test_a_dilation_the_chip_cannot_keep_is_refused_with_its_reason(bad: object) -> None:
    with pytest.raises(DilationError, match="dilation"):
        dilation_factor(bad)  # type: ignore[arg-type]


def test_the_dilated_clock_is_the_wall_clock_times_the_factor() -> None:
    walls = iter([1_000_000_000, 1_000_000_010, 1_000_000_019])
    clock = DilatedClock(FACTOR, wall=lambda: next(walls))
    assert [clock(), clock(), clock()] == [100_000_000, 100_000_001, 100_000_001]
    assert clock.host_ns(2_000_000_000) == 200_000_000
    assert clock.wall_s(0.1) == pytest.approx(1.0)


def test_a_chip_model_is_paced_or_dilated_never_both() -> None:
    with pytest.raises(ChipModelError, match="not both"):
        ChipModel(pace=True, dilate=0.1)
    with pytest.raises(ChipModelError, match="dilated"):
        ChipModel().host_clock  # noqa: B018  (a property that refuses)


@pytest.fixture(scope="module")
def dilated() -> Iterator[ChipModel]:
    with ChipModel(dilate=FACTOR) as chip:
        chip.wait_firmware()
        yield chip


def test_the_dilated_chip_never_runs_ahead_of_its_line(dilated: ChipModel) -> None:
    time.sleep(0.5)  # 50 ms of the chip's time: five of its time reports
    assert dilated.dilation_origin is not None
    origin_ns, origin_wall = dilated.dilation_origin
    reports = [r for r in dilated.time_reports if r[0] > origin_ns]
    assert len(reports) >= 2, "the dilated chip's time did not move"
    for ns, wall in reports:
        line = origin_ns + (wall - origin_wall) * FACTOR
        # The harness runs the chip only up to the line (an instruction past it at most).
        assert ns - line <= 1_000, f"the chip ran {ns - line:.0f} ns ahead of its line"
    # Flat out, the emulation runs at 0.15-0.45 x real time: well above K = 0.1.
    ns, wall = reports[-1]
    assert (ns - origin_ns) / (wall - origin_wall) <= float(FACTOR) * 1.001


def test_a_link_on_the_dilated_clock_sees_a_crystal_and_maps_presses_in_order(
    dilated: ChipModel,
) -> None:
    events: list[EventInfo] = []
    lock = threading.Lock()

    def on_event(info: EventInfo) -> None:
        if info.pressed:
            with lock:
                events.append(info)

    clock = dilated.host_clock
    link = BridgeLink(LinkConfig(dilated.open_pty()), on_event=on_event, clock=clock).start()
    try:
        assert link.wait_connected(clock.wall_s(30.0)), (
            "the link to the dilated chip did not come up"
        )
        time.sleep(clock.wall_s(0.3))  # a few pings past the handshake
        since = dilated.now_ns()
        # Four presses 2 µs to 5 ms apart, on four pins, in a mixed pin order.
        offsets = {3: 0, 1: 2_000, 6: 500_000, 0: 5_500_000}
        dilated.press_after({b: ns / 1000 for b, ns in offsets.items()}, hold_us=20_000)
        deadline = time.monotonic() + clock.wall_s(5.0)
        while time.monotonic() < deadline:
            with lock:
                if len(events) >= len(offsets):
                    break
            time.sleep(0.05)
        estimate = link.clock
    finally:
        link.stop()
    truth = sorted((e for e in dilated.edges_since(since) if e.level == 0), key=lambda e: e.ns)
    assert len(truth) == len(offsets)
    assert sorted(events, key=lambda e: e.t_ns) == sorted(events, key=lambda e: e.device_us)
    by_order = sorted(events, key=lambda e: e.t_ns)
    assert [e.button for e in by_order] == [dilated.button_pins.index(e.pin) for e in truth]
    # The PIO samples every µs: a stamp is its edge's tick or the next one.
    lags = [
        got.device_us - dilated.ticks_at(edge.ns) for got, edge in zip(by_order, truth, strict=True)
    ]
    assert all(0 <= lag <= 1 for lag in lags), lags
    # On the wall clock this chip's crystal would look 90 % slow; on the
    # dilated clock it is a crystal (the link's fit accepts a few hundred ppm).
    assert estimate is not None
    assert abs(estimate.drift_ppm) < 20_000
