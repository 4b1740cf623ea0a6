"""``svoyak selftest``: prove, on the real wiring, that the buttons are fast and fair.

The test presses the buttons itself through a **pulse source** — something
that can make a button's input go active and say when it drove it:

* on the rig, output pins wired to the button inputs (``[selftest.loopback]``
  in the pin map: :class:`LoopbackPulses`);
* ``--simulate``: gpiozero's ``MockFactory`` with a ``MockConnectedPin`` per
  button, wired to that button's mock input (same class, mock pins);
* ``--emulate``: the Pico firmware emulator over a pseudo-terminal, through the
  real serial link (:class:`EmulatorPulses`, an adapter to ``firmware_bridge``);
* ``--emulate --chip``: the real firmware (``main.py`` on MicroPython) on the
  chip model, an emulated RP2040, through the same link (:func:`chip_rig`):
  the presses are pin edges at exact offsets on the chip's own clock.

The presses come back through the real input path (for GPIO: the
:class:`~hardware.buttons.ButtonBank` with its hold-off and stuck detection)
as timestamped inputs on a queue. The checks:

latency
    N presses per button: the input's edge stamp minus the time the output
    was driven; min / median / p99 / max and the jitter (standard deviation).
fairness
    Two buttons pressed with known offsets (0, 10, 100, 1000 µs), the first
    alternating, into a running game (:mod:`hardware.selftest_game`: the
    runtime, its sources and wait bound, a SQLite journal; a ``tv-modern`` or
    ``championship-2003`` game): per offset the order errors against the
    commanded order, ties, late and early rulings, missed presses, the
    delivery delay (edge stamp → the decision announced) p99 and max, and
    the gap the stamps measured.
bounce
    A burst of edges within the hold-off counts as one press, stamped at the
    burst's first edge.
stuck
    Every button held past the (shortened) stuck threshold is reported stuck
    and excluded, and freed on release; buttons already down at the start are
    listed. The Pico path (``--emulate``) has no stuck detection to test: the
    report lists the check as not run, and says why, rather than passing it.

Exit status: 0 when every check that ran passed (the report names any that
could not run on this input path), 1 when one failed, 2 when the test could
not run (a bad pin map, no pin factory, ``--emulate`` or ``--chip``
unavailable).
"""

from __future__ import annotations

import importlib
import queue
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO

from buzzer.arbiter.events import Press, Release
from buzzer.errors import SvoyakError
from buzzer.runtime.runtime import DEFAULT_WAIT_BOUND_NS
from firmware_bridge.firmware import settings
from hardware.buttons import (
    PRESS_INPUTS,
    ButtonBank,
    ButtonEvent,
    ButtonFreed,
    ButtonStuck,
    key_of,
)
from hardware.factory import claim_error
from hardware.pinmap import FIRST_PIN, LAST_PIN, PinMap, describe_key
from hardware.report import (
    BURST_EDGES,
    BURST_SPACING_NS,
    BounceRow,
    FairnessRow,
    GlitchRow,
    LatencyRow,
    PhantomRow,
    SelftestReport,
    StuckRow,
)
from hardware.selftest_game import SelftestGame
from hardware.selftest_lamps import GpioLampSwitch, LampSwitch, PicoLampSwitch

NS_PER_US = 1_000
NS_PER_MS = 1_000_000
DEFAULT_OFFSETS_US = (0, 10, 100, 1000)
FAIRNESS_RULES = ("tv-modern", "championship-2003")
CHECKS = ("latency", "fairness", "bounce", "glitch", "phantom", "stuck")
#: The phantom check: how often every lamp is switched on and off, and how fast.
PHANTOM_SWITCHES = 20
PHANTOM_PERIOD_S = 0.02
#: The stuck threshold the self-test uses (the game's is 10 s: too long to wait for).
DEFAULT_TEST_STUCK_S = 0.5
#: How long to wait for an input that should come back from a pulse.
REPLY_TIMEOUT_S = 1.0
#: The chip model's paced CPU runs ``main.py``'s loop many times slower than a
#: Pico does (see docs/chip-model.md): a press takes that much longer to come back.
CHIP_REPLY_TIMEOUT_S = 5.0
#: The live game's wait bound on the chip model: its paced CPU sends the
#: firmware's 1 ms heartbeat only every 100-150 ms on a busy machine (see
#: docs/chip-model.md), so the game's 100 ms would rule its presses late for
#: the emulation's slowness, not the firmware's. A real Pico gets the game's own.
CHIP_WAIT_BOUND_NS = 3_000_000_000
#: A Pico's presses are stamped on the link's fit of its clock, not on the
#: host's own: the question opens this long before the pair, so that the fit's
#: error (≈1 ms on the chip model) cannot make a fair press a false start.
LINK_LEAD_NS = 20_000_000
#: Why the stuck check does not run through the Pico bridge (the report says so).
PICO_NO_STUCK = (
    "the Pico path has no stuck-button detection: the firmware and BridgeLink report "
    "presses and releases only"
)
#: Why the phantom check cannot run on a rig with no lamps of its own (the report says so).
NO_LAMPS = "this input path has no lamps the self-test can switch"


class SelftestUnavailable(SvoyakError, RuntimeError):
    """The self-test cannot run here; the message says why and what to do."""


# -- pulse sources ---------------------------------------------------------------


class PulseSource(Protocol):
    """Makes buttons' inputs go active and says when (host ``time.monotonic_ns()``).

    The inputs themselves come back through the rig's input path, not from
    here. Button keys are the pin map's: ``"1"`` (seat 1), ``"reading_end"``…
    """

    label: str
    #: Whether a pair's offset is exact on the wires (a generator, the chip
    #: model, the emulator's device clock) or only the start of this host's
    #: second write (loopback outputs, mock pins): the report says which.
    exact_offsets: bool

    def channels(self) -> tuple[str, ...]:
        """The button keys this source can press."""
        ...

    def press(self, key: str) -> int:
        """Drive the button active; the host time just before it was driven."""
        ...

    def release(self, key: str) -> int:
        """Drive the button inactive; the host time just before it was driven."""
        ...

    def press_pair(self, first: str, second: str, offset_ns: int) -> tuple[int, int]:
        """Press ``first``, then ``second`` ``offset_ns`` later (as close as the source can)."""
        ...

    def burst(self, key: str, edges: int, spacing_ns: int) -> int:
        """``edges`` alternating edges ``spacing_ns`` apart, starting (and, odd, ending) active."""
        ...

    def close(self) -> None: ...


def _spin_until(deadline_ns: int) -> int:
    now = time.monotonic_ns()
    while now < deadline_ns:
        now = time.monotonic_ns()
    return now


