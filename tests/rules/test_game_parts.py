"""The game's parts (issue 39 item 1): what each one decides, pinned word for word.

``rules/game.py`` was split into parts, each in its own module: the stake
question (rules/specials/stake.py), the cat once given (rules/specials/cat.py),
the bonus contest's offer and play (rules/specials/bonus_round.py), the round
clock (rules/rounds.py), the host's corrections (rules/corrections.py), the
header (rules/setup.py) and the snapshot (rules/snapshot_build.py). These tests
hold each part to what the host reads and the journal keeps: every note with
its field names, every refusal as the host reads it, every snapshot field.
They drive the engine itself (no settle window, no codec), so that a refusal
the codec would catch first is still the engine's to make. Outcomes worked out
from the rules reference (docs/rules.md), not the code.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest

from buzzer.arbiter.decisions import Decision
from buzzer.arbiter.events import (
    Bid,
    BonusReply,
    CatGive,
    CatPicture,
    CatPrice,
    Correction,
    FinalRemove,
    FinalStake,
    Objection,
    Pass,
    Pause,
    Resume,
    Substitute,
)
from buzzer.arbiter.machine import SequenceError
from rules.board import RoundSpec
from rules.eras import tv_rules_for
from rules.game import Game, GameSetup
from rules.profiles import RuleSystem, find_rules
from rules.state import SpecialKind

S = 1_000_000_000
A, B, C = 1, 2, 3


def era(day: str) -> RuleSystem:
    return tv_rules_for(datetime.date.fromisoformat(day))


def rounds(*prices: tuple[int, ...], themes: int = 1) -> tuple[RoundSpec, ...]:
    names = tuple(f"Тема {n}" for n in range(1, themes + 1))
    return tuple(RoundSpec(f"Раунд {n}", names, p) for n, p in enumerate(prices, 1))


class Play:
    """One game driven input by input; ``out`` holds every decision as a JSON dict."""

    def __init__(self, rules: RuleSystem, **setup: Any) -> None:
        setup.setdefault("chooser", A)
        self.decisions: list[Decision] = []
        self.game = Game(GameSetup(rules, ("А", "Б", "В"), **setup), self.decisions)

    @property
    def out(self) -> list[dict[str, Any]]:
        return [json.loads(d.to_json()) for d in self.decisions]

    def since(self, mark: int) -> list[dict[str, Any]]:
        return self.out[mark:]

    def mark(self) -> int:
        return len(self.decisions)

    def do(self, item: Any) -> list[dict[str, Any]]:
        mark = self.mark()
        self.game.apply(item, self.decisions)
        return self.since(mark)

    def refused(self, item: Any) -> str:
        with pytest.raises(SequenceError) as caught:
            self.game.apply(item, self.decisions)
        return str(caught.value)

    def select(self, t: float, theme: int, price: int) -> None:
        self.game.select(int(t * S), theme, price, self.decisions)

    def read(self, t: float) -> None:
        self.game.reading_start(int(t * S), self.decisions)
        self.game.reading_end(int(t * S) + S // 2, self.decisions)

    def press(self, t: float, seat: int) -> list[dict[str, Any]]:
        mark = self.mark()
        self.game.press(int(t * S), (seat,), self.decisions)
        return self.since(mark)

    def judge(self, t: float, correct: bool) -> None:
        self.game.judge(int(t * S), correct, self.decisions)

    def timeout(self, t: float) -> None:
        self.game.timeout(int(t * S), self.decisions)

    def advance(self, t: float) -> list[dict[str, Any]]:
        mark = self.mark()
        self.game.advance(int(t * S), self.decisions)
        return self.since(mark)

    def of_type(self, *types: str) -> list[dict[str, Any]]:
        return [o for o in self.out if o["type"] in types]


# -- the host's corrections (rules/corrections.py) ------------------------------


def test_TOUR_1_9_a_correction_is_told_with_its_seat_delta_and_reason() -> None:
    play = Play(find_rules("tv-modern"))
    assert play.do(Correction(2 * S, B, 300, "счёт")) == [
        {"t": 2.0, "type": "correction", "seat": B, "delta": 300, "reason": "счёт"},
        {"t": 2.0, "type": "score", "seat": B, "delta": 300, "score": 300},
    ]


def test_SER_CC1_SUB_the_refusal_names_the_round_and_the_stage_now() -> None:
    play = Play(find_rules("tv-modern"), rounds=rounds((100,), (200,), (300,)))
    assert play.refused(Substitute(S, B, "Друзь")) == (
        "a substitute comes in only between round 2 and round 3, before round 3's "
        "first question (SER-CC1-SUB): now it is round 1, board"
    )


def _before_round_3() -> Play:
    play = Play(find_rules("tv-modern"), rounds=rounds((100,), (200,), (300,)))
    for n, price in enumerate((100, 200), 1):
        play.select(10.0 * n, 1, price)
        play.timeout(10.0 * n + 1)
    return play


def test_SER_CC1_SUB_the_name_is_taken_with_its_spaces_made_single() -> None:
    play = _before_round_3()
    assert play.do(Substitute(30 * S, B, "  Друзь   Александр ")) == [
        {"t": 30.0, "type": "substitute", "seat": B, "out": "Б", "in": "Друзь Александр"}
    ]
    assert play.game.snapshot()["players"] == ["А", "Друзь Александр", "В"]


def test_SER_CC1_SUB_an_empty_name_is_refused() -> None:
    play = _before_round_3()
    assert play.refused(Substitute(30 * S, B, "   ")) == "the substitute's name is empty"


def _two_wrong(rules: RuleSystem | None = None) -> Play:
    """B and C answer wrong, nobody right: the question times out."""
    play = Play(rules or find_rules("tv-modern"), rounds=rounds((100, 200)))
    play.select(1.0, 1, 100)
    play.read(2.0)
    play.press(3.0, B)
    play.judge(4.0, False)
    play.press(5.0, C)
    play.judge(6.0, False)
    play.timeout(7.0)
    return play


def test_TOUR_3_7_an_objection_before_any_question_closed_is_refused_word_for_word() -> None:
    play = Play(find_rules("tv-modern"))
    assert play.refused(Objection(S, B)) == (
        "objections are accepted only after a question closes and before the next "
        "is selected (TOUR-3.7)"
    )


def test_TOUR_3_7_only_a_seat_ruled_wrong_may_object() -> None:
    play = _two_wrong()
    assert play.refused(Objection(8 * S, A)) == ("seat 1 was not ruled wrong on the last question")


def test_TOUR_3_7_the_objector_chooses_when_nobody_else_was_right() -> None:
    play = _two_wrong()
    assert play.do(Objection(8 * S, B)) == [
        {"t": 8.0, "type": "objection", "seat": B},
        {"t": 8.0, "type": "score", "seat": B, "delta": 200, "score": 100},
        {"t": 8.0, "type": "chooser", "seat": B},
    ]


def test_TOUR_3_7_a_second_objection_finds_the_first_one_right_and_keeps_its_chooser() -> None:
    play = _two_wrong()
    play.do(Objection(8 * S, B))
    assert play.do(Objection(9 * S, C)) == [
        {"t": 9.0, "type": "objection", "seat": C},
        {"t": 9.0, "type": "score", "seat": C, "delta": 200, "score": 100},
    ]
    assert play.game.chooser == B


def test_TOUR_3_7_an_upheld_objection_is_not_upheld_twice() -> None:
    play = _two_wrong()
    play.do(Objection(8 * S, B))
    assert play.refused(Objection(9 * S, B)) == ("seat 2 was not ruled wrong on the last question")


# -- the cat in the bag (rules/specials/cat.py) ---------------------------------


def _cat(rules: RuleSystem, **setup: Any) -> Play:
    play = Play(rules, rounds=rounds((100, 200)), specials={(1, 1, 200): SpecialKind.CAT}, **setup)
    play.select(1.0, 1, 200)
    return play


def test_TV_S_CAT_1_the_opener_may_not_keep_the_cat_word_for_word() -> None:
    play = _cat(find_rules("tv-modern"))
    assert play.refused(CatGive(2 * S, A)) == (
        "the cat in the bag must be given to an opponent (TV-S-CAT-1): seat 1 cannot keep it"
    )
    assert play.game.snapshot()["stage"] == "cat_give"  # refused: nothing changed


def test_TV_S_CAT_2_the_value_is_the_round_s_minimum_or_maximum_word_for_word() -> None:
    play = _cat(find_rules("tv-modern"))
    assert play.do(CatGive(2 * S, B)) == [
        {"t": 2.0, "type": "cat_given", "from": A, "to": B},
        {"t": 2.0, "type": "cat_prices", "options": [100, 200]},
    ]
    assert play.refused(CatPrice(3 * S, 150)) == (
        "the cat's value must be the round's minimum or maximum: 100 or 200 (TV-S-CAT-2)"
    )


def test_TV_S_CAT_4_a_value_off_the_era_s_step_is_refused_word_for_word() -> None:
    play = _cat(era("2003-06-01"))
    play.do(CatGive(2 * S, B))
    assert play.refused(CatPrice(3 * S, 250)) == (
        "the cat's value is a multiple of 100 in this era (TV-S-CAT-4): 250 is not"
    )


def test_a_cat_s_value_is_positive_and_any_positive_value_goes_in_an_era_with_no_step() -> None:
    play = _cat(era("1997-01-01"))
    play.do(CatGive(2 * S, B))
    assert play.refused(CatPrice(3 * S, 0)) == "the cat's value must be positive, not 0"
    assert play.refused(CatPrice(3 * S, -5)) == "the cat's value must be positive, not -5"
    play.do(CatPrice(3 * S, 1))
    assert play.game.snapshot()["value"] == 1


def test_TV_S_CAT_5_pictures_beyond_the_series_are_refused_word_for_word() -> None:
    play = _cat(find_rules("tv-modern"), cat_series={(1, 1, 200): (300, 200)})
    play.do(CatGive(2 * S, B))
    assert play.game.snapshot()["cat_series"] == {"values": [300, 200], "shown": 1}
    assert play.do(CatPicture(3 * S)) == [
        {"t": 3.0, "type": "cat_picture", "shown": 2, "value": 200}
    ]
    assert play.refused(CatPicture(4 * S)) == "all 2 pictures of the series are shown already"
    play.judge(5.0, True)
    assert play.game.snapshot()["cat_series"] is None  # the question is over


# -- the stake question (rules/specials/stake.py) -------------------------------


def _stake(rules: RuleSystem, prices: tuple[int, ...], **setup: Any) -> Play:
    cell = (1, 1, prices[-1])
    play = Play(rules, rounds=rounds(prices), specials={cell: SpecialKind.STAKE}, **setup)
    play.select(1.0, 1, prices[-1])
    return play


def test_C2003_2_4_6_a_press_while_bidding_by_turns_is_ignored_as_outside_any_window() -> None:
    play = _stake(find_rules("tv-modern"), (100, 200), start_scores=(500, 500, 500))
    assert play.press(2.0, B) == [{"t": 2.0, "type": "ignored", "seat": B, "reason": "not_open"}]
    assert play.game.snapshot()["bidding"] is not None  # still bidding


def test_TV_S_AUC_4_the_bidding_s_refusal_is_what_the_host_reads() -> None:
    play = _stake(find_rules("tv-modern"), (100, 200), start_scores=(500, 500, 500))
    assert play.refused(Pass(2 * S, A)) == (
        "the opener must bid first and may not pass (TV-S-AUC-4)"
    )


def test_TV_H_1995_01_the_buy_window_is_told_and_ends_with_the_bidding() -> None:
    play = _stake(era("1995-04-01"), (10, 20))
    assert play.do(Bid(2 * S, A, 20)) == [
        {"t": 2.0, "type": "bid", "seat": A, "amount": 20, "all_in": False},
        {"t": 2.0, "type": "buy_window", "seats": [B, C], "closes_at": 5.0},
        {"t": 2.0, "type": "window_opened", "closes_at": 5.0},
    ]
    snap = play.game.snapshot()
    assert (snap["phase"], snap["closes_at"]) == ("open", 5 * S)
    assert snap["bidding"] is not None and snap["bidding"]["buyers"] == [C, B]
    play.do(Pass(3 * S, B))
    assert play.do(Pass(3 * S, C)) == [
        {"t": 3.0, "type": "pass", "seat": C, "auto": False},
        {"t": 3.0, "type": "stake_won", "seat": A, "stake": 20},
        {"t": 3.0, "type": "recognized", "seat": A},
    ]
    snap = play.game.snapshot()
    assert (snap["phase"], snap["closes_at"], snap["answering"]) == ("closed", None, A)


def test_TV_H_1995_01_whoever_has_the_floor_is_no_buyer() -> None:
    play = _stake(era("1995-04-01"), (10, 20))
    play.do(Bid(2 * S, A, 20))
    assert play.press(3.0, C)[-1] == {"t": 3.0, "type": "bid_claim", "seat": C}
    bidding = play.game.snapshot()["bidding"]
    assert bidding is not None and (bidding["turn"], bidding["buyers"]) == (C, [])


# -- the bonus contest in the game (rules/specials/bonus_round.py) ---------------


def _bonus(*start: int, seed: int = 0) -> Play:
    """TV-H-1995-03: the Blue round's two questions time out; the offer follows."""
    play = Play(era("1995-06-01"), rounds=rounds((10, 20), (20, 40)), start_scores=start, seed=seed)
    for n, price in enumerate((10, 20), 1):
        play.select(10.0 * n, 1, price)
        play.timeout(10.0 * n + 1)
    return play


