"""A series played game by game: a format (``rules.tournament.series``) folded over its events.

The series is a pure function of its format, its entrants, its seed and the
ordered events (each game's result, the champion's stop-or-go, the
committee's pick): :func:`play_series` returns the :class:`SeriesView` after
them — the standings, the next game's players (and its carried start
scores), or what the series waits for. An event that does not fit (the wrong
players, a decision nobody is asked for) is a :class:`SeriesError`, nothing
applied. Every lot (the fobs, a bracket's groups) is drawn from the seed, so
the same events give the same series, byte for byte.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from buzzer.errors import SvoyakError
from rules.tournament.series import BracketStage, SeriesFormat, Shape, fobs_after


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


@dataclass(slots=True)
class _Row:
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


def play_series(
    fmt: SeriesFormat,
    members: Sequence[str],
    challengers: Sequence[str],
    events: Sequence[Event],
    seed: int = 0,
) -> SeriesView:
    """The series after ``events``; :class:`SeriesError` names an event that does not fit."""
    names = list(members) + list(challengers)
    if len(set(names)) != len(names):
        raise SeriesError("a player is entered twice")
    if fmt.shape is Shape.SEATS and len(members) != fmt.members:
        raise SeriesError(f"{fmt.id} starts with {fmt.members} members, {len(members)} given")
    if fmt.shape is not Shape.SEATS and members:
        raise SeriesError(f"{fmt.id} has no members: enter everyone as a challenger")
    run: _Run
    if fmt.shape is Shape.LADDER:
        run = _Ladder(fmt, challengers, seed)
    elif fmt.shape is Shape.SEATS:
        run = _Seats(fmt, members, challengers, seed)
    else:
        run = _Bracket(fmt, challengers, seed)
    for number, event in enumerate(events, 1):
        try:
            run.apply(event)
        except SeriesError as exc:
            raise SeriesError(f"event {number}: {exc}") from None
    return run.view()


# -- the three shapes ---------------------------------------------------------------------


class _Run:
    """What the three shapes share: the table, the notes, the games played."""

    def __init__(self, fmt: SeriesFormat, seed: int) -> None:
        self.fmt = fmt
        self.seed = seed
        self.table: dict[str, _Row] = {}
        self.notes: list[str] = []
        self.played = 0
        self.over: str | None = None
        self.lots: list[FobLot] = []

    def enter(self, name: str, role: str) -> None:
        self.table[name] = _Row(name, role, entry=len(self.table))

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


def _table_key(row: _Row) -> tuple[int, int, int, int]:
    return (-row.wins, -row.winnings, -row.points, row.entry)


def _seats(players: Sequence[str]) -> str:
    return "  ".join(f"{seat}:{name}" for seat, name in enumerate(players, 1))


def _places(event: Played) -> list[str]:
    """SER-PLACE-D: the winner first, then by end score; equal scores by seat."""
    order = sorted(range(len(event.players)), key=lambda i: (-event.scores[i], i))
    if event.winner is not None:
        order.remove(event.winner - 1)
        order.insert(0, event.winner - 1)
    return [event.players[i] for i in order]


def _snake(ranked: Sequence[str], groups: int) -> list[list[str]]:
    """SER-OLY-D: the best in different games: 1-6-7, 2-5-8, 3-4-9 for nine in three."""
    tables: list[list[str]] = [[] for _ in range(groups)]
    for index, name in enumerate(ranked):
        lap, pos = divmod(index, groups)
        tables[pos if lap % 2 == 0 else groups - 1 - pos].append(name)
    return tables


class _Matches:
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
        return [_places(r[-1]) for r in self.results]

    def last(self) -> list[Played]:
        return [r[-1] for r in self.results]


class _Ladder(_Run):
    """SER-CAR94, SER-CAR04, SER-CAR08, SER-COMB: a champion against two new challengers."""

    def __init__(self, fmt: SeriesFormat, challengers: Sequence[str], seed: int) -> None:
        super().__init__(fmt, seed)
        for name in challengers:
            self.enter(name, "challenger")
        self.queue = list(challengers)
        self.used = 0
        self.champion: str | None = None
        self.streak = 0
        self.deciding = False
        self.run_lot: FobLot | None = None
        #: The game the champion's run began with: names his fob lot's seed.
        self.run_start = 0
        self.prize_pool = 0
        self.finals: list[_Matches] = []
        self.closed = False

    def pool(self) -> int:
        return self.prize_pool

    def newcomers(self, count: int) -> list[str] | None:
        fresh = self.queue[self.used : self.used + count]
        return fresh if len(fresh) == count else None

    def next_game(self) -> NextGame | None:
        number = self.played + 1
        if self.closed:
            return self.finals[-1].next_game(number) if self.finals else None
        if self.deciding:
            return None
        seats = [self.champion] if self.champion else []
        fresh = self.newcomers(self.fmt.per_game - len(seats))
        if fresh is None:
            return None
        label = "three new players"
        if self.champion:
            label = f"{self.champion} defends {self.streak} win(s), bank {self.bank}"
        return NextGame(number, label, tuple(seats + fresh))

    @property
    def bank(self) -> int:
        return self.table[self.champion].bank if self.champion else 0

    def waiting(self) -> str | None:
        if self.deciding:
            return f"{self.champion}: stop and take {self.bank}, or go on (`series decide`)"
        if self.closed:
            return None
        short = self.fmt.per_game - (1 if self.champion else 0) - (len(self.queue) - self.used)
        return f"{short} more challenger(s) needed (`series add`)"

    def apply(self, event: Event) -> None:
        if isinstance(event, Decision):
            self.decide(event)
            return
        if isinstance(event, CloseLadder):
            self.close()
            return
        if self.closed:
            self.final_game(event)
            return
        result, game = self.take_game(event)
        newcomers = [p for p in result.players if p != self.champion]
        self.used += len(newcomers)
        for name in newcomers:
            self.table[name].role = "out"
        winner = self.winner_of(result)
        score = result.scores[result.players.index(winner)] if winner else 0
        if self.fmt.prize_pool and winner:
            self.prize_pool += score  # SER-COMB-2
        if self.champion and winner != self.champion:
            self.champion_loses(result.scores[result.players.index(self.champion)])
        if winner is None:
            self.notes.append(f"game {game.number}: no winner; three new players next")
            return
        row = self.table[winner]
        row.role = "champion"
        if winner == self.champion:
            self.streak += 1
            row.bank = row.bank + score if self.fmt.carry_sums else score
        else:
            self.champion, self.streak, self.run_lot = winner, 1, None
            self.run_start = game.number
            row.bank = score
        self.notes.append(
            f"game {game.number}: {winner} wins ({self.streak} in a row), bank {row.bank}"
        )
        wins, bonus = self.fmt.streak_bonus
        if wins and self.streak == wins:  # SER-CAR94-5
            row.bank += bonus
            self.notes.append(f"{winner}: {wins} wins in a row, +{bonus}")
        if self.fmt.wins_for_prize and self.streak == self.fmt.wins_for_prize:  # SER-CAR94-1
            self.leave(winner, "the car")
            return
        if self.fmt.fobs_when == "win":  # SER-CAR08-2
            self.check_fobs(winner, fobs_after(self.streak, self.fmt.fobs))
            if self.champion is None:
                return
        self.deciding = self.fmt.may_stop

    def champion_loses(self, score: int) -> None:
        assert self.champion is not None
        row = self.table[self.champion]
        if self.fmt.loss_keeps_bank:  # SER-CAR08-3
            row.took += row.bank
            self.notes.append(f"{self.champion} loses and keeps {row.bank}")
        else:  # SER-CAR94-4, SER-CAR04-4, SER-COMB-1
            last = max(score, 0) if self.fmt.loss_keeps_last else 0  # SER-CAR94-4-D1
            row.took += last
            self.notes.append(
                f"{self.champion} loses the bank of {row.bank}"
                + (f", takes {last}" if last else "")
            )
        row.bank = 0
        row.role = "out"
        self.champion, self.streak, self.run_lot = None, 0, None

    def leave(self, name: str, prize: str = "") -> None:
        row = self.table[name]
        row.took += row.bank
        row.bank = 0
        row.role = "out"
        row.prize = prize
        self.notes.append(f"{name} leaves with {row.took}" + (f" and {prize}" if prize else ""))
        self.champion, self.streak, self.run_lot = None, 0, None

    def check_fobs(self, name: str, opened: int) -> None:
        if self.run_lot is None:
            seed = f"{self.seed}:fobs:{self.run_start}"
            self.run_lot = fob_lot(seed, name, self.fmt.fobs, opened)
        else:
            lot = self.run_lot
            self.run_lot = FobLot(
                lot.seed, name, lot.fobs, lot.key, lot.order, min(opened, lot.fobs)
            )
        lot = self.run_lot
        self.lots.append(lot)
        found = "the key: the car" if lot.found else "no key"
        self.notes.append(
            f"{name} checks {lot.opened} of {lot.fobs} fobs {list(lot.checked)}: {found}"
        )
        if lot.found:
            self.leave(name, "the car")

    def decide(self, event: Decision) -> None:
        if not self.deciding or event.name != self.champion:
            asked = f"{self.champion} is asked" if self.deciding else "nobody is asked"
            raise SeriesError(f"{event.name} has no stop-or-go decision to make ({asked})")
        self.deciding = False
        if not event.stop:
            if event.buy:
                raise SeriesError("fobs are bought only when stopping (SER-CAR04-3)")
            self.notes.append(f"{event.name} goes on")
            return
        if self.fmt.fobs_when == "stop":  # SER-CAR04-2, SER-CAR04-3
            cost = event.buy * self.fmt.fob_price
            row = self.table[event.name]
            if event.buy < 0 or (event.buy and not self.fmt.fob_price) or cost > row.bank:
                raise SeriesError(
                    f"{event.buy} extra fob(s) cost {cost}, the bank is {row.bank}"
                    if self.fmt.fob_price
                    else "no fobs to buy in this format"
                )
            row.bank -= cost
            self.check_fobs(event.name, fobs_after(self.streak, self.fmt.fobs) + event.buy)
            if self.champion is None:
                return
        elif event.buy:
            raise SeriesError("no fobs to buy in this format")
        self.leave(event.name)

    def close(self) -> None:
        """SER-COMB-3: «приз разыгрывался в третьфиналах и финале между девятью лучшими»."""
        if not self.fmt.finals_best or self.closed:
            raise SeriesError("this series has no finals to close the ladder for")
        if self.champion:
            self.leave(self.champion)
        self.deciding = False
        ranked = sorted(self.table.values(), key=lambda r: (-r.wins, -r.points, r.entry))
        best = [r.name for r in ranked if r.games][: self.fmt.finals_best]
        if len(best) < self.fmt.finals_best:
            raise SeriesError(
                f"{len(best)} players have played, the finals need {self.fmt.finals_best}"
            )
        self.closed = True
        groups = len(best) // self.fmt.per_game
        self.finals.append(_Matches("third-final", _snake(best, groups), 1))
        self.notes.append("the finals: " + ", ".join(best))

    def final_game(self, event: Event) -> None:
        result, _game = self.take_game(event)
        stage = self.finals[-1]
        stage.record(result)
        if not stage.done():
            return
        winners = [placed[0] for placed in stage.placed()]
        if len(winners) == 1:
            self.over = f"{winners[0]} wins the prize of {self.prize_pool}"
            self.table[winners[0]].prize = f"the prize of {self.prize_pool}"
            return
        self.finals.append(_Matches("final", [winners], 1))


class _Seats(_Run):
    """SER-GD, SER-CC1, SER-CC4: members defend seats against challengers."""

    def __init__(
        self, fmt: SeriesFormat, members: Sequence[str], challengers: Sequence[str], seed: int
    ) -> None:
        super().__init__(fmt, seed)
        for name in members:
            self.enter(name, "member")
        for name in challengers:
            self.enter(name, "challenger")
        self.members = list(members)
        self.queue = list(challengers)
        self.used = 0
        #: Members who lost their seats, in order (the revenge circle's challengers).
        self.fallen: list[str] = []
        self.revenge_used = 0
        #: The game within the cycle (GD) or circle order; the series' seat game count.
        self.seat_games = 0
        self.cycle = 1
        #: Points and winnings in the seat games of this cycle (the lodge: of the year).
        self.cycle_points: dict[str, int] = {}
        self.cycle_won: dict[str, int] = {}
        #: SER-GD-5: the winners' sums of the cycle's games before its final.
        self.cycle_pool = 0
        self.ladder: list[str] = []
        self.climb = 0
        self.knockout: list[_Matches] = []
        self.turn = 0  # SER-CC1-D1: the next team member to play

    def seats(self) -> tuple[str, ...]:
        return tuple(self.members)

    # Which seat games come now -------------------------------------------------------------

    def per_cycle(self) -> int:
        if self.fmt.circles:
            return self.fmt.circles * self.fmt.members
        return self.fmt.seat_games

    def revenge_circle(self) -> bool:
        return self.fmt.revenge and self.seat_games >= (self.fmt.circles - 1) * self.fmt.members

    def defenders(self) -> list[str]:
        k = self.seat_games % max(self.per_cycle(), 1)
        if not self.fmt.replace_loser:  # SER-CC1-D1: the remaining members in turn
            team = [m for m in self.members if m]
            return [team[self.turn % len(team)]] if team else []
        if self.fmt.members_per_game == 2:  # SER-GD-D2: each seat defends twice a cycle
            n = self.fmt.members
            return [self.members[(2 * k) % n], self.members[(2 * k + 1) % n]]
        return [self.members[k % self.fmt.members]]

    def attackers(self, count: int) -> list[str] | None:
        picked: list[str] = []
        if self.revenge_circle():  # SER-CC4-3
            fallen = [f for f in self.fallen[self.revenge_used :] if f not in self.members]
            picked = fallen[:count]
        fresh = self.queue[self.used : self.used + count - len(picked)]
        picked += fresh
        return picked if len(picked) == count else None

    def next_game(self) -> NextGame | None:
        number = self.played + 1
        if self.knockout:
            return self.knockout[-1].next_game(number)
        defenders = self.defenders()
        if not defenders:
            return None
        attackers = self.attackers(self.fmt.per_game - len(defenders))
        if attackers is None:
            return None
        k = self.seat_games % max(self.per_cycle(), 1)
        if self.fmt.circles:
            label = f"circle {k // self.fmt.members + 1}, seat {k % self.fmt.members + 1}"
            if self.revenge_circle():
                label += " (revenge)"
        elif self.fmt.replace_loser:
            label = f"cycle {self.cycle}, game {k + 1} of {self.fmt.seat_games}"
        else:
            label = f"game {self.seat_games + 1} of {self.fmt.seat_games}"
        return NextGame(number, label, tuple(defenders + attackers))

    def waiting(self) -> str | None:
        if self.knockout:
            return None
        return "more challengers needed (`series add`)"

    # Results ----------------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        if self.knockout:
            self.knockout_game(event)
            return
        result, game = self.take_game(event)
        self.seat_games += 1
        for name, score in zip(result.players, result.scores, strict=True):
            self.cycle_points[name] = self.cycle_points.get(name, 0) + score
        winner = self.winner_of(result)
        if winner is not None:
            score = result.scores[result.players.index(winner)]
            self.cycle_won[winner] = self.cycle_won.get(winner, 0) + score
            self.cycle_pool += score
        defenders = [p for p in result.players if p in self.members]
        attackers = [p for p in result.players if p not in self.members]
        for name in attackers:
            if name in self.queue[self.used :]:
                self.used += 1
            elif name in self.fallen:
                self.revenge_used = self.fallen.index(name) + 1
        keeping = _places(result)[: self.fmt.keep_places] if winner else defenders
        for name in attackers:
            self.table[name].role = "out"
        if not self.fmt.replace_loser:
            self.team_game(game, result, winner)
        else:
            losers = [d for d in defenders if d not in keeping]
            takers = [a for a in keeping if a in attackers]
            # SER-GD-2 / SER-GD-4: the winner (the variant: a challenger placed 1st or 2nd)
            # takes the seat of the member who is not placed to keep it
            for lost, taker in zip(losers, takers, strict=False):
                seat = self.members.index(lost)
                self.members[seat] = taker
                self.fallen.append(lost)
                self.table[lost].role = "out"
                self.table[taker].role = "member"
                self.notes.append(f"game {game.number}: {taker} takes seat {seat + 1} from {lost}")
            for kept in [d for d in defenders if d in self.members]:
                self.notes.append(
                    f"game {game.number}: {kept} keeps seat {self.members.index(kept) + 1}"
                )
            if self.seat_games % self.per_cycle() == 0:
                self.after_seat_games()

    def team_game(self, game: NextGame, result: Played, winner: str | None) -> None:
        """SER-CC1-2: a member who loses leaves the team; the challenger takes the prize."""
        member = game.players[0]
        if winner is None or winner == member:
            self.notes.append(f"game {game.number}: {member} wins for the team")
            self.turn += 1
        else:
            seat = self.members.index(member)
            self.members[seat] = ""
            self.table[member].role = "out"
            self.table[winner].prize = "the challenger's prize"
            self.notes.append(f"game {game.number}: {winner} beats {member}, who leaves the team")
        team = [m for m in self.members if m]
        left = self.fmt.seat_games - self.seat_games
        if not team:
            self.over = f"the team is out after game {self.seat_games}: the challengers win"
        elif left == 0 or len(team) > left:  # SER-CC1-3: more members than games left
            self.over = f"the team wins ({len(team)} member(s) left after game {self.seat_games})"
            for name in team:
                self.table[name].prize = "the team's prize"

    def ranked_members(self) -> list[str]:
        """SER-GD-3-D / SER-CC4-4-D: members by winnings (the end scores of the games they
        won: in the cycle for the Dozen, in the year for the lodge), then by points, then
        by seat."""

        def key(name: str) -> tuple[int, int, int]:
            return (
                -self.cycle_won.get(name, 0),
                -self.cycle_points.get(name, 0),
                self.members.index(name),
            )

        return sorted(self.members, key=key)

    def after_seat_games(self) -> None:
        ranked = self.ranked_members()
        if self.fmt.olympic:  # SER-GD-3: the nine best, an olympic bracket
            best = ranked[: self.fmt.olympic]
            groups = len(best) // self.fmt.per_game
            self.knockout.append(
                _Matches(f"cycle {self.cycle} olympic semi-final", _snake(best, groups), 1)
            )
            self.notes.append(f"cycle {self.cycle}: the {len(best)} best: " + ", ".join(best))
        elif self.fmt.ladder_final:  # SER-CC4-4: from the 9th place up
            self.ladder = ranked
            self.notes.append("the lodge by winnings: " + ", ".join(ranked))
            self.knockout.append(_Matches("ladder final", [ranked[-self.fmt.per_game :]], 1))
            self.climb = len(ranked) - self.fmt.per_game - 1  # the next to join

    def knockout_game(self, event: Event) -> None:
        result, _game = self.take_game(event)
        stage = self.knockout[-1]
        stage.record(result)
        if not stage.done():
            return
        placed = stage.placed()
        if self.fmt.olympic:
            winners = [p[0] for p in placed]
            if len(winners) > 1:
                self.cycle_pool += sum(
                    last.scores[last.players.index(w)]
                    for last, w in zip(stage.last(), winners, strict=True)
                    if last.winner is not None
                )
                self.knockout.append(_Matches(f"cycle {self.cycle} olympic final", [winners], 1))
                return
            champion = winners[0]
            row = self.table[champion]
            prize = f"champion of cycle {self.cycle}"
            note = f"cycle {self.cycle}: {champion} is the Dozen's champion"
            if self.fmt.cycle_prize:  # SER-GD-5
                row.took += self.cycle_pool
                prize += f" ({self.cycle_pool})"
                note += f", the prize {self.cycle_pool}"
            self.notes.append(note)
            row.prize = f"{row.prize}, {prize}" if row.prize else prize
            self.cycle += 1
            self.knockout = []
            self.cycle_points, self.cycle_won, self.cycle_pool = {}, {}, 0
            return
        # SER-CC4-4: the two best stay, the third leaves; the next from the ranking joins
        if stage.label == "ladder final":
            stay = placed[0][:2]
            self.notes.append(f"ladder: {placed[0][2]} leaves, {self.ladder[self.climb]} joins")
            seats = sorted([*stay, self.ladder[self.climb]], key=self.ladder.index)
            if self.climb == 0:  # SER-CC4-5: the first grandmaster joins the final of three games
                self.knockout.append(_Matches("final", [seats], self.fmt.final_games))
            else:
                self.knockout.append(_Matches("ladder final", [seats], 1))
            self.climb -= 1
            return
        champion = placed[0][0]
        self.over = f"{champion} wins the main prize (final of {self.fmt.final_games} games)"
        self.table[champion].prize = "the main prize"


class _Bracket(_Run):
    """SER-JUB: stages of matches drawn by lot; the best of each match go on."""

    def __init__(self, fmt: SeriesFormat, entrants: Sequence[str], seed: int) -> None:
        super().__init__(fmt, seed)
        for name in entrants:
            self.enter(name, "in")
        self.field = list(entrants)
        self.stage_no = 0
        self.stage: _Matches | None = None
        self.picked: list[str] = []
        self.start_stage()

    def spec(self) -> BracketStage:
        return self.fmt.stages[self.stage_no]

    def start_stage(self) -> None:
        spec = self.spec()
        need = spec.matches * self.fmt.per_game
        if len(self.field) + len(self.picked) != need:
            self.stage = None
            return
        players = self.field + self.picked
        rng = random.Random(f"{self.seed}:groups:{self.stage_no + 1}")  # SER-JUB-D1: the lot
        rng.shuffle(players)
        tables = [players[i : i + self.fmt.per_game] for i in range(0, need, self.fmt.per_game)]
        self.stage = _Matches(spec.name, tables, spec.games)
        self.notes.append(f"{spec.name}: drawn " + " | ".join(", ".join(t) for t in tables))
        self.field = players
        self.picked = []

    def next_game(self) -> NextGame | None:
        return None if self.stage is None else self.stage.next_game(self.played + 1)

    def waiting(self) -> str | None:
        spec = self.spec()
        need = spec.matches * self.fmt.per_game
        have = len(self.field) + len(self.picked)
        if self.stage_no == 0:
            return f"{need} entrants needed, {have} entered (`series add`)"
        return f"the committee brings back {need - have} player(s) who are out (`series pick`)"

    def apply(self, event: Event) -> None:
        if isinstance(event, Pick):
            self.pick(event.name)
            return
        if self.stage_no == 0 and self.stage is None and isinstance(event, Played):
            raise SeriesError(f"no game is due: {self.waiting()}")
        result, _game = self.take_game(event)
        assert self.stage is not None
        self.stage.record(result)
        if not self.stage.done():
            return
        spec = self.spec()
        placed = self.stage.placed()
        going = [name for p in placed for name in p[: spec.advance]]
        if spec.best_next:  # SER-JUB-4: «и игрок со второго места, показавший лучший результат»
            nexts: list[tuple[int, int, str]] = []
            for p, last in zip(placed, self.stage.last(), strict=True):
                name = p[spec.advance]
                nexts.append((-last.scores[last.players.index(name)], len(nexts), name))
            going += [n for _s, _i, n in sorted(nexts)[: spec.best_next]]
        for name in self.field:
            if name not in going:
                self.table[name].role = "out"
        self.notes.append(f"{spec.name}: through " + ", ".join(going))
        if self.stage_no + 1 == len(self.fmt.stages):
            self.over = f"{going[0]} wins the {self.fmt.title}"
            self.table[going[0]].prize = "the winner"
            return
        self.stage_no += 1
        self.field = going
        self.start_stage()

    def pick(self, name: str) -> None:
        if self.stage is not None or self.stage_no == 0 or self.over:
            raise SeriesError("the committee's pick is not asked for now")
        row = self.table.get(name)
        if row is None or row.role != "out" or name in self.picked:
            raise SeriesError(f"{name} is not a player who is out")
        self.picked.append(name)
        row.role = "in"
        self.notes.append(f"the committee brings back {name}")
        self.start_stage()


def add_entrant_check(view: SeriesView, name: str) -> None:
    """A name may be entered once per series."""
    if any(row.name == name for row in view.standings):
        raise SeriesError(f"{name} is already in the series")
