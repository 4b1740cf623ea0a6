"""Try a host command on a copy of the core before the controller journals it.

The controller journals every input *before* applying it (the journal is the
record of what happened), so a command the engine refuses must never reach
it: the journal would then hold a line that a replay refuses. The panel
therefore applies each host command to a throwaway copy of the core first,
followed by a tick at the end of the settle window (a host command is held
in the reorder buffer like any input, so its effect, and any refusal, comes
only when it is released). Whatever the engine refuses on the copy is
answered with a 409 and never submitted.

The copy is :meth:`buzzer.core.GameCore.copy`: a deep copy that shares the
immutable parts (the setup, the rule system, the inputs of the history).
"""

from __future__ import annotations

import logging
from typing import Any

from buzzer.arbiter.events import Input, Tick
from buzzer.arbiter.machine import SequenceError
from buzzer.core import GameCore, InputError
from buzzer.errors import SvoyakError

log = logging.getLogger(__name__)


class Refused(SvoyakError):
    """The engine refused a command on the copy; ``message`` is the engine's."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def try_input(core: GameCore, item: Input) -> None:
    """Apply ``item`` to a copy of ``core`` and release it; raise :class:`Refused` if refused."""
    twin = core.copy()
    scratch: list[Any] = []
    try:
        twin.push(item, scratch)
        twin.push(Tick(item.t + twin.buffer.settle_ns + 1), scratch)
    except InputError as exc:
        raise Refused(exc.message) from None
    except SequenceError as exc:
        raise Refused(str(exc)) from None
    except SvoyakError as exc:  # any other refusal the engine meant to make
        raise Refused(str(exc)) from None
    except Exception as exc:
        # A bug in the engine: the command must not reach the journal (the game
        # would not replay), and the game goes on. The traceback is logged, never
        # swallowed, so the bug can be reported and fixed.
        log.exception("the engine failed on %r", item)
        raise Refused(
            f"the engine could not apply this command ({type(exc).__name__}: a bug, logged); "
            "the game goes on without it"
        ) from None
