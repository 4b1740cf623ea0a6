"""The seeded journal of ``bench/arbiter.py``, and its model check.

The generated game is a marathon under ``tv-modern`` (false starts lock a
button for 2 s, a 3 s window after the signal): button checks before the
game; per question a select, the reading with false starts (and presses
inside the lockout), the signal, races of near-simultaneous presses (arrival
order shuffled inside the settle window; now and then an exact tie and the
``draw`` line a live game records), bouncing contacts, players hammering
while someone answers, wrong and correct verdicts with fresh windows,
questions nobody takes, a select while the window is open, a ``timeout``;
and, on some questions, long press runs (hammering through a whole answer,
a faulty switch chattering for seconds). The generator models the rules it
relies on and :func:`check_model` checks its expected ``recognized``
sequence against the replay's, so a journal that no longer means what it
was built to mean is noticed.

Pure standard library. ``bench/arbiter.py`` and ``arbiter_streams.py`` import
it (``bench/`` is on ``sys.path`` when the script runs).
"""

from __future__ import annotations

import bisect
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

PLAYERS = ["Аня", "Борис", "Вера"]
SEATS = (1, 2, 3)

# -- the journal generator ------------------------------------------------------
#
# Times are whole microseconds; a line's ``t`` is ``us / 1e6`` (the journal's
# float seconds), which the codec rounds back to exactly ``us * 1000`` ns.

US_PER_S = 1_000_000
US_PER_MS = 1_000
#: tv-modern (docs/rules.md TV-M-A2, TV-M-A3, TV-M-A-D2/D3), as the generator relies on them.
WINDOW_US = 3 * US_PER_S
LOCKOUT_US = 2 * US_PER_S
#: The header's settle window and the largest arrival delay the generator uses:
#: below the settle window, so no press is ever "late" and arrival order never decides.
SETTLE_MS = 3
MAX_DELAY_US = 2_500
THEMES = 6
PRICES = (100, 200, 300, 400, 500)


@dataclass(order=True)
class _Line:
    """One journal line before the arrival-order sort."""

    arrival: int
    seq: int
    t: int = field(compare=False)
    obj: dict[str, Any] = field(compare=False)
    long_run: bool = field(compare=False, default=False)


@dataclass(frozen=True)
class _Ended:
    """A question that ended with nobody recognized: when, and whether by the next select."""

    at: int
    by_select: bool


@dataclass
class GeneratedJournal:
    """A generated journal: its bytes, and what the generator expects of its replay."""

    data: bytes
    events: int
    presses: int
    questions: int
    #: ``(t_us, seat)`` of every recognition, in time order.
    recognized: list[tuple[int, int]]
    long_run_events: int
    ties: int


