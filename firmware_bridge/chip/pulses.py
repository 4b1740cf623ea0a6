"""``svoyak selftest --emulate --chip``: the self-test's pulse source on the chip model.

:class:`ChipPulseSource` implements ``hardware.selftest.PulseSource`` over a
paced :class:`~firmware_bridge.chip.ChipModel`: each press, release, pair and
burst is a set of pin edges the harness applies at exact emulated offsets
from one instant (``ChipModel.schedule``), and each method blocks until the
harness reports them applied. The presses come back the way a Pico's do: the
real ``main.py`` stamps them with its PIO and IRQ, USB CDC carries the frames
to a pty, :class:`~firmware_bridge.link.BridgeLink` opens the pty as it would
``/dev/ttyACM0``, maps the firmware's ticks onto the host clock and hands
``Press(t, seat)`` to the self-test's sink.

Why :meth:`ChipPulseSource.press_pair` spaces its presses on the chip's own
clock: that spacing is the independent reference the fairness check holds
the firmware's stamps against, exact to one CPU instruction, which no
host-side timer could give.

**Which host time a press returns.** The harness logs the host time it
applied each edge (``AppliedEdge.wall_ns``; paced, the chip's time is the
wall clock's). But BridgeLink's fit of the chip's clock, from pings that
``main.py``'s loop answers a round late on a CPU the pacing slows to a few
MHz, is off that wall clock by milliseconds (measured here: -40 to +25 ms on
a loaded machine), which would bury a stamp's few µs, fail every bounce
check ("stamped at the first edge" is a 100 µs question) and make half the
latencies negative. So a press returns its edge's true time *on the link's
own mapping*: the press's mapped stamp minus the firmware's stamp-to-edge
distance on the chip's clock (both known exactly: the link's ``EventInfo``
and the harness's log). The self-test's latency is then what the firmware
adds, edge to stamp; the mapping's own error is kept apart, in
:attr:`ChipPulseSource.clock_errors_ns`. A release returns its wall time:
the self-test only sleeps from it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence

from buzzer.arbiter.events import Press, Release
from firmware_bridge.chip.model import (
    TICKS_PERIOD_US,
    AppliedEdge,
    ChipModel,
    ChipModelError,
)
from firmware_bridge.firmware import logic, settings
from firmware_bridge.link import BridgeLink, EventInfo, LinkConfig
from firmware_bridge.shipped import hello_refusal, identity_of

LABEL = "the real firmware on an emulated RP2040 (MicroPython v1.28 + rp2040js), through BridgeLink"
#: How long a method waits for the harness to report the edges it asked for.
EDGE_TIMEOUT_S = 5.0
#: How long a press may take to come back through the firmware and the link.
REPLY_TIMEOUT_S = 5.0
#: A stamp may precede its edge by the capture's constant offset (a few µs):
#: an event stamped up to this much before an edge can still be that edge's.
STAMP_SLACK_NS = 100_000
#: How long the link may take to shake hands and fit the chip's clock.
CONNECT_TIMEOUT_S = 30.0


def firmware_holdoff_ns() -> int:
    """``HOLDOFF_US`` of ``main.py``, in ns: the hold-off the firmware really applies.

    Read from the source (``firmware_bridge.firmware.settings``) so that the
    self-test's gaps follow the firmware if it changes, rather than a copy
    of the number.
    """
    try:
        return settings.holdoff_us() * 1_000
    except settings.FirmwareSourceError as exc:
        raise ChipModelError(str(exc)) from None


def firmware_glitch_ns() -> int:
    """``GLITCH_US`` of ``main.py``, in ns: the firmware's glitch check (see logic.EdgeRing)."""
    try:
        return settings.glitch_us() * 1_000
    except settings.FirmwareSourceError as exc:
        raise ChipModelError(str(exc)) from None


