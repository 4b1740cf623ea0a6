"""``svoyak tournament`` and ``svoyak tournament-server`` with the game report's reading.

The tournament's standings show each player's statistics over every reported
game, and its server links each game's report. Both are the
game report's (``buzzer/report/``: what a reaction time is, docs/report.md),
which sits a layer above the tournament (it draws in the board's palette), so
the tournament cannot import it. The composition is here, as the panel's
``/report`` is composed in :mod:`buzzer.app.game_report`: the tournament's
commands are registered with the two functions below, and only add up and
serve what they are given (:mod:`buzzer.tournament.statistics`).

The report is imported when a function runs, not when the CLI parses its
arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from buzzer.tournament.records import StoredJournal
from buzzer.tournament.statistics import SeatStatistics


def _base(journal: StoredJournal) -> Path | None:
    return None if journal.base is None else Path(journal.base)


def game_statistics(journal: StoredJournal) -> Sequence[SeatStatistics]:
    """A stored journal's seats' statistics, as ``svoyak report`` reads them (seat order).

    Raises :class:`buzzer.journal.codec.JournalError` (or OSError: its package is
    gone) when it cannot be replayed."""
    from buzzer.report.model import build_report

    report = build_report(journal.replay_lines(), _base(journal))
    return tuple(
        SeatStatistics(
            reactions_us=p.reactions_us,
            false_starts=p.false_starts,
            right=p.right,
            wrong=p.wrong,
        )
        for p in report.stats
    )


def game_report(journal: StoredJournal, lang: str) -> str:
    """A stored journal's report page (``svoyak report``'s), with its seal when the
    lines as reported carry a whole chain (docs/journal.md)."""
    from buzzer.journal.seal import short, split_link, verify
    from buzzer.report.html import render_report
    from buzzer.report.model import build_report

    report = build_report(journal.replay_lines(), _base(journal))
    found = verify([split_link(line) for line in journal.lines])
    seal = short(found.seal) if found.seal is not None else None
    return render_report(report, "en" if lang == "en" else "ru", seal=seal)


def add_commands(subparsers: Any) -> None:
    """Register both tournament command groups (buzzer/cli.py's ``_COMMAND_MODULES``)."""
    from buzzer.tournament import cli, server_commands

    cli.add_commands(subparsers, statistics=game_statistics)
    server_commands.add_commands(subparsers, statistics=game_statistics, report=game_report)
