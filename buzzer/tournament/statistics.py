"""Each player's statistics across every reported game, and the standings as CSV.

Pure: no SQLite, no I/O. What one game's journal says about each seat (its
reaction times, false starts, right and wrong verdicts) is **not** decided
here: it is the game report's reading of the journal
(:mod:`buzzer.report.model`, docs/report.md "Reaction times"), handed in as
:class:`SeatStatistics` by a function the composition layer injects
(:data:`GameStatistics`; ``buzzer/app/tournament_cli.py``). The report
sits a layer above the tournament (it draws in the board's palette), so the
tournament cannot import it; one policy of what a reaction is stays in one
home, and this module only adds the games up:

- reaction times are pooled over the player's games: the median of all of
  them (rounded to the µs, as the report rounds one game's) and the best;
- false starts, right and wrong verdicts are summed;
- points per game: the sum of the recorded end scores over the recorded
  games (the superfinal included: every reported game), divided by their
  number. Scores come from the results table, so a game recorded before
  journals were kept still counts here, only not in the journal's columns.

The CSV (:func:`standings_csv`) is RFC 4180 (``csv`` with ``\\r\\n``, a field
with a comma, quote or line break quoted, quotes doubled), and a text cell
(a name, a team) that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return gets a leading ``'``, so a spreadsheet shows it as text
instead of running it as a formula (player names are anyone's input). The
numbers the server computes are written as numbers.
"""

from __future__ import annotations

import csv
import io
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from buzzer.tournament.records import SeatResult, StoredJournal
from buzzer.tournament.standings import PlayerStanding


@dataclass(frozen=True, slots=True)
class SeatStatistics:
    """One seat of one game, as the game's report reads its journal."""

    #: Reaction times from the signal (or the window's reopening), µs, in game order.
    reactions_us: tuple[int, ...]
    #: False starts (before the signal), counted apart from the reactions.
    false_starts: int
    right: int
    wrong: int


#: A stored journal → its seats' statistics in seat order (the report's model, injected).
#: Raises (anything) when the journal cannot be replayed now, e.g. its package is gone.
GameStatistics = Callable[[StoredJournal], Sequence[SeatStatistics]]

#: A stored journal and a language (``ru``/``en``) → the game's report page (injected).
GameReport = Callable[[StoredJournal, str], str]


@dataclass(frozen=True, slots=True)
class PlayerStatistics:
    """One player over every reported game."""

    name: str
    #: Recorded games (the superfinal included).
    games: int
    #: Of them, the games whose journal gave statistics.
    journaled: int
    #: Every reaction of every journaled game, µs, in game order.
    reactions_us: tuple[int, ...]
    false_starts: int
    right: int
    wrong: int
    #: The sum of the end scores of the recorded games.
    points: int

    @property
    def median_us(self) -> int | None:
        return round(statistics.median(self.reactions_us)) if self.reactions_us else None

    @property
    def best_us(self) -> int | None:
        return min(self.reactions_us) if self.reactions_us else None

    @property
    def points_per_game(self) -> Fraction | None:
        return Fraction(self.points, self.games) if self.games else None


def player_statistics(
    seats: Iterable[SeatResult], per_game: Mapping[int, Sequence[SeatStatistics]]
) -> dict[str, PlayerStatistics]:
    """Each player's statistics by name: ``seats`` every recorded seat, ``per_game``
    each journaled game's seats' statistics in seat order (a game missing from it
    counts in ``games`` and ``points`` only)."""
    games: dict[str, int] = {}
    points: dict[str, int] = {}
    journaled: dict[str, int] = {}
    reactions: dict[str, list[int]] = {}
    counts: dict[str, list[int]] = {}  # false starts, right, wrong
    for seat in seats:
        name = seat.name
        games[name] = games.get(name, 0) + 1
        points[name] = points.get(name, 0) + seat.score
        game = per_game.get(seat.game_id)
        if game is None or not 1 <= seat.seat <= len(game):
            continue
        one = game[seat.seat - 1]
        journaled[name] = journaled.get(name, 0) + 1
        reactions.setdefault(name, []).extend(one.reactions_us)
        total = counts.setdefault(name, [0, 0, 0])
        total[0] += one.false_starts
        total[1] += one.right
        total[2] += one.wrong
    return {
        name: PlayerStatistics(
            name=name,
            games=games[name],
            journaled=journaled.get(name, 0),
            reactions_us=tuple(reactions.get(name, ())),
            false_starts=counts.get(name, [0, 0, 0])[0],
            right=counts.get(name, [0, 0, 0])[1],
            wrong=counts.get(name, [0, 0, 0])[2],
            points=points[name],
        )
        for name in games
    }


