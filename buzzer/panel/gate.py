"""Host commands: applied once, refused before the journal when they cannot apply.

``CommandGate.execute`` is what ``POST /api/command`` does:

1. **Applied once.** The client names each command with an id; the first
   result (accepted or refused) is kept and any repeat of that id gets it
   back, so a double tap or a retry over flaky Wi-Fi never scores twice.
2. **Stale.** The command names the snapshot version it was made from; if
   the state has since moved on in a way that matters to that command (for a
   verdict: someone else is answering now; for a bid: the bidding moved),
   it is refused with 409 and a sentence saying what changed.
3. **Refused by the engine.** The controller journals whatever it is given,
   so the command is first applied to a copy of the core (``trial.py``),
   released through the settle window there; a refusal is a 409 and nothing
   reaches the journal.
4. **Submitted**, holding the controller's lock from step 2 on, so no other
   input slips in between the check and the journal.

Pause and resume are panel-level (the journal has no such line): they set the
hub's flag and are broadcast; while paused, only corrections, undo and
resume are accepted.
"""

from __future__ import annotations

import dataclasses
import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from buzzer.arbiter.events import (
    Bid,
    CatGive,
    CatPrice,
    Correction,
    FinalJudge,
    FinalRemove,
    FinalStake,
    Input,
    Judge,
    Objection,
    Pass,
    ReadingEnd,
    ReadingStart,
    Select,
    Tick,
    Timeout,
    Undo,
)
from buzzer.controller import Controller
from buzzer.panel import messages
from buzzer.panel.hub import PanelHub, controller_lock
from buzzer.panel.models import CommandRequest
from buzzer.panel.trial import Refused, try_input

#: For each command, the snapshot fields whose change makes a tap stale: the
#: host tapped while looking at a state that no longer holds.
CONTEXT: dict[str, tuple[str, ...]] = {
    "select": ("stage", "round", "chooser", "shootout"),
    "reading_start": ("stage", "cell", "phase", "answering"),
    "reading_end": ("stage", "cell", "phase", "answering"),
    "judge": ("stage", "cell", "answering", "recognized_at"),
    "timeout": ("stage", "cell", "phase", "answering"),
    "bid": ("stage", "cell", "bidding"),
    "pass": ("stage", "cell", "bidding"),
    "cat_give": ("stage", "cell"),
    "cat_price": ("stage", "cell", "answering"),
    "final_remove": ("stage", "final"),
    "final_stake": ("stage",),
    "final_judge": ("stage", "final"),
    "objection": ("stage", "played", "round"),
    "correction": (),
    "undo": (),
    "pause": (),
    "resume": (),
}

#: Commands accepted while the game is paused.
WHILE_PAUSED = frozenset({"correction", "undo", "pause", "resume"})


@dataclass(frozen=True, slots=True)
class Outcome:
    status: int
    body: dict[str, Any]
    repeat: bool = False


class SeatError(ValueError):
    """A seat the game does not have (a 422: no state makes it valid)."""

    def __init__(self, field: str, ru: str, en: str) -> None:
        super().__init__(en)
        self.field = field
        self.ru = ru
        self.en = en


