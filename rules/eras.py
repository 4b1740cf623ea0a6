"""The TV rule eras (docs/rules.md Part D) as data, and the rule system in force on a day.

docs/rules.md B.2: "An engine configured with a date applies TV-94 plus every
Part D change dated on or before that date." This module is that sentence:

* :data:`ERA_CHANGES` is Part D, one :class:`EraChange` per row, in date
  order. Each row says *what* changed as a flat, typed table of field
  overrides (:class:`Overrides`: ``"stake.all_in_beaten": AllInBeaten.NEVER``),
  not as code, so that the table can be read against docs/rules.md line by line,
  printed, and checked by tests without running anything.
* :func:`tv_rules_for` starts from :data:`rules.profiles.TV_1994` and applies
  every row dated on or before the day, in order. Later rows win.
* What a row says that no :class:`~rules.profiles.RuleSystem` field can hold
  (the 1995 bonus contest, buying out by button, picture cats, special
  question counts …) is kept in the row's ``not_expressed`` text, so the gap
  is visible in the data rather than silently dropped.

Dates: Part D gives most changes as a month only; docs/rules.md Part D's DEFAULT
is that such a change takes effect on the 1st of that month. The two exact
days (14 Apr 1994, 16 Sep 2001) are kept exact.

Pure: no I/O, no clock, no randomness; the same day always gives an equal system.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from buzzer.arbiter.params import NS_PER_S, EarlyPress
from rules.board import RoundSpec, ThemeOrder
from rules.profiles import TV_1994, RuleSystem
from rules.specials.bidding import AllInBeaten
from rules.specials.params import BonusRules, CatPrice, CatRules, FirstChooserRule

#: The first broadcast under the TV-94 rules (Part D, 14 Apr 1994). There are
#: no TV rules before it.
TV_FIRST_DAY = datetime.date(1994, 4, 14)

# ``Overrides`` uses the functional TypedDict form because its keys are dotted
# paths ("stake.step"), which the class form cannot spell. Each key is a path
# of dataclass field names from RuleSystem down; its value type is the field's
# type, so mypy checks every value in ERA_CHANGES. Only the paths some era
# actually changes are listed: adding one is adding a line here.
Overrides = TypedDict(
    "Overrides",
    {
        # TV-G-2: everyone's score at the start.
        "start_score": int,
        # TV-G-3: the main rounds and their prices.
        "rounds": tuple[RoundSpec, ...],
        # A.2 P1–P3: what a press during the reading does; the false-start lockout.
        "buttons.early_press": EarlyPress,
        "buttons.fs_lockout_ns": int,
        # TV-94-OWN, TV-H-1995-01, TV-H-1996-09, TV-H-1998-08, TV-H-2002-04, TV-S-AUC-1.
        "stake.step": int,
        "stake.min_is_nominal": bool,
        "stake.min_bid": int,
        "stake.all_in_beaten": AllInBeaten,
        "stake.opener_only": bool,
        "stake.offer_to_zero": bool,
        # TV-S-AUC-3: the host picks the next bidder among equal scores.
        "stake.host_picks_ties": bool,
        # TV-H-1995-01: bought by pressing the button within a window; None: by turns.
        "stake.buy_window_ns": int | None,
        # TV-S-CAT-1/2/4: None while the era has no cats.
        "cat": CatRules | None,
        "cat.price": CatPrice,
        "cat.may_keep": bool,
        "cat.value_step": int | None,
        # TV-H-1995-03: the bonus contest after the Blue round, Mar – Aug 1995.
        "bonus": BonusRules | None,
        # TV-S-SPN-1/2: None while the era has no sponsor question.
        "sponsor_multiplier": int | None,
        # TV-F-2/3: themes offered, stake minimum and step.
        "final.themes": int,
        "final.stake_min": int,
        "final.stake_step": int,
        # TV-T-1: the shootout's prices.
        "shootout_prices": tuple[int, ...],
        # TV-G-6: the round clock; None: no time limit.
        "round_clock_ns": int | None,
        # TV-H-1994-10: the warning signal before the round clock runs out; None: none.
        "round_warning_ns": int | None,
        # TV-G-4: who chooses the first question of the game.
        "first_chooser": FirstChooserRule,
        # TV-H-2001-09: «темы в алфавитном порядке» on the board.
        "theme_order": ThemeOrder,
    },
    total=False,
)

#: Every path :class:`Overrides` allows, for runtime checks of the table.
OVERRIDE_PATHS: frozenset[str] = frozenset(Overrides.__annotations__)

_RULE_ID = re.compile(r"TV-94|TV-H-\d{4}-\d{2}")


def _no_overrides() -> Overrides:
    return {}


@dataclass(frozen=True, slots=True)
class EraChange:
    """One row of docs/rules.md Part D.

    ``overrides`` is what the row changes in a :class:`RuleSystem`;
    ``not_expressed`` is what it says that no field can hold (empty when the
    row is fully expressed). ``ends`` is the day the row stopped being in
    force as a whole (it lapsed, or a later row replaced everything it set);
    :func:`describe_era` leaves it out from that day on.
    """

    date: datetime.date
    rule_id: str
    description: str
    overrides: Overrides = dataclasses.field(default_factory=_no_overrides)
    not_expressed: str = ""
    #: path → the rule ID behind the value when Part D does not state it
    #: (a DEFAULT of docs/rules.md); it goes into the composed system's citations.
    sources: Mapping[str, str] = dataclasses.field(default_factory=dict)
    ends: datetime.date | None = None

    def __post_init__(self) -> None:
        if not _RULE_ID.fullmatch(self.rule_id):
            raise ValueError(f"{self.rule_id!r} is not a Part D rule ID (TV-94 or TV-H-YYYY-MM)")
        unknown = (set(self.overrides) | set(self.sources)) - OVERRIDE_PATHS
        if unknown:
            raise ValueError(f"{self.rule_id}: unknown override path(s) {sorted(unknown)}")
        if not set(self.sources) <= set(self.overrides):
            raise ValueError(f"{self.rule_id}: a source names a path the row does not override")
        if self.ends is not None and self.ends <= self.date:
            raise ValueError(f"{self.rule_id}: it cannot end ({self.ends}) before it starts")
        if not self.overrides and not self.not_expressed:
            raise ValueError(f"{self.rule_id}: a row with no overrides must say why")

    @property
    def expressed(self) -> bool:
        """Does the row change any field at all?"""
        return bool(self.overrides)


_S = NS_PER_S
_TEN_MINUTES = 600 * _S

#: TV-G-3, TV-H-2001-09: three main rounds of 6 themes from Sep 2001.
_ROUNDS_2001 = (
    RoundSpec.numbered("Первый раунд", 6, (100, 200, 300, 400, 500)),
    RoundSpec.numbered("Второй раунд", 6, (200, 400, 600, 800, 1000)),
    RoundSpec.numbered("Третий раунд", 6, (300, 600, 900, 1200, 1500)),
)

_COUNTS = "special-question counts per round (TV-S-0b)"

#: docs/rules.md Part D, in date order. Row 0 is the base system itself.
ERA_CHANGES: tuple[EraChange, ...] = (
    EraChange(
        datetime.date(1994, 4, 14),
        "TV-94",
        "First TV rules: start at 50; Blue 10–50, Red 20–100; no time limit; early presses "
        "hold the right, answer after the reading, 3 s window; stake question for the opener "
        "only, offer to reach 0 at a negative score; final of 1 theme, stakes 10.. in steps "
        "of 10; shootout 10–50.",
        not_expressed=(
            f"{_COUNTS}: 1 stake question in Blue, 2 in Red; the youngest player chooses "
            "first in the Blue round and breaks ties for the Red round (TV-G-4)."
        ),
    ),
    EraChange(
        datetime.date(1994, 10, 1),
        "TV-H-1994-10",
        "Round limit 10 min: a gong at 10 min ends the round (TV-G-6).",
        overrides={"round_clock_ns": _TEN_MINUTES, "round_warning_ns": 60 * _S},
        sources={"round_clock_ns": "TV-G-6", "round_warning_ns": "TV-H-1994-10"},
        ends=datetime.date(2008, 1, 1),
    ),
    EraChange(
        datetime.date(1995, 1, 1),
        "TV-H-1995-01",
        "The others may buy the stake question; an all-in is beaten by any larger sum and "
        "its author leaves. The TV-94 offer to reach 0 at a negative score stays.",
        overrides={
            "stake.opener_only": False,
            "stake.all_in_beaten": AllInBeaten.BY_ANY_LARGER,
            "stake.buy_window_ns": 3 * _S,
        },
        # TV-94-OWN's offer to reach 0 is not ended by this row: offer_to_zero stays
        # True until TV-H-1996-09, and an opener at a negative score may stake what
        # brings them to 0 (or the nominal) before the others may buy the question.
        sources={"stake.buy_window_ns": "TV-H-1995-01 DEFAULT"},
        ends=datetime.date(1996, 9, 1),
    ),
    EraChange(
        datetime.date(1995, 3, 1),
        "TV-H-1995-03",
        "Five-question bonus contest after the Blue round (abolished Aug 1995).",
        overrides={"bonus": BonusRules(after_round=1, questions=5)},
        sources={"bonus": "TV-H-1995-03 DEFAULT (2nd, then 3rd; stops at the first wrong)"},
        not_expressed=(
            "The prize (a trip) is outside the game: the journal records it as won, with no points."
        ),
        ends=datetime.date(1995, 8, 1),
    ),
    EraChange(
        datetime.date(1996, 9, 1),
        "TV-H-1996-09",
        "Start at 0. Bidding by turns, ends after two passes; an all-in cannot be beaten; a "
        "score ≤ 0 plays for the nominal. Cats introduced (may be kept). Final stakes in "
        "steps of 1.",
        overrides={
            "start_score": 0,
            # Restated: bidding by turns among all three (no longer by button).
            "stake.opener_only": False,
            "stake.buy_window_ns": None,
            "stake.all_in_beaten": AllInBeaten.NEVER,
            # A score ≤ 0 plays for the nominal: with min 10 the bidding forces the
            # nominal on any score below 10; the offer to reach 0 is gone.
            "stake.offer_to_zero": False,
            # By turns again, in TV-S-AUC-3's order: «игрока выбирает ведущий»
            # among equal scores (bidder_pick; the lot's order until the host picks).
            "stake.host_picks_ties": True,
            "cat": CatRules(price=CatPrice.FIXED, may_keep=True),
            "final.stake_min": 1,
            "final.stake_step": 1,
        },
        sources={
            "start_score": "TV-G-2",
            "cat": "TV-S-CAT-1, TV-S-CAT-4",
            "stake.host_picks_ties": "TV-S-AUC-3",
            "final.stake_min": "TV-F-3",
            "final.stake_step": "TV-F-3",
        },
        not_expressed=(
            f"{_COUNTS}: 2 cats + 1 stake question in Blue, 1 cat + 2 stake questions in "
            "Red. The bidding order (lower score next; leader next if the opener is "
            "vice-leader) is the engine's TV-S-AUC-3 order, not a field."
        ),
    ),
    EraChange(
        datetime.date(1997, 3, 1),
        "TV-H-1997-03",
        "A cat can no longer be kept.",
        overrides={"cat.may_keep": False},
        sources={"cat.may_keep": "TV-S-CAT-1"},
    ),
    EraChange(
        datetime.date(1998, 8, 1),
        "TV-H-1998-08",
        "Presses only after the reading ends (a lamp; an early press is a false start, "
        "button blocked 2.0 s). An all-in is beaten only by a larger all-in (CONFLICT: "
        "'Специальные вопросы' says 1999; the changelog date is used).",
        overrides={
            "buttons.early_press": EarlyPress.FALSE_START,
            "buttons.fs_lockout_ns": 2 * _S,
            "stake.all_in_beaten": AllInBeaten.BY_LARGER_ALL_IN,
        },
        sources={
            "buttons.early_press": "TV-M-A1, TV-M-A2, TV-M-A-D4",
            "buttons.fs_lockout_ns": "TV-M-A-D2, TV-M-A-D4",
        },
    ),
    EraChange(
        datetime.date(2000, 2, 1),
        "TV-H-2000-02",
        "Every cat is a picture question.",
        not_expressed=(
            "Picture cats (TV-S-CAT-6) are question content: the package's media, not a "
            "rule parameter."
        ),
    ),
    EraChange(
        datetime.date(2001, 9, 16),
        "TV-H-2001-09",
        "3 main rounds (100–500 / 200–1000 / 300–1500); the stake question becomes the "
        "auction (bids from 100 in steps of 100); final: 7 themes removed in turns; "
        "shootout 100–500; the one-minute warning removed; the themes on the board in "
        "alphabetical order.",
        overrides={
            "rounds": _ROUNDS_2001,
            "stake.step": 100,
            "stake.min_bid": 100,
            "final.themes": 7,
            "shootout_prices": (100, 200, 300, 400, 500),
            "first_chooser": FirstChooserRule.CENTRAL_TABLE,
            "round_warning_ns": None,
            "cat.value_step": 50,
            "theme_order": ThemeOrder.ALPHABETICAL,
        },
        sources={
            "theme_order": "TV-H-2001-09",
            "round_warning_ns": "TV-H-2001-09",
            "cat.value_step": "TV-S-CAT-4",
            "first_chooser": "TV-G-4",
            "rounds": "TV-G-3",
            "stake.step": "TV-S-AUC-1",
            "stake.min_bid": "TV-H-1996-09 DEFAULT",
            "final.themes": "TV-F-2",
            "shootout_prices": "TV-T-1",
        },
        not_expressed=(
            f"{_COUNTS}: round 1 has 3 cats, round 2 has 2 cats + 2 auctions, round 3 has "
            "3 auctions. The central-table player (grandmaster) chooses first in round 1 "
            "(TV-G-4). The renaming "
            "(stake question → auction) is wording only."
        ),
    ),
    EraChange(
        datetime.date(2002, 4, 1),
        "TV-H-2002-04",
        "No auction bids below the nominal (CONFLICT: 'Специальные вопросы' says March "
        "2002; April is used).",
        overrides={"stake.min_is_nominal": True},
        sources={"stake.min_is_nominal": "TV-S-AUC-1, TV-S-AUC-2"},
    ),
    EraChange(
        datetime.date(2003, 1, 1),
        "TV-H-2003-01",
        "5 cats + 5 auctions per game, ≥ 1 of each per round, distribution unknown; cat "
        "values multiples of 100.",
        overrides={"cat.value_step": 100},
        sources={"cat.value_step": "TV-S-CAT-4"},
        not_expressed=(
            f"{_COUNTS}: 5 cats + 5 auctions per game with at least one of each per round "
            "(checked against a package by `svoyak package inspect --date`)."
        ),
    ),
    EraChange(
        datetime.date(2004, 8, 1),
        "TV-H-2004-08",
        "Sponsor question introduced: the opener answers, +2 × nominal or 0.",
        overrides={"sponsor_multiplier": 2},
        sources={"sponsor_multiplier": "TV-S-SPN-1"},
        not_expressed=f"{_COUNTS}: exactly once in round 1 and once in round 3 (TV-S-0b).",
        ends=datetime.date(2005, 1, 1),
    ),
    EraChange(
        datetime.date(2005, 1, 1),
        "TV-H-2005-01",
        "Sponsor question suspended. Cat theme and value shown before the hand-over, for 6 "
        "games only.",
        overrides={"sponsor_multiplier": None},
        sources={"sponsor_multiplier": "TV-S-SPN-2"},
        not_expressed=(
            "The cat's theme and value shown before the hand-over (TV-S-CAT-4), for about 6 "
            "games: undated end, and announce-before is package data (CatAnnounce.BEFORE), "
            "not a RuleSystem field."
        ),
        ends=datetime.date(2006, 10, 1),
    ),
    EraChange(
        datetime.date(2006, 10, 1),
        "TV-H-2006-10",
        "Sponsor question reinstated, same rules.",
        overrides={"sponsor_multiplier": 2},
        sources={"sponsor_multiplier": "TV-S-SPN-1, TV-S-SPN-2"},
        not_expressed=f"{_COUNTS}: exactly once in round 1 and once in round 3 (TV-S-0b).",
    ),
    EraChange(
        datetime.date(2007, 8, 1),
        "TV-H-2007-08",
        "The cat receiver chooses the round's minimum or maximum value (CONFLICT: "
        "'Специальные вопросы' says \"first half of 2007\"; August is used).",
        overrides={"cat.price": CatPrice.MIN_OR_MAX, "cat.value_step": None},
        sources={"cat.price": "TV-S-CAT-2", "cat.value_step": "TV-S-CAT-2"},
    ),
    EraChange(
        datetime.date(2008, 1, 1),
        "TV-H-2008-01",
        "Round time limit abolished (TV-M).",
        overrides={"round_clock_ns": None},
        sources={"round_clock_ns": "TV-G-6"},
    ),
)

#: Every Part D rule ID, in table order.
ERA_IDS: tuple[str, ...] = tuple(c.rule_id for c in ERA_CHANGES)

if [c.date for c in ERA_CHANGES] != sorted(c.date for c in ERA_CHANGES):  # pragma: no cover
    raise AssertionError("ERA_CHANGES must be in date order: later rows override earlier ones")
if ERA_CHANGES[0].date != TV_FIRST_DAY:  # pragma: no cover
    raise AssertionError("ERA_CHANGES must start with the TV-94 base row")


def _as_day(day: datetime.date) -> datetime.date:
    """``day`` as a plain date, refusing days before the TV rules existed."""
    if isinstance(day, datetime.datetime):  # a datetime is a date; compare dates only
        day = day.date()
    if not isinstance(day, datetime.date):
        raise TypeError(f"a datetime.date is required, got {type(day).__name__}")
    if day < TV_FIRST_DAY:
        raise ValueError(
            f"no TV rules on {day.isoformat()}: «Своя игра» was first broadcast under the "
            f"TV-94 rules on {TV_FIRST_DAY.isoformat()} (docs/rules.md Part D)"
        )
    return day


def _replace_path(obj: Any, path: list[str], value: object, where: str) -> Any:
    """``obj`` with the field at ``path`` set to ``value``, rebuilding each frozen level."""
    head, rest = path[0], path[1:]
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        raise ValueError(f"{where}: cannot set {head!r} on {obj!r}")
    if head not in {f.name for f in dataclasses.fields(obj)}:
        raise ValueError(f"{where}: {type(obj).__name__} has no field {head!r}")
    if rest:
        inner = getattr(obj, head)
        if inner is None:
            raise ValueError(f"{where}: {head} is None on that day; an earlier row must set it")
        value = _replace_path(inner, rest, value, where)
    return dataclasses.replace(obj, **{head: value})


def _cite(citations: dict[str, str], path: str, rule_id: str, source: str | None) -> None:
    """Record ``text`` as the source of ``path``.

    Button fields are cited by their own name, as in rules.profiles (and as
    rules.describe reads them). A nested field is cited by its dotted path,
    and its parent's entry collects every rule that shaped it. A field set
    whole forgets the citations of its former parts.
    """
    text = f"{rule_id} ({source})" if source else rule_id
    parts = path.split(".")
    if parts[0] == "buttons":
        citations[parts[1]] = text
        return
    if len(parts) == 1:
        for key in [k for k in citations if k.startswith(path + ".")]:
            del citations[key]
        citations[path] = text
        return
    citations[path] = text
    parent = citations.get(parts[0], "")
    if rule_id not in parent.split(", "):
        citations[parts[0]] = f"{parent}, {rule_id}" if parent else rule_id


def apply_change(system: RuleSystem, change: EraChange) -> RuleSystem:
    """``system`` with ``change``'s overrides applied and cited (id and title unchanged)."""
    citations = dict(system.citations)
    result: Any = system
    for path, value in change.overrides.items():
        result = _replace_path(result, path.split("."), value, f"{change.rule_id} {path}")
        _cite(citations, path, change.rule_id, change.sources.get(path))
    if not isinstance(result, RuleSystem):  # pragma: no cover - _replace_path keeps the type
        raise TypeError("an override replaced the rule system itself")
    return dataclasses.replace(result, citations=citations)


