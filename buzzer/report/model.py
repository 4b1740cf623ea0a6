"""The report's model: a journal's lines → what the report shows, as plain data.

Pure (no I/O but the package the header names, read as the replay reads
it): the journal is replayed through the engine (:func:`buzzer.journal.resume.rebuild`,
exactly what ``svoyak replay`` does) and the report is read from the
decisions it makes — never from a second reading of the rules — so the
report cannot disagree with the replay. The HTML and the pictures
(:mod:`buzzer.report.html`, :mod:`buzzer.report.svg`) only draw this model;
tests check the numbers here, apart from how they are drawn.

What is measured, and from where:

- a question's **zero** is its signal: the first ``window_opened`` of the
  question (the reading's end). A question answered during the reading
  (read-interrupt systems) may never open a window: its zero is then the
  reading's start (the ``reading_start`` input), else the question's choice;
- every press is a **mark** at its own stamp, seconds from the zero: the
  one the engine recognized, those behind it (with ``behind_us``), false
  starts (with their lockout span), presses into a locked button, late
  presses (after the window, or ``late`` from the settle window);
- a **reaction time** is the first press of a seat after a window opened
  (the signal, or the window reopened after a wrong answer), minus any
  pause in between (A-G-D1): recognized presses and the presses that lost
  to them; false starts and presses during the reading are counted apart.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from buzzer.arbiter.decisions import NoteKind
from buzzer.core import InputError
from buzzer.journal.codec import JournalError, parse_header
from buzzer.journal.resume import rebuild

#: The reasons of an ``ignored`` press that still measure a reaction: the press
#: lost to the recognized one (it was in time, only later).
_REACTION_REASONS: Final = frozenset({"someone_answering", "lost_draw"})

#: How each press decision is drawn (the picture's legend names them).
MARK_KINDS: Final = (
    "won",  # recognized: this press took the floor
    "behind",  # in time, but after the winner's (``behind_us``)
    "false_start",  # before the signal: the button is locked (a span follows)
    "early",  # during the reading, recognized (read-interrupt systems)
    "locked",  # into a button still locked after a false start
    "late",  # after the window closed, or ``late`` (arrived beyond the settle window)
    "other",  # anything else that decided nothing (already answered, not open, …)
)


@dataclass(frozen=True, slots=True)
class Mark:
    """One press, ``t`` seconds from the question's zero."""

    seat: int
    t: float
    kind: str
    #: The engine's reason for an ignored press (``someone_answering``, ``late``, …).
    reason: str | None = None
    #: For a press behind the winner's: by how many µs (0 for a lost draw).
    behind_us: int | None = None
    #: For a false start: the end of the lockout, seconds from the zero.
    locked_until: float | None = None


@dataclass(frozen=True, slots=True)
class Attempt:
    """A player recognized (the floor taken) and what came of it."""

    seat: int
    t: float
    #: False for a special question's one answerer: no button was pressed.
    pressed: bool
    #: The press came during the reading (it interrupted it: read-interrupt systems).
    during_reading: bool = False
    #: µs to the runner-up's press (None: nobody pressed after; 0: a tie the draw decided).
    margin_us: int | None = None
    runner_up: int | None = None
    #: Seats level with the winner (an exact tie, A-G1): the draw decided.
    level: tuple[int, ...] = ()
    #: ``right`` / ``wrong`` / ``free`` (wrong, no penalty), or None (no verdict).
    verdict: str | None = None
    delta: int | None = None


@dataclass(frozen=True, slots=True)
class Window:
    """A press window, seconds from the zero; ``empty``: it closed with nobody pressing."""

    opened: float
    closes: float
    empty: bool = False


@dataclass(frozen=True, slots=True)
class ScoreChange:
    """A score change that is not a verdict: a correction, an accepted objection, an undo."""

    seat: int
    delta: int
    kind: str


