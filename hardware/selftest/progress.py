"""The self-test's progress bar: minutes of pressing, with a sign of life on stderr."""

from __future__ import annotations

from typing import TextIO


class Progress:
    """A text progress bar on a stream (stderr); quiet when ``enabled`` is False."""

    def __init__(self, total: int, stream: TextIO, enabled: bool = True, width: int = 30):
        self.total = max(1, total)
        self.done = 0
        self.stream = stream
        self.enabled = enabled
        self.width = width
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self._last_percent = -1

    def step(self, note: str, n: int = 1) -> None:
        self.done = min(self.total, self.done + n)
        if not self.enabled:
            return
        percent = self.done * 100 // self.total
        if not self.tty and percent // 10 == self._last_percent // 10 and self.done < self.total:
            return
        self._last_percent = percent
        filled = self.width * self.done // self.total
        bar = "#" * filled + "." * (self.width - filled)
        end = "" if self.tty else "\n"
        self.stream.write(f"\r[{bar}] {percent:3d}% {note:<32}{end}")
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()
