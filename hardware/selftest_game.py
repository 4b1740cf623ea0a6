"""The self-test's fairness presses through a running game, wired as ``svoyak run`` wires one.

Why not a bare :class:`~buzzer.core.GameCore`: pushed both presses and then a
made-up tick, a core cannot rule a press ``late`` nor take long to decide, so
"never late" and the delivery delay could not fail. Here the input path's
own thread (gpiozero's callbacks, the Pico link's reader) hands each press
to a source of the live :class:`~buzzer.runtime.runtime.Runtime` — the GPIO
source proven by ``ButtonBank.proven_until``, the Pico's by its link's
watermark — and the runtime's thread orders, decides and journals it in a
real SQLite file before any listener hears of it. The check reads the
decisions where the panel does (a controller listener, after the commit)
and times each from the edge's stamp: what a player's press goes through
in a game, wait bound and all.
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buzzer.arbiter.decisions import Decision, FalseStart, Ignored, Recognized, Tie
from buzzer.arbiter.events import Judge, Press, ReadingEnd, ReadingStart, Release, Select, Timeout
from buzzer.arbiter.machine import LOCKED, NOT_OPEN
from buzzer.journal.store import JournalStore
from buzzer.runtime.controller import Controller
from buzzer.runtime.runtime import DEFAULT_WAIT_BOUND_NS, CommandRefused, Runtime
from rules.snapshot import LiveSnapshot

#: The header's board: prices of a theme, and at most this many themes a round.
PRICES = (10, 20, 30, 40, 50, 60, 70, 80, 90, 100)
MAX_THEMES = 100
#: How long a host command may take to be applied.
COMMAND_TIMEOUT_S = 10.0
#: Commands tried to close a trial's question before the self-test gives up.
CLOSE_ATTEMPTS = 4
#: ...each waited for this long past the wait bound before the next.
CLOSE_SLACK_NS = 500_000_000
#: The ``Ignored`` reasons that mean "stamped before the question was open to presses".
EARLY_REASONS = frozenset({NOT_OPEN, LOCKED})
#: The decisions about a press the check waits for.
PRESS_DECISIONS = (Recognized, Ignored, FalseStart, Tie)


def board_for(questions: int) -> dict[str, Any]:
    """A journal header's ``board`` with a cell for each of ``questions`` questions.

    The host selects "the next cell" each time; the core moves on to the
    next round by itself when a round's cells are used up.
    """
    rounds: list[dict[str, Any]] = []
    left = max(1, questions)
    while left > 0:
        themes = min(MAX_THEMES, -(-left // len(PRICES)))
        rounds.append({"name": f"R{len(rounds) + 1}", "themes": themes, "prices": list(PRICES)})
        left -= MAX_THEMES * len(PRICES)
    return {"rounds": rounds}


@dataclass(frozen=True)
class TrialOutcome:
    """What the running game decided about one pair of presses."""

    #: The seat recognized (after a tie: the journaled draw's winner), or None.
    winner: int | None
    tie: bool
    #: Seats whose press was ruled ``late`` (its source's time not proven in the wait bound).
    late: tuple[int, ...]
    #: Seats whose press was ruled a false start or otherwise early.
    early: tuple[int, ...]
    #: The listener's monotonic ns when the winner (or the tie) was announced.
    decided_ns: int | None


class _Decisions:
    """A controller listener: the press decisions of the current trial, stamped on arrival."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.trial = -1
        self.seen: dict[int, list[tuple[Decision, int]]] = {}

    def __call__(self, decisions: list[Decision], snapshot: LiveSnapshot) -> None:
        now = time.monotonic_ns()
        with self.cond:
            rows = self.seen.setdefault(self.trial, [])
            rows.extend((d, now) for d in decisions if isinstance(d, PRESS_DECISIONS))
            self.cond.notify_all()

    def start(self, trial: int) -> None:
        with self.cond:
            self.trial = trial
            self.seen.pop(trial, None)

    def wait(self, trial: int, seats: tuple[int, int], timeout_s: float) -> TrialOutcome:
        def decided_seats() -> set[int]:
            rows = self.seen.get(trial, ())
            return {d.seat for d, _ in rows if isinstance(d, Recognized | Ignored | FalseStart)}

        with self.cond:
            self.cond.wait_for(lambda: set(seats) <= decided_seats(), timeout_s)
            rows = list(self.seen.get(trial, ()))
        winner = next((d for d, _ in rows if isinstance(d, Recognized)), None)
        tie_at = next((ns for d, ns in rows if isinstance(d, Tie)), None)
        won_at = next((ns for d, ns in rows if isinstance(d, Recognized)), None)
        ignored = [d for d, _ in rows if isinstance(d, Ignored) and d.seat in seats]
        early = {d.seat for d, _ in rows if isinstance(d, FalseStart) and d.seat in seats}
        early |= {d.seat for d in ignored if d.reason in EARLY_REASONS}
        return TrialOutcome(
            winner=None if winner is None else winner.seat,
            tie=tie_at is not None,
            late=tuple(d.seat for d in ignored if d.reason == "late"),
            early=tuple(sorted(early)),
            decided_ns=tie_at if tie_at is not None else won_at,
        )


