"""docs/journal-contract.md JSON Lines ⇄ the core's inputs.

Validation lives here, at the edge: the core trusts its inputs' types and
ranges. Every problem becomes a :class:`JournalError` naming the line, with
a message a host or technician can act on.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

from buzzer.arbiter.commands import (
    MAX_POINTS,
    CommandField,
    SeatNo,
    Text,
    Verdict,
    Whole,
    YesNo,
    fields_of,
)
from buzzer.arbiter.events import (
    HOST_COMMANDS,
    Draw,
    Fault,
    HostInput,
    Input,
    Press,
    Release,
    Tick,
)
from buzzer.arbiter.params import DEFAULT_SETTLE_NS, MAX_SETTLE_NS, NS_PER_MS, NS_PER_S
from buzzer.errors import SvoyakError
from rules.board import BoardError, RoundSpec
from rules.eras import find_era_rules, tv_rules_for
from rules.game import GameSetup
from rules.packages import Package, PackageError, QuestionKind
from rules.packages.locate import load_named_package
from rules.profiles import OptionError, RuleSystem, find_rules, with_options
from rules.state import SpecialKind

#: Timestamps beyond this (about 11.5 days) are taken for a corrupt line.
MAX_T_S = 1_000_000.0


class JournalError(SvoyakError):
    """A journal line that cannot be used; ``line`` is 1-based."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


#: ``json.loads`` without its per-call argument checks (a fifth of its time on a
#: journal line). A line starting with a BOM still goes through ``json.loads``,
#: for the same error message.
_decoder = json.JSONDecoder()
_decode = _decoder.decode
#: The decoder's own scanner (C): a line that is one JSON value from its first
#: character to its last is read by it alone, without ``decode``'s two
#: whitespace searches around it (a third of the decoder's time on a journal
#: line). Anything else — whitespace around it, a second value, a BOM, an
#: error — goes through ``decode``, which reads it or words the error.
_scan_once: Callable[[str, int], tuple[Any, int]] = _decoder.scan_once  # type: ignore[attr-defined]


#: What a line with a lone UTF-16 surrogate is told (``"\\ud800"``: JSON takes it, UTF-8 cannot
#: encode it, so neither the journal's SQLite file nor ``svoyak replay``'s output could hold it).
LONE_SURROGATE = "a text holds a lone UTF-16 surrogate (\\ud800..\\udfff): not valid Unicode"


def _decode_in_full(text: str, line: int) -> Any:
    """The line read as ``json.loads`` reads it; its errors become a :class:`JournalError`."""
    try:
        return json.loads(text) if text[:1] == "\ufeff" else _decode(text)
    except ValueError as exc:
        raise JournalError(line, f"not valid JSON ({exc})") from None
    except RecursionError:
        raise JournalError(line, "not valid JSON (arrays or objects nested too deeply)") from None


