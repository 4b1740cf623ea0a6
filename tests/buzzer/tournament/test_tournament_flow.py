"""A seeded 40-player senior tournament from the qualifier to the final.

Checks each stage's player count against TOUR-1.6 / TOUR-2.9 / TOUR-3.1.2 and
that nobody plays two games of one stage; scores are random but seeded.
"""

from __future__ import annotations

import random

from rules.tournament import (
    FINAL_SLOTS,
    THIRD_FINAL_SLOTS,
    Entrant,
    GameResult,
    QualifierScore,
    advance,
    draw_games,
    plan_first_stage,
    plan_games,
    rank_qualifier,
)


def _play(games: tuple[tuple[str, ...], ...], rng: random.Random) -> list[GameResult]:
    results = []
    for game in games:
        scores = {name: rng.randrange(-200, 600, 10) for name in game}
        top = max(scores.values())
        leaders = sorted(n for n, s in scores.items() if s == top)
        results.append(GameResult(scores=scores, winner=rng.choice(leaders)))  # C2003-2.8
    return results


def _stage(names: list[str], teams: dict[str, str], slots: int, rng: random.Random) -> list[str]:
    plan = plan_games(len(names))
    entrants = [Entrant(n, teams[n]) for n in names]
    draw = draw_games(entrants, plan.sizes(), rng)
    seated = [n for g in draw.games for n in g]
    assert len(seated) == len(set(seated)) == len(names)  # nobody in two games
    result = advance(_play(draw.games, rng), slots)
    through = list(result.advancing)
    if result.shootout:  # TOUR-3.2 key 3: the lot stands in for the shootout here
        through += rng.sample(result.shootout, result.shootout_slots)
    assert len(through) == slots
    return through


def test_forty_players_qualifier_to_final() -> None:
    rng = random.Random(2003)
    names = [f"P{i:02}" for i in range(40)]
    teams = {n: f"T{i % 10}" for i, n in enumerate(names)}
    assert plan_first_stage(40).qualifier  # TOUR-2.9: more than 36
    qualifier = rank_qualifier(
        QualifierScore(n, blue=rng.randrange(0, 451, 10), red=rng.randrange(0, 901, 20))
        for n in names
    )
    ninth = list(qualifier.advancing)
    assert 27 <= len(ninth) <= 36
    third = _stage(ninth, teams, THIRD_FINAL_SLOTS, rng)
    assert len(third) == 9
    final = _stage(third, teams, FINAL_SLOTS, rng)
    assert len(final) == 3
    assert set(final) <= set(third) <= set(ninth)
