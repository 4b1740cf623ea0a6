"""What the three shapes share while a series is folded (:mod:`rules.tournament.series_play`).

:class:`Run`: the table of players, the notes, the games played, the checking
and counting of a game's result; :class:`Matches`: the games of a knockout
(matches of one or more games, scores carried); the places of a game and the
snake that spreads a ranking over games. Pure, as the fold is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.tournament.series import SeriesFormat
from rules.tournament.series_events import (
    Event,
    FobLot,
    NextGame,
    Played,
    SeriesError,
    SeriesView,
    Standing,
)


@dataclass(slots=True)
class Row:
    """A :class:`Standing` while the fold counts it."""

    name: str
    role: str
    games: int = 0
    wins: int = 0
    points: int = 0
    winnings: int = 0
    bank: int = 0
    took: int = 0
    prize: str = ""
    entry: int = 0

    def frozen(self) -> Standing:
        return Standing(
            self.name,
            self.role,
            self.games,
            self.wins,
            self.points,
            self.winnings,
            self.bank,
            self.took,
            self.prize,
            self.entry,
        )


class Run:
    """What the three shapes share: the table, the notes, the games played."""

    def __init__(self, fmt: SeriesFormat, seed: int) -> None:
        self.fmt = fmt
        self.seed = seed
        self.table: dict[str, Row] = {}
        self.notes: list[str] = []
        self.played = 0
        self.over: str | None = None
        self.lots: list[FobLot] = []

    def enter(self, name: str, role: str) -> None:
        self.table[name] = Row(name, role, entry=len(self.table))

    def next_game(self) -> NextGame | None:
        raise NotImplementedError

    def waiting(self) -> str | None:
        raise NotImplementedError

    def apply(self, event: Event) -> None:
        raise NotImplementedError

    def seats(self) -> tuple[str, ...]:
        return ()

    def pool(self) -> int:
        return 0

    def view(self) -> SeriesView:
        upcoming = None if self.over else self.next_game()
        return SeriesView(
            self.fmt,
            self.played,
            upcoming,
            None if self.over or upcoming else self.waiting(),
            self.over,
            tuple(row.frozen() for row in sorted(self.table.values(), key=_table_key)),
            tuple(self.notes),
            tuple(self.lots),
            self.pool(),
            self.seats(),
        )

    def take_game(self, event: Event) -> tuple[Played, NextGame]:
        """The result of the next game, checked against it, counted in the table."""
        if self.over:
            raise SeriesError(f"the series is over ({self.over})")
        if not isinstance(event, Played):
            raise SeriesError(f"a {type(event).__name__.lower()} is not asked for now")
        game = self.next_game()
        if game is None:
            raise SeriesError(f"no game is due: {self.waiting()}")
        if event.players != game.players:
            raise SeriesError(
                f"game {game.number} is {_seats(game.players)}, the result is for "
                f"{_seats(event.players)}"
            )
        if game.start_scores is not None and len(game.start_scores) != len(event.scores):
            raise SeriesError("a result needs one score per player")
        for name, score in zip(event.players, event.scores, strict=True):
            row = self.table[name]
            row.games += 1
            row.points += score
        winner = self.winner_of(event)
        if winner is not None:
            self.table[winner].wins += 1
            self.table[winner].winnings += event.scores[event.players.index(winner)]
        self.played += 1
        return event, game

    @staticmethod
    def winner_of(event: Played) -> str | None:
        return None if event.winner is None else event.players[event.winner - 1]


def _table_key(row: Row) -> tuple[int, int, int, int]:
    return (-row.wins, -row.winnings, -row.points, row.entry)


def _seats(players: Sequence[str]) -> str:
    return "  ".join(f"{seat}:{name}" for seat, name in enumerate(players, 1))


def places(event: Played) -> list[str]:
    """SER-PLACE-D: the winner first, then by end score; equal scores by seat."""
    order = sorted(range(len(event.players)), key=lambda i: (-event.scores[i], i))
    if event.winner is not None:
        order.remove(event.winner - 1)
        order.insert(0, event.winner - 1)
    return [event.players[i] for i in order]


def snake(ranked: Sequence[str], groups: int) -> list[list[str]]:
    """SER-OLY-D: the best in different games: 1-6-7, 2-5-8, 3-4-9 for nine in three."""
    tables: list[list[str]] = [[] for _ in range(groups)]
    for index, name in enumerate(ranked):
        lap, pos = divmod(index, groups)
        tables[pos if lap % 2 == 0 else groups - 1 - pos].append(name)
    return tables


class Matches:
    """Games of a knockout: matches of one or more games (scores carried), the best go on."""

    def __init__(self, label: str, tables: list[list[str]], games: int) -> None:
        self.label = label
        self.tables = tables
        self.games = games
        #: Per match: the results played so far.
        self.results: list[list[Played]] = [[] for _ in tables]

    def current(self) -> tuple[int, int] | None:
        for m, results in enumerate(self.results):
            if len(results) < self.games:
                return m, len(results)
        return None

    def next_game(self, number: int) -> NextGame | None:
        at = self.current()
        if at is None:
            return None
        m, g = at
        label = f"{self.label} {m + 1}" if len(self.tables) > 1 else self.label
        if self.games > 1:
            label += f", game {g + 1} of {self.games}"
        start = self.results[m][-1].scores if g else None
        return NextGame(number, label, tuple(self.tables[m]), start)

    def record(self, event: Played) -> None:
        at = self.current()
        assert at is not None
        self.results[at[0]].append(event)

    def done(self) -> bool:
        return self.current() is None

    def placed(self) -> list[list[str]]:
        """Each match's players by place in its last game (its end scores: SER-CARRY)."""
        return [places(r[-1]) for r in self.results]

    def last(self) -> list[Played]:
        return [r[-1] for r in self.results]