def _sleep_until(deadline_ns: int) -> None:
    left = deadline_ns - time.monotonic_ns()
    if left > 0:
        time.sleep(left / 1e9)


class LoopbackPulses:
    """Output pins wired to button inputs, as gpiozero ``DigitalOutputDevice``\\ s.

    Each output is driven at its input's idle level and pulled to the active
    level for a press (for an active-low button: high at rest, low = pressed).
    A pair is two writes one after the other: the second edge falls when its
    write gets through gpiozero and the kernel, later than commanded.
    """

    exact_offsets = False

    def __init__(self, label: str, outputs: Mapping[str, tuple[int, bool]], pin_factory: Any):
        from gpiozero import DigitalOutputDevice  # type: ignore[import-untyped]

        self.label = label
        self._devices: dict[str, Any] = {}
        try:
            for key, (pin, input_active_low) in outputs.items():
                try:
                    self._devices[key] = DigitalOutputDevice(
                        pin,
                        active_high=not input_active_low,
                        initial_value=False,
                        pin_factory=pin_factory,
                    )
                except Exception as exc:
                    raise claim_error(exc, pin, f"the loopback of {describe_key(key)}") from exc
        except BaseException:
            self.close()
            raise

    def channels(self) -> tuple[str, ...]:
        return tuple(self._devices)

    def press(self, key: str) -> int:
        t = time.monotonic_ns()
        self._devices[key].on()
        return t

    def release(self, key: str) -> int:
        t = time.monotonic_ns()
        self._devices[key].off()
        return t

    def press_pair(self, first: str, second: str, offset_ns: int) -> tuple[int, int]:
        one, two = self._devices[first], self._devices[second]
        t1 = time.monotonic_ns()
        one.on()
        t2 = _spin_until(t1 + offset_ns)
        two.on()
        return t1, t2

    def burst(self, key: str, edges: int, spacing_ns: int) -> int:
        """The burst's clock starts once the first edge is out: a press stamped before
        the returned instant + ``spacing_ns`` is the first edge's, whatever delayed it."""
        device = self._devices[key]
        device.on()
        t0 = time.monotonic_ns()
        for index in range(1, edges):
            _spin_until(t0 + index * spacing_ns)
            if index % 2 == 0:
                device.on()
            else:
                device.off()
        return t0

    def close(self) -> None:
        for device in self._devices.values():
            device.close()


#: How long the generator holds a release before its next RUN may start: past
#: any hold-off the self-test meets (the Pico's 10 ms, the pin map's), with room.
GENERATOR_RELEASE_SETTLE_NS = 20 * NS_PER_MS
#: A burst through the generator ends with its own release this long after its
#: last edge, in the same RUN: the release's stamp minus the press's then shows
#: which edge the press was stamped at, on the generator's exact clock.
GENERATOR_BURST_RELEASE_NS = 30 * 1_000_000
#: The glitch check's spike through the generator: 1 µs, exact.
GENERATOR_SPIKE_NS = 1_000
#: Why the latency check does not run through the generator (the report says so).
GENERATOR_NO_LATENCY = (
    "the generator's edges are exact relative to each other, not on this host's clock: "
    "edge stamp minus drive time cannot be measured with it (the fairness rows give the "
    "delivery delay, edge stamp to decision)"
)


class GeneratorPulses:
    """``--generator PORT``: a second Pico's PIO presses the buttons, edges exact to a cycle.

    The independent reference the self-test needs on real wiring: the
    generator sets all its outputs with one PIO instruction, so a pair
    commanded 2 µs apart is 2 µs apart on the cables (to its 40 ns step),
    whatever the Pi or USB do meanwhile. Channel ``k`` (GP2 + k) is wired
    to the ``k``-th seat of the pin map. Returned "drive times" are the host
    time each command was sent: the edges follow by the USB's latency, so
    only the checks that need no host-clock drive time use them.
    """

    exact_offsets = True

    def __init__(self, generator: Any, channels: Mapping[str, int], active_low: Mapping[str, bool]):
        self.generator = generator
        self.label = (
            f"pulse generator on {generator.url} (a Pico's PIO, "
            f"{generator.info.resolution_ns:g} ns steps), wired to the button inputs"
        )
        self._channels = dict(channels)
        self._active_low = dict(active_low)
        self._down: set[str] = set()
        self.burst_release_ns = GENERATOR_BURST_RELEASE_NS

    def _levels(self, down: set[str]) -> int:
        levels = 0xFF
        for key, channel in self._channels.items():
            pressed = key in down
            high = pressed != self._active_low[key]
            if not high:
                levels &= ~(1 << channel)
        return levels

    def channels(self) -> tuple[str, ...]:
        return tuple(self._channels)

    def press(self, key: str) -> int:
        self._down.add(key)
        return int(self.generator.run([(self._levels(self._down), 0)]))

    def release(self, key: str) -> int:
        """The release, then the level held ``GENERATOR_RELEASE_SETTLE_NS`` on the
        generator's own clock: its next RUN waits for that, so no edge of the next
        check falls inside this release's hold-off, however late the RUN's bytes
        reached the generator (the host's pause alone cannot promise that)."""
        self._down.discard(key)
        return int(self.generator.run([(self._levels(self._down), GENERATOR_RELEASE_SETTLE_NS)]))

    def press_pair(self, first: str, second: str, offset_ns: int) -> tuple[int, int]:
        """At 0 ns one step sets both: the very same instruction, a true tie."""
        one = self._levels(self._down | {first})
        self._down |= {first, second}
        both = (self._levels(self._down), 0)
        steps = [(one, offset_ns), both] if offset_ns else [both]
        t = int(self.generator.run(steps))
        return t, t + offset_ns

    def burst(self, key: str, edges: int, spacing_ns: int) -> int:
        """``edges`` edges ``spacing_ns`` apart, then the release ``burst_release_ns`` on."""
        rest, down = self._levels(self._down - {key}), self._levels(self._down | {key})
        steps = [(down if i % 2 == 0 else rest, spacing_ns) for i in range(edges)]
        steps[-1] = (steps[-1][0], self.burst_release_ns)
        steps.append((rest, GENERATOR_RELEASE_SETTLE_NS))
        self._down.discard(key)
        return int(self.generator.run(steps))

    def spike(self, key: str, width_ns: int) -> tuple[int, int]:
        """One press ``width_ns`` long, in one RUN: exact, however slow the USB."""
        t = int(
            self.generator.run(
                [
                    (self._levels(self._down | {key}), width_ns),
                    (self._levels(self._down), GENERATOR_RELEASE_SETTLE_NS),
                ]
            )
        )
        return t, t + width_ns

    def close(self) -> None:
        try:
            if self._down:
                self._down.clear()
                self.generator.run([(self._levels(self._down), 0)])
        finally:
            self.generator.close()


