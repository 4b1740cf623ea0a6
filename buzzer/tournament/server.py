"""The tournament server: rooms report finished games over HTTP.

``create_tournament_app(db_path)`` serves one tournament's SQLite file:

* ``POST /api/rooms/{room}/results`` — a room (one game controller) sends
  ``{"game_id": N, "journal": [lines…]}`` with ``Authorization: Bearer
  TOKEN``; the result is taken from the journal by
  :func:`buzzer.tournament.store.record_game_result`, with the room's
  report in the same transaction. 401: no bearer token; 403: a token that
  is not this room's, or a game not drawn to this room; 404: no such game;
  409: the game is already recorded; 413: a body over ``max_body_bytes``
  (refused before it is read, by its ``Content-Length`` or, chunked, as
  it arrives); 422: a body or journal that is not a finished game of that
  draw, played by its drawn players in its drawn seats; 503: the
  tournament's file could not be written (nothing was recorded).

The token is checked before a byte of the body is read. A journal's
``package`` path is never opened: its file name is looked up among the
tournament's own packages (``packages``, see
:class:`buzzer.tournament.results.TournamentPackages`).
* ``POST /api/rooms/{room}/series/{series}/results`` — a room sends a TV
  series' game (docs/tournament.md#series-formats): ``{"game": N, "journal":
  [lines…]}``, N the series' next game; any room with its token may (a series
  game is not drawn to a room: SER-SRV-D1); its players and carried start
  scores must be that game's. 404: no such series or game due; 409: that game
  is recorded already; 422: not that game's journal. The answer is the series
  after it (``GET /api/series/{series}``).
* ``GET /api/series``, ``GET /api/series/{series}`` — every series, or one:
  its table, the next game's players and journal header (with the carried
  ``start_scores``), what it waits for.
* ``GET /api/standings`` — individual and team tables as JSON, with a
  ``version`` that changes whenever a result is recorded.
* ``GET /`` — the standings page (Russian by default; its data, tables, words,
  style and script are :mod:`buzzer.tournament.pages`'); it polls
  ``/api/standings`` and redraws itself when the version changes.
* ``GET /print`` — the same tables as a printable page, no script.
* ``GET /standings.csv`` — the individual standings with each player's
  statistics across every reported game (:mod:`buzzer.tournament.statistics`:
  reaction times, right and wrong, points per game), RFC 4180 CSV, text cells
  neutralised against spreadsheet formulas.
* ``GET /games/{id}/report`` — a recorded game's report (``svoyak report``'s
  page, made from the journal kept with its result), with the report's own
  Content-Security-Policy (inline CSS, no script); linked from the standings.
  The statistics and the report are the game report's reading of the journal
  (``buzzer/report/``, a layer above): ``create_tournament_app(statistics=...,
  report=...)`` is handed them by the composition layer
  (``buzzer/app/tournament_cli.py``); without them the page has no
  statistics columns and no report links.
* ``GET /standings.js``, ``/standings.css``, ``/print.css`` — the pages' script
  and styles: every response carries a Content-Security-Policy with no inline
  script or style, ``X-Frame-Options: DENY`` and ``nosniff``
  (:class:`buzzer.web_headers.SecurityHeaders`).
* A request whose ``Host`` header is not an address this server answers at
  (the address the connection came in on, with the port it listens on;
  loopback; this machine's names; ``allowed_hosts``) is refused with 400
  before anything else runs: the panel's rule (:class:`buzzer.web_headers.HostRule`),
  against DNS rebinding (another site's page reaching the server under that
  site's name).

Room tokens are random; only their SHA-256 is kept, in the ``room_tokens``
table the store adds to the tournament's file for the server
(:meth:`~buzzer.tournament.store.TournamentStore.ensure_room_tokens`). The
server opens no connection of its own: every read and write goes through
:class:`~buzzer.tournament.store.TournamentStore`, the one owner of the
connection and its transactions. :func:`issue_token` makes a room's token
(replacing the old one). Which room plays which game is the draw's
(``game_rooms``, ``svoyak tournament draw --rooms`` or
``svoyak tournament-server assign``); which room sent which game is kept in
``room_reports``.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from buzzer.attempts import FailureLimit
from buzzer.tournament.errors import (
    AlreadyRecorded,
    TournamentError,
    UnknownGame,
    WrongRoom,
)
from buzzer.tournament.pages import (
    LABELS,
    PRINT_STYLE,
    SCRIPT,
    STYLE,
    render_print,
    render_standings,
    render_tables,
    standings_data,
)
from buzzer.tournament.records import MAX_INTEGER
from buzzer.tournament.results import TournamentPackages
from buzzer.tournament.series import fold, view_data
from buzzer.tournament.series_store import record_series_result
from buzzer.tournament.statistics import (
    GameReport,
    GameStatistics,
    SeatStatistics,
    cached_statistics,
    player_statistics,
    standings_csv,
)
from buzzer.tournament.store import ROOM_PATTERN as ROOM_PATTERN
from buzzer.tournament.store import (
    TournamentStore,
    record_game_result,
    valid_room,
)
from buzzer.web_headers import REPORT_CSP, HostRule, SecurityHeaders
from buzzer.web_limits import BodyLimit

MAX_JOURNAL_LINES = 200_000
#: The largest request body (a whole game's journal is well under 1 MB).
MAX_BODY_BYTES = 8 * 1024 * 1024
POLL_SECONDS = 2.0
#: Wrong room tokens (docs/tournament.md): 5 a minute from one address, 60 a
#: minute from all of them together, 4,096 addresses remembered.
TOKEN_LIMIT: dict[str, Any] = {
    "per_client": 5,
    "overall": 60,
    "window_s": 60.0,
    "max_clients": 4096,
}

#: The refusal of a request whose Host header names no address of this server.
WRONG_HOST = {
    "detail": "wrong Host header: open the server at the address `svoyak tournament-server "
    "serve` printed (this machine's address, localhost, or a name given with "
    "--allowed-host)"
}

#: How long a token's read or write waits for another writer's lock (seconds).
_TOKEN_TIMEOUT = 10.0


class SeriesResultBody(BaseModel):
    """What a room sends when a series' game is over."""

    game: int = Field(ge=1, le=MAX_INTEGER)
    journal: list[str] = Field(min_length=1, max_length=MAX_JOURNAL_LINES)


