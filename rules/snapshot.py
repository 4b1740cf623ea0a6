"""The typed contract between the core and its adapters: what a snapshot holds,
and what the host may do now.

A snapshot is plain JSON-ready data (a ``dict`` at run time, so the panel sends
it as it is and a resumed game compares equal to the one that died); these
``TypedDict`` classes give it a checked shape, so that the board and the panel
read ``snapshot["final"]`` knowing it may be ``None``, and a renamed key fails
the type checker rather than a screen on the night.

:class:`HostOptions` is the other half: what the host's controls may offer at
this moment (the legal bids, the cat's two prices, who removes a final theme,
the next round's board and first chooser). The engine knows its rules; the
panel only shows what it is told, and never re-derives a rule from the game's
internals.

Timestamps are integer nanoseconds on the game's clock; seats are 1-based.
Mappings keyed by seat use the seat as a string (JSON objects have string keys).
"""

from __future__ import annotations

from typing import Literal, TypedDict

#: Where the game is: a :class:`rules.state.Stage` value, the word the snapshot carries to
#: the panel and the screens. A ``Literal`` rather than the enum so that the JSON stays a
#: bare word and a reader comparing ``snapshot["stage"]`` with a misspelt word fails mypy
#: (strict equality); ``Stage`` declares its values of this type, and a test keeps the two
#: lists one.
StageName = Literal[
    "board",
    "question",
    "bidding",
    "cat_give",
    "cat_price",
    "special",
    "bonus_offer",
    "bonus",
    "final_remove",
    "final_stakes",
    "final_judging",
    "over",
]


class BiddingView(TypedDict):
    """An auction or a stake question's bidding (rules/specials/bidding.py)."""

    turn: int | None
    bid: int | None
    leader: int | None
    passed: list[int]
    order: list[int]
    #: TV-H-1995-01: the stake question bought by the button.
    by_button: bool
    #: Who may press to buy it now (empty unless ``by_button`` and nobody's turn).
    buyers: list[int]
    #: TV-S-AUC-3: the players with equal scores the host may pick to bid now
    #: (``bidder_pick``); empty: no pick (the order stands).
    pickable: list[int]


class CatSeriesView(TypedDict):
    """TV-S-CAT-5: a picture-series cat, its values and how many pictures are shown."""

    values: list[int]
    shown: int


class BonusView(TypedDict):
    """TV-H-1995-03: the bonus contest being offered or played."""

    #: the seat being asked now (None once someone accepted or all declined)
    offered: int | None
    #: the offer's place (1: the leader) of the seat asked now
    place: int
    #: the seat who accepted and plays
    player: int | None
    right: int
    questions: int


class FinalView(TypedDict):
    """The final round (C2003-2.6, TV-F)."""

    seats: list[int]
    themes_left: list[int]
    staked: list[int]
    judge_order: list[int]
    answers_due: int | None
    answers_in: bool
    #: C2003-2.7.4, TV-F-4: the writing time (30 s, or the final_answer_time_s option).
    answer_time_s: float | None


class ShootoutView(TypedDict):
    """A shootout after a tie for first (C2003-2.6e, TV-F-6)."""

    seats: list[int]
    number: int
    scores: dict[str, int]


class GameSnapshot(TypedDict):
    """Everything a screen or a panel shows (``Game.snapshot()``)."""

    rules: str
    players: list[str]
    stage: StageName
    round: int
    round_name: str
    themes: list[str]
    #: TV-H-2001-09: the board's rows, top to bottom, as theme numbers (1-based, into
    #: ``themes``): the package's order, or alphabetical in the era that played so.
    #: The journal's theme numbers stay the package's.
    theme_order: list[int]
    prices: list[int]
    #: ``[theme, price]`` of each cell played
    played: list[list[int]]
    #: ``[theme, price]`` of the cell in play
    cell: list[int] | None
    #: a :class:`rules.state.SpecialKind` value
    special: str | None
    scores: dict[str, int]
    chooser: int | None
    #: the arbiter's :class:`buzzer.arbiter.machine.Phase` value
    phase: str
    answering: int | None
    recognized_at: int | None
    closes_at: int | None
    answer_deadline: int | None
    locked_until: dict[str, int]
    answered: list[int]
    margins_us: dict[str, int]
    bidding: BiddingView | None
    value: int | None
    cat_series: CatSeriesView | None
    bonus: BonusView | None
    special_deadline: int | None
    #: TV-S-CAT-4: the editors' cat values were multiples of this (None: any).
    cat_value_step: int | None
    final: FinalView | None
    shootout: ShootoutView | None
    winner: int | None
    over: bool
    #: A-G-D1: when the host paused the game (None: it runs). The deadlines
    #: above stand still meanwhile: what was left of each is ``deadline - paused_at``.
    paused_at: int | None


class LiveSnapshot(GameSnapshot, total=False):
    """A snapshot as the live controller publishes it: which version, and when
    (absent from a replay's snapshots, hence not required)."""

    #: bumped by every change; the panel's commands name the version they saw
    version: int
    #: the game clock at publication (ns)
    now: int


class CatRulesView(TypedDict):
    """What the rules make of a cat in the bag (the page says so)."""

    #: a :class:`rules.specials.CatPriceRule` value
    price: str
    may_keep: bool


class NextRound(TypedDict):
    """The round the next ``select`` moves to, and who will choose first in it."""

    round: int
    name: str
    themes: list[str]
    #: TV-H-2001-09: the rows' order, as in the snapshot's ``theme_order``
    theme_order: list[int]
    prices: list[int]
    holes: list[list[int]]
    chooser: int | None


class HostOptions(TypedDict):
    """What the host's controls may offer now (``GameCore.host_options()``)."""

    settle_ms: float
    has_chooser: bool
    #: the seat whose turn it is to remove a final theme
    final_turn: int | None
    #: a cat priced at the round's minimum or maximum: ``[min, max]``
    cat_options: list[int] | None
    cat_rules: CatRulesView | None
    stake_opener_only: bool | None
    bid_min: int | None
    bid_step: int | None
    #: the opening bids the rules force, if any
    bid_forced: list[int] | None
    #: TV-S-AUC-3: the tied players the host may pick to bid now (``bidder_pick``)
    bidder_pick: list[int] | None
    next_round: NextRound | None
    stake_min: int | None
    stake_step: int | None
    #: SER-CC1-SUB: a player may be replaced now (between round 2 and round 3)
    substitute: bool
