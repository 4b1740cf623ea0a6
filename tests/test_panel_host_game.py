"""The host's game night in a real headless Chromium (issue 12): what the host
reads on the panel in every stage, specials and the final included, and the
page's bugs found by playing a whole package through it.

Each test drives the game through the API (as another panel or a script
would) or by tapping the page, and asserts on what the page shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from panel_game import (
    CAT_CELL,
    FINAL_THEMES,
    SPONSOR_CELL,
    STAKE_CELL,
    TABLET,
    answer_of,
    board_package,
    chromium,
    comment_of,
    final_answer,
    final_package,
    final_text,
    host_page,
    open_question,
    package_rig,
    press,
    remove_to_one,
    text_of,
    to_final,
    wait_stage,
)
from panel_support import PIN, Commands

# A long answer window and answer time: nothing moves on by itself mid-test.
STILL = {"window_s": 600, "answer_time_s": 600}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as browser:
        yield browser


def shown_question(page: Any) -> str:
    page.wait_for_selector("#question-text")
    text: str = page.inner_text("#question-text")
    return text


def test_special_questions_show_the_host_the_question_and_the_answer(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)

        # The cat in the bag: its own theme and value, and the question, from the start.
        commands.ok({"type": "select", "theme": CAT_CELL[0], "price": CAT_CELL[1]})
        wait_stage(page, "cat_give")
        cat = page.inner_text("#cat-info")
        assert "КОРАБЛИ" in cat and "700" in cat
        shown = shown_question(page)
        assert text_of(*CAT_CELL)[:60] in shown and answer_of(*CAT_CELL)[0] in shown
        commands.ok({"type": "cat_give", "seat": 2})
        wait_stage(page, "cat_price")
        assert "КОРАБЛИ" in page.inner_text("#cat-info")
        assert answer_of(*CAT_CELL)[0] in shown_question(page)
        commands.ok({"type": "cat_price", "price": 500})
        wait_stage(page, "special")
        shown = shown_question(page)
        for part in (text_of(*CAT_CELL)[:60], *answer_of(*CAT_CELL), comment_of(*CAT_CELL)):
            assert part in shown
        assert "КОРАБЛИ" in page.inner_text("#cat-info")
        commands.ok({"type": "judge", "verdict": "correct"})
        wait_stage(page, "board")

        # The sponsor question (seat 2 chooses now).
        commands.ok({"type": "select", "theme": SPONSOR_CELL[0], "price": SPONSOR_CELL[1]})
        wait_stage(page, "special")
        shown = shown_question(page)
        assert text_of(*SPONSOR_CELL)[:60] in shown and answer_of(*SPONSOR_CELL)[0] in shown
        assert comment_of(*SPONSOR_CELL) in shown
        page.click("#judge-correct")
        wait_stage(page, "board")

        # The stake question: the bidding, then the winner's answer.
        commands.ok({"type": "select", "theme": STAKE_CELL[0], "price": STAKE_CELL[1]})
        wait_stage(page, "bidding")
        assert answer_of(*STAKE_CELL)[0] in shown_question(page)
        state = rig.state()
        bidding = state["bidding"]
        commands.ok({"type": "bid", "seat": bidding["turn"], "amount": 500})
        while (state := rig.state())["stage"] == "bidding":
            commands.ok({"type": "pass", "seat": state["bidding"]["turn"]})
            rig.wait_state(lambda s, v=state["version"]: s["version"] > v, "the pass")
        wait_stage(page, "special")
        shown = shown_question(page)
        assert text_of(*STAKE_CELL)[:60] in shown and answer_of(*STAKE_CELL)[1] in shown
        assert page.errors == []


def test_the_final_shows_the_theme_names_then_the_question_after_the_stakes(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, final_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        to_final(rig, commands)
        page = host_page(browser, rig)
        wait_stage(page, "final_remove")
        for number, name in enumerate(FINAL_THEMES, 1):
            assert page.inner_text(f"#final-theme-{number}") == name
        assert "Тема 1" not in page.inner_text("#stage")
        # The host removes six themes on the page, in turn; the last one stays.
        for number in range(1, len(FINAL_THEMES)):
            page.click(f"#final-theme-{number}")
            page.wait_for_selector(f"#final-theme-{number}", state="detached")
        wait_stage(page, "final_stakes")
        assert page.inner_text("#final-theme-name") == FINAL_THEMES[-1]
        # The question stays hidden until every stake is in.
        assert final_text(7)[:40] not in page.inner_text("#stage")
        assert page.query_selector("#question-text") is None
        for seat in (1, 2, 3):
            page.fill(f"input[data-key='stake-{seat}']", "50")
            page.click(f"#stake-{seat}")
            if seat < 3:  # the last stake moves the final on
                page.wait_for_selector(f".bidder[data-seat='{seat}'].passed")
        wait_stage(page, "final_judging")
        shown = shown_question(page)
        assert final_text(7)[:60] in shown and final_answer(7) in shown
        assert page.inner_text("#final-theme-name") == FINAL_THEMES[-1]
        assert page.errors == []


def test_a_final_stake_above_the_score_is_refused_at_entry(browser: Any, tmp_path: Path) -> None:
    with package_rig(tmp_path, final_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        to_final(rig, commands)
        remove_to_one(rig, commands)
        score = rig.state()["scores"]["1"]
        page = host_page(browser, rig)
        wait_stage(page, "final_stakes")
        assert str(score) in page.inner_text("#stake-limit-1")  # the limit is shown
        lines = len(rig.store)
        page.fill("input[data-key='stake-1']", str(score + 900))
        page.wait_for_selector("#stake-error-1:not([hidden])")
        assert str(score) in page.inner_text("#stake-error-1")
        page.click("#stake-1", force=True)  # even a tap that gets through sends nothing
        page.wait_for_timeout(300)
        assert len(rig.store) == lines
        assert rig.state()["final"]["staked"] == []
        # The score itself (all-in) is a stake.
        page.fill("input[data-key='stake-1']", str(score))
        page.wait_for_selector("#stake-error-1", state="hidden")
        page.click("#stake-1")
        page.wait_for_selector(".bidder[data-seat='1'].passed")
        assert rig.state()["final"]["staked"] == [1]
        assert page.errors == []


def test_logging_in_while_a_question_is_open_shows_that_question(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        commands.ok({"type": "select", "theme": 2, "price": 300})
        rig.wait_state(lambda s: s["stage"] == "question", "the question")
        context = browser.new_context(viewport=TABLET)
        page = context.new_page()
        page.goto(rig.url + "/")
        page.wait_for_selector("#login:not([hidden])")
        # drawn behind the login, without the host's text (not the host's yet)
        page.wait_for_selector("#stage[data-stage='question']", state="attached")
        for digit in PIN:
            page.click(f"[data-digit='{digit}']")
        page.click("#pin-go")
        page.wait_for_selector("#game:not([hidden])")
        shown = shown_question(page)
        assert text_of(2, 300)[:60] in shown and answer_of(2, 300)[0] in shown
        context.close()


def test_the_connection_badge_survives_a_language_switch(browser: Any, tmp_path: Path) -> None:
    with package_rig(tmp_path, board_package()) as rig:
        page = host_page(browser, rig)
        assert page.inner_text("#link") == "связь есть"
        page.click("#lang-btn")
        page.wait_for_function(
            "document.querySelector('#stage-label').textContent === 'Choosing a question'"
        )
        assert page.inner_text("#link") == "connected"
        assert "up" in (page.get_attribute("#link", "class") or "")
        page.click("#lang-btn")
        page.wait_for_function("document.querySelector('#link').textContent === 'связь есть'")
        # The viewer's page has the same lamp.
        viewer = browser.new_page()
        viewer.goto(rig.url + "/view")
        viewer.wait_for_selector("#link.up")
        viewer.click("#lang-btn")
        viewer.wait_for_function("document.documentElement.lang === 'en'")
        assert viewer.inner_text("#link") == "connected"
        viewer.close()


def test_a_refusal_shows_on_top_of_the_dialog_that_caused_it(browser: Any, tmp_path: Path) -> None:
    with package_rig(tmp_path, board_package()) as rig:
        page = host_page(browser, rig)
        page.click("#objection-btn")
        page.wait_for_selector("#objection-dialog[open]")
        # Nobody answered wrong yet: the server refuses the objection.
        page.click("#objection-seats button >> nth=0")
        page.wait_for_selector("#toast")
        on_top = page.evaluate(
            """() => {
                const toast = document.getElementById('toast');
                const r = toast.getBoundingClientRect();
                const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                return {hit: hit && (hit.id || hit.tagName), inside: toast.contains(hit),
                        opacity: getComputedStyle(toast).opacity};
            }"""
        )
        assert on_top["inside"], on_top
        assert float(on_top["opacity"]) == 1.0
        assert "Апелляцию" in page.inner_text("#toast")
        assert page.is_visible("#objection-dialog")  # the dialog stays open behind it
        page.click("#toast")  # a tap takes it down
        page.wait_for_selector("#toast", state="hidden")
        assert page.errors == []


def test_a_question_nobody_answered_stays_until_the_host_moves_on(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, board_package(), game_options={"window_s": 1.5}) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        open_question(rig, commands, 1, 200)
        rig.wait_state(lambda s: s["stage"] == "board", "the window closed with no press")
        page.wait_for_selector("#held-answer")
        held = page.inner_text("#held-answer")
        assert answer_of(1, 200)[0] in held and comment_of(1, 200) in held
        assert page.query_selector(".board") is None
        page.wait_for_timeout(500)  # it stays: nothing but the host moves it on
        assert page.query_selector("#held-answer") is not None
        page.click("#to-board")
        page.wait_for_selector(".board")
        assert page.query_selector("#held-answer") is None

        # Held again, then the next select (from another panel) moves it on.
        open_question(rig, commands, 1, 300)
        rig.wait_state(lambda s: s["stage"] == "board", "the window closed again")
        page.wait_for_selector("#held-answer")
        commands.ok({"type": "select", "theme": 2, "price": 100})
        wait_stage(page, "question")
        page.wait_for_selector("#held-answer", state="detached")
        assert text_of(2, 100)[:60] in shown_question(page)

        # A right answer needs no reading out: the board comes straight back.
        commands.ok({"type": "reading_end"})
        rig.wait_state(lambda s: s["phase"] == "open", "the open window")
        press(rig, commands, 1)
        page.wait_for_selector("#judge-correct")
        page.click("#judge-correct")
        page.wait_for_selector(".board")
        assert page.query_selector("#held-answer") is None
        assert page.errors == []
