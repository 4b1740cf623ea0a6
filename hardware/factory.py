"""Choosing the pin factory, once, at the edge of the program (never ``Device.pin_factory``)."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

from buzzer.errors import SvoyakError
from hardware.pinmap import PinMap, example_path, load_pinmap

#: Where ``svoyak`` looks for the pin map when ``--pins`` is not given.
SYSTEM_PINMAP = Path("/etc/svoyak/pins.toml")


#: ``--gpiochip``'s help, for every command that opens the Pi's GPIO.
GPIOCHIP_HELP = (
    "the GPIO chip of the 40-pin header, /dev/gpiochipN (default: gpiozero's choice; "
    "on a Pi 5 the one `gpiodetect` calls pinctrl-rp1: 0 on kernels from 6.6.45, 4 before)"
)


def chip_number(text: str) -> int:
    """``--gpiochip``'s value: a chip number 0–63 (argparse's ``type``)."""
    from argparse import ArgumentTypeError

    try:
        value = int(text)
    except ValueError:
        raise ArgumentTypeError(f"expected a chip number, e.g. 0: {text!r}") from None
    if not 0 <= value <= 63:
        raise ArgumentTypeError(f"no /dev/gpiochip{value}: chips are numbered 0–63")
    return value


class FactoryUnavailable(SvoyakError, RuntimeError):
    """No pin factory that can be used here; the message says what to install or pass."""


class PinBusy(FactoryUnavailable):
    """A pin is claimed by another program: most often the svoyak service itself."""


def claim_error(exc: BaseException, pin: int, what: str) -> BaseException:
    """What to raise when claiming ``pin`` for ``what`` failed.

    The kernel gives a GPIO line to one program at a time: the claim's ioctl
    fails with EBUSY, which lgpio turns into its LG_GPIO_BUSY (-79), raised
    in Python as ``lgpio.error('GPIO busy')`` (its error-text table). On the
    appliance that other program is the svoyak service, which holds every pin
    of its map while it runs, so the technician's ``check-buttons`` or
    ``selftest`` is told to stop it first.
    Any other error is returned as it is.
    """
    busy = "busy" in str(exc).lower() or getattr(exc, "errno", None) == errno.EBUSY
    if not busy:
        return exc
    return PinBusy(
        f"GPIO{pin} ({what}) is in use by another program. While the svoyak service runs "
        "it holds every pin of its pin map: stop it first (sudo systemctl stop svoyak), "
        "run this, then start it again (sudo systemctl start svoyak)"
    )


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
        factory = LGPIOFactory() if chip is None else LGPIOFactory(chip=chip)
    except Exception as exc:  # lgpio.error, OSError: no /dev/gpiochip*, no permission
        which = "the GPIO chip" if chip is None else f"/dev/gpiochip{chip}"
        raise FactoryUnavailable(
            f"cannot open {which} through lgpio: {exc} (is this a Raspberry Pi, and is "
            "the user in the gpio group? On a Pi 5 the header's chip is the one `gpiodetect` "
            "calls pinctrl-rp1: gpiochip0 on kernels from 6.6.45, gpiochip4 before; pass "
            "--gpiochip N); elsewhere use --simulate"
        ) from None
    return check_chip(factory, chip)


def check_chip(factory: Any, chip: int | None) -> Any:
    """``factory`` if it opened the chip asked for; else closed, and why (an old gpiozero).

    gpiozero 2.0.1 as released ignored ``chip=`` and opened chip 4 on every
    Pi 5; 2.0.1.post3 honours it (the project requires that one).
    """
    opened = getattr(factory, "_chip", chip)
    if chip is None or opened == chip:
        return factory
    factory.close()
    raise FactoryUnavailable(
        f"--gpiochip {chip}: this gpiozero opened gpiochip{opened} instead; install "
        "gpiozero 2.0.1.post3 or later (pip install -U gpiozero), which honours the chip number"
    )


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