def test_TV_H_1995_03_each_answer_and_the_prize_are_told_with_their_fields() -> None:
    play = _bonus(50, 80, 60)
    assert play.of_type("bonus_offer") == [
        {"t": 21.0, "type": "bonus_offer", "seat": B, "place": 1}
    ]
    assert play.do(BonusReply(22 * S, False)) == [
        {"t": 22.0, "type": "bonus_declined", "seat": B},
        {"t": 22.0, "type": "bonus_offer", "seat": C, "place": 2},
    ]
    play.do(BonusReply(23 * S, True))
    for n in range(1, 5):
        play.judge(23.0 + n, True)
    assert play.of_type("bonus_answer")[0] == {
        "t": 24.0,
        "type": "bonus_answer",
        "seat": C,
        "number": 1,
        "correct": True,
    }
    play.judge(28.0, True)
    assert play.of_type("bonus_won") == [
        {"t": 28.0, "type": "bonus_won", "seat": C, "prize": "trip"}
    ]


def test_TV_H_1995_03_a_wrong_answer_takes_the_score_to_0_from_1() -> None:
    play = _bonus(0, 1, 0)
    play.do(BonusReply(22 * S, True))
    mark = play.mark()
    play.judge(23.0, False)
    assert play.since(mark)[1:] == [
        {"t": 23.0, "type": "score", "seat": B, "delta": -1, "score": 0},
        {"t": 23.0, "type": "bonus_lost", "seat": B},
    ]