class JournalGenerator:
    """A seeded, deterministic marathon game under ``tv-modern`` (see the module docstring).

    Segments of the game are generated in time order; every gesture's edges
    are clipped to the segment they belong to (``[start, end)``), so that a
    press never spills into a later phase and the generator's model of who is
    recognized stays exact.
    """

    def __init__(self, seed: int, events: int) -> None:
        self.rng = random.Random(seed)
        self.target = events
        self.lines: list[_Line] = []
        self.seq = 0
        self.questions = 0
        self.recognized: list[tuple[int, int]] = []
        self.draws: list[tuple[int, int, list[int]]] = []  # (tie t, winner, seats)
        self.cells: list[tuple[int, int]] = []
        self.rounds = 0

    # -- emitting ----------------------------------------------------------

    def _emit(self, t: int, obj: dict[str, Any], delay: int = 0, long_run: bool = False) -> None:
        self.seq += 1
        self.lines.append(_Line(t + delay, self.seq, t, {"t": t / US_PER_S, **obj}, long_run))

    def host(self, t: int, kind: str, **fields: Any) -> None:
        """A host input: stamped and delivered at once (no arrival delay)."""
        self._emit(t, {"type": kind, **fields})

    def _delay(self) -> int:
        """Arrival delay of a button edge: mostly the GPIO path, sometimes a slow one."""
        rng = self.rng
        if rng.random() < 0.7:
            return rng.randrange(0, 200)
        return rng.randrange(200, MAX_DELAY_US)

    def edges(
        self, seat: int, edges: Sequence[tuple[int, bool]], start: int, end: int, long_run: bool
    ) -> list[int]:
        """Emit a gesture's ``(t, down)`` edges that fall in ``[start, end)``; their press times."""
        pressed = []
        for t, down in edges:
            if not start <= t < end:
                continue
            kind = "press" if down else "release"
            self._emit(t, {"type": kind, "seat": seat}, self._delay(), long_run)
            if down:
                pressed.append(t)
        return pressed

    # -- gestures ------------------------------------------------------------

    def tap(self, t: int) -> list[tuple[int, bool]]:
        """One press of a button: often a few contact bounces, released 80–250 ms later."""
        rng = self.rng
        edges = [(t, True)]
        now = t
        if rng.random() < 0.35:
            for _ in range(rng.randrange(1, 5)):
                now += rng.randrange(60, 400)
                edges.append((now, False))
                now += rng.randrange(60, 400)
                edges.append((now, True))
        edges.append((now + rng.randrange(80_000, 250_000), False))
        return edges

    def hammer(self, t: int, until: int) -> list[tuple[int, bool]]:
        """A player pressing again and again (every 40–150 ms) from ``t`` to ``until``."""
        rng = self.rng
        edges: list[tuple[int, bool]] = []
        while t < until:
            period = rng.randrange(40_000, 150_000)
            edges.append((t, True))
            if rng.random() < 0.2:
                bounce = t + rng.randrange(60, 400)
                edges += [(bounce, False), (bounce + rng.randrange(60, 400), True)]
            edges.append((t + period // 2, False))
            t += period
        return edges

    def chatter(self, t: int, until: int) -> list[tuple[int, bool]]:
        """A faulty switch: down/up edges every 0.3–2 ms from ``t`` to ``until``."""
        rng = self.rng
        edges: list[tuple[int, bool]] = []
        down = True
        while t < until:
            edges.append((t, down))
            down = not down
            t += rng.randrange(300, 2_000)
        return edges

    # -- the game ------------------------------------------------------------

    def generate(self) -> GeneratedJournal:
        rng = self.rng
        # Button check before the game: nothing is open yet (not_open).
        for seat in SEATS:
            for _ in range(rng.randrange(1, 4)):
                self.edges(seat, self.tap(rng.randrange(1_000_000, 8_000_000)), 0, 9_000_000, False)
        t = 10 * US_PER_S
        while len(self.lines) < self.target:
            t = self.question(t)
        return self._finish()

    def _next_cell(self) -> tuple[int, int]:
        if not self.cells:
            self.rounds += 1
            self.cells = [(th, p) for th in range(1, THEMES + 1) for p in PRICES]
            self.rng.shuffle(self.cells)
        return self.cells.pop()

    def question(self, t: int) -> int:
        """One question from its select at ``t``; returns the time of the next select."""
        rng = self.rng
        self.questions += 1
        theme, price = self._next_cell()
        self.host(t, "select", theme=theme, price=price)
        reading_start = t + rng.randrange(800_000, 2_500_000)
        if rng.random() < 0.05:  # too eager: the reading has not started (not_open)
            at = rng.randrange(t + 1, reading_start)
            self.edges(rng.choice(SEATS), self.tap(at), t + 1, reading_start, False)
        self.host(reading_start, "reading_start")
        reading_end = reading_start + rng.randrange(3 * US_PER_S, 10 * US_PER_S)
        locked: dict[int, int] = {}
        for seat in SEATS:
            if rng.random() >= 0.15:
                continue
            # A false start, maybe a second press inside the lockout (locked, not extended).
            first = rng.randrange(reading_start + 500_000, reading_end - 50_000)
            edges = self.tap(first)
            if rng.random() < 0.3:
                edges += self.tap(first + rng.randrange(200_000, 1_500_000))
            if self.edges(seat, edges, first, min(reading_end, first + LOCKOUT_US), False):
                locked[seat] = first + LOCKOUT_US
        self.host(reading_end, "reading_end")
        answered: set[int] = set()
        start, closes_at = reading_end, reading_end + WINDOW_US
        while True:
            outcome = self.window(start, closes_at, answered, locked, not answered)
            if isinstance(outcome, _Ended):
                if outcome.by_select:
                    # the next question's select ends this one (docs/journal-contract.md)
                    return outcome.at
                closed = outcome.at
                break
            verdict_at = outcome
            correct = rng.random() < 0.55
            self.host(verdict_at, "judge", verdict="correct" if correct else "wrong")
            closed = verdict_at
            if correct or len(answered) == len(SEATS):
                break
            start, closes_at = verdict_at, verdict_at + WINDOW_US  # a fresh window (TV-M-A-D3)
        next_select = closed + rng.randrange(2 * US_PER_S, 6 * US_PER_S)
        if rng.random() < 0.05:  # a press after the question closed (window_closed)
            at = closed + rng.randrange(1, 1_000_000)
            self.edges(rng.choice(SEATS), self.tap(at), closed + 1, next_select, False)
        return next_select

    def window(
        self,
        start: int,
        closes_at: int,
        answered: set[int],
        locked: dict[int, int],
        first_window: bool,
    ) -> int | _Ended:
        """A press window ``[start, closes_at]``: the race, then the answer.

        Returns when the verdict comes, or how the question ended when nobody
        was recognized (the window closed, or the host ended the question).
        """
        rng = self.rng
        remaining = [s for s in SEATS if s not in answered]
        gestures: dict[int, list[tuple[int, bool]]] = {s: [] for s in SEATS}
        long_runs: dict[int, list[tuple[int, bool]]] = {s: [] for s in SEATS}
        if rng.random() >= (0.08 if first_window else 0.3):
            racers = [s for s in remaining if rng.random() < 0.75] or [rng.choice(remaining)]
            rng.shuffle(racers)
            lead = start + rng.randrange(120_000, 900_000)
            for i, seat in enumerate(racers):
                if i == 0:
                    at = lead
                elif rng.random() < 0.03:
                    at = lead  # an exact tie
                elif rng.random() < 0.4:
                    at = lead + rng.randrange(1, 3_000)  # near-simultaneous
                else:
                    at = lead + rng.randrange(3_000, 400_000)
                gestures[seat] += self.tap(at)
                if locked.get(seat, 0) > at and rng.random() < 0.7:
                    # Locked at the signal: press again once the lockout should be over.
                    gestures[seat] += self.tap(locked[seat] + rng.randrange(0, 400_000))
        for seat in answered:
            if rng.random() < 0.1:  # pressing again after a wrong answer (already_answered)
                gestures[seat] += self.tap(start + rng.randrange(50_000, 1_500_000))
        if rng.random() < 0.035:  # a long press run: hammering or a chattering switch
            seat = rng.choice(SEATS)
            begin = start + rng.randrange(0, 500_000)
            if rng.random() < 0.5:
                long_runs[seat] = self.hammer(begin, begin + rng.randrange(2, 15) * US_PER_S)
            else:
                long_runs[seat] = self.chatter(begin, begin + rng.randrange(200_000, 1_200_000))
        # Who wins: the earliest press in the window by a seat that may answer and is not locked.
        best: tuple[int, list[int]] | None = None
        for seat in remaining:
            for t, down in gestures[seat] + long_runs[seat]:
                if not down or not start <= t <= closes_at or t < locked.get(seat, 0):
                    continue
                if best is None or t < best[0]:
                    best = (t, [seat])
                elif t == best[0] and seat not in best[1]:
                    best[1].append(seat)
        if best is None:
            # Nobody: the window closes, or the host moves on (a select ends an open
            # window; a timeout declares the question dead). Edges stop before the next
            # select, which comes 2 s or more after the question closed.
            roll = rng.random()
            if roll < 0.3:
                at = start + rng.randrange(1 * US_PER_S, WINDOW_US - 100_000)
                ended = _Ended(at, by_select=roll < 0.15)
                if not ended.by_select:
                    self.host(at, "timeout")
            else:
                ended = _Ended(closes_at, by_select=False)
            end = ended.at if ended.by_select else ended.at + 1_900_000
            for seat in SEATS:
                self.edges(seat, gestures[seat], start, end, False)
                self.edges(seat, long_runs[seat], start, end, True)
            return ended
        t_win, tied = best
        winner = tied[0] if len(tied) == 1 else rng.choice(sorted(tied))
        if len(tied) > 1:
            self.draws.append((t_win, winner, sorted(tied)))
        self.recognized.append((t_win, winner))
        answered.add(winner)
        verdict_at = t_win + rng.randrange(1_500_000, 6_000_000)
        for seat in SEATS:
            if seat != winner and rng.random() < 0.3:  # too late: someone is answering
                gestures[seat] += self.tap(t_win + rng.randrange(5_000, 1_500_000))
        for seat in SEATS:
            self.edges(seat, gestures[seat], start, verdict_at, False)
            self.edges(seat, long_runs[seat], start, verdict_at, True)
        return verdict_at

    def _finish(self) -> GeneratedJournal:
        lines = sorted(self.lines)
        arrivals = [x.arrival for x in lines]
        # A live game journals a tie's draw right after the input that decided the tie:
        # the first to arrive stamped later than the tie's instant plus the settle window.
        settle = SETTLE_MS * US_PER_MS
        draws_after: dict[int, tuple[int, dict[str, Any]]] = {}
        for tie_t, winner, seats in self.draws:
            first = bisect.bisect_right(arrivals, tie_t + settle)
            trigger = next(
                (i for i in range(first, len(lines)) if lines[i].t > tie_t + settle), None
            )
            if trigger is not None:
                draw = {
                    "t": lines[trigger].t / US_PER_S,
                    "type": "draw",
                    "seats": seats,
                    "winner": winner,
                }
                draws_after[trigger] = (tie_t, draw)
        texts: list[str] = []
        pressed: set[tuple[int, int]] = set()
        drawn: set[int] = set()
        presses = long_run = 0
        for i, line in enumerate(lines):
            if len(texts) == self.target:
                break
            texts.append(json.dumps(line.obj, ensure_ascii=False))
            if line.obj["type"] == "press":
                presses += 1
                pressed.add((line.t, line.obj["seat"]))
            long_run += line.long_run
            if i in draws_after and len(texts) < self.target:
                tie_t, draw = draws_after[i]
                texts.append(json.dumps(draw))
                drawn.add(tie_t)
        # Ties whose draw line fell off the end are drawn from the seed by the replay.
        undrawn = {tie_t for tie_t, _, _ in self.draws} - drawn
        recognized = [r for r in self.recognized if r in pressed and r[0] not in undrawn]
        header = {
            "type": "game",
            "rules": "tv-modern",
            "players": PLAYERS,
            "chooser": 1,
            "seed": 2008,
            "settle_ms": SETTLE_MS,
            "board": {
                "rounds": [
                    {"name": f"Раунд {i}", "themes": THEMES, "prices": list(PRICES)}
                    for i in range(1, self.rounds + 1)
                ]
            },
        }
        body = "\n".join([json.dumps(header, ensure_ascii=False), *texts]) + "\n"
        return GeneratedJournal(
            data=body.encode("utf-8"),
            events=len(texts),
            presses=presses,
            questions=self.questions,
            recognized=recognized,
            long_run_events=long_run,
            ties=len(drawn),
        )


def generate_journal(seed: int, events: int) -> GeneratedJournal:
    """The benchmark's journal: the same ``seed`` and ``events``, the same bytes."""
    return JournalGenerator(seed, events).generate()


def check_model(journal: GeneratedJournal, output: list[str]) -> bool:
    """Does the replay recognize whom the generator meant to be recognized?"""
    seen = []
    for line in output:
        if '"type": "recognized"' in line:
            obj = json.loads(line)
            seen.append((round(obj["t"] * US_PER_S), obj["seat"]))
    return seen == journal.recognized
