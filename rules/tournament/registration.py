"""Registration: players, age groups and teams (TOUR-1.2, TOUR-1.3/1.4).

A player's age group is fixed once, from the birth date and the cutoff date,
so that every later stage reads a field instead of recomputing an age. The
cutoff is a parameter because the 2003 regulations name 01.02.2003 while a
tournament run today needs its own date.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType

from buzzer.errors import SvoyakError

#: TOUR-1.2: the regulations' cutoff date, 01.02.2003.
DEFAULT_CUTOFF = datetime.date(2003, 2, 1)
#: TOUR-1.2: the oldest eligible age on the cutoff date.
MAX_AGE = 17
#: TOUR-1.2: the oldest junior age on the cutoff date.
MAX_JUNIOR_AGE = 14
#: TOUR-1.3/1.4: a team has team standings only with this many registered players.
MIN_TEAM_SIZE = 3


class RegistrationError(SvoyakError, ValueError):
    """A registration the regulations refuse (TOUR-1.2, TOUR-1.3/1.4)."""


class AgeGroup(Enum):
    """The two independent standings of TOUR-1.2."""

    JUNIOR = "junior"
    SENIOR = "senior"


@dataclass(frozen=True, slots=True)
class Player:
    """One registration form (name, birth date, city, team).

    ``team`` is a single field, not a set: TOUR-1.3/1.4 lets a player count
    for one team only, so the data cannot express a second one.
    """

    name: str
    birth_date: datetime.date
    city: str = ""
    team: str | None = None


def age_on(birth_date: datetime.date, day: datetime.date) -> int:
    """Completed years on ``day`` (a birthday on ``day`` counts as reached)."""
    years = day.year - birth_date.year
    if (day.month, day.day) < (birth_date.month, birth_date.day):
        years -= 1
    return years


def age_group(birth_date: datetime.date, cutoff: datetime.date = DEFAULT_CUTOFF) -> AgeGroup | None:
    """TOUR-1.2: junior if ≤ 14 on the cutoff, senior if 15–17, else None (not eligible)."""
    age = age_on(birth_date, cutoff)
    if age > MAX_AGE:
        return None
    return AgeGroup.JUNIOR if age <= MAX_JUNIOR_AGE else AgeGroup.SENIOR


@dataclass(frozen=True, slots=True)
class Registry:
    """Everyone registered for one tournament, grouped as the stages need them."""

    players: tuple[Player, ...]
    cutoff: datetime.date
    #: TOUR-1.2: name → age group, for every registered player.
    groups: Mapping[str, AgeGroup]
    #: TOUR-1.3/1.4: team → its registered members, in registration order (any size).
    teams: Mapping[str, tuple[str, ...]]

    def group(self, group: AgeGroup) -> tuple[Player, ...]:
        """The players of one standings table (TOUR-1.2: each is run independently)."""
        return tuple(p for p in self.players if self.groups[p.name] is group)

    def ranked_teams(self) -> Mapping[str, tuple[str, ...]]:
        """TOUR-1.3/1.4: the teams with ≥ 3 registered players, junior and senior together."""
        return MappingProxyType({t: m for t, m in self.teams.items() if len(m) >= MIN_TEAM_SIZE})

    def team_of(self, name: str) -> str | None:
        """The one team a player counts for (TOUR-1.3/1.4), or None."""
        for player in self.players:
            if player.name == name:
                return player.team
        raise KeyError(name)


def register(players: Iterable[Player], cutoff: datetime.date = DEFAULT_CUTOFF) -> Registry:
    """Close registration: refuse ineligible players (TOUR-1.2) and duplicate names.

    Names are the players' identity in every later stage, so two forms with
    one name would merge two players' results; the organisers must tell them
    apart (e.g. by adding the city) before registration closes.
    """
    accepted: list[Player] = []
    groups: dict[str, AgeGroup] = {}
    teams: dict[str, list[str]] = {}
    for player in players:
        if player.name in groups:
            raise RegistrationError(f"{player.name!r} is registered twice")
        group = age_group(player.birth_date, cutoff)
        if group is None:
            raise RegistrationError(
                f"{player.name!r} is older than {MAX_AGE} on {cutoff.isoformat()} (TOUR-1.2)"
            )
        accepted.append(player)
        groups[player.name] = group
        if player.team is not None:
            teams.setdefault(player.team, []).append(player.name)
    return Registry(
        players=tuple(accepted),
        cutoff=cutoff,
        groups=MappingProxyType(groups),
        teams=MappingProxyType({t: tuple(m) for t, m in teams.items()}),
    )
