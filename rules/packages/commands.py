"""``svoyak package …``: question packages on the command line.

Registered through ``buzzer.cli._COMMAND_MODULES``.

Keep this module light: it is imported every time ``svoyak`` parses its
arguments, so the handlers import the readers when they run.

- ``svoyak package inspect FILE [--json] [--lang ru|en]`` — what a package
  holds (rounds, themes, prices, kinds, answers), checked before a game.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def add_commands(subparsers: Any) -> None:
    """Register ``svoyak package`` on ``svoyak``'s subparsers."""
    package = subparsers.add_parser(
        "package",
        help="question packages: inspect one before a game",
        description="Question packages: SIGame .siq, the project's own .json "
        "(docs/packages.md), or svoyak:demo.",
    )
    actions = package.add_subparsers(dest="package_command", metavar="ACTION")
    actions.required = True
    inspect = actions.add_parser(
        "inspect",
        help="print a package's rounds, themes, prices, question kinds and answers",
        description="Read a question package as a game would and print what it holds: every "
        "round, theme and price, each question's kind (normal, auction, cat in the bag, "
        "sponsor) and answer, what the package says about its special questions, and the "
        "reader's warnings. A package that cannot be played: one line on stderr, exit status 2.",
    )
    inspect.add_argument("file", help="a .siq, the project's .json, or svoyak:demo")
    inspect.add_argument(
        "--json",
        action="store_true",
        help="print JSON: {name, rounds: [{name, final, themes: [{name, questions: "
        "[{price, kind, answer, …}]}]}]}",
    )
    inspect.add_argument(
        "--lang", choices=("ru", "en"), default="ru", help="the table's language (default ru)"
    )
    inspect.set_defaults(handler=_cmd_inspect)


def _cmd_inspect(args: argparse.Namespace) -> int:
    from rules.packages.inspect import load_package, package_dict, package_table
    from rules.packages.model import PackageError

    try:
        package = load_package(args.file)
    except PackageError as exc:
        return _fail(str(exc))
    except RecursionError:
        return _fail(f"{args.file}: the package is nested too deeply to be read")
    if args.json:
        text = json.dumps(package_dict(package), ensure_ascii=False, indent=2) + "\n"
    else:
        text = package_table(package, args.lang)
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.flush()
    return 0


def _fail(message: str) -> int:
    # One line whatever the package put into the message (a name with newlines).
    print(f"svoyak package inspect: {' '.join(message.split())}", file=sys.stderr)
    return 2
