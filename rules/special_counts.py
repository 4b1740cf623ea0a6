"""How many special questions a TV game of a given date had (TV-S-0b, TV-H-2003-01).

The players never know where the special questions are (TV-S-0a), but the
editors put a fixed number of each kind in every round, and the number
changed with the eras. A package that is to replay a game "as on TV on that
date" should hold the same. This module says what the era had and what a
package's main rounds hold that does not fit; it decides nothing in a game
(the package's cells are played as they are), it is a check for the host
before the game (``svoyak package inspect --date``).

Kinds are :class:`rules.packages.model.QuestionKind` values: ``stake`` (the
stake question, called the auction from Sep 2001), ``cat``, ``sponsor``.

The words are the catalogue's (``package.era.*`` in :mod:`buzzer.words`), in
the language asked for: the host reads them in the table's ``--lang``. A
count is said with its plural form (Russian has three: 1 кот, 2 кота, 5
котов), never with an «(s)». The default is English, the language of the
JSON output that scripts read.
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from buzzer.words import table

STAKE = "stake"
CAT = "cat"
SPONSOR = "sponsor"
SPECIAL_KINDS = (STAKE, CAT, SPONSOR)

#: The language of the texts when none is asked for (the JSON output's).
TEXT_LANGUAGE = "en"


def plural_form(n: int, lang: str) -> str:
    """The catalogue's plural form of ``n``: ``one``, ``few`` or ``many`` (English has
    no ``few``: its ``few`` texts are its ``many``)."""
    if lang == "ru":
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    return "one" if n == 1 else "many"


def counted(kind: str, n: int, lang: str = TEXT_LANGUAGE) -> str:
    """``n`` questions of ``kind`` in words: «2 кота в мешке», "1 stake question"."""
    return table("package", lang)[f"era.{kind}.{plural_form(n, lang)}"].format(n=n)


def _say(name: str, lang: str, **fields: object) -> str:
    return table("package", lang)[f"era.{name}"].format(**fields)


def _counts(**kinds: int) -> Mapping[str, int]:
    return MappingProxyType(dict(kinds))


@dataclass(frozen=True, slots=True)
class EraCounts:
    """The special questions of one period (TV-S-0b's table, Part D)."""

    rule_id: str
    first_day: datetime.date
    #: The last day of the period (None: still so).
    last_day: datetime.date | None
    #: Exactly these per main round, in round order (None: see ``totals``).
    per_round: tuple[Mapping[str, int], ...] | None = None
    #: Exactly these in the whole game (TV-H-2003-01), with ``each_round`` in every round.
    totals: Mapping[str, int] = field(default_factory=lambda: _counts())
    each_round: tuple[str, ...] = ()

    def covers(self, day: datetime.date) -> bool:
        return self.first_day <= day and (self.last_day is None or day <= self.last_day)

    def describe(self, lang: str = TEXT_LANGUAGE) -> str:
        if self.per_round is not None:
            rounds = "; ".join(
                _say("round", lang, n=n, listing=_listing(counts, lang))
                for n, counts in enumerate(self.per_round, 1)
            )
            return f"{self.rule_id}: {rounds}"
        every = _say("and", lang).join(_say(f"{k}.name", lang) for k in self.each_round)
        listing = _listing(self.totals, lang)
        return _say("totals", lang, rule=self.rule_id, listing=listing, every=every)


#: TV-S-0b: 1994 – Aug 1996, Sep 1996 – 2000, Sep 2001 – 2002; TV-H-2003-01 since Jan 2003.
#: Jan – mid-Sep 2001 is not in the table: no check for those dates.
ERA_COUNTS: tuple[EraCounts, ...] = (
    EraCounts(
        "TV-S-0b (1994 – Aug 1996)",
        datetime.date(1994, 4, 14),  # the first broadcast (TV-94): no counts before it
        datetime.date(1996, 8, 31),
        per_round=(_counts(stake=1), _counts(stake=2)),
    ),
    EraCounts(
        "TV-S-0b (Sep 1996 – 2000)",
        datetime.date(1996, 9, 1),
        datetime.date(2000, 12, 31),
        per_round=(_counts(cat=2, stake=1), _counts(cat=1, stake=2)),
    ),
    EraCounts(
        "TV-S-0b (Sep 2001 – 2002)",
        datetime.date(2001, 9, 16),
        datetime.date(2002, 12, 31),
        per_round=(_counts(cat=3), _counts(cat=2, stake=2), _counts(stake=3)),
    ),
    EraCounts(
        "TV-H-2003-01",
        datetime.date(2003, 1, 1),
        None,
        totals=_counts(cat=5, stake=5),
        each_round=(CAT, STAKE),
    ),
)


def era_counts(day: datetime.date) -> EraCounts | None:
    """The period ``day`` falls in, or None when the sources give no counts for it."""
    return next((era for era in ERA_COUNTS if era.covers(day)), None)


def count_problems(
    day: datetime.date,
    rounds: Sequence[Mapping[str, int]],
    *,
    sponsor_rounds: Sequence[int] = (),
    lang: str = TEXT_LANGUAGE,
) -> list[str]:
    """What in ``rounds`` (each main round's special questions by kind) does not fit ``day``.

    ``sponsor_rounds``: the rounds (1-based) that have one sponsor question in
    that era (TV-S-0b: rounds 1 and 3 while the sponsor question exists);
    the caller reads them off the era's rule system. Empty: no problems.
    """
    era = era_counts(day)
    if era is None:
        return []
    return counts_problems(era, rounds, sponsor_rounds=sponsor_rounds, lang=lang)


#: The counts a rule system fixes whatever the date. C2003-2.4.5 (seed 000, the
#: 2003 championship's regulations): one stake question in the Blue round, two
#: in the Red; the championship has no cat and no sponsor question, so none of
#: those either. The TV systems' counts change with the date (``--date``).
RULES_COUNTS: Mapping[str, EraCounts] = MappingProxyType(
    {
        "championship-2003": EraCounts(
            "C2003-2.4.5",
            datetime.date.min,
            None,
            per_round=(_counts(stake=1), _counts(stake=2)),
        ),
    }
)


def rules_counts(rules_id: str) -> EraCounts | None:
    """The special-question counts rule system ``rules_id`` fixes, or None when it fixes none."""
    return RULES_COUNTS.get(rules_id)


def counts_problems(
    era: EraCounts,
    rounds: Sequence[Mapping[str, int]],
    *,
    sponsor_rounds: Sequence[int] = (),
    lang: str = TEXT_LANGUAGE,
) -> list[str]:
    """What in ``rounds`` does not fit ``era``'s counts (a period's or a rule system's)."""
    problems: list[str] = []
    rule = era.rule_id
    if era.per_round is not None:
        if len(rounds) != len(era.per_round):
            want_rounds = len(era.per_round)
            problems.append(
                _say("problem.rounds", lang, rule=rule, want=want_rounds, have=len(rounds))
            )
        for number, (want, have) in enumerate(zip(era.per_round, rounds, strict=False), 1):
            for kind in (STAKE, CAT):
                if want.get(kind, 0) != have.get(kind, 0):
                    had = counted(kind, have.get(kind, 0), lang)
                    problems.append(
                        _say(
                            "problem.round",
                            lang,
                            n=number,
                            have=had,
                            rule=rule,
                            want=want.get(kind, 0),
                        )
                    )
    else:
        totals: Counter[str] = Counter()
        for have in rounds:
            totals.update({k: v for k, v in have.items() if k != SPONSOR})
        for kind, total in era.totals.items():
            if totals[kind] != total:
                had = counted(kind, totals[kind], lang)
                problems.append(_say("problem.game", lang, have=had, rule=rule, want=total))
        for number, have in enumerate(rounds, 1):
            for kind in era.each_round:
                if not have.get(kind, 0):
                    none = _say(f"{kind}.none", lang)
                    problems.append(
                        _say("problem.round_none", lang, n=number, none=none, rule=rule)
                    )
    # The sponsor question is TV-S-0b's (rounds 1 and 3 while it exists); a rule
    # system that fixes its counts names itself as the source.
    sponsor_source = "TV-S-0b" if rule.startswith("TV-") else rule
    for number, have in enumerate(rounds, 1):
        want_sponsor = 1 if number in sponsor_rounds else 0
        if have.get(SPONSOR, 0) != want_sponsor:
            had = counted(SPONSOR, have.get(SPONSOR, 0), lang)
            if sponsor_source == "TV-S-0b":
                said = _say(
                    "problem.sponsor_era", lang, n=number, have=had, want=want_sponsor,
                    source=sponsor_source,
                )  # fmt: skip
            else:
                said = _say(
                    "problem.round", lang, n=number, have=had, rule=sponsor_source,
                    want=want_sponsor,
                )  # fmt: skip
            problems.append(said)
    return problems


def _listing(counts: Mapping[str, int], lang: str = TEXT_LANGUAGE) -> str:
    return ", ".join(counted(k, n, lang) for k, n in counts.items()) or _say("nothing", lang)