#: What ``--emulate`` expects from ``firmware_bridge`` (built in parallel, issue 4 part 3).
EMULATOR_CONTRACT = (
    "firmware_bridge.emulator.selftest_pulse_source(keys, sink) -> an object with the "
    "hardware.selftest.PulseSource methods, which runs the firmware emulator on a pty, "
    "connects firmware_bridge.link to it, and delivers each press to sink(Press(t, seat)) "
    "with t mapped onto the host's monotonic clock; its .link (the BridgeLink) has a "
    "watermark() that proves the game's Pico source"
)


class EmulatorPulses:
    """``--emulate``: a :class:`PulseSource` over the Pico firmware emulator on a pty.

    An adapter: it imports ``firmware_bridge`` only when used, and fails with
    a clear message until that package provides :data:`EMULATOR_CONTRACT`.
    """

    exact_offsets = True

    def __init__(self, keys: Sequence[str], sink: Callable[[ButtonEvent], None]) -> None:
        try:
            emulator = importlib.import_module("firmware_bridge.emulator")
            importlib.import_module("firmware_bridge.link")
        except Exception as exc:  # missing, or half-built: either way not usable yet
            raise SelftestUnavailable(
                "--emulate needs firmware_bridge.emulator and firmware_bridge.link (the Pico "
                f"bridge, issue 4 part 3), which are not available yet ({exc}). "
                "Use --simulate meanwhile."
            ) from None
        make = getattr(emulator, "selftest_pulse_source", None)
        if make is None:
            raise SelftestUnavailable(
                "--emulate: firmware_bridge.emulator has no selftest_pulse_source yet; "
                f"the self-test expects {EMULATOR_CONTRACT}"
            )
        self._source: PulseSource = make(tuple(keys), sink)
        self.label = f"firmware emulator on a pty ({getattr(self._source, 'label', 'emulator')})"

    def channels(self) -> tuple[str, ...]:
        return self._source.channels()

    def press(self, key: str) -> int:
        return self._source.press(key)

    def release(self, key: str) -> int:
        return self._source.release(key)

    def press_pair(self, first: str, second: str, offset_ns: int) -> tuple[int, int]:
        return self._source.press_pair(first, second, offset_ns)

    def burst(self, key: str, edges: int, spacing_ns: int) -> int:
        return self._source.burst(key, edges, spacing_ns)

    @property
    def spike(self) -> Callable[[str, int], tuple[int, int]] | None:
        """The source's exact spike (the glitch check's), if it can make one."""
        return getattr(self._source, "spike", None)

    @property
    def link(self) -> Any:
        """The emulator's ``BridgeLink`` (the game's Pico source is proven by it)."""
        return getattr(self._source, "link", None)

    def close(self) -> None:
        self._source.close()


# -- the rig ---------------------------------------------------------------------


class RigSink:
    """Where the input path delivers: the checks' queue, and a running game while one listens.

    The input path's own thread calls it (gpiozero's callbacks, the Pico
    link's reader), so a press reaches the game the way it does in
    ``svoyak run``: from that thread, stamped at the edge, never re-sent by
    the check.
    """

    def __init__(self) -> None:
        self.queue: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
        #: The running game's source while the fairness check runs (None: no game).
        self.game: Callable[[Press | Release], object] | None = None
        #: The game's seats: a button beyond them has no seat in it (as in a game).
        self.seats = 0
        #: The game's start (host ns): an edge stamped before it is a check's
        #: before the game (delivered late by a slow path), never the game's.
        self.since_ns = 0

    def __call__(self, event: ButtonEvent) -> None:
        self.queue.put(event)
        game = self.game
        if game is None or not isinstance(event, Press | Release):
            return
        if 1 <= event.seat <= self.seats and event.t >= self.since_ns:
            game(event)


