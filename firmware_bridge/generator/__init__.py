"""The pulse generator: a second Pico that presses the buttons for ``svoyak selftest``.

``main.py`` is its firmware (MicroPython, a PIO program that sets all eight
outputs with one instruction); :class:`PulseGenerator` is the host's side,
over any pyserial URL (``/dev/serial/by-id/…``, a pty of the chip model).
"""

from firmware_bridge.generator.client import (
    GeneratorError,
    GeneratorInfo,
    PulseGenerator,
    Step,
)

__all__ = ["GeneratorError", "GeneratorInfo", "PulseGenerator", "Step"]
