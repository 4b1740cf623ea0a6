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
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

STAKE = "stake"
CAT = "cat"
SPONSOR = "sponsor"
SPECIAL_KINDS = (STAKE, CAT, SPONSOR)

#: The era's words for the kinds, for the host's report.
_NAMES = {STAKE: "stake question(s)", CAT: "cat(s) in the bag", SPONSOR: "sponsor question(s)"}


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

    def describe(self) -> str:
        if self.per_round is not None:
            rounds = "; ".join(
                f"round {n}: " + _listing(counts) for n, counts in enumerate(self.per_round, 1)
            )
            return f"{self.rule_id}: {rounds}"
        every = " and ".join(_NAMES[k] for k in self.each_round)
        return (
            f"{self.rule_id}: {_listing(self.totals)} in the game, at least one {every} per round"
        )


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
) -> list[str]:
    """What in ``rounds`` (each main round's special questions by kind) does not fit ``day``.

    ``sponsor_rounds``: the rounds (1-based) that have one sponsor question in
    that era (TV-S-0b: rounds 1 and 3 while the sponsor question exists);
    the caller reads them off the era's rule system. Empty: no problems.
    """
    era = era_counts(day)
    if era is None:
        return []
    return counts_problems(era, rounds, sponsor_rounds=sponsor_rounds)


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
) -> list[str]:
    """What in ``rounds`` does not fit ``era``'s counts (a period's or a rule system's)."""
    problems: list[str] = []
    if era.per_round is not None:
        if len(rounds) != len(era.per_round):
            problems.append(
                f"{era.rule_id} has {len(era.per_round)} main rounds; the package has {len(rounds)}"
            )
        for number, (want, have) in enumerate(zip(era.per_round, rounds, strict=False), 1):
            for kind in (STAKE, CAT):
                if want.get(kind, 0) != have.get(kind, 0):
                    problems.append(
                        f"round {number}: {have.get(kind, 0)} {_NAMES[kind]}, "
                        f"{era.rule_id} had {want.get(kind, 0)}"
                    )
    else:
        totals: Counter[str] = Counter()
        for have in rounds:
            totals.update({k: v for k, v in have.items() if k != SPONSOR})
        for kind, total in era.totals.items():
            if totals[kind] != total:
                problems.append(
                    f"the game: {totals[kind]} {_NAMES[kind]}, {era.rule_id} had {total}"
                )
        for number, have in enumerate(rounds, 1):
            for kind in era.each_round:
                if not have.get(kind, 0):
                    problems.append(
                        f"round {number}: no {_NAMES[kind]}; {era.rule_id} had at least one"
                    )
    # The sponsor question is TV-S-0b's (rounds 1 and 3 while it exists); a rule
    # system that fixes its counts names itself as the source.
    sponsor_source = "TV-S-0b" if era.rule_id.startswith("TV-") else era.rule_id
    for number, have in enumerate(rounds, 1):
        want_sponsor = 1 if number in sponsor_rounds else 0
        if have.get(SPONSOR, 0) != want_sponsor:
            problems.append(
                f"round {number}: {have.get(SPONSOR, 0)} {_NAMES[SPONSOR]}, "
                + (
                    f"the era had {want_sponsor} ({sponsor_source})"
                    if sponsor_source == "TV-S-0b"
                    else f"{sponsor_source} had {want_sponsor}"
                )
            )
    return problems


def _listing(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {_NAMES[k]}" for k, n in counts.items()) or "none"
