"""The self-test's checks, each run on a :class:`~hardware.selftest.rigs.Rig`.

Each check presses through the rig's pulse source and reads what came back
through its input path, as ``svoyak run`` would have it; what each one proves
is in the package's docstring (:mod:`hardware.selftest`). A check returns the
rows of :mod:`hardware.report`; it decides nothing about the exit status.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Sequence

from buzzer.arbiter.events import Press, Release
from hardware.buttons import (
    PRESS_INPUTS,
    ButtonBank,
    ButtonEvent,
    ButtonFreed,
    ButtonStuck,
    key_of,
)
from hardware.report import (
    BURST_EDGES,
    BURST_SPACING_NS,
    BounceRow,
    FairnessRow,
    GlitchRow,
    LatencyRow,
    PhantomRow,
    StuckRow,
)
from hardware.selftest.progress import Progress
from hardware.selftest.pulses import GENERATOR_SPIKE_NS, NS_PER_MS, NS_PER_US, sleep_until
from hardware.selftest.rigs import Rig, SelftestUnavailable
from hardware.selftest_game import SelftestGame
from hardware.selftest_lamps import LampSwitch

#: The phantom check: how often every lamp is switched on and off, and how fast.
PHANTOM_SWITCHES = 20
PHANTOM_PERIOD_S = 0.02
#: A Pico's presses are stamped on the link's fit of its clock, not on the
#: host's own: the question opens this long before the pair, so that the fit's
#: error (≈1 ms on the chip model) cannot make a fair press a false start.
LINK_LEAD_NS = 20_000_000
#: The glitch and bounce checks: tries per button before its row stands as it is.
#: A spike as long as the glitch check's window, or a burst stretched past it,
#: tests nothing (the thread writing the output was preempted); a busy machine
#: gets retries.
SPIKE_ATTEMPTS = 5


# -- waiting for inputs ------------------------------------------------------------


def _drain(rig: Rig) -> list[ButtonEvent]:
    got: list[ButtonEvent] = []
    while True:
        try:
            got.append(rig.inputs.get_nowait())
        except queue.Empty:
            return got


def _collect(
    rig: Rig, want: Callable[[list[ButtonEvent]], bool], timeout_s: float
) -> list[ButtonEvent]:
    """Inputs until ``want(inputs so far)`` or the timeout."""
    got: list[ButtonEvent] = []
    deadline = time.monotonic() + timeout_s
    while not want(got):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            got.append(rig.inputs.get(timeout=left))
        except queue.Empty:
            break
    return got


def _presses_of(events: Sequence[ButtonEvent], key: str) -> list[ButtonEvent]:
    return [e for e in events if isinstance(e, PRESS_INPUTS) and key_of(e) == key]


def _pressed(*keys: str) -> Callable[[list[ButtonEvent]], bool]:
    """For :func:`_collect`: done once every one of ``keys`` has pressed."""

    def done(got: list[ButtonEvent]) -> bool:
        return all(_presses_of(got, key) for key in keys)

    return done


# -- the checks ------------------------------------------------------------------


def check_latency(rig: Rig, count: int, progress: Progress) -> list[LatencyRow]:
    """``count`` rounds; in each, every button is pressed in turn, then all are released.

    Buttons do not share a hold-off, so a round takes two hold-offs whatever
    the number of buttons.
    """
    keys = rig.keys
    rows = {key: LatencyRow(key, rig.pin(key)) for key in keys}
    gap_ns = rig.hold_off_ns + 2 * NS_PER_MS
    for _ in range(count):
        _drain(rig)
        first = None
        for key in keys:
            t_drive = rig.source.press(key)
            first = t_drive if first is None else first
            got = _collect(rig, _pressed(key), rig.reply_timeout_s)
            presses = _presses_of(got, key)
            if presses:
                rows[key].samples_ns.append(presses[0].t - t_drive)
            else:
                rows[key].missed += 1
        sleep_until((first or time.monotonic_ns()) + gap_ns)
        t_release = time.monotonic_ns()
        for key in keys:
            rig.source.release(key)
        sleep_until(t_release + gap_ns)
        progress.step("latency")
    return list(rows.values())


def _game_sink(rig: Rig, game: SelftestGame) -> Callable[[Press | Release], object]:
    """The game's source for this input path, proven as ``svoyak run`` proves it."""
    if rig.link is not None:
        return game.link_sink(rig.link)
    if rig.bank is not None:
        return game.gpio_sink(rig.bank.proven_until)
    raise SelftestUnavailable("fairness: this input path has neither a Pico link nor a GPIO bank")


