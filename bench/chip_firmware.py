"""The firmware's own timings on the chip model (exact mode: emulated time, 125 MHz).

    .venv/bin/python bench/chip_firmware.py [--rounds 40]

- boot: power-on to the firmware's HELLO;
- main loop: the spacing of its heartbeats with a host present (one per
  round once ``HEARTBEAT_US - HEARTBEAT_SLACK_US`` have passed);
- delivery: a press's true edge time to the moment its PRESS frame left
  the chip on USB, for single presses and for bursts of eight at once;
- stamps: the firmware's stamp minus the chip's true tick at the edge;
- the collector: ``gc.collect()`` on the firmware's heap, timed on the chip
  (a separate script: the firmware collects only at quiet moments).

All in emulated time, so the figures do not depend on this machine's load;
rp2040js does not model flash wait states, so they are realistic, not exact.
"""

from __future__ import annotations

import argparse
import itertools
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.chip_clock import quantile
from firmware_bridge import protocol
from firmware_bridge.chip import ChipModel
from firmware_bridge.chip.model import firmware_files
from firmware_bridge.firmware import logic
from tests.support.chip_support import ChipHost

GC_SCRIPT = b"""
import gc, time, logic
ring = logic.EdgeRing(8, 64, 10000)
device = logic.Device(8, 8, bytes(8), 1)
junk = [bytearray(16) for _ in range(400)]
for k in range(5):
    t = time.ticks_us(); gc.collect(); d = time.ticks_diff(time.ticks_us(), t)
    print("GC", d, gc.mem_alloc(), gc.mem_free())
    junk = [bytearray(16) for _ in range(400)]
"""


def summary(values: list[float]) -> str:
    return (
        f"median {statistics.median(values):.0f}, p99 {quantile(values, 0.99):.0f}, "
        f"max {max(values):.0f} (n={len(values)})"
    )


class TimedHost(ChipHost):
    """ChipHost that notes when each frame left the chip (the chunk it came in)."""

    def __post_init__(self) -> None:
        self.arrivals: dict[int, int] = {}  # event -> emulated ns its frame arrived
        self._taken = 0
        self._chunk = 0

    def pump(self, timeout: float = 0.2) -> None:
        data = self.chip.read(timeout=timeout)
        log = self.chip.cdc_log
        for byte in data:
            while self._chunk < len(log) and self._taken >= sum_until(log, self._chunk):
                self._chunk += 1
            self._taken += 1
            for frame in self.decoder.feed(bytes([byte])):
                self._record(frame)
        newest = max(self.seen_events, default=0)
        if newest:
            self.send(protocol.Ack(newest))

    def _record(self, frame: protocol.Frame) -> None:
        message = frame.message
        if isinstance(message, protocol.Hello):
            self.hellos.append(message)
        elif isinstance(message, protocol.Heartbeat):
            self.heartbeats.append(message)
        elif (
            isinstance(message, protocol.Press | protocol.Release)
            and message.event not in self.seen_events
        ):
            self.seen_events.add(message.event)
            ns = self.chip.cdc_log[min(self._chunk, len(self.chip.cdc_log) - 1)][0]
            self.arrivals[message.event] = ns
            if isinstance(message, protocol.Press):
                self.presses.append(message)
            else:
                self.releases.append(message)


_sums: list[int] = []


def sum_until(log: list[tuple[int, int]], index: int) -> int:
    """Bytes in chunks 0..index (cached running sums)."""
    while len(_sums) <= index:
        _sums.append((_sums[-1] if _sums else 0) + log[len(_sums)][1])
    return _sums[index]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()

    with ChipModel() as chip:
        host = TimedHost(chip)
        host.__post_init__()
        host.start()
        boot_ms = chip.now_ns() / 1e6
        t = chip.now_ns()
        first = len(host.heartbeats)
        host.wait_emulated(t + 200_000_000)
        beats = [b.ticks for b in host.heartbeats[first:]]
        spacing = [logic.ticks_diff(b, a) for a, b in itertools.pairwise(beats)]
        single: list[float] = []
        burst: list[float] = []
        stamp_err: list[int] = []
        for r in range(args.rounds):
            buttons = range(8) if r % 2 else [r % 8]
            before = len(host.presses)
            t0 = chip.press_after({b: 1000 for b in buttons}, hold_us=15_000)
            host.wait_emulated(t0 + 60_000_000)
            want = before + len(buttons)
            host.wait_for(lambda want=want: len(host.presses) >= want, 60, "presses")
            edges = {e.pin: e for e in chip.edges_since(t0) if e.level == 0}
            for press in host.presses[before:]:
                edge = edges[chip.button_pins[press.button]]
                delay = (host.arrivals[press.event] - edge.ns) / 1000
                (burst if len(buttons) > 1 else single).append(delay)
                stamp_err.append(logic.ticks_diff(press.ticks, chip.ticks_at(edge.ns)))
    files = firmware_files()
    files["main.py"] = GC_SCRIPT
    with ChipModel(files=files) as chip:
        out = b""
        while out.count(b"GC ") < 5:
            out += chip.read(timeout=60)
    gcs = [int(m) for m in re.findall(rb"GC (\d+)", out)]
    print(f"boot to HELLO: {boot_ms:.0f} ms emulated")
    print(f"heartbeat spacing (µs): {summary(spacing)}")
    print(f"press edge -> PRESS frame on USB, single (µs): {summary(single)}")
    print(f"press edge -> PRESS frame on USB, bursts of 8 (µs): {summary(burst)}")
    print(f"stamp - true edge tick (µs): min {min(stamp_err)}, max {max(stamp_err)}")
    print(f"gc.collect() (µs): {summary(gcs)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
