"""``svoyak replay --summary``: a game's journal told as a readable account.

The JSON Lines that ``svoyak replay`` prints are exact but long: a host
settling "who pressed first?" after the game, or a technician checking that
the buttons behaved, wants the story instead: each question with who chose
it, who pressed and when (after the signal, or during the reading), by how
much the winner beat the runner-up, false starts and late presses, each
verdict and the scores after it, and the result.

Everything here is read from the decisions the replay makes (the same
objects the JSON Lines print), never from a second reading of the rules, so
the account cannot disagree with the replay. :func:`format_summary` is pure;
:func:`replay_summary` replays a journal first.

A package of one job per module: the replay that gathers the decisions and
the entry points (here), the narrator's per-decision handlers
(:mod:`.narrator`), the words in Russian and English (:mod:`.words`), how a
time, a margin and a score are written (:mod:`.text`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from buzzer.arbiter.decisions import Decision
from buzzer.core import GameCore, InputError
from buzzer.journal.codec import InputParser, JournalError, parse_header
from buzzer.journal.resume import rebuild
from buzzer.replay_summary.narrator import Narrator, Record
from buzzer.replay_summary.text import clock_text, margin_text
from buzzer.replay_summary.words import LANGUAGES
from rules.game import GameSetup
from rules.packages import Package, PackageError
from rules.packages.locate import load_named_package
from rules.state import SpecialKind, Stage


def replay_summary(lines: Iterable[str], base: Path | None = None, lang: str = "ru") -> str:
    """Replay a journal (header first) and tell it; :class:`JournalError` if it is broken.

    The header's package, when it can be read, names the final's themes and a
    cat's own theme (the journal has only their numbers and the cell)."""
    lines = list(lines)
    core, decisions = rebuild(lines, base)  # a broken journal is refused here, line named
    try:
        core.finish(decisions)
    except InputError as exc:
        raise JournalError(exc.ref, exc.message) from None
    return format_summary(core.setup, _records(lines, base), lang, _package(lines[0], base))


def _package(header: str, base: Path | None) -> Package | None:
    """The package the header names, or None (none named, or it cannot be read now)."""
    try:
        name = json.loads(header).get("package")
    except (ValueError, AttributeError):
        return None
    if not isinstance(name, str):
        return None
    try:
        return load_named_package(name, base)
    except (PackageError, OSError):
        return None


def _records(lines: list[str], base: Path | None) -> list[dict[str, Any]]:
    """The replay's decisions as output objects, and one fact they do not carry: the
    value a cat was played for (``cat_value``), read from the game as its receiver
    gets the question (the host's ``cat_price`` or the rules' own value)."""
    core = GameCore(parse_header(lines[0], base))
    parser = InputParser(len(core.setup.players))
    records: list[dict[str, Any]] = []
    told: set[tuple[int, tuple[int, int]]] = set()

    def take(out: list[Decision]) -> None:
        records.extend(json.loads(d.to_json()) for d in out)
        game = core.game
        if game.stage is Stage.SPECIAL and game.special is SpecialKind.CAT and game.cell:
            key = (game.board.round_index, game.cell)
            if key not in told:
                told.add(key)
                t = records[-1].get("t", 0.0) if records else 0.0
                records.append({"t": t, "type": "cat_value", "value": game.value})

    take(list(core.started))
    for line, text in enumerate(lines[1:], 2):
        out: list[Decision] = []
        core.push(parser.parse(text, line), out)
        take(out)
    out = []
    core.finish(out)
    take(out)
    return records


def format_summary(
    setup: GameSetup, records: Sequence[Record], lang: str = "ru", package: Package | None = None
) -> str:
    """The account of a game from its decisions (``svoyak replay``'s output objects);
    ``package``: the game's, for the final's theme names and a cat's own theme."""
    writer = Narrator(setup, lang, package)
    for record in records:
        writer.take(record)
    return writer.finish()


__all__ = [
    "LANGUAGES",
    "Record",
    "clock_text",
    "format_summary",
    "margin_text",
    "replay_summary",
]