def check_fairness(
    rig: Rig,
    rules_id: str,
    pair: tuple[str, str],
    offsets_us: Sequence[int],
    trials: int,
    progress: Progress,
) -> list[FairnessRow]:
    """Two buttons pressed ``offset`` apart, the first alternating, into a running game.

    The game is the one ``svoyak run`` would run (:mod:`hardware.selftest_game`):
    each trial the host opens the next question and reads it to its end, the
    rig presses the pair, the input path's thread delivers both presses to the
    runtime, and the outcome is the game's decision as the panel hears it:
    compared with the *commanded* order, never with the stamps under test.
    """
    if rig.sink is None:
        raise SelftestUnavailable("fairness: this rig's input path cannot feed a game")
    game = SelftestGame(
        rules_id,
        len(rig.pinmap.seats),
        trials * len(offsets_us),
        wait_bound_ns=rig.wait_bound_ns,
    )
    rig.sink.seats = len(rig.pinmap.seats)
    rig.sink.since_ns = game.controller.t0_ns
    rig.sink.game = _game_sink(rig, game)
    lead_ns = LINK_LEAD_NS if rig.link is not None else 0
    gap_ns = rig.hold_off_ns + 2 * NS_PER_MS
    rows: list[FairnessRow] = []
    try:
        for offset in offsets_us:
            row = FairnessRow(offset)
            for trial in range(trials):
                first, second = pair if trial % 2 == 0 else (pair[1], pair[0])
                _drain(rig)
                number = game.open_question()
                if lead_ns:
                    sleep_until(time.monotonic_ns() + lead_ns)
                t1, _ = rig.source.press_pair(first, second, offset * NS_PER_US)
                got = _collect(rig, _pressed(first, second), rig.reply_timeout_s)
                stamps = {key_of(p): p.t for p in got if isinstance(p, Press)}
                seats = (int(first), int(second))
                outcome = game.outcome(number, seats, rig.reply_timeout_s)
                row.trials += 1
                if first in stamps and second in stamps:
                    row.gaps_ns.append(stamps[second] - stamps[first])
                if outcome.decided_ns is not None and stamps:
                    row.delays_ns.append(outcome.decided_ns - min(stamps.values()))
                if first not in stamps or second not in stamps:
                    row.missed += 1
                elif outcome.late:
                    row.late += 1
                elif outcome.early:
                    row.early += 1
                elif outcome.tie:
                    row.ties += 1
                elif outcome.winner == seats[0]:
                    row.first_won += 1
                elif outcome.winner == seats[1]:
                    row.second_won += 1
                else:
                    row.missed += 1
                game.close_question(answered=outcome.winner is not None)
                sleep_until(t1 + gap_ns)
                t_release = time.monotonic_ns()
                rig.source.release(first)
                rig.source.release(second)
                sleep_until(t_release + gap_ns)
                progress.step(f"fairness {offset} µs")
            rows.append(row)
    finally:
        rig.sink.game = None
        game.close()
    return rows


