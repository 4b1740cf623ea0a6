"""Host commands: applied once, refused before the journal when they cannot apply.

``CommandGate.execute`` is what ``POST /api/command`` does:

1. **Applied once.** The client names each command with an id; the first
   result (accepted or refused) is kept and any repeat of that id gets it
   back, so a double tap or a retry over flaky Wi-Fi never scores twice.
   The id is journaled with the command's line (docs/journal.md): after a
   restart (``--resume``) a retry of a journaled command is answered with
   its journal line (``repeat``), never applied again.
2. **Stale.** The command names the snapshot version it was made from; if
   the state has since moved on in a way that matters to that command (for a
   verdict: someone else is answering now; for a bid: the bidding moved),
   it is refused with 409 and a sentence saying what changed.
3. **Submitted to the runtime** (``buzzer/runtime``), stamped now: when its
   time is proven complete (every press stamped before it has been applied),
   the runtime tries it on a copy of the core (``buzzer/runtime/trial.py``);
   an engine refusal is a 409 and nothing reaches the journal. Otherwise it
   is journaled and applied, and the answer carries its journal line.

The route awaits the outcome without blocking the server's event loop
(:meth:`CommandGate.execute_async`).

A final stake above the finalist's score is refused here, before the
runtime: the rules would count it as all-in, but from the host's tablet it
is a typo (``messages.stake_above_score``).

Pause and resume are journaled inputs of the engine (A-G-D1: every clock
stops): submitted like any command, then the hub's flag follows and is
broadcast; while paused, only corrections, undo and resume are accepted.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
from collections import OrderedDict
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from buzzer.arbiter.events import (
    Bid,
    BonusReply,
    CatGive,
    CatPicture,
    CatPrice,
    Correction,
    FinalJudge,
    FinalRemove,
    FinalStake,
    Input,
    Judge,
    Objection,
    Pass,
    Pause,
    ReadingEnd,
    ReadingStart,
    Resume,
    Select,
    Timeout,
    Undo,
)
from buzzer.errors import SvoyakError
from buzzer.journal.encode import command_key, encode_input
from buzzer.panel import messages
from buzzer.panel.hub import PanelHub
from buzzer.panel.models import CommandRequest
from buzzer.runtime.runtime import Accepted, CommandRefused, Runtime
from rules.snapshot import LiveSnapshot

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
    "bonus": ("stage", "bonus"),
    "cat_picture": ("stage", "cell", "cat_series"),
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


class SeatError(SvoyakError, ValueError):
    """A seat the game does not have (a 422: no state makes it valid)."""

    def __init__(self, field: str, ru: str, en: str) -> None:
        super().__init__(en)
        self.field = field
        self.ru = ru
        self.en = en


class CommandGate:
    """The panel's side of host commands: ids, staleness, pause; the runtime does the rest."""

    def __init__(self, runtime: Runtime, hub: PanelHub, remember: int = 2000) -> None:
        self.runtime = runtime
        self.controller = runtime.controller
        self.hub = hub
        self._lock = threading.Lock()
        self._results: OrderedDict[str, tuple[str, Future[Outcome]]] = OrderedDict()
        self._remember = remember

    def execute(self, request: CommandRequest, timeout: float = 30.0) -> Outcome:
        """Submit and wait for the outcome (tests, benchmarks: a thread of their own)."""
        future, repeat = self._begin(request)
        if not future.done():
            self.runtime.wait(future, timeout)
        outcome = future.result(timeout)
        return dataclasses.replace(outcome, repeat=True) if repeat else outcome

    async def execute_async(self, request: CommandRequest) -> Outcome:
        """Submit and await the outcome without blocking the server's event loop."""
        future, repeat = self._begin(request)
        outcome = await asyncio.wrap_future(future)
        return dataclasses.replace(outcome, repeat=True) if repeat else outcome

    def _begin(self, request: CommandRequest) -> tuple[Future[Outcome], bool]:
        """The outcome's future, and whether it answers an id seen before."""
        command = request.command.model_dump()
        fingerprint = json.dumps(command, sort_keys=True)
        with self._lock:
            seen = self._results.get(request.id)
            if seen is not None:
                if seen[0] != fingerprint:
                    return _done(Outcome(409, messages.ID_REUSED.body())), False
                return seen[1], True
            journaled = self.controller.journaled_command(request.id)
            if journaled is not None:
                # Given before a restart (or long forgotten here): the journal has it.
                outcome = self._journaled(request, command, *journaled)
                return _done(outcome), outcome.status == 200
            future = self._start(request, command)
            self._results[request.id] = (fingerprint, future)
            while len(self._results) > self._remember:
                self._results.popitem(last=False)
        return future, False

    def _start(self, request: CommandRequest, command: dict[str, Any]) -> Future[Outcome]:
        kind = command["type"]
        hub = self.hub
        if hub.paused and kind not in WHILE_PAUSED:
            return _done(Outcome(409, messages.PAUSED.body()))
        now_snapshot = self.controller.snapshot()
        if request.version is not None:
            stale = self._stale(kind, request.version, now_snapshot)
            if stale is not None:
                return _done(Outcome(409, stale.body()))
        self._check_seats(command, len(now_snapshot["players"]))
        too_high = self._stake_above_score(command, now_snapshot)
        if too_high is not None:
            return _done(Outcome(409, too_high.body()))
        submitted = self.runtime.command(lambda t: to_input(command, t), command_id=request.id)
        outcome: Future[Outcome] = Future()

        def finish(done: Future[Any]) -> None:
            try:
                accepted: Accepted = done.result()
            except CommandRefused as exc:
                body = messages.refused(command, now_snapshot, exc.message).body()
                outcome.set_result(Outcome(409, body))
                return
            except Exception as exc:  # the journal could not be written: nothing happened
                outcome.set_result(Outcome(503, messages.journal_failed(str(exc)).body()))
                return
            if kind in ("pause", "resume"):
                # A journaled input of the engine (A-G-D1): the hub's flag follows it.
                hub.set_paused(kind == "pause")
            body = self._result(request, accepted.line, accepted.decisions, hub.paused)
            outcome.set_result(Outcome(200, body))

        submitted.add_done_callback(finish)
        return outcome

    def _journaled(
        self, request: CommandRequest, command: dict[str, Any], line: int, key: str
    ) -> Outcome:
        """The outcome of a command the journal holds under this id: its line (the
        decisions it made then are in the journal, not repeated here)."""
        try:
            same = command_key(encode_input(to_input(command, 0))) == key
        except ValueError:  # not an engine command: never this id's command
            same = False
        if not same:
            return Outcome(409, messages.ID_REUSED.body())
        return Outcome(200, self._result(request, line, [], self.hub.paused))

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

    def _stale(self, kind: str, version: int, now: LiveSnapshot) -> messages.Message | None:
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
    def _stake_above_score(
        command: dict[str, Any], snapshot: LiveSnapshot
    ) -> messages.Message | None:
        """A final stake above the finalist's score (see :func:`messages.stake_above_score`).

        Only for a stake the engine would take otherwise (the final's stakes, a
        finalist): any other refusal stays the engine's.
        """
        amount = command.get("amount")
        seat = command.get("seat")
        final = snapshot.get("final")
        if (
            command["type"] != "final_stake"
            or amount is None
            or snapshot.get("stage") != "final_stakes"
            or not isinstance(seat, int)
            or final is None
            or seat not in final["seats"]
        ):
            return None
        score = int(snapshot["scores"][str(seat)])
        if amount <= score:
            return None
        return messages.stake_above_score(snapshot, seat, amount, score)

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
    if kind == "bonus":
        return BonusReply(t, command["accept"])
    if kind == "cat_picture":
        return CatPicture(t)
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
    if kind == "pause":
        return Pause(t)
    if kind == "resume":
        return Resume(t)
    raise ValueError(f"not an engine command: {kind}")


def _done(outcome: Outcome) -> Future[Outcome]:
    future: Future[Outcome] = Future()
    future.set_result(outcome)
    return future
