"""A Pico that is not there: the firmware's own logic behind a pseudo-terminal.

The emulator runs :class:`firmware_bridge.firmware.logic.Device` and
:class:`~firmware_bridge.firmware.logic.EdgeRing`, the very code the Pico
runs, on the master side of a pty (``os.openpty``); the host's
:class:`~firmware_bridge.link.BridgeLink` opens the slave side as it would
``/dev/ttyACM0``. Only the hardware is simulated:

- the **clock**: device µs = ``offset_us + (host_ns − epoch) · (1 + drift) / 1000``,
  wrapping at ``2**tick_bits`` like ``time.ticks_us``; so the tests know the
  true host time of every device tick (:meth:`Emulator.host_ns_at`);
- the **pins**: scripted level changes at chosen device times are samples
  of all buttons, as the Pico's PIO takes them: the changes scripted for one
  µs go to ``EdgeRing.sample`` together, stamped with exactly that time
  (the same tick for all: a tie stays a tie), hold-off and its
  reconciliation included, so bounce can be scripted too; a TEST_PULSE
  drives the pin after ``pulse_latency_us``. An edge scripted for a time the
  device can no longer stamp — at or before a heartbeat it sent, or before a
  sample it already took (the PIO samples in time order) — is stamped at the
  earliest time it still can be: the heartbeat's promise holds (counted in
  :attr:`Emulator.late_edges`);
- the **main loop**: :meth:`Device.service` as on the Pico, woken by the
  host's bytes, by the next scripted edge and by the next heartbeat (at
  least every ``heartbeat_us``, 1 ms by default: the host's watermark);
- the **USB cable**: :meth:`Emulator.unplug` closes the pty and removes the
  stable path (a symlink that plays ``/dev/ttyACM0``); :meth:`Emulator.replug`
  makes a new pty and points the path at it. The device keeps running in
  between: scripted presses still happen and wait in its ring of
  unacknowledged events, exactly the case the resend protocol is for.
"""

from __future__ import annotations

import contextlib
import errno
import heapq
import os
import select
import shutil
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass

from buzzer.arbiter.events import Press, Release
from firmware_bridge.firmware import logic, settings
from firmware_bridge.shipped import shipped_identity

Clock = Callable[[], int]


@dataclass(frozen=True, order=True)
class _Edge:
    at_us: int
    order: int
    button: int
    level: int


