"""Refusals of the host-command service that are no rule of the game: slips of the finger.

The engine decides what a command means; a few commands it would take are,
typed on the host's tablet, far likelier a typo than meant. Each guard here
names one, and says why in the host's sentence (``refusals.py``). A command
needs none: the engine's refusal is the rule. A guard gets the command and a
way to the snapshot (``now()``), taken only if it needs it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from buzzer.runtime.refusals import Message, stake_above_score
from rules.snapshot import LiveSnapshot


def final_stake_above_score(
    command: Mapping[str, Any], now: Callable[[], LiveSnapshot]
) -> Message | None:
    """A final stake above the finalist's score (:func:`refusals.stake_above_score`).

    The rules count a written stake above the score as all-in (C2003-2.7-D3), so
    the engine would take it. Only for a stake the engine would take otherwise
    (the final's stakes, a finalist): any other refusal stays the engine's.
    """
    amount = command.get("amount")
    seat = command.get("seat")
    if command.get("type") != "final_stake" or not isinstance(amount, int):
        return None
    snapshot = now()
    final = snapshot.get("final")
    if (
        snapshot.get("stage") != "final_stakes"
        or not isinstance(seat, int)
        or final is None
        or seat not in final["seats"]
    ):
        return None
    score = int(snapshot["scores"][str(seat)])
    if amount <= score:
        return None
    return stake_above_score(snapshot, seat, amount, score)


#: Every guard, in the order they are asked.
GUARDS = (final_stake_above_score,)
