"""The host-command service: every host command, from every entrance, goes through it.

The panel (``POST /api/command``), the host's GPIO buttons, the board's host
keys, and scripts and tests (:meth:`Runtime.command`) hand their commands to
the runtime's one :class:`HostCommands`, so that each gets the same treatment:

1. **Applied once.** A command may carry an id (the panel's); the first
   outcome is kept and a repeat of that id gets it back, so a double tap or a
   retry over flaky Wi-Fi never scores twice. The id is journaled with the
   command's line (docs/journal.md): after a restart (``--resume``) a repeat
   of a journaled command is answered with its line, never applied again; the
   same id for another command is refused (``id_reused``).
2. **Who sent it.** A command the sender may not give (its declaration's
   ``senders``: the host's buttons give only the reading and the verdicts) is
   refused.
3. **Paused.** While the game is paused (a journaled ``pause``, A-G-D1), a
   command the declaration says waits for the resume is refused
   («Игра на паузе»), whichever entrance it came by.
4. **Stale.** A command made from a snapshot version is refused when the state
   has since moved on in a way that matters to it (its declaration's
   ``context``), with a sentence saying what changed.
5. **Checked.** A seat the game does not have is a :class:`SeatError` (a 422
   on the panel: no state makes it valid); a guard (``guards.py``) refuses a
   slip of the finger the engine would take.
6. **Submitted to the runtime**, stamped now by its source (or at its edge, a
   GPIO button): when its time is proven complete the runtime tries it on a
   copy of the core (``trial.py``); an engine refusal is answered with the
   host's sentence (``refusals.py``) and nothing reaches the journal.
   Otherwise it is journaled and applied, and the outcome carries its line.

It also keeps what these need: the snapshots by version (4) and the host's
command log (``command_log.py``). Everything it knows of a command comes from
the command's declaration (buzzer/arbiter/commands.py): it lists none.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from buzzer.arbiter.commands import SeatNo, Sender, WhilePaused, fields_of, from_wire, to_wire
from buzzer.arbiter.decisions import Decision
from buzzer.arbiter.events import COMMAND_TYPES, HostInput, Input
from buzzer.errors import SvoyakError
from buzzer.journal.encode import command_key, encode_input
from buzzer.runtime import refusals
from buzzer.runtime.command_log import CommandLog
from buzzer.runtime.guards import GUARDS
from buzzer.runtime.refusals import Message
from buzzer.runtime.results import Accepted, CommandRefused
from rules.snapshot import LiveSnapshot

if TYPE_CHECKING:
    from buzzer.runtime.runtime import Runtime
    from buzzer.runtime.sources import ClockSource, EdgeSource

#: A host command on the wire: ``{"type": ..., its declared fields}`` (the panel's JSON).
Wire = Mapping[str, Any]


class SeatError(SvoyakError, ValueError):
    """A seat the game does not have (a 422 on the panel: no state makes it valid)."""

    def __init__(self, field: str, ru: str, en: str) -> None:
        super().__init__(en)
        self.field = field
        self.ru = ru
        self.en = en


class UnknownCommand(SvoyakError, ValueError):
    """A ``type`` no host command declares."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one host command: accepted (its line), or refused and why."""

    id: str | None
    #: The journal line it was given (None: refused).
    line: int | None = None
    #: The controller's version once it was applied.
    version: int = 0
    #: What it decided at once (with whatever its batch decided after it).
    decisions: tuple[Decision, ...] = ()
    #: Whether the game is paused after it.
    paused: bool = False
    #: Why it was refused: the host's sentence, in both languages.
    refusal: Message | None = None
    #: The journal could not be written (nothing was applied): the error.
    error: BaseException | None = None
    #: It answers an id seen before (nothing was applied this time).
    repeat: bool = False

    @property
    def accepted(self) -> bool:
        return self.refusal is None