class DeviceStamps:
    """The Pico's own stamps of the events its link delivered (the link's ``on_event``).

    Two host stamps are the Pico's two stamps mapped by the link's clock fit,
    which a young fit (the first seconds of a link) may move between them by
    tens of µs; a check of an interval on the pulse source's exact clock (the
    bounce burst: "stamped at its first edge" is a 50 µs question) reads the
    Pico's clock itself instead.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_event: dict[tuple[int, bool, int], int] = {}

    def record(self, info: Any) -> None:
        with self._lock:
            self._by_event[(info.seat, info.pressed, info.t_ns)] = info.device_us

    def of(self, event: ButtonEvent) -> int | None:
        seat = getattr(event, "seat", None)
        if seat is None:
            return None
        with self._lock:
            return self._by_event.get((seat, isinstance(event, Press), event.t))


@dataclass
class Rig:
    """A pulse source, the input path it feeds, and what that path does."""

    pinmap: PinMap
    source: PulseSource
    inputs: queue.SimpleQueue[ButtonEvent]
    hold_off_ns: int
    #: The input path's stuck threshold, or None when it has no stuck detection.
    stuck_ns: int | None
    bank: ButtonBank | None = None
    closers: list[Callable[[], None]] = field(default_factory=list)
    #: Why this input path cannot run the stuck check (None: it can).
    no_stuck_check: str | None = None
    #: Errors of the rig itself (an emulator that died): the test could not run,
    #: exit status 2 with their message, not a traceback.
    fatal: tuple[type[Exception], ...] = ()
    #: How long an input may take to come back from a pulse before it counts as missed.
    reply_timeout_s: float = REPLY_TIMEOUT_S
    #: The GPIO each button's input really is on, when not the pin map's (the
    #: chip model's firmware has its own pin map): what the report shows.
    pins: dict[str, int] | None = None
    #: The input path's glitch check (ns), or None when it has none.
    glitch_ns: int | None = None
    #: The pin factory of a GPIO rig: the phantom check drives the lamps on it.
    pin_factory: Any = None
    #: What the input path delivers to (the queue behind :attr:`inputs`, and the game).
    sink: RigSink | None = None
    #: The Pico's link (a ``BridgeLink``), whose watermark proves the game's Pico source.
    link: Any = None
    #: The live game's wait bound for this input path (None: the game's own).
    wait_bound_ns: int | None = None
    #: Why this pulse source cannot run the latency check (None: it can).
    no_latency_check: str | None = None
    #: The Pico's own stamp (device µs) of an event it delivered, by
    #: ``(seat, pressed, host t)`` (``DeviceStamps``): an interval between two of
    #: them is the Pico's clock alone, with no clock fit in between.
    device_stamps: DeviceStamps | None = None

    @property
    def keys(self) -> tuple[str, ...]:
        return self.source.channels()

    def lamp_switch(self) -> LampSwitch | None:
        """The lamps of the path under test, for the phantom check (None: it has none).

        A GPIO rig's are the pin map's, on its pin factory; a Pico's, its
        firmware's, switched through the link as a game switches them.
        """
        if self.pin_factory is not None:
            return GpioLampSwitch(self.pinmap, self.pin_factory)
        if self.link is not None and self.link.device is not None:
            return PicoLampSwitch(self.link)
        return None

    def wait_delivered(self, t_ns: int) -> None:
        """Block until every input stamped before host time ``t_ns`` has been queued.

        GPIO inputs are queued as they happen; a source whose inputs come
        over a link (its ``wait_delivered``, e.g. the Pico's watermark) says
        when nothing older can still arrive, so a check does not count
        before the stragglers are in.
        """
        wait = getattr(self.source, "wait_delivered", None)
        if wait is not None:
            wait(t_ns, self.reply_timeout_s)
        elif self.link is not None:  # a Pico's link: its watermark says so
            deadline = time.monotonic() + self.reply_timeout_s
            while time.monotonic() < deadline:
                mark = self.link.watermark()
                if mark is not None and mark >= t_ns:
                    return
                time.sleep(0.002)

    def pin(self, key: str) -> int:
        if self.pins is not None and key in self.pins:
            return self.pins[key]
        return self.pinmap.buttons()[key].pin

    def close(self) -> None:
        self.source.close()
        for close in reversed(self.closers):
            close()


def spare_pins(pinmap: PinMap) -> list[int]:
    used = pinmap.used_pins()
    return [p for p in range(FIRST_PIN, LAST_PIN + 1) if p not in used]


def _test_bank(
    pinmap: PinMap,
    pin_factory: Any,
    sink: RigSink,
    hold_off_ns: int | None,
    stuck_ns: int | None,
) -> ButtonBank:
    """The game's input path for a GPIO rig, with the self-test's short stuck threshold."""
    stuck = stuck_ns if stuck_ns is not None else round(DEFAULT_TEST_STUCK_S * 1e9)
    return ButtonBank(pinmap, pin_factory, sink, hold_off_ns=hold_off_ns, stuck_ns=stuck)


def gpio_rig(
    pinmap: PinMap,
    pin_factory: Any,
    *,
    simulate: bool,
    hold_off_ns: int | None = None,
    stuck_ns: int | None = None,
) -> Rig:
    """The rig on GPIO: loopback outputs and a :class:`ButtonBank` on one injected factory.

    ``simulate``: every button gets a ``MockConnectedPin`` on a spare pin, wired
    to its mock input. Otherwise the pin map's ``[selftest.loopback]`` pins are
    used (buttons without one are not pulsed).
    """
    buttons = pinmap.buttons()
    if simulate:
        from gpiozero.pins.mock import MockConnectedPin  # type: ignore[import-untyped]

        spare = spare_pins(pinmap)
        wiring = dict(zip(buttons, spare, strict=False))
        for key, out_pin in wiring.items():
            pin_factory.pin(
                out_pin,
                pin_class=MockConnectedPin,
                input_pin=pin_factory.pin(buttons[key].pin),
            )
        label = "simulated: gpiozero MockFactory, a MockConnectedPin loopback per button"
    else:
        wiring = dict(pinmap.loopback)
        label = "GPIO loopbacks ([selftest.loopback] outputs wired to the button inputs)"
    if not wiring:
        raise SelftestUnavailable(
            f"{pinmap.source}: no [selftest.loopback] outputs: wire an output pin (through "
            "1 kΩ, or a tenth of an external pull-up) to each button input and list them, "
            "e.g. [selftest.loopback] 1 = 7"
        )
    sink = RigSink()
    inputs = sink.queue
    bank = _test_bank(pinmap, pin_factory, sink, hold_off_ns, stuck_ns)
    try:
        outputs = {key: (pin, buttons[key].active_low) for key, pin in wiring.items()}
        source = LoopbackPulses(label, outputs, pin_factory)
    except BaseException:
        bank.close()
        raise
    return Rig(
        pinmap,
        source,
        inputs,
        bank.hold_off_ns,
        bank.stuck_ns,
        bank,
        [bank.close],
        glitch_ns=bank.glitch_ns,
        pin_factory=pin_factory,
        sink=sink,
    )


def generator_rig(
    pinmap: PinMap,
    pin_factory: Any,
    port: str,
    *,
    hold_off_ns: int | None = None,
    stuck_ns: int | None = None,
) -> Rig:
    """``--generator PORT``: the Pi's buttons pressed by the pulse generator on ``port``.

    The input path is the game's (a :class:`ButtonBank` on the real pin
    factory); the generator's channel ``k`` is the pin map's ``k``-th seat.
    """
    from firmware_bridge.generator import GeneratorError, PulseGenerator

    buttons = pinmap.buttons()
    seats = [str(s) for s in pinmap.seats]
    try:
        generator = PulseGenerator(port)
    except GeneratorError as exc:
        raise SelftestUnavailable(str(exc)) from None
    wired = seats[: generator.info.channels]
    sink = RigSink()
    try:
        bank = _test_bank(pinmap, pin_factory, sink, hold_off_ns, stuck_ns)
    except BaseException:
        generator.close()
        raise
    source = GeneratorPulses(
        generator,
        {key: channel for channel, key in enumerate(wired)},
        {key: buttons[key].active_low for key in wired},
    )
    return Rig(
        pinmap,
        source,
        sink.queue,
        bank.hold_off_ns,
        bank.stuck_ns,
        bank,
        [bank.close],
        fatal=(GeneratorError,),
        glitch_ns=bank.glitch_ns,
        pin_factory=pin_factory,
        sink=sink,
        no_latency_check=GENERATOR_NO_LATENCY,
    )


#: How long the Pico under test may take to answer its link's handshake.
PICO_CONNECT_TIMEOUT_S = 10.0


def pico_generator_rig(pinmap: PinMap, generator_port: str, pico_port: str) -> Rig:
    """``--generator PORT --serial PICO``: the pulse generator presses a real Pico's buttons.

    The generator's GP2, GP3, … are wired to the Pico's button inputs GP2,
    GP3, … (seat 1, 2, …); the Pico's presses come back through BridgeLink as
    in ``svoyak run --serial``, and go into the running game from the link's
    reader thread. The Pico's inputs are active low (its pull-ups), and its
    hold-off is the firmware's own.
    """
    from firmware_bridge.firmware import logic
    from firmware_bridge.generator import GeneratorError, PulseGenerator
    from firmware_bridge.link import BridgeLink, LinkConfig
    from firmware_bridge.shipped import hello_refusal

    seats = [str(s) for s in pinmap.seats]
    try:
        generator = PulseGenerator(generator_port)
    except GeneratorError as exc:
        raise SelftestUnavailable(str(exc)) from None
    wired = seats[: min(generator.info.channels, len(logic.BUTTON_PINS))]
    sink = RigSink()
    config = LinkConfig(pico_port, seats=tuple(int(k) for k in wired))
    stamps = DeviceStamps()
    link = BridgeLink(config, sink=sink, on_event=stamps.record).start()
    connected = link.wait_connected(PICO_CONNECT_TIMEOUT_S)
    refusal = None if link.device is None else hello_refusal(link.device)
    if refusal is not None:
        # Another firmware would prove nothing of the one the game runs.
        link.stop()
        generator.close()
        raise SelftestUnavailable(f"the Pico under test on {pico_port}: {refusal}")
    if not connected:
        link.stop()
        generator.close()
        raise SelftestUnavailable(
            f"the Pico under test on {pico_port} did not answer within "
            f"{PICO_CONNECT_TIMEOUT_S:g} s: is it plugged in, with svoyak's firmware? "
            "ls -l /dev/serial/by-id/"
        )
    source = GeneratorPulses(
        generator,
        {key: channel for channel, key in enumerate(wired)},
        dict.fromkeys(wired, True),
    )
    return Rig(
        pinmap,
        source,
        sink.queue,
        settings.holdoff_us() * NS_PER_US,
        None,
        closers=[link.stop],
        no_stuck_check=PICO_NO_STUCK,
        glitch_ns=settings.glitch_us() * NS_PER_US,
        fatal=(GeneratorError,),
        reply_timeout_s=CHIP_REPLY_TIMEOUT_S,
        pins={key: logic.BUTTON_PINS[i] for i, key in enumerate(wired)},
        sink=sink,
        link=link,
        no_latency_check=GENERATOR_NO_LATENCY,
        device_stamps=stamps,
    )


def emulator_rig(pinmap: PinMap, *, hold_off_ns: int | None = None) -> Rig:
    """The rig through the firmware emulator (see :class:`EmulatorPulses`)."""
    sink = RigSink()
    inputs = sink.queue
    source = EmulatorPulses([str(s) for s in pinmap.seats], sink)
    hold_off = pinmap.hold_off_ns if hold_off_ns is None else hold_off_ns
    return Rig(
        pinmap,
        source,
        inputs,
        hold_off,
        None,
        no_stuck_check=PICO_NO_STUCK,
        glitch_ns=settings.glitch_us() * NS_PER_US,
        sink=sink,
        link=source.link,
    )


def chip_rig(pinmap: PinMap, *, hold_off_ns: int | None = None) -> Rig:
    """``--emulate --chip``: the real firmware on the chip model, through BridgeLink.

    The pin map's seats are the firmware's buttons 1, 2, … in order. The
    rig's hold-off is the firmware's own (``HOLDOFF_US`` in ``main.py``): the
    checks space their presses by it, and a shorter one than the firmware
    applies would turn fair presses into ignored edges. Boots the chip (some
    seconds) before it returns.
    """
    try:
        from firmware_bridge.chip import ChipModelError, check_available
        from firmware_bridge.chip.pulses import firmware_holdoff_ns, selftest_pulse_source
    except Exception as exc:  # not installed with svoyak, or half-built
        raise SelftestUnavailable(
            f"--chip needs firmware_bridge.chip (the chip model), which cannot be loaded ({exc})"
        ) from None
    try:
        check_available()
        firmware_hold_off = firmware_holdoff_ns()
    except ChipModelError as exc:
        raise SelftestUnavailable(str(exc)) from None
    if hold_off_ns is not None and hold_off_ns != firmware_hold_off:
        raise SelftestUnavailable(
            f"--hold-off-ms: the chip runs the firmware's own hold-off "
            f"({firmware_hold_off / NS_PER_MS:g} ms, HOLDOFF_US in main.py); leave it out"
        )
    sink = RigSink()
    inputs = sink.queue
    try:
        source = selftest_pulse_source([str(s) for s in pinmap.seats], sink)
    except ChipModelError as exc:
        raise SelftestUnavailable(str(exc)) from None
    return Rig(
        pinmap,
        source,
        inputs,
        firmware_hold_off,
        None,
        no_stuck_check=PICO_NO_STUCK,
        glitch_ns=settings.glitch_us() * NS_PER_US,
        fatal=(ChipModelError,),
        reply_timeout_s=CHIP_REPLY_TIMEOUT_S,
        pins=source.pins(),
        sink=sink,
        link=source.link,
        wait_bound_ns=CHIP_WAIT_BOUND_NS,
    )


# -- progress --------------------------------------------------------------------


class Progress:
    """A text progress bar on a stream (stderr); quiet when ``enabled`` is False."""

    def __init__(self, total: int, stream: TextIO, enabled: bool = True, width: int = 30):
        self.total = max(1, total)
        self.done = 0
        self.stream = stream
        self.enabled = enabled
        self.width = width
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self._last_percent = -1

    def step(self, note: str, n: int = 1) -> None:
        self.done = min(self.total, self.done + n)
        if not self.enabled:
            return
        percent = self.done * 100 // self.total
        if not self.tty and percent // 10 == self._last_percent // 10 and self.done < self.total:
            return
        self._last_percent = percent
        filled = self.width * self.done // self.total
        bar = "#" * filled + "." * (self.width - filled)
        end = "" if self.tty else "\n"
        self.stream.write(f"\r[{bar}] {percent:3d}% {note:<32}{end}")
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


# -- waiting for inputs ------------------------------------------------------------


def _drain(rig: Rig) -> list[ButtonEvent]:
    got: list[ButtonEvent] = []
    while True:
        try:
            got.append(rig.inputs.get_nowait())
        except queue.Empty:
            return got


def _collect(
    rig: Rig, want: Callable[[list[ButtonEvent]], bool], timeout_s: float
) -> list[ButtonEvent]:
    """Inputs until ``want(inputs so far)`` or the timeout."""
    got: list[ButtonEvent] = []
    deadline = time.monotonic() + timeout_s
    while not want(got):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            got.append(rig.inputs.get(timeout=left))
        except queue.Empty:
            break
    return got


def _presses_of(events: Sequence[ButtonEvent], key: str) -> list[ButtonEvent]:
    return [e for e in events if isinstance(e, PRESS_INPUTS) and key_of(e) == key]


def _pressed(*keys: str) -> Callable[[list[ButtonEvent]], bool]:
    """For :func:`_collect`: done once every one of ``keys`` has pressed."""

    def done(got: list[ButtonEvent]) -> bool:
        return all(_presses_of(got, key) for key in keys)

    return done


# -- the checks ------------------------------------------------------------------


def check_latency(rig: Rig, count: int, progress: Progress) -> list[LatencyRow]:
    """``count`` rounds; in each, every button is pressed in turn, then all are released.

    Buttons do not share a hold-off, so a round takes two hold-offs whatever
    the number of buttons.
    """
    keys = rig.keys
    rows = {key: LatencyRow(key, rig.pin(key)) for key in keys}
    gap_ns = rig.hold_off_ns + 2 * NS_PER_MS
    for _ in range(count):
        _drain(rig)
        first = None
        for key in keys:
            t_drive = rig.source.press(key)
            first = t_drive if first is None else first
            got = _collect(rig, _pressed(key), rig.reply_timeout_s)
            presses = _presses_of(got, key)
            if presses:
                rows[key].samples_ns.append(presses[0].t - t_drive)
            else:
                rows[key].missed += 1
        _sleep_until((first or time.monotonic_ns()) + gap_ns)
        t_release = time.monotonic_ns()
        for key in keys:
            rig.source.release(key)
        _sleep_until(t_release + gap_ns)
        progress.step("latency")
    return list(rows.values())


def _game_sink(rig: Rig, game: SelftestGame) -> Callable[[Press | Release], object]:
    """The game's source for this input path, proven as ``svoyak run`` proves it."""
    if rig.link is not None:
        return game.link_sink(rig.link)
    if rig.bank is not None:
        return game.gpio_sink(rig.bank.proven_until)
    raise SelftestUnavailable("fairness: this input path has neither a Pico link nor a GPIO bank")


