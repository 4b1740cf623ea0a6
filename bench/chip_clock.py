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
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge.chip import ChipModel
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
    args = parser.parse_args()

    period = 1 << logic.TICKS_BITS
    chip = ChipModel(
        pace=True,
        drift_ppm=args.drift_ppm,
        start_us=period - int(args.before_wrap_s * 1e6),
    ).start()
    events: list[EventInfo] = []
    lock = threading.Lock()

    def on_event(info: EventInfo) -> None:
        if info.pressed:
            with lock:
                events.append(info)

    chip.wait_firmware()
    port = chip.open_pty()
    link = BridgeLink(LinkConfig(port), on_event=on_event).start()
    if not link.wait_connected(60):
        print("the link to the chip did not come up", file=sys.stderr)
        chip.stop()
        return 2
    time.sleep(2.0)  # let the first ping/pong fit settle
    start_ns = chip.now_ns()
    deadline = time.monotonic() + args.minutes * 60
    commanded = 0
    every_ns = int(args.press_every_ms * 1e6)
    while time.monotonic() < deadline:
        pin = chip.button_pins[commanded % len(chip.button_pins)]
        chip.schedule([(pin, 0, 0), (pin, 1, 30_000_000)])
        commanded += 1
        time.sleep(every_ns / 1e9)
    time.sleep(2.0)
    link.stop()
    reports = [r for r in chip.time_reports if r[0] >= start_ns]
    presses = [e for e in chip.edges_since(start_ns) if e.level == 0]
    chip.stop()

    a, b = line_fit(reports)
    pacing = [abs(w - (a + b * ns)) / 1000 for ns, w in reports]
    truth_by_tick = {chip.ticks_at(e.ns): e for e in presses}
    device_err: list[float] = []
    host_err: list[float] = []
    crossed = False
    for info in events:
        # The stamp is the edge's tick plus the capture's constant: the nearest edge.
        best = min(truth_by_tick, key=lambda t: abs(logic.ticks_diff(info.device_us, t)))
        edge = truth_by_tick[best]
        device_err.append(logic.ticks_diff(info.device_us, best))
        host_err.append((info.t_ns - (a + b * edge.ns)) / 1000)
        crossed = crossed or best < 1_000_000
    if not host_err:
        print("no presses came back", file=sys.stderr)
        return 1
    centre = statistics.median(host_err)
    spread = [abs(x - centre) for x in host_err]
    print(f"presses commanded {commanded}, mapped {len(events)}, crossed the wrap: {crossed}")
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
