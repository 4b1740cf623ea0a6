"""Team standings (TOUR-3.3–3.6, TOUR-3-D) and scenarios E12 and E16."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.tournament import game_team_points, place_points, team_standings


def test_tour_3_3_triple_points() -> None:
    assert dict(game_team_points({"A": 300, "B": 200, "C": 100})) == {"A": 3, "B": 1, "C": 0}


def test_tour_3_4_four_points() -> None:
    points = dict(game_team_points({"A": 400, "B": 300, "C": 200, "D": 100}))
    assert points == {"A": 3, "B": 1, "C": 1, "D": 0}


def test_tour_3_5_examples() -> None:
    assert place_points(3, 1, tied=2) == 2  # (3+1)/2
    assert place_points(3, 1, tied=3) == Fraction(4, 3)
    assert place_points(4, 3, tied=2) == Fraction(1, 2)
    three_way = dict(game_team_points({"A": 100, "B": 100, "C": 100}))
    assert three_way == dict.fromkeys("ABC", Fraction(4, 3))
    tail = dict(game_team_points({"A": 400, "B": 300, "C": 50, "D": 50}))
    assert tail == {"A": 3, "B": 1, "C": Fraction(1, 2), "D": Fraction(1, 2)}


def test_e12_team_points_ignore_the_shootout() -> None:
    assert dict(game_team_points({"A": 250, "B": 250, "C": 100})) == {"A": 2, "B": 2, "C": 0}


E16_GAMES = [
    {"A": 300, "x1": 100, "x2": 50},  # A 1st in a 1/9 triple: 3
    {"y1": 300, "A": 200, "y2": 0},  # A 2nd in a third-final triple: 1
    {"z1": 400, "z2": 300, "B": 200, "z3": 100},  # B 3rd in a four: 1
    {"w1": 300, "w2": 200, "C": 100},  # C 3rd in a triple: 0
    {"v1": 400, "D": 300, "v2": 200, "v3": 100},  # D 2nd in a four: 1
]


def test_e16_team_points() -> None:
    (row,) = team_standings(E16_GAMES, {"T": ("A", "B", "C", "D")}, "ABCD")
    assert row.points == Fraction(3, 2)  # (3 + 1 + 1 + 0 + 1) / 4
    assert row.individual_sum == 300 + 200 + 200 + 100 + 300
    assert row.players == 4


def test_e16_tour_3_6_equal_points_higher_individual_sum_first() -> None:
    games = [
        *E16_GAMES,
        {"u1": 2000, "q1": 100, "q2": 50},  # u1: 3
        {"r1": 300, "r2": 200, "u2": 100},  # u2: 0
    ]
    teams = {"T": ("A", "B", "C", "D"), "U": ("u1", "u2", "u3")}
    # TOUR-3-D: u3 registered but never played, so U divides by 2: 3 / 2 = 1.5.
    table = team_standings(games, teams, ["A", "B", "C", "D", "u1", "u2"])
    assert [(r.rank, r.team, r.points) for r in table] == [
        (1, "U", Fraction(3, 2)),
        (2, "T", Fraction(3, 2)),
    ]
    assert table[0].individual_sum == 2100 > table[1].individual_sum == 1100


def test_tour_3_d_qualifier_players_count_in_the_divisor() -> None:
    # T's fifth member played only the qualifier: 6 / 5.
    (row,) = team_standings(E16_GAMES, {"T": ("A", "B", "C", "D", "E")}, "ABCDE")
    assert row.points == Fraction(6, 5)


def test_tour_1_4_a_player_in_two_teams_is_refused() -> None:
    with pytest.raises(ValueError):
        team_standings(E16_GAMES, {"T": ("A", "B", "C"), "U": ("A", "D", "x1")}, "ABCD")