def check_fairness(
    rig: Rig,
    rules_id: str,
    pair: tuple[str, str],
    offsets_us: Sequence[int],
    trials: int,
    progress: Progress,
) -> list[FairnessRow]:
    """Two buttons pressed ``offset`` apart, the first alternating, into a running game.

    The game is the one ``svoyak run`` would run (:mod:`hardware.selftest_game`):
    each trial the host opens the next question and reads it to its end, the
    rig presses the pair, the input path's thread delivers both presses to the
    runtime, and the outcome is the game's decision as the panel hears it:
    compared with the *commanded* order, never with the stamps under test.
    """
    if rig.sink is None:
        raise SelftestUnavailable("fairness: this rig's input path cannot feed a game")
    game = SelftestGame(
        rules_id,
        len(rig.pinmap.seats),
        trials * len(offsets_us),
        wait_bound_ns=rig.wait_bound_ns,
    )
    rig.sink.seats = len(rig.pinmap.seats)
    rig.sink.since_ns = game.controller.t0_ns
    rig.sink.game = _game_sink(rig, game)
    lead_ns = LINK_LEAD_NS if rig.link is not None else 0
    gap_ns = rig.hold_off_ns + 2 * NS_PER_MS
    rows: list[FairnessRow] = []
    try:
        for offset in offsets_us:
            row = FairnessRow(offset)
            for trial in range(trials):
                first, second = pair if trial % 2 == 0 else (pair[1], pair[0])
                _drain(rig)
                number = game.open_question()
                if lead_ns:
                    _sleep_until(time.monotonic_ns() + lead_ns)
                t1, _ = rig.source.press_pair(first, second, offset * NS_PER_US)
                got = _collect(rig, _pressed(first, second), rig.reply_timeout_s)
                stamps = {key_of(p): p.t for p in got if isinstance(p, Press)}
                seats = (int(first), int(second))
                outcome = game.outcome(number, seats, rig.reply_timeout_s)
                row.trials += 1
                if first in stamps and second in stamps:
                    row.gaps_ns.append(stamps[second] - stamps[first])
                if outcome.decided_ns is not None and stamps:
                    row.delays_ns.append(outcome.decided_ns - min(stamps.values()))
                if first not in stamps or second not in stamps:
                    row.missed += 1
                elif outcome.late:
                    row.late += 1
                elif outcome.early:
                    row.early += 1
                elif outcome.tie:
                    row.ties += 1
                elif outcome.winner == seats[0]:
                    row.first_won += 1
                elif outcome.winner == seats[1]:
                    row.second_won += 1
                else:
                    row.missed += 1
                game.close_question(answered=outcome.winner is not None)
                _sleep_until(t1 + gap_ns)
                t_release = time.monotonic_ns()
                rig.source.release(first)
                rig.source.release(second)
                _sleep_until(t_release + gap_ns)
                progress.step(f"fairness {offset} µs")
            rows.append(row)
    finally:
        rig.sink.game = None
        game.close()
    return rows