class ChipPulseSource:
    """The self-test's pulse source over the chip model (see the module docstring).

    ``keys`` are seat numbers as strings (the pin map's seats); ``keys[i]``
    is wired to the firmware's button ``i``. ``lead_ns`` is how far after the
    instant the harness reads a request its first edge comes: 0, the default,
    puts it exactly at that instant; an edge scheduled ahead lands when the
    emulated instruction running at its time ends (8–24 ns at 125 MHz, µs on
    a paced CPU slowed by a busy host), so a pair's spacing is exact to that.
    """

    label = LABEL
    #: A pair's edges are scheduled on the emulated clock: exact (the self-test's report).
    exact_offsets = True

    def __init__(
        self,
        keys: Sequence[str],
        sink: Callable[[Press | Release], None],
        *,
        chip: ChipModel | None = None,
        lead_ns: int = 0,
        holdoff_ns: int | None = None,
        edge_timeout_s: float = EDGE_TIMEOUT_S,
        reply_timeout_s: float = REPLY_TIMEOUT_S,
        connect_timeout_s: float = CONNECT_TIMEOUT_S,
    ) -> None:
        self.keys = tuple(keys)
        self.lead_ns = lead_ns
        self.holdoff_ns = firmware_holdoff_ns() if holdoff_ns is None else holdoff_ns
        self.edge_timeout_s = edge_timeout_s
        self.reply_timeout_s = reply_timeout_s
        #: Per press: its edge's time on the link's mapping minus its true host
        #: time (``wall_ns``): BridgeLink's clock error on this model, in ns.
        self.clock_errors_ns: list[int] = []
        self._events: list[EventInfo] = []
        self._events_cond = threading.Condition()
        #: The emulated ns of the last edge driven on each pin.
        self._last_edge_ns: dict[int, int] = {}
        self._resets = 0
        self.chip = chip if chip is not None else ChipModel(pace=True)
        if len(self.keys) > len(self.chip.button_pins):
            raise ChipModelError(
                f"the firmware has {len(self.chip.button_pins)} buttons; the pin map has "
                f"{len(self.keys)} seats"
            )
        if not self.chip.running:
            self.chip.start()
        self.link: BridgeLink | None = None
        try:
            self._wait_for_firmware(connect_timeout_s)
            seats = tuple(int(k) if k.isdigit() else i + 1 for i, k in enumerate(self.keys))
            config = LinkConfig(self.chip.open_pty(), seats=seats, backoff_initial_s=0.01)
            self.link = BridgeLink(config, sink=sink, on_event=self._on_event).start()
            connected = self.link.wait_connected(connect_timeout_s)
            hello = self.link.device
            refusal = None if hello is None else hello_refusal(hello, identity_of(self.chip.files))
            if refusal is not None:
                raise ChipModelError(f"the emulated Pico: {refusal}")
            if not connected:
                detail = self._trouble()
                raise ChipModelError(
                    f"BridgeLink did not connect to the emulated Pico within "
                    f"{connect_timeout_s:g} s ({detail})"
                )
        except BaseException:
            self.close()
            raise
        self._resets = len(self.chip.resets)
        self._connected_ns = time.monotonic_ns()

    def starved(self, tolerance_ns: int) -> str | None:
        """What this machine's load did to the chip since the link connected
        (:meth:`ChipModel.starved`), or None while it kept a Pico's pace."""
        return self.chip.starved(self._connected_ns, tolerance_ns)

    def _wait_for_firmware(self, timeout_s: float) -> None:
        """Block until ``main.py`` runs (its boot HELLO): see ChipModel.wait_firmware."""
        self.chip.wait_firmware(timeout_s)

    def _pin(self, key: str) -> int:
        return self.chip.button_pins[self.keys.index(key)]

    def _on_event(self, info: EventInfo) -> None:
        with self._events_cond:
            self._events.append(info)
            self._events_cond.notify_all()

    def _wait_until_free(self, pins: set[int]) -> None:
        """Block until each of ``pins`` is a hold-off (and 1 ms) past its last edge.

        The self-test paces its presses by the host's clock and the times a
        source returns; a press is returned on the link's mapping, which may
        be behind the wall clock, so a pause measured from it can come up
        short, and the firmware would take the next edge inside the last
        one's hold-off. Waiting here, rather than scheduling the edges later,
        keeps the first edge of a request at the very instant the harness
        reads it: an edge scheduled ahead lands up to one emulated
        instruction late (µs on a paced CPU), which would blur a pair 2 µs
        apart.
        """
        last = max((self._last_edge_ns.get(pin, -1) for pin in pins), default=-1)
        if last < 0:
            return
        free_at = last + self.holdoff_ns + 1_000_000
        deadline = time.monotonic() + self.edge_timeout_s
        while (left := free_at - self.chip.now_ns()) > 0:
            if time.monotonic() > deadline:
                raise ChipModelError(
                    f"the emulator's clock did not advance past {free_at} ns "
                    f"within {self.edge_timeout_s:g} s ({self._trouble()})"
                )
            time.sleep(left / 1e9)  # paced: the chip's ns are the wall clock's

    def _drive(self, edges: Sequence[tuple[str, int, int]]) -> list[AppliedEdge]:
        """Apply ``(key, level, after_ns)`` edges; block until the harness reports each.

        Returns the applied edges in the order given. The harness applies an
        edge when the emulation reaches its time, so it may report a time up
        to one instruction later than asked: each edge is the first of its
        pin and level at or after its scheduled time.
        """
        self._check_no_reset()
        seen = len(self.chip.edge_log)
        self._wait_until_free({self._pin(key) for key, _, _ in edges})
        wanted = [(self._pin(key), level, self.lead_ns + after) for key, level, after in edges]
        try:
            t0 = self.chip.schedule(wanted)
        except ChipModelError as exc:
            raise ChipModelError(f"{exc} ({self._trouble()})") from None
        deadline = time.monotonic() + self.edge_timeout_s
        found: list[AppliedEdge | None] = [None] * len(wanted)
        while True:
            log = self.chip.edge_log[seen:]
            for index, (pin, level, after) in enumerate(wanted):
                if found[index] is None:
                    found[index] = next(
                        (
                            e
                            for e in log
                            if e.pin == pin
                            and e.level == level
                            and e.ns >= t0 + after
                            and e not in found
                        ),
                        None,
                    )
            if all(e is not None for e in found):
                applied = [e for e in found if e is not None]
                for edge in applied:
                    self._last_edge_ns[edge.pin] = max(
                        edge.ns, self._last_edge_ns.get(edge.pin, edge.ns)
                    )
                return applied
            if time.monotonic() > deadline or not self.chip.running:
                raise ChipModelError(
                    f"the emulator did not report {len(wanted)} edge(s) scheduled at "
                    f"{t0} ns within {self.edge_timeout_s:g} s ({self._trouble()})"
                )
            time.sleep(0.0005)

    def _trouble(self) -> str:
        """What the emulator says went wrong, for an error message."""
        notes = [*self.chip.errors, *(f"a {why} reset" for why, _ in self.chip.resets)]
        reports = self.chip.time_reports
        if self.chip.running and reports:
            ns, wall_ns = reports[-1]
            quiet_s = (time.monotonic_ns() - wall_ns) / 1e9
            if quiet_s > 2.0:
                # (e.g. an rp2040js peripheral alarm that keeps firing at one instant)
                notes.append(
                    f"the emulator's clock stopped at {ns / 1e9:.2f} s, {quiet_s:.0f} s ago: "
                    "it hangs"
                )
        if not self.chip.running:
            notes.append("the emulator stopped")
        return "; ".join(notes) or "no error from the emulator"

    def _check_no_reset(self) -> None:
        """A reboot mid-test loses the firmware's unacknowledged presses and its
        clock fit: the numbers after it would be the model's trouble, not the
        firmware's stamps, so the test stops and says why."""
        if len(self.chip.resets) > self._resets:
            reason, ns = self.chip.resets[-1]
            raise ChipModelError(
                f"the emulated Pico rebooted ({reason}) {ns / 1e9:.2f} s into its run, "
                "so the self-test stopped: a watchdog reset means main.py's loop stalled "
                "for WATCHDOG_MS, e.g. a host too busy to run the paced chip in real time"
            )

    def wait_delivered(self, t_ns: int, timeout_s: float) -> bool:
        """Block until BridgeLink's watermark passes ``t_ns`` (host ns): every press
        stamped before it has reached the sink. False on timeout."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            mark = self.link.watermark() if self.link is not None else None
            if mark is not None and mark >= t_ns:
                return True
            time.sleep(0.001)
        return False

    def channels(self) -> tuple[str, ...]:
        return self.keys

    def pins(self) -> dict[str, int]:
        """The firmware's GPIO of each key (the report shows these, not the Pi's pin map)."""
        return {key: self._pin(key) for key in self.keys}

    def _on_link_clock(self, key: str, edge: AppliedEdge, since: int) -> int:
        """The host time of press ``edge`` on BridgeLink's own mapping (module docstring).

        Waits for the link to deliver the press (its first event of that
        button after ``since`` stamped no earlier than the edge, less the
        slack). A press that does not come back is the self-test's to count
        as missed: its wall time is returned.
        """
        button = self.keys.index(key)
        deadline = time.monotonic() + self.reply_timeout_s
        with self._events_cond:
            while True:
                for info in self._events[since:]:
                    if not (info.pressed and info.button == button):
                        continue
                    # The stamp's distance from the edge on the chip's clock, wrap-safe.
                    ticks = logic.ticks_diff(info.device_us % TICKS_PERIOD_US, edge.ns // 1000)
                    stamp_after_edge_ns = ticks * 1000 - edge.ns % 1000
                    if stamp_after_edge_ns >= -STAMP_SLACK_NS:
                        on_link = info.t_ns - stamp_after_edge_ns
                        self.clock_errors_ns.append(on_link - edge.wall_ns)
                        return on_link
                left = deadline - time.monotonic()
                if left <= 0:
                    return edge.wall_ns
                self._events_cond.wait(left)

    def press(self, key: str) -> int:
        since = len(self._events)
        return self._on_link_clock(key, self._drive([(key, 0, 0)])[0], since)

    def release(self, key: str) -> int:
        return self._drive([(key, 1, 0)])[0].wall_ns

    def spike(self, key: str, width_ns: int) -> tuple[int, int]:
        """A press and its release ``width_ns`` apart on the chip's clock (the glitch check).

        Returns the host times of both edges: the first as the harness applied
        it, the second that plus the exact emulated width, so the report
        shows the spike the firmware saw rather than the pipe's timing.
        """
        down, up = self._drive([(key, 0, 0), (key, 1, width_ns)])
        return down.wall_ns, down.wall_ns + (up.ns - down.ns)

    def press_pair(self, first: str, second: str, offset_ns: int) -> tuple[int, int]:
        since = len(self._events)
        one, two = self._drive([(first, 0, 0), (second, 0, offset_ns)])
        return self._on_link_clock(first, one, since), self._on_link_clock(second, two, since)

    def burst(self, key: str, edges: int, spacing_ns: int) -> int:
        """Even edges press (level 0), odd ones release; all at exact emulated spacing."""
        since = len(self._events)
        applied = self._drive([(key, index % 2, index * spacing_ns) for index in range(edges)])
        return self._on_link_clock(key, applied[0], since)

    def close(self) -> None:
        if self.link is not None:
            with contextlib.suppress(Exception):
                self.link.stop()
        self.chip.stop()


def selftest_pulse_source(
    keys: Sequence[str], sink: Callable[[Press | Release], None]
) -> ChipPulseSource:
    """``hardware.selftest.chip_rig``'s entry point: boots the chip, connects the link."""
    return ChipPulseSource(keys, sink)


__all__ = [
    "LABEL",
    "ChipPulseSource",
    "firmware_glitch_ns",
    "firmware_holdoff_ns",
    "selftest_pulse_source",
]
