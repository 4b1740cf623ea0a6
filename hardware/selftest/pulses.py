"""The self-test's pulse sources: what presses a button's input, and says when.

A pulse source drives the inputs; what it pressed comes back through the
rig's input path (:mod:`hardware.selftest.rigs`), never from here. The GPIO
loopback (real outputs or gpiozero's mock pins) and the pulse generator (a
second Pico's PIO) live here; the Pico firmware emulator's and the chip
model's sources live in ``firmware_bridge`` and implement the same
:class:`PulseSource`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Protocol

from hardware.factory import claim_error
from hardware.pinmap import describe_key

NS_PER_US = 1_000
NS_PER_MS = 1_000_000


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


def spin_until(deadline_ns: int) -> int:
    """Busy-wait to ``deadline_ns`` (host ns) and return the time it ended: a pair's
    second edge is µs after the first, far below what a sleep can promise."""
    now = time.monotonic_ns()
    while now < deadline_ns:
        now = time.monotonic_ns()
    return now


def sleep_until(deadline_ns: int) -> None:
    """Sleep to ``deadline_ns`` (host ns): for the gaps between presses, where a
    millisecond late does not matter and a busy CPU would."""
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
        t2 = spin_until(t1 + offset_ns)
        two.on()
        return t1, t2

    def burst(self, key: str, edges: int, spacing_ns: int) -> int:
        """The burst's clock starts once the first edge is out: a press stamped before
        the returned instant + ``spacing_ns`` is the first edge's, whatever delayed it."""
        device = self._devices[key]
        device.on()
        t0 = time.monotonic_ns()
        for index in range(1, edges):
            spin_until(t0 + index * spacing_ns)
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