@dataclass(frozen=True, slots=True)
class Question:
    """One question played: its cell, its presses and how it ended."""

    number: int
    round: int
    theme: int
    theme_title: str | None
    price: int
    chooser: int | None
    #: ``cat`` / ``stake`` / ``sponsor``, or None for a question played on the buttons.
    special: str | None
    shootout: bool
    #: What the zero is: ``signal``, ``reading_start`` or ``question`` (see the module).
    zero: str
    #: The zero as game time (seconds since the game started).
    zero_at: float
    marks: tuple[Mark, ...]
    attempts: tuple[Attempt, ...]
    windows: tuple[Window, ...]
    changes: tuple[ScoreChange, ...]
    #: Every seat's score once the question is over (the shootout's own in a shootout).
    scores: tuple[int, ...]
    #: The seats' names when it was played (a substitute changes one later, SER-CC1-SUB).
    names: tuple[str, ...]
    #: The host withdrew it while it was still open (a ``timeout``): nobody answered
    #: right and no window closed on its own — perhaps after a wrong answer.
    withdrawn: bool = False


@dataclass(frozen=True, slots=True)
class Point:
    """A point of the score chart: the scores after a block of the game."""

    #: ``start``, ``question``, ``bonus``, ``final``.
    kind: str
    round: int
    scores: tuple[int, ...]
    #: The question's number (a ``question`` point), its special kind if any.
    number: int | None = None
    special: str | None = None


@dataclass(frozen=True, slots=True)
class Round:
    """A round of the game: its number, name, and the chart point it starts at."""

    number: int
    name: str
    first_point: int


@dataclass(frozen=True, slots=True)
class Player:
    """One seat's statistics over the game."""

    seat: int
    name: str
    #: Reaction times from the signal (or the window's reopening), µs, in game order.
    reactions_us: tuple[int, ...]
    false_starts: int
    #: Recognized during the reading (read-interrupt systems): no reaction to a signal.
    during_reading: int
    #: Presses that took the floor.
    won: int
    right: int
    wrong: int
    #: Points won or lost by round: (round number, points); the final is round 0.
    by_round: tuple[tuple[int, int], ...]
    score: int

    @property
    def median_us(self) -> int | None:
        return round(statistics.median(self.reactions_us)) if self.reactions_us else None

    @property
    def best_us(self) -> int | None:
        return min(self.reactions_us) if self.reactions_us else None


@dataclass(frozen=True, slots=True)
class Report:
    """Everything the report shows, read from one replay of the journal."""

    rules: str
    rules_title: str
    players: tuple[str, ...]
    #: SER-CC1-SUB: (seat, who left, who came in).
    substitutes: tuple[tuple[int, str, str], ...]
    package: str | None
    date: str | None
    start_scores: tuple[int, ...]
    questions: tuple[Question, ...]
    points: tuple[Point, ...]
    rounds: tuple[Round, ...]
    stats: tuple[Player, ...]
    scores: tuple[int, ...]
    over: bool
    winner: int | None
    #: The journal's line count (header included).
    lines: int


def build_report(lines: Sequence[str], base: Path | None = None) -> Report:
    """Replay ``lines`` (header first) and read the report from its decisions.

    A broken journal raises :class:`JournalError` naming its line, as ``svoyak replay``."""
    lines = list(lines)
    core, decisions = rebuild(lines, base)
    try:
        core.finish(decisions)
    except InputError as exc:
        raise JournalError(exc.ref, exc.message) from None
    header = _header(lines[0])
    setup = parse_header(lines[0], base)
    records = [json.loads(d.to_json()) for d in decisions]
    walker = _Walker(
        players=setup.players,
        start=tuple(setup.start_scores)
        if setup.start_scores is not None
        else (setup.rules.start_score,) * len(setup.players),
        round_names=tuple(r.name for r in (setup.rounds or setup.rules.rounds)),
        theme_titles=tuple(tuple(r.themes) for r in (setup.rounds or setup.rules.rounds)),
        readings=_reading_starts(lines),
    )
    for record in records:
        walker.take(record)
    walker.finish()
    package = header.get("package")
    date = header.get("date")
    return Report(
        rules=setup.rules.id,
        rules_title=setup.rules.title,
        players=setup.players,
        substitutes=tuple(walker.substitutes),
        package=package if isinstance(package, str) else None,
        date=date if isinstance(date, str) else None,
        start_scores=walker.start,
        questions=tuple(walker.questions),
        points=tuple(walker.points),
        rounds=tuple(walker.rounds),
        stats=walker.players_stats(),
        scores=tuple(walker.scores),
        over=walker.over,
        winner=walker.winner,
        lines=len(lines),
    )


