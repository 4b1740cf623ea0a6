"""The cat in the bag («кот в мешке», TV-S-CAT-*, C2003-2.4.6) once it is given:
a part of :class:`rules.game.Game`.

The game opens the cat (its chooser gives it away) and designates who answers
for how much; this part decides what the rules allow in between: whom it may
go to (TV-S-CAT-1), which value may be set (TV-S-CAT-2, TV-S-CAT-4), and a
picture series' values as its pictures are shown (TV-S-CAT-5). It holds no
reference to the game and no clock: the game passes what it needs.
"""

from __future__ import annotations

from collections.abc import Sequence

from buzzer.arbiter.decisions import Decision, Note, NoteKind
from buzzer.arbiter.machine import SequenceError
from rules.specials.params import CatPrice, CatRules


class CatInBag:
    """A cat given to its player: the rules it is played by, and its picture
    series (TV-S-CAT-5) if the editors made it one."""

    def __init__(self, rules: CatRules, series: tuple[int, ...] | None) -> None:
        self.rules = rules
        #: TV-S-CAT-5: the editors' values after picture 1, 2, …; None: a plain cat.
        self.series = series
        #: Pictures shown so far (the first comes with the cat).
        self.shown = 1

    @classmethod
    def give(
        cls,
        rules: CatRules,
        giver: int,
        seat: int,
        series: tuple[int, ...] | None,
        prices: Sequence[int],
        t: int,
        out: list[Decision],
    ) -> CatInBag:
        """``giver`` gives the cat to ``seat``: refused if the rules want an opponent."""
        if seat == giver and not rules.may_keep:
            raise SequenceError(
                "the cat in the bag must be given to an opponent (TV-S-CAT-1): "
                f"seat {giver} cannot keep it"
            )
        out.append(Note(t, NoteKind.CAT_GIVEN, (("from", giver), ("to", seat))))
        if series is not None:
            # TV-S-CAT-5: the editors' sums for picture 1, 2, …: no value to choose.
            out.append(Note(t, NoteKind.CAT_SERIES, (("values", list(series)),)))
        elif rules.price is CatPrice.MIN_OR_MAX:
            out.append(Note(t, NoteKind.CAT_PRICES, (("options", [min(prices), max(prices)]),)))
        return cls(rules, series)

    def check_price(self, price: int, prices: Sequence[int]) -> None:
        """The value the player set (a ``cat_price`` line), refused unless the rules allow it."""
        rules = self.rules
        if rules.price is CatPrice.MIN_OR_MAX:
            options = (min(prices), max(prices))
            if price not in options:
                raise SequenceError(
                    f"the cat's value must be the round's minimum or maximum: "
                    f"{options[0]} or {options[1]} (TV-S-CAT-2)"
                )
        elif price <= 0:
            raise SequenceError(f"the cat's value must be positive, not {price}")
        elif rules.value_step is not None and price % rules.value_step:
            raise SequenceError(
                f"the cat's value is a multiple of {rules.value_step} in this era "
                f"(TV-S-CAT-4): {price} is not"
            )

    def picture(self, t: int, out: list[Decision]) -> int:
        """TV-S-CAT-5 DEFAULT: the next picture is shown; returns what the one
        answer is worth now (each picture lowers it)."""
        series = self.series
        assert series is not None
        if self.shown >= len(series):
            raise SequenceError(f"all {len(series)} pictures of the series are shown already")
        self.shown += 1
        value = series[self.shown - 1]
        out.append(Note(t, NoteKind.CAT_PICTURE, (("shown", self.shown), ("value", value))))
        return value
