"""Parameters of special questions, the final round and the shootout, as data.

Each rule system (``rules/profiles.py``) and each TV era (``rules/eras.py``)
is a choice of these values; the engine reads them and never asks which
rule system is in force.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from enum import Enum

from buzzer.arbiter.params import NS_PER_S


class CatPrice(Enum):
    """How a cat's value is set."""

    #: The receiver picks the round's minimum or maximum price (TV-S-CAT-2, from Aug 2007).
    MIN_OR_MAX = "min_or_max"
    #: Fixed by the editors in advance (TV-S-CAT-4, before Aug 2007): the host enters it.
    FIXED = "fixed"


@dataclass(frozen=True, slots=True)
class CatRules:
    """Cat in the bag (кот в мешке), TV-S-CAT-*."""

    price: CatPrice = CatPrice.MIN_OR_MAX
    #: The opener may keep the cat (Sep 1996 – Mar 1997, TV-S-CAT-1).
    may_keep: bool = False
    #: TV-S-CAT-4: the editors' fixed values were multiples of this (50 from Sep
    #: 2001, 100 from Jan 2003); None: any positive value (the earlier eras, and
    #: MIN_OR_MAX, where the round's prices are the values).
    value_step: int | None = None
    #: A.4: 5 s; silence is wrong (TV-S-CAT-3).
    answer_time_ns: int = 5 * NS_PER_S


@dataclass(frozen=True, slots=True)
class BonusRules:
    """The bonus contest of Mar – Aug 1995 (TV-H-1995-03).

    After round ``after_round`` the leader, then second place, then third
    (DEFAULT), is offered ``questions`` questions of one theme, answered
    alone. All right wins a prize (a trip: no points); the first wrong answer
    ends it (DEFAULT) and sets the player's score to 0 for the next round.
    """

    after_round: int = 1
    questions: int = 5


def picture_series_problem(values: tuple[int, ...]) -> str | None:
    """What is wrong with a picture-series cat's values (TV-S-CAT-5), or None.

    "Guessing after picture 1 earns one sum, after picture 2 a smaller sum":
    two or more positive values, each smaller than the one before. The one
    check for the package reader and the journal header alike.
    """
    if len(values) < 2 or any(v <= 0 for v in values):
        return "a picture series (TV-S-CAT-5) needs two or more positive values"
    if any(later >= earlier for earlier, later in itertools.pairwise(values)):
        return "each value of a picture series (TV-S-CAT-5) must be smaller than the one before"
    return None


class NobodyPositive(Enum):
    """What happens when nobody has a positive score before the final."""

    #: C2003-2.6b: the game ends without a winner.
    NO_WINNER = "no_winner"
    #: TV-F-1: the player closest to zero wins (a tie → shootout).
    CLOSEST_TO_ZERO = "closest_to_zero"


class SinglePositive(Enum):
    """What happens when exactly one player has a positive score."""

    #: C2003-2.6d: that player wins and the final is not played.
    WINS_WITHOUT_FINAL = "wins_without_final"
    #: TV-F-1 DEFAULT: that player plays the final alone and wins whatever the result.
    PLAYS_ALONE = "plays_alone"


@dataclass(frozen=True, slots=True)
class FinalRules:
    """The final round (C2003-2.6/2.7, TV-F-*)."""

    #: Themes offered; removed in turns until one remains (C2003-2.7.1, TV-F-2). 1: no removal.
    themes: int = 7
    #: Stakes: min..score in steps of ``stake_step`` (C2003-2.7-D2, TV-F-3).
    stake_min: int = 1
    stake_step: int = 1
    nobody_positive: NobodyPositive = NobodyPositive.NO_WINNER
    single_positive: SinglePositive = SinglePositive.WINS_WITHOUT_FINAL
    #: C2003-2.7.4, TV-F-4: 30 s to write the answer.
    answer_time_ns: int = 30 * NS_PER_S


class FirstChooserRule(Enum):
    """Who chooses the first question of the game (when the header names nobody)."""

    #: C2003-2.2.2: drawn by lot.
    DRAW = "draw"
    #: TV-G-4 (TV-94, and by DEFAULT Sep 1996 – Aug 2001): the youngest player.
    YOUNGEST = "youngest"
    #: TV-G-4 since Sep 2001: the grandmaster at the central table (the header's
    #: ``central_seat``; by lot when the header does not say).
    CENTRAL_TABLE = "central_table"


class TieBreak(Enum):
    """How players with equal scores are told apart for the first choice of a round."""

    LOT = "lot"  # C2003-2.3.2
    YOUNGEST = "youngest"  # TV-G-4


class RoundChooser(Enum):
    """Who chooses first in the second and later rounds."""

    #: C2003-2.3.2, TV-G-4: the lowest score; ties by lot.
    LOWEST_SCORE = "lowest_score"
    #: The chooser carries over.
    KEEP = "keep"
