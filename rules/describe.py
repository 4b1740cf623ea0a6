"""A rule system's parameters as a readable table, each with its rule ID."""

from __future__ import annotations

import dataclasses
from enum import Enum

from buzzer.arbiter.params import NS_PER_S
from rules.profiles import OPTIONS, RuleSystem

_OPTION_BY_FIELD = {field: name for name, (field, _) in OPTIONS.items()}


def _show(value: object) -> str:
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)


def describe_rules(system: RuleSystem) -> str:
    """One line per parameter: option name, value, rule ID."""
    rows: list[tuple[str, str, str]] = []
    for field in dataclasses.fields(system.buttons):
        value = getattr(system.buttons, field.name)
        shown = f"{value / NS_PER_S:g} s" if field.name.endswith("_ns") else _show(value)
        option = _OPTION_BY_FIELD.get(field.name, field.name)
        rows.append((option, shown, system.citations.get(field.name, "")))
    rows.append(("start_score", str(system.start_score), system.citations.get("start_score", "")))
    rounds = "; ".join(
        f"{r.name}: {len(r.themes)} × {'/'.join(str(p) for p in r.prices)}" for r in system.rounds
    )
    rows.append(("board", rounds, system.citations.get("rounds", "")))
    rows.append(("choice", system.choice.value, system.citations.get("choice", "")))
    rows.append(("theme_order", system.theme_order.value, system.citations.get("theme_order", "")))
    width = max(len(r[0]) for r in rows)
    vwidth = max(len(r[1]) for r in rows)
    lines = [f"{system.id} — {system.title}", ""]
    lines += [f"  {o:<{width}}  {v:<{vwidth}}  {c}".rstrip() for o, v, c in rows]
    return "\n".join(lines)
