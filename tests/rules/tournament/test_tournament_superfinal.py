"""The superfinal's composition (TOUR-1.7) and scenario E17."""

from __future__ import annotations

from rules.tournament import FinalOutcome, superfinal


def test_e17_senior_runner_up_not_positive_junior_runner_up_plays() -> None:
    senior = FinalOutcome(scores={"A": 250, "B": -20, "C": -50}, champion="A")
    junior = FinalOutcome(scores={"J": 180, "K": 60, "L": 0}, champion="J")
    result = superfinal(senior, junior)
    assert result.players == ("A", "J", "K")
    assert result.vacancies == 0


def test_tour_1_7_positive_senior_runner_up_plays() -> None:
    senior = FinalOutcome(scores={"A": 250, "B": 10, "C": -50}, champion="A")
    junior = FinalOutcome(scores={"J": 180, "K": 60, "L": 0}, champion="J")
    assert superfinal(senior, junior).players == ("A", "J", "B")


def test_tour_1_7_default_both_runners_up_not_positive_leave_a_vacancy() -> None:
    senior = FinalOutcome(scores={"A": 250, "B": 0, "C": -50}, champion="A")
    junior = FinalOutcome(scores={"J": 180, "K": -10, "L": -30}, champion="J")
    result = superfinal(senior, junior)
    assert result.players == ("A", "J")
    assert result.vacancies == 1


def test_tour_1_7_default_no_champion_leaves_a_vacancy() -> None:
    senior = FinalOutcome(scores={"A": 0, "B": -20, "C": -50}, champion=None)  # E10
    junior = FinalOutcome(scores={"J": 180, "K": 60, "L": 0}, champion="J")
    result = superfinal(senior, junior)
    # Senior 2nd place B has −20, so the junior runner-up K takes the third seat.
    assert result.players == ("J", "K")
    assert result.vacancies == 1


def test_tour_1_7_default_tied_runners_up_play_a_shootout() -> None:
    senior = FinalOutcome(scores={"A": 250, "B": 40, "C": 40}, champion="A")
    junior = FinalOutcome(scores={"J": 180, "K": 60, "L": 0}, champion="J")
    result = superfinal(senior, junior)
    assert result.players == ("A", "J")
    assert result.shootout == ("B", "C")
    settled = FinalOutcome(scores=senior.scores, champion="A", runner_up="C")
    assert superfinal(settled, junior).players == ("A", "J", "C")
