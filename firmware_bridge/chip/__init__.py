"""The Pico firmware on a chip model: real MicroPython in an emulated RP2040 (see model.py)."""

from firmware_bridge.chip.model import AppliedEdge, ChipModel, ChipModelError, check_available

__all__ = ["AppliedEdge", "ChipModel", "ChipModelError", "check_available"]
