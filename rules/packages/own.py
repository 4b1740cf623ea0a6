"""The project's own question-package format: one JSON file (``docs/packages.md``).

Written by hand or by a script, so it is strict where SIGame's format is
lenient: unknown keys, wrong types, a price that is not a positive whole
number, a price twice in a theme are all errors, each naming its place as a
path inside the document (``rounds[1].themes[2].questions[0].price``).
It reads into the same :mod:`rules.packages.model` as ``.siq`` does, and
:func:`package_to_json` writes a package back (``parse_json`` of the result
gives an equal package).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final, TypeVar

from rules.packages.model import (
    MAX_MEDIA_BYTES,
    MAX_PRICE,
    MAX_QUESTIONS,
    MAX_ROUNDS,
    MAX_THEMES,
    CatAnnounce,
    CatParams,
    CatReceiver,
    MediaKind,
    MediaRef,
    Package,
    PackageError,
    PackageSource,
    PriceChoice,
    Question,
    QuestionKind,
    Round,
    RoundKind,
    StakeParams,
    Theme,
)
from rules.specials.params import picture_series_problem

#: The largest package file accepted.
MAX_JSON_BYTES: Final = 20 * 1024 * 1024
FORMAT: Final = "svoyak-package"
VERSION: Final = 1
#: The final round's name when the document gives none.
DEFAULT_FINAL_NAME: Final = "Финал"

_DRIVE = re.compile(r"^[A-Za-z]:")
_E = TypeVar("_E")


def load_json(path: str | os.PathLike[str], *, max_bytes: int = MAX_JSON_BYTES) -> Package:
    """Read a package file in the own format; :class:`PackageError` if it is not one."""
    label = os.fspath(path)
    try:
        with open(path, "rb") as stream:
            data = stream.read(max_bytes + 1)
    except FileNotFoundError as e:
        raise PackageError(f"{label}: no such file") from e
    except OSError as e:
        raise PackageError(f"{label}: cannot read the file: {e.strerror or e}") from e
    if len(data) > max_bytes:
        raise PackageError(f"{label}: larger than the limit of {max_bytes} bytes")
    return parse_json_bytes(data, path=label)


def parse_json_bytes(data: bytes, *, path: str = "") -> Package:
    """A package from the bytes of a JSON document (UTF-8, a BOM allowed)."""
    label = path or "package"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PackageError(f"{label}: not UTF-8 text ({e.reason} at byte {e.start})") from e
    try:
        document = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise PackageError(
            f"{label}: not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        ) from e
    except _JsonValueError as e:
        raise PackageError(f"{label}: {e}") from e
    except RecursionError as e:
        raise PackageError(f"{label}: the JSON is nested too deeply") from e
    except ValueError as e:  # e.g. an integer with thousands of digits
        raise PackageError(f"{label}: not valid JSON: {e}") from e
    return parse_json(document, path=path)


def parse_json(document: object, *, path: str = "") -> Package:
    """A package from an already decoded JSON value (a dict)."""
    return _Reader(path or "package").package(document, path)


def package_to_json(package: Package) -> dict[str, Any]:
    """The own-format document of a package.

    Raises :class:`PackageError` for what the format cannot say: more than one
    final round, or a final round before a main one. SIGame's type names and
    approximation notes (``origin_type``, ``note``) are not written; a final
    theme keeps only its first question (the one that is played).
    """
    finals = [i for i, r in enumerate(package.rounds) if r.kind is RoundKind.FINAL]
    if len(finals) > 1:
        raise PackageError(
            f"package {package.name!r} has {len(finals)} final rounds; the own format has one"
        )
    if finals and finals[0] != len(package.rounds) - 1:
        raise PackageError(f"package {package.name!r}: its final round is not the last round")
    document: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "name": package.name,
        "rounds": [
            {"name": r.name, "themes": [_theme_json(t) for t in r.themes]}
            for r in package.rounds
            if r.kind is RoundKind.MAIN
        ],
    }
    final = package.final
    if final is not None:
        document["final"] = {
            "name": final.name,
            "themes": [
                {
                    "name": t.name,
                    **({"comment": t.comment} if t.comment else {}),
                    "question": _question_json(t.questions[0], final=True),
                }
                for t in final.themes
            ],
        }
    return document


def dumps(package: Package) -> str:
    """:func:`package_to_json` as indented UTF-8 JSON text."""
    return json.dumps(package_to_json(package), ensure_ascii=False, indent=2) + "\n"


def read_media(
    path: str | os.PathLike[str],
    media: MediaRef | str,
    *,
    max_bytes: int = MAX_MEDIA_BYTES,
) -> bytes:
    """A media file of an own-format package: ``file`` is relative to the package's folder.

    The name was checked on loading (no ``..``, not absolute); here the
    resolved path must also stay inside the folder (no symlink escapes).
    """
    name = media if isinstance(media, str) else media.name
    if name is None:
        raise PackageError(f"{os.fspath(path)}: this media is inline content, not a file")
    problem = _unsafe_file_name(name)
    if problem:
        raise PackageError(f"{os.fspath(path)}: media file {name!r} {problem}")
    base = Path(path).resolve().parent
    target = (base / name).resolve()
    if not target.is_relative_to(base):
        raise PackageError(f"{os.fspath(path)}: media file {name!r} resolves outside {base}")
    try:
        with open(target, "rb") as stream:
            data = stream.read(max_bytes + 1)
    except OSError as e:
        raise PackageError(f"{os.fspath(path)}: media file {name!r}: {e.strerror or e}") from e
    if len(data) > max_bytes:
        raise PackageError(
            f"{os.fspath(path)}: media file {name!r} is larger than the limit of {max_bytes} bytes"
        )
    return data


# -- writing ------------------------------------------------------------------


def _theme_json(theme: Theme) -> dict[str, Any]:
    out: dict[str, Any] = {"name": theme.name}
    if theme.comment:
        out["comment"] = theme.comment
    out["questions"] = [_question_json(q, final=False) for q in theme.questions]
    return out


def media_json(ref: MediaRef) -> dict[str, str]:
    """A media reference as the project's format writes it (``svoyak package inspect`` too)."""
    if ref.name is not None:
        return {"kind": ref.kind.value, "file": ref.name}
    assert ref.inline is not None
    return {"kind": ref.kind.value, "inline": ref.inline}


