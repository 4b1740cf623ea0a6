"""The report's words and its ways of writing numbers and times.

The words are the catalogue's ``report`` namespace (``buzzer/words/*.json``,
:mod:`buzzer.words`), one table for the HTML and the pictures; this module
hands a language's table to them (:func:`words`) and formats scores,
seconds and durations the way the report writes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from buzzer import words as catalogue

LANGUAGES: Final = catalogue.LANGUAGES

#: Each language's table: ``TEXT[lang][name]``.
TEXT: Final[Mapping[str, Mapping[str, str]]] = {
    lang: catalogue.table("report", lang) for lang in LANGUAGES
}


def words(lang: str) -> dict[str, str]:
    """The table of ``lang`` (a copy, the report's own); an unknown language is a
    ValueError naming the known ones."""
    if lang not in TEXT:
        raise ValueError(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}")
    return dict(TEXT[lang])


def signed(value: int) -> str:
    """A score change as the board writes it: «+300», «−300», «±0» (a real minus sign)."""
    return f"+{value}" if value > 0 else f"−{-value}" if value < 0 else "±0"


def number(value: int) -> str:
    """A score: «−300» with a real minus sign."""
    return f"−{-value}" if value < 0 else str(value)


def seconds_text(t: float, lang: str) -> str:
    """Seconds from a question's zero, to the millisecond: «+0.400 с», «−0.500 с», «0»."""
    if round(t, 3) == 0:
        return "0"
    sign = "+" if t > 0 else "−"
    return f"{sign}{abs(t):.3f} {words(lang)['sec']}"


def reaction_text(us: int, lang: str) -> str:
    """A reaction time, always in seconds to the millisecond: «0.429 с», «1.163 с».

    One unit for the cards' median and best, whatever the value: a column of
    «1.163 с» over «429.091 мс» read as a thousand times apart. The margins
    (:func:`duration_text`), which can be µs, are not in a column."""
    return f"{us / 1_000_000:.3f} {words(lang)['sec']}"


def duration_text(us: int, lang: str) -> str:
    """A duration in µs: µs under a millisecond, ms under a second, else seconds."""
    table = words(lang)
    if us < 1000:
        return f"{us} {table['us']}"
    if us < 1_000_000:
        ms = f"{us / 1000:.3f}".rstrip("0").rstrip(".")
        return f"{ms} {table['ms']}"
    return f"{us / 1_000_000:.3f} {table['sec']}"
