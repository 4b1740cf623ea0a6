"""docs/rules.md Part C registration rules (TOUR-1.2, TOUR-1.3/1.4), by rule ID.

Ages are counted in completed years on the cutoff date; expected values are
worked out by hand from the dates in each test.
"""

from __future__ import annotations

import datetime

import pytest

from rules.tournament import (
    DEFAULT_CUTOFF,
    AgeGroup,
    Player,
    RegistrationError,
    age_group,
    age_on,
    register,
)

D = datetime.date


def test_tour_1_2_default_cutoff_is_1_february_2003() -> None:
    assert D(2003, 2, 1) == DEFAULT_CUTOFF


def test_tour_1_2_age_counts_completed_years() -> None:
    assert age_on(D(1985, 2, 1), D(2003, 2, 1)) == 18  # birthday on the cutoff counts
    assert age_on(D(1985, 2, 2), D(2003, 2, 1)) == 17


def test_tour_1_2_eligible_up_to_17_on_the_cutoff() -> None:
    assert age_group(D(1985, 2, 1)) is None  # 18 on 01.02.2003
    assert age_group(D(1985, 2, 2)) is AgeGroup.SENIOR  # 17


def test_tour_1_2_junior_up_to_14_on_the_cutoff() -> None:
    assert age_group(D(1988, 2, 1)) is AgeGroup.SENIOR  # 15
    assert age_group(D(1988, 2, 2)) is AgeGroup.JUNIOR  # 14
    assert age_group(D(1995, 1, 1)) is AgeGroup.JUNIOR  # 8


def test_tour_1_2_cutoff_is_configurable() -> None:
    cutoff = D(2025, 2, 1)
    assert age_group(D(2010, 6, 1), cutoff) is AgeGroup.JUNIOR  # 14
    assert age_group(D(2008, 6, 1), cutoff) is AgeGroup.SENIOR  # 16
    assert age_group(D(2007, 1, 31), cutoff) is None  # 18


def test_tour_1_2_register_refuses_the_ineligible_and_splits_groups() -> None:
    with pytest.raises(RegistrationError):
        register([Player("Old", D(1984, 5, 5))])
    reg = register([Player("Anna", D(1986, 3, 1)), Player("Boris", D(1990, 3, 1))])
    assert [p.name for p in reg.group(AgeGroup.SENIOR)] == ["Anna"]  # 16
    assert [p.name for p in reg.group(AgeGroup.JUNIOR)] == ["Boris"]  # 12


def test_register_refuses_a_duplicate_name() -> None:
    with pytest.raises(RegistrationError):
        register([Player("Anna", D(1986, 3, 1)), Player("Anna", D(1987, 3, 1))])


def test_tour_1_3_team_standings_need_three_players_without_age_split() -> None:
    reg = register(
        [
            Player("A1", D(1986, 3, 1), "Moscow", "Lyceum"),  # senior
            Player("A2", D(1990, 3, 1), "Moscow", "Lyceum"),  # junior
            Player("A3", D(1987, 3, 1), "Moscow", "Lyceum"),
            Player("B1", D(1986, 3, 1), "Tver", "Club"),
            Player("B2", D(1986, 4, 1), "Tver", "Club"),
            Player("C1", D(1986, 4, 1), "Tver"),
        ]
    )
    assert dict(reg.teams) == {"Lyceum": ("A1", "A2", "A3"), "Club": ("B1", "B2")}
    assert dict(reg.ranked_teams()) == {"Lyceum": ("A1", "A2", "A3")}


def test_tour_1_4_a_player_counts_for_one_team() -> None:
    reg = register([Player("A1", D(1986, 3, 1), team="Lyceum"), Player("C1", D(1986, 4, 1))])
    assert reg.team_of("A1") == "Lyceum"
    assert reg.team_of("C1") is None
    memberships = [members for members in reg.teams.values() if "A1" in members]
    assert len(memberships) == 1
