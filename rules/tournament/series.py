"""The TV show's series formats as data (seed 002 «История игры»; SER-* in docs/tournament.md).

The show was played as series: a champion defending a ladder of games (the
Car Cups, the Combined Cup), members defending seats against challengers
(the Golden Dozen, the Challenge Cups), a bracket of stages (the Jubilee
Games). A :class:`SeriesFormat` is data, as a rule system is
(``rules.profiles``): its parameters say who plays whom next, who keeps or
loses a seat and what carries over, each cited by its rule ID in
``citations``. :mod:`rules.tournament.series_play` interprets them.

Pure: no I/O, no clock; every lot is drawn from a seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType


class Shape(StrEnum):
    """How a format's games follow each other."""

    #: A champion plays two new challengers a game until he loses, stops or wins the prize.
    LADDER = "ladder"
    #: Members hold seats; each game a seat is defended against challengers.
    SEATS = "seats"
    #: Stages of matches; the best of each match go on.
    BRACKET = "bracket"


@dataclass(frozen=True, slots=True)
class BracketStage:
    """One stage of a bracket (SER-JUB): ``matches`` of three; the best ``advance`` go on."""

    name: str
    matches: int
    #: Games per match; the end scores of one game are the next one's start (SER-CARRY).
    games: int = 1
    advance: int = 2
    #: The best of the players placed ``advance + 1`` in their match who also go on.
    best_next: int = 0
    #: Players the committee brings back from those out before this stage (SER-JUB-3).
    wildcards: int = 0


@dataclass(frozen=True, slots=True)
class SeriesFormat:
    """One series format of the TV show; defaults are "not in this format"."""

    id: str
    title: str
    years: str
    shape: Shape
    #: Players at a table (every format of seed 002: three).
    per_game: int = 3
    # -- SEATS ---------------------------------------------------------------------------
    #: Seats held at the start (the Dozen's 12, the team's 7, the lodge's 9).
    members: int = 0
    #: Members at a table (the Golden Dozen's variant: two against one challenger).
    members_per_game: int = 1
    #: Games in which seats are defended: per cycle (the Dozen's 12), in all (the team's 50).
    seat_games: int = 0
    #: Circles of the lodge: every seat defended once per circle (2003: 9, the last the revenge).
    circles: int = 0
    #: The last circle's challengers are the members who lost their seats before.
    revenge: bool = False
    #: The winning challenger takes the loser's seat; False: the team shrinks (2001–02).
    replace_loser: bool = True
    #: Places at the table that keep a seat (the variant: first and second).
    keep_places: int = 1
    #: The best members who play an olympic bracket after the seat games (the Dozen's 9).
    olympic: int = 0
    #: The cycle's champion also wins the sums of the cycle's 15 other winners (2006–07).
    cycle_prize: bool = False
    #: The lodge's final: a ladder from the last place up, then a final of ``final_games``.
    ladder_final: bool = False
    final_games: int = 1
    # -- LADDER --------------------------------------------------------------------------
    #: Wins in a row that take the main prize (1994–96: five).
    wins_for_prize: int = 0
    #: The champion's winnings add up from game to game.
    carry_sums: bool = False
    #: After each win the champion may stop and take what he has (or go on).
    may_stop: bool = False
    #: A champion who loses keeps what he won before (2008); False: he loses it.
    loss_keeps_bank: bool = False
    #: A champion who loses takes his score in that game, if above zero (SER-CAR94-4-D1).
    loss_keeps_last: bool = False
    #: (wins in a row, bonus): 1994–96, three wins add 500 000 to the winnings.
    streak_bonus: tuple[int, int] = (0, 0)
    #: Key fobs on the stand, one of them hides the car's key (2004: 30, 2008: 22).
    fobs: int = 0
    #: When fobs are checked: "stop" (2004, on leaving) or "win" (2008, after each win).
    fobs_when: str = ""
    #: Extra fobs may be bought from the winnings at this price each (2004: 10 000).
    fob_price: int = 0
    #: The main prize grows by each game's winner's sum (2005).
    prize_pool: bool = False
    #: The best of the half-year play third-finals and a final (2005: nine).
    finals_best: int = 0
    # -- BRACKET -------------------------------------------------------------------------
    stages: tuple[BracketStage, ...] = ()
    #: Each parameter's rule ID (docs/tournament.md#series-formats).
    citations: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


