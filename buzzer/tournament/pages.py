"""The tournament server's pages: the standings as JSON data and as HTML.

:func:`standings_data` is what ``GET /api/standings`` answers (and what the
pages are drawn from): the individual and team tables, each player's
statistics when the server has them, the recorded games. :func:`render_tables`,
:func:`render_standings` and :func:`render_print` draw them as HTML from the
Jinja2 templates in ``templates/`` (the tables the same markup on ``/``,
``/print`` and ``/tables``), every value escaped by autoescape; :data:`STYLE`,
:data:`PRINT_STYLE` and :data:`SCRIPT` are the pages' style and script, served
as files (the Content-Security-Policy allows no inline code). :data:`LABELS`:
the pages' words in Russian and English (from ``buzzer/words/*.json``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from buzzer import words
from buzzer.tournament.statistics import (
    GameStatistics,
    PlayerStatistics,
    SeatStatistics,
    cached_statistics,
    milliseconds,
    per_game_text,
    player_statistics,
)
from buzzer.tournament.store import TournamentStore

#: The pages' words, each language's: the catalogue's ``tournament`` namespace.
LABELS: dict[str, dict[str, str]] = {
    lang: dict(words.table("tournament", lang)) for lang in words.LANGUAGES
}


def _points(value: Any) -> str:
    return f"{float(value):.2f}"


def _statistics_data(s: PlayerStatistics | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {
        "games": s.games,
        "games_with_journal": s.journaled,
        "points_per_game": per_game_text(s.points_per_game),
        "right": s.right,
        "wrong": s.wrong,
        "reactions": len(s.reactions_us),
        "reaction_median_us": s.median_us,
        "reaction_best_us": s.best_us,
        "false_starts": s.false_starts,
    }


def standings_data(
    db_path: str | Path,
    statistics: GameStatistics | None = None,
    cache: dict[int, tuple[SeatStatistics, ...] | None] | None = None,
    reports: bool = False,
) -> dict[str, Any]:
    """The tables as plain JSON data (what ``GET /api/standings`` returns).

    With ``statistics`` each player row has its ``statistics`` over every
    reported game (:mod:`buzzer.tournament.statistics`; ``cache`` keeps each
    game's across calls); ``games`` lists the recorded games, ``report``
    telling whether ``/games/{id}/report`` serves one (``reports`` and a kept
    journal)."""
    with TournamentStore(db_path) as store:
        players = store.individual_standings()
        teams = store.team_standings()
        games = store.games()
        seats = store.seat_results()
        kept = store.journal_ids()
        per_game = (
            cached_statistics(kept, store.journal, statistics, {} if cache is None else cache)
            if statistics is not None
            else {}
        )
    recorded = sorted({s.game_id for s in seats})
    stats = player_statistics(seats, per_game) if statistics is not None else None
    played: dict[int, list[dict[str, Any]]] = {}
    for s in seats:
        played.setdefault(s.game_id, []).append({"name": s.name, "score": s.score})
    drawn = {g.id: g for g in games}
    return {
        "version": f"{len(games)}:{len(recorded)}:{','.join(map(str, recorded))}",
        "games_drawn": len(games),
        "games_recorded": len(recorded),
        "players": [
            {
                "rank": p.rank,
                "name": p.name,
                "age_group": p.age_group.value,
                "team": p.team,
                "stage": p.stage,
                "games": p.games,
                "last_place": p.last_place,
                "points": p.points,
                "statistics": None if stats is None else _statistics_data(stats.get(p.name)),
            }
            for p in players
        ],
        "games": [
            {
                "id": g,
                "stage": drawn[g].stage if g in drawn else None,
                "superfinal": bool(drawn[g].superfinal) if g in drawn else False,
                "seats": played[g],
                "report": reports and g in kept,
            }
            for g in recorded
        ],
        "teams": [
            {
                "rank": t.rank,
                "team": t.team,
                "points": _points(t.points),
                "points_exact": str(t.points),
                "players": t.players,
                "individual_sum": t.individual_sum,
            }
            for t in teams
        ],
    }


def _shown(value: object) -> object:
    """Nothing for ``None`` (a player with no team, a game with no stage), as before."""
    return "" if value is None else value


#: The pages' templates (``buzzer/tournament/templates/``): every value escaped by
#: Jinja2's autoescape (names, teams and titles are anyone's input; none is ever
#: marked safe), and a variable a template names but is not given is an error.
TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("buzzer.tournament", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    finalize=_shown,
    trim_blocks=True,
    lstrip_blocks=True,
)
TEMPLATES.filters["milliseconds"] = milliseconds


def _tables_context(data: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in data["players"]:
        groups.setdefault(row["age_group"], []).append(row)
    statistics = [p for p in data["players"] if p.get("statistics") and p["statistics"]["games"]]
    return {"data": data, "labels": labels, "groups": groups, "statistics": statistics}


def render_tables(data: dict[str, Any], labels: dict[str, str]) -> str:
    """The standings as HTML tables (the same markup on ``/`` and ``/print``): the
    individual tables, the teams', each player's statistics (when the server has
    them) and the recorded games with links to their reports (``tables.html``)."""
    return TEMPLATES.get_template("tables.html").render(_tables_context(data, labels))


def render_standings(
    data: dict[str, Any], labels: dict[str, str], *, lang: str, heading: str, poll_ms: int
) -> str:
    """``/``: the tables with the links to the printable page and the CSV, and the
    script (a file) that redraws them from ``/tables`` (``standings.html``)."""
    return TEMPLATES.get_template("standings.html").render(
        _tables_context(data, labels),
        lang=lang,
        heading=heading,
        style="standings.css",
        version=str(data["version"]),
        poll_ms=poll_ms,
    )


def render_print(
    data: dict[str, Any], labels: dict[str, str], *, lang: str, heading: str, stamp: str
) -> str:
    """``/print``: the tables for paper, stamped, no script (``print.html``)."""
    return TEMPLATES.get_template("print.html").render(
        _tables_context(data, labels), lang=lang, heading=heading, style="print.css", stamp=stamp
    )


STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; }
table { border-collapse: collapse; margin-bottom: 1.5rem; }
th, td { border: 1px solid #999; padding: 0.25rem 0.6rem; text-align: left; }
th { background: #eee; }
"""

PRINT_STYLE = """
@page { size: A4; margin: 15mm; }
body { font-family: serif; margin: 0; color: #000; }
table { border-collapse: collapse; width: 100%; margin-bottom: 8mm; page-break-inside: auto; }
tr { page-break-inside: avoid; }
th, td { border: 1px solid #000; padding: 1mm 2mm; text-align: left; }
h2 { page-break-after: avoid; }
"""

SCRIPT = """
(function () {
  let version = document.body.dataset.version;
  const POLL_MS = Number(document.body.dataset.pollMs) || 2000;
  async function poll() {
    try {
      const r = await fetch("tables", {cache: "no-store"});
      if (r.ok) {
        const v = r.headers.get("X-Standings-Version");
        if (v !== version) {
          document.getElementById("tables").innerHTML = await r.text();
          version = v;
        }
        document.getElementById("updated").textContent = new Date().toLocaleTimeString();
      }
    } catch (e) { /* the server is restarting: try again */ }
    setTimeout(poll, POLL_MS);
  }
  setTimeout(poll, POLL_MS);
})();
"""
