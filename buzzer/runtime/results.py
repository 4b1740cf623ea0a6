"""What became of an input handed to the runtime: applied with its line, or refused.

Kept apart from ``runtime.py`` so that the host-command service, which the
runtime owns, can name them without importing the runtime.
"""

from __future__ import annotations

from dataclasses import dataclass

from buzzer.arbiter.decisions import Decision
from buzzer.errors import SvoyakError
from buzzer.runtime.refusals import Message


class CommandRefused(SvoyakError):
    """A host command was refused: nothing was journaled.

    ``message`` is the engine's own (tried on a copy), or, for a refusal of the
    host-command service (the pause, the version, the sender), its English
    sentence; ``refusal`` is then the host's sentence in both languages.
    """

    def __init__(self, message: str, refusal: Message | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.refusal = refusal


@dataclass(frozen=True, slots=True)
class Accepted:
    """A host command applied and journaled: its line and the decisions from it on."""

    line: int | None
    decisions: list[Decision]