def fobs_after(wins: int, fobs: int) -> int:
    """SER-CAR04-2 / SER-CAR08-2: fobs checked after ``wins`` wins: 1, 3, 6, 10 … (capped).

    «в случае победы во второй игре … ещё 2 брелока (всего 3). За победу в
    третьей игре … ещё 3 брелока (всего 6) и т. д.»
    """
    return min(wins * (wins + 1) // 2, fobs)


CAR_CUP_1994 = SeriesFormat(
    id="car-cup-1994",
    title="Автомобильный Кубок (1994—1996)",
    years="1994–1996",
    shape=Shape.LADDER,
    wins_for_prize=5,
    carry_sums=True,
    may_stop=True,
    streak_bonus=(3, 500_000),
    loss_keeps_last=True,
    citations=MappingProxyType(
        {
            "wins_for_prize": "SER-CAR94-1",
            "carry_sums": "SER-CAR94-2",
            "may_stop": "SER-CAR94-3",
            "loss_keeps_bank": "SER-CAR94-4",
            "loss_keeps_last": "SER-CAR94-4-D1",
            "streak_bonus": "SER-CAR94-5",
        }
    ),
)

GOLDEN_DOZEN = SeriesFormat(
    id="golden-dozen",
    title="Золотая Дюжина (1996—2000)",
    years="1996–2000",
    shape=Shape.SEATS,
    members=12,
    seat_games=12,
    olympic=9,
    citations=MappingProxyType(
        {
            "members": "SER-GD-1",
            "seat_games": "SER-GD-1",
            "replace_loser": "SER-GD-2",
            "olympic": "SER-GD-3",
        }
    ),
)

GOLDEN_DOZEN_2006 = SeriesFormat(
    id="golden-dozen-2006",
    title="Золотая Дюжина (2006—2007): приз — суммы победителей предыдущих 15 игр",
    years="2006–2007",
    shape=Shape.SEATS,
    members=12,
    seat_games=12,
    olympic=9,
    cycle_prize=True,
    citations=MappingProxyType(
        {
            "members": "SER-GD-1",
            "seat_games": "SER-GD-1",
            "replace_loser": "SER-GD-2",
            "olympic": "SER-GD-3",
            "cycle_prize": "SER-GD-5",
        }
    ),
)

GOLDEN_DOZEN_PAIRS = SeriesFormat(
    id="golden-dozen-pairs",
    title="Золотая Дюжина: двое членов Дюжины против одного претендента",
    years="1996–2000 (недолго)",
    shape=Shape.SEATS,
    members=12,
    members_per_game=2,
    seat_games=12,
    keep_places=2,
    olympic=9,
    citations=MappingProxyType(
        {
            "members": "SER-GD-1",
            "members_per_game": "SER-GD-4",
            "seat_games": "SER-GD-1",
            "keep_places": "SER-GD-4",
            "olympic": "SER-GD-3",
        }
    ),
)

CHALLENGE_CUP_2001 = SeriesFormat(
    id="challenge-cup-2001",
    title="Кубок Вызова (2001—2002): команда из 7 гроссмейстеров",
    years="2001–2002",
    shape=Shape.SEATS,
    members=7,
    seat_games=50,
    replace_loser=False,
    citations=MappingProxyType(
        {
            "members": "SER-CC1-1",
            "seat_games": "SER-CC1-1",
            "replace_loser": "SER-CC1-2",
            "early_win": "SER-CC1-3",
        }
    ),
)

CHALLENGE_CUP_2003 = SeriesFormat(
    id="challenge-cup-2003",
    title="Кубок Вызова-4 (2003): Ложа Гроссмейстеров из 9",
    years="2003",
    shape=Shape.SEATS,
    members=9,
    circles=9,
    revenge=True,
    ladder_final=True,
    final_games=3,
    citations=MappingProxyType(
        {
            "members": "SER-CC4-1",
            "circles": "SER-CC4-2",
            "revenge": "SER-CC4-3",
            "ladder_final": "SER-CC4-4",
            "final_games": "SER-CC4-5",
        }
    ),
)

CAR_CUP_2004 = SeriesFormat(
    id="car-cup-2004",
    title="Автомобильный Кубок (2004): 30 брелоков",
    years="2004",
    shape=Shape.LADDER,
    carry_sums=True,
    may_stop=True,
    fobs=30,
    fobs_when="stop",
    fob_price=10_000,
    citations=MappingProxyType(
        {
            "carry_sums": "SER-CAR04-1",
            "may_stop": "SER-CAR04-1",
            "fobs": "SER-CAR04-2",
            "fob_price": "SER-CAR04-3",
            "loss_keeps_bank": "SER-CAR04-4",
        }
    ),
)

CAR_CUP_2008 = SeriesFormat(
    id="car-cup-2008",
    title="Автомобильный Кубок (2008): 22 брелока",
    years="2008",
    shape=Shape.LADDER,
    carry_sums=True,
    loss_keeps_bank=True,
    fobs=22,
    fobs_when="win",
    citations=MappingProxyType(
        {
            "fobs": "SER-CAR08-1",
            "fobs_when": "SER-CAR08-2",
            "loss_keeps_bank": "SER-CAR08-3",
            "may_stop": "SER-CAR08-D1",
        }
    ),
)

COMBINED_CUP_2005 = SeriesFormat(
    id="combined-cup-2005",
    title="Комбинированный Кубок (2005)",
    years="2005",
    shape=Shape.LADDER,
    carry_sums=True,
    may_stop=True,
    prize_pool=True,
    finals_best=9,
    citations=MappingProxyType(
        {
            "may_stop": "SER-COMB-1",
            "carry_sums": "SER-COMB-1",
            "prize_pool": "SER-COMB-2",
            "finals_best": "SER-COMB-3",
        }
    ),
)

JUBILEE_2004 = SeriesFormat(
    id="jubilee-2004",
    title="Юбилейные игры (2004)",
    years="2004",
    shape=Shape.BRACKET,
    stages=(
        BracketStage("1/9", matches=9),
        BracketStage("1/6", matches=6),
        BracketStage("paired 1/4", matches=4, games=2),
        BracketStage("paired 1/3", matches=3, games=2, wildcards=1),
        BracketStage("semi-final", matches=2, games=2, advance=1, best_next=1),
        BracketStage("final", matches=1, games=4, advance=1),
    ),
    citations=MappingProxyType(
        {
            "stages": "SER-JUB-1",
            "games": "SER-JUB-2",
            "wildcards": "SER-JUB-3",
            "best_next": "SER-JUB-4",
            "groups": "SER-JUB-D1",
        }
    ),
)

#: Every series format, by id (``svoyak tournament series formats``).
SERIES_FORMATS: Mapping[str, SeriesFormat] = MappingProxyType(
    {
        f.id: f
        for f in (
            CAR_CUP_1994,
            GOLDEN_DOZEN,
            GOLDEN_DOZEN_PAIRS,
            GOLDEN_DOZEN_2006,
            CHALLENGE_CUP_2001,
            CHALLENGE_CUP_2003,
            CAR_CUP_2004,
            JUBILEE_2004,
            COMBINED_CUP_2005,
            CAR_CUP_2008,
        )
    }
)


def find_format(format_id: str) -> SeriesFormat:
    """The format by its id; KeyError names the known ones."""
    try:
        return SERIES_FORMATS[format_id]
    except KeyError:
        known = ", ".join(SERIES_FORMATS)
        raise KeyError(f"unknown series format {format_id!r}; the formats are: {known}") from None
