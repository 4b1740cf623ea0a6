"""Stage sizes and the qualifier: TOUR-1.6, TOUR-2.9, TOUR-3.1.2, TOUR-N-D, E13, E14."""

from __future__ import annotations

import pytest

from rules.tournament import (
    CommitteeDecision,
    QualifierScore,
    StagePlan,
    plan_first_stage,
    plan_games,
    rank_qualifier,
    written_points,
)


def test_e13_thirty_entrants_three_fours_six_triples() -> None:
    plan = plan_first_stage(30)
    assert plan == StagePlan(qualifier=False, fours=3, triples=6)
    assert plan.games == 9  # 9 winners go to the third-final


def test_e13_thirty_six_entrants_nine_fours() -> None:
    assert plan_first_stage(36) == StagePlan(qualifier=False, fours=9, triples=0)


def test_tour_1_6_twenty_seven_is_nine_triples() -> None:
    assert plan_first_stage(27) == StagePlan(qualifier=False, fours=0, triples=9)


def test_tour_3_1_2_every_count_from_28_to_35() -> None:
    for n, fours in [(28, 1), (31, 4), (35, 8)]:
        plan = plan_first_stage(n)
        assert (plan.qualifier, plan.fours, plan.triples) == (False, fours, 9 - fours)
        assert plan.players == n


def test_tour_2_9_qualifier_above_36() -> None:
    plan = plan_first_stage(37)
    assert plan.qualifier
    assert plan.players == 27


def test_tour_n_d_conflict_manual_override() -> None:
    assert plan_first_stage(30, qualifier=True).qualifier
    assert not plan_first_stage(36, qualifier=False).qualifier
    with pytest.raises(CommitteeDecision):
        plan_first_stage(40, qualifier=False)


def test_tour_n_d_fewer_than_27() -> None:
    # ⌊25/3⌋ = 8 games, 25 mod 3 = 1 of them a four (E15).
    assert plan_games(25) == StagePlan(qualifier=False, fours=1, triples=7)
    assert plan_games(26) == StagePlan(qualifier=False, fours=2, triples=6)
    assert plan_games(12) == StagePlan(qualifier=False, fours=0, triples=4)
    with pytest.raises(CommitteeDecision):
        plan_games(5)  # 1 game cannot hold 2 fours


def test_tour_2_9_scoring_right_plus_value_wrong_zero() -> None:
    assert written_points([(10, True), (20, False), (30, True), (40, False), (50, True)]) == 90


def _e14_field() -> list[QualifierScore]:
    above = [QualifierScore(f"P{i:02}", blue=100, red=190 + i) for i in range(1, 26)]  # 291..315
    tied = [
        QualifierScore("X", blue=130, red=150),
        QualifierScore("Y", blue=120, red=160),
        QualifierScore("Z", blue=120, red=160),
    ]
    below = [QualifierScore(f"L{i:02}", blue=50, red=100 + i) for i in range(12)]  # 150..161
    return above + tied + below


def test_e14_qualifier_cut() -> None:
    field = _e14_field()
    assert len(field) == 40
    assert plan_first_stage(40).qualifier
    outcome = rank_qualifier(field)
    places = {row.score.name: row.place for row in outcome.table}
    assert places["X"] == 26
    assert places["Y"] == places["Z"] == 27
    assert {"X", "Y", "Z"} <= set(outcome.advancing)
    assert len(outcome.advancing) == 28
    assert outcome.plan() == StagePlan(qualifier=False, fours=1, triples=8)


def test_tour_2_9_blue_round_breaks_a_tie_at_the_cut() -> None:
    field = _e14_field()
    field[-1] = QualifierScore("W", blue=110, red=170)  # 280 too, weaker Blue round
    outcome = rank_qualifier(field)
    places = {row.score.name: row.place for row in outcome.table}
    assert places["W"] == 29
    assert "W" not in outcome.advancing
    assert len(outcome.advancing) == 28


def test_tour_n_d_more_than_36_after_ties_goes_to_the_committee() -> None:
    field = [QualifierScore(f"P{i}", blue=100, red=100) for i in range(40)]
    with pytest.raises(CommitteeDecision):
        rank_qualifier(field)
