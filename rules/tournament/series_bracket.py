"""The bracket of a series: stages of matches drawn by lot, the best of each go on (SER-JUB),
folded by :func:`rules.tournament.series_play.play_series`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from rules.tournament.series import BracketStage, SeriesFormat
from rules.tournament.series_events import Event, NextGame, Pick, Played, SeriesError
from rules.tournament.series_run import Matches, Run


class Bracket(Run):
    """SER-JUB: stages of matches drawn by lot; the best of each match go on."""

    def __init__(self, fmt: SeriesFormat, entrants: Sequence[str], seed: int) -> None:
        super().__init__(fmt, seed)
        for name in entrants:
            self.enter(name, "in")
        self.field = list(entrants)
        self.stage_no = 0
        self.stage: Matches | None = None
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
        self.stage = Matches(spec.name, tables, spec.games)
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