def test_TV_H_1995_03_a_wrong_answer_at_0_changes_no_score() -> None:
    play = _bonus(0, -10, -20)
    play.do(BonusReply(22 * S, True))
    mark = play.mark()
    play.judge(23.0, False)
    assert [o["type"] for o in play.since(mark)] == ["bonus_answer", "bonus_lost"]


def test_TV_H_1995_03_the_offer_closes_objections_on_the_round_s_last_question() -> None:
    play = Play(era("1995-06-01"), rounds=rounds((10, 20), (20, 40)))
    play.select(10.0, 1, 10)
    play.timeout(11.0)
    play.select(20.0, 1, 20)
    play.read(20.0)
    play.press(21.0, B)
    play.judge(22.0, False)
    play.timeout(23.0)
    assert play.of_type("bonus_offer")
    assert play.refused(Objection(24 * S, B)).endswith("(TOUR-3.7)")


def test_TV_H_1995_03_the_order_of_the_offer_draws_lots_only_for_a_tie() -> None:
    """The seeded stream is drawn from only where scores tie: the next round's lot
    between A and C (both lowest) is the same as if nothing had been drawn before."""
    play = _bonus(30, 50, 30, seed=2)
    assert [o["seat"] for o in play.of_type("bonus_offer")] == [B]
    play.do(BonusReply(22 * S, False))
    play.do(BonusReply(23 * S, False))
    play.do(BonusReply(24 * S, False))
    play.select(30.0, 1, 20)
    lots = play.of_type("lot")
    assert lots == [{"t": 30.0, "type": "lot", "seats": [A, C], "winner": lots[0]["winner"]}]
    twin = random_lots(seed=2, draws=(2, 2))
    assert lots[0]["winner"] == (A, C)[twin[1]]


