"""``svoyak tournament series …``: a TV series played game by game on the tournament's
SQLite file (docs/tournament.md#series-formats); registered by
:func:`buzzer.tournament.cli.add_commands`. After every result it prints what
happened, the standings and the next game's players (and its carried scores).

* ``series formats`` — the formats
* ``series new DB FORMAT --members … --challengers … [--seed N]`` or ``--from FILE``
* ``series list DB`` · ``series show DB N`` · ``series add DB N NAME …``
* ``series result DB N JOURNAL`` (or ``--scores S1,S2,S3 [--winner SEAT]``)
* ``series decide DB N NAME stop|go [--buy N]`` · ``series pick DB N NAME`` ·
  ``series close DB N``

Handlers import the store when they run.
"""

from __future__ import annotations

import argparse
from typing import Any

from buzzer.tournament.arguments import DB_HELP as _DB_HELP
from buzzer.tournament.arguments import fail as _fail
from buzzer.tournament.arguments import game_number
from buzzer.tournament.arguments import say as _say
from buzzer.tournament.arguments import seed as _seed


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


def add_series_commands(actions: Any) -> None:
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