def check_bounce(rig: Rig, progress: Progress) -> list[BounceRow]:
    """Per button: a burst of edges inside the hold-off must give one press, at its first edge.

    A burst the writing thread was preempted in (a busy machine: a gap between
    its edges longer than the glitch check) is two presses by right and tests
    nothing: it is tried again (:data:`SPIKE_ATTEMPTS`), the last try reported,
    and marked ``stretched`` if that one was stretched too.
    """
    rows: list[BounceRow] = []
    for key in rig.keys:
        for attempt in range(1, SPIKE_ATTEMPTS + 1):
            row, stretched = _burst_once(rig, key)
            if not stretched or attempt == SPIKE_ATTEMPTS:
                break
        row.stretched = stretched
        rows.append(row)
        progress.step("bounce")
    return rows


def _burst_once(rig: Rig, key: str) -> tuple[BounceRow, bool]:
    """One burst on ``key`` (see :func:`check_bounce`): its row, and whether the burst
    took longer to write than its edges and the glitch check allow."""
    gap_ns = rig.hold_off_ns + 2 * NS_PER_MS
    _drain(rig)
    # From before the call: a writer preempted between the first edge and the
    # instant it returns (t0) made a longer burst than t0 shows, and its last
    # edge may come after the glitch check looked (a loaded run: one press,
    # stamped at the last edge, and no retry).
    before = time.monotonic_ns()
    t0 = rig.source.burst(key, BURST_EDGES, BURST_SPACING_NS)
    written_ns = time.monotonic_ns() - before
    allowed_ns = (BURST_EDGES - 1) * BURST_SPACING_NS + (rig.glitch_ns or rig.hold_off_ns) // 2
    sleep_until(t0 + 2 * rig.hold_off_ns + 5 * NS_PER_MS)
    # The first press, however long its path takes; then every input a
    # second (wrongly split) press of the burst could be, up to 2 hold-offs on.
    got = _collect(rig, _pressed(key), rig.reply_timeout_s)
    first = _presses_of(got, key)
    if first:
        rig.wait_delivered(first[0].t + 2 * rig.hold_off_ns + NS_PER_MS)
    events = got + _drain(rig)
    presses = _presses_of(events, key)
    release_after = getattr(rig.source, "burst_release_ns", None)
    if release_after is None:
        first_edge = bool(presses) and presses[0].t < t0 + BURST_SPACING_NS
    else:
        # The burst ended with its own release, exactly release_after past its
        # last edge: stamped at the first edge, the press is that plus the
        # burst's length before the release; at any later edge, less.
        first_edge = _stamped_at_first_edge(
            rig, key, presses, events, (BURST_EDGES - 1) * BURST_SPACING_NS + release_after
        )
    row = BounceRow(key, rig.pin(key), BURST_EDGES, len(presses), first_edge)
    t_release = rig.source.release(key)
    sleep_until(t_release + gap_ns)
    # Only a burst this host writes edge by edge can be stretched; one placed on a
    # device's own clock (``exact_offsets``) is as commanded whenever the call returns.
    host_written = not getattr(rig.source, "exact_offsets", False)
    return row, host_written and written_ns > allowed_ns


def _stamped_at_first_edge(
    rig: Rig,
    key: str,
    presses: list[ButtonEvent],
    events: list[ButtonEvent],
    press_to_release_ns: int,
) -> bool:
    """The press's stamp is the burst's first edge: its release came ``press_to_release_ns``
    after it (within half an edge spacing), on the pulse source's own exact clock."""
    if not presses:
        return False
    # The burst's own release: after its press. A release of the check before
    # (delivered late by a slow path, after the drain) is not it.
    after = presses[0].t

    def burst_release(e: ButtonEvent) -> bool:
        return isinstance(e, Release) and key_of(e) == key and e.t > after

    releases = [e for e in events if burst_release(e)]
    if not releases:
        releases = [
            e
            # As long as any input may take to come back (a paced chip model's
            # link delivers seconds late on a busy machine; a Pi's GPIO at once).
            for e in _collect(
                rig, lambda got: any(burst_release(e) for e in got), rig.reply_timeout_s
            )
            if burst_release(e)
        ]
    if not releases:
        return False
    measured = releases[0].t - presses[0].t
    stamps = rig.device_stamps
    if stamps is not None:
        pressed_us, released_us = stamps.of(presses[0]), stamps.of(releases[0])
        if pressed_us is not None and released_us is not None:
            measured = (released_us - pressed_us) * NS_PER_US
    return abs(measured - press_to_release_ns) < BURST_SPACING_NS // 2


