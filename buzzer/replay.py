"""``svoyak replay``: play a recorded journal through the core, print the decisions.

The journal is read completely and the decisions are printed only when the
whole file is valid: a broken journal prints an error naming its line and
nothing that could be mistaken for a result (docs/journal-contract.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from buzzer.core import InputError
from buzzer.journal.codec import JournalError
from buzzer.journal.codec import decode_journal as decode_journal
from buzzer.journal.resume import rebuild


def replay_lines(lines: Iterable[str], base: Path | None = None) -> list[str]:
    """docs/journal-contract.md input lines (header first) → output lines, the ``result`` last.

    ``base`` is where a question package named by a relative path is looked for
    (the journal's folder).
    """
    core, decisions = rebuild(list(lines), base)
    try:
        core.finish(decisions)
    except InputError as exc:
        raise JournalError(exc.ref, exc.message) from None
    output = [d.to_json() for d in decisions]
    scores, chooser = core.game.result()
    result: dict[str, object] = {
        "type": "result",
        "scores": {str(s): v for s, v in scores.items()},
        "chooser": chooser,
    }
    if core.game.over:
        result["winner"] = core.game.winner
    output.append(json.dumps(result, ensure_ascii=False))
    return output
