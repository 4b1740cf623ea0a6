"""The demo game ``svoyak run --headless`` serves until the full ``svoyak run`` exists.

A small built-in board (two rounds of three themes and three prices, taken
from the rule system's own prices) with a special question of each kind the
rule system has, and a final of three themes.
"""

from __future__ import annotations

from typing import Any

from rules.profiles import RULE_SYSTEMS

DEMO_PLAYERS = ("Анна", "Борис", "Вера")
DEMO_THEMES = (
    ("Столицы", "Химия", "Кино"),
    ("Литература", "Спорт", "Музыка"),
)


def demo_header(
    rules: str = "tv-modern", players: tuple[str, ...] = DEMO_PLAYERS
) -> dict[str, Any]:
    """The journal header of the demo game (``rules`` must be a known rules id)."""
    system = RULE_SYSTEMS[rules]
    rounds = []
    for number, spec in enumerate(system.rounds[:2]):
        prices = list(spec.prices[:3])
        rounds.append({"name": spec.name, "themes": list(DEMO_THEMES[number]), "prices": prices})
    specials: list[dict[str, Any]] = []
    if system.stake is not None:
        specials.append({"round": 1, "theme": 2, "price": rounds[0]["prices"][1], "kind": "stake"})
    if len(rounds) > 1:
        second = rounds[1]["prices"]
        if system.cat is not None:
            specials.append({"round": 2, "theme": 1, "price": second[0], "kind": "cat"})
        if system.sponsor_multiplier is not None:
            specials.append({"round": 2, "theme": 3, "price": second[2], "kind": "sponsor"})
    header: dict[str, Any] = {
        "rules": rules,
        "players": list(players),
        "board": {"rounds": rounds},
        "specials": specials,
    }
    if system.has_chooser:
        header["chooser"] = 1
    if system.final is not None and system.final.themes > 1:
        header["final_themes"] = 3
    return header
