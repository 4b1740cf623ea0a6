"""The plain records the tournament's database hands out.

Frozen dataclasses with no behaviour of their own: the store
(:mod:`buzzer.tournament.store`) builds them from its rows, and the pure
modules (planning, standings, the journal replay) and the CLI and server
read them, so none of those needs the database to be tested.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from rules.tournament.advancement import GameResult
from rules.tournament.registration import AgeGroup

#: SQLite's largest INTEGER: a game's number (or a seat, a place, a seed) past
#: it is refused at the entrance (HTTP 422, exit status 2), never an OverflowError.
MAX_INTEGER = 2**63 - 1


@dataclass(frozen=True, slots=True)
class DrawnGame:
    """One drawn game: its stage and its players in seat order."""

    id: int
    stage: int
    age_group: AgeGroup
    players: tuple[str, ...]
    #: TOUR-1.7: the superfinal (both age groups; ``age_group`` is nominal).
    superfinal: bool = False
    #: The room the game is drawn to (only that room's token may report it).
    room: str | None = None


@dataclass(frozen=True, slots=True)
class RecordedGame(GameResult):
    """A recorded game whose places come from the database (they may be overridden)."""

    fixed: Mapping[str, int] = dataclasses.field(default_factory=dict)

    def places(self) -> Mapping[str, int]:
        if self.fixed:
            return MappingProxyType(dict(self.fixed))
        return GameResult.places(self)


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat of a recorded game."""

    game_id: int
    stage: int
    age_group: AgeGroup
    seat: int
    name: str
    team: str | None
    score: int
    place: int
    winner: bool
    team_points: Fraction
    superfinal: bool = False
    #: The committee's reason when it overrode this game's places (TOUR-1.9), else None.
    override: str | None = None


@dataclass(frozen=True, slots=True)
class StoredJournal:
    """A recorded game's journal, kept in the tournament's file with its result.

    ``lines``: exactly as reported (a room's links, and so its seal, intact).
    ``replay_header``: the header the result was replayed with when it was not
    line 1 (a room's package looked up among the tournament's own: that copy's
    path); ``base``: the folder a relative package path was opened from (the
    committee's ``result``). Together they replay the game as it was recorded.
    """

    game_id: int
    lines: tuple[str, ...]
    replay_header: str | None = None
    base: str | None = None

    def replay_lines(self) -> list[str]:
        """The lines as they were replayed into the result (header first)."""
        if self.replay_header is None or not self.lines:
            return list(self.lines)
        return [self.replay_header, *self.lines[1:]]


@dataclass(frozen=True, slots=True)
class DrawRecord:
    """One journaled draw or tie-break (``svoyak tournament draws``)."""

    id: int
    kind: str
    age_group: str | None
    stage: int | None
    seed: int | None
    input: Mapping[str, Any]
    outcome: Mapping[str, Any]
    at: str


@dataclass(frozen=True, slots=True)
class OverrideRecord:
    """One manual override of a result (TOUR-1.9)."""

    id: int
    game_id: int
    before: Mapping[str, Any]
    after: Mapping[str, Any]
    reason: str
    at: str
