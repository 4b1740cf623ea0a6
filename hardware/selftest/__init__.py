"""``svoyak selftest``: prove, on the real wiring, that the buttons are fast and fair.

The test presses the buttons itself through a **pulse source** — something
that can make a button's input go active and say when it drove it:

* on the rig, output pins wired to the button inputs (``[selftest.loopback]``
  in the pin map: :class:`LoopbackPulses`);
* ``--simulate``: gpiozero's ``MockFactory`` with a ``MockConnectedPin`` per
  button, wired to that button's mock input (same class, mock pins);
* ``--emulate``: the Pico firmware emulator over a pseudo-terminal, through the
  real serial link (``firmware_bridge.emulator``'s pulse source: :func:`emulator_rig`);
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
not run (a bad pin map, no pin factory, ``--chip`` unavailable).

The package, one job per module, each using only those before it:

``pulses``
    what presses the buttons (:class:`PulseSource` and the GPIO and generator ones);
``rigs``
    a pulse source with the input path it feeds (:class:`Rig`, one constructor per option);
``progress``
    the progress bar on stderr;
``checks``
    the checks above, each run on a rig;
``run``
    the whole test: :class:`SelftestOptions`, :func:`run_selftest`, the histogram's path.

Callers import from the package (``from hardware.selftest import gpio_rig``):
its names are these modules' public ones.
"""

from __future__ import annotations

from hardware.selftest.checks import (
    LINK_LEAD_NS,
    PHANTOM_PERIOD_S,
    PHANTOM_SWITCHES,
    _stamped_at_first_edge,
    check_bounce,
    check_fairness,
    check_glitch,
    check_latency,
    check_phantom,
    check_stuck,
)
from hardware.selftest.progress import (
    Progress,
)
from hardware.selftest.pulses import (
    GENERATOR_BURST_RELEASE_NS,
    GENERATOR_NO_LATENCY,
    GENERATOR_RELEASE_SETTLE_NS,
    GENERATOR_SPIKE_NS,
    NS_PER_MS,
    NS_PER_US,
    GeneratorPulses,
    LoopbackPulses,
    PulseSource,
)
from hardware.selftest.rigs import (
    CHIP_REPLY_TIMEOUT_S,
    CHIP_WAIT_BOUND_NS,
    DEFAULT_TEST_STUCK_S,
    PICO_CONNECT_TIMEOUT_S,
    PICO_NO_STUCK,
    REPLY_TIMEOUT_S,
    DeviceStamps,
    Rig,
    RigSink,
    SelftestUnavailable,
    chip_rig,
    emulator_rig,
    generator_rig,
    gpio_rig,
    pico_generator_rig,
    spare_pins,
)
from hardware.selftest.run import (
    CHECKS,
    DEFAULT_OFFSETS_US,
    FAIRNESS_RULES,
    NO_LAMPS,
    SelftestOptions,
    default_png_path,
    run_selftest,
)

# (``_stamped_at_first_edge``: the generator's tests check the bounce burst's
# arithmetic on it directly, as they did when the self-test was one module.)
__all__ = [
    "CHECKS",
    "CHIP_REPLY_TIMEOUT_S",
    "CHIP_WAIT_BOUND_NS",
    "DEFAULT_OFFSETS_US",
    "DEFAULT_TEST_STUCK_S",
    "FAIRNESS_RULES",
    "GENERATOR_BURST_RELEASE_NS",
    "GENERATOR_NO_LATENCY",
    "GENERATOR_RELEASE_SETTLE_NS",
    "GENERATOR_SPIKE_NS",
    "LINK_LEAD_NS",
    "NO_LAMPS",
    "NS_PER_MS",
    "NS_PER_US",
    "PHANTOM_PERIOD_S",
    "PHANTOM_SWITCHES",
    "PICO_CONNECT_TIMEOUT_S",
    "PICO_NO_STUCK",
    "REPLY_TIMEOUT_S",
    "DeviceStamps",
    "GeneratorPulses",
    "LoopbackPulses",
    "Progress",
    "PulseSource",
    "Rig",
    "RigSink",
    "SelftestOptions",
    "SelftestUnavailable",
    "_stamped_at_first_edge",
    "check_bounce",
    "check_fairness",
    "check_glitch",
    "check_latency",
    "check_phantom",
    "check_stuck",
    "chip_rig",
    "default_png_path",
    "emulator_rig",
    "generator_rig",
    "gpio_rig",
    "pico_generator_rig",
    "run_selftest",
    "spare_pins",
]
