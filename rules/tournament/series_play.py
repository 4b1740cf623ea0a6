"""A series played game by game: a format (``rules.tournament.series``) folded over its events.

The series is a pure function of its format, its entrants, its seed and the
ordered events (each game's result, the champion's stop-or-go, the
committee's pick): :func:`play_series` returns the :class:`SeriesView` after
them — the standings, the next game's players (and its carried start
scores), or what the series waits for. An event that does not fit (the wrong
players, a decision nobody is asked for) is a :class:`SeriesError`, nothing
applied. Every lot (the fobs, a bracket's groups) is drawn from the seed, so
the same events give the same series, byte for byte.

The fold's parts: :mod:`rules.tournament.series_events` (the events and the
view), :mod:`rules.tournament.series_run` (what the shapes share), and the
three shapes, :mod:`rules.tournament.series_ladder`,
:mod:`rules.tournament.series_seats` and :mod:`rules.tournament.series_bracket`.
The events and the view are importable from here.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules.tournament.series import SeriesFormat, Shape
from rules.tournament.series_bracket import Bracket
from rules.tournament.series_events import (
    CloseLadder,
    Decision,
    Event,
    FobLot,
    NextGame,
    Pick,
    Played,
    SeriesError,
    SeriesView,
    Standing,
    fob_lot,
)
from rules.tournament.series_ladder import Ladder
from rules.tournament.series_run import Run
from rules.tournament.series_seats import Seats

__all__ = [
    "CloseLadder",
    "Decision",
    "Event",
    "FobLot",
    "NextGame",
    "Pick",
    "Played",
    "SeriesError",
    "SeriesView",
    "Standing",
    "add_entrant_check",
    "fob_lot",
    "play_series",
]


def play_series(
    fmt: SeriesFormat,
    members: Sequence[str],
    challengers: Sequence[str],
    events: Sequence[Event],
    seed: int = 0,
) -> SeriesView:
    """The series after ``events``; :class:`SeriesError` names an event that does not fit."""
    names = list(members) + list(challengers)
    if len(set(names)) != len(names):
        raise SeriesError("a player is entered twice")
    if fmt.shape is Shape.SEATS and len(members) != fmt.members:
        raise SeriesError(f"{fmt.id} starts with {fmt.members} members, {len(members)} given")
    if fmt.shape is not Shape.SEATS and members:
        raise SeriesError(f"{fmt.id} has no members: enter everyone as a challenger")
    run: Run
    if fmt.shape is Shape.LADDER:
        run = Ladder(fmt, challengers, seed)
    elif fmt.shape is Shape.SEATS:
        run = Seats(fmt, members, challengers, seed)
    else:
        run = Bracket(fmt, challengers, seed)
    for number, event in enumerate(events, 1):
        try:
            run.apply(event)
        except SeriesError as exc:
            raise SeriesError(f"event {number}: {exc}") from None
    return run.view()


def add_entrant_check(view: SeriesView, name: str) -> None:
    """A name may be entered once per series."""
    if any(row.name == name for row in view.standings):
        raise SeriesError(f"{name} is already in the series")
