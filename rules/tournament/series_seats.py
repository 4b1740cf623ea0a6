"""The seats of a series: members defend seats against challengers (SER-GD, SER-CC1,
SER-CC4), folded by :func:`rules.tournament.series_play.play_series`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.tournament.series import SeriesFormat
from rules.tournament.series_events import Event, NextGame, Played
from rules.tournament.series_run import Matches, Run, places, snake


class Seats(Run):
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
        self.knockout: list[Matches] = []
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
        keeping = places(result)[: self.fmt.keep_places] if winner else defenders
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
                Matches(f"cycle {self.cycle} olympic semi-final", snake(best, groups), 1)
            )
            self.notes.append(f"cycle {self.cycle}: the {len(best)} best: " + ", ".join(best))
        elif self.fmt.ladder_final:  # SER-CC4-4: from the 9th place up
            self.ladder = ranked
            self.notes.append("the lodge by winnings: " + ", ".join(ranked))
            self.knockout.append(Matches("ladder final", [ranked[-self.fmt.per_game :]], 1))
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
                self.knockout.append(Matches(f"cycle {self.cycle} olympic final", [winners], 1))
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
                self.knockout.append(Matches("final", [seats], self.fmt.final_games))
            else:
                self.knockout.append(Matches("ladder final", [seats], 1))
            self.climb -= 1
            return
        champion = placed[0][0]
        self.over = f"{champion} wins the main prize (final of {self.fmt.final_games} games)"
        self.table[champion].prize = "the main prize"
