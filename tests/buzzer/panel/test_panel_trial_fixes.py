"""The panel's defects a new user's trial found, each in a real Chromium.

1. The viewers' page on a phone: every score read whole (−12 300 too), no
   sideways scroll.
2. A special question's four buttons at 1024×768: no word broken inside, each
   label at most two lines, in Russian and in English.
3. «Кнопки открыты» said once after the signal (the status and the countdown
   are one line).
4. The final's writing time, once run out, says so («Время вышло»), never
   «0.0 с» left on the screen.
5. The login: «Неверный PIN» goes once the host types again or presses «Стереть»;
   a PIN too short says how many digits a PIN has.
6. The cat's rule starts with a capital letter, as a sentence.

``SVOYAK_PANEL_SHOTS=dir`` saves a screenshot of each screen there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.buzzer.panel.test_panel_defects import to_final_without_presses
from tests.support.panel_game import (
    CAT_CELL,
    PHONE,
    STILL,
    TABLET,
    TIMEOUT_MS,
    board_package,
    final_package,
    host_page,
    package_rig,
    shoot,
    wait_stage,
)
from tests.support.panel_support import PIN, Commands


def plain_page(browser: Any, url: str, viewport: dict[str, int]) -> Any:
    """A page without the host's session (the viewers' page, the login)."""
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.goto(url)
    return page


#: Runs in the page: each score's text inside its box, and the page's width.
SCORES_WHOLE = """
() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > window.innerWidth) {
    problems.push(`the page is ${root.scrollWidth}px wide in ${window.innerWidth}px`);
  }
  for (const score of document.querySelectorAll(".player .score")) {
    const box = score.getBoundingClientRect();
    const card = score.closest(".player").getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(score);
    const text = range.getBoundingClientRect();
    if (score.scrollWidth > score.clientWidth + 1 || text.right > box.right + 0.5 ||
        text.right > card.right + 0.5 || card.right > window.innerWidth + 0.5) {
      const sizes = `${text.width.toFixed(1)} px in ${box.width.toFixed(1)} px`;
      problems.push(`«${score.textContent}» cut: ${sizes}`);
    }
  }
  return problems;
}
"""


def test_the_viewers_page_on_a_phone_reads_every_score_whole(browser: Any, tmp_path: Path) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        for seat, delta in ((1, -12300), (2, 200), (3, -200)):
            commands.ok({"type": "correction", "seat": seat, "delta": delta, "reason": "проба"})
        rig.wait_state(lambda s: s["scores"]["1"] == -12300 and s["scores"]["3"] == -200, "scores")
        for lang in ("ru", "en"):
            page = plain_page(browser, f"{rig.url}/view?lang={lang}", PHONE)
            page.wait_for_selector(".player[data-seat='3'] .score")
            texts = [page.inner_text(f".player[data-seat='{n}'] .score") for n in (1, 2, 3)]
            assert [t.replace("\u2212", "-").replace(" ", "") for t in texts] == [
                "-12300",
                "200",
                "-200",
            ], texts
            shoot(page, f"view-scores-phone-{lang}", prefix="trial-", full_page=True)
            assert page.evaluate(SCORES_WHOLE) == [], lang
            assert page.errors == []
            page.context.close()


#: Runs in the page: the dock's buttons, each word on one line, at most two lines.
LABELS = """
() => {
  const problems = [];
  for (const button of document.querySelectorAll("#dock .actions .big")) {
    const text = button.textContent.trim();
    const lines = new Set();
    let words = 0;
    const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /\\S+/g;
      let m;
      while ((m = re.exec(node.data))) {
        words++;
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        const tops = new Set(rects.map((r) => Math.round(r.top)));
        if (tops.size > 1) problems.push(`«${m[0]}» of «${text}» broken over ${tops.size} lines`);
        rects.forEach((r) => lines.add(Math.round(r.top)));
      }
    }
    if (lines.size > 2) problems.push(`«${text}»: ${lines.size} lines`);
    if (button.scrollWidth > button.clientWidth + 1) problems.push(`«${text}» overflows`);
    if (!words) problems.push(`${button.id}: no text`);
  }
  return problems;
}
"""


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_special_question_s_four_buttons_break_no_word(
    browser: Any, tmp_path: Path, lang: str
) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig, TABLET)
        if lang == "en":
            page.click("#lang-btn")
            page.wait_for_selector("html[lang='en']")
        commands.ok({"type": "select", "theme": CAT_CELL[0], "price": CAT_CELL[1]})
        commands.ok({"type": "cat_give", "seat": 3})
        commands.ok({"type": "cat_price", "price": 500})
        page.wait_for_selector("#dock #special-read")
        assert page.locator("#dock .actions .big").count() >= 3
        page.wait_for_timeout(100)
        shoot(page, f"special-buttons-{lang}", prefix="trial-", full_page=True)
        assert page.evaluate(LABELS) == [], lang
        assert page.errors == []


def test_buttons_open_is_said_once(browser: Any, tmp_path: Path) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig, TABLET)
        commands.ok({"type": "select", "theme": 1, "price": 100})
        commands.ok({"type": "reading_end"})
        page.wait_for_selector("#phase[data-phase='open'] .countdown")
        shoot(page, "open-once", prefix="trial-", full_page=True)
        text = page.inner_text("#stage")
        assert text.count("Кнопки открыты") == 1, text
        assert "Кнопки открыты ещё" in page.inner_text("#phase")
        assert page.errors == []


def test_the_final_s_writing_time_says_when_it_is_out(browser: Any, tmp_path: Path) -> None:
    # 3 s: a loaded machine must still see the countdown before it runs out
    options = {**STILL, "final_answer_time_s": 3}
    with package_rig(tmp_path, final_package(), game_options=options, simulate=False) as rig:
        commands = Commands(rig.client())
        to_final_without_presses(rig, commands)
        for seat in (1, 2, 3):
            commands.ok({"type": "final_stake", "seat": seat, "amount": 50})
        page = host_page(browser, rig, TABLET)
        viewer = plain_page(browser, rig.url + "/view", PHONE)
        commands.ok({"type": "reading_end"})
        page.wait_for_selector("#final-timer .countdown")
        assert "Время на запись ответа" in page.inner_text("#final-timer")
        # once the time is out, the line says so (the timer's own second, waited out)
        page.wait_for_selector("#final-timer[data-out]")
        shoot(page, "final-time-out", prefix="trial-", full_page=True)
        line = page.inner_text("#final-timer")
        assert line == "Время вышло", line
        assert page.query_selector("#final-timer .countdown") is None
        assert page.eval_on_selector("#final-timer", "n => n.getClientRects().length") == 1
        assert "0.0" not in page.inner_text("#game")
        # a redraw (the other language) keeps it said
        page.click("#lang-btn")
        page.wait_for_selector("html[lang='en']")
        assert page.inner_text("#final-timer") == "Time is up"
        assert "0.0" not in page.inner_text("#game")
        # the viewers' page says it too
        viewer.wait_for_selector("#final-timer[data-out]")
        assert viewer.inner_text("#final-timer") == "Время вышло"
        assert viewer.errors == []
        assert page.errors == []


def test_the_login_clears_its_refusal_and_says_how_many_digits(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        page = plain_page(browser, rig.url + "/", PHONE)
        page.wait_for_selector("#login:not([hidden])")
        # a short PIN: how many digits a PIN has
        for digit in "123":
            page.click(f"[data-digit='{digit}']")
        page.click("#pin-go")
        page.wait_for_selector("#login-error:text-matches('6')")
        short = page.inner_text("#login-error")
        assert "6 цифр" in short, short
        shoot(page, "login-short", prefix="trial-", full_page=True)
        # typing again takes the refusal down
        page.click("[data-digit='4']")
        assert page.inner_text("#login-error") == ""
        # a wrong PIN of six digits: «Неверный PIN», gone on «Стереть»
        page.click("#pin-clear")
        wrong = "000000" if PIN != "000000" else "111111"
        for digit in wrong:
            page.click(f"[data-digit='{digit}']")
        page.click("#pin-go")
        page.wait_for_selector("#login-error:text('Неверный PIN')")
        page.click("#pin-clear")
        assert page.inner_text("#login-error") == ""
        page.click("#pin-go")
        page.wait_for_timeout(100)
        assert page.inner_text("#login-error") == ""  # nothing typed: nothing said
        # the keyboard too
        for digit in wrong:
            page.keyboard.press(digit)
        page.keyboard.press("Enter")
        page.wait_for_selector("#login-error:text('Неверный PIN')")
        page.keyboard.press("1")
        assert page.inner_text("#login-error") == ""
        # the right PIN still logs in
        page.keyboard.press("Backspace")
        for digit in PIN:
            page.click(f"[data-digit='{digit}']")
        page.click("#pin-go")
        page.wait_for_selector("#game:not([hidden])")
        assert page.errors == []


def test_the_cat_s_rule_starts_as_a_sentence(browser: Any, tmp_path: Path) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig, TABLET)
        commands.ok({"type": "select", "theme": CAT_CELL[0], "price": CAT_CELL[1]})
        wait_stage(page, "cat_give")
        rule = page.inner_text("#cat-rule")
        assert rule.startswith("По правилам игры"), rule
        page.click("#lang-btn")
        page.wait_for_selector("html[lang='en']")
        rule = page.inner_text("#cat-rule")
        assert rule.startswith("By the game's rules"), rule
        assert page.errors == []