def random_lots(seed: int | str, draws: tuple[int, ...]) -> list[int]:
    """The indices a game's seeded stream gives to successive draws among ``draws`` seats."""
    import random

    rng = random.Random(seed)
    return [rng.randrange(n) for n in draws]


# -- the header (rules/setup.py) ------------------------------------------------


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ({"players": ()}, "a game needs at least one player"),
        ({"start_scores": (0, 0)}, "start_scores must give 3 scores, one per player, got 2"),
        ({"chooser": 4}, "chooser must be a seat 1..3"),
        (
            {"rules": "sport-false-start", "specials": {(1, 2, 30): SpecialKind.STAKE}},
            "round 1, theme 2, price 30: sport-false-start has no stake questions",
        ),
        (
            {"rules": "sport-false-start", "specials": {(1, 2, 30): SpecialKind.CAT}},
            "round 1, theme 2, price 30: sport-false-start has no cats in the bag",
        ),
        (
            {"rules": "championship-2003", "specials": {(2, 1, 40): SpecialKind.SPONSOR}},
            "round 2, theme 1, price 40: championship-2003 has no sponsor questions",
        ),
        (
            {"cat_series": {(1, 3, 200): (300, 100)}},
            "round 1, theme 3, price 200: a picture series (TV-S-CAT-5) is only for a cat",
        ),
    ],
)
def test_a_header_the_rules_cannot_play_is_refused_word_for_word(
    setup: dict[str, Any], message: str
) -> None:
    fields: dict[str, Any] = {"players": ("А", "Б", "В"), **setup}
    rules = find_rules(fields.pop("rules", "tv-modern"))
    with pytest.raises(ValueError) as caught:
        GameSetup(rules, **fields)
    assert str(caught.value) == message


