"""MicroPython's raw REPL on the chip model: run a snippet, get what it printed.

The model tests (tests/firmware_bridge/test_chip_fidelity.py) hold the chip
model to the RP2040 datasheet with small programs that poke registers from
MicroPython, independent of svoyak's firmware. The raw REPL (Ctrl-A) is
MicroPython's own machine interface (mpremote uses it): the code goes in
whole, ends with Ctrl-D, and the answer is ``OK``, the output, 0x04, the
error text, 0x04 and ``>``.
"""

from __future__ import annotations

import textwrap

from firmware_bridge.chip import ChipModel


class ReplError(AssertionError):
    """The snippet raised on the chip: the message is MicroPython's traceback."""


class ChipRepl:
    def __init__(self, chip: ChipModel) -> None:
        self.chip = chip
        chip.write(b"\r\x03\x03")
        chip.read_until(b">>> ", timeout=60.0)
        chip.write(b"\r\x01")
        chip.read_until(b"raw REPL; CTRL-B to exit\r\n>", timeout=30.0)

    def run(self, code: str, timeout: float = 120.0) -> str:
        """Run ``code`` (dedented); its printed output, or ReplError with the traceback."""
        self.chip.write(textwrap.dedent(code).encode() + b"\x04")
        head = self.chip.read_until(b"OK", timeout=30.0)
        if not head.endswith(b"OK"):
            raise ReplError(f"the raw REPL did not take the code: {head!r}")
        body = self.chip.read_until(b"\x04>", timeout=timeout)
        out, _, rest = body.partition(b"\x04")
        err = rest[: -len(b"\x04>")] if rest.endswith(b"\x04>") else rest
        if err.strip():
            raise ReplError(err.decode(errors="replace"))
        return out.decode(errors="replace")

    def values(self, code: str) -> dict[str, int]:
        """Run ``code``; every printed line ``name=value`` (ints, any base Python reads)."""
        found: dict[str, int] = {}
        for line in self.run(code).splitlines():
            name, sep, value = line.strip().partition("=")
            if sep:
                found[name] = int(value, 0)
        return found