class HostCommands:
    """The one gate of host commands of a runtime (see the module docstring)."""

    def __init__(
        self, runtime: Runtime, *, remember: int = 2000, versions: int = 512, log_size: int = 30
    ) -> None:
        self.runtime = runtime
        self.controller = controller = runtime.controller
        self.log = CommandLog(controller, log_size)
        self._lock = threading.Lock()
        self._results: OrderedDict[str, tuple[str, Future[Outcome]]] = OrderedDict()
        self._remember = remember
        self._snapshots: OrderedDict[int, LiveSnapshot] = OrderedDict()
        self._snapshots_lock = threading.Lock()
        self._versions = versions
        with controller.lock:
            self._remember_snapshot(controller.snapshot())
            controller.subscribe(lambda _decisions, snapshot: self._remember_snapshot(snapshot))

    # -- the state it answers from -------------------------------------------------

    @property
    def paused(self) -> bool:
        """Whether the game is paused (the engine's pause, A-G-D1: a journaled input),
        counting a pause or resume the core still holds for its settle window."""
        core = self.controller.core
        paused = core.game.paused_at is not None
        for item in core.buffer.held():
            if isinstance(item, HostInput):
                paused = _pauses(item.SPEC.while_paused, paused)
        return paused

    def snapshot_at(self, version: int) -> LiveSnapshot | None:
        """The snapshot the controller published as ``version``, if still remembered."""
        with self._snapshots_lock:
            return self._snapshots.get(version)

    def _remember_snapshot(self, snapshot: LiveSnapshot) -> None:
        with self._snapshots_lock:
            self._snapshots[int(snapshot["version"])] = snapshot
            while len(self._snapshots) > self._versions:
                self._snapshots.popitem(last=False)

    # -- entrances -----------------------------------------------------------------

    def submit(
        self,
        command: Wire,
        *,
        id: str | None = None,
        version: int | None = None,
        sender: Sender = Sender.PANEL,
        source: ClockSource | None = None,
    ) -> Future[Outcome]:
        """A command in its wire form, stamped now by ``source`` (the host's by default).

        ``id``: applied once per id; ``version``: the snapshot it was made from
        (stale check). Raises :class:`SeatError` for a seat the game does not
        have, :class:`UnknownCommand` for a type nobody declares.
        """
        cls = _declared(command)
        clock = source or self.runtime.host

        def deliver() -> Future[Any]:
            return clock.put(lambda t: from_wire(cls, command, t), trial=True, command_id=id)

        return self._begin(cls, command, id, version, sender, deliver)

    def submit_stamped(
        self, item: HostInput, source: EdgeSource, *, sender: Sender = Sender.BUTTONS
    ) -> Future[Outcome]:
        """A command already stamped at its source (a GPIO host button's edge)."""
        wire = {"type": item.TYPE, **to_wire(item)}
        return self._begin(
            type(item), wire, None, None, sender, lambda: source.put(item, trial=True)
        )

    def command(
        self,
        make: Callable[[int], Input],
        source: ClockSource | None = None,
        command_id: str | None = None,
    ) -> Future[Any]:
        """``make(t)``, stamped now: :meth:`Runtime.command`'s (scripts, tests, benchmarks).

        The future resolves to :class:`Accepted`, or fails with
        :class:`CommandRefused` (nothing journaled), or with the journal's error.
        """
        probe = make(0)
        if not isinstance(probe, HostInput):
            raise UnknownCommand(f"{type(probe).__name__} is not a host command")
        wire = {"type": probe.TYPE, **to_wire(probe)}
        future = self.submit(wire, id=command_id, source=source)
        accepted: Future[Any] = Future()

        def relay(done: Future[Outcome]) -> None:
            outcome = done.result()
            if outcome.error is not None:
                accepted.set_exception(outcome.error)
            elif outcome.refusal is not None:
                refusal = outcome.refusal
                accepted.set_exception(CommandRefused(refusal.engine or refusal.en, refusal))
            else:
                accepted.set_result(Accepted(outcome.line, list(outcome.decisions)))

        future.add_done_callback(relay)
        return accepted

    def execute(self, command: Wire, timeout: float = 30.0, **how: Any) -> Outcome:
        """:meth:`submit` and wait for the outcome (tests, benchmarks: a thread of their
        own; with no runtime thread the runtime is stepped by hand)."""
        future = self.submit(command, **how)
        if not future.done():
            self.runtime.wait(future, timeout)
        return future.result(timeout)

    # -- the gate ------------------------------------------------------------------

    def _begin(
        self,
        cls: type[HostInput],
        command: Wire,
        id: str | None,
        version: int | None,
        sender: Sender,
        deliver: Callable[[], Future[Any]],
    ) -> Future[Outcome]:
        """The outcome's future: a repeat's, a refusal's, or the runtime's to come."""
        if id is None:
            return self._start(cls, command, None, version, sender, deliver)
        fingerprint = json.dumps(dict(command), sort_keys=True)
        with self._lock:
            seen = self._results.get(id)
            if seen is not None:
                if seen[0] != fingerprint:
                    return _done(Outcome(id, refusal=refusals.ID_REUSED))
                return _repeat(seen[1])
            journaled = self.controller.journaled_command(id)
            if journaled is not None:
                # Given before a restart (or long forgotten here): the journal has it.
                return _done(self._journaled(cls, command, id, *journaled))
            future = self._start(cls, command, id, version, sender, deliver)
            self._results[id] = (fingerprint, future)
            while len(self._results) > self._remember:
                self._results.popitem(last=False)
        return future

    def _start(
        self,
        cls: type[HostInput],
        command: Wire,
        id: str | None,
        version: int | None,
        sender: Sender,
        deliver: Callable[[], Future[Any]],
    ) -> Future[Outcome]:
        spec = cls.SPEC
        if sender not in spec.senders:
            return _done(Outcome(id, refusal=refusals.NOT_FROM_BUTTONS))
        if self.paused and spec.while_paused is WhilePaused.REFUSED:
            return _done(Outcome(id, paused=True, refusal=refusals.PAUSED))
        # The snapshot only when a check needs it: taking it waits for a journal
        # commit in progress, and the command is stamped only after the checks.
        taken: list[LiveSnapshot] = []

        def now() -> LiveSnapshot:
            if not taken:
                taken.append(self.controller.snapshot())
            return taken[0]

        if version is not None:
            stale = self._stale(cls, version, now())
            if stale is not None:
                return _done(Outcome(id, refusal=stale))
        self._check_seats(cls, command, len(self.controller.core.setup.players))
        for guard in GUARDS:
            slip = guard(command, now)
            if slip is not None:
                return _done(Outcome(id, refusal=slip))
        outcome: Future[Outcome] = Future()

        def finish(done: Future[Any]) -> None:
            try:
                accepted: Accepted = done.result()
            except CommandRefused as exc:
                # the host's sentence from the state the tap was made in (or refused in)
                refusal = self._refusal(cls, command, now(), exc)
                outcome.set_result(Outcome(id, refusal=refusal))
                return
            except Exception as exc:  # the journal could not be written: nothing happened
                failed = refusals.journal_failed(exc)
                outcome.set_result(Outcome(id, refusal=failed, error=exc))
                return
            version = self.controller.version
            paused = _pauses(spec.while_paused, self.paused)
            decisions = tuple(accepted.decisions)
            outcome.set_result(Outcome(id, accepted.line, version, decisions, paused))

        deliver().add_done_callback(finish)
        return outcome

    def _refusal(
        self, cls: type[HostInput], command: Wire, then: LiveSnapshot, exc: CommandRefused
    ) -> Message:
        """The host's sentence for an engine's refusal."""
        if self.paused and cls.SPEC.while_paused is WhilePaused.REFUSED:
            # paused between the tap and its turn: the engine said so, in its words
            return replace(refusals.PAUSED, engine=exc.message)
        return refusals.refused(dict(command), then, exc.message)

    def _journaled(
        self, cls: type[HostInput], command: Wire, id: str, line: int, key: str
    ) -> Outcome:
        """The outcome of a command the journal holds under this id: its line (the
        decisions it made then are in the journal, not repeated here)."""
        if command_key(encode_input(from_wire(cls, command, 0))) != key:
            return Outcome(id, refusal=refusals.ID_REUSED)
        return Outcome(id, line, self.controller.version, (), self.paused, repeat=True)

    def _stale(self, cls: type[HostInput], version: int, now: LiveSnapshot) -> Message | None:
        fields = cls.SPEC.context
        if version > now["version"]:
            return refusals.UNKNOWN_VERSION
        if not fields or version == now["version"]:
            return None
        then = self.snapshot_at(version)
        if then is None:
            return refusals.UNKNOWN_VERSION
        if any(then.get(f) != now.get(f) for f in fields):
            return refusals.stale(cls.TYPE, then, now)
        return None

    @staticmethod
    def _check_seats(cls: type[HostInput], command: Wire, players: int) -> None:
        for field in fields_of(cls):
            seat = command.get(field.wire)
            if not isinstance(field.kind, SeatNo) or not isinstance(seat, int):
                continue
            if not 1 <= seat <= players:
                ru, en = refusals.no_such_seat(seat, players)
                raise SeatError(field.wire, ru, en)


def _declared(command: Wire) -> type[HostInput]:
    kind = command.get("type")
    cls = COMMAND_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        known = ", ".join(COMMAND_TYPES)
        raise UnknownCommand(f"unknown host command {kind!r}; host commands are: {known}")
    return cls


def _pauses(meaning: WhilePaused, paused: bool) -> bool:
    """Whether the game is paused after a command of this meaning."""
    if meaning is WhilePaused.PAUSES:
        return True
    if meaning is WhilePaused.RESUMES:
        return False
    return paused


def _done(outcome: Outcome) -> Future[Outcome]:
    future: Future[Outcome] = Future()
    future.set_result(outcome)
    return future


def _repeat(first: Future[Outcome]) -> Future[Outcome]:
    """The first outcome of an id, told as a repeat once it is known."""
    out: Future[Outcome] = Future()
    first.add_done_callback(lambda done: out.set_result(replace(done.result(), repeat=True)))
    return out