# -- the round clock (rules/rounds.py) ------------------------------------------

#: TV-G-6 / TV-H-1994-10 in Dec 1994: a 600 s round clock, the warning 60 s before.
CLOCKED = "1994-12-01"


def _clocked() -> Play:
    """The round's first question is selected at 1 s: the gong is due at 601 s,
    the warning at 541 s."""
    play = Play(era(CLOCKED), rounds=rounds((10, 20, 30), (20, 40)))
    play.select(1.0, 1, 10)
    return play


def test_TV_H_1994_10_the_warning_sounds_once_time_has_passed_its_instant() -> None:
    play = _clocked()
    play.read(2.0)
    play.press(3.0, B)
    assert play.advance(541.0) == []
    assert play.advance(541.000000001) == [
        {"t": 541.0, "type": "round_warning", "round": 1, "left_s": 60.0}
    ]


def test_TV_G_6_the_gong_sounds_during_an_answer_once_time_has_passed_it() -> None:
    play = _clocked()
    play.read(590.0)
    play.press(592.0, B)
    play.advance(600.0)
    assert play.advance(601.0) == []
    assert play.advance(601.000000001) == [{"t": 601.0, "type": "round_time_up", "round": 1}]


def test_TV_G_6_a_window_that_closes_before_the_gong_ends_the_question_first() -> None:
    play = _clocked()
    play.read(597.0)  # the window opens at 597.5 s and closes at 600.5 s
    play.advance(597.6)
    first = play.advance(602.0)
    assert "round_time_up" not in [o["type"] for o in first]
    assert play.advance(602.5) == [{"t": 601.0, "type": "round_time_up", "round": 1}]


