"""The tournament's refusals, shared by its database, planner and journal replay.

A leaf module so that the pure planner (:mod:`buzzer.tournament.planning`)
and the replay (:mod:`buzzer.tournament.results`) can refuse a request
without importing the SQLite store, and callers catch one
:class:`TournamentError` whichever of them refused.
"""

from __future__ import annotations

from buzzer.errors import SvoyakError


class TournamentError(SvoyakError):
    """A request the tournament cannot carry out; the message says what to do."""


class UnknownGame(TournamentError):
    """No such game in the tournament."""


class AlreadyRecorded(TournamentError):
    """The game already has its result."""


class WrongRoom(TournamentError):
    """The game is not drawn to the room that reports it."""
