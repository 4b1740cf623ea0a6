"""A TV series (docs/tournament.md#series-formats) between the store's rows and the pure fold.

The store keeps a series as its format, seed, entrants and the ordered
events (``series_events``: each game's result, stop-or-go, the committee's
pick, the ladder's close) and never decides anything itself: this module
turns those rows into :mod:`rules.tournament.series_play`'s events and
folds them, words the refusals for the committee, and takes a game's result
from its journal (its players and carried start scores checked against the
series' next game). No SQLite here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buzzer.tournament.errors import TournamentError
from buzzer.tournament.results import final_result, journal_header
from rules.tournament.series import SeriesFormat, find_format
from rules.tournament.series_play import (
    CloseLadder,
    Decision,
    Event,
    FobLot,
    NextGame,
    Pick,
    Played,
    SeriesError,
    SeriesView,
    fob_lot,
    play_series,
)


@dataclass(frozen=True, slots=True)
class SeriesRecord:
    """One series as stored: its format, seed, entrants in order and events."""

    id: int
    format: str
    seed: int
    members: tuple[str, ...]
    challengers: tuple[str, ...]
    events: tuple[tuple[str, Mapping[str, Any]], ...]


@dataclass(frozen=True, slots=True)
class SeriesFile:
    """A series file (``examples/series/*.json``): a format, its entrants and events."""

    format: str
    seed: int
    members: tuple[str, ...]
    challengers: tuple[str, ...]
    events: tuple[Event, ...]


def read_series_file(data: Any) -> SeriesFile:
    """A series file's JSON, checked: a TournamentError says what is wrong."""

    def names(key: str) -> tuple[str, ...]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(n, str) and n for n in value):
            raise TournamentError(f"the series file's {key!r} must be a list of names")
        return tuple(value)

    if not isinstance(data, dict) or not isinstance(data.get("format"), str):
        raise TournamentError("a series file is a JSON object with its 'format'")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or abs(seed) >= 2**63:
        raise TournamentError("the series file's 'seed' must be a whole number")
    rows = data.get("events", [])
    if not isinstance(rows, list):
        raise TournamentError("the series file's 'events' must be a list")
    events = []
    for number, row in enumerate(rows, 1):
        try:
            if not isinstance(row, dict):
                raise TypeError
            kind = row.get("type")
            if kind == "played" and not (
                all(isinstance(n, str) for n in row["players"])
                and all(type(v) is int for v in row["scores"])
                and (row["winner"] is None or type(row["winner"]) is int)
            ):
                raise TypeError
            if kind == "decision" and not (
                isinstance(row["name"], str)
                and isinstance(row["stop"], bool)
                and type(row.get("buy", 0)) is int
            ):
                raise TypeError
            events.append(event_of(str(kind), row))
        except (KeyError, TypeError, ValueError, SeriesError):
            raise TournamentError(
                f"the series file's event {number} is not a played, decision, pick or close "
                "event (docs/tournament.md#series-formats)"
            ) from None
    return SeriesFile(data["format"], seed, names("members"), names("challengers"), tuple(events))


def series_format(format_id: str) -> SeriesFormat:
    try:
        return find_format(format_id)
    except KeyError as exc:
        raise TournamentError(str(exc.args[0])) from None


def event_of(kind: str, data: Mapping[str, Any]) -> Event:
    """A stored event row → the fold's event."""
    if kind == "played":
        return Played(tuple(data["players"]), tuple(data["scores"]), data["winner"])
    if not isinstance(kind, str):
        raise TournamentError("a series event has no type")
    if kind == "decision":
        return Decision(str(data["name"]), bool(data["stop"]), int(data.get("buy", 0)))
    if kind == "pick":
        return Pick(str(data["name"]))
    if kind == "close":
        return CloseLadder()
    raise TournamentError(f"unknown series event {kind!r} in the database")


def file_row(event: Event) -> dict[str, Any]:
    """An event as a series file's line: ``{"type": kind, …}``."""
    kind, data = row_of(event)
    return {"type": kind, **data}


def row_of(event: Event) -> tuple[str, dict[str, Any]]:
    """The fold's event → its stored row."""
    if isinstance(event, Played):
        return "played", {
            "players": list(event.players),
            "scores": list(event.scores),
            "winner": event.winner,
        }
    if isinstance(event, Decision):
        return "decision", {"name": event.name, "stop": event.stop, "buy": event.buy}
    if isinstance(event, Pick):
        return "pick", {"name": event.name}
    return "close", {}


def fold(record: SeriesRecord, extra: Sequence[Event] = ()) -> SeriesView:
    """The series after its stored events and ``extra`` ones; a refusal is a TournamentError."""
    events = [event_of(kind, data) for kind, data in record.events]
    try:
        return play_series(
            series_format(record.format),
            record.members,
            record.challengers,
            [*events, *extra],
            record.seed,
        )
    except SeriesError as exc:
        message = str(exc)
        if extra and message.startswith(f"event {len(events) + 1}: "):
            message = message.split(": ", 1)[1]  # the new event's refusal, said plainly
        raise TournamentError(message) from None


def new_lots(before: SeriesView, after: SeriesView) -> tuple[FobLot, ...]:
    """The fob lots the last event drew (journaled in ``draws``)."""
    return after.lots[len(before.lots) :]


def lot_note(series_id: int, lot: FobLot) -> tuple[dict[str, Any], dict[str, Any]]:
    """A fob lot's ``draws`` entry: its input and outcome (``svoyak tournament draws``)."""
    return (
        {
            "series": series_id,
            "lot_seed": lot.seed,
            "player": lot.player,
            "fobs": lot.fobs,
            "opened": lot.opened,
        },
        {"key": lot.key, "checked": list(lot.checked), "found": lot.found},
    )


def lot_reproduces(input_: Mapping[str, Any], outcome: Mapping[str, Any]) -> bool:
    """Re-draw a journaled fob lot from its seed: whether it gives the recorded outcome."""
    lot = fob_lot(
        str(input_["lot_seed"]), str(input_["player"]), int(input_["fobs"]), int(input_["opened"])
    )
    return bool(
        lot.key == outcome["key"]
        and list(lot.checked) == outcome["checked"]
        and lot.found == outcome["found"]
    )


def played_from_journal(
    game: NextGame, journal_lines: Iterable[str], base: Path | None = None
) -> Played:
    """The series' next game's result from its journal (docs/journal-contract.md).

    The header's players must be the game's, seat by seat; a game whose
    scores carry (SER-CARRY) must start from them (``start_scores``). The
    journal must replay to a finished game.
    """
    lines = list(journal_lines)
    header = journal_header(lines)
    names = header.get("players")
    expected = "  ".join(f"{seat}:{name}" for seat, name in enumerate(game.players, start=1))
    if not isinstance(names, list) or tuple(names) != game.players:
        shown = (
            "  ".join(f"{seat}:{name}" for seat, name in enumerate(names, start=1))
            if isinstance(names, list)
            else "none"
        )
        raise TournamentError(
            f"the journal's players ({shown}) are not game {game.number}'s ({expected}): "
            "is it the right journal?"
        )
    started = header.get("start_scores")
    wanted = None if game.start_scores is None else list(game.start_scores)
    if started != wanted:
        raise TournamentError(
            f"game {game.number} starts from the carried scores {wanted} (SER-CARRY), "
            f"the journal's header has start_scores {json.dumps(started)}: "
            "start the game with the header `series show` prints"
        )
    scores, winner = final_result(lines, base)
    return Played(game.players, tuple(scores), winner)


def played_from_scores(game: NextGame, scores: Sequence[int], winner: int | None) -> Played:
    """The committee's written result: end scores in seat order; the winner's seat, or
    the single highest score above zero (SER-PLACE-D)."""
    if len(scores) != len(game.players):
        raise TournamentError(
            f"game {game.number} has {len(game.players)} players, {len(scores)} scores given"
        )
    if winner is None:
        best = max(scores)
        if best > 0 and list(scores).count(best) == 1:
            winner = list(scores).index(best) + 1
        elif best > 0:
            raise TournamentError("two players share the highest score: name the --winner seat")
    elif not 1 <= winner <= len(scores):
        raise TournamentError(f"--winner must be a seat 1..{len(scores)}")
    return Played(game.players, tuple(scores), winner)


def next_header(view: SeriesView, rules: str) -> dict[str, Any] | None:
    """The next game's journal header (its players, and its carried scores: SER-CARRY)."""
    game = view.next
    if game is None:
        return None
    header: dict[str, Any] = {"type": "game", "rules": rules, "players": list(game.players)}
    if game.start_scores is not None:
        header["start_scores"] = list(game.start_scores)
    return header


def view_data(view: SeriesView, series_id: int, rules: str = "tv-modern") -> dict[str, Any]:
    """A series as JSON (the tournament server's ``/api/series/{id}``): the table, the next
    game with its journal header, what it waits for, the notes."""
    game = view.next
    return {
        "series": series_id,
        "format": view.format.id,
        "title": view.format.title,
        "played": view.played,
        "next": None
        if game is None
        else {
            "game": game.number,
            "label": game.label,
            "players": list(game.players),
            "start_scores": None if game.start_scores is None else list(game.start_scores),
            "header": next_header(view, rules),
        },
        "waiting": view.waiting,
        "over": view.over,
        "seats": list(view.seats),
        "pool": view.pool,
        "standings": [
            {
                "name": r.name,
                "role": r.role,
                "games": r.games,
                "wins": r.wins,
                "points": r.points,
                "winnings": r.winnings,
                "bank": r.bank,
                "took": r.took,
                "prize": r.prize,
            }
            for r in view.standings
            if r.games or r.role != "challenger"
        ],
        "notes": list(view.notes),
    }
