"""The draw into games (TOUR-3.1): seeded, complete, and separating teams.

Property checks: every player sits in exactly one game, game sizes follow the
stage plan, and whenever a separating draw exists (always, for instance, when
no team has more members than there are games) no two teammates meet.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.tournament import Entrant, clashes, draw_games, plan_games, separable


def _check(entrants: list[Entrant], seed: int) -> None:
    plan = plan_games(len(entrants))
    draw = draw_games(entrants, plan.sizes(), random.Random(seed))
    seated = [name for game in draw.games for name in game]
    assert sorted(seated) == sorted(e.name for e in entrants)  # exactly one game each
    assert tuple(len(game) for game in draw.games) == plan.sizes()
    teams = {e.name: e.team for e in entrants}
    team_sizes = Counter(e.team if e.team is not None else f"#{e.name}" for e in entrants)
    if max(team_sizes.values()) <= plan.games:
        assert separable(team_sizes.values(), plan.sizes())
    if separable(team_sizes.values(), plan.sizes()):
        assert clashes(draw, teams) == 0


@st.composite
def fields(draw: st.DrawFn) -> list[Entrant]:
    n = draw(st.sampled_from([3, 4, 6, 7, 8, 9, 12, 14, 20, 25, 26, 27, 28, 30, 33, 35, 36]))
    team_count = draw(st.integers(min_value=1, max_value=8))
    teams = draw(
        st.lists(
            st.one_of(st.none(), st.integers(0, team_count - 1).map(lambda t: f"T{t}")),
            min_size=n,
            max_size=n,
        )
    )
    return [Entrant(f"P{i}", team) for i, team in enumerate(teams)]


@settings(max_examples=300, deadline=None)
@given(fields(), st.integers(0, 2**32))
def test_tour_3_1_draw_properties(entrants: list[Entrant], seed: int) -> None:
    _check(entrants, seed)


@settings(max_examples=100, deadline=None)
@given(st.integers(27, 36), st.integers(0, 2**32))
def test_tour_3_1_teams_no_larger_than_the_game_count_are_always_separated(
    n: int, seed: int
) -> None:
    # Teams of 9 (the game count) as far as they go, the rest alone.
    entrants = [Entrant(f"P{i}", f"T{i // 9}" if i < 27 else None) for i in range(n)]
    _check(entrants, seed)


def test_tour_3_1_same_seed_same_draw() -> None:
    entrants = [Entrant(f"P{i}", f"T{i % 4}") for i in range(30)]
    sizes = plan_games(30).sizes()
    first = draw_games(entrants, sizes, random.Random(7))
    assert first == draw_games(entrants, sizes, random.Random(7))
    assert first != draw_games(entrants, sizes, random.Random(8))


def test_tour_3_1_soft_constraint_when_a_team_is_too_big() -> None:
    # Three triples and a team of four: one pair of teammates must meet, and only one.
    entrants = [Entrant(f"T{i}", "Big") for i in range(4)] + [Entrant(f"S{i}") for i in range(5)]
    sizes = plan_games(9).sizes()
    assert not separable([4, 1, 1, 1, 1, 1], sizes)
    draw = draw_games(entrants, sizes, random.Random(1))
    assert clashes(draw, {e.name: e.team for e in entrants}) == 1
