"""How the summary writes a time, a margin, a score and a change of score.

Small pure functions shared by the narrator (:mod:`.narrator`) and callers
that print a game time the summary's way (``clock_text``, ``margin_text``:
re-exported by :mod:`buzzer.replay_summary`).
"""

from __future__ import annotations

import math

from buzzer.replay_summary.words import TEXT


def clock_text(t: float, lang: str = "ru") -> str:
    """A game time as a person reads it, to a tenth of a second: «12.5 с», «2 мин
    12.5 с», «1 ч 2 мин 3.4 с» (a press's lead is told by its margin, in µs)."""
    words = TEXT[lang]
    tenths = max(0, math.floor(t * 10 + 0.5))  # half up: 3.25 s is «3.3 с»
    hours, rest = divmod(tenths, 36_000)
    minutes, rest = divmod(rest, 600)
    text = f"{rest // 10}.{rest % 10} {words['sec']}"
    if hours:
        return f"{hours} {words['hour']} {minutes} {words['min']} {text}"
    if minutes:
        return f"{minutes} {words['min']} {text}"
    return text


def margin_text(us: int, lang: str = "ru") -> str:
    """A press margin: µs under a millisecond, ms under a second (up to three decimals), else s."""
    words = TEXT[lang]
    if us < 1000:
        return f"{us} {words['us']}"
    if us < 1_000_000:
        ms = f"{us / 1000:.3f}".rstrip("0").rstrip(".")
        return f"{ms} {words['ms']}"
    return f"{us / 1_000_000:.3f} {words['sec']}"


def signed(delta: int) -> str:
    """A change of score: «+200», «−100», «±0»."""
    return f"+{delta}" if delta > 0 else f"−{-delta}" if delta < 0 else "±0"


def number(value: int) -> str:
    """A score, a negative one with a true minus sign."""
    return f"−{-value}" if value < 0 else str(value)


__all__ = ["clock_text", "margin_text", "number", "signed"]
