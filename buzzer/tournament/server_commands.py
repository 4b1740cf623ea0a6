"""``svoyak tournament-server …``: the server rooms report results to (issue 8, item 3).

Registered through ``buzzer.cli._COMMAND_MODULES``
(``"buzzer.tournament.server_commands"``); also runnable as
``python -m buzzer.tournament.server_commands …``. Handlers import the
server (FastAPI, uvicorn) only when they run.

* ``serve DB [--host H] [--port P] [--lang ru|en]`` — serve the standings
  and accept rooms' results
* ``token DB ROOM`` — print a new token for a room (its old one stops working)
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

_DB_HELP = "the tournament's database (a SQLite file)"


def _fail(action: str, message: object) -> int:
    print(f"svoyak tournament-server {action}: {message}", file=sys.stderr)
    return 2


def _cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from buzzer.tournament.server import create_tournament_app
    from buzzer.tournament.store import TournamentError

    try:
        app = create_tournament_app(args.db, lang=args.lang)
    except TournamentError as exc:
        return _fail("serve", exc)
    print(
        f"standings on http://{args.host}:{args.port}/ "
        f"(print: /print); rooms post to /api/rooms/ROOM/results",
        file=sys.stderr,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return 0


def _cmd_token(args: argparse.Namespace) -> int:
    from buzzer.tournament.server import issue_token
    from buzzer.tournament.store import TournamentError

    try:
        token = issue_token(args.db, args.room)
    except TournamentError as exc:
        return _fail("token", exc)
    print(token)
    return 0


def add_commands(subparsers: Any) -> None:
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
    serve.set_defaults(handler=_cmd_serve)

    token = actions.add_parser("token", help="print a new token for a room")
    token.add_argument("db", help=_DB_HELP)
    token.add_argument("room", help="the room's name (letters, digits, '.', '-', '_')")
    token.set_defaults(handler=_cmd_token)