def changes_until(day: datetime.date) -> tuple[EraChange, ...]:
    """The Part D rows that have taken effect on ``day`` (dated on or before it), in order."""
    day = _as_day(day)
    return tuple(c for c in ERA_CHANGES if c.date <= day)


def era_id(day: datetime.date) -> str:
    """The journal id of the TV rules on ``day``: ``tv@YYYY-MM-DD``."""
    return f"tv@{_as_day(day).isoformat()}"


def tv_rules_for(day: datetime.date) -> RuleSystem:
    """The TV rules in force on ``day``: TV-94 plus every Part D change up to ``day``.

    ``ValueError`` for a day before 14 Apr 1994. A datetime counts as its date.
    Each citation names the Part D row that last set the field (plus the
    docs/rules.md DEFAULT behind the value, where there is one).
    """
    day = _as_day(day)
    system = TV_1994
    for change in changes_until(day):
        if change.ends is not None and day >= change.ends:
            # A row is in force until its ``ends`` day: the 1995 bonus contest
            # lapsed in Aug 1995 with no row of its own to undo it; the other
            # ended rows were replaced whole by later rows, which set the same.
            continue
        system = apply_change(system, change)
    return dataclasses.replace(
        system,
        id=era_id(day),
        title=f"«Своя игра», ТВ, правила на {day:%d.%m.%Y}",
    )