def check_bounce(rig: Rig, progress: Progress) -> list[BounceRow]:
    """Per button: a burst of edges inside the hold-off must give one press, at its first edge."""
    rows: list[BounceRow] = []
    gap_ns = rig.hold_off_ns + 2 * NS_PER_MS
    for key in rig.keys:
        _drain(rig)
        t0 = rig.source.burst(key, BURST_EDGES, BURST_SPACING_NS)
        _sleep_until(t0 + 2 * rig.hold_off_ns + 5 * NS_PER_MS)
        # The first press, however long its path takes; then every input a
        # second (wrongly split) press of the burst could be, up to 2 hold-offs on.
        got = _collect(rig, _pressed(key), rig.reply_timeout_s)
        first = _presses_of(got, key)
        if first:
            rig.wait_delivered(first[0].t + 2 * rig.hold_off_ns + NS_PER_MS)
        events = got + _drain(rig)
        presses = _presses_of(events, key)
        release_after = getattr(rig.source, "burst_release_ns", None)
        if release_after is None:
            first_edge = bool(presses) and presses[0].t < t0 + BURST_SPACING_NS
        else:
            # The burst ended with its own release, exactly release_after past its
            # last edge: stamped at the first edge, the press is that plus the
            # burst's length before the release; at any later edge, less.
            first_edge = _stamped_at_first_edge(
                rig, key, presses, events, (BURST_EDGES - 1) * BURST_SPACING_NS + release_after
            )
        rows.append(BounceRow(key, rig.pin(key), BURST_EDGES, len(presses), first_edge))
        t_release = rig.source.release(key)
        _sleep_until(t_release + gap_ns)
        progress.step("bounce")
    return rows


