"""Choosing the pin factory, once, at the edge of the program (never ``Device.pin_factory``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hardware.pinmap import PinMap, example_path, load_pinmap

#: Where ``svoyak`` looks for the pin map when ``--pins`` is not given.
SYSTEM_PINMAP = Path("/etc/svoyak/pins.toml")


class FactoryUnavailable(RuntimeError):
    """No pin factory that can be used here; the message says what to install or pass."""


def open_pin_factory(simulate: bool, chip: int | None = None) -> Any:
    """``LGPIOFactory`` for the Pi's GPIO chip, or (``simulate``) gpiozero's ``MockFactory``

    with the pins of :mod:`hardware.mockpins` (level first, then the stamp, as on a real line).
    """
    if simulate:
        from hardware.mockpins import mock_factory

        return mock_factory()
    try:
        from gpiozero.pins.lgpio import LGPIOFactory  # type: ignore[import-untyped]
    except ImportError as exc:
        raise FactoryUnavailable(
            f"the lgpio pin factory is not available ({exc}): on the Raspberry Pi install "
            "python3-lgpio (apt) or lgpio (pip) into this environment; elsewhere use --simulate"
        ) from None
    try:
        return LGPIOFactory() if chip is None else LGPIOFactory(chip=chip)
    except Exception as exc:  # lgpio.error, OSError: no /dev/gpiochip*, no permission
        raise FactoryUnavailable(
            f"cannot open the GPIO chip through lgpio: {exc} (is this a Raspberry Pi, and is "
            "the user in the gpio group?); elsewhere use --simulate"
        ) from None


def resolve_pinmap(path: str | None, simulate: bool) -> PinMap:
    """The pin map: --pins, $SVOYAK_PINS, /etc/svoyak/pins.toml, or (simulating) the example."""
    chosen = path or os.environ.get("SVOYAK_PINS")
    if chosen:
        return load_pinmap(chosen)
    if SYSTEM_PINMAP.is_file():
        return load_pinmap(SYSTEM_PINMAP)
    if simulate:
        return load_pinmap(example_path())
    raise FileNotFoundError(
        f"no pin map: pass --pins PATH, set SVOYAK_PINS, or create {SYSTEM_PINMAP} "
        f"(start from {example_path()})"
    )
