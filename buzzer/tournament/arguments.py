"""What the ``svoyak tournament`` command lines share: the readers of their arguments
(a game's number, a seed, a date), the database argument's help, and how they print
(every name through :func:`buzzer.terminal.shown`) and fail (exit status 2).

Light: imported by :mod:`buzzer.tournament.cli`,
:mod:`buzzer.tournament.series_cli` and
:mod:`buzzer.tournament.server_commands` when ``svoyak`` starts.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from typing import Any

from buzzer.terminal import shown

DB_HELP = "the tournament's database (a SQLite file)"


def date(text: str) -> datetime.date:
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


def seed(text: str) -> int:
    from buzzer.tournament.records import MAX_INTEGER

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number: {text!r}") from None
    if not -MAX_INTEGER - 1 <= value <= MAX_INTEGER:
        raise argparse.ArgumentTypeError(f"a seed is at most {MAX_INTEGER} in size")
    return value


def fail(action: str, message: object) -> int:
    say(f"svoyak tournament {action}: {message}", file=sys.stderr)
    return 2


def say(text: object, *, file: Any = None) -> None:
    """Print one line of names from the tournament or the command line, escapes shown."""
    print(shown(text), file=file if file is not None else sys.stdout)
