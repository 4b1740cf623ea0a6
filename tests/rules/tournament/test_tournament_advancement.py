"""Advancement (TOUR-3.2) and its scenarios E12 (places) and E15."""

from __future__ import annotations

from rules.tournament import GameResult, Tier, advance, plan_games, rank_non_winners


def _triple(first: tuple[str, int], second: tuple[str, int], third: tuple[str, int]) -> GameResult:
    return GameResult(scores=dict([first, second, third]), winner=first[0])


def _e15_stage() -> list[GameResult]:
    """25 players: one four and seven triples; seconds P 140, Q 140 (four), R 90, others 50."""
    games = [
        GameResult(scores={"W0": 300, "Q": 140, "F3": 60, "F4": 10}, winner="W0"),
        _triple(("W1", 300), ("P", 140), ("T1", 0)),
        _triple(("W2", 300), ("R", 90), ("T2", 0)),
    ]
    games += [_triple((f"W{i}", 300), (f"S{i}", 50), (f"T{i}", 0)) for i in range(3, 8)]
    return games


def test_e15_best_second_places_tied_go_to_a_shootout() -> None:
    assert plan_games(25).games == 8
    games = _e15_stage()
    assert sum(len(g.scores) for g in games) == 25
    result = advance(games, slots=9)
    assert result.advancing == tuple(f"W{i}" for i in range(8))
    assert set(result.shootout) == {"P", "Q"}
    assert result.shootout_slots == 1
    assert not result.complete


def test_tour_3_2_points_break_the_tier_below_the_cut() -> None:
    games = _e15_stage()
    result = advance(games, slots=10)  # two open slots: P and Q both fit
    assert set(result.advancing[8:]) == {"P", "Q"}
    assert result.complete
    result = advance(games, slots=11)  # three: R (90) beats the other seconds (50)
    assert result.advancing[10] == "R"


def test_e15_tier_third_in_a_four_beats_third_in_a_triple() -> None:
    four = GameResult(scores={"A": 100, "B": 50, "C4": 20, "D": 10}, winner="A")
    triple = _triple(("E", 400), ("F", 300), ("C3", 200))
    ranking = [c.name for c in rank_non_winners([four, triple])]
    assert ranking.index("C4") < ranking.index("C3")
    assert four.tier("C4") is Tier.THIRD_IN_FOUR
    assert triple.tier("C3") is Tier.LAST
    assert four.tier("D") is Tier.LAST
    assert advance([four, triple], slots=5).advancing == ("A", "E", "F", "B", "C4")


def test_tour_3_2_winners_only_when_the_count_is_a_power_of_three() -> None:
    games = [_triple((f"W{i}", 200), (f"S{i}", 100), (f"T{i}", 0)) for i in range(9)]
    result = advance(games, slots=9)
    assert result.advancing == tuple(f"W{i}" for i in range(9))
    assert result.complete


def test_e12_shootout_loser_is_second_and_in_tier_one() -> None:
    game = GameResult(scores={"A": 250, "B": 250, "C": 100}, winner="A")
    assert dict(game.places()) == {"A": 1, "B": 2, "C": 3}
    assert game.tier("B") is Tier.SECOND


def test_tour_3_2_default_game_without_winner_fills_through_the_list() -> None:
    no_winner = GameResult(scores={"A": 0, "B": -20, "C": -50}, winner=None)  # E10
    other = _triple(("W", 300), ("S", 100), ("T", 0))
    assert no_winner.tier("A") is Tier.SECOND  # its 1st place is tier (i)
    assert no_winner.tier("B") is Tier.SECOND  # 2nd place
    result = advance([no_winner, other], slots=3)
    # One winner; S (100) and A (0) lead tier (i) over B (−20).
    assert result.advancing == ("W", "S", "A")


def test_tour_3_2_default_tied_players_share_the_better_place() -> None:
    game = GameResult(scores={"A": 300, "B": 100, "C": 100, "D": 0}, winner="A")
    assert dict(game.places()) == {"A": 1, "B": 2, "C": 2, "D": 4}
    assert game.tier("C") is Tier.SECOND
