"""The tournament's database: one SQLite file per tournament.

This module is the SQL of the tournament's own tables: the queries and the
transactions of registration, draws, results, overrides and standings, in
:class:`TournamentStore`, the one owner of the connection (the tournament
server goes through it too). The file itself (its schema, its migration, what
a file must be to be opened, the connection and its transactions) is
:mod:`buzzer.tournament.database`'s, and the TV series' tables are
:mod:`buzzer.tournament.series_store`'s; the store is both.
What to draw next is planned by :mod:`buzzer.tournament.planning`, an
override by :mod:`buzzer.tournament.overrides`, the
tables are made by :mod:`buzzer.tournament.standings` and a reported
journal is replayed by :mod:`buzzer.tournament.results`; the store calls
them with plain data and writes what they return, never the reverse. The
rules themselves are the pure modules of :mod:`rules.tournament`.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import random
import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from buzzer.tournament.database import APPLICATION_ID as APPLICATION_ID
from buzzer.tournament.database import ROOM_TOKENS_TABLE, timestamp
from buzzer.tournament.database import SCHEMA_VERSION as SCHEMA_VERSION
from buzzer.tournament.errors import (
    AlreadyRecorded,
    TournamentError,
    UnknownGame,
    WrongRoom,
)
from buzzer.tournament.overrides import (
    OverriddenGame,
    check_request,
    fed_next_draw,
    plan_override,
)
from buzzer.tournament.planning import (
    SUPERFINAL_NUMBER,
    LastStage,
    final_outcome,
    plan_draw,
)
from buzzer.tournament.planning import reproduces as _reproduces
from buzzer.tournament.records import (
    DrawnGame,
    DrawRecord,
    OverrideRecord,
    RecordedGame,
    SeatResult,
    StoredJournal,
)
from buzzer.tournament.results import (
    TournamentPackages,
    check_players,
    final_result,
    journal_header,
)
from buzzer.tournament.series_store import SeriesTables
from buzzer.tournament.standings import (
    PlayerStanding,
    game_points,
    individual_table,
    team_table,
)
from rules.tournament.advancement import GameResult
from rules.tournament.qualifier import QualifierScore
from rules.tournament.registration import (
    AgeGroup,
    Player,
    RegistrationError,
    age_group,
    register,
)
from rules.tournament.team_points import TeamStanding

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


class TournamentStore(SeriesTables):
    """One tournament's SQLite file."""

    # The server's room tokens (buzzer.tournament.server) -----------------------

    def ensure_room_tokens(self) -> None:
        """Add the server's ``room_tokens`` table if it is not there yet."""
        with self.transaction() as db:
            db.execute(ROOM_TOKENS_TABLE)

    def room_token(self, room: str) -> str | None:
        """The SHA-256 of ``room``'s token (None: the room has none)."""
        row = self._db.execute(
            "SELECT token_sha256 FROM room_tokens WHERE room = ?", (room,)
        ).fetchone()
        return None if row is None else str(row[0])

    def set_room_token(self, room: str, token_sha256: str) -> None:
        """Keep ``room``'s new token's hash (its old token stops working)."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO room_tokens (room, token_sha256, created) VALUES (?, ?, ?) "
                "ON CONFLICT (room) DO UPDATE SET token_sha256 = excluded.token_sha256, "
                "created = excluded.created",
                (room, token_sha256, timestamp()),
            )

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

        The plan and the lots are :func:`buzzer.tournament.planning.plan_draw`'s;
        this reads what it needs and writes what it returns, in one transaction.
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
        seed = random.SystemRandom().randrange(2**31) if seed is None else seed
        plan = plan_draw(
            registry,
            self._last_stages(),
            self.qualifier_scores(),
            seed,
            through=through,
            committee=committee,
            reason=(reason or "").strip(),
            superfinal_drawn=self._superfinal_drawn(),
        )
        drawn: list[DrawnGame] = []
        with self.transaction() as db:
            for note in plan.notes:
                self._journal(db, note, None, seed)
            for lot in plan.stages:
                stage_id = self._insert_stage(db, lot.age_group.value, lot.number, seed, "stage")
                self._journal(db, lot.note(), stage_id, seed)
                for game in lot.games:
                    game_id = self._insert_game(db, stage_id, game)
                    drawn.append(
                        DrawnGame(
                            id=game_id, stage=lot.number, age_group=lot.age_group, players=game
                        )
                    )
            if plan.superfinal is not None:
                seats = plan.superfinal.seats
                stage_id = self._insert_stage(
                    db, AgeGroup.SENIOR.value, SUPERFINAL_NUMBER, seed, "superfinal"
                )
                self._journal(db, plan.superfinal.note(), stage_id, seed)
                game_id = self._insert_game(db, stage_id, seats)
                drawn.append(
                    DrawnGame(
                        id=game_id,
                        stage=SUPERFINAL_NUMBER,
                        age_group=AgeGroup.SENIOR,
                        players=seats,
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

    def _superfinal_drawn(self) -> bool:
        return (
            self._db.execute("SELECT 1 FROM stages WHERE kind = 'superfinal'").fetchone()
            is not None
        )

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

    def champions(self) -> dict[AgeGroup, str | None]:
        """Each age group whose final is recorded: its champion, or None (no title).

        The final is a stage of one game (TOUR-1.6; a field of 3 or 4 plays it
        at once). C2003-2.6b/c: a final nobody finished above zero has no
        winner, and then the title is not awarded; TOUR-1.7 leaves that seat
        of the superfinal to the committee.
        """
        found: dict[AgeGroup, str | None] = {}
        for group, last in self._last_stages().items():
            result = last.games[0][1] if len(last.games) == 1 else None
            if result is not None:
                found[group] = final_outcome(result).champion
        return found

    def _last_stages(self) -> dict[AgeGroup, LastStage]:
        """Each age group's latest stage with its games' results (none before its first draw)."""
        found: dict[AgeGroup, LastStage] = {}
        for group in AgeGroup:
            row = self._db.execute(
                "SELECT id, number FROM stages WHERE age_group = ? AND kind = 'stage' "
                "ORDER BY number DESC LIMIT 1",
                (group.value,),
            ).fetchone()
            if row is None:
                continue
            ids = [
                r[0] for r in self._db.execute("SELECT id FROM games WHERE stage_id = ?", (row[0],))
            ]
            found[group] = LastStage(int(row[1]), tuple((g, self._game_result(g)) for g in ids))
        return found

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
        return _reproduces(record)

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
        return RecordedGame(
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
        journal: StoredJournal | None = None,
    ) -> None:
        """Store one finished game: ``scores`` in seat order, the winner's seat (or None).

        With ``room``: the game must be drawn to that room, and the room's
        report (``room_reports``) is written in the same transaction as the
        result: both are on disk, or neither. ``journal``: the journal the
        result came from, kept (``game_journals``) in that same transaction.
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
            if journal is not None:
                db.execute(
                    "INSERT OR REPLACE INTO game_journals (game_id, lines, replay_header, base) "
                    "VALUES (?, ?, ?, ?)",
                    (
                        game_id,
                        json.dumps(list(journal.lines), ensure_ascii=False),
                        journal.replay_header,
                        journal.base,
                    ),
                )

    def journals(self) -> dict[int, StoredJournal]:
        """Every recorded game's stored journal by game id (games recorded before
        journals were kept have none)."""
        return {
            int(g): StoredJournal(int(g), tuple(json.loads(lines)), header, base)
            for g, lines, header, base in self._db.execute(
                "SELECT game_id, lines, replay_header, base FROM game_journals ORDER BY game_id"
            )
        }

    def journal_ids(self) -> frozenset[int]:
        """The games whose journal is kept."""
        return frozenset(int(g) for (g,) in self._db.execute("SELECT game_id FROM game_journals"))

    def journal(self, game_id: int) -> StoredJournal | None:
        """One recorded game's stored journal, or None."""
        row = self._db.execute(
            "SELECT lines, replay_header, base FROM game_journals WHERE game_id = ?", (game_id,)
        ).fetchone()
        if row is None:
            return None
        return StoredJournal(game_id, tuple(json.loads(row[0])), row[1], row[2])

    def override(self, game_id: int, places: Mapping[int, int], reason: str) -> OverrideRecord:
        """TOUR-1.9: the committee sets places of a recorded game, journaled with its reason.

        The rules (who may be overridden, who wins then) are
        :func:`buzzer.tournament.overrides.plan_override`'s; this reads the game
        and writes what it returns, in one transaction.
        """
        check_request(places, reason)
        plan = plan_override(self._overridden_game(game_id), game_id, places, reason)
        now = timestamp()
        with self.transaction() as db:
            for seat, place in plan.places.items():
                db.execute(
                    "UPDATE results SET place = ? WHERE game_id = ? AND seat = ?",
                    (place, game_id, seat),
                )
            db.execute("UPDATE games SET winner = ? WHERE id = ?", (plan.winner, game_id))
            override_id = db.execute(
                "INSERT INTO overrides (game_id, before, after, reason, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, json.dumps(plan.before), json.dumps(plan.after), plan.reason, now),
            ).lastrowid
        assert override_id is not None
        return OverrideRecord(override_id, game_id, plan.before, plan.after, plan.reason, now)

    def _overridden_game(self, game_id: int) -> OverriddenGame | None:
        """A game as recorded, for :func:`~buzzer.tournament.overrides.plan_override`."""
        row = self._db.execute(
            "SELECT g.recorded, g.size, s.age_group, s.number, s.kind, g.winner FROM games g "
            "JOIN stages s ON s.id = g.stage_id WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        recorded, size, group, number, kind, winner = row
        later_stage = self._db.execute(
            "SELECT 1 FROM stages WHERE kind = 'stage' AND age_group = ? AND number > ?",
            (group, number),
        ).fetchone()
        stage_games = self._db.execute(
            "SELECT COUNT(*) FROM games g JOIN stages s ON s.id = g.stage_id "
            "WHERE s.age_group = ? AND s.number = ? AND s.kind = 'stage'",
            (group, number),
        ).fetchone()[0]
        seats = self._db.execute(
            "SELECT r.seat, r.place, x.player_id FROM results r JOIN seats x USING (game_id, seat) "
            "WHERE r.game_id = ? ORDER BY r.seat",
            (game_id,),
        ).fetchall()
        return OverriddenGame(
            game_id=game_id,
            recorded=recorded,
            size=int(size),
            seats=tuple((int(s), int(p), int(pid)) for s, p, pid in seats),
            winner=winner,
            fed_next_draw=fed_next_draw(
                str(kind),
                later_stage is not None,
                self._superfinal_drawn(),
                stage_games == 1,
            ),
        )

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
        # Team points come from the scores; a game whose result the committee
        # overrode (TOUR-1.9) counts by the places it set (standings.game_points).
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
        points = {
            g: game_points(by_name, places.get(g) if g in overridden else None)
            for g, by_name in scores.items()
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
        registry = register(self.players(), self.cutoff)
        return individual_table(registry, self.games(), self.seat_results())

    def team_standings(self) -> tuple[TeamStanding, ...]:
        """TOUR-3.3–3.6 over every recorded game; divisor: the team's players who played.

        The team points are the seats' own (:meth:`seat_results`), so a game
        the committee overrode counts by its places here as in the export
        (TOUR-1.9). Who played includes the written qualifier (TOUR-3-D): a
        member cut there still counts in the team's divisor.
        """
        registry = register(self.players(), self.cutoff)
        return team_table(registry, self.games(), self.seat_results(), self.qualifier_scores())


def record_game_result(
    store: TournamentStore,
    game_id: int,
    journal_lines: Iterable[str],
    *,
    room: str | None = None,
    packages: TournamentPackages | None = None,
    base: Path | None = None,
) -> None:
    """Take a finished game's result from its journal (docs/journal-contract.md) into
    the tournament.

    Seat ``k`` of the journal must be the ``k``-th player drawn into the
    game (:func:`buzzer.tournament.results.check_players`). ``room``: the reporting room, which the
    game must be drawn to; its report is written with the result, in one
    transaction. ``packages``: the journal's package is looked up among
    these by file name, and its path never opened (a report from the
    network); without it a package path is opened as given, relative to
    ``base`` (the committee's own file). The journal is checked and replayed
    by :mod:`buzzer.tournament.results`; the store checks and writes.
    """
    lines = list(journal_lines)
    store.check_recordable(game_id, room)
    game = next(g for g in store.games() if g.id == game_id)
    header = journal_header(lines)
    check_players(game, header, (p.name for p in store.players()))
    replayed = lines
    replay_header = None
    if packages is not None:
        replay_header = json.dumps(packages.header(header), ensure_ascii=False)
        replayed = [replay_header, *lines[1:]]
        base = None
    scores, winner = final_result(replayed, base)
    kept = StoredJournal(
        game_id,
        tuple(lines),
        replay_header,
        None if base is None else str(Path(base).resolve()),
    )
    store.record(game_id, scores, winner, room=room, journal=kept)
