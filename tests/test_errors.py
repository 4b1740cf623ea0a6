"""One error hierarchy: every error svoyak raises on purpose is a SvoyakError.

The modules are found by walking the packages, and every exception class
defined in them is checked, so a new error class that forgets the base
fails here. Private control-flow exceptions (a leading underscore) never
reach a caller and are left out; so is the MicroPython firmware, which
runs on the Pico, not here.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from buzzer.errors import SvoyakError

PACKAGES = ("buzzer", "rules", "hardware", "display", "firmware_bridge")
#: Runs on the Pico under MicroPython (imports ``machine``, ``rp2``): not a host module.
NOT_HOST = ("firmware_bridge.firmware", "firmware_bridge.generator.main")


def project_errors() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for package in PACKAGES:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            if info.name.startswith(NOT_HOST):
                continue
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if (
                    inspect.isclass(value)
                    and issubclass(value, Exception)
                    and value.__module__ == module.__name__
                    and not name.startswith("_")
                ):
                    found[f"{value.__module__}.{name}"] = value
    return [found[k] for k in sorted(found)]


ERRORS = project_errors()


def test_the_walk_finds_the_errors_it_should() -> None:
    names = {e.__name__ for e in ERRORS}
    assert {"JournalError", "PackageError", "PinMapError", "SequenceError", "PinBusy"} <= names


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: f"{e.__module__}.{e.__name__}")
def test_every_error_is_a_svoyak_error(error: type[BaseException]) -> None:
    assert issubclass(error, SvoyakError)


def test_standard_bases_are_kept_for_callers_that_catch_them() -> None:
    from hardware.pinmap import PinMapError
    from rules.packages.model import PackageError

    assert issubclass(PackageError, ValueError) and issubclass(PinMapError, ValueError)
