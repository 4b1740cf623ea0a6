"""The tournament's database: one SQLite file per tournament (issue 8, item 3).

All I/O of a tournament lives here; the rules stay in the pure modules of
this package. The file is SQLite in WAL mode with ``synchronous=FULL``, as
the game journal is (``buzzer.journal.store``), and every change runs in one
``BEGIN IMMEDIATE`` transaction, so a power cut leaves either the whole
registration, draw or result on disk, or none of it.

Tables: ``meta`` (cutoff date), ``teams``, ``players`` (with the age group
fixed at registration, TOUR-1.2), ``stages`` (one draw of one age group,
with its seed so that it can be re-run), ``games``, ``seats`` (the drawn
players in seat order) and ``results`` (each seat's final score and place).
"""

from __future__ import annotations

import datetime
import json
import random
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from rules.tournament.advancement import GameResult, advance
from rules.tournament.draw import Entrant, draw_games
from rules.tournament.registration import (
    DEFAULT_CUTOFF,
    AgeGroup,
    Player,
    RegistrationError,
    age_group,
    register,
)
from rules.tournament.stages import (
    FINAL_SLOTS,
    THIRD_FINAL_SLOTS,
    CommitteeDecision,
    plan_first_stage,
    plan_games,
)
from rules.tournament.team_points import TeamStanding, game_team_points, team_standings

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE teams (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE players (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    birth_date TEXT NOT NULL,
    city       TEXT NOT NULL DEFAULT '',
    team_id    INTEGER REFERENCES teams(id),
    age_group  TEXT NOT NULL CHECK (age_group IN ('junior', 'senior'))
);
CREATE TABLE stages (
    id        INTEGER PRIMARY KEY,
    age_group TEXT NOT NULL CHECK (age_group IN ('junior', 'senior')),
    number    INTEGER NOT NULL,
    seed      INTEGER NOT NULL,
    UNIQUE (age_group, number)
);
CREATE TABLE games (
    id       INTEGER PRIMARY KEY,
    stage_id INTEGER NOT NULL REFERENCES stages(id),
    size     INTEGER NOT NULL CHECK (size IN (3, 4)),
    winner   INTEGER REFERENCES players(id),
    recorded TEXT
);
CREATE TABLE seats (
    game_id   INTEGER NOT NULL REFERENCES games(id),
    seat      INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (game_id, seat),
    UNIQUE (game_id, player_id)
);
CREATE TABLE results (
    game_id   INTEGER NOT NULL,
    seat      INTEGER NOT NULL,
    score     INTEGER NOT NULL,
    place     INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat),
    FOREIGN KEY (game_id, seat) REFERENCES seats(game_id, seat)
);
"""


class TournamentError(Exception):
    """A request the tournament cannot carry out; the message says what to do."""


@dataclass(frozen=True, slots=True)
class DrawnGame:
    id: int
    stage: int
    age_group: AgeGroup
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat of a recorded game."""

    game_id: int
    stage: int
    age_group: AgeGroup
    seat: int
    name: str
    team: str | None
    score: int
    place: int
    winner: bool
    team_points: Fraction


@dataclass(frozen=True, slots=True)
class PlayerStanding:
    """One line of an age group's individual table."""

    rank: int
    name: str
    age_group: AgeGroup
    team: str | None
    #: The last stage the player was drawn into (1 = the first stage).
    stage: int
    games: int
    #: Place in the last recorded game (None until a game of theirs is recorded).
    last_place: int | None
    points: int


