"""The ladder of a series: a champion against two new challengers (SER-CAR94, SER-CAR04,
SER-CAR08, SER-COMB), folded by :func:`rules.tournament.series_play.play_series`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.tournament.series import SeriesFormat, fobs_after
from rules.tournament.series_events import (
    CloseLadder,
    Decision,
    Event,
    FobLot,
    NextGame,
    SeriesError,
    fob_lot,
)
from rules.tournament.series_run import Matches, Run, snake


class Ladder(Run):
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
        self.finals: list[Matches] = []
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
        self.finals.append(Matches("third-final", snake(best, groups), 1))
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
        self.finals.append(Matches("final", [winners], 1))
