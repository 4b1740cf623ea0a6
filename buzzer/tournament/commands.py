"""``svoyak tournament …``: run a tournament from its SQLite file (issue 8, item 4).

Registered through ``buzzer.cli._COMMAND_MODULES`` (``"buzzer.tournament.commands"``)
and also runnable as ``python -m buzzer.tournament.commands …``. Keep this
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
import datetime
import sys
from typing import Any

from buzzer.terminal import shown

_DB_HELP = "the tournament's database (a SQLite file)"


def _date(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date as YYYY-MM-DD: {text!r}") from None


def game_number(text: str) -> int:
    """A game's number on the command line: 1 … SQLite's largest INTEGER."""
    from buzzer.tournament.records import MAX_INTEGER

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a game's number: {text!r}") from None
    if not 1 <= value <= MAX_INTEGER:
        raise argparse.ArgumentTypeError(f"no game has the number {text}")
    return value


def _seed(text: str) -> int:
    from buzzer.tournament.records import MAX_INTEGER

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number: {text!r}") from None
    if not -MAX_INTEGER - 1 <= value <= MAX_INTEGER:
        raise argparse.ArgumentTypeError(f"a seed is at most {MAX_INTEGER} in size")
    return value


def _fail(action: str, message: object) -> int:
    _say(f"svoyak tournament {action}: {message}", file=sys.stderr)
    return 2


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


# -- TV series (docs/tournament.md#series-formats) -----------------------------------------


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()] if text else []


def _scores(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected end scores in seat order, e.g. 1200,-300,0: {text!r}"
        ) from None
    if any(abs(v) > 1_000_000 for v in values):
        raise argparse.ArgumentTypeError("a score is at most 1000000 in size")
    return values


def _fob_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"expected a number of fobs 0..1000: {text!r}")
    return value


def _series_number(text: str) -> int:
    try:
        return game_number(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a series' number: {text!r}") from None


def _print_series(view: Any, series_id: int, rules: str, notes_from: int = 0) -> None:
    """What the committee reads after every step: what happened, the table, what comes next."""
    import json

    from buzzer.tournament.series import next_header

    fmt = view.format
    for note in view.notes[notes_from:]:
        _say(f"  {note}")
    _say(f"series {series_id}  {fmt.id}  {fmt.title}  games played {view.played}")
    if view.seats:
        _say("seats: " + "  ".join(f"{i}:{n or '-'}" for i, n in enumerate(view.seats, 1)))
    if view.pool:
        _say(f"prize pool {view.pool}")
    _say(
        f"{'#':>3}  {'name':24} {'role':10} {'games':>5} {'wins':>4} {'points':>7} "
        f"{'winnings':>8} {'bank':>7} {'took':>7}  prize"
    )
    # the challengers still waiting are not in the table yet
    shown_rows = [r for r in view.standings if r.games or r.role != "challenger"]
    for rank, row in enumerate(shown_rows, 1):
        _say(
            f"{rank:>3}  {row.name:24} {row.role:10} {row.games:>5} {row.wins:>4} "
            f"{row.points:>7} {row.winnings:>8} {row.bank:>7} {row.took:>7}  {row.prize}"
        )
    if view.over:
        _say(f"over: {view.over}")
    elif view.next is not None:
        game = view.next
        _say(
            f"next: game {game.number} ({game.label})  "
            + "  ".join(f"{seat}:{name}" for seat, name in enumerate(game.players, start=1))
        )
        if game.start_scores is not None:
            _say("  carried start scores (SER-CARRY): " + ", ".join(map(str, game.start_scores)))
        _say("  header: " + json.dumps(next_header(view, rules), ensure_ascii=False))
    else:
        _say(f"waiting: {view.waiting}")


def _series_step(args: argparse.Namespace, action: str, step: Any) -> int:
    """Open the store, do ``step(store)`` → (before, after) views, print the series."""
    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.store import TournamentStore

    try:
        with TournamentStore(args.db) as store:
            before, after = step(store)
    except TournamentError as exc:
        return _fail(f"series {action}", exc)
    _print_series(after, args.series, args.rules, len(before.notes) if before else 0)
    return 0


def _cmd_series_formats(args: argparse.Namespace) -> int:
    from rules.tournament.series import SERIES_FORMATS

    for fmt in SERIES_FORMATS.values():
        rules = sorted(set(fmt.citations.values()))
        _say(f"{fmt.id:20} {fmt.shape.value:8} {fmt.years:24} {fmt.title}  ({', '.join(rules)})")
    return 0


def _cmd_series_new(args: argparse.Namespace) -> int:
    import json

    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.series import SeriesFile, fold, read_series_file
    from buzzer.tournament.store import TournamentStore

    seed = args.seed if args.seed is not None else 0
    try:
        if args.from_file is not None:
            try:
                with open(args.from_file, encoding="utf-8") as handle:
                    given = read_series_file(json.load(handle))
            except OSError as exc:
                raise TournamentError(f"cannot read {args.from_file}: {exc.strerror}") from None
            except (ValueError, RecursionError):
                raise TournamentError(f"{args.from_file} is not JSON") from None
            if args.format not in (None, given.format):
                raise TournamentError(f"{args.from_file} is a {given.format} series")
        else:
            if args.format is None:
                raise TournamentError("name the format (`series formats`) or give --from FILE")
            given = SeriesFile(
                args.format, seed, tuple(_names(args.members)), tuple(_names(args.challengers)), ()
            )
        with TournamentStore(args.db) as store:
            record = store.create_series(
                given.format, given.seed, given.members, given.challengers, given.events
            )
            view = fold(record)
    except TournamentError as exc:
        return _fail("series new", exc)
    args.series = record.id
    _print_series(view, record.id, args.rules)
    return 0


def _cmd_series_list(args: argparse.Namespace) -> int:
    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.series import fold
    from buzzer.tournament.store import TournamentStore

    try:
        with TournamentStore(args.db) as store:
            rows = [(r, fold(r)) for r in store.all_series()]
    except TournamentError as exc:
        return _fail("series list", exc)
    for record, view in rows:
        state = view.over or (f"next game {view.next.number}" if view.next else view.waiting)
        _say(
            f"series {record.id}  {record.format}  seed {record.seed}  {view.played} games  {state}"
        )
    return 0


def _cmd_series_show(args: argparse.Namespace) -> int:
    from buzzer.tournament.series import fold

    def step(store: Any) -> tuple[Any, Any]:
        return None, fold(store.series(args.series))

    return _series_step(args, "show", step)


def _cmd_series_add(args: argparse.Namespace) -> int:
    from buzzer.tournament.series import fold

    def step(store: Any) -> tuple[Any, Any]:
        before = fold(store.series(args.series))
        return before, store.add_challengers(args.series, [n.strip() for n in args.names])

    return _series_step(args, "add", step)


def _cmd_series_result(args: argparse.Namespace) -> int:
    from pathlib import Path

    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.series import fold, played_from_scores

    if (args.journal is None) == (args.scores is None):
        return _fail("series result", "give the game's journal or its --scores (one of them)")

    def step(store: Any) -> tuple[Any, Any]:
        from buzzer.tournament.series_store import record_series_result

        view = fold(store.series(args.series))
        if view.next is None:
            raise TournamentError(f"no game is due: {view.over or view.waiting}")
        if args.scores is not None:
            played = played_from_scores(view.next, args.scores, args.winner)
            views: tuple[Any, Any] = store.add_series_event(args.series, played, view.next.number)
            return views
        path = Path(args.journal)
        lines = _journal_lines(path)
        views = record_series_result(
            store, args.series, view.next.number, lines, base=path.resolve().parent
        )
        return views

    return _series_step(args, "result", step)


def _journal_lines(path: Any) -> list[str]:
    """A journal's lines, JSON Lines or a game's SQLite file (as ``result`` reads it)."""
    from buzzer.tournament.errors import TournamentError

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TournamentError(f"cannot read the journal {path}: {exc.strerror}") from None
    if data.startswith(b"SQLite format 3\x00"):
        from buzzer.journal.store import JournalStore, JournalStoreError

        try:
            with JournalStore(path, readonly=True) as journal:
                return list(journal.lines())
        except JournalStoreError as exc:
            raise TournamentError(str(exc)) from None
    from buzzer.journal.codec import JournalError
    from buzzer.replay import decode_journal

    try:
        return decode_journal(data)
    except JournalError as exc:
        raise TournamentError(f"{path}: {exc}") from None


def _cmd_series_decide(args: argparse.Namespace) -> int:
    from rules.tournament.series_play import Decision

    event = Decision(args.name.strip(), args.choice == "stop", args.buy)
    return _series_step(args, "decide", lambda store: store.add_series_event(args.series, event))


def _cmd_series_pick(args: argparse.Namespace) -> int:
    from rules.tournament.series_play import Pick

    event = Pick(args.name.strip())
    return _series_step(args, "pick", lambda store: store.add_series_event(args.series, event))


def _cmd_series_close(args: argparse.Namespace) -> int:
    from rules.tournament.series_play import CloseLadder

    event = CloseLadder()
    return _series_step(args, "close", lambda store: store.add_series_event(args.series, event))


def _add_series_commands(actions: Any) -> None:
    series = actions.add_parser(
        "series",
        help="a TV series game by game: Golden Dozen, Car Cups, Challenge Cups, Jubilee, "
        "Combined Cup (docs/tournament.md#series-formats)",
    )
    steps = series.add_subparsers(dest="series_command", metavar="STEP")
    steps.required = True

    def step(name: str, help_text: str, handler: Any, *, numbered: bool = True) -> Any:
        parser = steps.add_parser(name, help=help_text)
        if name != "formats":
            parser.add_argument("db", help=_DB_HELP)
        if numbered:
            parser.add_argument("series", type=_series_number, help="the series' number")
        if name not in ("formats", "list"):
            parser.add_argument(
                "--rules",
                default="tv-modern",
                help="the rule system of the next game's header that is printed "
                "(default tv-modern)",
            )
        parser.set_defaults(handler=handler)
        return parser

    step("formats", "list the series formats", _cmd_series_formats, numbered=False)
    step("list", "list the tournament's series", _cmd_series_list, numbered=False)
    new = step("new", "start a series; prints its first game", _cmd_series_new, numbered=False)
    new.add_argument("format", nargs="?", default=None, help="the format's id (`series formats`)")
    new.add_argument(
        "--from",
        dest="from_file",
        default=None,
        metavar="SERIES.json",
        help="a series file: its format, seed, entrants and the events played "
        "(examples/series/); each event is checked, and the lots journaled",
    )
    new.add_argument(
        "--members",
        default="",
        metavar="A,B,…",
        help="the seats' holders in seat order (the Dozen's 12, the team's 7, the lodge's 9)",
    )
    new.add_argument(
        "--challengers",
        default="",
        metavar="A,B,…",
        help="the challengers in the order they play (more later with `series add`)",
    )
    new.add_argument("--seed", type=_seed, default=None, help="the seed of the series' lots")
    step("show", "the standings and the next game", _cmd_series_show)
    add = step("add", "add challengers at the end of the queue", _cmd_series_add)
    add.add_argument("names", nargs="+", metavar="NAME", help="a challenger's name")
    result = step("result", "record the next game's result", _cmd_series_result)
    result.add_argument("journal", nargs="?", default=None, help="the game's journal")
    result.add_argument(
        "--scores",
        type=_scores,
        default=None,
        metavar="S1,S2,S3",
        help="the end scores in seat order, instead of a journal",
    )
    result.add_argument(
        "--winner",
        type=int,
        default=None,
        metavar="SEAT",
        help="with --scores: the winner's seat (default: the single highest score above 0)",
    )
    decide = step("decide", "the champion stops or goes on after a win", _cmd_series_decide)
    decide.add_argument("name", help="the champion")
    decide.add_argument("choice", choices=("stop", "go"), help="stop (take the bank) or go on")
    decide.add_argument(
        "--buy",
        type=_fob_count,
        default=0,
        help="extra fobs bought from the bank when stopping (2004)",
    )
    pick = step("pick", "the committee brings back a player who is out", _cmd_series_pick)
    pick.add_argument("name", help="the player")
    step("close", "end the ladder: its best play the finals (2005)", _cmd_series_close)


def add_commands(subparsers: Any, *, statistics: Any = None) -> None:
    """Register ``svoyak tournament``. ``statistics``: a stored journal → its seats'
    statistics (:data:`buzzer.tournament.statistics.GameStatistics`, the game
    report's reading, a layer above: ``buzzer/app/tournament_commands.py`` hands
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

    _add_series_commands(actions)


def _say(text: object, *, file: Any = None) -> None:
    """Print one line of names from the tournament or the command line, escapes shown."""
    print(shown(text), file=file if file is not None else sys.stdout)