class TournamentStore:
    """One tournament's SQLite file."""

    def __init__(
        self, path: str | Path, *, create: bool = False, cutoff: datetime.date | None = None
    ) -> None:
        self.path = Path(path)
        if create and self.path.exists():
            raise TournamentError(f"{self.path} already exists; choose another file name")
        if not create and not self.path.is_file():
            raise TournamentError(
                f"no such tournament database: {self.path} "
                f"(create it with `svoyak tournament new {self.path}`)"
            )
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            if create:
                with self.transaction():
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            self._db.execute(statement)
                    self._db.executemany(
                        "INSERT INTO meta (key, value) VALUES (?, ?)",
                        [
                            ("schema", str(SCHEMA_VERSION)),
                            ("cutoff", (cutoff or DEFAULT_CUTOFF).isoformat()),
                        ],
                    )
            row = self._db.execute("SELECT value FROM meta WHERE key = 'cutoff'").fetchone()
        except sqlite3.DatabaseError as exc:
            if hasattr(self, "_db"):
                self._db.close()
            raise TournamentError(
                f"{self.path} is not a svoyak tournament database: {exc}"
            ) from None
        if row is None:
            self._db.close()
            raise TournamentError(f"{self.path} is not a svoyak tournament database (no cutoff)")
        self.cutoff = datetime.date.fromisoformat(str(row[0]))

    @classmethod
    def create(cls, path: str | Path, cutoff: datetime.date | None = None) -> TournamentStore:
        return cls(path, create=True, cutoff=cutoff)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TournamentStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Every change: all of it committed, or none of it."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # Registration ---------------------------------------------------------

    def players(self) -> tuple[Player, ...]:
        rows = self._db.execute(
            "SELECT p.name, p.birth_date, p.city, t.name FROM players p "
            "LEFT JOIN teams t ON t.id = p.team_id ORDER BY p.id"
        )
        return tuple(
            Player(name=n, birth_date=datetime.date.fromisoformat(b), city=c, team=t)
            for n, b, c, t in rows
        )

    def register(self, player: Player) -> AgeGroup:
        """Add one player (TOUR-1.2 eligibility, unique names); returns the age group."""
        if not player.name.strip():
            raise TournamentError("a player needs a name")
        if self._db.execute("SELECT 1 FROM stages").fetchone() is not None:
            raise TournamentError("registration is closed: the first stage is already drawn")
        try:
            register([*self.players(), player], self.cutoff)
        except RegistrationError as exc:
            raise TournamentError(
                f"cannot register: {exc}; tell the players apart, e.g. add the city to the name"
                if "twice" in str(exc)
                else f"cannot register: {exc}"
            ) from None
        group = age_group(player.birth_date, self.cutoff)
        assert group is not None
        with self.transaction() as db:
            team_id = None
            if player.team is not None:
                db.execute("INSERT OR IGNORE INTO teams (name) VALUES (?)", (player.team,))
                team_id = db.execute(
                    "SELECT id FROM teams WHERE name = ?", (player.team,)
                ).fetchone()[0]
            db.execute(
                "INSERT INTO players (name, birth_date, city, team_id, age_group) "
                "VALUES (?, ?, ?, ?, ?)",
                (player.name, player.birth_date.isoformat(), player.city, team_id, group.value),
            )
        return group

    # Draw -----------------------------------------------------------------

    def games(self) -> tuple[DrawnGame, ...]:
        rows = self._db.execute(
            "SELECT g.id, s.number, s.age_group, p.name FROM games g "
            "JOIN stages s ON s.id = g.stage_id JOIN seats x ON x.game_id = g.id "
            "JOIN players p ON p.id = x.player_id ORDER BY g.id, x.seat"
        ).fetchall()
        games: dict[int, tuple[int, AgeGroup, list[str]]] = {}
        for game_id, stage, group, name in rows:
            games.setdefault(game_id, (stage, AgeGroup(group), []))[2].append(name)
        return tuple(
            DrawnGame(id=g, stage=s, age_group=a, players=tuple(p))
            for g, (s, a, p) in games.items()
        )

    def draw_next(
        self, seed: int | None = None, through: Sequence[str] = ()
    ) -> tuple[DrawnGame, ...]:
        """Plan and draw the next stage of every age group that is ready for one.

        The first stage takes everyone registered in the group (TOUR-1.6,
        TOUR-3.1.2); a later stage takes whoever TOUR-3.2 advances from the
        previous one, once all its games are recorded. ``through`` names the
        winners of a shootout at the cut (TOUR-3.2 key 3).
        """
        players = self.players()
        if not players:
            raise TournamentError("nobody is registered yet: use `svoyak tournament register`")
        registry = register(players, self.cutoff)
        team_of = {p.name: p.team for p in players}
        seed = random.SystemRandom().randrange(2**31) if seed is None else seed
        rng = random.Random(seed)
        plans: list[tuple[AgeGroup, int, list[str], tuple[int, ...]]] = []
        reasons: list[str] = []
        for group in AgeGroup:
            members = [p.name for p in registry.group(group)]
            if not members:
                continue
            last = self._db.execute(
                "SELECT id, number FROM stages WHERE age_group = ? ORDER BY number DESC LIMIT 1",
                (group.value,),
            ).fetchone()
            try:
                if last is None:
                    plan = plan_first_stage(len(members))
                    if plan.qualifier:
                        raise CommitteeDecision(
                            f"{len(members)} players need a written qualifier first (TOUR-2.9), "
                            "which this command does not run yet"
                        )
                    plans.append((group, 1, members, plan.sizes()))
                    continue
                entrants = self._advancing(group, last[0], through)
                if not entrants:
                    reasons.append(f"{group.value}: the final has been played")
                    continue
                plans.append((group, last[1] + 1, entrants, plan_games(len(entrants)).sizes()))
            except CommitteeDecision as exc:
                raise TournamentError(f"{group.value}: {exc}") from None
            except _NotReady as exc:
                reasons.append(f"{group.value}: {exc}")
        if not plans:
            raise TournamentError("nothing to draw: " + "; ".join(reasons))
        drawn: list[DrawnGame] = []
        with self.transaction() as db:
            for group, number, names, sizes in plans:
                draw = draw_games([Entrant(n, team_of[n]) for n in names], sizes, rng)
                stage_id = db.execute(
                    "INSERT INTO stages (age_group, number, seed) VALUES (?, ?, ?)",
                    (group.value, number, seed),
                ).lastrowid
                for game in draw.games:
                    game_id = db.execute(
                        "INSERT INTO games (stage_id, size) VALUES (?, ?)", (stage_id, len(game))
                    ).lastrowid
                    assert game_id is not None
                    for seat, name in enumerate(game, start=1):
                        db.execute(
                            "INSERT INTO seats (game_id, seat, player_id) "
                            "SELECT ?, ?, id FROM players WHERE name = ?",
                            (game_id, seat, name),
                        )
                    drawn.append(DrawnGame(id=game_id, stage=number, age_group=group, players=game))
        return tuple(drawn)

    def _advancing(self, group: AgeGroup, stage_id: int, through: Sequence[str]) -> list[str]:
        ids = [
            r[0] for r in self._db.execute("SELECT id FROM games WHERE stage_id = ?", (stage_id,))
        ]
        results = [self._game_result(g) for g in ids]
        missing = [g for g, r in zip(ids, results, strict=True) if r is None]
        if missing:
            raise _NotReady(
                "waiting for the results of game(s) "
                + ", ".join(map(str, missing))
                + " (use `svoyak tournament result`)"
            )
        if len(ids) == 1:
            return []
        slots = THIRD_FINAL_SLOTS if len(ids) > FINAL_SLOTS else FINAL_SLOTS
        outcome = advance([r for r in results if r is not None], slots)
        if outcome.complete:
            return list(outcome.advancing)
        chosen = [n for n in through if n in outcome.shootout]
        if len(chosen) != outcome.shootout_slots:
            raise CommitteeDecision(
                f"{', '.join(outcome.shootout)} are tied for {outcome.shootout_slots} slot(s): "
                f"play a one-theme shootout (TOUR-3.2) and pass its winner(s) with --through NAME"
            )
        return list(outcome.advancing) + chosen

    def _game_result(self, game_id: int) -> GameResult | None:
        row = self._db.execute(
            "SELECT g.recorded, p.name FROM games g LEFT JOIN players p ON p.id = g.winner "
            "WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        if row is None or row[0] is None:
            return None
        scores = dict(
            self._db.execute(
                "SELECT p.name, r.score FROM results r JOIN seats x USING (game_id, seat) "
                "JOIN players p ON p.id = x.player_id WHERE r.game_id = ? ORDER BY r.seat",
                (game_id,),
            ).fetchall()
        )
        return GameResult(scores=scores, winner=row[1])

    # Results --------------------------------------------------------------

    def record(self, game_id: int, scores: Sequence[int], winner_seat: int | None) -> None:
        """Store one finished game: ``scores`` in seat order, the winner's seat (or None)."""
        row = self._db.execute("SELECT recorded FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            known = ", ".join(str(g.id) for g in self.games()) or "none drawn yet"
            raise TournamentError(f"there is no game {game_id} (games: {known})")
        if row[0] is not None:
            raise TournamentError(f"game {game_id} is already recorded (on {row[0]})")
        seats = self._db.execute(
            "SELECT x.seat, p.id, p.name FROM seats x JOIN players p ON p.id = x.player_id "
            "WHERE x.game_id = ? ORDER BY x.seat",
            (game_id,),
        ).fetchall()
        if len(scores) != len(seats):
            raise TournamentError(
                f"game {game_id} was drawn for {len(seats)} players but the journal has "
                f"{len(scores)} seats; is it the right journal?"
            )
        if winner_seat is not None and not 1 <= winner_seat <= len(seats):
            raise TournamentError(f"the journal's winner seat {winner_seat} does not exist")
        names = [s[2] for s in seats]
        winner = None if winner_seat is None else names[winner_seat - 1]
        places = GameResult(scores=dict(zip(names, scores, strict=True)), winner=winner).places()
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        with self.transaction() as db:
            for (seat, _, name), score in zip(seats, scores, strict=True):
                db.execute(
                    "INSERT INTO results (game_id, seat, score, place) VALUES (?, ?, ?, ?)",
                    (game_id, seat, score, places[name]),
                )
            db.execute(
                "UPDATE games SET recorded = ?, winner = ? WHERE id = ?",
                (now, None if winner_seat is None else seats[winner_seat - 1][1], game_id),
            )

    def seat_results(self) -> tuple[SeatResult, ...]:
        rows = self._db.execute(
            "SELECT g.id, s.number, s.age_group, r.seat, p.name, t.name, r.score, r.place, "
            "g.winner = p.id FROM results r JOIN games g ON g.id = r.game_id "
            "JOIN stages s ON s.id = g.stage_id JOIN seats x USING (game_id, seat) "
            "JOIN players p ON p.id = x.player_id LEFT JOIN teams t ON t.id = p.team_id "
            "ORDER BY g.id, r.seat"
        ).fetchall()
        by_game: dict[int, dict[str, int]] = {}
        for row in rows:
            by_game.setdefault(row[0], {})[row[4]] = row[6]
        points = {g: game_team_points(s) for g, s in by_game.items()}
        return tuple(
            SeatResult(
                game_id=g,
                stage=st,
                age_group=AgeGroup(ag),
                seat=seat,
                name=name,
                team=team,
                score=score,
                place=place,
                winner=bool(won),
                team_points=points[g][name],
            )
            for g, st, ag, seat, name, team, score, place, won in rows
        )

    # Standings ------------------------------------------------------------

    def individual_standings(self) -> tuple[PlayerStanding, ...]:
        """Per age group: furthest stage, then place in the last game, then points."""
        players = self.players()
        registry = register(players, self.cutoff)
        stage_of: dict[str, int] = {}
        for game in self.games():
            for name in game.players:
                stage_of[name] = max(stage_of.get(name, 0), game.stage)
        played: dict[str, list[SeatResult]] = {}
        for result in self.seat_results():
            played.setdefault(result.name, []).append(result)
        table: list[PlayerStanding] = []
        for group in AgeGroup:
            rows = []
            for player in registry.group(group):
                mine = played.get(player.name, [])
                last = (
                    mine[-1].place if mine and mine[-1].stage == stage_of.get(player.name) else None
                )
                rows.append(
                    (
                        stage_of.get(player.name, 0),
                        last,
                        sum(r.score for r in mine),
                        player,
                        len(mine),
                    )
                )
            rows.sort(key=lambda r: (-r[0], r[1] if r[1] is not None else 99, -r[2], r[3].name))
            for index, (stage, last, total, player, count) in enumerate(rows, start=1):
                table.append(
                    PlayerStanding(
                        rank=index,
                        name=player.name,
                        age_group=group,
                        team=player.team,
                        stage=stage,
                        games=count,
                        last_place=last,
                        points=total,
                    )
                )
        return tuple(table)

    def team_standings(self) -> tuple[TeamStanding, ...]:
        """TOUR-3.3–3.6 over every recorded game; divisor: the team's players who played."""
        registry = register(self.players(), self.cutoff)
        by_game: dict[int, dict[str, int]] = {}
        for result in self.seat_results():
            by_game.setdefault(result.game_id, {})[result.name] = result.score
        participants = {n for g in self.games() for n in g.players}
        return team_standings(by_game.values(), registry.ranked_teams(), participants)


class _NotReady(Exception):
    """A stage still has games without results."""


def final_result(journal_lines: Iterable[str]) -> tuple[list[int], int | None]:
    """Replay a journal; its seats' final scores in seat order and the winner's seat.

    Refuses a journal whose game is not over: its scores are not a result.
    """
    from buzzer.journal.codec import JournalError
    from buzzer.replay import replay_lines

    try:
        output = replay_lines(list(journal_lines))
    except JournalError as exc:
        raise TournamentError(f"the journal cannot be replayed: {exc}") from None
    result = json.loads(output[-1])
    if "winner" not in result:
        raise TournamentError(
            "the journal's game is not over yet (no game_over in the replay): "
            "finish the game, then export its journal again"
        )
    scores: Mapping[str, int] = result["scores"]
    ordered = [int(scores[k]) for k in sorted(scores, key=int)]
    winner = result["winner"]
    return ordered, None if winner is None else int(winner)


def record_game_result(store: TournamentStore, game_id: int, journal_lines: Iterable[str]) -> None:
    """Take a finished game's result from its journal (JOURNAL.md) into the tournament.

    Seat ``k`` of the journal is the ``k``-th player drawn into the game.
    """
    scores, winner = final_result(journal_lines)
    store.record(game_id, scores, winner)
