"""``POST /api/command`` in HTTP: a request in, the host-command service's outcome out.

Everything a host command goes through — its id applied once, the sender, the
pause, the stale version, the seats, the engine's trial, the journal, the
host's sentence for a refusal — is the runtime's host-command service
(``buzzer/runtime/host_commands.py``), the same for the panel, the host's GPIO
buttons and the board's keys. The panel only says it in HTTP: 200 with the
command's line, 409 with the sentence, 503 when the journal could not be
written, a seat the game does not have a 422 (``SeatError``).

The route awaits the outcome without blocking the server's event loop
(:meth:`CommandGate.execute_async`).
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from buzzer.panel.models import CommandRequest
from buzzer.runtime.host_commands import HostCommands
from buzzer.runtime.host_commands import Outcome as CommandOutcome
from buzzer.runtime.host_commands import SeatError as SeatError
from buzzer.runtime.runtime import Runtime


@dataclass(frozen=True, slots=True)
class Outcome:
    """A command's answer in HTTP: the status, the JSON body, whether it repeats an id."""

    status: int
    body: dict[str, Any]
    repeat: bool = False


class CommandGate:
    """The panel's door to the runtime's host-command service."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.commands: HostCommands = runtime.commands

    def execute(self, request: CommandRequest, timeout: float = 30.0) -> Outcome:
        """Submit and wait for the outcome (tests, benchmarks: a thread of their own)."""
        future = self._submit(request)
        if not future.done():
            self.runtime.wait(future, timeout)
        return answer(future.result(timeout))

    async def execute_async(self, request: CommandRequest) -> Outcome:
        """Submit and await the outcome without blocking the server's event loop."""
        return answer(await asyncio.wrap_future(self._submit(request)))

    def _submit(self, request: CommandRequest) -> Future[CommandOutcome]:
        return self.commands.submit(
            request.command.model_dump(), id=request.id, version=request.version
        )


def answer(outcome: CommandOutcome) -> Outcome:
    """The service's outcome as ``POST /api/command`` answers it (docs/panel.md)."""
    refusal = outcome.refusal
    if refusal is not None:
        status = 503 if outcome.error is not None else 409
        return Outcome(status, refusal.body(), outcome.repeat)
    body = {
        "ok": True,
        "id": outcome.id,
        "line": outcome.line,
        "version": outcome.version,
        "decisions": [json.loads(d.to_json()) for d in outcome.decisions],
        "paused": outcome.paused,
    }
    return Outcome(200, body, outcome.repeat)
