"""docs/rules.md Part E scenarios of the full game, and the Part B rules behind them:
the first chooser of later rounds, the round clock, objections.

Each scenario is a journal replayed through the real core (``tests.conftest.run``); the
expected values are worked out by hand from docs/rules.md. Scenario scores are set up with
``correction`` lines at t = 0. The lines they share are tests/support/scenario_lines.py's.

The rest of the full game: test_scenarios_specials_and_bad_input.py (the special
questions, bad input through the CLI), test_scenarios_final_round.py (the final round and
the shootout).

Seats: A = 1, B = 2, C = 3.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import of_type, run
from tests.support.lines import (
    bad,
    objection,
    ok,
    pr,
    re_,
    rejected_line,
    result,
    rs,
    sel,
    stake,
    timeout,
)
from tests.support.scenario_lines import (
    BLUE,
    E18_QUESTION,
    PLAYERS,
    A,
    B,
    C,
    after,
    c2003,
    final_header,
    final_scores,
    scores_at,
    strip_t,
    tv_on,
)

# =======================================================================================
# Rounds: the first chooser of the Red round (C2003-2.3.2)
# =======================================================================================

TWO_ROUNDS = {
    "rounds": [
        {"name": "Синий раунд", "themes": 1, "prices": [10]},
        {"name": "Красный раунд", "themes": 1, "prices": [20]},
    ]
}


def e09(seed: int, a: int, b: int, c: int) -> list[dict[str, Any]]:
    return run(
        c2003(A, board=TWO_ROUNDS, seed=seed),
        *scores_at(0, a, b, c),
        sel(1.0, 1, 10),
        timeout(2.0),  # the Blue round is over: A 60, B 30, C 30
        sel(3.0, 1, 20),
    )


@pytest.mark.parametrize("seed", range(8))
def test_E09_c2003_red_round_lowest_score_chooses_tie_by_lot(seed: int) -> None:
    out = e09(seed, 60, 30, 30)
    lots = of_type(out, "lot")
    assert len(lots) == 1
    assert lots[0]["t"] == 3.0
    assert lots[0]["seats"] == [B, C]
    winner = lots[0]["winner"]
    assert winner in (B, C)
    assert strip_t(after(out, 3.0, "round_started", "chooser", "question")) == [
        {"type": "round_started", "round": 2, "name": "Красный раунд"},
        {"type": "chooser", "seat": winner},
        {"type": "question", "round": 2, "theme": 1, "price": 20},
    ]
    assert result(out)["chooser"] == winner


# A is the eldest, C the youngest; B and C tied in age in the second header.
BIRTHS = ["1970-05-01", "1980-05-01", "1990-05-01"]
TWINS = ["1970-05-01", "1990-05-01", "1990-05-01"]


@pytest.mark.parametrize("seed", range(4))
def test_TV_G_4_red_round_lowest_score_tie_goes_to_the_youngest(seed: int) -> None:
    head = tv_on(None, A, board=TWO_ROUNDS, seed=seed, birth_dates=BIRTHS)
    out = run(head, *scores_at(50, 60, 30, 30), sel(1.0, 1, 10), timeout(2.0), sel(3.0, 1, 20))
    assert strip_t(after(out, 3.0, "round_started", "youngest", "lot", "chooser")) == [
        {"type": "round_started", "round": 2, "name": "Красный раунд"},
        {"type": "youngest", "seats": [B, C], "winner": C},
        {"type": "chooser", "seat": C},
    ]
    # Born the same day: the birth dates do not tell B and C apart, the lot does.
    twins = run(
        {**head, "birth_dates": TWINS},
        *scores_at(50, 60, 30, 30),
        sel(1.0, 1, 10),
        timeout(2.0),
        sel(3.0, 1, 20),
    )
    lots = of_type(twins, "lot")
    assert [(o["seats"], o["winner"] in (B, C)) for o in lots] == [([B, C], True)]
    assert of_type(twins, "youngest") == []


@pytest.mark.parametrize("seed", range(4))
def test_TV_G_4_the_youngest_chooses_first(seed: int) -> None:
    head = {"rules": "tv-1994", "players": PLAYERS, "seed": seed, "birth_dates": BIRTHS}
    out = run(head, sel(1.0, 1, 10))
    assert strip_t(of_type(out, "first_chooser")) == [
        {"type": "first_chooser", "seat": C, "how": "youngest"}
    ]


def test_E09_c2003_red_round_tie_is_a_draw_not_a_fixed_rule() -> None:
    winners = {of_type(e09(seed, 60, 30, 30), "lot")[0]["winner"] for seed in range(20)}
    assert winners == {B, C}


def test_C2003_2_3_2_red_round_lowest_score_without_tie() -> None:
    out = e09(0, 60, 40, 30)
    assert of_type(out, "lot") == []
    assert strip_t(after(out, 3.0, "chooser")) == [{"type": "chooser", "seat": C}]


# =======================================================================================
# E28: the round clock (TV-G-6, Oct 1994 – Jan 2008)
# =======================================================================================

#: The 30 cells of the default 6 × 5 Blue board in order.
BLUE_CELLS = [(theme, price) for theme in range(1, 7) for price in (10, 20, 30, 40, 50)]


def e28_events() -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    # Questions 1-16 from t = 10 (the round's first select): nobody answers.
    for k in range(16):
        theme, price = BLUE_CELLS[k]
        events += [sel(10.0 + 35 * k, theme, price), timeout(11.0 + 35 * k)]
    # Question 17 starts at 570; the clock passes 10:00 (t = 610) while it is played.
    theme, price = BLUE_CELLS[16]
    assert (theme, price) == (4, 20)
    events += [
        sel(570.0, theme, price),
        rs(571.0),
        re_(605.0),
        pr(606.0, B),
        bad(607.0),  # B 50 - 20 = 30
        pr(608.0, C),
        ok(615.0),  # finished after 10:00: C 50 + 20 = 70
    ]
    return events


def test_E28_tv_round_clock_ends_the_round_after_the_question_in_progress() -> None:
    out = run(tv_on("1995-06-01", A), *e28_events(), sel(620.0, 1, 40))
    # Question 17 is finished and scored.
    assert strip_t(after(out, 607.0, "score")) == [
        {"type": "score", "seat": B, "delta": -20, "score": 30},
        {"type": "score", "seat": C, "delta": 20, "score": 70},
    ]
    # The gong at 10:00, the round ends, the Red round starts with the lowest score (B).
    # (June 1995: the bonus contest is offered at the gong; the host's select skips it.)
    from_gong = [o for o in out if o["type"] == "round_time_up" or o.get("t", 0) >= 620.0]
    assert strip_t(from_gong) == [
        {"type": "round_time_up", "round": 1},
        {"type": "bonus_not_played", "skipped": True},
        {"type": "round_started", "round": 2, "name": "Красный раунд"},
        {"type": "chooser", "seat": B},
        {"type": "question", "round": 2, "theme": 1, "price": 40},
    ]
    assert of_type(out, "round_time_up")[0]["t"] == 610.0
    # 17 questions of the Blue round were played, 13 were not.
    assert len([o for o in of_type(out, "question") if o["round"] == 1]) == 17


def test_TV_H_1994_10_a_warning_signal_one_minute_before_the_gong() -> None:
    # The clock runs from the first select at 10: the warning at 9:00 (t = 550), between
    # question 16 (535-536) and question 17 (570); the gong at 10:00 (610).
    out = run(tv_on("1995-06-01", A), *e28_events(), sel(620.0, 1, 40))
    assert of_type(out, "round_warning") == [
        {"t": 550.0, "type": "round_warning", "round": 1, "left_s": 60.0}
    ]
    warned = out.index(of_type(out, "round_warning")[0])
    assert [o["type"] for o in out[warned - 1 : warned + 2]] == [
        "chooser",
        "round_warning",
        "question",
    ]
    assert of_type(out, "round_time_up")[0]["t"] == 610.0
    # ...and in the middle of a question it decides nothing: the question goes on
    mid = run(
        tv_on("1995-06-01", A), sel(10.0, 1, 10), rs(11.0), re_(545.0), pr(546.0, B), ok(555.0)
    )
    assert [o["type"] for o in mid if 546.0 <= o.get("t", 0) <= 555.0] == [
        "recognized",
        "round_warning",
        "score",
        "chooser",
    ]


@pytest.mark.parametrize(
    ("date", "warned"), [("1994-09-30", False), ("1994-10-01", True), ("2001-09-16", False)]
)
def test_TV_H_1994_10_and_2001_09_the_warning_exists_in_its_era_only(
    date: str, warned: bool
) -> None:
    out = run(tv_on(date, A), sel(10.0, 1, 10 if date < "2001" else 100), timeout(11.0))
    out += run(tv_on(date, A), sel(10.0, 1, 10 if date < "2001" else 100), timeout(560.0))
    assert bool(of_type(out, "round_warning")) is warned


def test_E28_tv_round_clock_runs_out_between_questions() -> None:
    # The first select at 10 starts the clock; the next select comes at 620, past 10:00.
    out = run(tv_on("1995-06-01", A), sel(10.0, 1, 10), timeout(11.0), sel(620.0, 1, 40))
    assert of_type(out, "round_time_up") == [{"t": 610.0, "type": "round_time_up", "round": 1}]
    assert strip_t(of_type(out, "round_started")) == [
        {"type": "round_started", "round": 2, "name": "Красный раунд"}
    ]
    assert [(o["t"], o["round"]) for o in of_type(out, "question")] == [(10.0, 1), (620.0, 2)]


def test_E28_tv_round_clock_unplayed_blue_cells_are_gone() -> None:
    # Theme 6 for 50 was never played in the Blue round; after the gong it is not
    # offered (the Red round has no 50).
    head = tv_on("1995-06-01", A)
    assert rejected_line(head, *e28_events(), sel(620.0, 6, 50)) == len(e28_events()) + 2


def test_TV_G_6_no_gong_for_a_round_played_to_the_end() -> None:
    # The one-question Blue round is played at 10-11 s; the Red round is chosen at 700 s.
    out = run(
        tv_on("1995-06-01", A, board=TWO_ROUNDS), sel(10.0, 1, 10), timeout(11.0), sel(700.0, 1, 20)
    )
    assert [o["round"] for o in of_type(out, "round_started")] == [2]
    assert [o["round"] for o in of_type(out, "question")] == [1, 2]
    # No round_time_up: the Blue round ended when its questions were all played (TV-G-6),
    # long before 10:00. (Regression: up to ca74e59 a spurious {"t": 610.0, "type":
    # "round_time_up", "round": 1} was printed at the select at 700; fixed by da7e00f.)
    assert of_type(out, "round_time_up") == []


@pytest.mark.parametrize(
    ("rules", "date"),
    [("tv-1994", None), ("tv-1994", "1994-09-30"), ("tv-1994", "2008-01-01"), ("tv-modern", None)],
)
def test_TV_G_6_no_round_clock_outside_oct_1994_to_jan_2008(rules: str, date: str | None) -> None:
    head: dict[str, Any] = {"rules": rules, "players": PLAYERS, "chooser": A}
    if date is not None:
        head["date"] = date
    price = 10 if rules == "tv-1994" and date != "2008-01-01" else 100
    out = run(head, sel(10.0, 1, price), timeout(11.0), sel(900.0, 2, price))
    assert of_type(out, "round_time_up") == []
    assert [o["round"] for o in of_type(out, "question")] == [1, 1]


def test_TV_G_6_round_clock_ends_the_last_round_and_the_final_follows() -> None:
    head = tv_on(
        "1995-06-01",
        A,
        board={"rounds": [{"name": "Красный раунд", "themes": 2, "prices": [20, 40]}]},
    )
    # Nobody answers the first question; then 10:00 pass (t = 610) with 3 questions
    # unplayed: the round and the main rounds are over, and the host goes on to the final.
    out = run(head, sel(10.0, 1, 20), timeout(11.0), stake(700.0, A, 10))
    # Regression: up to ca74e59 the clock was checked only at a select, so this
    # final_stake was refused ("final_stake makes no sense now") and a select at 700 too
    # ("every question has been played: the board is empty"): a game whose last round ran
    # out of time never reached its final. Fixed by da7e00f.
    assert of_type(out, "round_time_up")[0] == {"t": 610.0, "type": "round_time_up", "round": 1}
    assert strip_t(of_type(out, "final_started")) == [
        {"type": "final_started", "seats": [A, B, C], "themes": 1}
    ]
    assert strip_t(of_type(out, "final_stake_in")) == [{"type": "final_stake_in", "seat": A}]


# =======================================================================================
# Objections (TOUR-3.7)
# =======================================================================================


def test_TOUR_3_7_an_objection_by_a_seat_never_ruled_wrong_is_refused() -> None:
    head = c2003(B, board={"rounds": [BLUE]})
    # E18: A was ruled wrong; B never answered, so B has nothing to object to
    assert rejected_line(head, *E18_QUESTION, objection(12.0, B)) == 7
    # ...nor has a seat ruled right: its verdict is already the right one
    right = (*E18_QUESTION, pr(4.5, B), ok(5.0))  # lines 2-8
    assert rejected_line(head, *right, objection(12.0, B)) == 9
    assert strip_t(of_type(run(head, *right, objection(12.0, A)), "objection")) == [
        {"type": "objection", "seat": A}
    ]


def test_E18_objection_accepted_plus_80_and_chooser() -> None:
    out = run(c2003(B, board={"rounds": [BLUE]}), *E18_QUESTION, objection(12.0, A))
    assert strip_t(of_type(out, "score")) == [
        {"type": "score", "seat": A, "delta": -40, "score": -40},
        # The -40 becomes +40: +80.
        {"type": "score", "seat": A, "delta": 80, "score": 40},
    ]
    assert strip_t(of_type(out, "objection")) == [{"type": "objection", "seat": A}]
    # Nobody else was right: A becomes the chooser.
    assert of_type(out, "chooser")[-1] == {"t": 12.0, "type": "chooser", "seat": A}
    assert result(out) == {
        "type": "result",
        "scores": {"1": 40, "2": 0, "3": 0},
        "chooser": A,
    }


def test_E18_objection_when_another_player_was_right_keeps_the_chooser() -> None:
    out = run(
        c2003(C, board={"rounds": [BLUE]}),
        *E18_QUESTION,
        pr(5.0, B),
        ok(6.0),  # B right: B chooses
        objection(12.0, A),
    )
    assert strip_t(after(out, 12.0)) == [
        {"type": "objection", "seat": A},
        {"type": "score", "seat": A, "delta": 80, "score": 40},
    ]
    assert result(out) == {
        "type": "result",
        "scores": {"1": 40, "2": 40, "3": 0},
        "chooser": B,
    }


def test_TOUR_3_7_objection_on_the_last_question_counts_for_final_eligibility() -> None:
    # A (20) is ruled wrong on the Red round's last question (-40 → -20), objects before
    # any next question, and the host accepts: A has 60 at the end of the Red round, so
    # A plays the final (C2003-2.6a).
    out = run(
        final_header(board={"rounds": [{"name": "Красный раунд", "themes": 1, "prices": [40]}]}),
        *scores_at(0, 20, 100, 50),
        *E18_QUESTION,
        objection(20.0, A),
    )
    assert final_scores(out) == {"1": 60, "2": 100, "3": 50}
    # The accepted objection (A 60) comes before anything of the final happened:
    # the final is reconsidered and A plays it too (TOUR-3.7, C2003-2.6a).
    assert of_type(out, "final_started")[-1]["seats"] == [A, B, C]
