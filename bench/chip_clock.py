"""The host's clock mapping against the chip's true time: the real firmware, a long run.

    .venv/bin/python bench/chip_clock.py --minutes 5 --drift-ppm 40

The chip model (paced, its crystal ``--drift-ppm`` fast, its timer started
``--before-wrap-s`` before the 2**30 µs wrap of ``ticks_us``) runs the real
firmware; a real ``BridgeLink`` maps every press's device stamp onto the
host clock (ping/pong fit, ``firmware_bridge/clock.py``). Each press is
driven by the harness at a known emulated time. Two figures per press:

- **device**: the firmware's stamp minus the chip's true tick at the edge
  (the PIO capture and its tick base; no host involved);
- **host**: the link's mapped time minus the edge's host time, where the
  edge's host time is the chip's emulated time put on the host clock by a
  straight-line fit of the harness's (emulated ns, monotonic ns) reports
  over the whole run: the chip's crystal as the host's clock sees it, drift
  included, with the emulator's pacing jitter averaged out.

The harness's own pacing jitter (how far each report lies off that line)
is printed too: it is noise the mapping sees and a real crystal has not.

``--dilate K`` runs the chip dilated instead of paced (its CPU at the full
125 MHz, its time at K x the wall clock; firmware_bridge/chip/dilation.py)
and gives the link the matching host clock, K x the wall clock: the host
then sees a crystal that is off a straight line by the harness's short
steps only, and the figure measures the firmware's stamps and the link's
fit rather than the pacing's wander. ``--minutes`` is the chip's time, so
a dilated run takes 1/K as long on the wall clock.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.chip_soak import chip_process
from firmware_bridge.chip.dilation import DilatedClock, dilation_factor
from firmware_bridge.firmware import logic
from firmware_bridge.link import BridgeLink, EventInfo, LinkConfig


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def line_fit(points: list[tuple[int, int]]) -> tuple[float, float]:
    """Least squares ``wall = a + b * ns`` (centred, for precision)."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    b = sxy / sxx
    return my - b * mx, b


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--drift-ppm", type=float, default=40.0)
    parser.add_argument("--before-wrap-s", type=float, default=60.0)
    parser.add_argument("--press-every-ms", type=float, default=250.0)
    parser.add_argument(
        "--dilate",
        type=dilation_factor,
        default=None,
        metavar="K",
        help="run the chip dilated, its time at K x the wall clock (e.g. 0.1), not paced",
    )
    args = parser.parse_args()

    period = 1 << logic.TICKS_BITS
    # The chip runs in a process of its own (as in bench/chip_soak.py): its
    # Python side (the harness's event pipe, the pty bridge) must not share
    # this process's GIL with the link, whose send and receive instants are
    # what the clock fit is made of.
    context = multiprocessing.get_context("fork")  # before any thread of ours exists
    conn, child_conn = context.Pipe()
    start_us = period - int(args.before_wrap_s * 1e6)
    child = context.Process(
        target=chip_process, args=(child_conn, args.drift_ppm, args.dilate, start_us), daemon=True
    )
    child.start()
    kind, port = conn.recv()
    if kind == "error":
        print(f"chip model: {port}", file=sys.stderr)
        return 2
    # The host's clock: the wall clock for a paced chip, K x it for a dilated one.
    dilated = None if args.dilate is None else DilatedClock(args.dilate)
    host_clock = time.monotonic_ns if dilated is None else dilated
    host_ns = (lambda wall: wall) if dilated is None else dilated.host_ns
    stretch = 1.0 if args.dilate is None else 1 / float(args.dilate)
    events: list[EventInfo] = []
    lock = threading.Lock()

    def on_event(info: EventInfo) -> None:
        if info.pressed:
            with lock:
                events.append(info)

    link = BridgeLink(LinkConfig(port), on_event=on_event, clock=host_clock).start()
    if not link.wait_connected(60 * stretch):
        print("the link to the chip did not come up", file=sys.stderr)
        conn.send(("stop",))
        return 2
    time.sleep(2.0 * stretch)  # let the first ping/pong fit settle
    deadline = time.monotonic() + args.minutes * 60 * stretch
    commanded = 0
    every_s = args.press_every_ms / 1000 * stretch
    start_ns: int | None = None
    buttons = len(logic.BUTTON_PINS)
    while time.monotonic() < deadline:
        conn.send(("press", {commanded % buttons: 0}, 30_000))
        t0 = conn.recv()
        start_ns = t0 if start_ns is None else start_ns
        commanded += 1
        time.sleep(every_s)
    time.sleep(2.0 * stretch)
    link.stop()
    conn.send(("logs",))
    logs = conn.recv()
    conn.send(("stop",))
    child.join(15)
    assert start_ns is not None
    reports = [(ns, host_ns(wall)) for ns, wall in logs["time_reports"] if ns >= start_ns]
    presses = [ns for _pin, level, ns, _wall in logs["edges"] if level == 0 and ns >= start_ns]

    a, b = line_fit(reports)
    pacing = [abs(w - (a + b * ns)) / 1000 for ns, w in reports]
    truth_by_tick = {(ns // 1000) % period: ns for ns in presses}
    device_err: list[float] = []
    host_err: list[float] = []
    crossed = False
    for info in events:
        # The stamp is the edge's tick plus the capture's constant: the nearest edge.
        best = min(truth_by_tick, key=lambda t: abs(logic.ticks_diff(info.device_us, t)))
        edge_ns = truth_by_tick[best]
        device_err.append(logic.ticks_diff(info.device_us, best))
        host_err.append((info.t_ns - (a + b * edge_ns)) / 1000)
        crossed = crossed or best < 1_000_000
    if not host_err:
        print("no presses came back", file=sys.stderr)
        return 1
    centre = statistics.median(host_err)
    spread = [abs(x - centre) for x in host_err]
    mode = "paced" if args.dilate is None else f"dilated x{float(args.dilate):g}"
    print(
        f"chip {mode}; presses commanded {commanded}, mapped {len(events)}, "
        f"crossed the wrap: {crossed}"
    )
    print(f"crystal as the host saw it: {(1 / b - 1) * 1e6:+.1f} ppm (asked {args.drift_ppm:+.1f})")
    print(
        f"device stamp - true tick (µs): median {statistics.median(device_err):.1f}, "
        f"min {min(device_err)}, max {max(device_err)}"
    )
    print(
        f"host mapped - true (µs): median {centre:.1f}; |error - median| "
        f"p50 {quantile(spread, 0.5):.1f}, p99 {quantile(spread, 0.99):.1f}, max {max(spread):.1f}"
    )
    print(
        f"harness pacing off its line (µs): p50 {quantile(pacing, 0.5):.1f}, "
        f"p99 {quantile(pacing, 0.99):.1f}, max {max(pacing):.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
