"""The final round's parts (rules/final.py, rules/final_state.py), pinned word for word.

The final's state exists once the final has started; these tests read what
the host and the screens read of it: every note whole, every refusal as the
host reads it, the snapshot's final block whole at each step. They drive the
engine itself (no settle window, no codec), as tests/rules/test_game_parts.py
does. Outcomes worked out from the rules reference (docs/rules.md).
"""

from __future__ import annotations

import datetime
from typing import Any

from buzzer.arbiter.events import (
    CatGive,
    CatPrice,
    Correction,
    FinalJudge,
    FinalRemove,
    FinalStake,
    Objection,
    Pause,
    Resume,
)
from buzzer.arbiter.machine import SequenceError
from rules.eras import tv_rules_for
from rules.profiles import find_rules
from rules.state import SpecialKind
from tests.rules.test_game_parts import A, B, C, Play, S, rounds


def _finalists_b_and_c(**setup: Any) -> Play:
    """B ends the main rounds with 10, C with 20, A with 0: B and C play a final of
    three themes (the header's count), B first (the lower score: C2003-2.7-D1, TV-F-2)."""
    setup.setdefault("final_themes", 3)
    play = Play(find_rules("tv-modern"), rounds=rounds((10, 20)), **setup)
    play.select(1.0, 1, 10)
    play.read(2.0)
    play.press(3.0, B)
    play.judge(4.0, True)
    play.select(5.0, 1, 20)
    play.read(6.0)
    play.press(7.0, C)
    play.judge(8.0, True)
    return play


def _stakes_in() -> Play:
    play = _finalists_b_and_c()
    play.do(FinalRemove(10 * S, 1, B))
    play.do(FinalRemove(11 * S, 2, C))
    play.do(FinalStake(12 * S, B, 5))
    play.do(FinalStake(13 * S, C, 20))
    return play


def _refusal(play: Play, call: Any) -> str:
    try:
        call()
    except SequenceError as exc:
        return str(exc)
    raise AssertionError("not refused")


def _final_block(play: Play) -> dict[str, Any] | None:
    final = play.game.snapshot()["final"]
    return None if final is None else dict(final)


def test_C2003_2_6_TV_F_1_the_final_starts_with_the_positive_scores_told_whole() -> None:
    play = _finalists_b_and_c()
    assert play.of_type("final_started", "final_turn", "final_theme") == [
        {"t": 8.0, "type": "final_started", "seats": [B, C], "themes": 3},
        {"t": 8.0, "type": "final_turn", "seat": B},
    ]
    assert play.game.snapshot()["stage"] == "final_remove"
    assert _final_block(play) == {
        "seats": [B, C],
        "themes_left": [1, 2, 3],
        "staked": [],
        "judge_order": [B, C],
        "answers_due": None,
        "answers_in": False,
        "answer_time_s": 30.0,
    }


def test_no_final_block_before_the_final() -> None:
    play = Play(find_rules("tv-modern"), rounds=rounds((10, 20)))
    assert play.game.final is None and _final_block(play) is None
    play.select(1.0, 1, 10)
    play.timeout(2.0)
    assert _final_block(play) is None


def test_C2003_2_6_a_score_of_1_is_positive_and_plays_the_final() -> None:
    play = Play(find_rules("tv-modern"), rounds=rounds((10,)))
    play.do(Correction(S, A, 1, "счёт"))
    play.select(2.0, 1, 10)
    play.timeout(3.0)
    assert play.of_type("final_started") == [
        {"t": 3.0, "type": "final_started", "seats": [A], "themes": 7}
    ]


def test_C2003_2_7_2_themes_are_removed_in_turn_and_refused_word_for_word() -> None:
    play = _finalists_b_and_c()
    assert play.refused(FinalRemove(10 * S, 1, C)) == (
        "it is seat 2's turn to remove a theme, not seat 3's"
    )
    assert play.refused(FinalRemove(10 * S, 9, B)) == (
        "theme 9 is not on the final board; left: 1, 2, 3"
    )
    assert play.do(FinalRemove(10 * S, 1, B)) == [
        {"t": 10.0, "type": "final_removed", "seat": B, "theme": 1},
        {"t": 10.0, "type": "final_turn", "seat": C},
    ]
    assert play.refused(FinalRemove(11 * S, 1, C)) == (
        "theme 1 is not on the final board; left: 2, 3"
    )
    assert play.do(FinalRemove(11 * S, 3)) == [
        {"t": 11.0, "type": "final_removed", "seat": C, "theme": 3},
        {"t": 11.0, "type": "final_theme", "theme": 2},
    ]
    block = _final_block(play)
    assert block is not None and block["themes_left"] == [2]
    assert play.game.snapshot()["stage"] == "final_stakes"


