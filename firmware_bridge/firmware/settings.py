"""The firmware's timing constants, read from ``main.py`` for the host's side.

``main.py`` imports ``machine`` and cannot be imported on the host, yet the
host must apply the very numbers the firmware does: the self-test spaces its
presses by the hold-off and judges spikes by the glitch check, and the
Python model of the firmware (``firmware_bridge/emulator.py``) runs
``logic.py`` with them. Reading them from the source keeps one home for each
number rather than a copy that drifts.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from buzzer.errors import SvoyakError

MAIN_PY = Path(__file__).resolve().parent / "main.py"


class FirmwareSourceError(SvoyakError, RuntimeError):
    """``main.py`` lacks a constant the host needs (an edited or truncated firmware)."""


@functools.cache
def main_py_constant(name: str) -> int:
    """The integer ``name = <int>`` at the top level of ``main.py``."""
    tree = ast.parse(MAIN_PY.read_text(encoding="utf-8"))
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, int)
        ):
            return node.value.value
    raise FirmwareSourceError(f"no {name} = <int> in {MAIN_PY}")


def holdoff_us() -> int:
    """``HOLDOFF_US``: a button's next edges within this of an edge are its bounce."""
    return main_py_constant("HOLDOFF_US")


def glitch_us() -> int:
    """``GLITCH_US``: a change must hold this long to count, keeping its first stamp."""
    return main_py_constant("GLITCH_US")