def milliseconds(us: int | None) -> str:
    """µs as milliseconds with the µs kept (``412.305``); empty for none."""
    return "" if us is None else f"{us / 1000:.3f}"


def per_game_text(value: Fraction | None) -> str:
    return "" if value is None else f"{float(value):.2f}"


#: A text cell starting with one of these is a formula to a spreadsheet (OWASP's list).
FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(text: str) -> str:
    """A text cell a spreadsheet shows as text: a leading ``'`` before a formula's start."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


CSV_COLUMNS: Final = (
    "rank",
    "name",
    "age_group",
    "team",
    "stage",
    "last_place",
    "games",
    "points",
    "points_per_game",
    "right",
    "wrong",
    "reaction_median_ms",
    "reaction_best_ms",
    "reactions",
    "false_starts",
    "games_with_journal",
)


def standings_csv(players: Sequence[PlayerStanding], stats: Mapping[str, PlayerStatistics]) -> str:
    """The individual standings with each player's statistics, as RFC 4180 CSV."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(CSV_COLUMNS)
    for p in players:
        s = stats.get(p.name)
        writer.writerow(
            [
                p.rank,
                safe_cell(p.name),
                p.age_group.value,
                safe_cell(p.team or ""),
                p.stage,
                "" if p.last_place is None else p.last_place,
                p.games,
                p.points,
                per_game_text(s.points_per_game) if s else "",
                s.right if s and s.journaled else "",
                s.wrong if s and s.journaled else "",
                milliseconds(s.median_us) if s else "",
                milliseconds(s.best_us) if s else "",
                len(s.reactions_us) if s and s.journaled else "",
                s.false_starts if s and s.journaled else "",
                s.journaled if s else 0,
            ]
        )
    return out.getvalue()


def journal_statistics(
    journals: Mapping[int, StoredJournal],
    game_statistics: GameStatistics,
    cache: dict[int, tuple[SeatStatistics, ...] | None] | None = None,
) -> dict[int, Sequence[SeatStatistics]]:
    """Each stored journal's seats' statistics by game id; a journal that cannot be
    replayed now (its package gone) is left out. ``cache``: kept across calls (a
    recorded game's journal never changes), failures included, so a page that
    polls replays each game once (:func:`cached_statistics` reads only the new
    ones)."""
    found: dict[int, Sequence[SeatStatistics]] = {}
    for game_id, journal in journals.items():
        if cache is not None and game_id in cache:
            kept = cache[game_id]
        else:
            try:
                kept = tuple(game_statistics(journal))
            except Exception:  # a journal that cannot be replayed now: no columns
                kept = None
            if cache is not None:
                cache[game_id] = kept
        if kept is not None:
            found[game_id] = kept
    return found


def cached_statistics(
    ids: Iterable[int],
    load: Callable[[int], StoredJournal | None],
    game_statistics: GameStatistics,
    cache: dict[int, tuple[SeatStatistics, ...] | None],
) -> dict[int, Sequence[SeatStatistics]]:
    """:func:`journal_statistics` of the games ``ids``, loading (``load``) and
    replaying only those ``cache`` does not hold yet."""
    wanted = list(ids)
    new = {g: j for g in wanted if g not in cache and (j := load(g)) is not None}
    journal_statistics(new, game_statistics, cache)
    return {g: kept for g in wanted if (kept := cache.get(g)) is not None}