def test_C2003_2_7_3_stakes_are_refused_word_for_word_and_told_once() -> None:
    play = _finalists_b_and_c()
    play.do(FinalRemove(10 * S, 1, B))
    play.do(FinalRemove(11 * S, 2, C))
    assert play.refused(FinalStake(12 * S, A, 5)) == "seat 1 does not play the final round"
    assert play.refused(FinalStake(12 * S, B, 0)) == "a final stake must be at least 1"
    # the reading waits for every stake, and names whose is missing
    mark = play.mark()
    assert _refusal(play, lambda: play.game.reading_start(12 * S, play.decisions)) == (
        "the final question is read once every stake is in (C2003-2.7.3, TV-F-3): "
        "waiting for seat 2, seat 3"
    )
    # above the score: all-in (C2003-2.7-D3); a second stake is no second note
    assert play.do(FinalStake(12 * S, B, 500)) == [{"t": 12.0, "type": "final_stake_in", "seat": B}]
    assert play.do(FinalStake(13 * S, B, 7)) == []
    assert play.since(mark) == [{"t": 12.0, "type": "final_stake_in", "seat": B}]
    block = _final_block(play)
    assert block is not None and block["staked"] == [B]
    assert play.do(FinalStake(14 * S, C, None)) == [
        {"t": 14.0, "type": "final_stake_in", "seat": C},
        {"t": 14.0, "type": "final_question", "judge_order": [B, C]},
    ]
    assert play.game.snapshot()["stage"] == "final_judging"
    assert play.game.final is not None and play.game.final.stakes == {B: 7, C: 1}


def test_TV_F_3_stakes_go_in_the_era_s_steps_unless_all_in() -> None:
    """1994: everyone starts with 50; B ends the main rounds with 75."""
    play = Play(tv_rules_for(datetime.date(1994, 6, 1)), rounds=rounds((25,)))
    play.select(1.0, 1, 25)
    play.read(2.0)
    play.press(3.0, B)
    play.judge(4.0, True)
    assert play.refused(FinalStake(5 * S, B, 15)) == "final stakes go in steps of 10"
    assert play.refused(FinalStake(5 * S, B, 5)) == "a final stake must be at least 10"
    assert play.do(FinalStake(5 * S, B, 75)) == [{"t": 5.0, "type": "final_stake_in", "seat": B}]
    assert play.game.final is not None and play.game.final.stakes == {B: 75}


def test_C2003_2_7_4_the_final_question_is_read_once_and_judged_after_the_30_s() -> None:
    play = _stakes_in()
    game, out = play.game, play.decisions
    assert play.refused(FinalJudge(14 * S, True, None)) == (
        "the final question has not been read yet: read it (reading_start, "
        "reading_end), then judge the answers after the 30 s (C2003-2.7.4, TV-F-4)"
    )
    game.reading_start(14 * S, out)
    mark = play.mark()
    game.reading_end(15 * S, out)
    assert play.since(mark) == [{"t": 15.0, "type": "final_timer", "until": 45.0}]
    assert _refusal(play, lambda: game.reading_start(16 * S, out)) == (
        "the final question has been read already: it is read once, and its 30 s "
        "for the answers started at the end of that reading (C2003-2.7.4)"
    )
    assert _refusal(play, lambda: game.reading_end(16 * S, out)).startswith(
        "the final question has been read already"
    )
    assert game.next_deadline() == 45 * S
    assert play.refused(FinalJudge(25 * S, True, None)) == (
        "the players are still writing their answers: 20.0 s of the 30 s "
        "left; judge the answers after them (C2003-2.7.5, TV-F-5)"
    )
    assert play.advance(44.0) == []
    assert play.advance(45.0) == [{"t": 45.0, "type": "final_answers_in", "judge_order": [B, C]}]
    assert play.advance(46.0) == []
    assert game.next_deadline() is None
    block = _final_block(play)
    assert block is not None
    assert (block["answers_due"], block["answers_in"]) == (45 * S, True)


def test_C2003_2_7_5_answers_are_judged_in_ascending_order_of_score() -> None:
    play = _stakes_in()
    game, out = play.game, play.decisions
    game.reading_start(14 * S, out)
    game.reading_end(15 * S, out)
    # the verdict after the 30 s brings the answers in by itself
    assert play.refused(FinalJudge(50 * S, True, C)) == (
        "final answers are judged in ascending order of score: seat 2 is next"
    )
    assert play.do(FinalJudge(51 * S, True, B)) == [
        {"t": 51.0, "type": "final_stake", "seat": B, "stake": 5},
        {"t": 51.0, "type": "score", "seat": B, "delta": 5, "score": 15},
    ]
    block = _final_block(play)
    assert block is not None and block["judge_order"] == [C]
    assert play.do(FinalJudge(52 * S, False, None)) == [
        {"t": 52.0, "type": "final_stake", "seat": C, "stake": 20},
        {"t": 52.0, "type": "score", "seat": C, "delta": -20, "score": 0},
        {"t": 52.0, "type": "game_over", "winner": B},
    ]