def check_glitch(rig: Rig, progress: Progress) -> list[GlitchRow]:
    """Per button: a spike as short as the output can make must not be a press.

    The output is switched on and straight off again: tens of microseconds on
    a Pi, far below the glitch check's millisecond. Nothing may come of it —
    not at the check, not when the hold-off of a wrongly taken press would end.
    And it must have reached the pin: behind a series resistor and metres of
    cable a 1 µs spike may never cross V_IL (docs/raspberry-pi-gpio.md), and
    "no press" would then prove nothing. On the GPIO path the row counts the
    line's raw edges and fails without one.
    """
    rows: list[GlitchRow] = []
    glitch_ns = rig.glitch_ns or 0
    for key in rig.keys:
        for attempt in range(1, SPIKE_ATTEMPTS + 1):
            row = _spike_once(rig, key, glitch_ns)
            # A "spike" as long as the check's window (the writing thread was
            # preempted between on and off: a busy machine) tests nothing; the
            # next attempt may be a spike. The last one is reported as it was.
            if not glitch_ns or row.width_ns < glitch_ns or attempt == SPIKE_ATTEMPTS:
                break
        rows.append(row)
        progress.step("glitch")
    return rows


def _spike_once(rig: Rig, key: str, glitch_ns: int) -> GlitchRow:
    """One spike on ``key``'s output and what came of it (see :func:`check_glitch`)."""
    bank = rig.bank
    _drain(rig)
    edges_before = bank.edge_counts().get(key, 0) if bank is not None else 0
    spike = getattr(rig.source, "spike", None)
    if spike is not None:
        t_on, t_off = spike(key, GENERATOR_SPIKE_NS)
    else:
        t_on = rig.source.press(key)
        t_off = rig.source.release(key)
    settled = t_off + glitch_ns + rig.hold_off_ns + 2 * NS_PER_MS
    if bank is not None:
        # Settle from when the line saw the spike, should it arrive late
        # (a relay of pins in a test rig, a busy machine), not only from
        # when the output was written.
        seen = _await_edge(bank, key, edges_before, rig.reply_timeout_s)
        if seen is not None:
            settled = max(settled, seen + glitch_ns + rig.hold_off_ns + 2 * NS_PER_MS)
    sleep_until(settled)
    _wait_proven(rig, settled)
    presses = _presses_of(_drain(rig), key)
    # A spike the cable and the series resistor swallowed tests nothing: the
    # row passes only if the line saw it (a raw edge), as the phantom check
    # reports. The Pico filters before the host sees an edge: None there.
    edges = bank.edge_counts().get(key, 0) - edges_before if bank is not None else None
    if presses:  # a wrongly taken spike: let its release pass before the next one
        sleep_until(time.monotonic_ns() + rig.hold_off_ns + glitch_ns + 2 * NS_PER_MS)
        _drain(rig)
    return GlitchRow(key, rig.pin(key), t_off - t_on, len(presses), edges)


def _await_edge(bank: ButtonBank, key: str, before: int, timeout_s: float) -> int | None:
    """When (host ns) ``key``'s line had a raw edge past ``before``; None if none by the timeout."""
    deadline = time.monotonic_ns() + round(timeout_s * 1e9)
    while True:
        now = time.monotonic_ns()
        if bank.edge_counts().get(key, 0) > before:
            return now
        if now >= deadline:
            return None
        time.sleep(0.001)


