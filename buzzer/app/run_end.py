"""What ``svoyak run`` says when the game stops (Ctrl-C, ``systemctl stop``, the
window closed): whether the game is over, where its journal is, and how to go on.

The person who pressed Ctrl-C in the middle of a game night has to find the
game again: the journal's path alone is not enough for a new user, so the
exact command to continue is printed, quoted for the shell as they would type
it. A finished game points to its report instead. Both languages, as the rest
of the banner (:mod:`buzzer.app.both`).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from buzzer.app import both
from buzzer.terminal import shown


def resume_command(journal: Path) -> str:
    """``svoyak run --journal PATH --resume``, the path whole and quoted for a shell
    (absolute: the user may continue from another folder)."""
    return f"svoyak run --journal {shlex.quote(str(journal.absolute()))} --resume"


def stopped_lines(
    journal: Path | None, *, over: bool, played: bool, report: Path | None
) -> list[str]:
    """The lines printed once the game has stopped.

    ``journal`` None: the game kept no journal. ``played`` False: a journal this
    run created that holds nothing but its header (it is removed on the way out).
    """
    if journal is None:
        return [f"svoyak run: {both.slashed('run.stop.not_journaled')}"]
    if not played:
        return [f"svoyak run: {both.slashed('run.stop.unplayed')}"]
    where = f"  {both.slashed('run.journal')}: {shown(str(journal))}"
    if over:
        lines = [f"svoyak run: {both.slashed('run.stop.over')}", where]
        if report is not None:
            lines.append(f"  {both.slashed('run.report')}: {shown(str(report))}")
        return lines
    return [
        f"svoyak run: {both.slashed('run.stop.unfinished')}",
        where,
        f"  {both.slashed('run.stop.continue')}: {shown(resume_command(journal))}",
    ]


def over_lines(journal: Path, report: Path) -> list[str]:
    """What a resumed journal of a finished game offers instead of a game to play.

    The game is served as it ended (the board's game-over screen with the report's
    QR code and the seal, ``/report`` on the panel, the report beside the journal)
    rather than refused: the appliance's service resumes the same journal at every
    boot, and a power cut after the final must still show the result.
    """
    where = shlex.quote(str(journal.absolute()))
    return [
        f"{both.slashed('run.report')}: {shown(str(report))} (/report)",
        f"{both.slashed('run.over.replay')}: svoyak replay --summary {shown(where)}",
        both.slashed("run.over.new_game"),
    ]


__all__ = ["over_lines", "resume_command", "stopped_lines"]
