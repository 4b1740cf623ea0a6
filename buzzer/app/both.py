"""The console's words in both languages at once, from the catalogue.

What ``svoyak`` prints on a terminal (the run's banner, the journal's
verdicts, the Pico's refusals) is read by a technician whose language the
command does not know, so it says both: a Russian line then an English one,
or the two halves of one line joined by `` / ``. The words themselves are in
:mod:`buzzer.words` like every other; these only put the two together.
"""

from __future__ import annotations

from buzzer.words import tr


def pair(key: str, /, **fields: object) -> tuple[str, str]:
    """``key``'s text in Russian and in English, its fields filled in each."""
    return tr(key, "ru", **fields), tr(key, "en", **fields)


def lines(key: str, /, **fields: object) -> str:
    """The Russian text, a newline, the English text."""
    return "\n".join(pair(key, **fields))


def slashed(key: str, /, **fields: object) -> str:
    """One line: the Russian text `` / `` the English text."""
    return " / ".join(pair(key, **fields))


__all__ = ["lines", "pair", "slashed"]