def check_phantom(
    rig: Rig,
    lamps: LampSwitch,
    progress: Progress,
    switches: int = PHANTOM_SWITCHES,
    period_s: float = PHANTOM_PERIOD_S,
) -> list[PhantomRow]:
    """Every lamp on and off again and again while nobody presses: no press may come.

    A lamp's MOSFET switching a few hundred milliamps beside a button cable is
    where a real rig picks up spikes; the glitch check should keep them out,
    and this says whether it does on this wiring (on mock pins or the chip
    model: the software path only). ``lamps`` is closed here, all off.
    """
    bank = rig.bank
    try:
        _drain(rig)
        edges_before = bank.edge_counts() if bank is not None else None
        for _ in range(switches):
            lamps.switch_all(True)
            time.sleep(period_s / 2)
            lamps.switch_all(False)
            time.sleep(period_s / 2)
        settled = time.monotonic_ns() + (rig.glitch_ns or 0) + rig.hold_off_ns + 2 * NS_PER_MS
        sleep_until(settled)
        _wait_proven(rig, settled)
        phantoms: dict[str, int] = {}
        for event in _drain(rig):
            if isinstance(event, PRESS_INPUTS):
                key = key_of(event)
                phantoms[key] = phantoms.get(key, 0) + 1
        edges: dict[str, int] | None = None
        if bank is not None and edges_before is not None:
            after = bank.edge_counts()
            edges = {
                key: count - edges_before.get(key, 0)
                for key, count in after.items()
                if count > edges_before.get(key, 0)
            }
    finally:
        lamps.close()
    progress.step("phantom")
    return [PhantomRow(switches, lamps.lamps, phantoms, edges)]


def _wait_proven(rig: Rig, t_ns: int) -> None:
    """Until the GPIO watermark has passed ``t_ns``: every check due by then is decided."""
    bank = rig.bank
    if bank is None:
        rig.wait_delivered(t_ns)
        return
    deadline = time.monotonic() + rig.reply_timeout_s
    while time.monotonic() < deadline:
        proven = bank.proven_until()
        if proven is not None and proven >= t_ns:
            return
        time.sleep(0.0005)


def check_stuck(rig: Rig, progress: Progress) -> tuple[list[StuckRow], list[str]]:
    """Hold every button past the threshold; each must be reported, excluded, then freed.

    Returns the rows and the buttons that were already down when the rig started.
    """
    bank = rig.bank
    if bank is None or rig.stuck_ns is None:
        # (run_selftest lists the check as not run: an empty list is no pass)
        progress.step("stuck: not run", max(1, len(rig.keys)))
        return [], []
    held_at_start = sorted(bank.held_at_start())
    keys = [k for k in rig.keys if k not in held_at_start]
    _drain(rig)
    for key in keys:
        rig.source.press(key)
    wanted = set(keys)

    def all_stuck(got: list[ButtonEvent]) -> bool:
        return wanted <= {e.key for e in got if isinstance(e, ButtonStuck)}

    got = _collect(rig, all_stuck, rig.stuck_ns / 1e9 + 2.0)
    reported = {e.key for e in got if isinstance(e, ButtonStuck)}
    excluded = bank.stuck()
    for key in keys:
        rig.source.release(key)

    def all_freed(got: list[ButtonEvent]) -> bool:
        return wanted <= {e.key for e in got if isinstance(e, ButtonFreed)}

    freed = {
        e.key
        for e in _collect(rig, all_freed, 1.0 + rig.hold_off_ns / 1e9)
        if isinstance(e, ButtonFreed)
    }
    sleep_until(time.monotonic_ns() + rig.hold_off_ns + 2 * NS_PER_MS)
    progress.step("stuck", len(keys) or 1)
    rows = [StuckRow(k, rig.pin(k), k in reported, k in excluded, k in freed) for k in keys]
    return rows, held_at_start
