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
Added in place on open: ``stages.kind`` (``'stage'`` or ``'superfinal'``),
``draws`` (the journal of every lot, qualifier ranking and shootout, with
its seed, input and outcome), ``qualifier`` (Blue and Red written points,
TOUR-2.9), ``overrides`` (TOUR-1.9, with the committee's reason),
``game_rooms`` (which room plays which game: only that room may report it)
and ``room_reports`` (which room reported which game, written in the
result's own transaction).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import random
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any

from buzzer.errors import SvoyakError
from rules.tournament.advancement import GameResult, advance
from rules.tournament.draw import Entrant, draw_games
from rules.tournament.qualifier import QualifierScore, rank_qualifier
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
from rules.tournament.superfinal import FinalOutcome, superfinal
from rules.tournament.team_points import (
    TeamStanding,
    game_team_points,
    place_points,
    team_standings,
)

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


#: Added to every database on open (schema 1 files gain them in place).
_EXTRA = """
CREATE TABLE IF NOT EXISTS draws (
    id        INTEGER PRIMARY KEY,
    stage_id  INTEGER REFERENCES stages(id),
    kind      TEXT NOT NULL,
    age_group TEXT,
    stage     INTEGER,
    seed      INTEGER,
    input     TEXT NOT NULL,
    outcome   TEXT NOT NULL,
    at        TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS qualifier (
    player_id INTEGER PRIMARY KEY REFERENCES players(id),
    blue      INTEGER NOT NULL,
    red       INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS overrides (
    id      INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    before  TEXT NOT NULL,
    after   TEXT NOT NULL,
    reason  TEXT NOT NULL,
    at      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS game_rooms (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    room    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS room_reports (
    game_id  INTEGER PRIMARY KEY,
    room     TEXT NOT NULL,
    received TEXT NOT NULL
)
"""

#: The tables ``_EXTRA`` adds.
_EXTRA_TABLES = frozenset({"draws", "qualifier", "overrides", "game_rooms", "room_reports"})

#: A room's name: what ``svoyak tournament-server token`` and the rooms' URLs use.
ROOM_PATTERN = re.compile(r"^[\w][\w.-]{0,63}$")


def valid_room(room: str) -> bool:
    return ROOM_PATTERN.fullmatch(room) is not None


def _check_room(room: str) -> str:
    if not valid_room(room):
        raise TournamentError(
            f"bad room name {room!r}: use letters, digits, '.', '-' or '_' (up to 64)"
        )
    return room


#: ``stages.number`` of the superfinal (TOUR-1.7); its row has ``kind = 'superfinal'``.
SUPERFINAL_NUMBER = 0


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def draw_rng(seed: int, kind: str, group: str | None, number: int | None) -> random.Random:
    """The lot of one journaled draw: its own stream, so each entry replays alone."""
    return random.Random(f"{seed}:{kind}:{group}:{number}")


@dataclass(frozen=True, slots=True)
class DrawRecord:
    """One journaled draw or tie-break (``svoyak tournament draws``)."""

    id: int
    kind: str
    age_group: str | None
    stage: int | None
    seed: int | None
    input: Mapping[str, Any]
    outcome: Mapping[str, Any]
    at: str


@dataclass(frozen=True, slots=True)
class OverrideRecord:
    """One manual override of a result (TOUR-1.9)."""

    id: int
    game_id: int
    before: Mapping[str, Any]
    after: Mapping[str, Any]
    reason: str
    at: str


@dataclass(frozen=True, slots=True)
class _Recorded(GameResult):
    """A recorded game whose places come from the database (they may be overridden)."""

    fixed: Mapping[str, int] = dataclasses.field(default_factory=dict)

    def places(self) -> Mapping[str, int]:
        if self.fixed:
            return MappingProxyType(dict(self.fixed))
        return GameResult.places(self)


class TournamentError(SvoyakError):
    """A request the tournament cannot carry out; the message says what to do."""


class UnknownGame(TournamentError):
    """No such game in the tournament."""


class AlreadyRecorded(TournamentError):
    """The game already has its result."""


class WrongRoom(TournamentError):
    """The game is not drawn to the room that reports it."""


@dataclass(frozen=True, slots=True)
class DrawnGame:
    id: int
    stage: int
    age_group: AgeGroup
    players: tuple[str, ...]
    #: TOUR-1.7: the superfinal (both age groups; ``age_group`` is nominal).
    superfinal: bool = False
    #: The room the game is drawn to (only that room's token may report it).
    room: str | None = None


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
    superfinal: bool = False
    #: The committee's reason when it overrode this game's places (TOUR-1.9), else None.
    override: str | None = None


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
            if row is not None:
                self._migrate()
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

    def _migrate(self) -> None:
        """Add the journal, qualifier and override tables and ``stages.kind`` if missing."""
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(stages)")}
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master")}
        if "kind" in columns and tables >= _EXTRA_TABLES:
            return
        with self.transaction() as db:
            if "kind" not in columns:
                db.execute("ALTER TABLE stages ADD COLUMN kind TEXT NOT NULL DEFAULT 'stage'")
            for statement in _EXTRA.split(";"):
                if statement.strip():
                    db.execute(statement)

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
            "SELECT g.id, s.number, s.age_group, s.kind, r.room, p.name FROM games g "
            "JOIN stages s ON s.id = g.stage_id JOIN seats x ON x.game_id = g.id "
            "JOIN players p ON p.id = x.player_id LEFT JOIN game_rooms r ON r.game_id = g.id "
            "ORDER BY g.id, x.seat"
        ).fetchall()
        Entry = tuple[int, AgeGroup, bool, str | None, list[str]]
        games: dict[int, Entry] = {}
        for game_id, stage, group, kind, room, name in rows:
            entry: Entry = (stage, AgeGroup(group), kind == "superfinal", room, [])
            games.setdefault(game_id, entry)[4].append(name)
        return tuple(
            DrawnGame(id=g, stage=s, age_group=a, players=tuple(p), superfinal=sf, room=r)
            for g, (s, a, sf, r, p) in games.items()
        )

    def assign_room(self, game_id: int, room: str) -> None:
        """Draw game ``game_id`` to ``room`` (or move it there): only that room may report it."""
        _check_room(room)
        with self.transaction() as db:
            row = db.execute("SELECT recorded FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise UnknownGame(f"there is no game {game_id}")
            if row[0] is not None:
                raise AlreadyRecorded(f"game {game_id} is already recorded (on {row[0]})")
            db.execute(
                "INSERT INTO game_rooms (game_id, room) VALUES (?, ?) "
                "ON CONFLICT (game_id) DO UPDATE SET room = excluded.room",
                (game_id, room),
            )

    # Written qualifier (TOUR-2.9) -----------------------------------------

    def record_qualifier(self, rows: Sequence[tuple[str, int, int]]) -> int:
        """Store each player's (name, Blue points, Red points); a new row replaces an old one.

        Refused for a player whose age group's first stage is already drawn.
        """
        ids = {
            name: (pid, group)
            for pid, name, group in self._db.execute("SELECT id, name, age_group FROM players")
        }
        drawn = {r[0] for r in self._db.execute("SELECT DISTINCT age_group FROM stages")}
        seen: set[str] = set()
        for name, _, _ in rows:
            if name not in ids:
                raise TournamentError(f"{name!r} is not registered (check the spelling)")
            if name in seen:
                raise TournamentError(f"{name!r} has two qualifier rows")
            seen.add(name)
            if ids[name][1] in drawn:
                raise TournamentError(
                    f"{name!r}: the {ids[name][1]} 1/9 final is already drawn; "
                    "the qualifier can no longer change"
                )
        with self.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO qualifier (player_id, blue, red) VALUES (?, ?, ?)",
                [(ids[n][0], blue, red) for n, blue, red in rows],
            )
        return len(rows)

    def qualifier_scores(self) -> dict[str, QualifierScore]:
        return {
            name: QualifierScore(name, blue, red)
            for name, blue, red in self._db.execute(
                "SELECT p.name, q.blue, q.red FROM qualifier q JOIN players p ON p.id = q.player_id"
            )
        }

    # Draw -----------------------------------------------------------------

    def draw_next(
        self,
        seed: int | None = None,
        through: Sequence[str] = (),
        rooms: Sequence[str] = (),
        committee: Sequence[str] = (),
        reason: str | None = None,
    ) -> tuple[DrawnGame, ...]:
        """Plan and draw the next stage of every age group that is ready for one.

        The first stage takes everyone registered in the group (TOUR-1.6,
        TOUR-3.1.2), or, with more than 36, those the written qualifier
        advances (TOUR-2.9); a later stage takes whoever TOUR-3.2 advances
        from the previous one, once all its games are recorded. ``through``
        names the winners of a shootout at the cut (TOUR-3.2 key 3) or of a
        runner-up shootout (TOUR-1.7). Once both finals are recorded the
        superfinal is composed (TOUR-1.7). Every draw, qualifier ranking and
        shootout is journaled with its seed (``draws()``). ``rooms``: the
        drawn games go to these rooms in turn (the first game to the first
        room …), in the same transaction; only a game's room may report it.
        ``committee``: players the organising committee seats in the
        superfinal, with its ``reason`` (TOUR-1.7, TOUR-1.9): a seat nobody
        qualified for, or a fourth seat; journaled like every draw.
        """
        if committee and not (reason or "").strip():
            raise TournamentError(
                "--committee needs --reason: the committee's decision is journaled with it "
                "(TOUR-1.9)"
            )
        for room in rooms:
            _check_room(room)
        players = self.players()
        if not players:
            raise TournamentError("nobody is registered yet: use `svoyak tournament register`")
        registry = register(players, self.cutoff)
        team_of = {p.name: p.team for p in players}
        seed = random.SystemRandom().randrange(2**31) if seed is None else seed
        plans: list[tuple[AgeGroup, int, list[str], tuple[int, ...]]] = []
        notes: list[tuple[str, str | None, int | None, dict[str, Any], dict[str, Any]]] = []
        reasons: list[str] = []
        finals: dict[AgeGroup, FinalOutcome] = {}
        for group in AgeGroup:
            members = [p.name for p in registry.group(group)]
            if not members:
                continue
            last = self._last_stage(group)
            try:
                if last is None:
                    plan = plan_first_stage(len(members))
                    if plan.qualifier:
                        members = self._qualified(group, members, notes)
                        plan = plan_games(len(members))
                    plans.append((group, 1, members, plan.sizes()))
                    continue
                entrants = self._advancing(group, last[0], last[1], through, notes)
                if entrants is None:
                    finals[group] = self._final_outcome(last[0])
                    reasons.append(f"{group.value}: the final has been played")
                    continue
                plans.append((group, last[1] + 1, entrants, plan_games(len(entrants)).sizes()))
            except CommitteeDecision as exc:
                raise TournamentError(f"{group.value}: {exc}") from None
            except _NotReady as exc:
                reasons.append(f"{group.value}: {exc}")
        super_players: list[str] = []
        if committee and (plans or len(finals) != len(AgeGroup)):
            raise TournamentError(
                "--committee seats players in the superfinal only: both finals must be "
                "recorded and nothing else left to draw"
            )
        if not plans and len(finals) == len(AgeGroup):
            super_players = self._superfinal_players(
                finals, through, notes, reasons, committee, (reason or "").strip()
            )
        if not plans and not super_players:
            raise TournamentError("nothing to draw: " + "; ".join(reasons))
        drawn: list[DrawnGame] = []
        with self.transaction() as db:
            for kind, group_name, number, data, outcome in notes:
                self._journal(db, kind, None, group_name, number, seed, data, outcome)
            for group, number, names, sizes in plans:
                lot = [Entrant(n, team_of[n]) for n in names]
                draw = draw_games(lot, sizes, draw_rng(seed, "stage", group.value, number))
                stage_id = self._insert_stage(db, group.value, number, seed, "stage")
                self._journal(
                    db,
                    "stage",
                    stage_id,
                    group.value,
                    number,
                    seed,
                    {"entrants": [[e.name, e.team] for e in lot], "sizes": list(sizes)},
                    {"games": [list(g) for g in draw.games]},
                )
                for game in draw.games:
                    game_id = self._insert_game(db, stage_id, game)
                    drawn.append(DrawnGame(id=game_id, stage=number, age_group=group, players=game))
            if super_players:
                seats = list(super_players)
                draw_rng(seed, "superfinal", None, SUPERFINAL_NUMBER).shuffle(seats)
                stage_id = self._insert_stage(
                    db, AgeGroup.SENIOR.value, SUPERFINAL_NUMBER, seed, "superfinal"
                )
                self._journal(
                    db,
                    "superfinal",
                    stage_id,
                    None,
                    SUPERFINAL_NUMBER,
                    seed,
                    {"players": super_players},
                    {"games": [seats]},
                )
                game_id = self._insert_game(db, stage_id, tuple(seats))
                drawn.append(
                    DrawnGame(
                        id=game_id,
                        stage=SUPERFINAL_NUMBER,
                        age_group=AgeGroup.SENIOR,
                        players=tuple(seats),
                        superfinal=True,
                    )
                )
            if rooms:
                drawn = [
                    dataclasses.replace(game, room=rooms[i % len(rooms)])
                    for i, game in enumerate(drawn)
                ]
                db.executemany(
                    "INSERT INTO game_rooms (game_id, room) VALUES (?, ?)",
                    [(game.id, game.room) for game in drawn],
                )
        return tuple(drawn)

    @staticmethod
    def _insert_stage(db: sqlite3.Connection, group: str, number: int, seed: int, kind: str) -> int:
        stage_id = db.execute(
            "INSERT INTO stages (age_group, number, seed, kind) VALUES (?, ?, ?, ?)",
            (group, number, seed, kind),
        ).lastrowid
        assert stage_id is not None
        return stage_id

    @staticmethod
    def _insert_game(db: sqlite3.Connection, stage_id: int, game: Sequence[str]) -> int:
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
        return game_id

    @staticmethod
    def _journal(
        db: sqlite3.Connection,
        kind: str,
        stage_id: int | None,
        group: str | None,
        number: int | None,
        seed: int | None,
        data: Mapping[str, Any],
        outcome: Mapping[str, Any],
    ) -> None:
        db.execute(
            "INSERT INTO draws (stage_id, kind, age_group, stage, seed, input, outcome, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                stage_id,
                kind,
                group,
                number,
                seed,
                json.dumps(data, ensure_ascii=False),
                json.dumps(outcome, ensure_ascii=False),
                _now(),
            ),
        )

    def _qualified(
        self,
        group: AgeGroup,
        members: list[str],
        notes: list[tuple[str, str | None, int | None, dict[str, Any], dict[str, Any]]],
    ) -> list[str]:
        """TOUR-2.9: rank the written qualifier; everyone tied at the cut advances."""
        scores = self.qualifier_scores()
        missing = [n for n in members if n not in scores]
        if missing:
            raise CommitteeDecision(
                f"{len(members)} players need a written qualifier first (TOUR-2.9); "
                f"no result for {', '.join(missing[:5])}"
                + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
                + " (record it with `svoyak tournament qualifier DB RESULTS.csv`)"
            )
        outcome = rank_qualifier(scores[n] for n in members)
        notes.append(
            (
                "qualifier",
                group.value,
                0,
                {"scores": [[n, scores[n].blue, scores[n].red] for n in members]},
                {
                    "table": [
                        [r.place, r.score.name, r.score.total, r.score.blue, r.advances]
                        for r in outcome.table
                    ]
                },
            )
        )
        return list(outcome.advancing)

    def _advancing(
        self,
        group: AgeGroup,
        stage_id: int,
        number: int,
        through: Sequence[str],
        notes: list[tuple[str, str | None, int | None, dict[str, Any], dict[str, Any]]],
    ) -> list[str] | None:
        """Who plays the next stage; None once the final is recorded."""
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
            return None
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
        notes.append(
            (
                "shootout",
                group.value,
                number,
                {"tied": list(outcome.shootout), "slots": outcome.shootout_slots},
                {"through": chosen},
            )
        )
        return list(outcome.advancing) + chosen

    def champions(self) -> dict[AgeGroup, str | None]:
        """Each age group whose final is recorded: its champion, or None (no title).

        The final is a stage of one game (TOUR-1.6; a field of 3 or 4 plays it
        at once). C2003-2.6b/c: a final nobody finished above zero has no
        winner, and then the title is not awarded; TOUR-1.7 leaves that seat
        of the superfinal to the committee.
        """
        found: dict[AgeGroup, str | None] = {}
        for group in AgeGroup:
            last = self._last_stage(group)
            if last is None:
                continue
            games = self._db.execute(
                "SELECT id FROM games WHERE stage_id = ?", (last[0],)
            ).fetchall()
            if len(games) != 1 or self._game_result(games[0][0]) is None:
                continue
            found[group] = self._final_outcome(last[0]).champion
        return found

    def _last_stage(self, group: AgeGroup) -> tuple[int, int] | None:
        """The (id, number) of ``group``'s latest stage, or None before its first draw."""
        row = self._db.execute(
            "SELECT id, number FROM stages WHERE age_group = ? AND kind = 'stage' "
            "ORDER BY number DESC LIMIT 1",
            (group.value,),
        ).fetchone()
        return None if row is None else (int(row[0]), int(row[1]))

    def _final_outcome(self, stage_id: int) -> FinalOutcome:
        (game_id,) = self._db.execute(
            "SELECT id FROM games WHERE stage_id = ?", (stage_id,)
        ).fetchone()
        result = self._game_result(game_id)
        assert result is not None
        return FinalOutcome(scores=dict(result.scores), champion=result.winner)

    def _superfinal_players(
        self,
        finals: Mapping[AgeGroup, FinalOutcome],
        through: Sequence[str],
        notes: list[tuple[str, str | None, int | None, dict[str, Any], dict[str, Any]]],
        reasons: list[str],
        committee: Sequence[str] = (),
        reason: str = "",
    ) -> list[str]:
        """TOUR-1.7 through the pure :func:`superfinal`; [] with a reason if not yet.

        The committee's players (``committee``) fill the seats nobody
        qualified for, or widen the superfinal to four (TOUR-1.7); never more.
        """
        if self._db.execute("SELECT 1 FROM stages WHERE kind = 'superfinal'").fetchone():
            reasons.append("the superfinal is already drawn")
            return []
        senior, junior = finals[AgeGroup.SENIOR], finals[AgeGroup.JUNIOR]
        composed = superfinal(senior, junior)
        if composed.shootout:
            chosen = [n for n in through if n in composed.shootout]
            if len(chosen) != 1:
                reasons.append(
                    f"superfinal: {', '.join(composed.shootout)} are level for the runner-up "
                    "seat: play a one-theme shootout (TOUR-1.7) and pass its winner with "
                    "--through NAME"
                )
                return []
            notes.append(
                (
                    "shootout",
                    None,
                    SUPERFINAL_NUMBER,
                    {"tied": list(composed.shootout)},
                    {"through": chosen},
                )
            )
            fixed = FinalOutcome(
                scores=senior.scores, champion=senior.champion, runner_up=chosen[0]
            )
            if chosen[0] in junior.scores:
                fixed = FinalOutcome(
                    scores=junior.scores, champion=junior.champion, runner_up=chosen[0]
                )
                composed = superfinal(senior, fixed)
            else:
                composed = superfinal(fixed, junior)
        players = list(composed.players)
        if committee:
            self._check_committee(committee, players)
            notes.append(
                (
                    "committee",
                    None,
                    SUPERFINAL_NUMBER,
                    {"qualified": list(players), "reason": reason},
                    {"added": list(committee)},
                )
            )
            players += committee
        missing = 3 - len(players)
        if missing > 0:
            reasons.append(
                f"superfinal: {missing} seat(s) nobody qualifies for "
                f"({', '.join(players) or 'no champions'}); the committee decides "
                "(TOUR-1.7, TOUR-1.9): `svoyak tournament draw --committee NAME --reason TEXT`"
            )
            return []
        return players

    def _check_committee(self, committee: Sequence[str], qualified: Sequence[str]) -> None:
        """The committee's superfinalists: registered, not seated already, four at most."""
        known = {p.name for p in self.players()}
        strangers = [n for n in committee if n not in known]
        if strangers:
            raise TournamentError(
                "--committee: " + ", ".join(repr(n) for n in strangers) + " not registered"
            )
        twice = [n for n in committee if n in qualified or list(committee).count(n) > 1]
        if twice:
            raise TournamentError(
                "--committee: " + ", ".join(sorted(set(twice))) + " already in the superfinal"
            )
        if len(qualified) + len(committee) > 4:
            raise TournamentError(
                f"--committee: the superfinal has {len(qualified)} qualified player(s) "
                f"({', '.join(qualified)}); the committee may widen it to four (TOUR-1.7), "
                "not beyond"
            )

    def draws(self) -> tuple[DrawRecord, ...]:
        """The draw journal, oldest first."""
        return tuple(
            DrawRecord(
                id=i,
                kind=k,
                age_group=g,
                stage=n,
                seed=s,
                input=json.loads(a),
                outcome=json.loads(o),
                at=t,
            )
            for i, k, g, n, s, a, o, t in self._db.execute(
                "SELECT id, kind, age_group, stage, seed, input, outcome, at FROM draws ORDER BY id"
            )
        )

    @staticmethod
    def reproduces(record: DrawRecord) -> bool | None:
        """Re-run a journaled lot from its seed: whether it gives the recorded outcome.

        None for entries that involve no lot (qualifier rankings, shootouts).
        """
        if record.seed is None or record.kind not in ("stage", "superfinal"):
            return None
        rng = draw_rng(record.seed, record.kind, record.age_group, record.stage)
        if record.kind == "stage":
            entrants = [Entrant(n, t) for n, t in record.input["entrants"]]
            games = [list(g) for g in draw_games(entrants, record.input["sizes"], rng).games]
        else:
            seats = list(record.input["players"])
            rng.shuffle(seats)
            games = [seats]
        return bool(games == record.outcome["games"])

    def _game_result(self, game_id: int) -> GameResult | None:
        row = self._db.execute(
            "SELECT g.recorded, p.name FROM games g LEFT JOIN players p ON p.id = g.winner "
            "WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        if row is None or row[0] is None:
            return None
        rows = self._db.execute(
            "SELECT p.name, r.score, r.place FROM results r JOIN seats x USING (game_id, seat) "
            "JOIN players p ON p.id = x.player_id WHERE r.game_id = ? ORDER BY r.seat",
            (game_id,),
        ).fetchall()
        return _Recorded(
            scores={n: s for n, s, _ in rows},
            winner=row[1],
            fixed={n: p for n, _, p in rows},
        )

    # Results --------------------------------------------------------------

    def check_recordable(self, game_id: int, room: str | None = None) -> None:
        """Whether ``game_id`` may be recorded (by ``room``'s report, if given).

        :class:`UnknownGame`, :class:`WrongRoom` (not drawn to that room) or
        :class:`AlreadyRecorded` if not.
        """
        row = self._db.execute("SELECT recorded FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            if room is not None:
                raise UnknownGame(f"there is no game {game_id} in this tournament")
            known = ", ".join(str(g.id) for g in self.games()) or "none drawn yet"
            raise UnknownGame(f"there is no game {game_id} (games: {known})")
        if room is not None:
            bound = self._db.execute(
                "SELECT room FROM game_rooms WHERE game_id = ?", (game_id,)
            ).fetchone()
            if bound is None:
                raise WrongRoom(
                    f"game {game_id} is not drawn to any room yet, so room {room!r} cannot "
                    f"report it: the organisers draw it to a room "
                    f"(`svoyak tournament-server assign DB {game_id} {room}`)"
                )
            if bound[0] != room:
                raise WrongRoom(
                    f"game {game_id} is drawn to another room, not {room!r}: "
                    "check the game's number on the draw"
                )
        if row[0] is not None:
            raise AlreadyRecorded(f"game {game_id} is already recorded (on {row[0]})")

    def record(
        self,
        game_id: int,
        scores: Sequence[int],
        winner_seat: int | None,
        *,
        room: str | None = None,
    ) -> None:
        """Store one finished game: ``scores`` in seat order, the winner's seat (or None).

        With ``room``: the game must be drawn to that room, and the room's
        report (``room_reports``) is written in the same transaction as the
        result: both are on disk, or neither.
        """
        self.check_recordable(game_id, room)
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
            # Checked again inside the write lock: a report racing another one
            # (or the committee moving the game to another room) loses here.
            self.check_recordable(game_id, room)
            for (seat, _, name), score in zip(seats, scores, strict=True):
                db.execute(
                    "INSERT INTO results (game_id, seat, score, place) VALUES (?, ?, ?, ?)",
                    (game_id, seat, score, places[name]),
                )
            db.execute(
                "UPDATE games SET recorded = ?, winner = ? WHERE id = ?",
                (now, None if winner_seat is None else seats[winner_seat - 1][1], game_id),
            )
            if room is not None:
                db.execute(
                    "INSERT OR REPLACE INTO room_reports (game_id, room, received) "
                    "VALUES (?, ?, ?)",
                    (game_id, room, now),
                )

    def override(self, game_id: int, places: Mapping[int, int], reason: str) -> OverrideRecord:
        """TOUR-1.9: the committee sets places of a recorded game, journaled with its reason.

        The winner becomes the one seat placed 1st (none if no seat or
        several are). Refused once the game's stage has fed a later draw.
        """
        if not reason.strip():
            raise TournamentError("an override needs --reason (TOUR-1.9: the committee's decision)")
        if not places:
            raise TournamentError("nothing to override: give --place SEAT=PLACE")
        row = self._db.execute(
            "SELECT g.recorded, g.size, s.age_group, s.number, s.kind, g.winner FROM games g "
            "JOIN stages s ON s.id = g.stage_id WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise TournamentError(f"there is no game {game_id}")
        recorded, size, group, number, kind, old_winner = row
        if recorded is None:
            raise TournamentError(f"game {game_id} has no result yet: record it first")
        later = self._db.execute(
            "SELECT 1 FROM stages WHERE (kind = 'stage' AND age_group = ? AND number > ?) "
            "OR (kind = 'superfinal' AND ? = 'stage')",
            (group, number, kind),
        ).fetchone()
        if later is not None and kind == "stage":
            final = (
                self._db.execute(
                    "SELECT COUNT(*) FROM games g JOIN stages s ON s.id = g.stage_id "
                    "WHERE s.age_group = ? AND s.number = ? AND s.kind = 'stage'",
                    (group, number),
                ).fetchone()[0]
                == 1
            )
            nexts = self._db.execute(
                "SELECT 1 FROM stages WHERE kind = 'stage' AND age_group = ? AND number > ?",
                (group, number),
            ).fetchone()
            if nexts is not None or final:
                raise TournamentError(
                    f"game {game_id}'s stage already fed the next draw; the override would "
                    "not change it"
                )
        for seat, place in places.items():
            if not 1 <= seat <= size:
                raise TournamentError(f"game {game_id} has no seat {seat} (seats 1–{size})")
            if not 1 <= place <= size:
                raise TournamentError(f"place {place} does not exist in a game of {size}")
        seats = self._db.execute(
            "SELECT r.seat, r.place, x.player_id FROM results r JOIN seats x USING (game_id, seat) "
            "WHERE r.game_id = ? ORDER BY r.seat",
            (game_id,),
        ).fetchall()
        before = {str(seat): place for seat, place, _ in seats}
        after = {**before, **{str(s): p for s, p in places.items()}}
        firsts = [s for s, p in after.items() if p == 1]
        player_of = {str(seat): pid for seat, _, pid in seats}
        new_winner = player_of[firsts[0]] if len(firsts) == 1 else None
        seat_of = {pid: seat for seat, _, pid in seats}
        old = {"places": before, "winner_seat": seat_of.get(old_winner)}
        new = {"places": after, "winner_seat": None if new_winner is None else seat_of[new_winner]}
        now = _now()
        with self.transaction() as db:
            for seat, place in places.items():
                db.execute(
                    "UPDATE results SET place = ? WHERE game_id = ? AND seat = ?",
                    (place, game_id, seat),
                )
            db.execute("UPDATE games SET winner = ? WHERE id = ?", (new_winner, game_id))
            override_id = db.execute(
                "INSERT INTO overrides (game_id, before, after, reason, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, json.dumps(old), json.dumps(new), reason.strip(), now),
            ).lastrowid
        assert override_id is not None
        return OverrideRecord(override_id, game_id, old, new, reason.strip(), now)

    def overrides(self) -> tuple[OverrideRecord, ...]:
        return tuple(
            OverrideRecord(i, g, json.loads(b), json.loads(a), r, t)
            for i, g, b, a, r, t in self._db.execute(
                "SELECT id, game_id, before, after, reason, at FROM overrides ORDER BY id"
            )
        )

    def seat_results(self) -> tuple[SeatResult, ...]:
        rows = self._db.execute(
            "SELECT g.id, s.number, s.age_group, r.seat, p.name, t.name, r.score, r.place, "
            "g.winner = p.id, s.kind = 'superfinal' "
            "FROM results r JOIN games g ON g.id = r.game_id "
            "JOIN stages s ON s.id = g.stage_id JOIN seats x USING (game_id, seat) "
            "JOIN players p ON p.id = x.player_id LEFT JOIN teams t ON t.id = p.team_id "
            "ORDER BY g.id, r.seat"
        ).fetchall()
        # Team points come from the scores (TOUR-3.5: a tie shares the places'
        # points, whatever a shootout decided); a game whose result the committee
        # overrode (TOUR-1.9) counts by the places it set.
        overridden = {
            g: reason
            for g, reason in self._db.execute(
                "SELECT game_id, reason FROM overrides ORDER BY id"
            )  # the latest override of a game gives its reason
        }
        scores: dict[int, dict[str, int]] = {}
        places: dict[int, dict[str, int]] = {}
        for row in rows:
            scores.setdefault(row[0], {})[row[4]] = row[6]
            places.setdefault(row[0], {})[row[4]] = row[7]
        points: dict[int, Mapping[str, Fraction]] = {}
        for g, by_name in scores.items():
            if g not in overridden:
                points[g] = game_team_points(by_name)
                continue
            ps = places[g]
            points[g] = {
                name: place_points(len(ps), place, sum(1 for p in ps.values() if p == place))
                for name, place in ps.items()
            }
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
                superfinal=bool(sf),
                override=overridden.get(g),
            )
            for g, st, ag, seat, name, team, score, place, won, sf in rows
        )

    # Standings ------------------------------------------------------------

    def individual_standings(self) -> tuple[PlayerStanding, ...]:
        """Per age group: furthest stage, then place in the last game, then points."""
        players = self.players()
        registry = register(players, self.cutoff)
        stage_of: dict[str, int] = {}
        for game in self.games():
            if game.superfinal:
                continue
            for name in game.players:
                stage_of[name] = max(stage_of.get(name, 0), game.stage)
        played: dict[str, list[SeatResult]] = {}
        for result in self.seat_results():
            if result.superfinal:
                continue
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
        """TOUR-3.3–3.6 over every recorded game; divisor: the team's players who played.

        The team points are the seats' own (:meth:`seat_results`), so a game
        the committee overrode counts by its places here as in the export
        (TOUR-1.9). Who played includes the written qualifier (TOUR-3-D): a
        member cut there still counts in the team's divisor.
        """
        registry = register(self.players(), self.cutoff)
        by_game: dict[int, dict[str, int]] = {}
        earned: dict[int, dict[str, Fraction]] = {}
        for result in self.seat_results():
            by_game.setdefault(result.game_id, {})[result.name] = result.score
            earned.setdefault(result.game_id, {})[result.name] = result.team_points
        participants = {n for g in self.games() for n in g.players} | set(self.qualifier_scores())
        return team_standings(
            list(by_game.values()),
            registry.ranked_teams(),
            participants,
            points=[earned[g] for g in by_game],
        )


class _NotReady(Exception):
    """A stage still has games without results."""


#: The file types a question package may have (``rules.packages``).
PACKAGE_SUFFIXES = (".siq", ".json")


@dataclass(frozen=True, slots=True)
class TournamentPackages:
    """The question packages a tournament's reported journals may name.

    A journal from a room names its package by the path it had *in that
    room*. The server never opens that path: it looks the path's file name
    up among the tournament's own packages (``--package`` files, or the
    ``.siq``/``.json`` files of a ``--package`` folder) and replays the
    journal against that copy. Any other name is refused with the same
    message whether or not such a file exists on the server.
    """

    by_name: Mapping[str, Path] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_paths(cls, paths: Iterable[str | Path]) -> TournamentPackages:
        found: dict[str, Path] = {}
        for given in paths:
            path = Path(given).resolve()
            if path.is_dir():
                files = sorted(
                    f
                    for f in path.iterdir()
                    if f.is_file() and f.suffix.lower() in PACKAGE_SUFFIXES
                )
            elif path.is_file() and path.suffix.lower() in PACKAGE_SUFFIXES:
                files = [path]
            else:
                raise TournamentError(
                    f"--package {given}: not a question package (.siq or .json) "
                    "nor a folder of them"
                )
            for file in files:
                if found.setdefault(file.name, file) != file:
                    raise TournamentError(
                        f"two of the tournament's packages are named {file.name} "
                        f"({found[file.name]} and {file}): rename one"
                    )
        return cls(MappingProxyType(found))

    def header(self, header: dict[str, Any]) -> dict[str, Any]:
        """The header with its package path replaced by the tournament's copy."""
        from rules.packages.demo import BUILTIN_DEMO

        key = "package" if "package" in header else "board"
        name = header.get(key)
        if not isinstance(name, str) or name == BUILTIN_DEMO:
            return header
        leaf = name.replace("\\", "/").rsplit("/", 1)[-1]
        if leaf not in self.by_name:
            known = ", ".join(sorted(self.by_name)) or "none configured"
            raise TournamentError(
                f"the journal's package {leaf!r} is not one of this tournament's packages "
                f"({known}): play the tournament's package, or have the organisers serve "
                "it with `svoyak tournament-server serve DB --package FILE`"
            )
        return {**header, key: str(self.by_name[leaf])}


def _header(lines: Sequence[str]) -> dict[str, Any]:
    try:
        header = json.loads(lines[0]) if lines else None
    except (ValueError, RecursionError):
        header = None
    if not isinstance(header, dict) or header.get("type") != "game":
        raise TournamentError(
            "the journal cannot be replayed: line 1 must be the game's header "
            "(a JSON object with type 'game')"
        )
    return header


def check_players(game: DrawnGame, header: Mapping[str, Any], registered: Iterable[str]) -> None:
    """The journal's players must be the game's drawn players, seat by seat.

    Refuses a name nobody registered, a registered player who is not in
    this game, and the right players in another seat order (seat ``k`` of
    the journal is the ``k``-th player drawn into the game).
    """
    names = header.get("players")
    drawn = "  ".join(f"{seat}:{name}" for seat, name in enumerate(game.players, start=1))
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise TournamentError(
            f"the journal's header lists no players; game {game.id} is drawn as {drawn}"
        )
    if tuple(names) == game.players:
        return
    known = set(registered)
    strangers = [n for n in names if n not in known]
    if strangers:
        raise TournamentError(
            "the journal's player(s) "
            + ", ".join(repr(n) for n in strangers)
            + f" are not registered in this tournament; game {game.id} is drawn as {drawn}: "
            "is it the right journal?"
        )
    seats = "  ".join(f"{seat}:{name}" for seat, name in enumerate(names, start=1))
    if sorted(names) == sorted(game.players):
        raise TournamentError(
            f"the journal seats the players as {seats}, but game {game.id} is drawn as "
            f"{drawn}: the seats (and so the result) would be wrong; the committee decides "
            "(`svoyak tournament result` with a corrected journal, or an override)"
        )
    raise TournamentError(
        f"the journal's players ({seats}) are not game {game.id}'s drawn players ({drawn}): "
        "is it the right journal?"
    )


def final_result(
    journal_lines: Iterable[str], base: Path | None = None
) -> tuple[list[int], int | None]:
    """Replay a journal; its seats' final scores in seat order and the winner's seat.

    Refuses a journal whose game is not over: its scores are not a result.
    ``base``: where a package named by a relative path is looked for.
    """
    from buzzer.journal.codec import JournalError
    from buzzer.replay import replay_lines

    try:
        output = replay_lines(list(journal_lines), base)
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


def record_game_result(
    store: TournamentStore,
    game_id: int,
    journal_lines: Iterable[str],
    *,
    room: str | None = None,
    packages: TournamentPackages | None = None,
    base: Path | None = None,
) -> None:
    """Take a finished game's result from its journal (JOURNAL.md) into the tournament.

    Seat ``k`` of the journal must be the ``k``-th player drawn into the
    game (:func:`check_players`). ``room``: the reporting room, which the
    game must be drawn to; its report is written with the result, in one
    transaction. ``packages``: the journal's package is looked up among
    these by file name, and its path never opened (a report from the
    network); without it a package path is opened as given, relative to
    ``base`` (the committee's own file).
    """
    lines = list(journal_lines)
    store.check_recordable(game_id, room)
    game = next(g for g in store.games() if g.id == game_id)
    header = _header(lines)
    check_players(game, header, (p.name for p in store.players()))
    if packages is not None:
        lines = [json.dumps(packages.header(header), ensure_ascii=False), *lines[1:]]
        base = None
    scores, winner = final_result(lines, base)
    store.record(game_id, scores, winner, room=room)
