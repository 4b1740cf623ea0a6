"""Every word the players, the host and the viewers read: one catalogue, one lookup.

The words live in data files beside this module, one per language
(``ru.json``, ``en.json``), so that a translator edits one place and the
browser reads the very same text the Python code does (the panel serves the
``panel`` part to its pages as a script, :func:`script`). Each file holds the
same namespaces, one per reader:

* ``board`` — the pygame board (:mod:`display.i18n`);
* ``report`` — the HTML game report (:mod:`buzzer.report.words`);
* ``summary`` — replay's text account (:mod:`buzzer.replay_summary.words`);
* ``panel`` — the host's and the viewers' pages (``buzzer/panel/static/i18n.js``);
* ``refusal`` — what the host is told when the server refuses (a host command,
  the PIN, a request: :mod:`buzzer.runtime.refusals`, :mod:`buzzer.panel.messages`);
* ``tournament`` — the tournament server's pages (:mod:`buzzer.tournament.pages`).
* ``doctor``, ``run``, ``journal``, ``package`` — what the console prints to the
  technician and the host: ``svoyak doctor``'s findings, ``svoyak run``'s and
  ``svoyak pin``'s lines and start-up refusals, ``journal verify``/``repair``,
  ``package inspect``'s table (:mod:`buzzer.app.both` prints a Russian line and
  its English one together where the console shows both).

A key is ``namespace.name`` (``board.round``); the name may itself hold dots
(``report.col.median``). Fields are written ``{name}`` and filled in by name,
the same way in Python (:meth:`str.format`) and in the pages (``i18n.js``);
no other brace appears in a text. Every language has every key with the same
fields (``tests/buzzer/words``), so a language is complete or a test fails.

Plain keyed JSON rather than gettext: the pages need the catalogue too, and a
browser reads JSON with no parser or build step, while ``.po``/``.mo`` files
would need both, and a new dependency, for two languages and short texts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Final

from buzzer.errors import SvoyakError

#: The languages there is a file for; the first is the default.
LANGUAGES: Final = ("ru", "en")
DEFAULT_LANGUAGE: Final = "ru"

#: A field in a text: ``{name}``.
FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


class MissingWord(SvoyakError, KeyError):
    """A key the catalogue does not have: a typo in the code, or a word not yet added."""

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownLanguage(SvoyakError, ValueError):
    """A language there is no catalogue file for."""


def _check_language(lang: str) -> None:
    if lang not in LANGUAGES:
        raise UnknownLanguage(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}")


@cache
def catalogue(lang: str) -> Mapping[str, Mapping[str, str]]:
    """``lang``'s whole file, namespace by namespace, read once and frozen."""
    _check_language(lang)
    text = resources.files(__name__).joinpath(f"{lang}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"buzzer/words/{lang}.json: expected an object of namespaces")
    frozen: dict[str, Mapping[str, str]] = {}
    for namespace, table in data.items():
        if not isinstance(table, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in table.items()
        ):
            raise ValueError(f"buzzer/words/{lang}.json: {namespace!r} must map names to strings")
        frozen[namespace] = MappingProxyType(dict(table))
    return MappingProxyType(frozen)


@cache
def _flat(lang: str) -> Mapping[str, str]:
    return MappingProxyType(
        {
            f"{namespace}.{name}": text
            for namespace, table in catalogue(lang).items()
            for name, text in table.items()
        }
    )


def table(namespace: str, lang: str) -> Mapping[str, str]:
    """One namespace of ``lang``, names without the namespace: for a module that
    reads many of its words at once (the report, the summary, the pages)."""
    found = catalogue(lang).get(namespace)
    if found is None:
        raise MissingWord(f"no namespace {namespace!r} in buzzer/words/{lang}.json")
    return found


def keys(lang: str = DEFAULT_LANGUAGE) -> frozenset[str]:
    """Every full key (``namespace.name``) of ``lang``."""
    return frozenset(_flat(lang))


def fields(text: str) -> frozenset[str]:
    """The fields a text asks for: ``{name}`` → ``name``."""
    return frozenset(FIELD.findall(text))


def tr(key: str, lang: str = DEFAULT_LANGUAGE, /, **values: object) -> str:
    """The text of ``key`` (``namespace.name``) in ``lang``, its fields filled from
    ``values`` (given none, the text as it stands). A key not in the catalogue is
    a :class:`MissingWord` naming it and the file; an unknown language is an
    :class:`UnknownLanguage`."""
    _check_language(lang)
    try:
        text = _flat(lang)[key]
    except KeyError:
        raise MissingWord(f"no word {key!r} in buzzer/words/{lang}.json") from None
    return text.format(**values) if values else text


def script(namespace: str) -> str:
    """A namespace in every language as a classic script the pages load before
    ``i18n.js``: ``const WORDS = {"ru": {...}, "en": {...}};`` (no inline script
    is allowed on the pages, so the words come as a file of their own)."""
    words = {lang: dict(table(namespace, lang)) for lang in LANGUAGES}
    body = json.dumps(words, ensure_ascii=False, indent=1)
    return (
        "/* svoyak: the pages' words, made by the server from buzzer/words/*.json. */\n"
        f'"use strict";\nconst WORDS = {body};\n'
    )


__all__ = [
    "DEFAULT_LANGUAGE",
    "FIELD",
    "LANGUAGES",
    "MissingWord",
    "UnknownLanguage",
    "catalogue",
    "fields",
    "keys",
    "script",
    "table",
    "tr",
]
