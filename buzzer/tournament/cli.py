"""``svoyak tournament …``: run a tournament from its SQLite file.

Registered through ``buzzer.cli._COMMAND_MODULES`` (``"buzzer.tournament.cli"``)
and also runnable as ``python -m buzzer.tournament.cli …``. Keep this
module light: handlers import the store when they run.

* ``new DB [--cutoff YYYY-MM-DD]`` — create the tournament's database
* ``register DB NAME --born YYYY-MM-DD [--city C] [--team T]``
* ``draw DB [--seed N] [--through NAME …] [--rooms R1,R2…]`` — plan and draw the
  next stage (``--rooms``: the games go to these rooms in turn; only a
  game's room may report it to the tournament server)
* ``result DB GAME_ID JOURNAL`` — record a finished game from its journal
* ``qualifier DB RESULTS.csv`` — the written qualifier: ``name,blue,red`` rows (TOUR-2.9)
* ``draws DB`` — the draw journal: every lot with its seed, and whether it replays
* ``override DB GAME_ID --place SEAT=PLACE … --reason TEXT`` — TOUR-1.9
* ``standings DB [--csv]`` — individual and team tables, each player's statistics over every
  reported game; ``--csv``: the individual table with the statistics as CSV
* ``export DB OUT.csv`` — every recorded seat as CSV
* ``series formats | new | add | show | result | decide | pick | close | list`` — a TV
  series played game by game (docs/tournament.md#series-formats): after every
  result the standings and the next game's players (and its carried scores)
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from buzzer.tournament.arguments import DB_HELP as _DB_HELP
from buzzer.tournament.arguments import date as _date
from buzzer.tournament.arguments import fail as _fail
from buzzer.tournament.arguments import game_number as game_number
from buzzer.tournament.arguments import say as _say
from buzzer.tournament.arguments import seed as _seed
from buzzer.tournament.series_cli import add_series_commands


def _cmd_new(args: argparse.Namespace) -> int:
    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.store import TournamentStore

    try:
        with TournamentStore.create(args.db, args.cutoff) as store:
            _say(f"tournament {store.path} created; age groups by {store.cutoff.isoformat()}")
    except TournamentError as exc:
        return _fail("new", exc)
    return 0


def _cmd_register(args: argparse.Namespace) -> int:
    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.store import TournamentStore
    from rules.tournament.registration import Player

    player = Player(name=args.name.strip(), birth_date=args.born, city=args.city, team=args.team)
    try:
        with TournamentStore(args.db) as store:
            group = store.register(player)
    except TournamentError as exc:
        return _fail("register", exc)
    _say(f"{player.name}: {group.value}" + (f", team {player.team}" if player.team else ""))
    return 0


def _cmd_draw(args: argparse.Namespace) -> int:
    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.store import TournamentStore

    try:
        with TournamentStore(args.db) as store:
            rooms = [r.strip() for r in args.rooms.split(",")] if args.rooms else []
            games = store.draw_next(args.seed, args.through, rooms, args.committee, args.reason)
    except TournamentError as exc:
        return _fail("draw", exc)
    for game in games:
        where = "superfinal" if game.superfinal else f"{game.age_group.value} stage {game.stage}"
        room = f"  room {game.room}" if game.room else ""
        _say(
            f"game {game.id}  {where}{room}  "
            + "  ".join(f"{seat}:{name}" for seat, name in enumerate(game.players, start=1))
        )
    return 0


def _cmd_result(args: argparse.Namespace) -> int:
    from pathlib import Path

    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.store import TournamentStore, record_game_result

    path = Path(args.journal)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return _fail("result", f"cannot read the journal {path}: {exc.strerror}")
    try:
        if data.startswith(b"SQLite format 3\x00"):
            from buzzer.journal.store import JournalStore, JournalStoreError

            try:
                with JournalStore(path, readonly=True) as journal:
                    lines = list(journal.lines())
            except JournalStoreError as exc:
                raise TournamentError(str(exc)) from None
        else:
            from buzzer.journal.codec import JournalError
            from buzzer.replay import decode_journal

            try:
                lines = decode_journal(data)
            except JournalError as exc:
                raise TournamentError(f"{path}: {exc}") from None
        with TournamentStore(args.db) as store:
            record_game_result(store, args.game_id, lines, base=path.resolve().parent)
            rows = [r for r in store.seat_results() if r.game_id == args.game_id]
    except TournamentError as exc:
        return _fail("result", exc)
    for row in rows:
        _say(f"game {row.game_id}  place {row.place}  {row.name}  {row.score}")
    return 0


def _cmd_qualifier(args: argparse.Namespace) -> int:
    import csv

    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.store import TournamentStore

    rows: list[tuple[str, int, int]] = []
    try:
        with open(args.results, encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            fields = {f.strip().lower() for f in reader.fieldnames or ()}
            if not {"name", "blue", "red"} <= fields:
                return _fail("qualifier", f"{args.results}: the header must be name,blue,red")
            for line, raw in enumerate(reader, start=2):
                row = {k.strip().lower(): (v or "").strip() for k, v in raw.items() if k}
                try:
                    rows.append((row["name"], int(row["blue"]), int(row["red"])))
                except ValueError:
                    return _fail("qualifier", f"{args.results}:{line}: points must be integers")
    except OSError as exc:
        return _fail("qualifier", f"cannot read {args.results}: {exc.strerror}")
    try:
        with TournamentStore(args.db) as store:
            count = store.record_qualifier(rows)
    except TournamentError as exc:
        return _fail("qualifier", exc)
    _say(f"{count} qualifier results recorded")
    return 0


def _cmd_draws(args: argparse.Namespace) -> int:
    import json

    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.store import TournamentStore

    try:
        with TournamentStore(args.db) as store:
            records = store.draws()
            checks = [store.reproduces(r) for r in records]
            overrides = store.overrides()
    except TournamentError as exc:
        return _fail("draws", exc)
    for record, check in zip(records, checks, strict=True):
        replay = {True: "replays", False: "DOES NOT REPLAY", None: "-"}[check]
        if record.kind == "fobs":  # a series' fob lot (SER-CAR04-2, SER-CAR08-2)
            where = (
                f"series {record.input.get('series')}  {record.input.get('player')}  "
                f"{record.input.get('opened')} of {record.input.get('fobs')} fobs"
            )
        else:
            where = f"{record.age_group or 'all'}  stage {record.stage}"
        _say(
            f"draw {record.id}  {record.at}  {record.kind}  {where}  "
            f"seed {record.seed}  {replay}  " + json.dumps(record.outcome, ensure_ascii=False)
        )
    for override in overrides:  # the committee's decisions belong to the same record
        _say(f"{_override_line(override)}  at {override.at}")
    return 0 if False not in checks else 1


def _seat_place(text: str) -> tuple[int, int]:
    seat, sep, place = text.partition("=")
    try:
        if not sep:
            raise ValueError
        pair = int(seat), int(place)
        if not all(0 <= n <= 1000 for n in pair):
            raise ValueError
        return pair
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected SEAT=PLACE, e.g. 2=1: {text!r}") from None


def _cmd_override(args: argparse.Namespace) -> int:
    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.store import TournamentStore

    try:
        with TournamentStore(args.db) as store:
            record = store.override(args.game_id, dict(args.place), args.reason)
    except TournamentError as exc:
        return _fail("override", exc)
    _say(_override_line(record))
    return 0


def _override_line(record: Any) -> str:
    """One override as the committee reads it, wherever it is shown (TOUR-1.9)."""
    return (
        f"override {record.id}: game {record.game_id} places {record.after['places']} "
        f"(were {record.before['places']}), winner seat {record.after['winner_seat']}; "
        f"reason: {record.reason}"
    )


def _points(value: Any) -> str:
    return f"{float(value):.2f}"


def _cmd_standings(args: argparse.Namespace) -> int:
    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.statistics import (
        journal_statistics,
        player_statistics,
        standings_csv,
    )
    from buzzer.tournament.store import TournamentStore

    game_statistics = getattr(args, "game_statistics", None)
    try:
        with TournamentStore(args.db) as store:
            players = store.individual_standings()
            teams = store.team_standings()
            overrides = store.overrides()
            champions = store.champions()
            seats = store.seat_results()
            journals = store.journals() if game_statistics is not None else {}
    except TournamentError as exc:
        return _fail("standings", exc)
    per_game = journal_statistics(journals, game_statistics) if game_statistics else {}
    stats = player_statistics(seats, per_game)
    if getattr(args, "csv", False):
        # Names are written as given (the CSV's quoting keeps them whole): no shown().
        sys.stdout.write(standings_csv(players, stats))
        sys.stdout.flush()
        return 0
    group = None
    for row in players:
        if row.age_group is not group:
            group = row.age_group
            _say(f"Individual standings: {group.value}")
            _say(
                f"{'#':>3}  {'name':24} {'team':16} {'stage':>5} {'place':>5} "
                f"{'games':>5} {'points':>6}"
            )
        place = "-" if row.last_place is None else str(row.last_place)
        _say(
            f"{row.rank:>3}  {row.name:24} {row.team or '':16} {row.stage:>5} {place:>5} "
            f"{row.games:>5} {row.points:>6}"
        )
    for group, champion in champions.items():
        if champion is None:
            _say(
                f"{group.value} final: no winner, the title is not awarded (C2003-2.6c); "
                "its superfinal seat is the committee's (TOUR-1.7)"
            )
        else:
            _say(f"{group.value} champion: {champion}")
    if game_statistics is not None and stats:
        _print_statistics(players, stats)
    _say("Team standings (TOUR-3.3–3.6)")
    _say(f"{'#':>3}  {'team':24} {'points':>8} {'players':>7} {'sum':>6}")
    for team in teams:
        _say(
            f"{team.rank:>3}  {team.team:24} {_points(team.points):>8} {team.players:>7} "
            f"{team.individual_sum:>6}"
        )
    if overrides:
        _say("Overrides by the committee (TOUR-1.9), counted above")
        for override in overrides:
            _say(f"  {_override_line(override)}")
    return 0


def _print_statistics(players: Any, stats: Any) -> None:
    """Each player's statistics over every reported game (docs/report.md's definitions)."""
    from buzzer.tournament.statistics import milliseconds, per_game_text

    _say("Statistics over every reported game (reaction times in ms from the signal)")
    _say(
        f"{'name':24} {'games':>5} {'pts/g':>8} {'right':>5} {'wrong':>5} "
        f"{'median':>9} {'best':>9} {'false':>5}"
    )
    for row in players:
        s = stats.get(row.name)
        if s is None:
            continue
        some = s.journaled > 0
        _say(
            f"{row.name:24} {s.games:>5} {per_game_text(s.points_per_game):>8} "
            f"{s.right if some else '-':>5} {s.wrong if some else '-':>5} "
            f"{milliseconds(s.median_us) or '-':>9} {milliseconds(s.best_us) or '-':>9} "
            f"{s.false_starts if some else '-':>5}"
        )


def _cmd_export(args: argparse.Namespace) -> int:
    import csv

    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.statistics import safe_cell
    from buzzer.tournament.store import TournamentStore

    try:
        with TournamentStore(args.db) as store:
            rows = store.seat_results()
    except TournamentError as exc:
        return _fail("export", exc)
    try:
        with open(args.output, "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(
                [
                    "game",
                    "age_group",
                    "stage",
                    "seat",
                    "player",
                    "team",
                    "score",
                    "place",
                    "winner",
                    "team_points",
                    "override",
                ]
            )
            for r in rows:
                writer.writerow(
                    [
                        r.game_id,
                        "superfinal" if r.superfinal else r.age_group.value,
                        r.stage,
                        r.seat,
                        safe_cell(r.name),
                        safe_cell(r.team or ""),
                        r.score,
                        r.place,
                        int(r.winner),
                        _points(r.team_points),
                        safe_cell(r.override or ""),
                    ]
                )
    except OSError as exc:
        return _fail("export", f"cannot write {args.output}: {exc.strerror}")
    _say(f"{len(rows)} rows written to {args.output}", file=sys.stderr)
    return 0


def add_commands(subparsers: Any, *, statistics: Any = None) -> None:
    """Register ``svoyak tournament``. ``statistics``: a stored journal → its seats'
    statistics (:data:`buzzer.tournament.statistics.GameStatistics`, the game
    report's reading, a layer above: ``buzzer/app/tournament_cli.py`` hands
    it in); without it ``standings`` has no statistics columns."""
    tournament = subparsers.add_parser(
        "tournament", help="run a tournament: registration, draws, results, standings"
    )
    actions = tournament.add_subparsers(dest="tournament_command", metavar="ACTION")
    actions.required = True

    new = actions.add_parser("new", help="create a tournament database")
    new.add_argument("db", help=_DB_HELP)
    new.add_argument(
        "--cutoff",
        type=_date,
        default=None,
        help="the date ages are counted on (TOUR-1.2); default 2003-02-01",
    )
    new.set_defaults(handler=_cmd_new)

    reg = actions.add_parser("register", help="register a player")
    reg.add_argument("db", help=_DB_HELP)
    reg.add_argument("name", help="the player's name (unique in the tournament)")
    reg.add_argument("--born", type=_date, required=True, help="birth date, YYYY-MM-DD")
    reg.add_argument("--city", default="", help="the player's city")
    reg.add_argument("--team", default=None, help="the one team the player counts for")
    reg.set_defaults(handler=_cmd_register)

    draw = actions.add_parser("draw", help="plan and draw the next stage; prints the games")
    draw.add_argument("db", help=_DB_HELP)
    draw.add_argument(
        "--seed", type=_seed, default=None, help="the lot's seed (stored with the stage)"
    )
    draw.add_argument(
        "--through",
        action="append",
        default=[],
        metavar="NAME",
        help="a winner of a shootout at the cut (TOUR-3.2); repeat for several",
    )
    draw.add_argument(
        "--committee",
        action="append",
        default=[],
        metavar="NAME",
        help="a player the organising committee seats in the superfinal (TOUR-1.7, TOUR-1.9): "
        "a seat nobody qualified for, or a fourth seat; repeat for several; needs --reason",
    )
    draw.add_argument(
        "--reason", default=None, help="the committee's reason for --committee (journaled)"
    )
    draw.add_argument(
        "--rooms",
        default=None,
        metavar="R1,R2,…",
        help="the rooms that play this draw, comma-separated: the games go to them in turn; "
        "only a game's room may report it to the tournament server",
    )
    draw.set_defaults(handler=_cmd_draw)

    result = actions.add_parser("result", help="record a finished game from its journal")
    result.add_argument("db", help=_DB_HELP)
    result.add_argument("game_id", type=game_number, help="the game's number, as `draw` printed it")
    result.add_argument("journal", help="the game's journal: JSON Lines or its SQLite file")
    result.set_defaults(handler=_cmd_result)

    qualifier = actions.add_parser(
        "qualifier", help="record the written qualifier (TOUR-2.9) from a CSV: name,blue,red"
    )
    qualifier.add_argument("db", help=_DB_HELP)
    qualifier.add_argument("results", help="CSV with a header row: name,blue,red")
    qualifier.set_defaults(handler=_cmd_qualifier)

    draws = actions.add_parser("draws", help="list every journaled draw with its seed")
    draws.add_argument("db", help=_DB_HELP)
    draws.set_defaults(handler=_cmd_draws)

    override = actions.add_parser(
        "override", help="the committee's manual override of a game's places (TOUR-1.9)"
    )
    override.add_argument("db", help=_DB_HELP)
    override.add_argument("game_id", type=game_number, help="the game's number")
    override.add_argument(
        "--place",
        type=_seat_place,
        action="append",
        required=True,
        metavar="SEAT=PLACE",
        help="a seat's new place; repeat for several",
    )
    override.add_argument("--reason", required=True, help="the committee's reason (journaled)")
    override.set_defaults(handler=_cmd_override)

    standings = actions.add_parser("standings", help="print individual and team standings")
    standings.add_argument("db", help=_DB_HELP)
    standings.add_argument(
        "--csv",
        action="store_true",
        help="print the individual standings with each player's statistics as CSV "
        "(RFC 4180; a name starting with =, +, -, @ gets a leading ')",
    )
    standings.set_defaults(handler=_cmd_standings, game_statistics=statistics)

    export = actions.add_parser("export", help="write every recorded seat as CSV")
    export.add_argument("db", help=_DB_HELP)
    export.add_argument("output", help="the CSV file to write")
    export.set_defaults(handler=_cmd_export)

    add_series_commands(actions)