def test_A_G_D1_a_pause_in_the_writing_time_moves_its_end_and_says_so() -> None:
    play = _stakes_in()
    game, out = play.game, play.decisions
    game.reading_start(14 * S, out)
    game.reading_end(15 * S, out)
    play.do(Pause(20 * S))
    assert play.do(Resume(30 * S)) == [
        {"t": 30.0, "type": "resumed", "paused_s": 10.0},
        {"t": 30.0, "type": "final_timer", "until": 55.0},
    ]
    assert game.next_deadline() == 55 * S
    assert play.advance(54.0) == []
    assert play.advance(56.0) == [{"t": 55.0, "type": "final_answers_in", "judge_order": [B, C]}]
    # once the answers are in, a pause moves nothing of the final
    play.do(Pause(60 * S))
    assert play.do(Resume(70 * S)) == [{"t": 70.0, "type": "resumed", "paused_s": 10.0}]


def test_A_G_D1_a_pause_before_the_reading_moves_no_final_clock() -> None:
    play = _stakes_in()
    play.do(Pause(14 * S))
    assert play.do(Resume(20 * S)) == [{"t": 20.0, "type": "resumed", "paused_s": 6.0}]
    block = _final_block(play)
    assert block is not None and block["answers_due"] is None


def test_TOUR_3_7_an_objection_before_the_final_s_first_input_reconsiders_it() -> None:
    play = Play(find_rules("tv-modern"), rounds=rounds((10,)))
    play.select(1.0, 1, 10)
    play.read(2.0)
    play.press(3.0, B)
    play.judge(4.0, False)
    play.press(5.0, C)
    play.judge(6.0, True)
    assert play.of_type("final_started") == [
        {"t": 6.0, "type": "final_started", "seats": [C], "themes": 7}
    ]
    assert play.do(Objection(7 * S, B))[:4] == [
        {"t": 7.0, "type": "objection", "seat": B},
        {"t": 7.0, "type": "score", "seat": B, "delta": 20, "score": 10},
        {"t": 7.0, "type": "final_reconsidered"},
        {"t": 7.0, "type": "final_started", "seats": [B, C], "themes": 7},
    ]
    block = _final_block(play)
    assert block is not None and block["seats"] == [B, C] and block["staked"] == []


def test_TOUR_3_7_an_objection_is_refused_once_the_final_has_begun() -> None:
    play = Play(find_rules("tv-modern"), rounds=rounds((10,)), final_themes=2)
    play.select(1.0, 1, 10)
    play.read(2.0)
    play.press(3.0, B)
    play.judge(4.0, False)
    play.press(5.0, C)
    play.judge(6.0, True)
    play.do(FinalRemove(7 * S, 1, C))
    assert play.refused(Objection(8 * S, B)) == (
        "objections are accepted only after a question closes and before the next "
        "is selected (TOUR-3.7)"
    )


def test_TOUR_3_7_an_objection_while_a_question_is_played_is_refused() -> None:
    play = Play(find_rules("tv-modern"), rounds=rounds((10, 20)))
    play.select(1.0, 1, 10)
    play.read(2.0)
    play.press(3.0, B)
    play.judge(4.0, False)
    play.timeout(5.0)
    play.select(6.0, 1, 20)
    play.read(7.0)
    play.press(8.0, B)
    play.judge(9.0, False)
    assert play.refused(Objection(10 * S, B)) == (
        "objections are accepted only after a question closes and before the next "
        "is selected (TOUR-3.7)"
    )


def test_SPORT_D_a_tie_for_first_with_no_final_and_no_chooser_is_told() -> None:
    play = Play(find_rules("sport-false-start"), rounds=rounds((10,)))
    play.select(1.0, 1, 10)
    play.timeout(2.0)
    assert play.of_type("tie_for_first", "game_over", "shootout_started") == [
        {"t": 2.0, "type": "tie_for_first", "seats": [A, B, C]},
        {"t": 2.0, "type": "game_over", "winner": None},
    ]


def test_C2003_2_4_6e_a_special_question_s_reading_is_not_started_twice() -> None:
    rules = tv_rules_for(datetime.date(2003, 6, 1))
    play = Play(rules, rounds=rounds((100, 200)), specials={(1, 1, 200): SpecialKind.CAT})
    play.select(1.0, 1, 200)
    play.do(CatGive(2 * S, B))
    play.do(CatPrice(3 * S, 300))
    game, out = play.game, play.decisions
    game.reading_start(4 * S, out)
    game.reading_end(5 * S, out)
    assert _refusal(play, lambda: game.reading_start(6 * S, out)) == (
        "reading_start makes no sense now: the special question has been read, "
        "seat 2 is thinking: judge the answer"
    )
    assert _refusal(play, lambda: game.reading_end(6 * S, out)) == (
        "reading_end makes no sense now: the special question has been read, "
        "seat 2 is thinking: judge the answer"
    )
    play.judge(7.0, True)
    assert play.game.snapshot()["special"] is None
