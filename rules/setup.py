"""What a game is: the journal header's game setup, validated once.

Kept apart from the engine (:mod:`rules.game`) because the journal's codec,
the replay and the tournament build setups without playing one: a header is
refused here, before any input is read, when it names a special question its
rule system does not have (C2003-2.4.6, TV-S-*) or a picture series that is
not a cat's (TV-S-CAT-5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from buzzer.arbiter.params import DEFAULT_SETTLE_NS
from rules.board import RoundSpec
from rules.profiles import RuleSystem
from rules.specials.params import picture_series_problem
from rules.state import SpecialKind

#: (round 1-based, theme 1-based, price) → the special question in that cell.
SpecialCells = Mapping[tuple[int, int, int], SpecialKind]


@dataclass(frozen=True, slots=True)
class GameSetup:
    """What a game is: the journal header, validated."""

    rules: RuleSystem
    players: tuple[str, ...]
    chooser: int | None = None
    seed: int | str = 0
    settle_ns: int = DEFAULT_SETTLE_NS
    rounds: tuple[RoundSpec, ...] | None = None
    specials: SpecialCells = field(default_factory=lambda: MappingProxyType({}))
    #: Themes offered in the final (default: the rule system's).
    final_themes: int | None = None
    #: Players' birth dates as ISO strings (TV-G-4: the youngest chooses first).
    birth_dates: tuple[str, ...] | None = None
    #: The grandmaster's seat at the central table (TV-G-4 since Sep 2001).
    central_seat: int | None = None
    #: TV-S-CAT-5: picture-series cats, cell → the value after picture 1, 2, …
    cat_series: Mapping[tuple[int, int, int], tuple[int, ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    #: SER-CARRY: each seat's score at the start (a series game that carries the
    #: previous game's end scores); None: the rule system's ``start_score``.
    start_scores: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if not self.players:
            raise ValueError("a game needs at least one player")
        if self.start_scores is not None and len(self.start_scores) != len(self.players):
            raise ValueError(
                f"start_scores must give {len(self.players)} scores, one per player,"
                f" got {len(self.start_scores)}"
            )
        if self.chooser is not None and not 1 <= self.chooser <= len(self.players):
            raise ValueError(f"chooser must be a seat 1..{len(self.players)}")
        rules = self.rules
        for (round_no, theme, price), kind in self.specials.items():
            where = f"round {round_no}, theme {theme}, price {price}"
            if kind is SpecialKind.STAKE and rules.stake is None:
                raise ValueError(f"{where}: {rules.id} has no stake questions")
            if kind is SpecialKind.CAT and rules.cat is None:
                raise ValueError(f"{where}: {rules.id} has no cats in the bag")
            if kind is SpecialKind.SPONSOR and rules.sponsor_multiplier is None:
                raise ValueError(f"{where}: {rules.id} has no sponsor questions")
        for cell, series in self.cat_series.items():
            where = "round {}, theme {}, price {}".format(*cell)
            if self.specials.get(cell) is not SpecialKind.CAT:
                raise ValueError(f"{where}: a picture series (TV-S-CAT-5) is only for a cat")
            problem = picture_series_problem(series)
            if problem is not None:
                raise ValueError(f"{where}: {problem}")
