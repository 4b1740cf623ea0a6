"""The tournament server's pages: the standings as JSON data and as HTML.

:func:`standings_data` is what ``GET /api/standings`` answers (and what the
pages are drawn from): the individual and team tables, each player's
statistics when the server has them, the recorded games. :func:`render_tables`
draws them as HTML tables, the same markup on ``/`` and ``/print``, every text
escaped; :data:`STYLE`, :data:`PRINT_STYLE` and :data:`SCRIPT` are the pages'
style and script, served as files (the Content-Security-Policy allows no
inline code). :data:`LABELS`: the pages' words in Russian and English.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

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

LABELS: dict[str, dict[str, str]] = {
    "ru": {
        "title": "Своя игра — турнир",
        "individual": "Личный зачёт",
        "teams": "Командный зачёт",
        "junior": "младшая группа",
        "senior": "старшая группа",
        "rank": "Место",
        "name": "Игрок",
        "team": "Команда",
        "stage": "Этап",
        "last_place": "Место в последней игре",
        "games": "Игр",
        "points": "Очки",
        "team_points": "Командные очки",
        "players": "Игроков",
        "sum": "Сумма личных очков",
        "recorded": "Сыграно игр",
        "updated": "обновлено",
        "print": "Версия для печати",
        "none": "пока нет",
        "statistics": "Статистика игроков по всем сыгранным играм",
        "per_game": "Очков за игру",
        "right": "Верно",
        "wrong": "Неверно",
        "median": "Реакция, медиана (мс)",
        "best": "Лучшая реакция (мс)",
        "false_starts": "Фальстарты",
        "games_list": "Сыгранные игры",
        "game": "Игра",
        "result": "Счёт",
        "report": "Отчёт",
        "open_report": "отчёт",
        "csv": "Таблица CSV",
    },
    "en": {
        "title": "Svoyak — tournament",
        "individual": "Individual standings",
        "teams": "Team standings",
        "junior": "junior group",
        "senior": "senior group",
        "rank": "Rank",
        "name": "Player",
        "team": "Team",
        "stage": "Stage",
        "last_place": "Place in last game",
        "games": "Games",
        "points": "Points",
        "team_points": "Team points",
        "players": "Players",
        "sum": "Sum of individual points",
        "recorded": "Games recorded",
        "updated": "updated",
        "print": "Printable version",
        "none": "none yet",
        "statistics": "Players' statistics over every reported game",
        "per_game": "Points per game",
        "right": "Right",
        "wrong": "Wrong",
        "median": "Reaction, median (ms)",
        "best": "Best reaction (ms)",
        "false_starts": "False starts",
        "games_list": "Games played",
        "game": "Game",
        "result": "Score",
        "report": "Report",
        "open_report": "report",
        "csv": "CSV table",
    },
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


def escaped(value: object) -> str:
    return html.escape("" if value is None else str(value))


def render_tables(data: dict[str, Any], labels: dict[str, str]) -> str:
    """The standings as HTML tables (the same markup on ``/`` and ``/print``): the
    individual tables, the teams', each player's statistics (when the server has
    them) and the recorded games with links to their reports."""
    out: list[str] = [f"<p>{escaped(labels['recorded'])}: {data['games_recorded']}</p>"]
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in data["players"]:
        groups.setdefault(row["age_group"], []).append(row)
    for group, rows in groups.items():
        out.append(f"<h2>{escaped(labels['individual'])}: {escaped(labels.get(group, group))}</h2>")
        out.append(
            "<table><thead><tr>"
            + "".join(
                f"<th>{escaped(labels[k])}</th>"
                for k in ("rank", "name", "team", "stage", "last_place", "games", "points")
            )
            + "</tr></thead><tbody>"
        )
        for r in rows:
            cells = (
                r["rank"],
                r["name"],
                r["team"] or "",
                r["stage"] or "",
                "—" if r["last_place"] is None else r["last_place"],
                r["games"],
                r["points"],
            )
            out.append("<tr>" + "".join(f"<td>{escaped(c)}</td>" for c in cells) + "</tr>")
        out.append("</tbody></table>")
    out.append(f"<h2>{escaped(labels['teams'])}</h2>")
    if not data["teams"]:
        out.append(f"<p>{escaped(labels['none'])}</p>")
    else:
        out.append(
            "<table><thead><tr>"
            + "".join(
                f"<th>{escaped(labels[k])}</th>"
                for k in ("rank", "team", "team_points", "players", "sum")
            )
            + "</tr></thead><tbody>"
        )
        for t in data["teams"]:
            team_cells = (t["rank"], t["team"], t["points"], t["players"], t["individual_sum"])
            out.append("<tr>" + "".join(f"<td>{escaped(c)}</td>" for c in team_cells) + "</tr>")
        out.append("</tbody></table>")
    out.extend(_render_statistics(data, labels))
    out.extend(_render_games(data, labels))
    return "\n".join(out)


def _render_statistics(data: dict[str, Any], labels: dict[str, str]) -> list[str]:
    rows = [p for p in data["players"] if p.get("statistics") and p["statistics"]["games"]]
    if not rows:
        return []
    out = [
        f'<h2 id="statistics">{escaped(labels["statistics"])}</h2>',
        '<table class="statistics"><thead><tr>'
        + "".join(
            f"<th>{escaped(labels[k])}</th>"
            for k in (
                "name",
                "games",
                "per_game",
                "right",
                "wrong",
                "median",
                "best",
                "false_starts",
            )
        )
        + "</tr></thead><tbody>",
    ]
    for p in rows:
        s = p["statistics"]
        journaled = s["games_with_journal"] > 0
        cells = (
            p["name"],
            s["games"],
            s["points_per_game"],
            s["right"] if journaled else "—",
            s["wrong"] if journaled else "—",
            milliseconds(s["reaction_median_us"]) or "—",
            milliseconds(s["reaction_best_us"]) or "—",
            s["false_starts"] if journaled else "—",
        )
        out.append("<tr>" + "".join(f"<td>{escaped(c)}</td>" for c in cells) + "</tr>")
    out.append("</tbody></table>")
    return out


def _render_games(data: dict[str, Any], labels: dict[str, str]) -> list[str]:
    games = data.get("games") or []
    if not games:
        return []
    out = [
        f'<h2 id="games">{escaped(labels["games_list"])}</h2>',
        '<table class="games"><thead><tr>'
        + "".join(f"<th>{escaped(labels[k])}</th>" for k in ("game", "stage", "result", "report"))
        + "</tr></thead><tbody>",
    ]
    for g in games:
        result = ", ".join(f"{s['name']} {s['score']}" for s in g["seats"])
        link = (
            f'<a href="games/{int(g["id"])}/report">{escaped(labels["open_report"])}</a>'
            if g["report"]
            else "—"
        )
        stage = "SF" if g["superfinal"] else g["stage"]
        out.append(
            f"<tr><td>{int(g['id'])}</td><td>{escaped(stage)}</td><td>{escaped(result)}</td>"
            f"<td>{link}</td></tr>"
        )
    out.append("</tbody></table>")
    return out


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