def _judge_right(t: int) -> Judge:
    """The host's verdict on a trial's answer: right (the self-test judges no content)."""
    return Judge(t, True)


class SelftestGame:
    """A game of ``rules_id`` for ``seats`` players, running, its journal a real SQLite file.

    ``wait_bound_ns``: the runtime's wait bound (how long a source's time
    may lag before its presses are ruled ``late``); the game's own by default.
    """

    def __init__(
        self,
        rules_id: str,
        seats: int,
        questions: int,
        *,
        wait_bound_ns: int | None = None,
        folder: Path | None = None,
    ) -> None:
        self._tmp = None if folder is not None else tempfile.TemporaryDirectory(prefix="svoyak-")
        where = folder if folder is not None else Path(self._tmp.name)  # type: ignore[union-attr]
        self.journal = where / "selftest.sqlite"
        self.store = JournalStore(self.journal)
        header = {
            "rules": rules_id,
            "players": [f"seat {s}" for s in range(1, seats + 1)],
            "chooser": 1,
            "board": board_for(questions),
        }
        self.controller = Controller.new(header, self.store)
        self.decisions = _Decisions()
        self.controller.subscribe(self.decisions)
        self.wait_bound_ns = DEFAULT_WAIT_BOUND_NS if wait_bound_ns is None else wait_bound_ns
        self.runtime = Runtime(self.controller, wait_bound_ns=self.wait_bound_ns).start()
        self._trial = 0
        self._open = False

    def gpio_sink(
        self, proven_until: Callable[[], int | None]
    ) -> Callable[[Press | Release], object]:
        """A GPIO source of the game, proven as the game's ``attach_gpio`` proves it."""
        source = self.runtime.edge_source("gpio")
        source.proof = proven_until
        return source.put

    def link_sink(self, link: Any) -> Callable[[Press | Release], object]:
        """The Pico's source of the game, proven by its link's watermark (``attach_bridge``)."""
        return self.runtime.link_source("pico", link).put

    def _command(self, make: Callable[[int], Any]) -> None:
        self.runtime.wait(self.runtime.command(make), timeout=COMMAND_TIMEOUT_S)

    def open_question(self) -> int:
        """The host selects the next cell and reads it to its end; the trial's number."""
        self._command(lambda t: Select(t, None, None))
        self._command(ReadingStart)
        self._command(ReadingEnd)
        self._open = True
        self._trial += 1
        self.decisions.start(self._trial)
        return self._trial

    def outcome(self, trial: int, seats: tuple[int, int], timeout_s: float) -> TrialOutcome:
        return self.decisions.wait(trial, seats, timeout_s)

    def close_question(self, answered: bool) -> None:
        """The host judges the answer right, or calls the question dead when nobody has it.

        ``answered`` is what the trial saw within its wait. On a starved machine
        the game may have moved on since (a press that arrived after the wait
        took the floor, or the window closed by itself): a refused command is
        then retried by what the game says now, never left to stop the self-test.
        """
        if not self._open:
            return
        self._open = False
        make: Callable[[int], Any] = _judge_right if answered else Timeout
        for _ in range(CLOSE_ATTEMPTS):
            with contextlib.suppress(CommandRefused):
                self._command(make)
            # A command is decided once every source's time has passed it (the
            # wait bound at most): only then does the question close, or not.
            deadline = time.monotonic_ns() + self.wait_bound_ns + CLOSE_SLACK_NS
            now = self.controller.snapshot()
            while now["stage"] == "question" and time.monotonic_ns() < deadline:
                time.sleep(0.002)
                now = self.controller.snapshot()
            if now["stage"] != "question":
                return
            # Still open: a time-out met a late answerer (whose time it ran out),
            # or a judgement met nobody. Close it by what the game says now.
            make = _judge_right if now.get("answering") is not None else Timeout
        from hardware.selftest.rigs import SelftestUnavailable  # (it imports this module)

        raise SelftestUnavailable(
            "the self-test's game could not close its question: "
            f"stage {now['stage']}, phase {now.get('phase')}"
        )

    def close(self) -> None:
        self.runtime.stop()
        self.store.close()
        if self._tmp is not None:
            self._tmp.cleanup()
