"""docs/rules.md Part D (rule history), one test per row, named by its rule ID.

Each row test composes the TV rules the day before a change and on the
change day (``rules.eras.tv_rules_for``) and checks that exactly the fields
the row's text names have moved, to the values the text states. Month-only
dates take effect on the 1st (Part D DEFAULT). Expected values come from
docs/rules.md, never from the code's own output. Seats: A = 1, B = 2, C = 3.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from buzzer.arbiter.params import NS_PER_S, EarlyPress
from rules.eras import (
    ERA_CHANGES,
    ERA_IDS,
    OVERRIDE_PATHS,
    TV_FIRST_DAY,
    EraChange,
    apply_change,
    describe_era,
    era_id,
    find_era_rules,
    tv_rules_for,
)
from rules.profiles import TV_1994, TV_MODERN, RuleSystem
from rules.specials.bidding import AllInBeaten, Bidding, BiddingRules, BidError, bidding_order
from rules.specials.params import BonusRules, CatPrice, CatRules, FirstChooserRule
from tests.support.lines import replay_cli
from tests.support.paths import REPO

A, B, C = 1, 2, 3
D = datetime.date
TEN_MINUTES = 600 * NS_PER_S

#: docs/rules.md Part D's ID column, in order.
PART_D = (
    "TV-94",
    "TV-H-1994-10",
    "TV-H-1995-01",
    "TV-H-1995-03",
    "TV-H-1996-09",
    "TV-H-1997-03",
    "TV-H-1998-08",
    "TV-H-2000-02",
    "TV-H-2001-09",
    "TV-H-2002-04",
    "TV-H-2003-01",
    "TV-H-2004-08",
    "TV-H-2005-01",
    "TV-H-2006-10",
    "TV-H-2007-08",
    "TV-H-2008-01",
)

#: The fields that identify a system rather than decide play.
NOT_PLAY = frozenset({"id", "title", "citations"})


def on(iso: str) -> RuleSystem:
    return tv_rules_for(D.fromisoformat(iso))


def flat(obj: Any, prefix: str = "") -> dict[str, Any]:
    """Every play field as ``path → value``, nested dataclasses spelled out."""
    out: dict[str, Any] = {}
    for field in dataclasses.fields(obj):
        if not prefix and field.name in NOT_PLAY:
            continue
        value = getattr(obj, field.name)
        path = f"{prefix}{field.name}"
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            out.update(flat(value, path + "."))
        else:
            out[path] = value
    return out


def changed(before: RuleSystem, after: RuleSystem) -> set[str]:
    """The play fields that differ; a field that appeared or vanished (None ↔ value) by name."""
    x, y = flat(before), flat(after)
    diff = {p for p in x.keys() & y.keys() if x[p] != y[p]}
    diff |= {p.split(".")[0] for p in x.keys() ^ y.keys()}
    return diff


def around(iso: str) -> tuple[RuleSystem, RuleSystem]:
    """The rules the day before ``iso`` and on ``iso``."""
    day = D.fromisoformat(iso)
    return tv_rules_for(day - datetime.timedelta(days=1)), tv_rules_for(day)


def row(rule_id: str) -> EraChange:
    return ERA_CHANGES[ERA_IDS.index(rule_id)]


def stake(system: RuleSystem) -> BiddingRules:
    assert system.stake is not None
    return system.stake


def bidding(system: RuleSystem, opener: int, nominal: int, scores: dict[int, int]) -> Bidding:
    order = bidding_order(opener, scores, tie_break=sorted(scores))
    return Bidding(stake(system), opener, nominal, scores, order)


# -- the table -----------------------------------------------------------------


def test_table_has_every_part_d_row_in_order() -> None:
    assert ERA_IDS == PART_D
    days = [c.date for c in ERA_CHANGES]
    assert days == sorted(days)
    assert len(set(days)) == len(days)


def test_month_only_dates_take_effect_on_the_1st() -> None:
    exact = {"TV-94": D(1994, 4, 14), "TV-H-2001-09": D(2001, 9, 16)}
    for change in ERA_CHANGES:
        if change.rule_id in exact:
            assert change.date == exact[change.rule_id]
        else:
            year, month = change.rule_id.removeprefix("TV-H-").split("-")
            assert change.date == D(int(year), int(month), 1), change.rule_id


def test_every_row_either_changes_fields_or_says_what_it_cannot_express() -> None:
    for change in ERA_CHANGES:
        assert change.overrides or change.not_expressed, change.rule_id
        assert set(change.overrides) <= OVERRIDE_PATHS


def test_every_override_path_names_a_real_field() -> None:
    for path in OVERRIDE_PATHS:
        obj: Any = TV_MODERN  # every nested part is set in the modern system
        for name in path.split("."):
            assert name in {f.name for f in dataclasses.fields(obj)}, path
            obj = getattr(obj, name)


def test_a_row_that_ends_is_out_of_force_from_that_day() -> None:
    """describe_era drops an ended row, and the composed system agrees: from its
    ``ends`` day on, the rules are what the other rows alone make them (the 1995
    bonus contest lapses; the rows later rows replaced change nothing by going)."""

    def fields(system: RuleSystem) -> RuleSystem:
        return dataclasses.replace(system, id="", title="", citations={})

    for change in ERA_CHANGES:
        if change.ends is None:
            continue
        system = TV_1994
        for other in ERA_CHANGES:
            in_force = other.ends is None or change.ends < other.ends
            if other.date <= change.ends and other is not change and in_force:
                system = apply_change(system, other)
        assert fields(tv_rules_for(change.ends)) == fields(system), change.rule_id
        assert change.rule_id not in describe_era(change.ends)


def test_a_bad_row_is_refused() -> None:
    with pytest.raises(ValueError, match="not a Part D rule ID"):
        EraChange(D(2010, 1, 1), "TV-X", "x", overrides={"start_score": 1})
    with pytest.raises(ValueError, match="must say why"):
        EraChange(D(2010, 1, 1), "TV-H-2010-01", "x")
    with pytest.raises(ValueError, match="unknown override path"):
        EraChange(D(2010, 1, 1), "TV-H-2010-01", "x", sources={"stake.nope": "X"})
    with pytest.raises(ValueError, match="cannot end"):
        EraChange(
            D(2010, 1, 1), "TV-H-2010-01", "x", overrides={"start_score": 1}, ends=D(2009, 1, 1)
        )


def test_a_nested_override_on_a_missing_part_is_refused() -> None:
    change = EraChange(D(1995, 6, 1), "TV-H-1995-06", "x", overrides={"cat.may_keep": True})
    with pytest.raises(ValueError, match="cat is None"):
        apply_change(TV_1994, change)


# -- Part D, row by row --------------------------------------------------------


def test_before_TV_94_raises_value_error() -> None:
    for day in (D(1994, 4, 13), D(1990, 1, 1)):
        with pytest.raises(ValueError, match="first broadcast under the TV-94 rules on 1994-04-14"):
            tv_rules_for(day)
        with pytest.raises(ValueError, match="1994-04-14"):
            describe_era(day)
    with pytest.raises(ValueError, match="no TV rules on 1994-04-13"):
        find_era_rules("tv@1994-04-13")


def test_TV_94_first_rules_are_tv_1994() -> None:
    first = tv_rules_for(TV_FIRST_DAY)
    assert flat(first) == flat(TV_1994)
    assert first.start_score == 50
    assert [r.prices for r in first.rounds] == [(10, 20, 30, 40, 50), (20, 40, 60, 80, 100)]
    assert first.round_clock_ns is None
    assert first.buttons.early_press is EarlyPress.HOLD
    assert first.buttons.window_ns == 3 * NS_PER_S
    assert stake(first).opener_only and stake(first).offer_to_zero
    assert not stake(first).min_is_nominal and stake(first).step == 10
    assert first.cat is None and first.sponsor_multiplier is None
    assert first.final is not None
    assert (first.final.themes, first.final.stake_min, first.final.stake_step) == (1, 10, 10)
    assert first.shootout_prices == (10, 20, 30, 40, 50)
    assert describe_era(TV_FIRST_DAY) == ["TV-94"]


def test_TV_H_1994_10_round_clock_10_min_and_the_warning_at_9() -> None:
    before, after = around("1994-10-01")
    assert changed(before, after) == {"round_clock_ns", "round_warning_ns"}
    assert before.round_clock_ns is None and before.round_warning_ns is None
    assert after.round_clock_ns == TEN_MINUTES
    assert after.round_warning_ns == 60 * 1_000_000_000  # a minute before the gong
    assert after.citations["round_clock_ns"].startswith("TV-H-1994-10")
    assert after.citations["round_warning_ns"].startswith("TV-H-1994-10")


def test_TV_H_1995_01_all_in_beaten_by_any_larger_others_may_bid() -> None:
    before, after = around("1995-01-01")
    assert changed(before, after) == {
        "stake.opener_only",
        "stake.all_in_beaten",
        "stake.buy_window_ns",
    }
    assert stake(before).opener_only
    assert not stake(after).opener_only
    assert stake(after).all_in_beaten is AllInBeaten.BY_ANY_LARGER
    # Bought out by pressing the button within 3 s (DEFAULT), until Sep 1996.
    assert stake(before).buy_window_ns is None
    assert stake(after).buy_window_ns == 3_000_000_000
    assert "button" not in row("TV-H-1995-01").not_expressed
    assert stake(around("1996-09-01")[1]).buy_window_ns is None


def test_TV_H_1995_03_the_bonus_contest_from_mar_to_aug_1995() -> None:
    before, after = around("1995-03-01")
    assert changed(before, after) == {"bonus"}
    assert before.bonus is None
    assert after.bonus == BonusRules(after_round=1, questions=5)
    assert on("1995-07-31").bonus is not None
    assert on("1995-08-01").bonus is None  # abolished Aug 1995
    assert "TV-H-1995-03" not in describe_era(D(1995, 2, 28))
    assert "TV-H-1995-03" in describe_era(D(1995, 3, 1))
    assert "TV-H-1995-03" in describe_era(D(1995, 7, 31))
    assert "TV-H-1995-03" not in describe_era(D(1995, 8, 1))  # abolished Aug 1995


def test_TV_H_1996_09_start_0_all_in_unbeatable() -> None:
    before, after = around("1996-09-01")
    assert changed(before, after) == {
        "start_score",
        "stake.all_in_beaten",
        "stake.offer_to_zero",
        "stake.host_picks_ties",  # TV-S-AUC-3: by turns again, the host picks among ties
        "stake.buy_window_ns",
        "cat",
        "final.stake_min",
        "final.stake_step",
    }
    assert (before.start_score, after.start_score) == (50, 0)
    assert stake(after).all_in_beaten is AllInBeaten.NEVER
    assert not stake(after).opener_only  # bidding by turns
    assert stake(after).buy_window_ns is None  # "no buttons"
    assert before.cat is None
    assert after.cat == CatRules(price=CatPrice.FIXED, may_keep=True)
    assert after.final is not None
    assert (after.final.stake_min, after.final.stake_step) == (1, 1)
    # A score ≤ 0 plays only for the nominal.
    for score in (0, -120):
        game = bidding(after, A, 30, {A: score, B: 150, C: 40})
        assert game.opening_bids() == (30,)


def test_TV_H_1997_03_cat_can_no_longer_be_kept() -> None:
    before, after = around("1997-03-01")
    assert changed(before, after) == {"cat.may_keep"}
    assert before.cat is not None and before.cat.may_keep
    assert after.cat == CatRules(price=CatPrice.FIXED, may_keep=False)


def test_TV_H_1998_08_presses_after_reading_and_larger_all_in() -> None:
    before, after = around("1998-08-01")
    assert changed(before, after) == {
        "buttons.early_press",
        "buttons.fs_lockout_ns",
        "stake.all_in_beaten",
    }
    assert before.buttons.early_press is EarlyPress.HOLD
    assert after.buttons.early_press is EarlyPress.FALSE_START
    assert after.buttons.fs_lockout_ns == 2 * NS_PER_S  # TV-M-A-D2, dated by TV-M-A-D4
    assert not after.buttons.fs_extend
    assert after.buttons.window_ns == 3 * NS_PER_S
    assert stake(after).all_in_beaten is AllInBeaten.BY_LARGER_ALL_IN
    assert "TV-M-A-D4" in after.citations["fs_lockout_ns"]


def test_TV_H_2000_02_picture_cats_are_not_expressed() -> None:
    before, after = around("2000-02-01")
    assert changed(before, after) == set()
    assert "picture" in row("TV-H-2000-02").not_expressed.lower()
    assert "TV-H-2000-02" in describe_era(D(2000, 2, 1))


def test_TV_H_2001_09_three_rounds_auction_from_100_final_of_7_themes() -> None:
    before, after = around("2001-09-16")  # an exact day in Part D
    assert changed(before, after) == {
        "rounds",
        "stake.step",
        "stake.min_bid",
        "final.themes",
        "shootout_prices",
        "first_chooser",
        "round_warning_ns",
        "cat.value_step",
        "theme_order",  # «темы в алфавитном порядке»
    }
    # TV-G-4: the youngest chose first until the grandmaster's central table (2001).
    assert before.first_chooser is FirstChooserRule.YOUNGEST
    assert after.first_chooser is FirstChooserRule.CENTRAL_TABLE
    assert [r.prices for r in before.rounds] == [(10, 20, 30, 40, 50), (20, 40, 60, 80, 100)]
    assert [r.prices for r in after.rounds] == [
        (100, 200, 300, 400, 500),
        (200, 400, 600, 800, 1000),
        (300, 600, 900, 1200, 1500),
    ]
    assert all(len(r.themes) == 6 for r in after.rounds)
    assert (stake(after).step, stake(after).min_bid) == (100, 100)
    assert not stake(after).min_is_nominal  # not before Apr 2002
    assert after.final is not None and after.final.themes == 7
    assert after.shootout_prices == (100, 200, 300, 400, 500)
    assert after.round_clock_ns == TEN_MINUTES  # the clock stays, only the warning goes
    assert before.round_warning_ns is not None and after.round_warning_ns is None
    assert after.citations["round_warning_ns"].startswith("TV-H-2001-09")
    assert "central-table" in row("TV-H-2001-09").not_expressed


def test_TV_H_2002_04_no_bids_below_the_nominal() -> None:
    before, after = around("2002-04-01")
    assert changed(before, after) == {"stake.min_is_nominal"}
    assert not stake(before).min_is_nominal
    assert stake(after).min_is_nominal
    with pytest.raises(BidError, match="at least 400"):
        bidding(after, A, 400, {A: 1500, B: 800, C: 2200}).place(A, 300)
    bidding(before, A, 400, {A: 1500, B: 800, C: 2200}).place(A, 300)  # allowed in March


def test_TV_H_2003_01_cat_values_in_hundreds_counts_checked_by_inspect() -> None:
    before, after = around("2003-01-01")
    assert changed(before, after) == {"cat.value_step"}
    assert before.cat is not None and before.cat.value_step == 50  # TV-S-CAT-4, Sep 2001
    assert after.cat is not None and after.cat.value_step == 100
    assert after.citations["cat.value_step"].startswith("TV-H-2003-01")
    assert "5 cats + 5 auctions" in row("TV-H-2003-01").not_expressed
    assert "package inspect --date" in row("TV-H-2003-01").not_expressed


def test_TV_H_2004_08_sponsor_question_pays_double() -> None:
    before, after = around("2004-08-01")
    assert changed(before, after) == {"sponsor_multiplier"}
    assert before.sponsor_multiplier is None
    assert after.sponsor_multiplier == 2


def test_TV_H_2005_01_sponsor_question_suspended() -> None:
    before, after = around("2005-01-01")
    assert changed(before, after) == {"sponsor_multiplier"}
    assert before.sponsor_multiplier == 2
    assert after.sponsor_multiplier is None
    assert "before the hand-over" in row("TV-H-2005-01").not_expressed
    assert "TV-H-2004-08" not in describe_era(D(2005, 1, 1))


def test_TV_H_2006_10_sponsor_question_reinstated() -> None:
    before, after = around("2006-10-01")
    assert changed(before, after) == {"sponsor_multiplier"}
    assert before.sponsor_multiplier is None
    assert after.sponsor_multiplier == 2
    assert "TV-H-2005-01" not in describe_era(D(2006, 10, 1))


def test_TV_H_2007_08_cat_value_min_or_max() -> None:
    before, after = around("2007-08-01")
    assert changed(before, after) == {"cat.price", "cat.value_step"}
    assert before.cat is not None and before.cat.price is CatPrice.FIXED
    assert after.cat == CatRules(price=CatPrice.MIN_OR_MAX, may_keep=False, value_step=None)


def test_TV_H_2008_01_round_clock_abolished() -> None:
    before, after = around("2008-01-01")
    assert changed(before, after) == {"round_clock_ns"}
    assert before.round_clock_ns == TEN_MINUTES
    assert after.round_clock_ns is None
    assert "TV-H-1994-10" not in describe_era(D(2008, 1, 1))


# -- Part E parameters ---------------------------------------------------------


@pytest.mark.parametrize(
    ("iso", "clock"),
    [
        ("1994-04-14", None),
        ("1994-09-30", None),
        ("1994-10-01", TEN_MINUTES),
        ("1998-08-01", TEN_MINUTES),
        ("2001-09-16", TEN_MINUTES),
        ("2007-12-31", TEN_MINUTES),
        ("2008-01-01", None),
        ("2024-05-01", None),
    ],
)
def test_E28_round_clock_oct_1994_to_jan_2008(iso: str, clock: int | None) -> None:
    assert on(iso).round_clock_ns == clock


@pytest.mark.parametrize(
    ("iso", "beaten"),
    [
        ("1995-01-01", AllInBeaten.BY_ANY_LARGER),
        ("1996-09-01", AllInBeaten.NEVER),
        ("1998-08-01", AllInBeaten.BY_LARGER_ALL_IN),
    ],
)
def test_E29_all_in_by_era_parameters(iso: str, beaten: AllInBeaten) -> None:
    rules = stake(on(iso))
    assert rules.all_in_beaten is beaten
    assert rules.opener_only is False


def test_E29_jan_1995_b_buys_the_all_in_for_100_and_a_leaves() -> None:
    game = bidding(on("1995-01-15"), A, 30, {A: 90, B: 150, C: 40})
    game.place(A, 90)  # all-in
    assert game.turn is None and game.buyers() == [B]  # C (40) cannot buy
    game.claim(B)  # B pressed first in the buy window (TV-H-1995-01)
    game.place(B, 100)
    assert game.outcome is not None
    assert (game.outcome.seat, game.outcome.stake) == (B, 100)
    assert A in game.passed


def test_E29_sep_1996_the_all_in_cannot_be_beaten() -> None:
    game = bidding(on("1996-09-15"), A, 30, {A: 90, B: 150, C: 40})
    game.place(A, 90)
    assert game.outcome is not None
    assert (game.outcome.seat, game.outcome.stake) == (A, 90)


def test_E29_aug_1998_only_a_larger_all_in_beats_it() -> None:
    game = bidding(on("1998-08-15"), A, 30, {A: 90, B: 150, C: 40})
    game.place(A, 90)
    with pytest.raises(BidError, match="larger all-in"):
        game.place(B, 100)
    game.place(B, 150)
    assert game.outcome is not None
    assert (game.outcome.seat, game.outcome.stake) == (B, 150)


def test_E29_TV_94_offer_to_zero() -> None:
    system = on("1994-04-14")
    assert stake(system).offer_to_zero and stake(system).opener_only
    game = bidding(system, B, 30, {A: 50, B: -120, C: 50})
    assert game.opening_bids() == (30, 120)  # the host offers 120; declined: the nominal
    assert not stake(on("1996-09-01")).offer_to_zero


# -- ≥ 2008 is TV-M ------------------------------------------------------------


def play(system: RuleSystem) -> dict[str, Any]:
    """The play fields; ``stake.min_bid`` only counts while bids may go below the nominal."""
    fields = flat(system)
    if fields["stake.min_is_nominal"]:
        del fields["stake.min_bid"]
    return fields


@pytest.mark.parametrize("iso", ["2008-01-01", "2008-06-30", "2015-03-14", "2030-12-31"])
def test_from_2008_the_rules_are_tv_modern(iso: str) -> None:
    composed = on(iso)
    assert play(composed) == play(TV_MODERN)
    assert dataclasses.replace(
        composed,
        id=TV_MODERN.id,
        title=TV_MODERN.title,
        citations=TV_MODERN.citations,
        stake=TV_MODERN.stake,
    ) == dataclasses.replace(TV_MODERN)
    assert composed.rounds == TV_MODERN.rounds


def test_just_before_2008_the_rules_are_not_yet_tv_modern() -> None:
    assert changed(on("2007-12-31"), TV_MODERN) == {"round_clock_ns"}


# -- the composed system's identity ---------------------------------------------


def test_id_title_and_citations_name_the_day_and_the_rows() -> None:
    system = on("1996-10-05")
    assert system.id == "tv@1996-10-05" == era_id(D(1996, 10, 5))
    assert "05.10.1996" in system.title
    assert system.citations["start_score"].startswith("TV-H-1996-09")
    assert system.citations["stake.all_in_beaten"] == "TV-H-1996-09"
    assert system.citations["stake.opener_only"] == "TV-H-1996-09"
    assert system.citations["round_clock_ns"].startswith("TV-H-1994-10")
    # The buy-out row ended the day TV-H-1996-09 replaced it: no longer cited.
    assert "TV-H-1995-01" not in system.citations["stake"]
    assert "TV-H-1995-01" in on("1995-06-01").citations["stake"]
    assert system.citations["early_press"] == TV_1994.citations["early_press"]
    modern = on("2010-01-01")
    assert modern.citations["early_press"].startswith("TV-H-1998-08")
    assert modern.citations["cat.price"].startswith("TV-H-2007-08")
    assert modern.citations["cat.may_keep"].startswith("TV-H-1997-03")
    assert modern.citations["sponsor_multiplier"].startswith("TV-H-2006-10")
    assert modern.citations["rounds"].startswith("TV-H-2001-09")


def test_describe_era_lists_the_rows_in_force() -> None:
    assert describe_era(D(1996, 10, 5)) == [
        "TV-94",
        "TV-H-1994-10",
        "TV-H-1996-09",
    ]
    assert describe_era(D(2010, 1, 1)) == [
        "TV-94",
        "TV-H-1996-09",
        "TV-H-1997-03",
        "TV-H-1998-08",
        "TV-H-2000-02",
        "TV-H-2001-09",
        "TV-H-2002-04",
        "TV-H-2003-01",
        "TV-H-2006-10",
        "TV-H-2007-08",
        "TV-H-2008-01",
    ]


def test_a_datetime_counts_as_its_date_and_the_result_is_stable() -> None:
    moment = datetime.datetime(1998, 8, 1, 23, 59)
    assert tv_rules_for(moment) == tv_rules_for(D(1998, 8, 1)) == on("1998-08-01")
    assert describe_era(moment) == describe_era(D(1998, 8, 1))


def test_find_era_rules_reads_the_id() -> None:
    assert find_era_rules("tv@2002-04-01") == on("2002-04-01")
    with pytest.raises(KeyError, match="tv@YYYY-MM-DD"):
        find_era_rules("tv-modern")
    with pytest.raises(ValueError, match=r"month must be in 1\.\.12"):
        find_era_rules("tv@2002-13-01")


def test_composing_does_not_touch_the_base_profiles() -> None:
    base = flat(TV_1994), dict(TV_1994.citations)
    on("2010-01-01")
    assert (flat(TV_1994), dict(TV_1994.citations)) == base


def test_TV_S_CAT_4_the_2003_example_plays_a_cat_for_a_value_in_hundreds(tmp_path: Path) -> None:
    """The era's example: a cat given in Mar 2003 for 300 (a multiple of 100, TV-H-2003-01);
    the same journal with 350 is a sequence error, exit 2, naming the rule."""
    example = REPO / "examples" / "tv-2003-cat.jsonl"
    lines = example.read_text(encoding="utf-8").splitlines()
    done = replay_cli(tmp_path, lines)
    assert done.returncode == 0, done.stderr.decode()
    out = [json.loads(x) for x in done.stdout.decode().splitlines()]
    assert {"t": 24.0, "type": "cat_given", "from": 3, "to": 1} in out
    assert {"t": 40.0, "type": "score", "seat": 1, "delta": 300, "score": 300} in out
    spoiled = [x.replace('"price": 300', '"price": 350') for x in lines]
    refused = replay_cli(tmp_path, spoiled)
    assert refused.returncode == 2
    assert "multiple of 100 in this era (TV-S-CAT-4): 350" in refused.stderr.decode()
