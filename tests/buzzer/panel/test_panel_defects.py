"""The host's panel, as a new host found it playing a whole package (issue 35 item 4):
each defect in a real headless Chromium, at a tablet's 1024×768 and a phone's 390×844.

Each test failed before its fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.panel_game import (
    STAKE_CELL,
    STILL,
    TABLET,
    board_package,
    final_package,
    host_page,
    package_rig,
    press,
    remove_to_one,
    shoot,
    wait_stage,
)
from tests.support.panel_support import Commands


def two_rounds() -> dict[str, Any]:
    """Two rounds of one theme each, named differently (as a real package's are)."""

    def round_of(name: str, theme: str, price: int) -> dict[str, Any]:
        question = {"price": price, "text": f"Вопрос {theme}", "answer": [f"Ответ {theme}"]}
        return {"name": name, "themes": [{"name": theme, "questions": [question]}]}

    return {
        "format": "svoyak-package",
        "version": 1,
        "name": "Два раунда",
        "rounds": [round_of("1", "ЖЁЛТАЯ ТЕМА", 100), round_of("2", "ЖЮЛЬ ВЕРН", 200)],
    }


def log_entries(page: Any) -> list[str]:
    page.click("#log-btn")
    page.wait_for_selector("#log-dialog[open]")
    entries: list[str] = page.eval_on_selector_all(
        "#log-list li", "items => items.map((li) => li.textContent)"
    )
    return entries


def test_the_log_names_each_question_by_its_own_round_and_each_verdict_by_whose(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, two_rounds(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        commands.ok({"type": "select", "theme": 1, "price": 100})
        rig.wait_state(lambda s: s["stage"] == "question", "the question")
        commands.ok({"type": "reading_end"})
        rig.wait_state(lambda s: s["phase"] == "open", "the open window")
        press(rig, commands, 2)
        rig.wait_state(lambda s: s["answering"] == 2, "Борис answering")
        commands.ok({"type": "judge", "verdict": "correct"})
        # Round 2: its select names its own theme, and round 1's keeps its own.
        commands.ok({"type": "select", "theme": 1, "price": 200})
        rig.wait_state(lambda s: s["round"] == 2 and s["stage"] == "question", "round 2")
        wait_stage(page, "question")
        entries = log_entries(page)
        assert any("Выбор: ЖЮЛЬ ВЕРН — 200" in e for e in entries), entries
        assert any("Выбор: ЖЁЛТАЯ ТЕМА — 100" in e for e in entries), entries
        assert not any("ЖЮЛЬ ВЕРН — 100" in e for e in entries), entries
        # The verdict says whose.
        verdict = next(e for e in entries if "Верно" in e)
        assert "Верно: Борис" in verdict, entries
        shoot(page, "log-tablet", prefix="defects-")

        # The undo's question says what will be undone, not a journal line.
        asked: list[str] = []

        def answer(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.dismiss()

        page.once("dialog", answer)
        page.click("#log-list li:has-text('Верно') button")
        page.wait_for_timeout(200)
        assert len(asked) == 1
        assert "строка" not in asked[0], asked
        assert "Верно: Борис" in asked[0] and "ЖЁЛТАЯ ТЕМА — 100" in asked[0], asked
        assert rig.state()["scores"]["2"] == 100  # dismissed: nothing undone

        # In English too.
        page.click("#lang-btn")
        page.wait_for_function(
            "() => document.querySelector('#undo-btn').textContent.includes('Undo')"
        )
        entries = log_entries(page)
        assert any("Correct: Борис" in e for e in entries), entries
        assert any("Chose: ЖЁЛТАЯ ТЕМА — 100" in e for e in entries), entries
        assert page.errors == []


# -- what sits under the fixed bars at 1024×768 ----------------------------------------

#: Runs in the page, at the top of the page (no scroll): each selector's box (``whole``)
#: or its first line (``start``) lies between the top bar and the dock (the bottom bar
#: when there is no dock, or for what is in the dock), and nothing covers it.
UNSCROLLED = """
(wanted) => {
  window.scrollTo(0, 0);
  const problems = [];
  const bar = document.getElementById("top-bar").getBoundingClientRect();
  const dock = document.getElementById("dock");
  const tools = document.getElementById("tools").getBoundingClientRect().top;
  for (const [selector, how] of wanted) {
    const node = document.querySelector(selector);
    if (!node || node.getClientRects().length === 0) {
      problems.push(`${selector}: not shown`);
      continue;
    }
    // the page's content ends at the dock; the dock's own at the bottom bar
    const bottom = dock.hidden || dock.contains(node) ? tools : dock.getBoundingClientRect().top;
    const r = node.getBoundingClientRect();
    const line = parseFloat(getComputedStyle(node).lineHeight) || 24;
    const low = how === "start" ? r.top + Math.min(line, r.height) : r.bottom;
    if (r.top < bar.bottom - 0.5 || low > bottom + 0.5) {
      problems.push(`${selector}: ${r.top.toFixed(0)}..${low.toFixed(0)} is not between ` +
        `${bar.bottom.toFixed(0)} and ${bottom.toFixed(0)}`);
      continue;
    }
    const y = (r.top + low) / 2;
    const hit = document.elementFromPoint(r.left + Math.min(r.width / 2, 40), y);
    if (!hit || !(hit === node || node.contains(hit))) {
      problems.push(`${selector}: covered by ${hit ? hit.id || hit.className : "nothing"}`);
    }
  }
  return problems;
}
"""


def unscrolled(page: Any, *wanted: tuple[str, str]) -> list[str]:
    page.wait_for_timeout(100)  # the bars are measured after a redraw
    problems: list[str] = page.evaluate(UNSCROLLED, [list(w) for w in wanted])
    return problems


def to_final_without_presses(rig: Any, commands: Commands) -> None:
    """The final package's three questions taken off unanswered, the scores set by
    corrections before the last: a game with real buttons reaches its final."""
    for theme in (1, 2, 3):
        if theme == 3:
            for seat in (1, 2, 3):
                commands.ok({"type": "correction", "seat": seat, "delta": 100, "reason": "тест"})
        commands.ok({"type": "select", "theme": theme, "price": 100})
        rig.wait_state(lambda s, t=theme: s["cell"] == [t, 100], f"question {theme}")
        commands.ok({"type": "timeout"})
        rig.wait_state(lambda s, t=theme: [t, 100] in s["played"] or s["stage"] != "board", "done")
    rig.wait_state(lambda s: s["stage"] == "final_remove", "the final")
    remove_to_one(rig, commands)


def test_the_final_s_question_and_answer_need_no_scroll_on_a_tablet(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, final_package(), game_options=STILL, simulate=False) as rig:
        commands = Commands(rig.client())
        to_final_without_presses(rig, commands)
        for seat in (1, 2, 3):
            commands.ok({"type": "final_stake", "seat": seat, "amount": 50})
        page = host_page(browser, rig, TABLET)
        page.wait_for_selector("#dock[data-stage='final_judging'] #judge-wrong")
        wanted = [("#question-text .answer", "whole"), ("#question-text .text", "start")]
        assert unscrolled(page, *wanted) == []
        shoot(page, "final-question-tablet", prefix="defects-")
        commands.ok({"type": "reading_end"})  # the 30 s to write: the dock grows a line
        page.wait_for_selector("#final-timer")
        assert unscrolled(page, *wanted, ("#final-timer", "whole")) == []
        shoot(page, "final-timer-tablet", prefix="defects-")
        assert page.errors == []


def test_an_auction_s_answer_needs_no_scroll_on_a_tablet(browser: Any, tmp_path: Path) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL, simulate=False) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig, TABLET)
        commands.ok({"type": "select", "theme": STAKE_CELL[0], "price": STAKE_CELL[1]})
        wait_stage(page, "special")  # every score 0: the opener plays for the nominal
        page.wait_for_selector("#auction-note")
        assert unscrolled(page, ("#question-text .answer", "whole")) == []
        shoot(page, "auction-tablet", prefix="defects-")
        assert page.errors == []


def six_themes_next() -> dict[str, Any]:
    """A round of one question, then a round of six themes of five prices."""
    question = {"price": 100, "text": "Вопрос", "answer": ["Ответ"]}
    names = ["Столицы мира", "Химия", "Кино и театр", "Литература", "Спорт", "Музыка"]
    second = [
        {"name": n, "questions": [{**question, "price": p} for p in (200, 400, 600, 800, 1000)]}
        for n in names
    ]
    return {
        "format": "svoyak-package",
        "version": 1,
        "name": "Шесть тем",
        "rounds": [
            {"name": "1", "themes": [{"name": "Разминка", "questions": [question]}]},
            {"name": "2", "themes": second},
        ],
    }


@pytest.mark.parametrize("simulate", [False, True], ids=["real-buttons", "simulated"])
def test_the_round_change_shows_the_next_round_s_six_themes_without_a_scroll(
    browser: Any, tmp_path: Path, simulate: bool
) -> None:
    with package_rig(tmp_path, six_themes_next(), game_options=STILL, simulate=simulate) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig, TABLET)
        commands.ok({"type": "select", "theme": 1, "price": 100})
        rig.wait_state(lambda s: s["stage"] == "question", "the question")
        commands.ok({"type": "timeout"})
        page.click("#to-board")
        page.wait_for_selector(".next-round")
        page.wait_for_selector(".cell[data-theme='6'][data-price='1000']")
        rows = [(f".board-row:nth-child({n}) .theme", "whole") for n in range(1, 7)]
        cells = [(f".cell[data-theme='{n}'][data-price='1000']", "whole") for n in range(1, 7)]
        shoot(page, f"round-change-{'simulated' if simulate else 'real'}-tablet", prefix="defects-")
        assert unscrolled(page, ("#chooser", "whole"), *rows, *cells) == []
        assert page.errors == []


# -- the auction -----------------------------------------------------------------------


def stake_package(prices: list[int], stake: int) -> dict[str, Any]:
    """One round of two themes at ``prices``, the first theme's ``stake`` an auction."""

    def question(theme: int, price: int) -> dict[str, Any]:
        found = {"price": price, "text": f"Вопрос {theme}/{price}", "answer": ["Ответ"]}
        if theme == 1 and price == stake:
            found["kind"] = "stake"
        return found

    themes = [
        {"name": name, "questions": [question(i, p) for p in prices]}
        for i, name in enumerate(("Первая", "Вторая"), 1)
    ]
    return {
        "format": "svoyak-package",
        "version": 1,
        "name": "Аукцион",
        "rounds": [{"name": "2", "themes": themes}],
    }


def test_an_opener_whose_score_is_the_nominal_is_not_told_it_is_less(
    browser: Any, tmp_path: Path
) -> None:
    options = {**STILL, "start_score": 500}
    with package_rig(tmp_path, stake_package([100, 500], 500), game_options=options) as rig:
        page = host_page(browser, rig)
        # Every score is 500: the opener's only bid is the whole score, nobody can outbid.
        Commands(rig.client()).ok({"type": "select", "theme": 1, "price": 500})
        wait_stage(page, "special")
        note = page.inner_text("#auction-note")
        assert "меньше" not in note, note
        assert "Анна отвечает за 500" in note and "на счёте ровно 500" in note, note
        page.click("#lang-btn")
        page.wait_for_function(
            "() => document.querySelector('#auction-note').textContent.includes('exactly 500')"
        )
        assert "below" not in page.inner_text("#auction-note")
        assert page.errors == []


def test_the_bid_stepper_steps_by_the_raise_not_by_the_round_s_price(
    browser: Any, tmp_path: Path
) -> None:
    options = {**STILL, "start_score": 5000}
    package = stake_package([200, 400, 600, 800, 1000], 600)
    with package_rig(tmp_path, package, game_options=options) as rig:
        page = host_page(browser, rig)
        Commands(rig.client()).ok({"type": "select", "theme": 1, "price": 600})
        wait_stage(page, "bidding")
        box = "input[data-key='bid-1']"
        up = ".bidder[data-seat='1'] .step[data-nudge='up']"
        down = ".bidder[data-seat='1'] .step[data-nudge='down']"
        assert page.input_value(box) == "600"
        assert page.inner_text(up) == "+100" and page.inner_text(down) == "−100"
        seen = []
        for step in (up, up, down, down, down):
            page.click(step)
            seen.append(page.input_value(box))
        assert seen == ["700", "800", "700", "600", "600"]  # never below the nominal
        # The raise after a bid: +100 from it.
        page.click("#bid-1")
        turn = rig.wait_state(lambda s: s["bidding"]["bid"] == 600, "the bid")["bidding"]["turn"]
        page.wait_for_selector(f"input[data-key='bid-{turn}']")
        assert page.input_value(f"input[data-key='bid-{turn}']") == "700"
        page.click(f".bidder[data-seat='{turn}'] .step[data-nudge='up']")
        assert page.input_value(f"input[data-key='bid-{turn}']") == "800"
        assert page.errors == []


# -- small slips -----------------------------------------------------------------------


def test_the_pause_screen_hides_the_game_behind_it(browser: Any, tmp_path: Path) -> None:
    with package_rig(tmp_path, board_package()) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        viewer = page.context.browser.new_page()
        viewer.goto(rig.url + "/view")
        viewer.wait_for_selector(".player[data-seat='1']")
        commands.ok({"type": "pause"})
        for screen in (page, viewer):
            screen.wait_for_selector("#paused-overlay:not([hidden])")
            alpha = screen.evaluate(
                """() => {
                    const colour = getComputedStyle(document.getElementById("paused-overlay"))
                        .backgroundColor;
                    const parts = colour.match(/[\\d.]+/g).map(Number);
                    return parts.length > 3 ? parts[3] : 1;
                }"""
            )
            assert alpha == 1, alpha
        assert "продолжают работать" not in page.inner_text("#paused-overlay")
        viewer.close()
        assert page.errors == []


def test_a_margin_goes_when_the_window_reopens(browser: Any, tmp_path: Path) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        commands.ok({"type": "select", "theme": 1, "price": 100})
        rig.wait_state(lambda s: s["stage"] == "question", "the question")
        commands.ok({"type": "reading_end"})
        rig.wait_state(lambda s: s["phase"] == "open", "the open window")
        press(rig, commands, 1)
        press(rig, commands, 2)
        page.wait_for_selector(".player[data-seat='2'] .margin")  # +x ms behind Анна
        commands.ok({"type": "judge", "verdict": "wrong"})
        rig.wait_state(lambda s: s["phase"] == "open", "the window open again")
        wait_stage(page, "question")
        page.wait_for_selector("#phase[data-phase='open']")
        page.wait_for_timeout(300)
        assert page.query_selector(".player .margin") is None, page.inner_text("#scores")
        assert page.errors == []


def test_a_countdown_at_zero_stays_on_one_line(browser: Any, tmp_path: Path) -> None:
    # 3 s: a loaded machine must still see the countdown before it runs out
    options = {**STILL, "final_answer_time_s": 3}
    with package_rig(tmp_path, final_package(), game_options=options, simulate=False) as rig:
        commands = Commands(rig.client())
        to_final_without_presses(rig, commands)
        for seat in (1, 2, 3):
            commands.ok({"type": "final_stake", "seat": seat, "amount": 50})
        page = host_page(browser, rig, TABLET)
        commands.ok({"type": "reading_end"})
        page.wait_for_selector("#final-timer .countdown")
        lines = page.eval_on_selector("#final-timer .countdown", "n => n.getClientRects().length")
        assert lines == 1, page.inner_text("#final-timer")
        # once out, the line says so (test_panel_trial_fixes), on one line too
        page.wait_for_selector("#final-timer[data-out]")
        lines = page.eval_on_selector("#final-timer", "n => n.getClientRects().length")
        shoot(page, "final-timer-zero-tablet", prefix="defects-")
        assert lines == 1, page.inner_text("#final-timer")
        assert page.errors == []


def test_a_revealed_stake_covers_nothing_of_the_final_s_question(
    browser: Any, tmp_path: Path
) -> None:
    options = {**STILL, "final_answer_time_s": 1}
    with package_rig(tmp_path, final_package(), game_options=options, simulate=False) as rig:
        commands = Commands(rig.client())
        to_final_without_presses(rig, commands)
        for seat, amount in ((1, 50), (2, 60), (3, 70)):
            commands.ok({"type": "final_stake", "seat": seat, "amount": amount})
        page = host_page(browser, rig, TABLET)
        commands.ok({"type": "reading_end"})
        page.wait_for_selector("#judge-correct:not([disabled])")
        first = rig.state()["final"]["judge_order"][0]
        page.click("#judge-wrong")
        rig.wait_state(lambda s: first not in s["final"]["judge_order"], "the first verdict")
        page.wait_for_selector("#stake-revealed")
        name = ["Анна", "Борис", "Вера"][first - 1]
        revealed = page.inner_text("#stake-revealed")
        assert name in revealed and str(first * 10 + 40) in revealed, revealed
        shoot(page, "final-revealed-tablet", prefix="defects-")
        covered = page.evaluate(
            """() => {
                const bottom = document.getElementById("dock").getBoundingClientRect().top;
                const out = [];
                for (const p of document.querySelectorAll("#question-text p")) {
                    for (const r of p.getClientRects()) {
                        for (let y = r.top + 4; y < Math.min(r.bottom, bottom) - 4; y += 12) {
                            for (const x of [r.left + 20, (r.left + r.right) / 2, r.right - 20]) {
                                const hit = document.elementFromPoint(x, y);
                                if (hit && !p.contains(hit)) out.push(hit.id || hit.className);
                            }
                        }
                    }
                }
                return [...new Set(out)];
            }"""
        )
        assert covered == [], covered
        # A verdict sent without its seat (a host button, a script) is the next one's,
        # and the log says whose.
        second = rig.state()["final"]["judge_order"][0]
        commands.ok({"type": "final_judge", "verdict": "correct"})
        who = ["Анна", "Борис", "Вера"][second - 1]
        page.wait_for_function(
            "(who) => document.querySelector('#undo-btn').textContent.endsWith(who)", arg=who
        )
        assert page.inner_text("#undo-btn") == f"↶ Отменить: Финал, верно: {who}"
        assert who in page.inner_text("#stake-revealed")
        assert page.errors == []


def test_a_question_nobody_pressed_for_says_so_and_is_not_the_board(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        # Nobody pressed: taken off.
        commands.ok({"type": "select", "theme": 1, "price": 100})
        rig.wait_state(lambda s: s["stage"] == "question", "the question")
        commands.ok({"type": "reading_end"})
        rig.wait_state(lambda s: s["phase"] == "open", "the open window")
        commands.ok({"type": "timeout"})
        page.wait_for_selector("#held-answer")
        note = page.inner_text("#stage .phase")
        assert "Никто не нажал" in note and "ответил" not in note, note
        # The finished question is on the screen: the top bar does not say «Выбор вопроса».
        label = page.inner_text("#stage-label")
        assert label == "Вопрос закрыт", label
        page.click("#to-board")
        page.wait_for_selector(".board")
        assert page.inner_text("#stage-label") == "Выбор вопроса"
        # Someone answered, wrong, and the host took it off: nobody answered right.
        commands.ok({"type": "select", "theme": 1, "price": 200})
        rig.wait_state(lambda s: s["stage"] == "question", "the question")
        commands.ok({"type": "reading_end"})
        rig.wait_state(lambda s: s["phase"] == "open", "the open window")
        press(rig, commands, 3)
        rig.wait_state(lambda s: s["answering"] == 3, "Вера answering")
        commands.ok({"type": "judge", "verdict": "wrong"})
        rig.wait_state(lambda s: s["phase"] == "open", "the window again")
        commands.ok({"type": "timeout"})
        page.wait_for_selector("#held-answer")
        assert "Никто не ответил верно" in page.inner_text("#stage .phase")
        page.click("#lang-btn")
        page.wait_for_function(
            "() => document.querySelector('#stage-label').textContent === 'Question closed'"
        )
        assert page.errors == []


def test_a_tap_held_while_a_state_arrives_still_chooses_its_question(
    browser: Any, tmp_path: Path
) -> None:
    """A loaded run's tap on a price that never reached the game: the state another
    command pushed redrew the board between the finger going down and up, the cell
    under it was replaced, and the browser sent the click nowhere. The stage now
    waits for the finger to lift."""
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        cell = page.wait_for_selector(".cell[data-theme='1'][data-price='100']")
        box = cell.bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        # Another panel's command while the finger is down: a state the page redraws for.
        commands.ok({"type": "correction", "seat": 2, "delta": 300, "reason": "тест"})
        page.wait_for_function(
            "() => [...document.querySelectorAll('#scores *')]"
            ".some((e) => e.textContent.trim() === '300')"
        )
        page.mouse.up()
        rig.wait_state(lambda s: s["cell"] == [1, 100], "the price tapped chosen")
        wait_stage(page, "question")
        assert page.errors == []
