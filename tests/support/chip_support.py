"""A minimal host for the chip model's tests: frames in, ACKs out, nothing else.

The tests of stamps want the firmware's own numbers (device ticks), with no
clock mapping in between; :class:`ChipHost` decodes the frames with
``firmware_bridge.protocol`` (the host's implementation of the wire
protocol, independent of the firmware's), says HOST_HELLO so the firmware
treats the host as present (a heartbeat every millisecond), and
acknowledges every event so nothing is resent. The tests through the real
``BridgeLink`` and ``svoyak run`` are elsewhere.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from firmware_bridge import protocol
from firmware_bridge.chip import ChipModel


@dataclass
class ChipHost:
    chip: ChipModel
    decoder: protocol.FrameDecoder = field(default_factory=protocol.FrameDecoder)
    seq: int = 0
    hellos: list[protocol.Hello] = field(default_factory=list)
    presses: list[protocol.Press] = field(default_factory=list)
    releases: list[protocol.Release] = field(default_factory=list)
    heartbeats: list[protocol.Heartbeat] = field(default_factory=list)
    others: list[object] = field(default_factory=list)
    seen_events: set[int] = field(default_factory=set)

    def send(self, message: protocol.Message) -> None:
        self.chip.write(protocol.encode_frame(message, self.seq))
        self.seq = (self.seq + 1) & 0xFFFF

    def start(self) -> ChipHost:
        self.send(protocol.HostHello())
        self.wait_for(lambda: bool(self.hellos), 30.0, "HELLO")
        return self

    def pump(self, timeout: float = 0.2) -> None:
        data = self.chip.read(timeout=timeout)
        newest = 0
        for frame in self.decoder.feed(data):
            message = frame.message
            if isinstance(message, protocol.Hello):
                if self.hellos and self.hellos[-1].boot_id != message.boot_id:
                    self.seen_events.clear()  # a new boot numbers its events from 1
                self.hellos.append(message)
            elif isinstance(message, protocol.Press | protocol.Release):
                if message.event not in self.seen_events:
                    self.seen_events.add(message.event)
                    bucket = self.presses if isinstance(message, protocol.Press) else self.releases
                    bucket.append(message)  # type: ignore[arg-type]
                newest = max(newest, message.event)
            elif isinstance(message, protocol.Heartbeat):
                self.heartbeats.append(message)
            else:
                self.others.append(message)
        if newest:
            self.send(protocol.Ack(max(self.seen_events)))

    def wait_for(self, done: object, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not done():  # type: ignore[operator]
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"no {what} from the chip within {timeout} s "
                    f"(errors: {self.chip.errors}, resets: {self.chip.resets})"
                )
            self.pump()

    def wait_emulated(self, ns: int, timeout: float = 60.0) -> None:
        """Pump frames until the chip's time has passed ``ns``."""
        deadline = time.monotonic() + timeout
        while self.chip.now_ns() < ns:
            if time.monotonic() > deadline:
                raise AssertionError(f"the chip did not reach {ns} ns")
            self.pump(0.05)
        self.pump(0.05)
