"""``svoyak report GAME [-o FILE.html] [--lang en]``: the report of a game's journal.

Thin, as every subcommand (buzzer/cli.py): open the journal as ``svoyak
replay`` does (JSON Lines, or a game's SQLite journal by its magic bytes),
build the model, render the page, write it. A journal that cannot be read
or does not replay: exit status 2 and one line on stderr naming it (the
line, for a broken journal), and no page is written.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from buzzer.terminal import shown

_PROG = "svoyak report"


def read_journal(path: str) -> tuple[list[str], Path | None]:
    """The journal's lines and the folder its package is looked for in (``-``: stdin).

    As ``svoyak replay`` reads it: a file starting with SQLite's magic is a
    game's database (read-only), anything else JSON Lines. Raises OSError,
    :class:`buzzer.journal.store.JournalStoreError` or :class:`JournalError`."""
    from buzzer.replay import decode_journal

    if path == "-":
        return decode_journal(sys.stdin.buffer.read()), None
    with open(path, "rb") as file:
        data = file.read()
    base = Path(path).resolve().parent
    if data.startswith(b"SQLite format 3\x00"):
        from buzzer.journal.store import JournalStore

        with JournalStore(path, readonly=True) as store:
            return list(store.lines()), base
    return decode_journal(data), base


def file_date(path: Path) -> str:
    """The date the report gives a journal whose header names none: its file's
    modification date, UTC (``2026-12-05``). The CLI and the live game's ``/report``
    (``buzzer/app/game_report.py``) both take it from here, so they agree."""
    return datetime.fromtimestamp(path.stat().st_mtime, UTC).date().isoformat()


def _seal(path: str, lines: list[str]) -> str | None:
    """The journal's seal in its short form, when its chain is whole (docs/journal.md).

    A broken chain puts no seal on the page and says so on stderr: the report
    shows what the journal says, the seal whether anyone changed it since."""
    from buzzer.journal.seal import short, split_link, verify
    from buzzer.journal.verify import read_rows

    rows = [split_link(line) for line in lines] if path == "-" else read_rows(Path(path))
    found = verify(rows)
    if found.seal is not None:
        return short(found.seal)
    if found.sealed:
        print(
            f"{_PROG}: the journal's seal is broken at line {found.first_bad} "
            f"(svoyak journal verify): the report shows no seal",
            file=sys.stderr,
        )
    return None


def _cmd_report(args: argparse.Namespace) -> int:
    from buzzer.journal.codec import JournalError
    from buzzer.journal.store import JournalStoreError
    from buzzer.report.html import render_report
    from buzzer.report.model import build_report

    path: str = args.path
    try:
        lines, base = read_journal(path)
        report = build_report(lines, base)
    except OSError as exc:
        print(f"{_PROG}: cannot read {shown(path)}: {shown(exc.strerror)}", file=sys.stderr)
        return 2
    except JournalStoreError as exc:
        print(f"{_PROG}: {shown(exc)}", file=sys.stderr)
        return 2
    except JournalError as exc:
        print(f"{_PROG}: {shown(path)}: {shown(exc)}", file=sys.stderr)
        return 2
    played = None if path == "-" else file_date(Path(path))
    seal = _seal(path, lines)
    page = render_report(report, args.lang, seal=seal, played=played)
    data = page.encode("utf-8")
    if args.output in (None, "-"):
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return 0
    try:
        Path(args.output).write_bytes(data)
    except OSError as exc:
        print(f"{_PROG}: cannot write {shown(args.output)}: {shown(exc.strerror)}", file=sys.stderr)
        return 2
    print(f"{_PROG}: {shown(args.output)}", file=sys.stderr)
    return 0


def add_commands(commands: Any) -> None:
    """Register ``svoyak report`` (buzzer/cli.py's ``_COMMAND_MODULES``)."""
    report = commands.add_parser(
        "report",
        help="a game's report as one self-contained HTML page: every press of every "
        "question, the score over the game, each player's reaction times",
        description="Replay a game journal (JSON Lines or a game's SQLite journal) and write "
        "its report: one HTML file with inline SVG and CSS (nothing fetched, no script; prints "
        "to A4): per question a picture of every press from the signal, the margin and the "
        "verdicts; the score over the game; each player's reaction times, presses won, "
        "right and wrong, points by round. Exit status 2 for a journal that cannot be read "
        "or does not replay (its line named). See docs/report.md.",
    )
    report.add_argument(
        "path", help="the journal: JSON Lines, a game's SQLite journal, or - for standard input"
    )
    report.add_argument(
        "-o",
        "--output",
        metavar="FILE.html",
        help="where to write the page (default: standard output)",
    )
    report.add_argument(
        "--lang", choices=("ru", "en"), default="ru", help="the report's language (default ru)"
    )
    report.set_defaults(handler=_cmd_report)
