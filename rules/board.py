"""The board: rounds of themes × prices, and which cells have been played.

Plain data and bookkeeping only; the game engine decides what a cell means.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from buzzer.errors import SvoyakError


class BoardError(SvoyakError, ValueError):
    """A cell that is not on the board, or was already played."""


class ThemeOrder(Enum):
    """In which order a round's themes stand on the board (column order)."""

    #: As the package (or the header) gives them.
    PACKAGE = "package"
    #: TV-H-2001-09 (seed 002, Sep 2001): «темы в алфавитном порядке».
    ALPHABETICAL = "alphabetical"


def theme_sort_key(name: str) -> str:
    """A theme's name as the alphabet orders it (TV-H-2001-09-D1).

    Case is ignored, «ё» counts as «е», and leading quotes and punctuation
    («…», "…") do not count; Latin letters come before Cyrillic ones.
    """
    text = name.casefold().replace("ё", "е")
    start = next((i for i, c in enumerate(text) if c.isalnum()), 0)
    return text[start:]


def board_order(themes: tuple[str, ...], order: ThemeOrder) -> tuple[int, ...]:
    """The board's columns as 1-based indexes of ``themes``: ``themes`` as they stand
    (PACKAGE), or sorted by :func:`theme_sort_key` (ALPHABETICAL; equal names keep
    their order)."""
    numbers = tuple(range(1, len(themes) + 1))
    if order is ThemeOrder.PACKAGE:
        return numbers
    return tuple(sorted(numbers, key=lambda n: theme_sort_key(themes[n - 1])))


@dataclass(frozen=True, slots=True)
class RoundSpec:
    """One round: its name, its themes (column titles) and the prices of every theme."""

    name: str
    themes: tuple[str, ...]
    prices: tuple[int, ...]
    #: Cells with no question (a package's empty cells): played from the start.
    holes: frozenset[tuple[int, int]] = frozenset()

    def __post_init__(self) -> None:
        if not self.themes:
            raise BoardError(f"round {self.name!r} has no themes")
        if not self.prices:
            raise BoardError(f"round {self.name!r} has no prices")
        if any(p <= 0 for p in self.prices):
            raise BoardError(f"round {self.name!r}: prices must be positive, got {self.prices}")
        if len(set(self.prices)) != len(self.prices):
            raise BoardError(f"round {self.name!r}: a price appears twice in {self.prices}")

    @classmethod
    def numbered(cls, name: str, theme_count: int, prices: tuple[int, ...]) -> RoundSpec:
        """A round whose themes have no titles yet (``Theme 1`` …)."""
        return cls(name, tuple(f"{i}" for i in range(1, theme_count + 1)), prices)


@dataclass(slots=True)
class Board:
    """The rounds of a game and the cells played so far in the current round."""

    rounds: tuple[RoundSpec, ...]
    round_index: int = 0
    played: set[tuple[int, int]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.played |= self.current.holes

    @property
    def current(self) -> RoundSpec:
        return self.rounds[self.round_index]

    @property
    def exhausted(self) -> bool:
        """Every question of every round has been played."""
        return self.round_index == len(self.rounds) - 1 and self.round_done

    @property
    def round_done(self) -> bool:
        spec = self.current
        return len(self.played) == len(spec.themes) * len(spec.prices)

    def check(self, theme: int, price: int) -> None:
        """Raise :class:`BoardError` unless (theme, price) is an unplayed cell of this round."""
        spec = self.current
        if not 1 <= theme <= len(spec.themes):
            raise BoardError(
                f"theme {theme} is not on the board: round {spec.name!r} has themes "
                f"1..{len(spec.themes)}"
            )
        if price not in spec.prices:
            prices = ", ".join(str(p) for p in spec.prices)
            raise BoardError(f"price {price} is not on the board: round {spec.name!r} has {prices}")
        if (theme, price) in spec.holes:
            raise BoardError(f"theme {theme} has no question for {price}")
        if (theme, price) in self.played:
            raise BoardError(f"theme {theme} for {price} has already been played")

    def mark_played(self, theme: int, price: int) -> None:
        self.played.add((theme, price))

    def next_round(self) -> bool:
        """Move on to the next round; False when this was the last one."""
        if self.round_index + 1 >= len(self.rounds):
            return False
        self.round_index += 1
        self.played = set(self.current.holes)
        return True

    def next_in_reading_order(self) -> tuple[int, int] | None:
        """The first unplayed cell as a host reads the board: the cheapest row first,
        left to right within a row (then the next row).

        This is what a ``select`` naming no cell means outside the sport systems:
        the board is read like a page, so "the next question" is the leftmost one
        still showing in the top (cheapest) row that has any. Holes count as played.
        """
        spec = self.current
        for price in sorted(spec.prices):
            for theme in range(1, len(spec.themes) + 1):
                if (theme, price) not in self.played:
                    return theme, price
        return None

    def next_in_order(self) -> tuple[int, int] | None:
        """The next unplayed cell in package order: themes in turn, easiest first (SPORT-1)."""
        spec = self.current
        for theme in range(1, len(spec.themes) + 1):
            for price in spec.prices:
                if (theme, price) not in self.played:
                    return theme, price
        return None