def _stamped_at_first_edge(
    rig: Rig,
    key: str,
    presses: list[ButtonEvent],
    events: list[ButtonEvent],
    press_to_release_ns: int,
) -> bool:
    """The press's stamp is the burst's first edge: its release came ``press_to_release_ns``
    after it (within half an edge spacing), on the pulse source's own exact clock."""
    if not presses:
        return False
    # The burst's own release: after its press. A release of the check before
    # (delivered late by a slow path, after the drain) is not it.
    after = presses[0].t

    def burst_release(e: ButtonEvent) -> bool:
        return isinstance(e, Release) and key_of(e) == key and e.t > after

    releases = [e for e in events if burst_release(e)]
    if not releases:
        releases = [
            e
            # As long as any input may take to come back (a paced chip model's
            # link delivers seconds late on a busy machine; a Pi's GPIO at once).
            for e in _collect(
                rig, lambda got: any(burst_release(e) for e in got), rig.reply_timeout_s
            )
            if burst_release(e)
        ]
    if not releases:
        return False
    measured = releases[0].t - presses[0].t
    stamps = rig.device_stamps
    if stamps is not None:
        pressed_us, released_us = stamps.of(presses[0]), stamps.of(releases[0])
        if pressed_us is not None and released_us is not None:
            measured = (released_us - pressed_us) * NS_PER_US
    return abs(measured - press_to_release_ns) < BURST_SPACING_NS // 2


def check_glitch(rig: Rig, progress: Progress) -> list[GlitchRow]:
    """Per button: a spike as short as the output can make must not be a press.

    The output is switched on and straight off again: tens of microseconds on
    a Pi, far below the glitch check's millisecond. Nothing may come of it —
    not at the check, not when the hold-off of a wrongly taken press would end.
    And it must have reached the pin: behind a series resistor and metres of
    cable a 1 µs spike may never cross V_IL (docs/raspberry-pi-gpio.md), and
    "no press" would then prove nothing. On the GPIO path the row counts the
    line's raw edges and fails without one.
    """
    rows: list[GlitchRow] = []
    glitch_ns = rig.glitch_ns or 0
    bank = rig.bank
    for key in rig.keys:
        _drain(rig)
        edges_before = bank.edge_counts().get(key, 0) if bank is not None else 0
        spike = getattr(rig.source, "spike", None)
        if spike is not None:
            t_on, t_off = spike(key, GENERATOR_SPIKE_NS)
        else:
            t_on = rig.source.press(key)
            t_off = rig.source.release(key)
        settled = t_off + glitch_ns + rig.hold_off_ns + 2 * NS_PER_MS
        if bank is not None:
            # Settle from when the line saw the spike, should it arrive late
            # (a relay of pins in a test rig, a busy machine), not only from
            # when the output was written.
            seen = _await_edge(bank, key, edges_before, rig.reply_timeout_s)
            if seen is not None:
                settled = max(settled, seen + glitch_ns + rig.hold_off_ns + 2 * NS_PER_MS)
        _sleep_until(settled)
        _wait_proven(rig, settled)
        presses = _presses_of(_drain(rig), key)
        # A spike the cable and the series resistor swallowed tests nothing: the
        # row passes only if the line saw it (a raw edge), as the phantom check
        # reports. The Pico filters before the host sees an edge: None there.
        edges = bank.edge_counts().get(key, 0) - edges_before if bank is not None else None
        rows.append(GlitchRow(key, rig.pin(key), t_off - t_on, len(presses), edges))
        if presses:  # a wrongly taken spike: let its release pass before the next button
            _sleep_until(time.monotonic_ns() + rig.hold_off_ns + glitch_ns + 2 * NS_PER_MS)
            _drain(rig)
        progress.step("glitch")
    return rows


def _await_edge(bank: ButtonBank, key: str, before: int, timeout_s: float) -> int | None:
    """When (host ns) ``key``'s line had a raw edge past ``before``; None if none by the timeout."""
    deadline = time.monotonic_ns() + round(timeout_s * 1e9)
    while True:
        now = time.monotonic_ns()
        if bank.edge_counts().get(key, 0) > before:
            return now
        if now >= deadline:
            return None
        time.sleep(0.001)


def check_phantom(
    rig: Rig,
    lamps: LampSwitch,
    progress: Progress,
    switches: int = PHANTOM_SWITCHES,
    period_s: float = PHANTOM_PERIOD_S,
) -> list[PhantomRow]:
    """Every lamp on and off again and again while nobody presses: no press may come.

    A lamp's MOSFET switching a few hundred milliamps beside a button cable is
    where a real rig picks up spikes; the glitch check should keep them out,
    and this says whether it does on this wiring (on mock pins or the chip
    model: the software path only). ``lamps`` is closed here, all off.
    """
    bank = rig.bank
    try:
        _drain(rig)
        edges_before = bank.edge_counts() if bank is not None else None
        for _ in range(switches):
            lamps.switch_all(True)
            time.sleep(period_s / 2)
            lamps.switch_all(False)
            time.sleep(period_s / 2)
        settled = time.monotonic_ns() + (rig.glitch_ns or 0) + rig.hold_off_ns + 2 * NS_PER_MS
        _sleep_until(settled)
        _wait_proven(rig, settled)
        phantoms: dict[str, int] = {}
        for event in _drain(rig):
            if isinstance(event, PRESS_INPUTS):
                key = key_of(event)
                phantoms[key] = phantoms.get(key, 0) + 1
        edges: dict[str, int] | None = None
        if bank is not None and edges_before is not None:
            after = bank.edge_counts()
            edges = {
                key: count - edges_before.get(key, 0)
                for key, count in after.items()
                if count > edges_before.get(key, 0)
            }
    finally:
        lamps.close()
    progress.step("phantom")
    return [PhantomRow(switches, lamps.lamps, phantoms, edges)]


def _wait_proven(rig: Rig, t_ns: int) -> None:
    """Until the GPIO watermark has passed ``t_ns``: every check due by then is decided."""
    bank = rig.bank
    if bank is None:
        rig.wait_delivered(t_ns)
        return
    deadline = time.monotonic() + rig.reply_timeout_s
    while time.monotonic() < deadline:
        proven = bank.proven_until()
        if proven is not None and proven >= t_ns:
            return
        time.sleep(0.0005)


