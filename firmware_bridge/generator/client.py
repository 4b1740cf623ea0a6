"""The host's side of the pulse generator: text lines over a serial port.

Why text: the generator is a technician's instrument; a serial terminal
(``HELLO``, ``RUN FE:2000 FC:0``) is enough to try it on the bench, and its
replies say what went wrong in words (docs/wire-protocol.md, *The pulse
generator*).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import serial  # type: ignore[import-untyped]

from buzzer.errors import SvoyakError
from firmware_bridge.ports import HELD_ADVICE, port_held_elsewhere

#: A step: the 8 output levels (bit 0 = channel 0 = GP2) and how long they hold (ns).
Step = tuple[int, int]
MAX_STEPS = 8
CHANNELS = 8
_HELLO = re.compile(
    r"SVOYAK-GEN (?P<version>\d+) channels=(?P<channels>\d+) "
    r"first_pin=(?P<first_pin>\d+) clock_hz=(?P<clock_hz>\d+)"
)
_OK = re.compile(r"OK (?P<steps>\d+) (?P<ticks>\d+)")


class GeneratorError(SvoyakError, RuntimeError):
    """The pulse generator does not answer, or refused a command: the message says which."""


@dataclass(frozen=True)
class GeneratorInfo:
    """What the generator's HELLO says of itself."""

    version: int
    channels: int
    first_pin: int
    clock_hz: int

    @property
    def resolution_ns(self) -> float:
        """One state-machine cycle: the step every commanded time is rounded to."""
        return 1e9 / self.clock_hz


class PulseGenerator:
    """A pulse generator on ``url`` (``serial.serial_for_url``: a device, a pty, ``loop://``)."""

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = 2.0,
        serial_factory: Callable[..., Any] = serial.serial_for_url,
    ) -> None:
        self.url = url
        self.timeout_s = timeout_s
        try:
            self._port = serial_factory(url, baudrate=115_200, timeout=timeout_s, exclusive=True)
        except (OSError, serial.SerialException) as exc:
            if port_held_elsewhere(exc):
                raise GeneratorError(f"the pulse generator on {url}: {HELD_ADVICE}") from None
            raise GeneratorError(
                f"the pulse generator on {url} cannot be opened ({exc}); is its Pico plugged "
                "in? ls -l /dev/serial/by-id/"
            ) from None
        self.info = self.hello()
        #: When the last RUN's steps are over (host monotonic ns, an upper bound).
        self._busy_until = 0

    def _line(self, want: re.Pattern[str], what: str) -> re.Match[str]:
        """The next reply matching ``want`` (lines before it, such as the boot banner, skipped)."""
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            raw = self._port.readline()
            if not raw:
                continue
            text = bytes(raw).decode("ascii", errors="replace").strip()
            if text.startswith("ERR"):
                raise GeneratorError(f"the pulse generator refused {what}: {text[4:]}")
            found = want.fullmatch(text)
            if found:
                return found
        raise GeneratorError(
            f"the pulse generator on {self.url} did not answer {what} within "
            f"{self.timeout_s:g} s: is its firmware (firmware_bridge/generator/main.py) "
            "installed as main.py?"
        )

    def hello(self) -> GeneratorInfo:
        self._port.reset_input_buffer()
        self._port.write(b"HELLO\n")
        found = self._line(_HELLO, "HELLO")
        fields = ("version", "channels", "first_pin", "clock_hz")
        return GeneratorInfo(*(int(found[k]) for k in fields))

    def run(self, steps: Sequence[Step]) -> int:
        """Play ``steps`` (each exact to one cycle); returns the host time the RUN was sent.

        Blocks until the generator has queued them; the steps then play on
        their own, the last step's levels staying. A step lasts at least four
        state-machine cycles (160 ns): levels meant to change at the same
        instant belong in one step.
        """
        if not 1 <= len(steps) <= MAX_STEPS:
            raise GeneratorError(f"a RUN takes 1 to {MAX_STEPS} steps, not {len(steps)}")
        fields = []
        for levels, ns in steps:
            if not 0 <= levels < 1 << CHANNELS or ns < 0:
                raise GeneratorError(f"a step of levels {levels:#x} for {ns} ns is not one")
            fields.append(f"{levels:02X}:{int(ns)}")
        now = time.monotonic_ns()
        if now < self._busy_until:
            time.sleep((self._busy_until - now) / 1e9)
        sent = time.monotonic_ns()
        self._port.write(("RUN " + " ".join(fields) + "\n").encode("ascii"))
        self._line(_OK, "RUN")
        self._busy_until = time.monotonic_ns() + sum(ns for _, ns in steps)
        return sent

    def wait_done(self) -> None:
        """Until the last RUN's steps have played."""
        left = self._busy_until - time.monotonic_ns()
        if left > 0:
            time.sleep(left / 1e9)

    def close(self) -> None:
        self._port.close()