class Emulator:
    """The emulated Pico (see the module docstring). Use as a context manager."""

    def __init__(
        self,
        *,
        buttons: int = 8,
        lamps: int = 8,
        offset_us: int = 987_654_321,
        drift_ppm: float = 0.0,
        tick_bits: int = logic.TICKS_BITS,
        boot_id: int = 0x5EED0001,
        board_id: bytes = b"EMULATOR",
        holdoff_us: int | None = None,
        glitch_us: int | None = None,
        pulse_latency_us: int = 5,
        ring_size: int = logic.UNACKED_RING,
        resend_us: int = logic.RESEND_US,
        heartbeat_us: int = 1_000,
        heartbeat_slack_us: int = 250,
        directory: str | None = None,
        clock: Clock = time.monotonic_ns,
        firmware_id: bytes | None = None,
        held_at_boot: int = 0,
        unsupported_chip: bool = False,
    ) -> None:
        self.buttons = buttons
        #: What the HELLO says of the device: the identity of the firmware it runs
        #: (this release's unless told otherwise: the emulator runs its logic.py),
        #: the buttons held at power-up, and a chip the firmware refuses.
        self.firmware_id = shipped_identity() if firmware_id is None else firmware_id
        self.held_at_boot = held_at_boot
        self.unsupported_chip = unsupported_chip
        self.lamps = lamps
        self.offset_us = offset_us
        self.drift = drift_ppm * 1e-6
        self.tick_bits = tick_bits
        self.period = 1 << tick_bits
        # The firmware's own hold-off and glitch check (main.py) unless told otherwise.
        self.holdoff_us = settings.holdoff_us() if holdoff_us is None else holdoff_us
        self.glitch_us = settings.glitch_us() if glitch_us is None else glitch_us
        self.pulse_latency_us = pulse_latency_us
        self._clock = clock
        self._epoch = clock()
        self._own_dir = directory is None
        self.directory = directory or tempfile.mkdtemp(prefix="svoyak-emu-")
        #: The stable port path, like /dev/ttyACM0: a symlink to the current pty.
        self.path = os.path.join(self.directory, "ttyPICO")
        self._board_id = board_id
        self._ring_size = ring_size
        self._resend_us = resend_us
        self._heartbeat_us = heartbeat_us
        self._heartbeat_slack_us = heartbeat_slack_us
        #: The earliest device µs an edge may still be stamped at: past the last
        #: heartbeat's tick, and not before the last sample (see _fire_edges).
        self._horizon_us = 0
        self.late_edges = 0
        #: The longest wait, in device µs, between two rounds of the main loop: the
        #: loop runs on this machine's scheduler, so a starved thread shows here.
        #: A test that bounds a device-side duration by the loop's pace resets it
        #: to 0 and bounds by what it then reads, not by a guess at the load.
        self.longest_step_gap_us = 0
        self._last_step_us: int | None = None
        self.boot_id = boot_id
        self.levels = bytearray(buttons)  # 1: the pin reads pressed
        #: Lamp levels as the firmware drives them, and every change ``(host_ns, lamp, level)``.
        self.lamp_levels = bytearray(lamps)
        self.lamp_log: list[tuple[int, int, int]] = []
        self._lock = threading.Lock()
        self._schedule: list[_Edge] = []
        self._order = 0
        self._requests: list[str] = []
        self._done = threading.Condition(self._lock)
        self._generation = 0
        self._master: int | None = None
        self._slave: int | None = None
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: Called with (host ns just before the write, the bytes written), for the benchmark.
        self.on_write: Callable[[int, bytes], None] | None = None
        self.bytes_in = 0
        self.bytes_out = 0
        self._boot()

    # -- the emulated hardware -----------------------------------------------------

    def _boot(self) -> None:
        diff = self._diff
        self.ring = logic.EdgeRing(self.buttons, 256, self.holdoff_us, diff, self.glitch_us)
        self.device = logic.Device(
            self.buttons,
            self.lamps,
            self._board_id,
            self.boot_id,
            self.tick_bits,
            ring_size=self._ring_size,
            resend_us=self._resend_us,
            heartbeat_us=self._heartbeat_us,
            heartbeat_slack_us=self._heartbeat_slack_us,
            on_lamp=self._on_lamp,
            on_pulse=self._on_pulse,
            diff=diff,
            add=self._add,
            firmware_id=self.firmware_id,
            held_at_boot=self.held_at_boot,
            hello_flags=logic.HELLO_UNSUPPORTED_CHIP if self.unsupported_chip else 0,
        )
        self.device.hello(self.ticks())

    def _diff(self, a: int, b: int) -> int:
        return int(logic.ticks_diff(a, b, self.period))

    def _add(self, a: int, delta: int) -> int:
        return int(logic.ticks_add(a, delta, self.period))

    def device_us_at(self, host_ns: int) -> int:
        """The device's unwrapped µs count at a host instant (the truth)."""
        return self.offset_us + int((host_ns - self._epoch) * (1 + self.drift) // 1000)

    def host_ns_at(self, device_us: int) -> int:
        """The host instant at which the device's (unwrapped) count reads ``device_us``."""
        return self._epoch + round((device_us - self.offset_us) * 1000 / (1 + self.drift))

    def now_us(self) -> int:
        """The device's unwrapped µs count now."""
        return int(self.device_us_at(self._clock()))

    def ticks(self) -> int:
        """``time.ticks_us()`` as the firmware would read it now."""
        return self.now_us() & (self.period - 1)

    def _on_lamp(self, lamp: int, level: int) -> None:
        self.lamp_levels[lamp] = level
        self.lamp_log.append((self._clock(), lamp, level))

    def _on_pulse(self, button: int, active: bool) -> None:
        # Called on the emulator thread from Device.feed/poll: schedule the pin change.
        at = self.now_us() + self.pulse_latency_us
        self._schedule_edge(button, 1 if active else 0, at, locked=False)

    # -- scripting (any thread) -------------------------------------------------------

    def _schedule_edge(self, button: int, level: int, at_us: int, locked: bool = True) -> None:
        if not 0 <= button < self.buttons:
            raise ValueError(f"no button {button}")
        if locked:
            with self._lock:
                self._push_edge(button, level, at_us)
        else:
            self._push_edge(button, level, at_us)
        self._kick()

    def _push_edge(self, button: int, level: int, at_us: int) -> None:
        self._order += 1
        heapq.heappush(self._schedule, _Edge(at_us, self._order, button, level))

    def press(self, button: int, at_us: int | None = None) -> int:
        """The pin of ``button`` goes to pressed at device time ``at_us`` (default: now)."""
        at = self.now_us() if at_us is None else at_us
        self._schedule_edge(button, 1, at)
        return at

    def press_after(self, offsets_us: dict[int, int]) -> dict[int, int]:
        """Presses at offsets (µs, > 0) from one reading of the device's clock; their times.

        The clock is read and every edge scheduled under the device's lock,
        so a script preempted between reading the time and scheduling (a busy
        CPU, a garbage collection) can never ask for a time the device has
        already reported past: every stamp is exactly the one scripted.
        """
        return self._edges_after(offsets_us, 1)

    def release_after(self, offsets_us: dict[int, int]) -> dict[int, int]:
        """Releases at offsets from one reading of the clock, exact as :meth:`press_after`'s
        presses (a late release would stretch its hold-off over the next press)."""
        return self._edges_after(offsets_us, 0)

    def _edges_after(self, offsets_us: dict[int, int], level: int) -> dict[int, int]:
        if any(offset <= 0 for offset in offsets_us.values()):
            raise ValueError("offsets must be in the device's future (> 0 µs)")
        for button in offsets_us:
            if not 0 <= button < self.buttons:
                raise ValueError(f"no button {button}")
        with self._lock:
            now = self.now_us()
            times = {button: now + offset for button, offset in offsets_us.items()}
            for button, at in times.items():
                self._push_edge(button, level, at)
        self._kick()
        return times

    def release(self, button: int, at_us: int | None = None) -> int:
        at = self.now_us() if at_us is None else at_us
        self._schedule_edge(button, 0, at)
        return at

    def click(self, button: int, at_us: int, hold_us: int = 50_000) -> None:
        """A press at ``at_us`` held for ``hold_us``."""
        self.press(button, at_us)
        self.release(button, at_us + hold_us)

    def click_after(
        self, button: int, hold_us: int, *, lead_us: int = 1_000, not_before_us: int = 0
    ) -> int:
        """A press ``lead_us`` after one reading of the device's clock (and not before
        ``not_before_us``), released ``hold_us`` later; returns the press's time.

        Both edges are scheduled under the device's lock, exact as
        :meth:`press_after`'s: a script preempted between reading the clock and
        scheduling could otherwise ask for a time the device has already
        reported past, and the press, stamped late at that horizon, would fall
        inside the hold-off of the button's last release and never be an event.
        """
        if lead_us <= 0 or hold_us <= 0:
            raise ValueError("lead and hold must be in the device's future (> 0 µs)")
        if not 0 <= button < self.buttons:
            raise ValueError(f"no button {button}")
        with self._lock:
            at = max(self.now_us() + lead_us, not_before_us)
            self._push_edge(button, 1, at)
            self._push_edge(button, 0, at + hold_us)
        self._kick()
        return at

    def bounce(self, button: int, at_us: int, gaps_us: list[int]) -> None:
        """A bouncing contact: the level flips at ``at_us`` and after each gap."""
        level = 1
        t = at_us
        self._schedule_edge(button, level, t)
        for gap in gaps_us:
            t += gap
            level ^= 1
            self._schedule_edge(button, level, t)

    def pending_edges(self) -> int:
        with self._lock:
            return len(self._schedule)

    # -- the cable ----------------------------------------------------------------------

    def unplug(self, timeout: float = 5.0) -> None:
        """Pull the USB cable: the pty goes away, the device keeps running."""
        self._request("unplug", timeout)

    def replug(self, timeout: float = 5.0) -> None:
        """Plug it back in: a new pty behind the same :attr:`path`."""
        self._request("replug", timeout)

    def power_cycle(self, timeout: float = 5.0) -> None:
        """Unplug and reboot: a new boot id, an empty ring, lamps off."""
        self._request("power_cycle", timeout)

    def _request(self, what: str, timeout: float) -> None:
        if self._thread is None:
            self._do(what)
            return
        with self._done:
            generation = self._generation
            self._requests.append(what)
            self._kick()
            if not self._done.wait_for(lambda: self._generation > generation, timeout):
                raise TimeoutError(f"emulator did not {what}")

    def _do(self, what: str) -> None:
        if what in ("unplug", "power_cycle"):
            self._close_pty()
        if what == "power_cycle":
            self.boot_id = (self.boot_id + 1) & 0xFFFFFFFF
            self.lamp_levels = bytearray(self.lamps)
            self._boot()
            self._open_pty()
        if what == "replug":
            self._open_pty()

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def _open_pty(self) -> None:
        if self._master is not None:
            return
        master, slave = os.openpty()
        # Raw from the start: no echo, no line editing, no ^C → SIGINT in a frame.
        tty.setraw(slave)
        tty.setraw(master)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        link = self.path + ".new"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(link)
        os.symlink(os.ttyname(slave), link)
        os.replace(link, self.path)

    def _close_pty(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None

    # -- the run loop --------------------------------------------------------------------

    def start(self) -> Emulator:
        self._open_pty()
        self._thread = threading.Thread(target=self._run, name="emulator", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._kick()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None
        self._close_pty()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self._own_dir:
            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _kick(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"!")

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._done:
                requests, self._requests = self._requests, []
            for what in requests:
                self._do(what)
            if requests:
                with self._done:
                    self._generation += 1
                    self._done.notify_all()
            wait_s = self._step()
            # poll(), not select(): a process holding 1024 descriptors or more (a
            # long test worker, a busy `svoyak run`) may hand this one a number
            # select() cannot take (firmware_bridge/serial_port.py).
            poller = select.poll()
            poller.register(self._wake_r, select.POLLIN)
            master = self._master
            if master is not None:
                poller.register(master, select.POLLIN)
            ready = {fd for fd, _ in poller.poll(wait_s * 1000)}
            if self._wake_r in ready:
                with contextlib.suppress(OSError):
                    os.read(self._wake_r, 4096)
            if master is not None and master in ready:
                try:
                    data = os.read(master, 4096)
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EIO):
                        raise
                    data = b""
                if data:
                    self.bytes_in += len(data)
                    self.device.feed(data, self.ticks())

    def _step(self) -> float:
        """One round of the firmware's main loop; seconds until the next is due.

        The order is the firmware's: pins (the PIO's samples into the ring,
        then the hold-offs that ended, reconciled), then
        :meth:`Device.service` (drain the ring, then the heartbeat that says
        it was drained up to ``now``, held below any change still hidden).
        """
        now_us = self.now_us()
        last = self._last_step_us
        if last is not None and now_us - last > self.longest_step_gap_us:
            self.longest_step_gap_us = now_us - last
        self._last_step_us = now_us
        next_at = self._fire_edges(now_us)
        ticks = now_us & (self.period - 1)
        self.ring.housekeep(ticks)
        device = self.device
        device.service(self.ring, lambda: ticks)
        beat = device.beat_ticks
        if beat is not None:
            # Nothing may be stamped at or before the tick the heartbeat reported.
            after_beat = now_us + self._diff(beat, ticks) + 1
            self._horizon_us = max(self._horizon_us, after_beat)
        out = device.take_output(ticks)
        if out:
            self._write(out)
        wait_us = min(2_000, device.heartbeat_in(ticks))
        for end in device.pulse_end:  # a test pulse ends on time, as in the firmware's loop
            if end is not None:
                wait_us = min(wait_us, max(self._diff(end, ticks), 0))
        if next_at is not None:
            wait_us = min(wait_us, max(next_at - now_us, 0))
        return wait_us / 1e6

    def _fire_edges(self, now_us: int) -> int | None:
        """Sample the pins at every scripted µs due by ``now_us`` into the ring, as the
        PIO and its IRQ would; the device µs of the next edge still to come, if any.

        The edges scripted for one µs are one sample: one ``EdgeRing.sample``
        with all their buttons' levels and that tick. A sample scripted behind
        the horizon is taken at the horizon, and the horizon never goes back
        (the PIO's samples come in time order)."""
        mask = self.period - 1
        ring = self.ring
        levels = self.levels
        schedule = self._schedule
        with self._lock:
            while schedule and schedule[0].at_us <= now_us:
                at_us = schedule[0].at_us
                changed = 0
                while schedule and schedule[0].at_us == at_us:
                    edge = heapq.heappop(schedule)
                    if levels[edge.button] != edge.level:
                        levels[edge.button] = edge.level
                        changed += 1
                if not changed:
                    continue
                stamp = at_us
                if stamp < self._horizon_us:
                    stamp = self._horizon_us
                    self.late_edges += changed
                self._horizon_us = stamp
                pressed = 0
                for button, level in enumerate(levels):
                    pressed |= level << button
                ring.sample(pressed, stamp & mask)
            return schedule[0].at_us if schedule else None

    def _write(self, data: bytes) -> None:
        master = self._master
        if master is None:
            return  # no cable: the bytes go nowhere, the events stay in the ring
        # Stamped before the write: a process preempted right after its write returned
        # would otherwise stamp the frame later than the host had already read it.
        at = self._clock()
        try:
            written = os.write(master, data)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EIO):
                return  # nobody reading: like USB CDC with no host, dropped
            raise
        self.bytes_out += written
        if self.on_write is not None:
            self.on_write(at, data[:written])


class EmulatorPulseSource:
    """The self-test's pulse source over the emulator (``svoyak selftest --emulate``).

    Implements ``hardware.selftest.PulseSource``: each method moves an emulated
    pin at a chosen device time a little ahead (``lead_us``, so the edge is
    never in the past) and returns the host time of that instant, from the
    emulator's own clock model. The press comes back the real way: the
    firmware's logic frames it, the pty carries it, :class:`BridgeLink`
    decodes it and maps its tick onto the host clock, and ``sink`` gets the
    ``Press(t, seat)``. The emulated capture stamps the edge at the very instant
    the pin moved, so the latencies the self-test reports here are the clock
    mapping's error, and its fairness rows test that mapping's ordering.
    """

    label = "firmware emulator on a pty (the firmware's logic behind a pty, through BridgeLink)"
    #: The presses are placed on the emulated device's own clock: a pair's
    #: offset is exact there, not the gap between two of this host's writes.
    exact_offsets = True

    def __init__(
        self,
        keys: tuple[str, ...],
        sink: Callable[[Press | Release], None],
        *,
        hold_off_ns: int | None = None,
        drift_ppm: float = 20.0,
        lead_us: int = 2_000,
        timeout_s: float = 10.0,
    ) -> None:
        from firmware_bridge.link import BridgeLink, LinkConfig

        self.keys = tuple(keys)
        self.lead_us = lead_us
        holdoff_us = None if hold_off_ns is None else max(hold_off_ns // 1000, 0)
        self.emulator = Emulator(
            buttons=len(self.keys),
            lamps=len(self.keys),
            drift_ppm=drift_ppm,
            holdoff_us=holdoff_us,
        ).start()
        seats = tuple(int(k) if k.isdigit() else i + 1 for i, k in enumerate(self.keys))
        config = LinkConfig(self.emulator.path, seats=seats, backoff_initial_s=0.01)
        self.link = BridgeLink(config, sink=sink).start()
        if not self.link.wait_connected(timeout_s):
            self.close()
            raise RuntimeError("the bridge link to the emulator did not come up")

    def _button(self, key: str) -> int:
        return self.keys.index(key)

    def _at(self) -> int:
        return self.emulator.now_us() + self.lead_us

    def channels(self) -> tuple[str, ...]:
        return self.keys

    def press(self, key: str) -> int:
        at = self.emulator.press(self._button(key), self._at())
        return self.emulator.host_ns_at(at)

    def release(self, key: str) -> int:
        at = self.emulator.release(self._button(key), self._at())
        return self.emulator.host_ns_at(at)

    def press_pair(self, first: str, second: str, offset_ns: int) -> tuple[int, int]:
        at = self._at()
        # The offset on the device's own counter (which runs 1 + drift as fast).
        later = at + round(offset_ns * (1 + self.emulator.drift) / 1000)
        self.emulator.press(self._button(first), at)
        self.emulator.press(self._button(second), later)
        return self.emulator.host_ns_at(at), self.emulator.host_ns_at(later)

    def spike(self, key: str, width_ns: int) -> tuple[int, int]:
        """A press and its release ``width_ns`` apart on the device (at least 1 µs, its tick)."""
        at = self._at()
        end = at + max(1, round(width_ns * (1 + self.emulator.drift) / 1000))
        button = self._button(key)
        self.emulator.press(button, at)
        self.emulator.release(button, end)
        return self.emulator.host_ns_at(at), self.emulator.host_ns_at(end)

    def burst(self, key: str, edges: int, spacing_ns: int) -> int:
        at = self._at()
        step = spacing_ns * (1 + self.emulator.drift) / 1000
        button = self._button(key)
        for index in range(edges):
            when = at + round(index * step)
            if index % 2 == 0:
                self.emulator.press(button, when)
            else:
                self.emulator.release(button, when)
        return self.emulator.host_ns_at(at)

    def close(self) -> None:
        self.link.stop()
        self.emulator.stop()


def selftest_pulse_source(
    keys: tuple[str, ...],
    sink: Callable[[Press | Release], None],
    *,
    hold_off_ns: int | None = None,
) -> EmulatorPulseSource:
    """``hardware.selftest.emulator_rig``'s entry point (``svoyak selftest --emulate``).

    ``hold_off_ns``: the firmware's hold-off to emulate (default 10 ms, the
    firmware's); pass the rig's so that both sides agree.
    """
    return EmulatorPulseSource(keys, sink, hold_off_ns=hold_off_ns)


__all__ = ["Emulator", "EmulatorPulseSource", "selftest_pulse_source"]
