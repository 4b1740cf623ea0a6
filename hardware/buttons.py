"""Player and host buttons: gpiozero inputs whose every press carries its edge's own time.

How a press travels (see ``docs/raspberry-pi-gpio.md``)::

    edge on the pin ──kernel IRQ stamps it (CLOCK_MONOTONIC, ns)──► lgpio alert thread
      ──► gpiozero pin ──(ticks, level)──► device ``_fire_events(ticks, active)``
      ──► :class:`ButtonBank` : ticks → host ns (:mod:`hardware.edgeclock`),
          :class:`EdgeFilter` (hold-off, stuck), ``sink(Press(t, seat))``

The callback does nothing else: it stamps, filters and hands the input to the
``sink`` (e.g. ``queue.SimpleQueue.put``); the controller's one owner thread
takes it from there. The time of a press is the edge's stamp from the pin
factory, never the time the callback happened to run: a callback delayed by
a busy CPU still reports the instant the contact closed.

**No gpiozero ``bounce_time``.** With lgpio it becomes the kernel/lgpio
debounce, which reports an edge only once the line has been stable for the
bounce time — and stamps it at the *last* bounce plus that time. A bouncy
button would look later than a clean one. Instead the first edge keeps its
own stamp; a level check 1 ms later (the pin map's ``glitch_ms``) confirms it
is a press and not a spike, and that button's further edges are ignored for
a short hold-off (default 20 ms, the pin map's ``hold_off_ms``).

A button held longer than the stuck threshold (default 10 s) is reported as
stuck (:class:`ButtonStuck`, for the host's panel) and excluded until it is
released (:class:`ButtonFreed`).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from gpiozero import DigitalInputDevice  # type: ignore[import-untyped]

from buzzer.arbiter.events import Judge, Press, ReadingEnd, ReadingStart, Release
from hardware.edgeclock import EdgeClock, edge_clock_for
from hardware.factory import claim_error
from hardware.pinmap import ButtonPin, PinMap, describe_key

log = logging.getLogger(__name__)

PRESS = "press"
RELEASE = "release"
STUCK = "stuck"
FREED = "freed"

#: Before any edge: every edge is past the hold-off.
_LONG_AGO = -(1 << 62)


@dataclass(frozen=True, slots=True)
class ButtonStuck:
    """A button has been held down for longer than the stuck threshold.

    For the host (the panel shows it), not for the arbiter: the button's
    presses are ignored until it is released (:class:`ButtonFreed`).
    """

    t: int
    key: str
    pin: int
    down_since: int

    @property
    def seat(self) -> int | None:
        return int(self.key) if self.key.isdigit() else None

    def describe(self) -> str:
        held = (self.t - self.down_since) / 1e9
        return f"{describe_key(self.key)} (GPIO{self.pin}) held for {held:.1f} s: stuck"


@dataclass(frozen=True, slots=True)
class ButtonFreed:
    """A stuck button was released; its presses count again."""

    t: int
    key: str
    pin: int

    @property
    def seat(self) -> int | None:
        return int(self.key) if self.key.isdigit() else None


HostButtonInput = ReadingStart | ReadingEnd | Judge
ButtonEvent = Press | Release | HostButtonInput | ButtonStuck | ButtonFreed
Sink = Callable[[ButtonEvent], None]


#: The inputs a button sends when it goes down (a release sends only ``Release``, for players).
PRESS_INPUTS = (Press, ReadingStart, ReadingEnd, Judge)


def key_of(event: ButtonEvent) -> str:
    """The button key (``"2"``, ``"reading_end"``…) an event came from."""
    if isinstance(event, Press | Release):
        return str(event.seat)
    if isinstance(event, ButtonStuck | ButtonFreed):
        return event.key
    if isinstance(event, ReadingStart):
        return "reading_start"
    if isinstance(event, ReadingEnd):
        return "reading_end"
    return "correct" if event.correct else "wrong"


class EdgeFilter:
    """One button's logic, pure: raw edges (host ns, active?) in, presses and releases out.

    * **Glitch check.** A change of state is a *candidate* at its first edge's
      time; it is confirmed only if the line is still at the new level
      ``glitch_ns`` later (default 1 ms, the pin map's ``glitch_ms``), judged
      from the stamped edges. A 1 µs spike from a lamp switching next to the
      cable is not a press; a real press is reported with its first edge's
      stamp, never the check's. ``glitch_ns = 0`` takes every change at once.
    * The first edge that changes the button's state is taken at its own time;
      the button's edges within ``hold_off_ns`` after it are ignored.
    * A change hidden inside a hold-off (the level at its end differs from the
      state reported) becomes a candidate at the time of the last edge once
      the hold-off is over: at the next edge, or at :meth:`poll`.
    * Held down for ``stuck_ns``: ``stuck`` (by :meth:`poll`); the release that
      ends it reports ``freed`` after the ``release``.

    Why the level *at* the check and not "stable for 1 ms": a bouncing contact
    is closed at 1 ms although it opened and closed before, and waiting for a
    quiet line would stamp it at its last bounce, which makes a bouncy button
    look later than a clean one. The price: a contact that happens to bounce
    open at the very instant of the check loses that candidate, and its next
    closing becomes the candidate (see docs/raspberry-pi-gpio.md).

    Each method returns ``(kind, t)`` pairs: ``press``, ``release``, ``stuck``, ``freed``.
    """

    __slots__ = (
        "candidate_t",
        "down",
        "down_since",
        "glitch_ns",
        "held_at_start",
        "hold_off_ns",
        "quiet_until",
        "raw",
        "raw_t",
        "reported",
        "stuck",
        "stuck_ns",
    )

    def __init__(
        self, hold_off_ns: int, stuck_ns: int, active: bool, now: int, glitch_ns: int = 0
    ) -> None:
        self.hold_off_ns = hold_off_ns
        self.stuck_ns = stuck_ns
        self.glitch_ns = glitch_ns
        self.down = active
        #: A press was reported for the current "down" (not so for a button down at start).
        self.reported = False
        self.held_at_start = active
        self.down_since: int | None = now if active else None
        self.quiet_until = _LONG_AGO
        self.raw = active
        self.raw_t = now
        self.stuck = False
        #: The first edge's time of a change waiting for its glitch check (``not down``).
        self.candidate_t: int | None = None

    def edge(self, t: int, active: bool) -> list[tuple[str, int]]:
        out: list[tuple[str, int]] = []
        self._settle(t, out, inclusive=False)  # what was decided before this edge
        self.raw = active
        self.raw_t = t
        self._settle(t, out, inclusive=True)
        return out

    def poll(self, now: int) -> list[tuple[str, int]]:
        """What is due by ``now``, given that no edge stamped before ``now`` is still to come."""
        out: list[tuple[str, int]] = []
        self._settle(now, out, inclusive=True)
        since = self.down_since
        if self.down and not self.stuck and since is not None and now - since >= self.stuck_ns:
            self.stuck = True
            out.append((STUCK, now))
        return out

    def next_wakeup(self) -> int | None:
        """The next instant at which :meth:`poll` could report something."""
        times = []
        if self.candidate_t is not None:
            times.append(self.candidate_t + self.glitch_ns)
        elif self.raw != self.down:
            times.append(max(self.quiet_until, self.raw_t + self.glitch_ns))
        if self.down and not self.stuck and self.down_since is not None:
            times.append(self.down_since + self.stuck_ns)
        return min(times) if times else None

    @property
    def pending_since(self) -> int | None:
        """The stamp of a change not yet reported (a candidate, or one hidden in a hold-off).

        Nothing stamped at or after it is proven: the change may still be
        reported with this stamp.
        """
        if self.candidate_t is not None:
            return self.candidate_t
        return self.raw_t if self.raw != self.down else None

    def _settle(self, now: int, out: list[tuple[str, int]], *, inclusive: bool) -> None:
        """Open and check candidates whose time has come by ``now``.

        ``inclusive``: an edge stamped exactly ``now`` is already in ``raw``.
        """
        while True:
            cand = self.candidate_t
            if cand is None:
                if self.raw == self.down or self.quiet_until > now:
                    return
                cand = self.candidate_t = self.raw_t
            due = cand + self.glitch_ns
            if due > now or (due == now and not inclusive):
                return
            # the line's level at ``due`` is ``raw``: every edge up to ``now`` has been seen
            self.candidate_t = None
            if self.raw != self.down:
                self._accept(self.raw, cand, out)

    def _accept(self, active: bool, t: int, out: list[tuple[str, int]]) -> None:
        self.down = active
        self.quiet_until = t + self.hold_off_ns
        if active:
            self.down_since = t
            self.reported = True
            out.append((PRESS, t))
            return
        if self.reported:
            out.append((RELEASE, t))
        if self.stuck:
            out.append((FREED, t))
        self.reported = False
        self.stuck = False
        self.held_at_start = False
        self.down_since = None


class StampedInput(DigitalInputDevice):  # type: ignore[misc]
    """A gpiozero input that hands every state change, with its ``ticks``, to ``on_edge``.

    ``_fire_events(ticks, active)`` is where gpiozero's input devices report a
    change together with the pin's ``ticks`` (the documented hook for
    descendants): the pin's own time of the edge, not the callback's. No
    ``bounce_time``, edges on both sides.
    """

    def __init__(
        self,
        pin: int,
        *,
        pull_up: bool | None,
        active_state: bool | None,
        pin_factory: Any,
        on_edge: Callable[[float, bool], None],
    ) -> None:
        self._on_edge: Callable[[float, bool], None] | None = None
        super().__init__(
            pin,
            pull_up=pull_up,
            active_state=active_state,
            bounce_time=None,
            pin_factory=pin_factory,
        )
        self._on_edge = on_edge

    def _fire_events(self, ticks: float, new_active: bool) -> None:
        on_edge = self._on_edge
        if on_edge is not None:
            on_edge(ticks, new_active)
        super()._fire_events(ticks, new_active)


class ButtonBank:
    """Every button of a pin map, on an injected gpiozero pin factory.

    ``sink`` receives, from gpiozero's callback thread and the watchdog thread
    (serialised by one lock, in order per button): :class:`Press` /
    :class:`Release` for players, :class:`ReadingStart` / :class:`ReadingEnd` /
    :class:`Judge` for the host's buttons, and :class:`ButtonStuck` /
    :class:`ButtonFreed`. It must be quick and thread-safe
    (``queue.SimpleQueue.put``).

    ``watchdog=True`` runs a thread that reports stuck buttons and changes
    hidden inside a hold-off on time; without it, call :meth:`poll`.
    """

    def __init__(
        self,
        pinmap: PinMap,
        pin_factory: Any,
        sink: Sink,
        *,
        hold_off_ns: int | None = None,
        stuck_ns: int | None = None,
        glitch_ns: int | None = None,
        clock: EdgeClock | None = None,
        keys: Iterable[str] | None = None,
        watchdog: bool = True,
        now: Callable[[], int] = time.monotonic_ns,
    ) -> None:
        if pin_factory is None:
            raise ValueError("ButtonBank needs a pin factory (never the global default)")
        self.pinmap = pinmap
        self.sink = sink
        self.hold_off_ns = pinmap.hold_off_ns if hold_off_ns is None else hold_off_ns
        self.stuck_ns = pinmap.stuck_ns if stuck_ns is None else stuck_ns
        self.glitch_ns = pinmap.glitch_ns if glitch_ns is None else glitch_ns
        self.clock = clock if clock is not None else edge_clock_for(pin_factory)
        self._now = now
        self._cond = threading.Condition()
        self._refs = itertools.count(1)
        self._filters: dict[str, EdgeFilter] = {}
        #: Raw edges seen per button, before any filter: spikes show here even
        #: when the glitch check keeps them from being presses.
        self._edges: dict[str, int] = {}
        self.specs: dict[str, ButtonPin] = {}
        self.devices: dict[str, StampedInput] = {}
        self._closed = False
        wanted = pinmap.buttons()
        if keys is not None:
            chosen = set(keys)
            wanted = {k: v for k, v in wanted.items() if k in chosen}
        try:
            for key, spec in wanted.items():
                try:
                    device = StampedInput(
                        spec.pin,
                        pull_up=spec.pull_up,
                        active_state=spec.active_state,
                        pin_factory=pin_factory,
                        on_edge=self._edge_handler(key),
                    )
                except Exception as exc:
                    raise claim_error(exc, spec.pin, describe_key(key)) from exc
                self.devices[key] = device
                self.specs[key] = spec
                with self._cond:
                    self._filters[key] = EdgeFilter(
                        self.hold_off_ns,
                        self.stuck_ns,
                        bool(device.is_active),
                        now(),
                        glitch_ns=self.glitch_ns,
                    )
        except BaseException:
            self.close()
            raise
        self._thread: threading.Thread | None = None
        if watchdog:
            self._thread = threading.Thread(target=self._watch, name="svoyak-buttons", daemon=True)
            self._thread.start()

    # -- queries ---------------------------------------------------------------

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(self.devices)

    def stuck(self) -> frozenset[str]:
        """Buttons reported stuck and not released since: their presses are ignored."""
        with self._cond:
            return frozenset(k for k, f in self._filters.items() if f.stuck)

    def edge_counts(self) -> dict[str, int]:
        """Raw edges each button's line has had since the bank started, filtered or not.

        The phantom check reads them before and after switching the lamps: a
        line that picks up the lamps' switching shows edges long before its
        spikes grow into presses, which is what a technician wants to see
        on the bench rather than at the tournament.
        """
        with self._cond:
            return dict(self._edges)

    def held_at_start(self) -> frozenset[str]:
        """Buttons that were already down when the bank started and still are."""
        with self._cond:
            return frozenset(k for k, f in self._filters.items() if f.held_at_start)

    # -- what is proven complete ---------------------------------------------------

    def proven_until(self) -> int | None:
        """A host instant (ns) before which every edge of every button has reached the sink.

        The proof is the pins' levels: a line's level changes before the
        kernel stamps its edge, so if, read *after* taking the instant, every
        pin's level equals the last level its callback handled, no edge stamped
        before the instant is still on its way (in the kernel's buffer, in
        lgpio's thread, waiting for the GIL). A pin whose level differs has an
        edge in flight: ``None``, and the runtime waits (its wait bound turns
        a callback that never comes into a fault). A change held back by the
        hold-off is still to come at its own stamp, so the instant stops there.

        This is the GPIO source's watermark (``buzzer/runtime/sources.py``),
        a proof rather than a guessed delivery margin. One blind spot: a press
        *and* its release both still in flight read as "no change"; a player's
        press lasts tens of milliseconds, far beyond any delivery delay.
        """
        now = self._now()
        with self._cond:
            if self._closed:
                return now
            filters = dict(self._filters)
        try:
            levels = {key: bool(device.is_active) for key, device in self.devices.items()}
        except Exception:  # closing under us, or the pin library failing: no proof now
            return now if self._closed else None
        with self._cond:
            mark = now
            for key, filt in filters.items():
                if levels.get(key, filt.raw) != filt.raw:
                    return None
                pending = filt.pending_since
                if pending is not None:
                    mark = min(mark, pending)
            return mark

    # -- time passing ------------------------------------------------------------

    def poll(self, now: int | None = None) -> None:
        """Report stuck buttons and changes hidden in a hold-off that are due by ``now``."""
        with self._cond:
            self._poll_locked(self._now() if now is None else now)

    def _poll_locked(self, now: int) -> None:
        for key, filt in self._filters.items():
            if filt.pending_since is not None and not self._level_settled(key, filt):
                continue  # an edge is on its way: its own callback settles the check
            changes = filt.poll(now)
            if changes:
                self._emit(key, changes, filt)

    def _level_settled(self, key: str, filt: EdgeFilter) -> bool:
        """Whether the pin reads the level of the last edge its filter has seen.

        A glitch check decided by :meth:`poll` reads the line's level from the
        edges seen so far; if the pin reads otherwise, an edge (the end of a
        spike, say) is still in the kernel or waiting for the lock, and
        deciding now would take a spike for a press.
        """
        try:
            return bool(self.devices[key].is_active) == filt.raw
        except Exception:  # closing under us, or the pin library failing: decide later
            return False

    def _watch(self) -> None:
        with self._cond:
            while not self._closed:
                now = self._now()
                try:
                    self._poll_locked(now)
                except Exception:  # a failing sink must not stop stuck detection
                    log.exception("button watchdog")
                wakes = [w for f in self._filters.values() if (w := f.next_wakeup()) is not None]
                timeout = 1.0 if not wakes else (min(wakes) - now) / 1e9
                self._cond.wait(min(max(timeout, 0.0005), 1.0))

    # -- edges -------------------------------------------------------------------

    def _edge_handler(self, key: str) -> Callable[[float, bool], None]:
        def on_edge(ticks: float, active: bool) -> None:
            try:
                t = self.clock.to_ns(ticks)
                with self._cond:
                    filt = self._filters.get(key)
                    if filt is None or self._closed:
                        return
                    self._edges[key] = self._edges.get(key, 0) + 1
                    changes = filt.edge(t, active)
                    if changes:
                        self._emit(key, changes, filt)
                    if filt.next_wakeup() is not None:
                        self._cond.notify_all()
            except Exception:  # never let an error kill the pin library's callback thread
                log.exception("button %s: edge at ticks %r", key, ticks)

        return on_edge

    def _emit(self, key: str, changes: list[tuple[str, int]], filt: EdgeFilter) -> None:
        pin = self.specs[key].pin
        sink = self.sink
        for kind, t in changes:
            event = self._event(key, kind, t, pin, filt)
            if event is not None:
                sink(event)

    def _event(self, key: str, kind: str, t: int, pin: int, filt: EdgeFilter) -> ButtonEvent | None:
        if kind == STUCK:
            since = filt.down_since if filt.down_since is not None else t
            return ButtonStuck(t, key, pin, since)
        if kind == FREED:
            return ButtonFreed(t, key, pin)
        ref = next(self._refs)
        if key.isdigit():
            return Press(t, int(key), ref) if kind == PRESS else Release(t, int(key), ref)
        if kind != PRESS:
            return None  # a host button going up means nothing
        if key == "reading_start":
            return ReadingStart(t, ref)
        if key == "reading_end":
            return ReadingEnd(t, ref)
        return Judge(t, key == "correct", ref)

    # -- lifetime ----------------------------------------------------------------

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        thread = getattr(self, "_thread", None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2)
        for device in self.devices.values():
            device.close()

    def __enter__(self) -> ButtonBank:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