def _loads(text: str, line: int) -> dict[str, Any]:
    try:
        obj, end = _scan_once(text, 0)
    except (StopIteration, ValueError, RecursionError):
        end = -1
    if end != len(text):
        obj = _decode_in_full(text, line)
    if not isinstance(obj, dict):
        raise JournalError(line, f"expected a JSON object, got {type(obj).__name__}")
    # Only an escape can put a lone surrogate into a line read from UTF-8 (the
    # journal's bytes, SQLite's text): the common line has none, and costs one search.
    if "\\u" in text:
        try:
            json.dumps(obj, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise JournalError(line, LONE_SURROGATE) from None
        except RecursionError:
            raise JournalError(line, "arrays or objects nested too deeply") from None
    return obj


def _int(obj: Mapping[str, Any], key: str, line: int, low: int, high: int) -> int:
    value = obj.get(key)
    if type(value) is int and low <= value <= high:
        return value  # the common case, fast; anything else is checked in full below
    if key not in obj:
        raise JournalError(line, f"missing field {key!r}")
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise JournalError(line, f"field {key!r} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise JournalError(line, f"field {key!r} is out of range: {value} is not in {low}..{high}")
    return value


def _t(obj: Mapping[str, Any], line: int) -> int:
    value = obj.get("t")
    if type(value) is float and 0.0 <= value <= MAX_T_S:
        return round(value * NS_PER_S)  # the common case, fast (NaN and inf fail the range)
    if "t" not in obj:
        raise JournalError(line, "missing field 't' (seconds since the game started)")
    value = obj["t"]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise JournalError(line, f"field 't' must be a number of seconds, got {value!r}")
    if not math.isfinite(value) or not 0 <= value <= MAX_T_S:
        raise JournalError(line, f"field 't' is out of range: {value} is not in 0..{MAX_T_S:g} s")
    return round(value * NS_PER_S)


def _edge_maker(cls: type[Press] | type[Release]) -> Callable[[int, int, int], Input]:
    """A constructor ``(t, seat, ref)`` of ``cls`` that sets its three slots directly.

    A frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__`` (it must get round its own ``__setattr__``): for a
    press, that costs more than the rest of reading its line after the JSON.
    The object made is the same (equal, same hash); this is only for the
    classes that add nothing to their fields (no ``__post_init__``).
    """
    assert not hasattr(cls, "__post_init__")
    assert [f.name for f in dataclasses.fields(cls)] == ["t", "seat", "ref"]
    new = object.__new__
    set_t, set_seat, set_ref = (vars(cls)[name].__set__ for name in ("t", "seat", "ref"))

    def make(t: int, seat: int, ref: int) -> Input:
        edge = new(cls)
        set_t(edge, t)
        set_seat(edge, seat)
        set_ref(edge, ref)
        return edge

    return make


_new_press = _edge_maker(Press)
_new_release = _edge_maker(Release)


class InputParser:
    """Turns one input line (not the header) into an :class:`Input`."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        # Keyed by each class's own TYPE tag: the journal's names live on the classes.
        # A host command's reader is made from its declaration (its fields' limits).
        self._by_type: dict[str, Callable[[dict[str, Any], int], Input]] = {
            Press.TYPE: self._press,
            Release.TYPE: self._release,
            Draw.TYPE: self._draw,
            Tick.TYPE: lambda o, n: Tick(_t(o, n), n),
            Fault.TYPE: self._fault,
            **{cls.TYPE: self._command_reader(cls) for cls in HOST_COMMANDS},
        }

    def parse(self, text: str, line: int) -> Input:
        obj = _loads(text, line)
        # A button's edge, well formed: nearly every line of a game, read here at
        # once (a replay reads tens of thousands). Any other line, or one with any
        # doubt about its fields, is read in full below, with its message.
        kind = obj.get("type")
        if kind == "press" or kind == "release":
            t = obj.get("t")
            seat = obj.get("seat")
            if (
                type(t) is float
                and 0.0 <= t <= MAX_T_S
                and type(seat) is int
                and 1 <= seat <= self.seats
            ):
                make = _new_press if kind == "press" else _new_release
                return make(round(t * NS_PER_S), seat, line)
        return self.parse_obj(obj, line)

    def parse_obj(self, obj: dict[str, Any], line: int) -> Input:
        kind = obj.get("type")
        handler = self._by_type.get(kind) if isinstance(kind, str) else None
        if handler is None:
            if kind == "game":
                raise JournalError(line, "a second header: only line 1 may have type 'game'")
            known = ", ".join(self._by_type)
            raise JournalError(line, f"unknown type {kind!r}; input types are: {known}")
        return handler(obj, line)

    def _fault(self, obj: dict[str, Any], line: int) -> Input:
        source = obj.get("source")
        if not isinstance(source, str) or not 1 <= len(source) <= 40:
            raise JournalError(line, "field 'source' must be a source name (1..40 characters)")
        state = obj.get("state")
        if state not in ("stalled", "back"):
            raise JournalError(line, f"field 'state' must be 'stalled' or 'back', got {state!r}")
        detail = obj.get("detail", "")
        if not isinstance(detail, str) or len(detail) > 200:
            raise JournalError(line, "field 'detail' must be a text of at most 200 characters")
        return Fault(_t(obj, line), source, state == "back", detail, line)

    def _command_reader(self, cls: type[HostInput]) -> Callable[[dict[str, Any], int], Input]:
        """The reader of one host command's lines, made from its declaration: each
        field read and checked by what it holds (buzzer/arbiter/commands.py)."""
        readers = [(f, self._field_reader(f)) for f in fields_of(cls)]
        together = cls.SPEC.together
        make = cast(Callable[..., Input], cls)  # a dataclass: (t, its fields, ref)

        def read(obj: dict[str, Any], line: int) -> Input:
            t = _t(obj, line)
            given = not together or any(key in obj for key in together)
            values: dict[str, Any] = {}
            for field, reader in readers:
                key = field.wire
                if field.name in together:
                    if not given:
                        values[field.name] = None
                        continue
                elif field.optional and obj.get(key) is None:
                    values[field.name] = None
                    continue
                elif key not in obj and field.default is not dataclasses.MISSING:
                    continue  # an older line without it: the declared default
                values[field.name] = reader(obj, line)
            return make(t=t, ref=line, **values)

        return read

    def _field_reader(self, field: CommandField) -> Callable[[Mapping[str, Any], int], Any]:
        """How one declared field is read and checked (the messages name the field)."""
        kind, key = field.kind, field.wire
        if isinstance(kind, SeatNo):
            return lambda o, n: _int(o, key, n, 1, self.seats)
        if isinstance(kind, Verdict):
            return lambda o, n: _verdict(o, n, key)
        if isinstance(kind, YesNo):
            return lambda o, n: _yes_no(o, n, key)
        if isinstance(kind, Text):
            return lambda o, n: _text(o, n, key, kind.max_length)
        assert isinstance(kind, Whole)
        low, high, nonzero = kind.low, kind.high, kind.nonzero
        if nonzero is None:
            return lambda o, n: _int(o, key, n, low, high)

        def whole(obj: Mapping[str, Any], line: int) -> int:
            value = _int(obj, key, line, low, high)
            if value == 0:
                raise JournalError(line, f"field {key!r} must not be 0: {nonzero}")
            return value

        return whole

    def _press(self, obj: dict[str, Any], line: int) -> Input:
        return Press(_t(obj, line), _int(obj, "seat", line, 1, self.seats), line)

    def _release(self, obj: dict[str, Any], line: int) -> Input:
        return Release(_t(obj, line), _int(obj, "seat", line, 1, self.seats), line)

    def _draw(self, obj: dict[str, Any], line: int) -> Input:
        t = _t(obj, line)
        seats = obj.get("seats")
        if (
            not isinstance(seats, list)
            or len(seats) < 2
            or any(isinstance(s, bool) or not isinstance(s, int) for s in seats)
        ):
            raise JournalError(
                line, f"field 'seats' must be a list of two or more seats, got {seats!r}"
            )
        if len(set(seats)) != len(seats) or not all(1 <= s <= self.seats for s in seats):
            raise JournalError(line, f"field 'seats' must name distinct seats 1..{self.seats}")
        winner = _int(obj, "winner", line, 1, self.seats)
        if winner not in seats:
            raise JournalError(line, f"the winner {winner} is not one of the seats {seats}")
        return Draw(t, tuple(seats), winner, line)


def _rule_system(rules_id: str, date: Any) -> RuleSystem:
    """The header's ``rules`` (and, for the TV systems, ``date``: docs/rules.md Part D)."""
    try:
        if rules_id.startswith("tv@"):
            return find_era_rules(rules_id)
        system = find_rules(rules_id)
    except KeyError as exc:
        raise JournalError(1, str(exc.args[0])) from None
    except ValueError as exc:
        raise JournalError(1, str(exc)) from None
    if date is None:
        return system
    if not rules_id.startswith("tv-"):
        raise JournalError(
            1, "field 'date' applies only to the TV rule systems (tv-1994, tv-modern)"
        )
    try:
        return tv_rules_for(datetime.date.fromisoformat(str(date)))
    except ValueError as exc:
        raise JournalError(
            1, f"field 'date' must be a date YYYY-MM-DD of the TV rules: {exc}"
        ) from None


def _birth_dates(value: Any, players: int) -> tuple[str, ...] | None:
    """The header's ``birth_dates``: one ISO date per player (TV-G-4: the youngest)."""
    if value is None:
        return None
    message = f"field 'birth_dates' must list {players} dates YYYY-MM-DD, one per player"
    if not isinstance(value, list) or len(value) != players:
        raise JournalError(1, message)
    try:
        return tuple(datetime.date.fromisoformat(d).isoformat() for d in value)
    except (TypeError, ValueError):
        raise JournalError(1, message) from None


#: SER-CARRY: the largest score a header may start a seat with (either sign).
MAX_START_SCORE = 1_000_000


def _start_scores(value: Any, players: int) -> tuple[int, ...] | None:
    """The header's ``start_scores``: each seat's score at the start (SER-CARRY: a
    series game that carries the previous game's end scores), one whole number per player."""
    if value is None:
        return None
    message = (
        f"field 'start_scores' must list {players} whole numbers"
        f" -{MAX_START_SCORE}..{MAX_START_SCORE}, one per player"
    )
    if (
        not isinstance(value, list)
        or len(value) != players
        or any(isinstance(v, bool) or not isinstance(v, int) for v in value)
        or any(not -MAX_START_SCORE <= v <= MAX_START_SCORE for v in value)
    ):
        raise JournalError(1, message)
    return tuple(value)


def _yes_no(obj: Mapping[str, Any], line: int, key: str) -> bool:
    value = obj.get(key)
    if not isinstance(value, bool):
        raise JournalError(line, f"field {key!r} must be true or false, got {value!r}")
    return value


def _verdict(obj: Mapping[str, Any], line: int, key: str) -> bool:
    verdict = obj.get(key)
    if verdict not in ("correct", "wrong"):
        raise JournalError(line, f"field {key!r} must be 'correct' or 'wrong', got {verdict!r}")
    return bool(verdict == "correct")


def _text(obj: Mapping[str, Any], line: int, key: str, max_length: int) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or len(value) > max_length:
        raise JournalError(line, f"field {key!r} must be a text of at most {max_length} characters")
    return value


def parse_header(text: str, base: Path | None = None) -> GameSetup:
    """Line 1: ``{"type": "game", "rules": ..., "players": [...], ...}``."""
    obj = _loads(text, 1)
    if obj.get("type") != "game":
        raise JournalError(
            1, f"the first line must be the header with type 'game', got {obj.get('type')!r}"
        )
    rules_id = obj.get("rules")
    if not isinstance(rules_id, str):
        raise JournalError(1, "field 'rules' must name a rule system")
    system = _rule_system(rules_id, obj.get("date"))
    players = obj.get("players")
    if (
        not isinstance(players, list)
        or not 1 <= len(players) <= 16
        or not all(isinstance(p, str) and p.strip() for p in players)
    ):
        raise JournalError(1, "field 'players' must be a list of 1..16 non-empty names")
    chooser = _int(obj, "chooser", 1, 1, len(players)) if obj.get("chooser") is not None else None
    seed = obj.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise JournalError(1, f"field 'seed' must be a whole number or a string, got {seed!r}")
    settle_ns = DEFAULT_SETTLE_NS
    if obj.get("settle_ms") is not None:
        settle = obj["settle_ms"]
        max_ms = MAX_SETTLE_NS / NS_PER_MS
        if (
            isinstance(settle, bool)
            or not isinstance(settle, int | float)
            or not (math.isfinite(settle) and 0 <= settle <= max_ms)
        ):
            raise JournalError(
                1, f"field 'settle_ms' must be a number 0..{max_ms:g}, got {settle!r}"
            )
        settle_ns = round(settle * NS_PER_MS)
    options = obj.get("options", {})
    if not isinstance(options, dict):
        raise JournalError(1, "field 'options' must be an object of rule parameters")
    try:
        system = with_options(system, options)
    except (OptionError, ValueError) as exc:
        raise JournalError(1, str(exc)) from None
    specials: dict[tuple[int, int, int], SpecialKind] = {}
    series: dict[tuple[int, int, int], tuple[int, ...]] = {}
    final_themes: int | None = None
    source = obj.get("package", obj.get("board"))
    if isinstance(source, str):
        package = _package(source, base)
        rounds: tuple[RoundSpec, ...] | None = package.board_rounds()
        specials = _package_specials(package)
        series = _package_series(package)
        if package.final is not None:
            final_themes = len(package.final.themes)
    else:
        rounds = _board(obj.get("board"))
    if obj.get("themes") is not None:
        # C2003-2.2.1/2.10: 6 themes (4 in the 1/9 final), more at the organisers' will.
        count = _int(obj, "themes", 1, 1, 100)
        rounds = tuple(RoundSpec.numbered(r.name, count, r.prices) for r in rounds or system.rounds)
    specials.update(_specials(obj.get("specials")))
    series.update(_header_series(obj.get("specials")))
    if obj.get("final_themes") is not None:
        final_themes = _int(obj, "final_themes", 1, 1, 20)
    central = _int(obj, "central_seat", 1, 1, len(players)) if obj.get("central_seat") else None
    try:
        return GameSetup(
            system,
            tuple(players),
            chooser,
            seed,
            settle_ns,
            rounds,
            specials,
            final_themes,
            _birth_dates(obj.get("birth_dates"), len(players)),
            central,
            cat_series=series,
            start_scores=_start_scores(obj.get("start_scores"), len(players)),
        )
    except ValueError as exc:
        raise JournalError(1, str(exc)) from None


_QUESTION_KINDS = {
    QuestionKind.STAKE: SpecialKind.STAKE,
    QuestionKind.CAT: SpecialKind.CAT,
    QuestionKind.SPONSOR: SpecialKind.SPONSOR,
}


def _package(name: str, base: Path | None) -> Package:
    """The question package the header names (.siq or the project's .json)."""
    try:
        return load_named_package(name, base)
    except PackageError as exc:
        raise JournalError(1, f"question package {name}: {exc}") from None
    except OSError as exc:
        raise JournalError(1, f"cannot read question package {name}: {exc.strerror}") from None


def _package_specials(package: Package) -> dict[tuple[int, int, int], SpecialKind]:
    cells: dict[tuple[int, int, int], SpecialKind] = {}
    for round_no, game_round in enumerate(package.main_rounds, 1):
        for theme_no, theme in enumerate(game_round.themes, 1):
            for question in theme.questions:
                kind = _QUESTION_KINDS.get(question.kind)
                if kind is not None:
                    cells.setdefault((round_no, theme_no, question.price), kind)
    return cells


def _package_series(package: Package) -> dict[tuple[int, int, int], tuple[int, ...]]:
    """TV-S-CAT-5: the picture-series cats the package states (``cat.series``)."""
    cells: dict[tuple[int, int, int], tuple[int, ...]] = {}
    for round_no, game_round in enumerate(package.main_rounds, 1):
        for theme_no, theme in enumerate(game_round.themes, 1):
            for question in theme.questions:
                if question.cat is not None and question.cat.series:
                    cells.setdefault((round_no, theme_no, question.price), question.cat.series)
    return cells


def _header_series(value: Any) -> dict[tuple[int, int, int], tuple[int, ...]]:
    """The header's picture-series cats: a cat cell of ``specials`` with ``series``
    (``_specials`` has checked the cells themselves)."""
    cells: dict[tuple[int, int, int], tuple[int, ...]] = {}
    for index, cell in enumerate(value or ()):
        if "series" not in cell:
            continue
        series = cell["series"]
        if not isinstance(series, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in series
        ):
            raise JournalError(1, f"specials[{index}]: 'series' must be a list of whole numbers")
        key = (int(cell.get("round", 1)), int(cell["theme"]), int(cell["price"]))
        cells[key] = tuple(series)
    return cells


def _specials(value: Any) -> dict[tuple[int, int, int], SpecialKind]:
    """The header's ``specials``: ``[{"round": 1, "theme": 2, "price": 30, "kind": "stake"}]``."""
    if value is None:
        return {}
    if not isinstance(value, list):
        raise JournalError(1, "field 'specials' must be a list of cells")
    cells: dict[tuple[int, int, int], SpecialKind] = {}
    kinds = ", ".join(k.value for k in SpecialKind)
    for index, cell in enumerate(value):
        if not isinstance(cell, dict):
            raise JournalError(1, f"specials[{index}] must be an object")
        try:
            kind = SpecialKind(cell.get("kind"))
        except ValueError:
            raise JournalError(1, f"specials[{index}]: 'kind' must be one of {kinds}") from None
        key = (
            _int({"round": cell.get("round", 1)}, "round", 1, 1, 100),
            _int(cell, "theme", 1, 1, 1000),
            _int(cell, "price", 1, 1, MAX_POINTS),
        )
        cells[key] = kind
    return cells


def _board(board: Any) -> tuple[RoundSpec, ...] | None:
    """The header's ``board``: one round ``{themes, prices}``, or ``{rounds: [...]}`` / a list."""
    if board is None:
        return None
    if isinstance(board, dict) and "rounds" in board:
        board = board["rounds"]
    specs = board if isinstance(board, list) else [board]
    if not specs:
        raise JournalError(1, "field 'board' has no rounds")
    rounds = []
    for index, spec in enumerate(specs, 1):
        if not isinstance(spec, dict):
            raise JournalError(1, f"board round {index} must be an object with themes and prices")
        themes = spec.get("themes")
        prices = spec.get("prices")
        if isinstance(themes, int) and not isinstance(themes, bool):
            if not 1 <= themes <= 100:
                raise JournalError(1, f"board round {index}: 'themes' must be 1..100")
            themes = [str(i) for i in range(1, themes + 1)]
        if not isinstance(themes, list) or not all(isinstance(x, str) for x in themes):
            raise JournalError(
                1, f"board round {index}: 'themes' must be a count or a list of titles"
            )
        if (
            not isinstance(prices, list)
            or not prices
            or any(isinstance(p, bool) or not isinstance(p, int) for p in prices)
        ):
            raise JournalError(1, f"board round {index}: 'prices' must be a list of whole numbers")
        name = spec.get("name", f"Round {index}")
        if not isinstance(name, str):
            raise JournalError(1, f"board round {index}: 'name' must be a string")
        try:
            rounds.append(RoundSpec(name, tuple(themes), tuple(prices)))
        except BoardError as exc:
            raise JournalError(1, str(exc)) from None
    return tuple(rounds)


def decode_journal(data: bytes) -> list[str]:
    """The journal's bytes → its lines; a bad UTF-8 sequence is named by its line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise JournalError(line, f"not valid UTF-8 ({exc.reason})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    # Split on "\n" only: JSON strings may hold U+2028, U+0085 … raw, which
    # str.splitlines() would take for line ends.
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]
