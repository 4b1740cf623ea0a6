"""A journal that cannot be written mid-game: what was not recorded, and when it works again.

The promise "every input journaled first" cannot be kept while the disk is
full or failing, so the runtime keeps the next best one: nothing that was not
recorded is shown or decided (the batch is undone, ``Controller.apply_batch``),
and everything that was not recorded is *counted* — presses, releases, host
commands — and told to the host (the panel's alert), the technician (one log
line, no traceback) and, once writing works again, the journal itself (a
``fault`` line of the source ``journal`` whose detail names the counts). The
runtime probes the journal while the outage lasts, so the game goes on by
itself once space is freed: no restart, no command to give.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from buzzer.arbiter.events import HostInput, Input, Press, Release

#: The source name of the journal's own ``fault`` line (docs/journal-contract.md).
JOURNAL_SOURCE = "journal"
#: How often an idle runtime tries the journal again while it fails (game ns).
PROBE_EVERY_NS = 500_000_000


@dataclass
class JournalOutage:
    """Since when and why the journal fails, and what it did not record."""

    #: ``JournalWriteError.why``: "full", "readonly", "io" or "other".
    why: str
    #: The journal's last line on disk: nothing after it was recorded.
    recorded: int
    #: The game time of the first failed write.
    since: int
    #: The store's sentence for the technician (English, names the file).
    message: str
    presses: int = 0
    releases: int = 0
    commands: int = 0
    #: The game time before which an idle runtime does not try the journal again.
    next_probe: int = 0

    def count(self, items: list[Input], now: int) -> None:
        """Count the inputs of one batch that could not be recorded."""
        for item in items:
            if isinstance(item, Press):
                self.presses += 1
            elif isinstance(item, Release):
                self.releases += 1
            elif isinstance(item, HostInput):
                self.commands += 1
        self.next_probe = now + PROBE_EVERY_NS

    @property
    def lost(self) -> int:
        return self.presses + self.releases + self.commands

    def detail(self, until: int) -> str:
        """The journal's ``fault`` line when writing works again (at most 200 characters)."""
        return (
            f"not recorded for {(until - self.since) / 1e9:.1f} s after line {self.recorded} "
            f"({self.why}): {self.presses} presses, {self.releases} releases, "
            f"{self.commands} host commands"
        )

    def to_alert(self) -> dict[str, Any]:
        """The fields of the panel's alert (the page words it in the host's language)."""
        return {
            "why": self.why,
            "line": self.recorded,
            "presses": self.presses,
            "releases": self.releases,
            "commands": self.commands,
        }
