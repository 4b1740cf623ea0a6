"""``svoyak tournament-server …``: the server rooms report results to.

Registered through ``buzzer.cli._COMMAND_MODULES``
(``"buzzer.tournament.server_commands"``); also runnable as
``python -m buzzer.tournament.server_commands …``. Handlers import the
server (FastAPI, uvicorn) only when they run.

* ``serve DB [--host H] [--port P] [--lang ru|en] [--package PATH …]
  [--allowed-host NAME …]`` — serve the standings and accept rooms' results;
  ``--package``: the tournament's question packages (files, or a folder of
  them) that rooms' journals may name (by file name: the server opens no path
  a journal names); ``--allowed-host``: a name the rooms reach it by (besides
  its addresses, which it prints, and ``localhost``): any other ``Host`` is
  refused (400)
* ``token DB ROOM`` — print a new token for a room (its old one stops working)
* ``assign DB GAME ROOM`` — draw a game to a room (or move it): only that
  room's token may report it (``svoyak tournament draw --rooms`` assigns a
  whole draw)
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from buzzer.terminal import shown
from buzzer.tournament.cli import game_number

_DB_HELP = "the tournament's database (a SQLite file)"


def _fail(action: str, message: object) -> int:
    _say(f"svoyak tournament-server {action}: {message}", file=sys.stderr)
    return 2


def _cmd_serve(args: argparse.Namespace) -> int:
    """Serve; ``args.game_statistics`` and ``args.game_report`` are what
    :func:`add_commands` was handed (the game report's, from the app layer)."""
    import uvicorn

    from buzzer.appliance.addresses import WILDCARDS, lan_addresses
    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.server import create_tournament_app

    # The name it listens on is a name it answers to (its addresses it answers anyway).
    allowed = [*args.allowed_host, *([] if args.host in WILDCARDS else [args.host])]
    try:
        app = create_tournament_app(
            args.db,
            lang=args.lang,
            packages=args.package,
            allowed_hosts=allowed,
            statistics=getattr(args, "game_statistics", None),
            report=getattr(args, "game_report", None),
        )
    except TournamentError as exc:
        return _fail("serve", exc)
    for address in lan_addresses(args.host):
        _say(
            f"standings on http://{address}:{args.port}/ "
            f"(print: /print); rooms post to /api/rooms/ROOM/results",
            file=sys.stderr,
        )
    for name in args.allowed_host:
        _say(f"also answers as http://{name}:{args.port}/", file=sys.stderr)
    # X-Forwarded-For is never trusted: served directly, a forged one would hide the client.
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="info",
        proxy_headers=False,
        forwarded_allow_ips=[],
    )
    return 0


def _cmd_token(args: argparse.Namespace) -> int:
    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.server import issue_token

    try:
        token = issue_token(args.db, args.room)
    except TournamentError as exc:
        return _fail("token", exc)
    _say(token)
    return 0


def _cmd_assign(args: argparse.Namespace) -> int:
    from buzzer.tournament.errors import TournamentError
    from buzzer.tournament.store import TournamentStore

    try:
        with TournamentStore(args.db) as store:
            store.assign_room(args.game_id, args.room)
    except TournamentError as exc:
        return _fail("assign", exc)
    _say(f"game {args.game_id}: room {args.room}")
    return 0


def add_commands(subparsers: Any, *, statistics: Any = None, report: Any = None) -> None:
    """Register ``svoyak tournament-server``. ``statistics`` and ``report``: the game
    report's statistics and page of a stored journal
    (:mod:`buzzer.tournament.statistics`), handed in by the app layer
    (``buzzer/app/tournament_cli.py``): the tournament may not import the
    report, which sits a layer above it."""
    server = subparsers.add_parser(
        "tournament-server", help="serve a tournament's standings and take rooms' results"
    )
    actions = server.add_subparsers(dest="tournament_server_command", metavar="ACTION")
    actions.required = True

    serve = actions.add_parser("serve", help="run the tournament server")
    serve.add_argument("db", help=_DB_HELP)
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; 0.0.0.0 for rooms on the network)",
    )
    serve.add_argument("--port", type=int, default=8090, help="port (default 8090)")
    serve.add_argument(
        "--lang", choices=("ru", "en"), default="ru", help="the pages' language (default ru)"
    )
    serve.add_argument(
        "--package",
        action="append",
        default=[],
        metavar="PATH",
        help="a question package of the tournament (.siq/.json), or a folder of them; "
        "repeatable. A room's journal names its package by file name only",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name the rooms reach the server by (a DNS name, a proxy's); repeatable. "
        "Its own addresses and localhost need none; any other Host header is refused (400)",
    )
    serve.set_defaults(handler=_cmd_serve, game_statistics=statistics, game_report=report)

    token = actions.add_parser("token", help="print a new token for a room")
    token.add_argument("db", help=_DB_HELP)
    token.add_argument("room", help="the room's name (letters, digits, '.', '-', '_')")
    token.set_defaults(handler=_cmd_token)

    assign = actions.add_parser(
        "assign", help="draw a game to a room: only that room's token may report it"
    )
    assign.add_argument("db", help=_DB_HELP)
    assign.add_argument("game_id", type=game_number, help="the game's number, as `draw` printed it")
    assign.add_argument("room", help="the room's name, as for `token`")
    assign.set_defaults(handler=_cmd_assign)


def _say(text: object, *, file: Any = None) -> None:
    """Print one line of names from the tournament or the command line, escapes shown."""
    print(shown(text), file=file if file is not None else sys.stdout)
