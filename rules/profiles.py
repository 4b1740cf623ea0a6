"""Rule systems as data: one frozen :class:`RuleSystem` per rule id.

Each parameter is tied to its rule ID in ``docs/rules.md`` (``citations``), and
can be overridden per game by the journal header's ``options`` under the
names of :data:`OPTIONS`. Nothing elsewhere asks which rule system is in
force: code reads these fields.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any

from buzzer.arbiter.params import (
    NS_PER_S,
    ButtonRules,
    EarlyPress,
    ResumeMode,
    WindowAfterWrong,
)
from buzzer.errors import SvoyakError
from rules.board import RoundSpec, ThemeOrder
from rules.specials.bidding import AllInBeaten, BiddingRules
from rules.specials.params import (
    BonusRules,
    CatPrice,
    CatRules,
    FinalRules,
    FirstChooserRule,
    NobodyPositive,
    RoundChooser,
    SinglePositive,
    TieBreak,
)


class ChoiceOrder(Enum):
    """Who picks the next question."""

    #: The chooser picks any unplayed cell (C2003-2.4.3, TV-G-5).
    FREE = "free"
    #: Themes in package order, easiest first; no chooser (SPORT-1).
    SEQUENTIAL = "sequential"


@dataclass(frozen=True, slots=True)
class RuleSystem:
    """Everything the core needs to know about one rule system."""

    id: str
    title: str
    buttons: ButtonRules
    #: TV-G-2 / C2003-2.2.2: everyone's score at the start.
    start_score: int
    #: The default board when the journal names none (C2003-2.2.1, TV-G-3, SPORT-D).
    rounds: tuple[RoundSpec, ...]
    choice: ChoiceOrder = ChoiceOrder.FREE
    #: The themes' order on the board (TV-H-2001-09: alphabetical): the snapshot's
    #: ``theme_order``. The journal's theme numbers stay the package's; ``svoyak
    #: package inspect --date`` notes the order the board will show (TV-H-2001-09-D1).
    theme_order: ThemeOrder = ThemeOrder.PACKAGE
    #: The stake question / auction (C2003-2.4.6, TV-S-AUC-*); None: the system has none.
    stake: BiddingRules | None = None
    #: A.4: time to think on a stake question (C2003 10 s; TV 5 s).
    stake_answer_time_ns: int = 5 * NS_PER_S
    #: Cat in the bag (TV-S-CAT-*); None: the system has none.
    cat: CatRules | None = None
    #: The sponsor question (TV-S-SPN-1): right pays this × nominal, wrong costs 0.
    sponsor_multiplier: int | None = None
    #: The final round (C2003-2.6/2.7, TV-F-*); None: no final (SPORT-2).
    final: FinalRules | None = None
    #: The 1995 bonus contest between the rounds (TV-H-1995-03); None: there is none.
    bonus: BonusRules | None = None
    #: The shootout's prices, played in order by the tied players (C2003-2.8-D2, TV-T-1).
    shootout_prices: tuple[int, ...] = (10, 20, 30, 40, 50)
    #: Who chooses first in the game (C2003-2.2.2, TV-G-4).
    first_chooser: FirstChooserRule = FirstChooserRule.DRAW
    #: Who chooses first in later rounds (C2003-2.3.2, TV-G-4), and how ties are broken.
    round_chooser: RoundChooser = RoundChooser.LOWEST_SCORE
    round_tie_break: TieBreak = TieBreak.LOT
    #: The round clock (TV-G-6, Oct 1994 – Jan 2008); None: rounds have no time limit.
    round_clock_ns: int | None = None
    #: The warning signal this long before the round clock runs out (TV-H-1994-10:
    #: 1 min, until Sep 2001); None: no warning.
    round_warning_ns: int | None = None
    #: parameter name → the rule ID that sets it.
    citations: Mapping[str, str] = dataclasses.field(default_factory=dict)

    @property
    def has_chooser(self) -> bool:
        return self.choice is ChoiceOrder.FREE


class OptionError(SvoyakError, ValueError):
    """An unknown option name, or a value it cannot take."""


def _seconds(name: str, positive: bool = True) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise OptionError(f"option {name} must be a number of seconds, got {value!r}")
        if value != value or value in (float("inf"), float("-inf")):
            raise OptionError(f"option {name} must be a finite number of seconds")
        if value < 0 or (positive and value == 0):
            raise OptionError(f"option {name} must be {'>' if positive else '≥'} 0 s, got {value}")
        if value > 3600:
            raise OptionError(f"option {name} must be at most 3600 s, got {value}")
        return round(value * NS_PER_S)

    return parse


def _flag(name: str) -> Callable[[Any], bool]:
    def parse(value: Any) -> bool:
        if not isinstance(value, bool):
            raise OptionError(f"option {name} must be true or false, got {value!r}")
        return value

    return parse


def _choice(name: str, enum: type[Enum]) -> Callable[[Any], Enum]:
    def parse(value: Any) -> Enum:
        try:
            return enum(value)
        except ValueError:
            allowed = " | ".join(str(m.value) for m in enum)
            raise OptionError(f"option {name} must be one of {allowed}, got {value!r}") from None

    return parse


def _count(name: str, low: int, high: int) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise OptionError(f"option {name} must be a whole number {low}..{high}, got {value!r}")
        return value

    return parse


#: option name → (field of ButtonRules or RuleSystem, parser). Documented in docs/rules.md.
OPTIONS: Mapping[str, tuple[str, Callable[[Any], Any]]] = MappingProxyType(
    {
        "window_s": ("window_ns", _seconds("window_s")),
        "fs_lockout_s": ("fs_lockout_ns", _seconds("fs_lockout_s", positive=False)),
        "fs_extend": ("fs_extend", _flag("fs_extend")),
        "window_after_wrong": (
            "window_after_wrong",
            _choice("window_after_wrong", WindowAfterWrong),
        ),
        "resume_mode": ("resume_mode", _choice("resume_mode", ResumeMode)),
        "early_press": ("early_press", _choice("early_press", EarlyPress)),
        "answer_time_s": ("answer_time_ns", _seconds("answer_time_s")),
        "answers_per_question": ("answers_per_question", _count("answers_per_question", 1, 9)),
        "clarification": ("clarification", _flag("clarification")),
        "start_score": ("start_score", _count("start_score", -1_000_000, 1_000_000)),
        "final_answer_time_s": ("final.answer_time_ns", _seconds("final_answer_time_s")),
    }
)

_SYSTEM_FIELDS = frozenset({"start_score"})
#: Options of the final round's parameters (``RuleSystem.final``).
_FINAL_PREFIX = "final."


def with_options(system: RuleSystem, options: Mapping[str, Any]) -> RuleSystem:
    """``system`` with the named parameters overridden; :class:`OptionError` on a bad one."""
    button_changes: dict[str, Any] = {}
    system_changes: dict[str, Any] = {}
    final_changes: dict[str, Any] = {}
    for name, value in options.items():
        if name not in OPTIONS:
            known = ", ".join(sorted(OPTIONS))
            raise OptionError(f"unknown option {name!r}; the options are: {known}")
        field_name, parse = OPTIONS[name]
        if field_name.startswith(_FINAL_PREFIX):
            if system.final is None:
                raise OptionError(f"option {name!r}: {system.id} has no final round")
            final_changes[field_name.removeprefix(_FINAL_PREFIX)] = parse(value)
            continue
        target = system_changes if field_name in _SYSTEM_FIELDS else button_changes
        target[field_name] = parse(value)
    if final_changes:
        assert system.final is not None
        system_changes["final"] = dataclasses.replace(system.final, **final_changes)
    if button_changes:
        system_changes["buttons"] = dataclasses.replace(system.buttons, **button_changes)
    return dataclasses.replace(system, **system_changes) if system_changes else system


def _rounds(*specs: tuple[str, int, tuple[int, ...]]) -> tuple[RoundSpec, ...]:
    return tuple(RoundSpec.numbered(name, themes, prices) for name, themes, prices in specs)


_BLUE = ("Синий раунд", 6, (10, 20, 30, 40, 50))
_RED = ("Красный раунд", 6, (20, 40, 60, 80, 100))
_S = NS_PER_S

CHAMPIONSHIP_2003 = RuleSystem(
    id="championship-2003",
    title="Чемпионат 2003 (seed 000)",
    buttons=ButtonRules(
        early_press=EarlyPress.INTERRUPT,
        window_ns=5 * _S,
        window_after_wrong=WindowAfterWrong.FRESH,
        resume_mode=ResumeMode.CONTINUE,
    ),
    start_score=0,
    rounds=_rounds(_BLUE, _RED),
    stake=BiddingRules(step=10, all_in_beaten=AllInBeaten.BY_LARGER_ALL_IN),
    stake_answer_time_ns=10 * _S,
    final=FinalRules(
        themes=7,
        nobody_positive=NobodyPositive.NO_WINNER,
        single_positive=SinglePositive.WINS_WITHOUT_FINAL,
    ),
    shootout_prices=(10, 20, 30, 40, 50),
    citations={
        "stake": "C2003-2.4.6, C2003-2.4.6-D1..D6",
        "stake_answer_time_ns": "C2003-2.4.6e",
        "final": "C2003-2.6, C2003-2.7, C2003-2.7-D1..D4",
        "shootout_prices": "C2003-2.8-D2",
        "round_chooser": "C2003-2.3.2",
        "early_press": "C2003-2.4.1b",
        "window_ns": "C2003-2.4.1d",
        "window_after_wrong": "C2003-A-D2",
        "resume_mode": "C2003-A-D1",
        "answers_per_question": "C2003-2.4.4",
        "answer_time_ns": "A-G3",
        "clarification": "P10",
        "fs_lockout_ns": "P3",
        "start_score": "C2003-2.2.2",
        "rounds": "C2003-2.2.1, C2003-2.3.1",
        "choice": "C2003-2.4.3",
    },
)

TV_1994 = RuleSystem(
    id="tv-1994",
    title="«Своя игра», ТВ, 1994",
    buttons=ButtonRules(early_press=EarlyPress.HOLD, window_ns=3 * _S),
    start_score=50,
    rounds=_rounds(_BLUE, _RED),
    stake=BiddingRules(
        step=10, min_is_nominal=False, min_bid=10, opener_only=True, offer_to_zero=True
    ),
    final=FinalRules(
        themes=1,
        stake_min=10,
        stake_step=10,
        nobody_positive=NobodyPositive.CLOSEST_TO_ZERO,
        single_positive=SinglePositive.PLAYS_ALONE,
    ),
    shootout_prices=(10, 20, 30, 40, 50),
    first_chooser=FirstChooserRule.YOUNGEST,
    round_tie_break=TieBreak.YOUNGEST,
    citations={
        "stake": "TV-94-OWN",
        "first_chooser": "TV-G-4",
        "round_tie_break": "TV-G-4",
        "stake_answer_time_ns": "A.4 (TV-94: 5 s)",
        "final": "TV-F-1, TV-F-3 (TV-94: steps of 10), Part D 14 Apr 1994",
        "shootout_prices": "TV-T-1 (TV-94: 10–50)",
        "round_chooser": "TV-G-4",
        "early_press": "TV-94-A2",
        "window_ns": "TV-94-A1",
        "window_after_wrong": "P6",
        "answers_per_question": "P8",
        "answer_time_ns": "A-G3, P9",
        "clarification": "P10",
        "fs_lockout_ns": "P3",
        "start_score": "TV-G-2",
        "rounds": "TV-G-3",
        "choice": "TV-94-A3",
    },
)

TV_MODERN = RuleSystem(
    id="tv-modern",
    title="«Своя игра», ТВ, с 2008",
    buttons=ButtonRules(
        early_press=EarlyPress.FALSE_START,
        window_ns=3 * _S,
        fs_lockout_ns=2 * _S,
        fs_extend=False,
    ),
    start_score=0,
    rounds=_rounds(
        ("Первый раунд", 6, (100, 200, 300, 400, 500)),
        ("Второй раунд", 6, (200, 400, 600, 800, 1000)),
        ("Третий раунд", 6, (300, 600, 900, 1200, 1500)),
    ),
    stake=BiddingRules(
        step=100,
        min_bid=100,
        all_in_beaten=AllInBeaten.BY_LARGER_ALL_IN,
        host_picks_ties=True,  # TV-S-AUC-3: «игрока выбирает ведущий»
    ),
    cat=CatRules(price=CatPrice.MIN_OR_MAX, may_keep=False),
    sponsor_multiplier=2,
    final=FinalRules(
        themes=7,
        nobody_positive=NobodyPositive.CLOSEST_TO_ZERO,
        single_positive=SinglePositive.PLAYS_ALONE,
    ),
    shootout_prices=(100, 200, 300, 400, 500),
    first_chooser=FirstChooserRule.CENTRAL_TABLE,
    round_tie_break=TieBreak.YOUNGEST,
    theme_order=ThemeOrder.ALPHABETICAL,
    citations={
        "theme_order": "TV-H-2001-09",
        "first_chooser": "TV-G-4 (since Sep 2001: the central table)",
        "round_tie_break": "TV-G-4 (DEFAULT rounds 2–3)",
        "stake": "TV-S-AUC-1..5, TV-H-2002-04",
        "stake_answer_time_ns": "A.4 (DEFAULT 5 s)",
        "cat": "TV-S-CAT-1..3, TV-H-2007-08",
        "sponsor_multiplier": "TV-S-SPN-1",
        "final": "TV-F-1..5",
        "shootout_prices": "TV-T-1",
        "round_chooser": "TV-G-4 (DEFAULT rounds 2–3)",
        "early_press": "TV-M-A1, TV-M-A2",
        "window_ns": "TV-M-A3",
        "fs_lockout_ns": "TV-M-A-D2",
        "fs_extend": "TV-M-A-D2",
        "window_after_wrong": "TV-M-A-D3",
        "answers_per_question": "P8",
        "answer_time_ns": "A-G3",
        "clarification": "P10",
        "start_score": "TV-G-2",
        "rounds": "TV-G-3",
        "choice": "TV-G-5",
    },
)

_SPORT_ROUNDS = _rounds(("Спортивный раунд", 6, (10, 20, 30, 40, 50)))
_SPORT_CITATIONS = {
    "window_ns": "SPORT-A-D1",
    "window_after_wrong": "P6",
    "answers_per_question": "SPORT-A-D1",
    "answer_time_ns": "A-G3",
    "start_score": "SPORT-D",
    "rounds": "SPORT-D",
    "choice": "SPORT-1",
}

SPORT_FALSE_START = RuleSystem(
    id="sport-false-start",
    title="Спортивная «Своя игра», с фальстартами",
    buttons=ButtonRules(
        early_press=EarlyPress.FALSE_START,
        window_ns=5 * _S,
        fs_lockout_ns=2 * _S,
    ),
    start_score=0,
    rounds=_SPORT_ROUNDS,
    choice=ChoiceOrder.SEQUENTIAL,
    citations={
        **_SPORT_CITATIONS,
        "early_press": "SPORT-A1",
        "fs_lockout_ns": "SPORT-A1",
        "fs_extend": "TV-M-A-D2",
        "clarification": "P10",
    },
)

SPORT_CLARIFY = RuleSystem(
    id="sport-clarify",
    title="Спортивная «Своя игра», без фальстартов, с уточнением",
    buttons=ButtonRules(
        early_press=EarlyPress.INTERRUPT,
        window_ns=5 * _S,
        clarification=True,
    ),
    start_score=0,
    rounds=_SPORT_ROUNDS,
    choice=ChoiceOrder.SEQUENTIAL,
    citations={
        **_SPORT_CITATIONS,
        "early_press": "SPORT-A2, SPORT-A-D1",
        "resume_mode": "SPORT-A-D1",
        "clarification": "SPORT-A2",
        "fs_lockout_ns": "P3",
    },
)

SPORT_NO_FALSE_START = RuleSystem(
    id="sport-no-false-start",
    title="Спортивная «Своя игра», без фальстартов, без уточнения",
    buttons=ButtonRules(early_press=EarlyPress.INTERRUPT, window_ns=5 * _S),
    start_score=0,
    rounds=_SPORT_ROUNDS,
    choice=ChoiceOrder.SEQUENTIAL,
    citations={
        **_SPORT_CITATIONS,
        "early_press": "SPORT-A3, SPORT-A-D1",
        "resume_mode": "SPORT-A-D1",
        "clarification": "SPORT-A3",
        "fs_lockout_ns": "P3",
    },
)

JEOPARDY = RuleSystem(
    id="jeopardy",
    title="Jeopardy!-style lockout",
    buttons=ButtonRules(
        early_press=EarlyPress.FALSE_START,
        window_ns=5 * _S,
        fs_lockout_ns=_S // 4,
    ),
    start_score=0,
    rounds=_rounds(
        ("Jeopardy!", 6, (200, 400, 600, 800, 1000)),
        ("Double Jeopardy!", 6, (400, 800, 1200, 1600, 2000)),
    ),
    citations={
        "early_press": "docs/journal-contract.md jeopardy",
        "fs_lockout_ns": "docs/journal-contract.md jeopardy (0.25 s)",
        "window_ns": "docs/journal-contract.md jeopardy (5 s)",
        "window_after_wrong": "P6",
        "answers_per_question": "P8",
        "answer_time_ns": "A-G3",
        "start_score": "TV-G-2",
        "choice": "TV-G-5",
    },
)

#: Every rule system by its journal id (docs/journal-contract.md header ``rules``).
RULE_SYSTEMS: Mapping[str, RuleSystem] = MappingProxyType(
    {
        s.id: s
        for s in (
            CHAMPIONSHIP_2003,
            TV_1994,
            TV_MODERN,
            SPORT_FALSE_START,
            SPORT_CLARIFY,
            SPORT_NO_FALSE_START,
            JEOPARDY,
        )
    }
)


def find_rules(rules_id: str) -> RuleSystem:
    """The rule system named ``rules_id``; :class:`KeyError` with the known ids otherwise."""
    try:
        return RULE_SYSTEMS[rules_id]
    except KeyError:
        known = ", ".join(RULE_SYSTEMS)
        raise KeyError(f"unknown rules id {rules_id!r}; known: {known}") from None
