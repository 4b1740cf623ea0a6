"""Tournaments under the 2003 regulations (docs/rules.md Part C, TOUR-*).

Pure functions and frozen records only: registration and age groups, stage
sizes, the qualifier, the seeded draw, advancement, team standings and the
superfinal. Storage, clocks and rooms belong to the callers, so every rule
here can be tested from the numbers docs/rules.md gives.
"""

from __future__ import annotations

from rules.tournament.advancement import (
    Advancement,
    Contender,
    GameResult,
    Tier,
    advance,
    rank_non_winners,
)
from rules.tournament.draw import Draw, Entrant, clashes, draw_games, separable
from rules.tournament.qualifier import (
    QualifierOutcome,
    QualifierPlace,
    QualifierScore,
    rank_qualifier,
    written_points,
)
from rules.tournament.registration import (
    DEFAULT_CUTOFF,
    AgeGroup,
    Player,
    RegistrationError,
    Registry,
    age_group,
    age_on,
    register,
)
from rules.tournament.stages import (
    FINAL_SLOTS,
    THIRD_FINAL_SLOTS,
    CommitteeDecision,
    StagePlan,
    plan_first_stage,
    plan_games,
)
from rules.tournament.superfinal import FinalOutcome, Superfinal, superfinal
from rules.tournament.team_points import (
    PLACE_POINTS,
    TeamStanding,
    game_team_points,
    place_points,
    team_standings,
)

__all__ = [
    "DEFAULT_CUTOFF",
    "FINAL_SLOTS",
    "PLACE_POINTS",
    "THIRD_FINAL_SLOTS",
    "Advancement",
    "AgeGroup",
    "CommitteeDecision",
    "Contender",
    "Draw",
    "Entrant",
    "FinalOutcome",
    "GameResult",
    "Player",
    "QualifierOutcome",
    "QualifierPlace",
    "QualifierScore",
    "RegistrationError",
    "Registry",
    "StagePlan",
    "Superfinal",
    "TeamStanding",
    "Tier",
    "advance",
    "age_group",
    "age_on",
    "clashes",
    "draw_games",
    "game_team_points",
    "place_points",
    "plan_first_stage",
    "plan_games",
    "rank_non_winners",
    "rank_qualifier",
    "register",
    "separable",
    "superfinal",
    "team_standings",
    "written_points",
]
