"""The game's state types shared by the engine's modules (rules/game.py, rules/final.py)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rules.board import Board
from rules.snapshot import StageName


class SpecialKind(Enum):
    """A special question's kind (docs/rules.md B.1 / B.2)."""

    STAKE = "stake"  # C2003-2.4.6 «своя игра»; TV auction (TV-S-AUC-*)
    CAT = "cat"  # TV-S-CAT-*
    SPONSOR = "sponsor"  # TV-S-SPN-*


class Stage(Enum):
    """Where the game is, between questions and inside special procedures."""

    #: Its values are the snapshot's words (so ``stage.value`` is typed as one).
    _value_: StageName

    BOARD = "board"  # waiting for the chooser's select
    QUESTION = "question"  # a question with buttons (the arbiter's)
    BIDDING = "bidding"
    CAT_GIVE = "cat_give"
    CAT_PRICE = "cat_price"
    SPECIAL = "special"  # a designated player answers, no buttons (A-G4)
    BONUS_OFFER = "bonus_offer"  # TV-H-1995-03: the contest is offered, in order
    BONUS = "bonus"  # TV-H-1995-03: its player answers alone
    FINAL_REMOVE = "final_remove"
    FINAL_STAKES = "final_stakes"
    FINAL_JUDGING = "final_judging"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Verdict:
    """One judged answer of the current (or just closed) question, for objections."""

    seat: int
    delta: int
    #: What the answer would have scored had it been ruled right.
    right_delta: int


@dataclass(slots=True)
class Shootout:
    """A one-theme tie-break among ``seats`` with scores of its own (C2003-2.8-D2, TV-T-1)."""

    seats: tuple[int, ...]
    number: int
    board: Board
    scores: dict[int, int]
