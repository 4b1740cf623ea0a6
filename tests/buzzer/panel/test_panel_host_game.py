"""The host's game night in a real headless Chromium (issue 12): what the host
reads on the panel in every stage, specials and the final included, and the
page's bugs found by playing a whole package through it.

Each test drives the game through the API (as another panel or a script
would) or by tapping the page, and asserts on what the page shows.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from buzzer.panel import hub
from tests.support.panel_game import (
    CAT_CELL,
    FINAL_THEMES,
    PHONE,
    PLAYERS,
    SPONSOR_CELL,
    STAKE_CELL,
    STILL,
    TABLET,
    answer_of,
    board_package,
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
from tests.support.panel_support import PIN, Commands


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
            "() => document.querySelector('#stage-label').textContent === 'Choosing a question'"
        )
        assert page.inner_text("#link") == "connected"
        assert "up" in (page.get_attribute("#link", "class") or "")
        page.click("#lang-btn")
        page.wait_for_function("() => document.querySelector('#link').textContent === 'связь есть'")
        # The viewer's page has the same lamp.
        viewer = browser.new_page()
        viewer.goto(rig.url + "/view")
        viewer.wait_for_selector("#link.up")
        viewer.click("#lang-btn")
        viewer.wait_for_function("() => document.documentElement.lang === 'en'")
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


# -- what a tester found playing a whole package on the panel -------------------------


def accept_dialog(page: Any, messages: list[str], accept: bool) -> None:
    """Answer the page's next confirm(), keeping its message."""

    def answer(dialog: Any) -> None:
        messages.append(dialog.message)
        if accept:
            dialog.accept()
        else:
            dialog.dismiss()

    page.once("dialog", answer)


def stake_box(page: Any, seat: int) -> str:
    value: str = page.input_value(f"input[data-key='stake-{seat}']")
    return value


