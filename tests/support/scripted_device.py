"""A scripted Pico for the link's watermark tests (firmware_bridge/link.py).

The test plays the Pico on the master side of a real pseudo-terminal pair and
writes exactly the frames it wants (gaps, resends, clock fits that move), the
real :class:`BridgeLink` reads them through pyserial on the slave side with
its own threads. Nothing here depends on this machine's speed: the link runs
on a frozen clock (so the script decides every mapping; nothing times out),
and each step ends with a sentinel frame (a PULSED, which the link hands to
``link.pulses`` in stream order) that says every frame before it was handled.
Used by tests/firmware_bridge/test_bridge_watermark_*.py.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import tty
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from buzzer.arbiter.events import Press, Release
from firmware_bridge import protocol as p
from firmware_bridge.link import BridgeLink, EventInfo, LinkConfig, LinkTrouble

TIMEOUT = 20.0
TICK_BITS = 30
MASK = (1 << TICK_BITS) - 1
#: The link's frozen clock: every frame is read "at" this host ns.
NOW_NS = 10**13
#: Where the scripted fits put device µs 0 on the host clock: between NOW_NS / 2
#: and NOW_NS, so that every ping's send stamp (2 · placed − NOW_NS) is positive
#: and before its frozen receive stamp.
BASE_NS = 6 * 10**12


def wait_for(condition: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.002)


class ScriptedDevice:
    """A pty whose master side the test writes device frames into; what the
    host writes is read and decoded on a thread (so its writes never block)."""

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)
        self._seq = 0
        self._token = 0
        self.host: list[p.Message] = []
        self._host_lock = threading.Lock()
        self._closed = False
        self._reader = threading.Thread(target=self._read_host, daemon=True)
        self._reader.start()

    def _read_host(self) -> None:
        decoder = p.FrameDecoder()
        while not self._closed:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            frames = decoder.feed(data)
            with self._host_lock:
                self.host.extend(f.message for f in frames)

    def host_sent(self, kind: type) -> bool:
        with self._host_lock:
            return any(isinstance(m, kind) for m in self.host)

    def send(self, *messages: p.Message) -> None:
        wire = bytearray()
        for message in messages:
            wire += p.encode_frame(message, self._seq)
            self._seq = (self._seq + 1) & 0xFFFF
        view = memoryview(bytes(wire))
        while view:
            view = view[os.write(self.master, view) :]

    def sync(self, link: BridgeLink) -> None:
        """Return once the link has handled every frame sent so far."""
        self._token = (self._token + 1) & 0xFFFF
        self.send(p.Pulsed(self._token, 0, 0, 0))
        while True:
            report = link.pulses.get(timeout=TIMEOUT)
            if report.token == self._token:
                return

    def close(self) -> None:
        """Close the slave side first (with the link's closed, the reader's read then
        fails), then the master: a reader left blocked on a closed fd would read the
        next pty that reuses its number."""
        self._closed = True
        with contextlib.suppress(OSError):
            os.close(self._slave)
        self._reader.join(TIMEOUT)
        with contextlib.suppress(OSError):
            os.close(self.master)


def hello(ticks: int, boot_id: int = 0xB007) -> p.Hello:
    return p.Hello(
        p.PROTOCOL_VERSION, (2, 0, 0), 4, 4, TICK_BITS, b"SCRIPTED", boot_id, ticks & MASK, 1, 1
    )


def pong(device_us: int, host_ns: int) -> p.Pong:
    """A PONG whose sample puts ``device_us`` at ``host_ns`` (the midpoint of the
    ping's send stamp and the frozen clock's receive stamp)."""
    return p.Pong(2 * host_ns - NOW_NS, device_us & MASK, device_us & MASK)


def beat(ticks: int, next_event: int, oldest_unacked: int = 1) -> p.Heartbeat:
    return p.Heartbeat(ticks & MASK, next_event, oldest_unacked, 0, 0)


def press(event: int, ticks: int, button: int = 0, flags: int = 0) -> p.Press:
    return p.Press(event, ticks & MASK, button, flags)


@dataclass
class Observed:
    """What the link did, in one order: events as the sink got them (with the
    watermark read at that moment) and watermarks read by another thread."""

    log: list[tuple[str, int, int | None]] = field(default_factory=list)
    infos: list[EventInfo] = field(default_factory=list)
    troubles: list[LinkTrouble] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self) -> int | None:
        """Every watermark reported is at least the one before; every event handed
        on carries ``t`` at or after every watermark reported before it. Returns
        the highest seen so far (the watching thread may not have seen the last)."""
        with self.lock:
            log = list(self.log)
        highest: int | None = None
        for kind, value, at_delivery in log:
            if kind == "W":
                assert highest is None or value >= highest, "the watermark went back"
                highest = value
            else:
                assert highest is None or value >= highest, "an event came behind the watermark"
                assert at_delivery is None or value >= at_delivery
                if at_delivery is not None:
                    assert highest is None or at_delivery >= highest
                    highest = at_delivery
        return highest


@contextlib.contextmanager
def scripted_link(
    clock: list[int] | None = None, **config: object
) -> Iterator[tuple[ScriptedDevice, BridgeLink, Observed]]:
    """A link on a frozen clock to a scripted device, with a thread watching its
    watermark; the device has answered nothing yet (the link's HOST_HELLO is in).
    ``clock``: a one-item list the test moves on (the host's time in ns), for a
    device whose reports must stay within what its clock could have read."""
    device = ScriptedDevice()
    seen = Observed()
    holder: list[BridgeLink] = []

    def sink(event: Press | Release) -> None:
        with seen.lock:
            seen.log.append(("E", event.t, holder[0].watermark()))

    link = BridgeLink(
        LinkConfig(device.path, drop_before_start=False, **config),  # type: ignore[arg-type]
        clock=(lambda: NOW_NS) if clock is None else (lambda: clock[0]),
        sink=sink,
        on_event=seen.infos.append,
        on_trouble=seen.troubles.append,
    )
    holder.append(link)
    stop = threading.Event()

    def watch() -> None:
        last = None
        while not stop.is_set():
            mark = link.watermark()
            if mark is not None and mark != last:
                with seen.lock:
                    seen.log.append(("W", mark, None))
                last = mark
            time.sleep(0)

    watcher = threading.Thread(target=watch, daemon=True)
    link.start()
    watcher.start()
    try:
        wait_for(lambda: device.host_sent(p.HostHello), "the host's HOST_HELLO")
        yield device, link, seen
    finally:
        stop.set()
        watcher.join(TIMEOUT)
        link.stop()
        device.close()


def mapped(device_us: int) -> int:
    """Host ns of a device µs under a fit from one :func:`pong` with ``host_ns =
    BASE_NS + 1000 · device_us`` (the nominal rate)."""
    return BASE_NS + 1_000 * device_us


START_US = 5_000_000


def connect(device: ScriptedDevice, link: BridgeLink, at_us: int = START_US) -> None:
    device.send(hello(at_us), pong(at_us, mapped(at_us)))
    device.sync(link)
    assert link.connected
