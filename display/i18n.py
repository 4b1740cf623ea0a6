"""The screen's words: Russian by default, English available.

The words themselves are the catalogue's ``board`` namespace
(``buzzer/words/*.json``, :mod:`buzzer.words`); this module is the board's
lookup (:func:`tr`, falling back to Russian for a language the catalogue does
not have) and its formatting of numbers, margins and seconds, so the decimal
comma and the minus sign follow the language.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from buzzer import words

LANGUAGES = words.LANGUAGES
DEFAULT_LANGUAGE = words.DEFAULT_LANGUAGE
NAMESPACE = "board"


def tr(key: str, lang: str = DEFAULT_LANGUAGE, **fields: object) -> str:
    """The string ``key`` in ``lang`` (falling back to Russian), formatted with ``fields``."""
    known = lang if lang in LANGUAGES else DEFAULT_LANGUAGE
    return words.tr(f"{NAMESPACE}.{key}", known, **fields)


def keys() -> frozenset[str]:
    """The board's keys, without the namespace."""
    return frozenset(words.table(NAMESPACE, DEFAULT_LANGUAGE))


def translations(key: str) -> Mapping[str, str]:
    """``key`` in every language that has it."""
    return MappingProxyType(
        {
            lang: text
            for lang in LANGUAGES
            if (text := words.table(NAMESPACE, lang).get(key)) is not None
        }
    )


MINUS = "\u2212"  # a real minus sign: wider and clearer than a hyphen from across a room


def number(value: int) -> str:
    """A score: digits grouped by threes from 10 000 up, a minus sign for negatives."""
    digits = str(abs(value))
    if len(digits) > 4:
        groups = []
        while digits:
            groups.append(digits[-3:])
            digits = digits[:-3]
        digits = " ".join(reversed(groups))
    return f"{MINUS}{digits}" if value < 0 else digits


def margin(us: int, lang: str = DEFAULT_LANGUAGE) -> str:
    """A margin in microseconds: ``850 мкс`` below a millisecond, else ``3,2 мс``."""
    if us < 1000:
        return f"{us} {tr('us', lang)}"
    ms = f"{us / 1000:.1f}" if us < 100_000 else f"{us // 1000}"
    if lang == "ru":
        ms = ms.replace(".", ",")
    return f"{ms} {tr('ms', lang)}"


def tenths(ns: int, lang: str = DEFAULT_LANGUAGE) -> str:
    """A time left to the tenth of a second (``4,0 с``), as a frozen clock shows it."""
    tenth = max(0, -(-ns // 100_000_000))
    text = f"{tenth // 10}.{tenth % 10}"
    if lang == "ru":
        text = text.replace(".", ",")
    return tr("seconds", lang, s=text)


def seconds_left(ns: int) -> str:
    """Whole seconds still to go, rounded up (``3`` for 2.1 s): the countdown's digit."""
    if ns <= 0:
        return "0"
    return str(-(-ns // 1_000_000_000))