def _header(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _reading_starts(lines: Iterable[str]) -> list[float]:
    """The ``reading_start`` inputs' times (the zero of a question with no signal)."""
    times = []
    for text in list(lines)[1:]:
        if '"reading_start"' not in text:
            continue
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if isinstance(value, dict) and value.get("type") == "reading_start":
            t = value.get("t")
            if isinstance(t, int | float):
                times.append(float(t))
    return sorted(times)


@dataclass
class _Open:
    """The question being read from the decisions (absolute times until it closes)."""

    number: int
    round: int
    theme: int
    price: int
    chooser: int | None
    t: float
    shootout: bool
    special: str | None = None
    signal: float | None = None
    presses: list[dict[str, Any]] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    windows: list[list[Any]] = field(default_factory=list)
    changes: list[ScoreChange] = field(default_factory=list)
    #: (window opened at, pause seconds since then) for each window, newest last.
    pauses: list[tuple[float, float]] = field(default_factory=list)
    #: Whether it is still open: ``open`` (to be pressed or answered), ``right``,
    #: ``closed`` (a window closed, or nobody was left to answer), ``wrong`` (a wrong
    #: verdict at ``wrong_at``: closed if the choice passes at that same instant).
    state: str = "open"
    wrong_at: float | None = None


def withdrawn(state: str, shootout: bool) -> bool:
    """A question that ended in ``state`` was withdrawn by the host (``timeout``).

    ``open``: it ended with a window open, a reading going on, or an answer not
    judged. ``wrong``: a wrong verdict whose question did not close at that instant
    (the reading went on for the others: TV-94-A2's ``hold``). A shootout passes no
    choice, so there a last wrong answer cannot be told from a withdrawal: not one."""
    return state == "open" or (state == "wrong" and not shootout)


class _Walker:
    """Walks the decisions once, in order; one ``on_<type>`` per decision it reads."""

    def __init__(
        self,
        players: tuple[str, ...],
        start: tuple[int, ...],
        round_names: tuple[str, ...],
        theme_titles: tuple[tuple[str, ...], ...],
        readings: list[float],
    ) -> None:
        self.players = players
        self.names = list(players)
        self.start = start
        self.scores = list(start)
        self.round_names = round_names
        self.theme_titles = theme_titles
        self.readings = readings
        self.questions: list[Question] = []
        self.points: list[Point] = [Point("start", 1, start)]
        self.rounds: list[Round] = []
        self.substitutes: list[tuple[int, str, str]] = []
        self.current: _Open | None = None
        self.round = 1
        self.chooser: int | None = None
        self.count = 0
        self.buying = False
        self.adjusting: NoteKind | None = None
        self.undone_at: object = None
        self.block: str | None = None  # "bonus" / "final" while one is played
        self.shootout: dict[int, int] | None = None
        self.over = False
        self.winner: int | None = None
        n = len(players)
        self.reactions: list[list[int]] = [[] for _ in range(n)]
        self.false_starts = [0] * n
        self.during_reading = [0] * n
        self.won = [0] * n
        self.right = [0] * n
        self.wrong = [0] * n
        self.by_round: list[dict[int, int]] = [{} for _ in range(n)]

    # -- walking -------------------------------------------------------------------

    def take(self, r: dict[str, Any]) -> None:
        kind = str(r.get("type"))
        if self.adjusting is NoteKind.UNDONE and (
            kind not in ("score", "chooser") or r.get("t") != self.undone_at
        ):
            self.adjusting = None
        handler = getattr(self, "on_" + kind, None)
        if handler is not None:
            handler(r)

    def finish(self) -> None:
        if self.current is not None:
            self.current.state = "closed"  # the journal ends in it: still in play, not withdrawn
        self.close()

    def seat_ok(self, seat: object) -> bool:
        return isinstance(seat, int) and 1 <= seat <= len(self.players)

    def ensure_round(self) -> None:
        if not self.rounds or self.rounds[-1].number != self.round:
            name = (
                self.round_names[self.round - 1]
                if 1 <= self.round <= len(self.round_names)
                else str(self.round)
            )
            self.rounds.append(Round(self.round, name, len(self.points) - 1))

    # -- blocks: a question, the bonus contest, the final ---------------------------

    def close(self) -> None:
        """The block being read is over: its question is stored, a chart point made."""
        q = self.current
        if q is not None:
            self.current = None
            self.questions.append(self.freeze(q))
            self.points.append(Point("question", q.round, tuple(self.scores), q.number, q.special))
        elif self.block is not None:
            self.points.append(Point(self.block, self.round, tuple(self.scores)))
        self.block = None

    def freeze(self, q: _Open) -> Question:
        zero, zero_at = "question", q.t
        if q.signal is not None:
            zero, zero_at = "signal", q.signal
        else:
            starts = [t for t in self.readings if t >= q.t]
            first_press = min((p["t"] for p in q.presses), default=None)
            if starts and (first_press is None or starts[0] <= first_press):
                zero, zero_at = "reading_start", starts[0]

        def rel(t: float) -> float:
            return round(t - zero_at, 6)

        marks = []
        for p in q.presses:
            until = p.get("locked_until")
            marks.append(
                Mark(
                    seat=p["seat"],
                    t=rel(p["t"]),
                    kind=p["kind"],
                    reason=p.get("reason"),
                    behind_us=p.get("behind_us"),
                    locked_until=rel(until) if until is not None else None,
                )
            )
        attempts = []
        for a in q.attempts:
            behind = a["behind"]
            level = tuple(seat for seat, us in behind if us == 0)
            others = [(us, seat) for seat, us in behind if us > 0]
            margin_us: int | None = None
            runner_up: int | None = None
            if level:
                margin_us = 0
            elif others:
                margin_us, runner_up = min(others)
            attempts.append(
                Attempt(
                    seat=a["seat"],
                    t=rel(a["t"]),
                    pressed=a["pressed"],
                    during_reading=a["during_reading"],
                    margin_us=margin_us,
                    runner_up=runner_up,
                    level=level,
                    verdict=a.get("verdict"),
                    delta=a.get("delta"),
                )
            )
        windows = [Window(rel(o), rel(c), bool(e)) for o, c, e in q.windows]
        scores = (
            tuple(self.shootout.get(s, 0) for s in range(1, len(self.players) + 1))
            if q.shootout and self.shootout is not None
            else tuple(self.scores)
        )
        titles = self.theme_titles[q.round - 1] if 1 <= q.round <= len(self.theme_titles) else ()
        title = titles[q.theme - 1] if 1 <= q.theme <= len(titles) else None
        return Question(
            number=q.number,
            round=q.round,
            theme=q.theme,
            theme_title=title if title != str(q.theme) else None,
            price=q.price,
            chooser=q.chooser,
            special=q.special,
            shootout=q.shootout,
            zero=zero,
            zero_at=zero_at,
            marks=tuple(marks),
            attempts=tuple(attempts),
            windows=tuple(windows),
            changes=tuple(q.changes),
            scores=scores,
            names=tuple(self.names),
            withdrawn=withdrawn(q.state, q.shootout),
        )

    def on_round_started(self, r: dict[str, Any]) -> None:
        self.close()
        self.round = int(r["round"])
        self.ensure_round()
        self.rounds[-1] = Round(self.round, str(r["name"]), len(self.points) - 1)

    def on_question(self, r: dict[str, Any]) -> None:
        self.close()
        if self.shootout is None:
            self.round = int(r["round"])
            self.ensure_round()
        self.count += 1
        self.current = _Open(
            number=self.count,
            round=int(r["round"]),
            theme=int(r["theme"]),
            price=int(r["price"]),
            chooser=self.chooser if self.shootout is None else None,
            t=float(r["t"]),
            shootout=self.shootout is not None,
        )

    def on_special(self, r: dict[str, Any]) -> None:
        if self.current is not None:
            self.current.special = str(r["kind"])

    def on_bonus_offer(self, r: dict[str, Any]) -> None:
        if self.block != "bonus":
            self.close()
            self.block = "bonus"

    def on_final_started(self, r: dict[str, Any]) -> None:
        self.close()
        self.block = "final"

    def on_shootout_started(self, r: dict[str, Any]) -> None:
        self.close()
        self.shootout = {int(s): 0 for s in r["seats"]}

    def on_tie_for_first(self, r: dict[str, Any]) -> None:
        self.close()
        self.shootout = None

    def on_game_over(self, r: dict[str, Any]) -> None:
        self.close()
        self.shootout = None
        self.over = True
        winner = r.get("winner")
        self.winner = winner if isinstance(winner, int) else None

    def on_chooser(self, r: dict[str, Any]) -> None:
        q = self.current
        if q is not None and q.state == "wrong" and r.get("t") == q.wrong_at:
            q.state = "closed"  # the wrong answer left nobody to answer: it closed then
        seat = r.get("seat")
        self.chooser = seat if isinstance(seat, int) else None

    on_first_chooser = on_chooser

    def on_substitute(self, r: dict[str, Any]) -> None:
        # Round 2's last question is over: it is stored with the names it was played by
        # before the seat changes hands (SER-CC1-SUB).
        self.close()
        seat = int(r["seat"])
        self.substitutes.append((seat, str(r["out"]), str(r["in"])))
        if self.seat_ok(seat):
            self.names[seat - 1] = str(r["in"])

    # -- the buttons ----------------------------------------------------------------

    def on_buy_window(self, r: dict[str, Any]) -> None:
        self.buying = True

    def on_stake_won(self, r: dict[str, Any]) -> None:
        self.buying = False

    def on_window_opened(self, r: dict[str, Any]) -> None:
        q = self.current
        if self.buying or q is None:
            return
        t = float(r["t"])
        if q.signal is None:
            q.signal = t
        q.windows.append([t, float(r["closes_at"]), False])
        q.pauses.append((t, 0.0))
        q.state = "open"

    def on_reading_resumed(self, r: dict[str, Any]) -> None:
        if self.current is not None:
            self.current.state = "open"

    def on_window_closed(self, r: dict[str, Any]) -> None:
        q = self.current
        if q is not None:
            q.state = "closed"
        if self.buying or q is None or not q.windows:
            return
        q.windows[-1][1] = float(r["t"])
        q.windows[-1][2] = True

    def on_resumed(self, r: dict[str, Any]) -> None:
        q = self.current
        if q is not None and q.pauses:
            opened, paused = q.pauses[-1]
            q.pauses[-1] = (opened, paused + float(r["paused_s"]))
            if q.windows and q.windows[-1][2] is False:
                q.windows[-1][1] += float(r["paused_s"])

    def press(self, r: dict[str, Any], kind: str, **extra: Any) -> None:
        q = self.current
        seat = r.get("seat")
        if q is None or not self.seat_ok(seat):
            return
        assert isinstance(seat, int)
        t = float(r["t"])
        q.presses.append({"seat": seat, "t": t, "kind": kind, **extra})
        reason = extra.get("reason")
        if kind in ("won", "behind") and (reason is None or reason in _REACTION_REASONS):
            self.reaction(q, seat, t)

    def reaction(self, q: _Open, seat: int, t: float) -> None:
        """The seat's first press since the newest window opened: a reaction time."""
        if not q.pauses or t < q.pauses[-1][0]:
            return
        opened, paused = q.pauses[-1]
        if any(p["seat"] == seat and opened <= p["t"] <= t for p in q.presses[:-1]):
            return  # not the first press since the window opened: no reaction
        us = round((t - opened - paused) * 1_000_000)
        self.reactions[seat - 1].append(max(0, us))

    def on_recognized(self, r: dict[str, Any]) -> None:
        q = self.current
        seat = r.get("seat")
        if q is None or not self.seat_ok(seat):
            return
        assert isinstance(seat, int)
        t = float(r["t"])
        pressed = q.special is None
        q.attempts.append(
            {"seat": seat, "t": t, "pressed": pressed, "during_reading": False, "behind": []}
        )
        if pressed:
            self.won[seat - 1] += 1
            self.press(r, "won")

    def on_reading_interrupted(self, r: dict[str, Any]) -> None:
        q = self.current
        if q is None or not q.attempts:
            return
        q.attempts[-1]["during_reading"] = True
        seat = q.attempts[-1]["seat"]
        self.during_reading[seat - 1] += 1
        for p in reversed(q.presses):
            if p["seat"] == seat and p["kind"] == "won":
                p["kind"] = "early"
                break

    def on_bid_claim(self, r: dict[str, Any]) -> None:
        self.press(r, "won", reason="bid_claim")

    def on_false_start(self, r: dict[str, Any]) -> None:
        seat = r.get("seat")
        if self.current is not None and self.seat_ok(seat):
            assert isinstance(seat, int)
            self.false_starts[seat - 1] += 1
        self.press(r, "false_start", locked_until=float(r["locked_until"]))

    def on_ignored(self, r: dict[str, Any]) -> None:
        reason = str(r.get("reason"))
        behind = r.get("behind_us")
        q = self.current
        if behind is not None and q is not None and q.attempts:
            q.attempts[-1]["behind"].append((r["seat"], int(behind)))
            self.press(r, "behind", reason=reason, behind_us=int(behind))
            return
        if reason == "locked":
            kind = "locked"
        elif reason in ("window_closed", "late"):
            kind = "late"
        else:
            kind = "other"
        self.press(r, kind, reason=reason)

    # -- the scores -------------------------------------------------------------------

    def on_correction(self, r: dict[str, Any]) -> None:
        self.adjusting = NoteKind.CORRECTION

    def on_objection(self, r: dict[str, Any]) -> None:
        self.adjusting = NoteKind.OBJECTION

    def on_undone(self, r: dict[str, Any]) -> None:
        self.adjusting = NoteKind.UNDONE
        self.undone_at = r.get("t")

    def on_score(self, r: dict[str, Any]) -> None:
        seat, delta, score = r.get("seat"), int(r["delta"]), int(r["score"])
        if not self.seat_ok(seat):
            return
        assert isinstance(seat, int)
        self.scores[seat - 1] = score
        key = 0 if self.block == "final" else self.round
        points = self.by_round[seat - 1]
        points[key] = points.get(key, 0) + delta
        q = self.current
        if self.adjusting is not None:
            kind = self.adjusting
            if kind is not NoteKind.UNDONE:
                self.adjusting = None
            if q is not None:
                q.changes.append(ScoreChange(seat, delta, kind))
            return
        self.verdict(seat, delta, float(r["t"]), final=self.block == "final")

    def on_shootout_score(self, r: dict[str, Any]) -> None:
        seat, delta = r.get("seat"), int(r["delta"])
        if not self.seat_ok(seat):
            return
        assert isinstance(seat, int)
        if self.shootout is not None:
            self.shootout[seat] = int(r["score"])
        self.verdict(seat, delta, float(r["t"]), final=False)

    def verdict(self, seat: int, delta: int, t: float, final: bool) -> None:
        verdict = "right" if delta > 0 else "wrong" if delta < 0 else "free"
        if final and delta == 0:
            return  # a zero stake: neither right nor wrong to be counted
        if self.block == "bonus":
            return  # the bonus contest's loss: told by its own block, not a verdict
        q = self.current
        if q is not None:
            q.state = "right" if verdict == "right" else "wrong"
            q.wrong_at = None if verdict == "right" else t
            for attempt in reversed(q.attempts):
                if attempt["seat"] == seat and "verdict" not in attempt:
                    attempt["verdict"] = verdict
                    attempt["delta"] = delta
                    break
        if verdict == "right":
            self.right[seat - 1] += 1
        else:
            self.wrong[seat - 1] += 1

    # -- the statistics -----------------------------------------------------------------

    def players_stats(self) -> tuple[Player, ...]:
        stats = []
        for i, name in enumerate(self.names):
            rounds = self.by_round[i]
            order = sorted(k for k in rounds if k > 0) + ([0] if 0 in rounds else [])
            stats.append(
                Player(
                    seat=i + 1,
                    name=name,
                    reactions_us=tuple(self.reactions[i]),
                    false_starts=self.false_starts[i],
                    during_reading=self.during_reading[i],
                    won=self.won[i],
                    right=self.right[i],
                    wrong=self.wrong[i],
                    by_round=tuple((k, rounds[k]) for k in order),
                    score=self.scores[i],
                )
            )
        return tuple(stats)