def test_TV_G_6_a_window_that_closes_at_the_gong_lets_the_gong_sound_first() -> None:
    play = _clocked()
    play.read(597.5)  # the window opens at 598 s and closes at 601 s, the gong's instant
    play.advance(597.6)
    assert play.advance(602.0)[0] == {"t": 601.0, "type": "round_time_up", "round": 1}


def test_SPORT_1_no_chooser_in_the_next_round_where_nobody_chooses() -> None:
    play = Play(find_rules("sport-false-start"), chooser=None, rounds=rounds((10,), (20,)))
    play.select(1.0, 1, 10)
    play.timeout(2.0)
    play.select(3.0, 1, 20)
    assert play.of_type("round_started", "chooser", "lot") == [
        {"t": 3.0, "type": "round_started", "round": 2, "name": "Раунд 2"}
    ]


# -- the snapshot (rules/snapshot_build.py) -------------------------------------


def test_C2003_2_8_the_snapshot_shows_the_shootout_s_own_board_and_scores() -> None:
    play = Play(find_rules("jeopardy"), rounds=rounds((10,)))
    play.select(1.0, 1, 10)
    play.timeout(2.0)  # nobody scored: a three-way tie for first
    snap = play.game.snapshot()
    assert (snap["round"], snap["round_name"], snap["themes"], snap["played"]) == (
        1,
        "Перестрелка",
        ["1"],
        [],
    )
    assert snap["shootout"] == {"seats": [A, B, C], "number": 1, "scores": {"1": 0, "2": 0, "3": 0}}


def test_the_snapshot_of_a_plain_answer_names_the_answerer_and_no_open_window() -> None:
    play = Play(find_rules("tv-modern"), rounds=rounds((10, 20)))
    play.select(1.0, 1, 10)
    play.read(2.0)
    play.press(3.0, B)
    play.press(3.001, C)  # 1 ms behind
    snap = play.game.snapshot()
    assert play.game.arbiter.closes_at is not None  # the window's end, kept for a re-open
    assert (snap["phase"], snap["answering"], snap["closes_at"]) == ("answering", B, None)
    assert snap["margins_us"] == {"3": 1000}
    assert (snap["round"], snap["value"], snap["cat_value_step"]) == (1, None, None)


def test_the_snapshot_shows_a_special_question_s_value_only_while_it_is_played() -> None:
    play = _cat(era("2003-06-01"))
    play.do(CatGive(2 * S, B))
    play.do(CatPrice(3 * S, 300))
    snap = play.game.snapshot()
    assert (snap["stage"], snap["value"], snap["cat_value_step"]) == ("special", 300, 100)
    play.judge(4.0, True)
    assert play.game.snapshot()["value"] is None


def test_C2003_2_7_4_the_snapshot_of_the_final_gives_the_writing_time_in_seconds() -> None:
    play = Play(find_rules("tv-modern"), rounds=rounds((10,)))
    play.select(1.0, 1, 10)
    play.read(2.0)
    play.press(3.0, B)
    play.judge(4.0, True)
    final = play.game.snapshot()["final"]
    assert final is not None and final["answer_time_s"] == 30.0


# -- the game itself (rules/game.py) --------------------------------------------


def test_TV_G_6_a_select_after_the_round_clock_ran_out_strikes_the_rest_first() -> None:
    """No tick came between the last question and the select: the select itself
    finds the clock run out, sounds the gong at its instant and moves to the next round."""
    play = _clocked()
    play.timeout(2.0)
    play.select(700.0, 1, 20)
    assert play.of_type("round_time_up", "round_started") == [
        {"t": 601.0, "type": "round_time_up", "round": 1},
        {"t": 700.0, "type": "round_started", "round": 2, "name": "Раунд 2"},
    ]
    assert play.game.snapshot()["cell"] == [1, 20]


