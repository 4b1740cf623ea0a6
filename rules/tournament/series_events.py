"""What goes into a series and what comes out of it (:mod:`rules.tournament.series_play`).

The events a series is folded over (each game's result, the champion's
stop-or-go, the committee's pick, the end of the ladder), the
:class:`SeriesView` the fold returns (the standings, the next game, what the
series waits for) and the :class:`SeriesError` an event that does not fit is
refused with. Frozen records; the seeded lot of fobs is drawn here
(:func:`fob_lot`), so the same seed gives the same lot.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from buzzer.errors import SvoyakError
from rules.tournament.series import SeriesFormat


class SeriesError(SvoyakError, ValueError):
    """An event the series cannot take; the message says what it expects."""


# -- events -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Played:
    """One game's result: the players in seat order, their end scores, the winner's seat."""

    players: tuple[str, ...]
    scores: tuple[int, ...]
    winner: int | None

    def __post_init__(self) -> None:
        if len(self.players) != len(self.scores):
            raise SeriesError("a result needs one score per player")
        if self.winner is not None and not 1 <= self.winner <= len(self.players):
            raise SeriesError(f"the winner's seat must be 1..{len(self.players)}")


@dataclass(frozen=True, slots=True)
class Decision:
    """The champion's choice after a win (SER-CAR94-3, SER-CAR04-1, SER-COMB-1): stop or go on.

    ``buy``: extra fobs bought from the winnings when stopping (SER-CAR04-3).
    """

    name: str
    stop: bool
    buy: int = 0


@dataclass(frozen=True, slots=True)
class Pick:
    """The committee brings a player back (SER-JUB-3: «присоединился 1 игрок из вылетевших»)."""

    name: str


@dataclass(frozen=True, slots=True)
class CloseLadder:
    """The ladder part ends: its best play the finals (SER-COMB-3, the half-year's end)."""


Event = Played | Decision | Pick | CloseLadder


# -- what the series shows ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NextGame:
    """The next game: its number in the series, what it is, its players in seat order."""

    number: int
    label: str
    players: tuple[str, ...]
    #: SER-CARRY: the seats' start scores (the header's ``start_scores``); None: the rules'.
    start_scores: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class FobLot:
    """SER-CAR04-2 / SER-CAR08-2: fobs checked from a seeded lot.

    The key lies under fob ``key``; the player checks fobs in the order the
    lot gives (``order``), the first ``opened`` of them. One lot per champion's
    run (drawn at its first win, from ``seed``), so the fobs checked after
    later wins are the next ones of the same order.
    """

    seed: str
    player: str
    fobs: int
    key: int
    order: tuple[int, ...]
    opened: int

    @property
    def checked(self) -> tuple[int, ...]:
        return self.order[: self.opened]

    @property
    def found(self) -> bool:
        return self.key in self.checked


def fob_lot(seed: str, player: str, fobs: int, opened: int) -> FobLot:
    """The lot of one champion's run: where the key is and the order the fobs are checked."""
    rng = random.Random(seed)
    key = rng.randint(1, fobs)
    order = list(range(1, fobs + 1))
    rng.shuffle(order)
    return FobLot(seed, player, fobs, key, tuple(order), min(opened, fobs))


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's line in the series' table."""

    name: str
    role: str
    games: int = 0
    wins: int = 0
    #: The sum of the player's end scores in every game.
    points: int = 0
    #: The sum of the end scores of the games the player won («выигрыш», SER-WIN).
    winnings: int = 0
    #: LADDER: what the champion has won so far and carries (SER-CAR94-2).
    bank: int = 0
    #: What the player took home (stopped, lost with the 2008 rule, the prize).
    took: int = 0
    prize: str = ""
    #: Order of entry, for stable tables.
    entry: int = 0


@dataclass(frozen=True, slots=True)
class SeriesView:
    """The series after its events."""

    format: SeriesFormat
    played: int
    next: NextGame | None
    #: What the series waits for instead of a game (a decision, challengers, a pick).
    waiting: str | None
    #: The series is over: who won it and how.
    over: str | None
    standings: tuple[Standing, ...]
    #: What each event did, in order (seats kept and lost, stops, lots).
    notes: tuple[str, ...]
    lots: tuple[FobLot, ...] = ()
    #: LADDER with a growing prize (SER-COMB-2): its size now.
    pool: int = 0
    #: SEATS: the members by seat (an empty seat, after a team's loss: "").
    seats: tuple[str, ...] = field(default=())
