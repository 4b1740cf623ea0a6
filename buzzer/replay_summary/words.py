"""The summary's words: every line of the account, in each language.

One key per kind of line, the fields the narrator (:mod:`.narrator`) fills in
named in braces. The words are the catalogue's ``summary`` namespace
(``buzzer/words/*.json``, :mod:`buzzer.words`), where a translator reads, and a
reviewer compares, the languages; a key missing from one language is a test
failure, not a guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from buzzer import words as catalogue

LANGUAGES: Final = catalogue.LANGUAGES

#: Each language's table: ``TEXT[lang][key]``.
TEXT: Final[Mapping[str, Mapping[str, str]]] = {
    lang: catalogue.table("summary", lang) for lang in LANGUAGES
}


__all__ = ["LANGUAGES", "TEXT"]
