"""The self-test's rigs: a pulse source, the input path it feeds, and what that path does.

One constructor per way of pressing (``svoyak selftest``'s options): GPIO
loopbacks or mock pins (:func:`gpio_rig`), the pulse generator on the Pi's
GPIO (:func:`generator_rig`) or on a Pico's (:func:`pico_generator_rig`), the
firmware emulator (:func:`emulator_rig`) and the chip model (:func:`chip_rig`).
The checks (:mod:`hardware.selftest.checks`) see only the :class:`Rig`.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from buzzer.arbiter.events import Press, Release
from buzzer.errors import SvoyakError
from firmware_bridge.firmware import settings
from hardware.buttons import ButtonBank, ButtonEvent
from hardware.pinmap import FIRST_PIN, LAST_PIN, PinMap
from hardware.selftest.pulses import (
    GENERATOR_NO_LATENCY,
    NS_PER_MS,
    NS_PER_US,
    GeneratorPulses,
    LoopbackPulses,
    PulseSource,
)
from hardware.selftest_lamps import GpioLampSwitch, LampSwitch, PicoLampSwitch

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
#: Why the stuck check does not run through the Pico bridge (the report says so).
PICO_NO_STUCK = (
    "the Pico path has no stuck-button detection: the firmware and BridgeLink report "
    "presses and releases only"
)


class SelftestUnavailable(SvoyakError, RuntimeError):
    """The self-test cannot run here; the message says why and what to do."""


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
    #: For a stand-in (the chip model): what this machine's load did to it since
    #: the checks began, in words, or None while it kept its pace.
    stand_in_starved: Callable[[], str | None] | None = None

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


def pico_generator_rig(
    pinmap: PinMap,
    generator_port: str,
    pico_port: str,
    connect_timeout_s: float = PICO_CONNECT_TIMEOUT_S,
) -> Rig:
    """``--generator PORT --serial PICO``: the pulse generator presses a real Pico's buttons.

    The generator's GP2, GP3, … are wired to the Pico's button inputs GP2,
    GP3, … (seat 1, 2, …); the Pico's presses come back through BridgeLink as
    in ``svoyak run --serial``, and go into the running game from the link's
    reader thread. The Pico's inputs are active low (its pull-ups), and its
    hold-off is the firmware's own. ``connect_timeout_s``: how long its link's
    handshake may take (the command passes the package's
    :data:`PICO_CONNECT_TIMEOUT_S`, which a caller may stretch for a slow Pico).
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
    connected = link.wait_connected(connect_timeout_s)
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
            f"{connect_timeout_s:g} s: is it plugged in, with svoyak's firmware? "
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
    """``--emulate``: the firmware's logic on a pty, through the real BridgeLink.

    The pulse source is ``firmware_bridge.emulator``'s: it starts the emulator,
    connects the link to it and hands each press to the rig's sink; its
    ``link`` is what proves the game's Pico source (the watermark) and switches
    the lamps. The emulator is pure Python on a pty, so nothing can be missing.
    """
    from firmware_bridge.emulator import selftest_pulse_source

    sink = RigSink()
    inputs = sink.queue
    hold_off = pinmap.hold_off_ns if hold_off_ns is None else hold_off_ns
    # The emulated firmware holds off as long as the checks space their presses for.
    keys = tuple(str(s) for s in pinmap.seats)
    source = selftest_pulse_source(keys, sink, hold_off_ns=hold_off)
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
        # A chip behind the wall clock by a third of the wait bound has its
        # presses mapped that early: near enough to being ruled late.
        stand_in_starved=lambda: source.starved(CHIP_WAIT_BOUND_NS // 3),
    )
