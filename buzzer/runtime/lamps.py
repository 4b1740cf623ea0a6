"""The lamp policy: which lamp shows what, decided once for every kind of lamp.

The podium lamps and the signal lamp may hang on the Pi's GPIO
(:class:`hardware.lamps.LampBoard`) or on the Pico
(:class:`firmware_bridge.lamps.BridgeLamps`). Both used to carry their own copy
of the rules and drifted apart (the Pico kept a wrong answerer's lamp lit and
had no signal lamp). Here the rules live once, in :class:`LampPolicy`, as pure
code: no threads, no I/O, no clock of its own. :meth:`LampPolicy.apply` takes
the decisions the core just made (and the snapshot after them) and returns the
lamp *changes*; an adapter only executes them on its hardware.

=============================  ===============================================
decision                       lamps
=============================  ===============================================
``question`` (selected)        all off (a new question)
``recognized`` (seat)          that podium on, every other podium off
``bid_claim`` (seat)           the same: the first press in a stake question's
                               buy window (TV-H-1995-01) has the floor
``false_start`` (seat)         that podium blinks through its lockout
                               (``locked_until - t`` worth of blinks)
``ignored`` ``locked``         that podium blinks :data:`LOCKED_BLINKS` times
                               (a press inside the lockout), unless it is
                               blinking already
``window_opened``              the signal lamp on (the signal, TV rules);
                               podiums that were lit steadily go off
``reading_resumed``            podiums that were lit steadily go off
``score`` with delta < 0       that podium off (a wrong answer)
``score`` with delta > 0       all off (a right answer ends the question)
``window_closed``, ``chooser``, all off: the question is over
``game_over``
snapshot ``stage`` is          all off: back on the board, whatever closed the
``board`` or ``over``          question (the systems without a chooser emit
                               no ``chooser`` line); but a button check's lamp
                               stays lit for its time
``ignored`` with ``check``     a button check (A-G-D2: a press while no
                               question is open): that podium on for
                               :data:`CHECK_LAMP_MS`, then dark by itself; a
                               lamp the game lit is left alone, and anything
                               that switches the lamp (a ``question``) ends it
=============================  ===============================================

A blink is finite: ``blinks`` on/off cycles of ``period_ms``, then dark (the
GPIO adapter hands the count to gpiozero; the Pico only blinks forever, so its
adapter switches the lamp off when the blink is over). So is a button check's
lamp: an ``ON`` change with ``for_ms`` goes dark by itself that long after
(each adapter's timer, from its injected :data:`Scheduler`, cancelled when the
lamp is switched first). The policy knows when
a blink it started from a decision ends on the game clock, and at the first
decision (or snapshot ``now``) at or after that instant it records the lamp
as off and says so (an ``OFF`` change): the device's last command and the
policy's state then always agree, and a press inside the lockout after the
blink has ended blinks again.

Changes are coalesced per call: at most one change per lamp, the net effect
of the call, in the order the lamps were first touched (so the recognized
player's lamp goes first, ahead of the others going out). A lamp whose net
mode did not change is left alone, except a ``BLINK``, which restarts the
count, and a timed ``ON``, which restarts its time. The policy is not
thread-safe: an adapter serialises its calls.

:class:`firmware_bridge.lamps.BridgeLamps` is the Pico's adapter, and
:class:`hardware.lamps.LampBoard` the GPIO one: each lives with the code of its
device, and only executes the changes this module decides.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

from buzzer.arbiter.decisions import (
    Chooser,
    Decision,
    FalseStart,
    Ignored,
    Note,
    NoteKind,
    QuestionSelected,
    ReadingResumed,
    Recognized,
    Score,
    WindowClosed,
    WindowOpened,
)
from rules.snapshot import StageName

#: The key of the signal lamp; podium lamps are keyed by seat.
SIGNAL: Final = "signal"
LampKey = int | Literal["signal"]


class Mode(enum.StrEnum):
    """What a lamp does. A ``str``, so ``state[seat] == "on"`` reads naturally."""

    OFF = "off"
    ON = "on"
    BLINK = "blink"


OFF: Final = Mode.OFF
ON: Final = Mode.ON
BLINK: Final = Mode.BLINK

#: One on/off cycle of a blink (0.12 s on, 0.12 s off): fast enough to read as
#: "you are locked out", slow enough to count.
BLINK_PERIOD_MS: Final = 240
#: Blinks for a press inside a lockout (the lockout's end is not in that decision).
LOCKED_BLINKS: Final = 3
#: Snapshot stages on which no lamp is lit: between questions, and after the game.
CLOSED_STAGES: Final[frozenset[StageName]] = frozenset({"board", "over"})
#: How long a button check (A-G-D2) lights the player's podium lamp.
CHECK_LAMP_MS: Final = 300
#: ``Note`` decisions that end the question (and every lamp with it).
CLOSING_NOTES: Final = frozenset({NoteKind.GAME_OVER})
#: ``Note`` decisions that give one seat the floor, as ``recognized`` does.
FLOOR_NOTES: Final = frozenset({NoteKind.BID_CLAIM})

_NS_PER_MS: Final = 1_000_000


@dataclass(frozen=True, slots=True)
class LampChange:
    """One lamp to switch: ``lamp`` (a seat or :data:`SIGNAL`) to ``mode``.

    For ``BLINK``, ``blinks`` on/off cycles of ``period_ms`` each, then dark;
    both are 0 otherwise. For ``ON``, ``for_ms`` > 0 is a timed lamp (a button
    check): dark by itself that long after; 0 is on until switched.
    """

    lamp: LampKey
    mode: Mode
    blinks: int = 0
    period_ms: int = 0
    for_ms: int = 0

    @property
    def duration_ms(self) -> int:
        """How long a blink or a timed lamp lasts (0 for a steady ``ON`` and ``OFF``)."""
        return self.blinks * self.period_ms if self.mode is BLINK else self.for_ms


class _Batch:
    """The changes of one call: the last change per lamp, in first-touch order."""

    def __init__(self, before: Mapping[LampKey, Mode]) -> None:
        self.before = dict(before)
        self.last: dict[LampKey, LampChange] = {}

    def changes(self) -> list[LampChange]:
        return [
            change
            for lamp, change in self.last.items()
            if change.mode is BLINK or change.for_ms or change.mode != self.before[lamp]
        ]


class LampPolicy:
    """The lamps of ``seats`` (a count ``n`` means seats 1..n) and, if ``signal``,
    the signal lamp: their state, and what changes at each decision."""

    def __init__(
        self,
        seats: tuple[int, ...] | int,
        signal: bool,
        *,
        blink_period_ms: int = BLINK_PERIOD_MS,
        locked_blinks: int = LOCKED_BLINKS,
        check_ms: int = CHECK_LAMP_MS,
    ) -> None:
        podiums = tuple(range(1, seats + 1)) if isinstance(seats, int) else tuple(seats)
        if any(seat < 1 for seat in podiums) or len(set(podiums)) != len(podiums):
            raise ValueError(f"seats must be distinct and from 1: {podiums}")
        if blink_period_ms < 1 or locked_blinks < 1:
            raise ValueError("a blink needs a period of at least 1 ms and at least one blink")
        if check_ms < 1:
            raise ValueError("a button check's lamp needs at least 1 ms")
        self.check_ms = check_ms
        self.seats: tuple[int, ...] = podiums
        self.signal = signal
        self.blink_period_ms = blink_period_ms
        self.locked_blinks = locked_blinks
        self._modes: dict[LampKey, Mode] = dict.fromkeys(podiums, OFF)
        if signal:
            self._modes[SIGNAL] = OFF
        #: When each blink (or button check) started by a decision is over, on the
        #: game clock (ns).
        self._blink_ends: dict[LampKey, int] = {}
        #: The lamps lit now by a button check (A-G-D2), not by the game.
        self._checks: set[LampKey] = set()

    # -- reading -------------------------------------------------------------------

    @property
    def lamps(self) -> tuple[LampKey, ...]:
        """Every lamp of this policy: the seats in order, then the signal lamp."""
        return tuple(self._modes)

    @property
    def state(self) -> dict[LampKey, Mode]:
        """What each lamp is doing now (a copy): the net of every change returned."""
        return dict(self._modes)

    def mode(self, lamp: LampKey) -> Mode:
        return self._modes[lamp]

    # -- the game ------------------------------------------------------------------

    def apply(
        self, decisions: Iterable[Decision], snapshot: Mapping[str, object] | None = None
    ) -> list[LampChange]:
        """The lamp changes for ``decisions`` just made, and the ``snapshot`` after
        them (optional: its ``stage`` back on the board puts every lamp out, its
        ``now`` ends blinks that are over)."""
        batch = _Batch(self._modes)
        for decision in decisions:
            self._expire(decision.t, batch)
            self._decide(decision, batch)
        if snapshot is not None:
            now = snapshot.get("now")
            if isinstance(now, int) and not isinstance(now, bool):
                self._expire(now, batch)
            if snapshot.get("stage") in CLOSED_STAGES:
                self._all_off(batch, spare_checks=True)
        return batch.changes()

    def _decide(self, decision: Decision, batch: _Batch) -> None:
        if isinstance(decision, Recognized) or (
            isinstance(decision, Note) and decision.type in FLOOR_NOTES
        ):
            seat_field = decision.seat if isinstance(decision, Recognized) else decision.get("seat")
            assert isinstance(seat_field, int)
            floor: int = seat_field
            self._set(batch, floor, ON)
            for seat in self.seats:
                if seat != floor:
                    self._set(batch, seat, OFF)
        elif isinstance(decision, FalseStart):
            period_ns = self.blink_period_ms * _NS_PER_MS
            blinks = max(1, round((decision.locked_until - decision.t) / period_ns))
            self._blink(batch, decision.seat, blinks, decision.t)
        elif isinstance(decision, Ignored):
            if decision.check:
                self._check(batch, decision.seat, decision.t)
            elif decision.reason == "locked" and self._modes.get(decision.seat) is not BLINK:
                self._blink(batch, decision.seat, self.locked_blinks, decision.t)
        elif isinstance(decision, WindowOpened):
            self._steady_off(batch)
            self._set(batch, SIGNAL, ON)
        elif isinstance(decision, ReadingResumed):
            self._steady_off(batch)
        elif isinstance(decision, Score):
            if decision.delta > 0:
                self._all_off(batch)
            elif decision.delta < 0:
                self._set(batch, decision.seat, OFF)
        elif isinstance(decision, QuestionSelected | WindowClosed | Chooser) or (
            isinstance(decision, Note) and decision.type in CLOSING_NOTES
        ):
            self._all_off(batch)

    # -- by hand (the lamp test, check-buttons) ---------------------------------------

    def set(self, lamp: LampKey, mode: Mode, *, blinks: int = 0) -> list[LampChange]:
        """Switch one lamp by hand; ``[]`` for a lamp this policy does not have.

        A blink set by hand has no end on the game clock: it stays ``BLINK``
        in :attr:`state` until the lamp is switched again.
        """
        if mode is BLINK and blinks < 1:
            raise ValueError("a blink needs at least one blink")
        batch = _Batch(self._modes)
        if mode is BLINK:
            self._blink(batch, lamp, blinks, None)
        else:
            self._set(batch, lamp, mode)
        return batch.changes()

    def all_off(self, *, force: bool = False) -> list[LampChange]:
        """Every lamp off. ``force`` returns an ``OFF`` for every lamp, even those
        the policy believes dark: to bring hardware of unknown state in line."""
        batch = _Batch(self._modes)
        self._all_off(batch)
        if force:
            return [LampChange(lamp, OFF) for lamp in self._modes]
        return batch.changes()

    # -- internals -------------------------------------------------------------------

    def _set(self, batch: _Batch, lamp: LampKey, mode: Mode) -> None:
        if lamp not in self._modes:
            return
        self._modes[lamp] = mode
        self._blink_ends.pop(lamp, None)
        self._checks.discard(lamp)
        batch.last[lamp] = LampChange(lamp, mode)

    def _check(self, batch: _Batch, lamp: LampKey, t: int) -> None:
        """A-G-D2: a button check lights ``lamp`` for :attr:`check_ms` from ``t``,
        unless the game has it lit (a check never overrides the game's lamp)."""
        if lamp not in self._modes or (self._modes[lamp] is not OFF and lamp not in self._checks):
            return
        self._modes[lamp] = ON
        self._blink_ends[lamp] = t + self.check_ms * _NS_PER_MS
        self._checks.add(lamp)
        batch.last[lamp] = LampChange(lamp, ON, for_ms=self.check_ms)

    def _blink(self, batch: _Batch, lamp: LampKey, blinks: int, t: int | None) -> None:
        if lamp not in self._modes:
            return
        self._modes[lamp] = BLINK
        self._checks.discard(lamp)
        if t is None:
            self._blink_ends.pop(lamp, None)
        else:
            self._blink_ends[lamp] = t + blinks * self.blink_period_ms * _NS_PER_MS
        batch.last[lamp] = LampChange(lamp, BLINK, blinks, self.blink_period_ms)

    def _expire(self, now: int, batch: _Batch) -> None:
        """Blinks over by ``now`` are dark: record it, and say so."""
        for lamp, end in list(self._blink_ends.items()):
            if now >= end:
                self._set(batch, lamp, OFF)

    def _steady_off(self, batch: _Batch) -> None:
        for seat in self.seats:
            if self._modes[seat] is ON:
                self._set(batch, seat, OFF)

    def _all_off(self, batch: _Batch, *, spare_checks: bool = False) -> None:
        for lamp in self._modes:
            if not (spare_checks and lamp in self._checks):
                self._set(batch, lamp, OFF)


# -- what every adapter shares ------------------------------------------------------

#: ``schedule(delay_s, action)`` runs ``action`` once after ``delay_s``; returns a cancel.
Scheduler = Callable[[float, Callable[[], None]], Callable[[], None]]


class PolicyLamps:
    """What every lamp driver shares: the policy decides, under the driver's lock,
    and the driver's ``_run`` puts the changes on its lamps (GPIO LEDs, the Pico)."""

    policy: LampPolicy
    _lock: threading.Lock | threading.RLock

    def _run(self, changes: list[LampChange]) -> None:
        raise NotImplementedError

    @property
    def state(self) -> dict[LampKey, Mode]:
        """What each lamp is doing, as the policy decided (``off``/``on``/``blink``)."""
        with self._lock:
            return self.policy.state

    def apply(
        self, decisions: Iterable[Decision], snapshot: Mapping[str, object] | None = None
    ) -> None:
        """Set the lamps for decisions just made, in order (and for the snapshot
        after them: back on the board, every lamp goes out)."""
        with self._lock:
            self._run(self.policy.apply(decisions, snapshot))

    def all_off(self) -> None:
        """Every lamp off, each told so, whatever the policy believed."""
        with self._lock:
            self._run(self.policy.all_off(force=True))


def thread_timer(delay_s: float, action: Callable[[], None]) -> Callable[[], None]:
    """The default :data:`Scheduler`: a daemon :class:`threading.Timer`."""
    timer = threading.Timer(delay_s, action)
    timer.daemon = True
    timer.start()
    return timer.cancel


__all__ = [
    "BLINK",
    "BLINK_PERIOD_MS",
    "CHECK_LAMP_MS",
    "CLOSED_STAGES",
    "CLOSING_NOTES",
    "LOCKED_BLINKS",
    "OFF",
    "ON",
    "SIGNAL",
    "LampChange",
    "LampKey",
    "LampPolicy",
    "Mode",
    "Scheduler",
    "thread_timer",
]