def test_an_accepted_final_stake_is_shown_and_changed_only_when_confirmed(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, final_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        to_final(rig, commands)
        remove_to_one(rig, commands)
        page = host_page(browser, rig)
        wait_stage(page, "final_stakes")
        # The box starts empty; its steps land on the round's price (100), never on 1 + 100.
        assert stake_box(page, 1) == ""
        up = ".bidder[data-seat='1'] .step[data-nudge='up']"
        down = ".bidder[data-seat='1'] .step[data-nudge='down']"
        page.click(up)
        assert stake_box(page, 1) == "100"
        page.fill("input[data-key='stake-1']", "50")
        page.click(up)
        assert stake_box(page, 1) == "100"
        page.click(down)
        assert stake_box(page, 1) == "1"  # the minimum stake
        page.fill("input[data-key='stake-1']", "70")
        page.click("#stake-1")
        page.wait_for_selector(".bidder[data-seat='1'].passed")
        # Accepted: the host sees the stake; no one-tap button can replace it.
        assert "70" in page.inner_text("#stake-status-1")
        assert page.query_selector("#stake-none-1") is None
        assert page.query_selector("input[data-key='stake-1']") is None
        # A reload shows it still, and «Изменить» opens the box with the real stake in it.
        page.reload()
        page.wait_for_selector("#link.up")
        page.wait_for_selector("#stake-edit-1")
        assert "70" in page.inner_text("#stake-status-1")
        page.click("#stake-edit-1")
        assert stake_box(page, 1) == "70"
        # A change asks first, naming the old amount and the new; declined, nothing is sent.
        lines = len(rig.store)
        messages: list[str] = []
        page.fill("input[data-key='stake-1']", "40")
        accept_dialog(page, messages, accept=False)
        page.click("#stake-1")
        accept_dialog(page, messages, accept=False)
        page.click("#stake-none-1")
        page.wait_for_timeout(300)
        assert len(messages) == 2, messages
        assert "70" in messages[0] and "40" in messages[0] and "Анна" in messages[0]
        assert "70" in messages[1] and "без ставки" in messages[1]
        assert len(rig.store) == lines
        # Confirmed, the stake is replaced.
        accept_dialog(page, messages, accept=True)
        page.click("#stake-1")
        page.wait_for_function(
            "() => (document.querySelector('#stake-status-1') || {}).textContent?.includes('40')"
        )
        stakes = [line for line in rig.lines() if line["type"] == "final_stake"]
        assert [(line["seat"], line["amount"]) for line in stakes] == [(1, 70), (1, 40)]
        # The command log names the amounts (the host's page only).
        page.click("#log-btn")
        log = page.inner_text("#log-list")
        assert "Ставка финала: Анна — 40" in log and "Ставка финала: Анна — 70" in log
        page.click("#log-close")
        viewer = browser.new_page()
        viewer.goto(rig.url + "/view")
        viewer.wait_for_selector("#link.up")
        assert "40" not in viewer.inner_text("body") and "70" not in viewer.inner_text("body")
        viewer.close()
        assert page.errors == []


def test_a_false_start_alert_goes_after_its_time_and_a_reload_does_not_bring_it_back(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its time is the hub's (8 s in a game); 3 s here, so the suite does not wait 8.
    monkeypatch.setitem(hub.TRANSIENT_ALERTS_NS, "false_start", 3_000_000_000)
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        commands.ok({"type": "select", "theme": 1, "price": 100})
        commands.ok({"type": "reading_start"})
        rig.wait_state(lambda s: s["phase"] == "reading", "the reading")
        page = host_page(browser, rig)
        press(rig, commands, 3)  # during the reading: a false start
        alert = ".alert[data-kind='false_start']"
        page.wait_for_selector(alert)
        shown = time.monotonic()
        assert "Вера" in page.inner_text(alert)
        # within its time a reload shows it still
        page.reload()
        page.wait_for_selector("#link.up")
        page.wait_for_selector(alert)
        # then it goes by itself, and no reload brings it back: the server's clock says so
        page.wait_for_selector(alert, state="detached", timeout=15_000)
        assert time.monotonic() - shown > 2
        page.reload()
        page.wait_for_selector("#link.up")
        wait_stage(page, "question")
        page.wait_for_timeout(400)
        assert page.query_selector(".alert") is None
        panel = rig.client().get("/api/state").json()["panel"]
        assert [a for a in panel["alerts"] if a["kind"] == "false_start"] == []
        assert page.errors == []


def test_the_host_is_told_what_the_board_shows_and_why_an_auction_was_skipped(
    browser: Any, tmp_path: Path
) -> None:
    package = board_package()
    first = package["rounds"][0]["themes"][0]["questions"]
    first[0]["media"] = [
        {"kind": "image", "file": "map.png"},
        {"kind": "audio", "file": "anthem.mp3"},
        {"kind": "image", "file": "flag.png"},
    ]
    first[1]["media"] = [{"kind": "video", "file": "clip.mp4"}]
    with package_rig(tmp_path, package, game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        # Every score is 0: the opener plays for the nominal, nobody can outbid.
        commands.ok({"type": "select", "theme": STAKE_CELL[0], "price": STAKE_CELL[1]})
        wait_stage(page, "special")
        assert page.inner_text("#stage .special") == "Аукцион"
        note = page.inner_text("#auction-note")
        assert "Аукцион: остальные не могут перебить — Анна отвечает за 500" in note
        assert "на счёте меньше 500" in note
        page.reload()  # the log says it: a reload keeps it
        page.wait_for_selector("#auction-note")
        assert "остальные не могут перебить" in page.inner_text("#auction-note")
        commands.ok({"type": "judge", "verdict": "correct"})
        # A question with pictures and a sound: the host is told what the board shows.
        commands.ok({"type": "select", "theme": 1, "price": 100})
        wait_stage(page, "question")
        assert page.inner_text("#on-board") == "На табло: картинка, звук"
        page.click("#lang-btn")
        page.wait_for_function(
            "() => document.querySelector('#on-board').textContent"
            " === 'On the board: a picture, sound'"
        )
        page.click("#lang-btn")
        commands.ok({"type": "timeout"})
        page.click("#to-board")
        commands.ok({"type": "select", "theme": 1, "price": 200})
        wait_stage(page, "question")
        page.wait_for_function(
            "() => (document.querySelector('#on-board') || {}).textContent"
            " === 'На табло: видео (не воспроизводится)'"
        )
        assert page.errors == []


def cat_package(cat: dict[str, Any], sponsor: bool = True) -> dict[str, Any]:
    """The board package with its cat's parameters ``cat`` (``sponsor=False``: its
    sponsor question a plain one, for the rules of an era that had none)."""
    package = board_package()
    themes = package["rounds"][0]["themes"]
    themes[CAT_CELL[0] - 1]["questions"][3]["cat"] = cat
    if not sponsor:
        del themes[SPONSOR_CELL[0] - 1]["questions"][SPONSOR_CELL[1] // 100 - 1]["kind"]
    return package


def test_the_cat_says_what_the_package_states_and_what_the_rules_play(
    browser: Any, tmp_path: Path
) -> None:
    cat = {"theme": "КОРАБЛИ", "price": {"min": 500, "max": 1000}, "receiver": "any"}
    for folder in ("modern", "1996"):
        (tmp_path / folder).mkdir()
    # tv-modern: the round's minimum or maximum, given to an opponent (TV-S-CAT-1, -2)
    with package_rig(tmp_path / "modern", cat_package(cat), game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        commands.ok({"type": "select", "theme": CAT_CELL[0], "price": CAT_CELL[1]})
        wait_stage(page, "cat_give")
        assert page.inner_text("#cat-package-value") == "в пакете: 500 или 1000"
        assert "По правилам игры: минимум или максимум раунда — 100 или 500" in page.inner_text(
            "#cat-rule"
        )
        assert "от 500" not in page.inner_text("#stage")
        assert "можно оставить себе" in page.inner_text("#cat-keep-note")
        assert page.query_selector("#cat-keep") is None
        commands.ok({"type": "cat_give", "seat": 2})
        wait_stage(page, "cat_price")
        assert page.query_selector("#cat-price-100") and page.query_selector("#cat-price-500")
        assert page.query_selector("#cat-price-1000") is None
        assert page.errors == []
        page.context.close()
    # Before 1997 the chooser may keep it, and the editors fix its value (the package's).
    with package_rig(
        tmp_path / "1996",
        cat_package(cat, sponsor=False),
        rules="tv@1996-10-01",
        game_options=STILL,
    ) as rig:
        page = host_page(browser, rig)
        Commands(rig.client()).ok({"type": "select", "theme": CAT_CELL[0], "price": CAT_CELL[1]})
        wait_stage(page, "cat_give")
        assert "назначает ведущий" in page.inner_text("#cat-rule")
        assert page.query_selector("#cat-keep-note") is None
        page.click("#cat-keep")
        wait_stage(page, "cat_price")
        assert rig.state()["answering"] == 1
        page.click("#cat-price-1000")
        wait_stage(page, "special")
        assert rig.state()["value"] == 1000
        assert page.errors == []


def test_auction_steps_land_on_round_numbers(browser: Any, tmp_path: Path) -> None:
    themes = [
        {
            "name": name,
            "questions": [
                {"price": 200, "text": "Вопрос", "answer": ["Ответ"]},
                {"price": 900, "text": "Аукцион", "answer": ["Ответ"], "kind": "stake"},
            ],
        }
        for name in ("Первая", "Вторая")
    ]
    package = {
        "format": "svoyak-package",
        "version": 1,
        "name": "Шаги",
        "rounds": [{"name": "1", "themes": themes}],
    }
    with package_rig(tmp_path, package, game_options={**STILL, "start_score": 5000}) as rig:
        page = host_page(browser, rig)
        Commands(rig.client()).ok({"type": "select", "theme": 1, "price": 900})
        wait_stage(page, "bidding")
        box = "input[data-key='bid-1']"
        up = ".bidder[data-seat='1'] .step[data-nudge='up']"
        down = ".bidder[data-seat='1'] .step[data-nudge='down']"
        assert page.input_value(box) == "900"
        # ± the smallest raise (TV-S-AUC-1: 100), never the round's price (issue 35)
        assert page.inner_text(up) == "+100"
        seen = []
        for step in (up, up, down, down):
            page.click(step)
            seen.append(page.input_value(box))
        assert seen == ["1000", "1100", "1000", "900"]
        assert page.inner_text("#round-name") == "Раунд 1"
        assert page.errors == []


def test_the_final_s_top_bar_marks_and_removed_themes_and_the_end(
    browser: Any, tmp_path: Path
) -> None:
    # four seconds to write the answers: the test sees the verdicts held, then taken
    # (two were too few for a loaded machine to see the timer before it ran out)
    options = {**STILL, "final_answer_time_s": 4}
    with package_rig(tmp_path, final_package(), game_options=options) as rig:
        commands = Commands(rig.client())
        to_final(rig, commands)
        pages = {"tablet": host_page(browser, rig), "phone": host_page(browser, rig, PHONE)}
        page = pages["tablet"]
        wait_stage(page, "final_remove")
        assert page.inner_text("#top-bar .title").strip() == "Финал: темы"  # said once
        assert "★" not in page.inner_text("#scores")
        page.click("#final-theme-1")
        page.wait_for_selector("#final-removed-1")
        remover = next(line for line in rig.lines() if line["type"] == "final_remove")["seat"]
        removed = page.inner_text("#final-removed-1")
        assert FINAL_THEMES[0] in removed and f"убрал(а) {PLAYERS[remover - 1]}" in removed
        assert page.is_disabled("#final-removed-1")
        assert page.eval_on_selector("#final-removed-1 s", "n => n.textContent") == FINAL_THEMES[0]
        remove_to_one(rig, commands)
        for seat in (1, 2, 3):
            commands.ok({"type": "final_stake", "seat": seat, "amount": 50})
        state = rig.wait_state(lambda s: s["stage"] == "final_judging", "the answers")
        # C2003-2.7.4/2.7.5: not before the question is read and its time is up
        page.wait_for_selector("#final-wait")
        assert "Сначала прочитайте вопрос" in page.inner_text("#final-wait")
        assert page.is_disabled("#judge-correct") and page.is_disabled("#judge-wrong")
        # the button names the writing time the game has (final_answer_time_s), not 30 s
        assert page.inner_text("#final-reading-end") == "Чтение окончено — 4 с"
        page.click("#final-reading-start")
        page.click("#final-reading-end")
        page.wait_for_selector("#final-timer")
        assert page.is_hidden("#final-reading-end")
        assert "пишут ответы" in page.inner_text("#final-wait")
        assert page.is_disabled("#judge-correct")
        refused = commands.send({"type": "final_judge", "verdict": "correct"})
        assert refused.status_code == 409 and "still writing" in refused.text
        page.wait_for_selector("#judge-correct:not([disabled])")
        assert page.query_selector("#final-wait") is None
        for seat in state["final"]["judge_order"]:
            verdict = "correct" if seat == 2 else "wrong"
            commands.ok({"type": "final_judge", "seat": seat, "verdict": verdict})
        for size, page in pages.items():
            page.wait_for_selector("#winner")
            # a revealed stake is said in the dock and in the results, never in a
            # pop-up over the page (issue 35)
            assert page.is_hidden("#toast"), size
            assert page.inner_text("#top-bar .title").strip() == "Игра окончена", size
            assert page.is_hidden("#pause-btn"), size  # nothing left to pause
            assert "★" not in page.inner_text("#scores"), size
            assert "Борис: верно, ставка 50" in page.inner_text("#final-results"), size
            # nothing covers the winner's score
            covered = page.evaluate(
                """() => {
                    const score = document.querySelector(".player[data-seat='2'] .score");
                    const r = score.getBoundingClientRect();
                    const [x, y] = [r.left + r.width / 2, r.top + r.height / 2];
                    const hit = document.elementFromPoint(x, y);
                    return hit === score || score.contains(hit) ? null : (hit && hit.id);
                }"""
            )
            assert covered is None, size
            assert page.errors == []


def test_the_login_screen_shows_nothing_of_the_game(browser: Any, tmp_path: Path) -> None:
    with package_rig(tmp_path, board_package()) as rig:
        commands = Commands(rig.client())
        commands.ok({"type": "pause"})
        context = browser.new_context(viewport=TABLET)
        page = context.new_page()
        page.goto(rig.url + "/")
        page.wait_for_selector("#login:not([hidden])")
        page.wait_for_selector("#link.up")
        assert page.is_hidden("#pause-btn") and page.is_hidden("#paused-overlay")
        assert page.inner_text("#top-bar .title").strip() == ""
        hint = page.inner_text("#login .hint")
        assert "svoyak pin" in hint and "консоли" in hint
        for digit in PIN:
            page.click(f"[data-digit='{digit}']")  # nothing covers the PIN pad
        page.click("#pin-go")
        page.wait_for_selector("#paused-overlay:not([hidden])")
        assert page.inner_text("#pause-btn") == "Продолжить"
        assert page.inner_text("#round-name") == "1-й раунд"
        context.close()


def test_TV_H_1995_01_the_host_sees_the_buy_window_then_the_buyer_s_bid_controls(
    browser: Any, tmp_path: Path
) -> None:
    themes = [
        {
            "name": name,
            "questions": [
                {"price": 10, "text": "Вопрос", "answer": ["Ответ"]},
                {"price": 30, "text": "Вопрос со ставкой", "answer": ["Ответ"], "kind": "stake"},
            ],
        }
        for name in ("Первая", "Вторая")
    ]
    package = {
        "format": "svoyak-package",
        "version": 1,
        "name": "1995",
        "rounds": [{"name": "Синий раунд", "themes": themes}],
    }
    with package_rig(tmp_path, package, rules="tv@1995-06-01") as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        commands.ok({"type": "select", "theme": 1, "price": 30})
        wait_stage(page, "bidding")
        commands.ok({"type": "bid", "seat": 1, "amount": 30})
        page.wait_for_selector("#buy-note")
        assert "кто первым нажмёт" in page.inner_text("#buy-note")
        assert page.inner_text(".bidder[data-seat='2'] .status") == "может купить"
        assert page.query_selector("#bid-2") is None  # nobody has the floor: no bid to enter
        assert page.query_selector(".window-box .countdown") is not None
        press(rig, commands, 3)
        page.wait_for_selector("#bid-3")
        assert page.inner_text(".bidder[data-seat='3'] .status") == "первое нажатие"
        assert page.query_selector("#buy-note") is None
        page.fill("input[data-key='bid-3']", "40")
        page.click("#bid-3")
        page.wait_for_selector("#buy-note")  # the raise opens the next buy window
        assert rig.state()["bidding"]["bid"] == 40
        for viewport in (TABLET, PHONE):
            page.set_viewport_size(viewport)
            overflow = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
            assert not overflow, viewport
        assert page.errors == []


def test_TV_H_1995_03_the_host_offers_the_bonus_contest_and_judges_it(
    browser: Any, tmp_path: Path
) -> None:
    def round_of(name: str, prices: list[int]) -> dict[str, Any]:
        questions = [{"price": p, "text": f"Вопрос {p}", "answer": ["Ответ"]} for p in prices]
        return {"name": name, "themes": [{"name": "Тема", "questions": questions}]}

    package = {
        "format": "svoyak-package",
        "version": 1,
        "name": "1995",
        "rounds": [round_of("Синий раунд", [10, 20]), round_of("Красный раунд", [20, 40])],
    }
    with package_rig(tmp_path, package, rules="tv@1995-06-01", game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        for price in (10, 20):
            open_question(rig, commands, 1, price)
            press(rig, commands, 2)
            rig.wait_state(lambda s: s["answering"] == 2, "seat 2 answering")
            commands.ok({"type": "judge", "verdict": "correct"})
        wait_stage(page, "bonus_offer")
        assert PLAYERS[1] in page.inner_text("#bonus-offer")  # the leader, 80
        assert "1-е место" in page.inner_text("#bonus-offer")
        page.click("#bonus-accept")
        wait_stage(page, "bonus")
        for n in (1, 2):
            page.wait_for_selector(f"#bonus-progress:has-text('Вопрос {n} из 5')")
            page.click("#judge-correct")
        page.wait_for_selector("#bonus-progress:has-text('верно: 2')")
        for viewport in (TABLET, PHONE):
            page.set_viewport_size(viewport)
            overflow = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
            assert not overflow, viewport
        page.click("#judge-wrong")
        wait_stage(page, "board")
        assert rig.state()["scores"]["2"] == 0  # 0 for the Red round
        assert page.errors == []


def test_TV_S_CAT_5_the_host_shows_picture_after_picture_and_the_value_falls(
    browser: Any, tmp_path: Path
) -> None:
    cat = {"theme": "Живопись", "price": 400, "series": [500, 300, 100]}
    questions = [
        {"price": 100, "text": "Вопрос", "answer": ["Ответ"]},
        {"price": 200, "text": "Чья картина?", "answer": ["Левитан"], "kind": "cat", "cat": cat},
    ]
    package = {
        "format": "svoyak-package",
        "version": 1,
        "name": "Картинки",
        "rounds": [{"name": "1", "themes": [{"name": "Картины", "questions": questions}]}],
    }
    with package_rig(tmp_path, package, game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        commands.ok({"type": "select", "theme": 1, "price": 200})
        wait_stage(page, "cat_give")
        commands.ok({"type": "cat_give", "seat": 2})
        wait_stage(page, "special")
        assert "Картинка 1 из 3: ответ стоит 500" in page.inner_text("#cat-series")
        page.click("#cat-picture")
        page.wait_for_selector("#cat-series:has-text('Картинка 2 из 3')")
        page.click("#cat-picture")
        page.wait_for_selector("#cat-series:has-text('ответ стоит 100')")
        assert page.query_selector("#cat-picture") is None  # the last picture is up
        page.click("#judge-correct")
        wait_stage(page, "board")
        assert rig.state()["scores"]["2"] == 100
        assert page.errors == []