class ResultBody(BaseModel):
    """What a room sends when its game is over."""

    game_id: int = Field(ge=1, le=MAX_INTEGER)  # past SQLite's INTEGER: 422
    journal: list[str] = Field(min_length=1, max_length=MAX_JOURNAL_LINES)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def ensure_token_tables(db_path: str | Path) -> None:
    """Add the server's tables to a tournament's file if they are not there yet
    (a file that is not a tournament's is refused, unchanged)."""
    with TournamentStore(db_path, timeout=_TOKEN_TIMEOUT) as store:
        store.ensure_room_tokens()


def issue_token(db_path: str | Path, room: str) -> str:
    """A new token for ``room`` (its old one stops working); only its hash is stored."""
    if not valid_room(room):
        raise TournamentError(
            f"bad room name {room!r}: use letters, digits, '.', '-' or '_' (up to 64)"
        )
    ensure_token_tables(db_path)
    token = secrets.token_urlsafe(32)
    with TournamentStore(db_path, timeout=_TOKEN_TIMEOUT) as store:
        store.set_room_token(room, _hash(token))
    return token


def _token_matches(db_path: Path, room: str, token: str) -> bool:
    with TournamentStore(db_path, timeout=_TOKEN_TIMEOUT) as store:
        kept = store.room_token(room)
    expected = kept if kept is not None else _hash(secrets.token_urlsafe(32))
    return hmac.compare_digest(expected, _hash(token)) and kept is not None


def _too_large(max_bytes: int) -> bytes:
    """The 413's JSON body: the limit, and the likely mistake."""
    detail = (
        f"the request is larger than {max_bytes} bytes; a game's journal is far "
        "smaller: is it the right file?"
    )
    return json.dumps({"detail": detail}).encode()