class CommandGate:
    def __init__(self, controller: Controller, hub: PanelHub, remember: int = 2000) -> None:
        self.controller = controller
        self.hub = hub
        self._results: OrderedDict[str, tuple[str, Outcome]] = OrderedDict()
        self._remember = remember

    def execute(self, request: CommandRequest) -> Outcome:
        command = request.command.model_dump()
        fingerprint = json.dumps(command, sort_keys=True)
        lock = controller_lock(self.controller)
        with lock:
            seen = self._results.get(request.id)
            if seen is not None:
                if seen[0] != fingerprint:
                    return Outcome(409, messages.ID_REUSED.body())
                return dataclasses.replace(seen[1], repeat=True)
            outcome = self._execute(request, command)
            self._results[request.id] = (fingerprint, outcome)
            while len(self._results) > self._remember:
                self._results.popitem(last=False)
        if outcome.status == 200 and command["type"] in ("pause", "resume"):
            self.hub.set_paused(command["type"] == "pause")
        return outcome

    def _execute(self, request: CommandRequest, command: dict[str, Any]) -> Outcome:
        controller = self.controller
        kind = command["type"]
        hub = self.hub
        if hub.paused and kind not in WHILE_PAUSED:
            return Outcome(409, messages.PAUSED.body())
        now_snapshot = controller.snapshot()
        if request.version is not None:
            stale = self._stale(kind, request.version, now_snapshot)
            if stale is not None:
                return Outcome(409, stale.body())
        self._check_seats(command, len(now_snapshot["players"]))
        if kind in ("pause", "resume"):
            return Outcome(200, self._result(request, None, [], kind == "pause"))
        item = to_input(command, controller.now())
        try:
            try_input(controller.core, item)
        except Refused as exc:
            return Outcome(409, messages.refused(command, now_snapshot, exc.message).body())
        decisions = controller.submit(item)
        line = journal_line(controller, item)
        decisions += controller.tick()
        return Outcome(200, self._result(request, line, decisions, hub.paused))

    def _result(
        self, request: CommandRequest, line: int | None, decisions: list[Any], paused: bool
    ) -> dict[str, Any]:
        return {
            "ok": True,
            "id": request.id,
            "line": line,
            "version": self.controller.version,
            "decisions": [json.loads(d.to_json()) for d in decisions],
            "paused": paused,
        }

    def _stale(self, kind: str, version: int, now: dict[str, Any]) -> messages.Message | None:
        fields = CONTEXT.get(kind, ())
        if version > now["version"]:
            return messages.UNKNOWN_VERSION
        if not fields or version == now["version"]:
            return None
        then = self.hub.snapshot_at(version)
        if then is None:
            return messages.UNKNOWN_VERSION
        if any(then.get(f) != now.get(f) for f in fields):
            return messages.stale(kind, then, now)
        return None

    @staticmethod
    def _check_seats(command: dict[str, Any], players: int) -> None:
        seat = command.get("seat")
        if isinstance(seat, int) and not 1 <= seat <= players:
            ru, en = messages.no_such_seat(seat, players)
            raise SeatError("seat", ru, en)


def to_input(command: dict[str, Any], t: int) -> Input:
    """A validated command (``models.Command`` as a dict) → the engine's input at ``t``."""
    kind = command["type"]
    if kind == "select":
        return Select(t, command.get("theme"), command.get("price"))
    if kind == "reading_start":
        return ReadingStart(t)
    if kind == "reading_end":
        return ReadingEnd(t)
    if kind == "judge":
        return Judge(t, command["verdict"] == "correct")
    if kind == "timeout":
        return Timeout(t)
    if kind == "bid":
        return Bid(t, command["seat"], command["amount"])
    if kind == "pass":
        return Pass(t, command["seat"])
    if kind == "cat_give":
        return CatGive(t, command["seat"])
    if kind == "cat_price":
        return CatPrice(t, command["price"])
    if kind == "final_remove":
        return FinalRemove(t, command["theme"], command.get("seat"))
    if kind == "final_stake":
        return FinalStake(t, command["seat"], command.get("amount"))
    if kind == "final_judge":
        return FinalJudge(t, command["verdict"] == "correct", command.get("seat"))
    if kind == "correction":
        return Correction(t, command["seat"], command["delta"], command["reason"])
    if kind == "objection":
        return Objection(t, command["seat"])
    if kind == "undo":
        return Undo(t, command["line"])
    raise ValueError(f"not an engine command: {kind}")


def journal_line(controller: Controller, item: Input) -> int | None:
    """The journal line the controller gave ``item`` (call under its lock, right after submit).

    The core keeps every input with its line as ``ref``; an undo is kept as the
    tick it begins with.
    """
    history = controller.core.history
    for pushed in reversed(history[-8:]):
        if isinstance(item, Undo):
            if isinstance(pushed, Tick) and pushed.t == item.t:
                return pushed.ref
        elif type(pushed) is type(item) and dataclasses.replace(pushed, ref=0) == item:
            return pushed.ref
    return None
