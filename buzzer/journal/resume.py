"""Resume a game from its journal: rebuild exactly the state it had.

The journal holds every input before its effect was shown, so replaying its
lines through a fresh core gives the same decisions and the same state,
whatever instant the previous process died at.
"""

from __future__ import annotations

from pathlib import Path

from buzzer.arbiter.decisions import Decision
from buzzer.core import GameCore, InputError
from buzzer.journal.codec import InputParser, JournalError, parse_header
from buzzer.journal.store import JournalStore


def rebuild(lines: list[str], base: Path | None = None) -> tuple[GameCore, list[Decision]]:
    """A core fed every journal line (header first), and the decisions it made."""
    if not lines:
        raise JournalError(1, "the journal is empty: line 1 must be the game header")
    core = GameCore(parse_header(lines[0], base))
    parser = InputParser(len(core.setup.players))
    decisions: list[Decision] = list(core.started)
    line = 1
    try:
        for line, text in enumerate(lines[1:], 2):
            core.push(parser.parse(text, line), decisions)
    except InputError as exc:
        raise JournalError(exc.ref or line, exc.message) from None
    except (AssertionError, KeyError, IndexError, ValueError, TypeError, RecursionError) as exc:
        # An engine bug must not be a traceback either: the line that met it is named.
        raise JournalError(
            line, f"the engine could not apply this line ({type(exc).__name__}: {exc})"
        ) from None
    return core, decisions


def resume(store: JournalStore) -> tuple[GameCore, list[Decision]]:
    """The game in ``store``, rebuilt (packages are looked for beside the database)."""
    return rebuild(list(store.lines()), store.path.resolve().parent)