def test_TV_S_CAT_5_no_picture_for_a_special_question_that_is_no_cat() -> None:
    play = _stake(find_rules("tv-modern"), (100, 200))  # everyone at 0: a forced stake
    assert play.game.snapshot()["stage"] == "special"
    assert play.refused(CatPicture(2 * S)) == (
        "cat_picture: no picture-series cat (TV-S-CAT-5) is being played"
    )


def test_C2003_2_2_2_the_first_chooser_drawn_by_lot_says_so() -> None:
    play = Play(find_rules("tv-modern"), chooser=None)
    assert play.out == [
        {"t": 0.0, "type": "first_chooser", "seat": play.game.chooser, "how": "draw"}
    ]


def test_A_G_D1_the_resume_tells_how_long_the_pause_was() -> None:
    play = Play(find_rules("tv-modern"))
    play.do(Pause(S))
    assert play.do(Resume(3 * S + S // 2)) == [{"t": 3.5, "type": "resumed", "paused_s": 2.5}]


def test_a_reading_with_no_question_selected_is_refused_naming_the_command() -> None:
    play = Play(find_rules("tv-modern"))
    busy = "makes no sense now: the board is waiting for the chooser's question"
    with pytest.raises(SequenceError) as caught:
        play.game.reading_start(S, play.decisions)
    assert str(caught.value) == f"reading_start {busy}"
    with pytest.raises(SequenceError) as caught:
        play.game.reading_end(S, play.decisions)
    assert str(caught.value) == f"reading_end {busy}"


def test_A_G3_silence_on_a_special_question_is_the_host_s_wrong_verdict() -> None:
    play = _stake(find_rules("tv-modern"), (100, 200))  # everyone at 0: a forced stake
    with pytest.raises(SequenceError) as caught:
        play.timeout(2.0)
    assert str(caught.value) == (
        "seat 1 must answer this special question: silence is judged wrong by the host "
        "(A-G3, TV-S-CAT-3): send judge wrong"
    )


def test_TV_H_1995_03_silence_in_the_bonus_contest_is_judged_too() -> None:
    play = _bonus(50, 80, 60)
    play.do(BonusReply(22 * S, True))
    with pytest.raises(SequenceError) as caught:
        play.timeout(23.0)
    assert str(caught.value) == (
        "seat 2 is playing the bonus contest: judge each answer (silence is wrong)"
    )


def test_TV_G_6_between_questions_the_next_deadline_is_the_round_clock_s_end() -> None:
    play = _clocked()
    play.timeout(2.0)
    assert play.game.next_deadline() == 541 * S  # the warning first
    play.advance(542.0)
    assert play.game.next_deadline() == 601 * S


def test_a_select_while_the_final_answers_are_judged_is_refused_saying_so() -> None:
    play = Play(find_rules("tv-modern"), rounds=rounds((10,)))
    play.select(1.0, 1, 10)
    play.read(2.0)
    play.press(3.0, B)
    play.judge(4.0, True)
    game = play.game
    assert game.final is not None
    for other in game.final.themes[1:]:
        play.do(FinalRemove(5 * S, other))
    play.do(FinalStake(6 * S, B, 10))
    assert game.snapshot()["stage"] == "final_judging"
    with pytest.raises(SequenceError) as caught:
        play.select(7.0, 1, 10)
    assert str(caught.value) == "the final answers are being judged"


def test_TV_H_2001_09_the_snapshot_orders_the_themes_as_the_rule_system_says() -> None:
    """The package's order where the rule system keeps it; alphabetical where the
    board sorts its columns (TV-H-2001-09)."""
    themes = (RoundSpec("Раунд 1", ("Яблоки", "Арбузы", "Кино"), (100,)),)
    as_given = Play(find_rules("championship-2003"), rounds=themes).game.snapshot()
    assert as_given["theme_order"] == [1, 2, 3]
    sorted_ = Play(find_rules("tv-modern"), rounds=themes).game.snapshot()
    assert sorted_["theme_order"] == [2, 3, 1]