def check_stuck(rig: Rig, progress: Progress) -> tuple[list[StuckRow], list[str]]:
    """Hold every button past the threshold; each must be reported, excluded, then freed.

    Returns the rows and the buttons that were already down when the rig started.
    """
    bank = rig.bank
    if bank is None or rig.stuck_ns is None:
        # (run_selftest lists the check as not run: an empty list is no pass)
        progress.step("stuck: not run", max(1, len(rig.keys)))
        return [], []
    held_at_start = sorted(bank.held_at_start())
    keys = [k for k in rig.keys if k not in held_at_start]
    _drain(rig)
    for key in keys:
        rig.source.press(key)
    wanted = set(keys)

    def all_stuck(got: list[ButtonEvent]) -> bool:
        return wanted <= {e.key for e in got if isinstance(e, ButtonStuck)}

    got = _collect(rig, all_stuck, rig.stuck_ns / 1e9 + 2.0)
    reported = {e.key for e in got if isinstance(e, ButtonStuck)}
    excluded = bank.stuck()
    for key in keys:
        rig.source.release(key)

    def all_freed(got: list[ButtonEvent]) -> bool:
        return wanted <= {e.key for e in got if isinstance(e, ButtonFreed)}

    freed = {
        e.key
        for e in _collect(rig, all_freed, 1.0 + rig.hold_off_ns / 1e9)
        if isinstance(e, ButtonFreed)
    }
    _sleep_until(time.monotonic_ns() + rig.hold_off_ns + 2 * NS_PER_MS)
    progress.step("stuck", len(keys) or 1)
    rows = [StuckRow(k, rig.pin(k), k in reported, k in excluded, k in freed) for k in keys]
    return rows, held_at_start


# -- the whole test ----------------------------------------------------------------


def default_png_path(now: float | None = None) -> Path:
    """Where the histogram goes when ``--png`` is not given: the user's state folder.

    ``$XDG_STATE_HOME/svoyak/selftest/selftest-latency-YYYYmmdd-HHMMSS.png``
    (``~/.local/state`` when the variable is unset or not absolute, as the XDG
    spec asks). Not the current folder: a self-test run from a checkout or
    from ``/`` by the appliance's unit must not leave images where nobody
    looks, and each run keeps its own picture to compare with the last.
    """
    import platformdirs

    name = time.strftime("selftest-latency-%Y%m%d-%H%M%S.png", time.localtime(now))
    return platformdirs.user_state_path("svoyak") / "selftest" / name


@dataclass
class SelftestOptions:
    checks: tuple[str, ...] = CHECKS
    count: int = 100
    trials: int = 40
    offsets_us: tuple[int, ...] = DEFAULT_OFFSETS_US
    rules: str = "tv-modern"
    pair: tuple[str, str] | None = None
    #: The phantom check: how many times every lamp goes on and off, and the period.
    phantom_switches: int = PHANTOM_SWITCHES
    phantom_period_ms: float = PHANTOM_PERIOD_S * 1000
    #: Where to write the latency histogram; None: no histogram. Its folder is
    #: created if missing (``svoyak selftest`` passes :func:`default_png_path`).
    png: str | Path | None = None


def run_selftest(
    rig: Rig,
    options: SelftestOptions,
    *,
    mode: str,
    stderr: TextIO | None = None,
    progress: bool = True,
) -> SelftestReport:
    """Run the chosen checks on ``rig`` and write the histogram (if asked)."""
    keys = rig.keys
    seats = [k for k in keys if k.isdigit()]
    pair = options.pair or (tuple(seats[:2]) if len(seats) >= 2 else None)
    checks = options.checks
    if "fairness" in checks and (pair is None or len(pair) != 2):
        raise SelftestUnavailable("fairness needs two player buttons the rig can press")
    total = 0
    if "latency" in checks and rig.no_latency_check is None:
        total += options.count
    if "fairness" in checks:
        total += options.trials * len(options.offsets_us)
    if "bounce" in checks:
        total += len(keys)
    glitch_runs = "glitch" in checks
    if glitch_runs:
        total += len(keys)
    lamps = rig.lamp_switch() if "phantom" in checks else None
    if lamps is not None:
        total += 1
    if "stuck" in checks:
        total += max(1, len(keys))
    bar = Progress(total, sys.stderr if stderr is None else stderr, progress)
    report = SelftestReport(
        mode=mode,
        source=rig.source.label,
        pinmap=rig.pinmap.source,
        hold_off_ms=rig.hold_off_ns / NS_PER_MS,
        glitch_ms=None if rig.glitch_ns is None else rig.glitch_ns / NS_PER_MS,
        stuck_threshold_s=None if rig.stuck_ns is None else rig.stuck_ns / 1e9,
    )
    if "stuck" in checks and rig.bank is not None:
        report.held_at_start = sorted(rig.bank.held_at_start())
    if "latency" in checks:
        if rig.no_latency_check is None:
            report.latency = check_latency(rig, options.count, bar)
        else:
            report.not_run["latency"] = rig.no_latency_check
    if "fairness" in checks and pair is not None:
        report.fairness_rules = options.rules
        report.fairness_pair = (pair[0], pair[1])
        bound = DEFAULT_WAIT_BOUND_NS if rig.wait_bound_ns is None else rig.wait_bound_ns
        report.fairness_wait_bound_ms = bound / NS_PER_MS
        report.fairness_offsets_exact = bool(getattr(rig.source, "exact_offsets", False))
        report.fairness = check_fairness(
            rig, options.rules, report.fairness_pair, options.offsets_us, options.trials, bar
        )
    if "bounce" in checks:
        report.bounce = check_bounce(rig, bar)
    if glitch_runs:
        report.glitch = check_glitch(rig, bar)
    if lamps is not None:
        report.phantom = check_phantom(
            rig, lamps, bar, options.phantom_switches, options.phantom_period_ms / 1000
        )
    elif "phantom" in checks:
        report.not_run["phantom"] = NO_LAMPS
    if "stuck" in checks:
        report.stuck, held = check_stuck(rig, bar)
        report.held_at_start = sorted(set(report.held_at_start) | set(held))
        if rig.bank is None or rig.stuck_ns is None:
            report.not_run["stuck"] = rig.no_stuck_check or "this input path has no stuck detection"
    bar.finish()
    if options.png and report.latency:
        from hardware.histogram import write_histogram

        series = [
            (f"{describe_key(r.key)} (GPIO{r.pin})", [s / NS_PER_US for s in r.samples_ns])
            for r in report.latency
        ]
        # The report names the file by its absolute path: the technician is told
        # exactly where it went, whatever folder the command was started from.
        png = Path(options.png).expanduser().absolute()
        png.parent.mkdir(parents=True, exist_ok=True)
        report.png_size = write_histogram(
            png, series, f"svoyak selftest: edge stamp − drive time ({mode})"
        )
        report.png = str(png)
    return report