def _question_json(question: Question, *, final: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if not final or question.price:
        out["price"] = question.price
    if not final and question.kind is not QuestionKind.PLAIN:
        out["kind"] = question.kind.value
    out["text"] = question.text
    if question.say:
        out["say"] = question.say  # the host's spoken lines, never on the board
    out["answer"] = question.right[0] if len(question.right) == 1 else list(question.right)
    if question.wrong:
        out["wrong"] = list(question.wrong)
    if question.comment:
        out["comment"] = question.comment
    if question.media:
        out["media"] = [media_json(m) for m in question.media]
    if question.answer_media:
        out["answer_media"] = [media_json(m) for m in question.answer_media]
    if not final and question.cat is not None:
        cat = question.cat
        price: int | dict[str, int] | None
        if cat.price.round_extremes:
            price = None
        elif cat.price.fixed_value is not None:
            price = cat.price.fixed_value
        else:
            price = {"min": cat.price.minimum, "max": cat.price.maximum}
            if cat.price.step:
                price["step"] = cat.price.step
        out["cat"] = {
            "theme": cat.theme,
            "price": price,
            "receiver": cat.receiver.value,
            "announce": cat.announce.value,
        }
        if cat.series:
            out["cat"]["series"] = list(cat.series)
    if not final and question.stake is not None:
        stake = {
            key: value
            for key, value in (
                ("min", question.stake.minimum),
                ("max", question.stake.maximum),
                ("step", question.stake.step),
            )
            if value is not None
        }
        if stake:
            out["stake"] = stake
    return out


# -- reading ------------------------------------------------------------------


class _JsonValueError(ValueError):
    """Raised from the json hooks, with a message ready for the host."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _JsonValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise _JsonValueError(f"{name} is not a number JSON allows")


def _unsafe_file_name(name: str) -> str:
    """Why a media file name is unsafe, or "" when it is fine."""
    if not name:
        return "is empty"
    if "\\" in name or "\x00" in name:
        return "contains a backslash or NUL"
    if name.startswith("/") or _DRIVE.match(name):
        return "is an absolute path"
    if any(part in ("", ".", "..") for part in name.split("/")):
        return "has an empty, '.' or '..' path part"
    return ""


_ROOT_KEYS: Final = frozenset({"format", "version", "name", "rounds", "final"})
_ROUND_KEYS: Final = frozenset({"name", "themes"})
_THEME_KEYS: Final = frozenset({"name", "comment", "questions"})
_FINAL_THEME_KEYS: Final = frozenset({"name", "comment", "question"})
_QUESTION_KEYS: Final = frozenset(
    {
        "price",
        "kind",
        "text",
        "say",
        "answer",
        "wrong",
        "comment",
        "media",
        "answer_media",
        "cat",
        "stake",
    }
)
_FINAL_QUESTION_KEYS: Final = frozenset(
    {"price", "text", "say", "answer", "wrong", "comment", "media", "answer_media"}
)
_CAT_KEYS: Final = frozenset({"theme", "price", "receiver", "announce", "series"})
_STAKE_KEYS: Final = frozenset({"min", "max", "step"})
_RANGE_KEYS: Final = _STAKE_KEYS
_MEDIA_KEYS: Final = frozenset({"kind", "file", "inline"})


class _Reader:
    """Validates a decoded document, naming each problem's JSON path."""

    def __init__(self, label: str) -> None:
        self.label = label

    def fail(self, where: str, message: str) -> PackageError:
        return PackageError(
            f"{self.label}: {where}: {message}" if where else f"{self.label}: {message}"
        )

    def obj(self, value: object, where: str, keys: frozenset[str]) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where or "the document", f"must be an object, got {_kind(value)}")
        unknown = sorted(set(value) - keys)
        if unknown:
            raise self.fail(
                where or "the document",
                f"unknown key {unknown[0]!r} (allowed: {', '.join(sorted(keys))})",
            )
        return value

    def string(self, value: object, where: str, *, required: bool = True) -> str:
        if not isinstance(value, str):
            raise self.fail(where, f"must be a string, got {_kind(value)}")
        if required and not value.strip():
            raise self.fail(where, "must not be empty")
        return value

    def strings(self, value: object, where: str) -> tuple[str, ...]:
        """A string or a list of strings."""
        if isinstance(value, str):
            return (self.string(value, where),)
        items = self.array(value, where)
        return tuple(self.string(v, f"{where}[{i}]") for i, v in enumerate(items))

    def array(
        self, value: object, where: str, *, nonempty: bool = False, limit: int | None = None
    ) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f"must be a list, got {_kind(value)}")
        if nonempty and not value:
            raise self.fail(where, "must not be empty")
        if limit is not None and len(value) > limit:
            raise self.fail(where, f"has {len(value)} items, over the limit of {limit}")
        return value

    def integer(self, value: object, where: str, *, low: int, high: int = MAX_PRICE) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, f"must be a whole number, got {_kind(value)}")
        if not low <= value <= high:
            raise self.fail(where, f"must be {low}..{high}, got {value}")
        return value

    def enum(self, value: object, where: str, choices: Mapping[str, _E]) -> _E:
        if not isinstance(value, str) or value not in choices:
            raise self.fail(where, f"must be one of {', '.join(sorted(choices))}, got {value!r}")
        return choices[value]

    def package(self, document: object, path: str) -> Package:
        root = self.obj(document, "", _ROOT_KEYS)
        if "format" in root and root["format"] != FORMAT:
            raise self.fail("format", f"must be {FORMAT!r}, got {root['format']!r}")
        if "version" in root:
            self.integer(root["version"], "version", low=VERSION, high=VERSION)
        if "name" not in root:
            raise self.fail("name", "is missing")
        name = self.string(root["name"], "name")
        rounds_value = self.array(root.get("rounds", []), "rounds", limit=MAX_ROUNDS)
        rounds = [self.round(r, f"rounds[{i}]") for i, r in enumerate(rounds_value)]
        final_value = root.get("final")
        if final_value is not None:
            rounds.append(self.final(final_value, "final"))
        if not rounds:
            raise self.fail("rounds", "the package has no rounds and no final")
        source = PackageSource("json", path, str(VERSION))
        return Package(name, tuple(rounds), source)

    def round(self, value: object, where: str) -> Round:
        data = self.obj(value, where, _ROUND_KEYS)
        name = self.string(data.get("name"), f"{where}.name")
        if "themes" not in data:
            raise self.fail(f"{where}.themes", "is missing")
        themes = self.array(data["themes"], f"{where}.themes", nonempty=True, limit=MAX_THEMES)
        parsed = tuple(self.theme(t, f"{where}.themes[{i}]") for i, t in enumerate(themes))
        return self._checked(lambda: Round(name, RoundKind.MAIN, parsed), where)

    def theme(self, value: object, where: str) -> Theme:
        data = self.obj(value, where, _THEME_KEYS)
        name = self.string(data.get("name"), f"{where}.name")
        comment = self.string(data.get("comment", ""), f"{where}.comment", required=False)
        if "questions" not in data:
            raise self.fail(f"{where}.questions", "is missing")
        items = self.array(
            data["questions"], f"{where}.questions", nonempty=True, limit=MAX_QUESTIONS
        )
        questions: list[Question] = []
        seen: dict[int, int] = {}
        for i, item in enumerate(items):
            q_where = f"{where}.questions[{i}]"
            question = self.question(item, q_where, final=False)
            if question.price in seen:
                raise self.fail(
                    f"{q_where}.price",
                    f"{question.price} is already the price of questions[{seen[question.price]}]; "
                    "a theme has each price once",
                )
            seen[question.price] = i
            questions.append(question)
        return Theme(name, tuple(questions), comment)

    def final(self, value: object, where: str) -> Round:
        data = self.obj(value, where, _ROUND_KEYS)
        name = DEFAULT_FINAL_NAME
        if "name" in data:
            name = self.string(data["name"], f"{where}.name")
        if "themes" not in data:
            raise self.fail(f"{where}.themes", "is missing")
        themes: list[Theme] = []
        items = self.array(data["themes"], f"{where}.themes", nonempty=True, limit=MAX_THEMES)
        for i, item in enumerate(items):
            t_where = f"{where}.themes[{i}]"
            theme = self.obj(item, t_where, _FINAL_THEME_KEYS)
            theme_name = self.string(theme.get("name"), f"{t_where}.name")
            comment = self.string(theme.get("comment", ""), f"{t_where}.comment", required=False)
            if "question" not in theme:
                raise self.fail(f"{t_where}.question", "is missing")
            question = self.question(theme["question"], f"{t_where}.question", final=True)
            themes.append(Theme(theme_name, (question,), comment))
        return Round(name, RoundKind.FINAL, tuple(themes))

    def question(self, value: object, where: str, *, final: bool) -> Question:
        data = self.obj(value, where, _FINAL_QUESTION_KEYS if final else _QUESTION_KEYS)
        if final:
            price = self.integer(data.get("price", 0), f"{where}.price", low=0)
        else:
            if "price" not in data:
                raise self.fail(f"{where}.price", "is missing")
            price = self.integer(data["price"], f"{where}.price", low=1)
        kind = QuestionKind.PLAIN
        if "kind" in data:
            kind = self.enum(data["kind"], f"{where}.kind", {k.value: k for k in QuestionKind})
        text = self.string(data.get("text", ""), f"{where}.text", required=False)

        cat: CatParams | None = None
        stake: StakeParams | None = None
        if "cat" in data and kind is not QuestionKind.CAT:
            raise self.fail(f"{where}.cat", 'only a question of "kind": "cat" has cat parameters')
        if "stake" in data and kind is not QuestionKind.STAKE:
            raise self.fail(f"{where}.stake", 'only a question of "kind": "stake" has stake limits')
        if kind is QuestionKind.CAT:
            cat = self.cat(data.get("cat", {}), f"{where}.cat")
        if kind is QuestionKind.STAKE:
            stake = self.stake(data.get("stake", {}), f"{where}.stake")

        no_question = cat is not None and cat.announce is CatAnnounce.NEVER
        if "answer" not in data:
            if not no_question:
                raise self.fail(f"{where}.answer", "is missing")
            right: tuple[str, ...] = ()
        else:
            # An explicit [] says "no answer given" (a converted package may lack one).
            right = self.strings(data["answer"], f"{where}.answer")
        wrong = self.strings(data.get("wrong", []), f"{where}.wrong")
        comment = self.string(data.get("comment", ""), f"{where}.comment", required=False)
        say = self.string(data.get("say", ""), f"{where}.say", required=False)
        return Question(
            price=price,
            kind=kind,
            text=text,
            media=self.media_list(data.get("media", []), f"{where}.media"),
            right=right,
            wrong=wrong,
            comment=comment,
            answer_media=self.media_list(data.get("answer_media", []), f"{where}.answer_media"),
            cat=cat,
            stake=stake,
            say=say,
        )

    def cat(self, value: object, where: str) -> CatParams:
        data = self.obj(value, where, _CAT_KEYS)
        theme = self.string(data.get("theme", ""), f"{where}.theme", required=False)
        price = self.price_choice(data.get("price"), f"{where}.price")
        receiver = CatReceiver.OTHERS
        if "receiver" in data:
            receiver = self.enum(
                data["receiver"], f"{where}.receiver", {r.value: r for r in CatReceiver}
            )
        announce = CatAnnounce.AFTER
        if "announce" in data:
            announce = self.enum(
                data["announce"], f"{where}.announce", {a.value: a for a in CatAnnounce}
            )
        series = self.series(data.get("series", []), f"{where}.series")
        return CatParams(theme, price, receiver, announce, series)

    def series(self, value: object, where: str) -> tuple[int, ...]:
        """TV-S-CAT-5: the values after picture 1, 2, …: at least two, each smaller."""
        if not isinstance(value, list):
            raise self.fail(where, f"must be a list of values, got {_kind(value)}")
        values = tuple(self.integer(v, f"{where}[{i}]", low=1) for i, v in enumerate(value))
        problem = picture_series_problem(values) if values else None
        if problem is not None:
            raise self.fail(where, problem)
        return values

    def price_choice(self, value: object, where: str) -> PriceChoice:
        """``null``/absent: the round's min or max; a number: fixed; ``{min, max, step?}``."""
        if value is None:
            return PriceChoice()
        if not isinstance(value, dict):
            return PriceChoice.fixed(self.integer(value, where, low=1))
        data = self.obj(value, where, _RANGE_KEYS)
        for key in ("min", "max"):
            if key not in data:
                raise self.fail(f"{where}.{key}", "is missing")
        low = self.integer(data["min"], f"{where}.min", low=1)
        high = self.integer(data["max"], f"{where}.max", low=low)
        step = self.integer(data.get("step", 0), f"{where}.step", low=0)
        return self._checked(lambda: PriceChoice.of(low, high, step), where)

    def stake(self, value: object, where: str) -> StakeParams:
        data = self.obj(value, where, _STAKE_KEYS)
        limits = {
            key: self.integer(data[key], f"{where}.{key}", low=1) if key in data else None
            for key in ("min", "max", "step")
        }
        return self._checked(
            lambda: StakeParams(limits["min"], limits["max"], limits["step"]), where
        )

    def media_list(self, value: object, where: str) -> tuple[MediaRef, ...]:
        refs: list[MediaRef] = []
        for i, item in enumerate(self.array(value, where)):
            m_where = f"{where}[{i}]"
            data = self.obj(item, m_where, _MEDIA_KEYS)
            if "kind" not in data:
                raise self.fail(f"{m_where}.kind", "is missing")
            kind = self.enum(data["kind"], f"{m_where}.kind", {k.value: k for k in MediaKind})
            if ("file" in data) == ("inline" in data):
                raise self.fail(m_where, 'needs exactly one of "file" or "inline"')
            if "file" in data:
                name = self.string(data["file"], f"{m_where}.file")
                problem = _unsafe_file_name(name)
                if problem:
                    raise self.fail(f"{m_where}.file", f"{name!r} {problem}")
                refs.append(MediaRef(kind, name=name))
            else:
                refs.append(MediaRef(kind, inline=self.string(data["inline"], f"{m_where}.inline")))
        return tuple(refs)

    def _checked(self, build: Callable[[], _E], where: str) -> _E:
        try:
            return build()
        except PackageError as e:
            raise self.fail(where, str(e)) from e


def _kind(value: object) -> str:
    """A JSON-ish name for a value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