def create_tournament_app(
    db_path: str | Path,
    *,
    lang: str = "ru",
    title: str | None = None,
    packages: Iterable[str | Path] = (),
    max_body_bytes: int = MAX_BODY_BYTES,
    token_limit: FailureLimit | None = None,
    allowed_hosts: Iterable[str] = (),
    statistics: GameStatistics | None = None,
    report: GameReport | None = None,
) -> FastAPI:
    """The tournament server for one tournament's SQLite file.

    ``packages``: the tournament's question packages (files or folders of
    them); a reported journal may name only these, by file name.
    ``allowed_hosts``: more names the ``Host`` header may give (the name the
    organizers gave the rooms, a proxy's), besides this machine's addresses,
    loopback and its own names (:class:`buzzer.web_headers.HostRule`).
    ``statistics``: a stored journal → its seats' statistics; ``report``: a
    stored journal and a language → its report page (both the game report's,
    ``buzzer/report/``, handed in by the composition layer: see the module).
    """
    path = Path(db_path)
    if lang not in LABELS:
        raise ValueError(f"unknown language {lang!r}: one of {', '.join(LABELS)}")
    labels = LABELS[lang]
    server_lang = lang
    heading = title or labels["title"]
    ensure_token_tables(path)
    known_packages = TournamentPackages.from_paths(packages)
    write_lock = threading.Lock()
    # Wrong room tokens, per address and overall (buzzer/attempts.py's one policy).
    tries = token_limit or FailureLimit(**TOKEN_LIMIT)
    app = FastAPI(title="svoyak tournament server")
    app.add_middleware(BodyLimit, default=max_body_bytes, refusal=_too_large(max_body_bytes))
    # Outermost: a wrong Host is refused first; the CSP, X-Frame-Options and nosniff
    # on every response.
    app.add_middleware(SecurityHeaders, hosts=HostRule(tuple(allowed_hosts)), refusal=WRONG_HOST)

    # A recorded game's journal never changes: each is replayed once for the statistics.
    stats_cache: dict[int, tuple[SeatStatistics, ...] | None] = {}
    stats_lock = threading.Lock()

    def _data() -> dict[str, Any]:
        with stats_lock:
            return standings_data(path, statistics, stats_cache, reports=report is not None)

    def _tables() -> tuple[str, str]:
        data = _data()
        return render_tables(data, labels), str(data["version"])

    def room_auth(room: str, authorization: str | None, client: str) -> None:
        """429/401/403 before the body is looked at."""
        wait = tries.retry_after(client)
        if wait:
            raise HTTPException(
                429,
                f"too many wrong room tokens: try again in {wait} s",
                headers={"Retry-After": str(wait)},
            )
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise HTTPException(
                401,
                "a room's bearer token is required (svoyak tournament-server token DB ROOM)",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if not valid_room(room) or not _token_matches(path, room, token.strip()):
            tries.failed(client)
            raise HTTPException(403, f"this token is not room {room!r}'s")
        tries.succeeded(client)

    def record(room: str, body: ResultBody) -> list[Any]:
        with write_lock, TournamentStore(path) as store:
            try:
                record_game_result(
                    store, body.game_id, body.journal, room=room, packages=known_packages
                )
            except UnknownGame as exc:
                raise HTTPException(404, str(exc)) from None
            except WrongRoom as exc:
                raise HTTPException(403, str(exc)) from None
            except AlreadyRecorded as exc:
                raise HTTPException(409, str(exc)) from None
            except TournamentError as exc:
                raise HTTPException(422, str(exc)) from None
            except sqlite3.DatabaseError as exc:
                raise HTTPException(
                    503,
                    f"the tournament's file could not be written ({exc}): nothing was "
                    "recorded; send the result again",
                ) from None
            return [s for s in store.seat_results() if s.game_id == body.game_id]

    @app.post("/api/rooms/{room}/results", status_code=201)
    async def post_result(room: str, request: Request) -> dict[str, Any]:
        # The body is read only after the token is checked (and never past
        # the BodyLimit): an anonymous client cannot make the server hold it.
        client = request.client.host if request.client else "-"
        await run_in_threadpool(room_auth, room, request.headers.get("authorization"), client)
        raw = await request.body()
        try:
            body = ResultBody.model_validate_json(raw)
        except ValidationError as exc:
            raise HTTPException(
                422, exc.errors(include_url=False, include_context=False, include_input=False)
            ) from None
        rows = await run_in_threadpool(record, room, body)
        return {
            "game_id": body.game_id,
            "room": room,
            "seats": [
                {"seat": r.seat, "name": r.name, "score": r.score, "place": r.place} for r in rows
            ],
        }

    def record_series(series_id: int, body: SeriesResultBody) -> dict[str, Any]:
        with write_lock, TournamentStore(path) as store:
            try:
                _before, after = record_series_result(
                    store, series_id, body.game, body.journal, packages=known_packages
                )
            except UnknownGame as exc:
                raise HTTPException(404, str(exc)) from None
            except AlreadyRecorded as exc:
                raise HTTPException(409, str(exc)) from None
            except TournamentError as exc:
                status = 404 if str(exc).startswith(f"no series {series_id} ") else 422
                raise HTTPException(status, str(exc)) from None
            except sqlite3.DatabaseError as exc:
                raise HTTPException(
                    503,
                    f"the tournament's file could not be written ({exc}): nothing was "
                    "recorded; send the result again",
                ) from None
            return view_data(after, series_id)

    @app.post("/api/rooms/{room}/series/{series_id}/results", status_code=201)
    async def post_series_result(room: str, series_id: int, request: Request) -> dict[str, Any]:
        client = request.client.host if request.client else "-"
        await run_in_threadpool(room_auth, room, request.headers.get("authorization"), client)
        if not 1 <= series_id <= MAX_INTEGER:
            raise HTTPException(404, f"no series {series_id} in this tournament")
        raw = await request.body()
        try:
            body = SeriesResultBody.model_validate_json(raw)
        except ValidationError as exc:
            raise HTTPException(
                422, exc.errors(include_url=False, include_context=False, include_input=False)
            ) from None
        data: dict[str, Any] = await run_in_threadpool(record_series, series_id, body)
        return data

    def series_view(series_id: int) -> dict[str, Any]:
        if not 1 <= series_id <= MAX_INTEGER:
            raise HTTPException(404, f"no series {series_id} in this tournament")
        with TournamentStore(path) as store:
            try:
                return view_data(fold(store.series(series_id)), series_id)
            except TournamentError as exc:
                raise HTTPException(404, str(exc)) from None

    @app.get("/api/series")
    def get_all_series() -> dict[str, Any]:
        with TournamentStore(path) as store:
            records = store.all_series()
            try:
                return {"series": [view_data(fold(r), r.id) for r in records]}
            except TournamentError as exc:
                raise HTTPException(500, str(exc)) from None

    @app.get("/api/series/{series_id}")
    def get_series(series_id: int) -> dict[str, Any]:
        return series_view(series_id)

    @app.get("/api/standings")
    def get_standings() -> dict[str, Any]:
        return _data()

    @app.get("/standings.csv", include_in_schema=False)
    def get_standings_csv() -> Response:
        with stats_lock, TournamentStore(path) as store:
            players = store.individual_standings()
            seats = store.seat_results()
            per_game = (
                cached_statistics(store.journal_ids(), store.journal, statistics, stats_cache)
                if statistics is not None
                else {}
            )
        text = standings_csv(players, player_statistics(seats, per_game))
        return Response(
            # A byte-order mark first: a spreadsheet opened by a double click (Excel)
            # reads the file as UTF-8 only with it, else the Cyrillic names are garbled.
            "\ufeff" + text,
            media_type="text/csv; charset=utf-8",
            headers={
                "Content-Disposition": 'attachment; filename="standings.csv"',
                "Cache-Control": "no-store",
            },
        )

    @app.get("/games/{game_id}/report", include_in_schema=False)
    def get_game_report(game_id: int, lang: str | None = None) -> Response:
        if report is None:
            raise HTTPException(404, "this server makes no game reports")
        if not 1 <= game_id <= MAX_INTEGER:
            raise HTTPException(404, f"no game {game_id} in this tournament")
        with TournamentStore(path) as store:
            kept = store.journal(game_id)
        if kept is None:
            raise HTTPException(404, f"game {game_id} has no recorded journal")
        try:
            page = report(kept, lang if lang in LABELS else server_lang)
        except Exception as exc:  # the journal cannot be replayed now (its package gone)
            raise HTTPException(503, f"game {game_id}'s report cannot be made now: {exc}") from None
        return Response(
            page,
            media_type="text/html; charset=utf-8",
            headers={"Content-Security-Policy": REPORT_CSP, "Cache-Control": "no-store"},
        )

    @app.get("/tables", include_in_schema=False)
    def get_tables() -> HTMLResponse:
        tables, version = _tables()
        return HTMLResponse(
            tables, headers={"X-Standings-Version": version, "Cache-Control": "no-store"}
        )

    @app.get("/", include_in_schema=False)
    def index() -> HTMLResponse:
        page = render_standings(
            _data(), labels, lang=lang, heading=heading, poll_ms=int(POLL_SECONDS * 1000)
        )
        return HTMLResponse(page, headers={"Cache-Control": "no-store"})

    @app.get("/print", include_in_schema=False)
    def printable() -> HTMLResponse:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
        return HTMLResponse(render_print(_data(), labels, lang=lang, heading=heading, stamp=stamp))

    def _asset(text: str, media_type: str) -> Response:
        return Response(text, media_type=media_type, headers={"Cache-Control": "no-cache"})

    @app.get("/standings.js", include_in_schema=False)
    def standings_script() -> Response:
        return _asset(SCRIPT, "text/javascript; charset=utf-8")

    @app.get("/standings.css", include_in_schema=False)
    def standings_style() -> Response:
        return _asset(STYLE, "text/css; charset=utf-8")

    @app.get("/print.css", include_in_schema=False)
    def print_style() -> Response:
        return _asset(PRINT_STYLE, "text/css; charset=utf-8")

    return app