def describe_era(day: datetime.date) -> list[str]:
    """The Part D rule IDs in force on ``day``, oldest first.

    A row is in force from its date until its ``ends`` day: the 1995 bonus
    contest lapsed in Aug 1995, and rows whose every override a later row
    replaced (the round clock, buying out by button, the first sponsor
    question and its suspension) drop out when replaced. A row that only
    partly survives (TV-H-1996-09: start at 0 stays, the unbeatable all-in
    went in 1998) stays listed; :func:`tv_rules_for` is the exact state.
    """
    day = _as_day(day)
    return [c.rule_id for c in changes_until(day) if c.ends is None or day < c.ends]


_ERA_ID = re.compile(r"tv@(\d{4})-(\d{2})-(\d{2})")


def find_era_rules(rules_id: str) -> RuleSystem:
    """The system named ``tv@YYYY-MM-DD`` (as :func:`era_id` writes it).

    ``KeyError`` for a name of another form, ``ValueError`` for an impossible
    date or one before the TV rules.
    """
    match = _ERA_ID.fullmatch(rules_id)
    if match is None:
        raise KeyError(f"{rules_id!r} is not a TV era id; expected tv@YYYY-MM-DD")
    year, month, day = (int(g) for g in match.groups())
    try:
        date = datetime.date(year, month, day)
    except ValueError as exc:
        raise ValueError(f"{rules_id!r}: {exc}") from None
    return tv_rules_for(date)
