"""Question texts from the journal's package, for the screen (the snapshot carries none).

The live controller will hand the screen the question's text itself
(:meth:`display.app.BoardApp.set_question`); the replay and screenshot
commands look it up here, by the snapshot's round and cell.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules.packages import Package, PackageError, load_json, load_siq


@dataclass(frozen=True, slots=True)
class PackageTexts:
    """Looks up the text of the question a snapshot is on."""

    package: Package | None = None

    @property
    def final_themes(self) -> tuple[str, ...]:
        final = self.package.final if self.package is not None else None
        return tuple(theme.name for theme in final.themes) if final is not None else ()

    def host_view(self, snapshot: Mapping[str, Any]) -> dict[str, Any] | None:
        """The question being played with its answer, for the host's eyes only."""
        found = self._current(snapshot)
        if found is None:
            return None
        return {
            "text": found.text,
            "answer": list(found.right),
            "comment": found.comment,
        }

    def _current(self, snapshot: Mapping[str, Any]) -> Any:
        if self.package is None or snapshot.get("shootout"):
            return None
        if snapshot.get("stage") not in ("question", "special", "bidding", "cat_give", "cat_price"):
            return None
        cell = snapshot.get("cell")
        rounds = self.package.main_rounds
        round_no = int(snapshot.get("round") or 0)
        if not cell or not 1 <= round_no <= len(rounds):
            return None
        return rounds[round_no - 1].question_at(int(cell[0]), int(cell[1]))

    def question(self, snapshot: Mapping[str, Any]) -> str | None:
        """The text of the question being played, if the package has one for that cell."""
        if self.package is None or snapshot.get("shootout"):
            return None
        if snapshot.get("stage") not in ("question", "special"):
            return None
        cell = snapshot.get("cell")
        rounds = self.package.main_rounds
        round_no = int(snapshot.get("round") or 0)
        if not cell or not 1 <= round_no <= len(rounds):
            return None
        question = rounds[round_no - 1].question_at(int(cell[0]), int(cell[1]))
        return question.text or None if question is not None else None

    @classmethod
    def from_header(cls, header: str, base: Path | None) -> PackageTexts:
        """The package a journal header names (``package``), or none."""
        try:
            name = json.loads(header).get("package")
        except (ValueError, AttributeError):
            return cls()
        if not isinstance(name, str):
            return cls()
        from buzzer.journal.codec import BUILTIN_DEMO

        try:
            if name == BUILTIN_DEMO:
                from rules.packages.demo import DEMO_PACKAGE

                return cls(load_json(DEMO_PACKAGE))
            path = Path(name)
            if not path.is_absolute() and base is not None:
                path = base / path
            return cls(load_siq(path) if path.suffix.lower() == ".siq" else load_json(path))
        except (PackageError, OSError):
            return cls()
