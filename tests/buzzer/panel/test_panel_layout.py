"""The host page's layout in a real headless Chromium, at a tablet's 1024×768 and
a phone's 390×844 (portrait), for every screen of a game night.

For every visible control (and the board's theme rows, the finalists' rows,
the right answer): scrolled into view, it lies inside the viewport, and the
element at the centre of its box is the control itself (or inside it), so
nothing covers it: not the fixed bottom bar, not the top bar, not another
control; a button's or a theme's text does not overflow its box. And the
page never scrolls sideways.

What the host taps against the clock must never need a scroll (:data:`STEADY`):
who answers, the answer's countdown and **Верно** / **Неверно** (a plain
question, a cat, a sponsor question, an auction, the final's answers, each
with a question of many lines), the reading's buttons and «Снять вопрос» (the
simulated buttons and three false-start alerts above the question too): at the
top of the page, halfway and at the bottom, they are on the screen, above the
bottom bar and uncovered. A board of 15 or 20 prices a theme fits with every price readable
and tappable (:data:`READABLE`). The login's PIN pad has three columns of one
width (:data:`PINPAD`). ``SVOYAK_PANEL_SHOTS=dir`` also saves a
screenshot of every screen there (``-full``: the whole page), to look at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from buzzer.panel import hub
from tests.support.panel_game import (
    CAT_CELL,
    LONG_THEME,
    PHONE,
    SPONSOR_CELL,
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
    to_final,
)
from tests.support.panel_support import Commands, Rig

#: Who answers, the countdown and the verdicts: in reach without a scroll.
ANSWERING = ("#judge-correct", "#judge-wrong", "#answering-name", "#answering-box .countdown")

#: Runs in the page: every control checked, the problems found (empty: all well).
CHECK = """
() => {
  const problems = [];
  const width = window.innerWidth, height = window.innerHeight;
  const root = document.documentElement;
  if (root.scrollWidth > width) {
    problems.push(`the page is ${root.scrollWidth}px wide in ${width}px`);
  }
  const describe = (n) => n ? (n.id ? "#" + n.id : n.tagName.toLowerCase() +
    (n.className ? "." + String(n.className).trim().split(/\\s+/).join(".") : "") +
    " «" + (n.textContent || "").trim().slice(0, 30) + "»") : "nothing";
  const wanted = "button, input, select, a[href], .board .theme, .bidder, .question-box .answer";
  const controls = [...document.querySelectorAll(wanted)].filter((n) =>
    n.getClientRects().length > 0 && getComputedStyle(n).visibility !== "hidden");
  for (const control of controls) {
    control.scrollIntoView({ block: "center", inline: "center" });
    const r = control.getBoundingClientRect();
    if (r.left < -0.5 || r.top < -0.5 || r.right > width + 0.5 || r.bottom > height + 0.5) {
      problems.push(`${describe(control)} is off screen: ${JSON.stringify(r)}`);
      continue;
    }
    if (control.matches("button, .board .theme") && control.scrollWidth > control.clientWidth + 1) {
      problems.push(`${describe(control)}: its text overflows it`);
    }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === control || control.contains(hit))) {
      problems.push(`${describe(control)} is covered by ${describe(hit)}`);
    }
  }
  window.scrollTo(0, 0);
  return { checked: controls.length, problems };
}
"""

#: Runs in the page: the controls named never need a scroll. At the top of the page,
#: halfway and at the bottom, each lies on the screen, below a fixed top bar, above
#: the bottom bar, and the element at its centre is itself (nothing covers it).
STEADY = """
(selectors) => {
  const problems = [];
  const width = window.innerWidth, height = window.innerHeight;
  const tools = document.getElementById("tools").getBoundingClientRect();
  const bar = document.getElementById("top-bar");
  const fixed = getComputedStyle(bar).position !== "static";
  const barBottom = fixed ? bar.getBoundingClientRect().bottom : 0;
  const most = Math.max(0, document.documentElement.scrollHeight - height);
  for (const y of [0, Math.round(most / 2), most]) {
    window.scrollTo(0, y);
    for (const selector of selectors) {
      const node = document.querySelector(selector);
      if (!node || node.getClientRects().length === 0) {
        problems.push(`${selector}: not shown`);
        continue;
      }
      const r = node.getBoundingClientRect();
      const off = r.left < -0.5 || r.right > width + 0.5;
      if (off || r.top < barBottom - 0.5 || r.bottom > tools.top + 0.5) {
        problems.push(`${selector} at scroll ${y} of ${most}: off screen or under a bar: ` +
          JSON.stringify(r) + ` (bars: ${barBottom}, ${tools.top})`);
        continue;
      }
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !(hit === node || node.contains(hit))) {
        const by = hit ? hit.id || hit.className : "nothing";
        problems.push(`${selector} at scroll ${y}: covered by ${by}`);
      }
    }
  }
  window.scrollTo(0, 0);
  return problems;
}
"""

#: Runs in the page: every price of the board readable and a finger wide. Its text
#: inside its button (not run together with the next, not clipped, not past the
#: board's edge), at least 15 px, the button at least 44 px each way, no two overlapping.
READABLE = """
() => {
  const problems = [];
  const board = document.querySelector(".board").getBoundingClientRect();
  const cells = [...document.querySelectorAll(".board .cell")];
  const rects = cells.map((c) => c.getBoundingClientRect());
  cells.forEach((cell, i) => {
    const r = rects[i];
    const label = `${cell.dataset.theme}/${cell.dataset.price}`;
    const range = document.createRange();
    range.selectNodeContents(cell);
    const text = range.getBoundingClientRect();
    if (cell.textContent && (text.left < r.left + 1 || text.right > r.right - 1)) {
      const sizes = `${text.width.toFixed(1)} px in ${r.width.toFixed(1)} px`;
      problems.push(`${label}: its text spills out of its button (${sizes})`);
    }
    const size = parseFloat(getComputedStyle(cell).fontSize);
    if (size < 15) problems.push(`${label}: ${size} px text`);
    if (r.width < 44 || r.height < 44) problems.push(`${label}: ${r.width}×${r.height} px to tap`);
    if (r.left < board.left - 0.5 || r.right > board.right + 0.5) {
      problems.push(`${label}: past the board's edge`);
    }
    for (let j = 0; j < i; j++) {
      const o = rects[j];
      const across = Math.min(r.right, o.right) - Math.max(r.left, o.left);
      const down = Math.min(r.bottom, o.bottom) - Math.max(r.top, o.top);
      if (across > 0.5 && down > 0.5) problems.push(`${label} overlaps ${cells[j].dataset.price}`);
    }
  });
  return { cells: cells.length, problems };
}
"""

#: Runs in the page: how many lines a block of text takes.
LINES = """
(selector) => {
  const node = document.querySelector(selector);
  return node.getBoundingClientRect().height / parseFloat(getComputedStyle(node).lineHeight);
}
"""


def shoot_both(name: str, size: str, page: Any) -> None:
    """``SVOYAK_PANEL_SHOTS=dir``: the screen and the whole page saved there."""
    shoot(page, f"{name}-{size}")
    shoot(page, f"{name}-{size}-full", full_page=True)


class Screens:
    """The same game on a tablet and on a phone: each screen is checked on both."""

    def __init__(self, browser: Any, rig: Rig) -> None:
        self.pages = {
            "tablet": host_page(browser, rig, TABLET),
            "phone": host_page(browser, rig, PHONE),
        }

    def check(self, name: str, selector: str, least: int) -> None:
        """Wait for ``selector`` on both pages, then check every control there.

        ``least``: how many controls the screen must have at the very least (a
        screen that failed to draw would pass an empty check).
        """
        for size, page in self.pages.items():
            page.wait_for_selector(selector)
            page.wait_for_timeout(50)  # the bars' heights are measured after a redraw
            found = page.evaluate(CHECK)
            assert found["problems"] == [], f"{name} on the {size}: {found['problems']}"
            assert found["checked"] >= least, f"{name} on the {size}: {found}"
            self.shoot(name, size, page)

    def shoot(self, name: str, size: str, page: Any) -> None:
        shoot_both(name, size, page)

    def steady(self, name: str, *selectors: str, lines: str | None = None) -> None:
        """The controls named never need a scroll on either page (:data:`STEADY`);
        ``lines``: a text that must take at least five lines there (a long question)."""
        for size, page in self.pages.items():
            if lines is not None:
                assert page.evaluate(LINES, lines) >= 5, f"{name} on the {size}: a short text"
            problems = page.evaluate(STEADY, list(selectors))
            assert problems == [], f"{name} on the {size}: {problems}"

    def click(self, selector: str) -> None:
        for page in self.pages.values():
            page.click(selector)

    def close(self) -> None:
        for page in self.pages.values():
            assert page.errors == []
            page.context.close()


def read_special(screens: Screens, commands: Commands, name: str) -> None:
    """A special question: while the host reads, «Вопрос прочитан» and the verdicts
    fit; once read (C2003-2.4.6e: the time to think starts then), the countdown too."""
    screens.steady(name, "#special-read", "#judge-correct", "#judge-wrong", "#answering-name")
    commands.ok({"type": "reading_end"})
    screens.check(f"{name}-read", "#answering-box .countdown", 3)
    screens.steady(f"{name}-read", *ANSWERING, lines="#question-text .text")


def test_the_board_questions_and_specials_fit_a_tablet_and_a_phone(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        screens = Screens(browser, rig)
        # The board: seven themes, one with a long name; 35 prices.
        screens.check("board", ".cell[data-theme='7'][data-price='500']", 7 + 35)
        # A question with a long text: chosen, then the buttons open.
        commands.ok({"type": "select", "theme": 1, "price": 100})
        screens.check("question", "#phase[data-phase='selected']", 4)
        screens.steady("question", "#reading-start", "#reading-end", lines="#question-text .text")
        commands.ok({"type": "reading_end"})
        screens.check("open", "#phase[data-phase='open']", 2)
        # The verdict screen.
        press(rig, commands, 2)
        screens.check("verdict", "#judge-wrong", 3)
        screens.steady("verdict", *ANSWERING)
        commands.ok({"type": "judge", "verdict": "correct"})
        # A question nobody answered: its answer is held for the host.
        commands.ok({"type": "select", "theme": 1, "price": 200})
        rig.wait_state(lambda s: s["stage"] == "question", "the question")
        commands.ok({"type": "timeout"})
        screens.check("held", "#to-board", 2)
        screens.click("#to-board")
        # The cat in the bag: the hand-over, its value, the answer.
        commands.ok({"type": "select", "theme": CAT_CELL[0], "price": CAT_CELL[1]})
        screens.check("cat-give", "#cat-info", 2)
        commands.ok({"type": "cat_give", "seat": 3})
        screens.check("cat-price", "#stage[data-stage='cat_price'] .choices .big", 2)
        commands.ok({"type": "cat_price", "price": 500})
        screens.check("cat-special", "#dock[data-stage='special'] #judge-wrong", 3)
        read_special(screens, commands, "cat-special")
        commands.ok({"type": "judge", "verdict": "correct"})
        # The sponsor question.
        commands.ok({"type": "select", "theme": SPONSOR_CELL[0], "price": SPONSOR_CELL[1]})
        screens.check("sponsor", "#dock[data-stage='special'] #judge-wrong", 3)
        read_special(screens, commands, "sponsor")
        commands.ok({"type": "judge", "verdict": "correct"})
        # The stake question's bidding.
        commands.ok({"type": "select", "theme": STAKE_CELL[0], "price": STAKE_CELL[1]})
        screens.check("bidding", "#stage[data-stage='bidding'] .bid-controls .big", 4)
        # The auction's winner answers a long question.
        commands.ok({"type": "bid", "seat": rig.state()["bidding"]["turn"], "amount": 500})
        while (state := rig.state())["stage"] == "bidding":
            commands.ok({"type": "pass", "seat": state["bidding"]["turn"]})
            rig.wait_state(lambda s, v=state["version"]: s["version"] > v, "the pass")
        screens.check("auction", "#dock[data-stage='special'] #judge-wrong", 3)
        read_special(screens, commands, "auction")
        screens.close()


def test_the_final_fits_a_tablet_and_a_phone(browser: Any, tmp_path: Path) -> None:
    with package_rig(tmp_path, final_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        to_final(rig, commands)
        screens = Screens(browser, rig)
        screens.check("final-remove", "#final-theme-7", 7)
        remove_to_one(rig, commands)
        screens.check("final-stakes", "#stake-3", 3 * 4)
        # A stake above the score: the refusal shows in the row, which still fits.
        for page in screens.pages.values():
            page.fill("input[data-key='stake-2']", "100000")
        screens.check("final-stake-refused", "#stake-error-2:not([hidden])", 3 * 4)
        for seat in (1, 2, 3):
            commands.ok({"type": "final_stake", "seat": seat, "amount": 50})
        screens.check("final-question", "#dock[data-stage='final_judging'] #judge-wrong", 4)
        screens.steady(
            "final-question",
            "#judge-correct",
            "#judge-wrong",
            "#answering-name",
            "#final-reading-start",
            "#final-reading-end",
            lines="#question-text .text",
        )
        # The 30 s to write: the countdown is on the screen too.
        commands.ok({"type": "reading_end"})
        screens.check("final-timer", "#final-timer", 4)
        screens.steady("final-timer", "#final-timer .countdown", "#judge-wrong", "#answering-name")
        screens.close()


def many_prices_package(prices: list[int]) -> dict[str, Any]:
    """One round of six themes (one with a long name) of ``len(prices)`` questions each."""
    names = ["География", "Наука", LONG_THEME, "Кино", "Музыка", "Спорт"]
    themes = [
        {
            "name": name,
            "questions": [
                {"price": p, "text": f"Вопрос {i}/{p}", "answer": [f"Ответ {i}/{p}"]}
                for p in prices
            ],
        }
        for i, name in enumerate(names, 1)
    ]
    return {
        "format": "svoyak-package",
        "version": 1,
        "name": "Много цен",
        "rounds": [{"name": "1", "themes": themes}],
    }


@pytest.mark.parametrize(
    "prices",
    [list(range(100, 1600, 100)), list(range(1000, 21000, 1000))],
    ids=["15-prices", "20-prices-of-5-digits"],
)
def test_a_board_of_many_prices_fits_with_every_price_readable(
    browser: Any, tmp_path: Path, prices: list[int]
) -> None:
    with package_rig(tmp_path, many_prices_package(prices), game_options=STILL) as rig:
        screens = Screens(browser, rig)
        last = f".cell[data-theme='6'][data-price='{prices[-1]}']"
        # every price tappable (elementFromPoint), no sideways scroll, nothing overflows
        screens.check(f"board-{len(prices)}", last, 6 + 6 * len(prices))
        for size, page in screens.pages.items():
            found = page.evaluate(READABLE)
            assert found["cells"] == 6 * len(prices), size
            assert found["problems"] == [], (
                f"{len(prices)} prices on the {size}: {found['problems']}"
            )
        # a tap on the last price chooses it
        screens.pages["tablet"].click(last)
        rig.wait_state(lambda s: s["cell"] == [6, prices[-1]], "the last price chosen")
        screens.close()


def test_a_lock_mark_is_read_whole_beside_the_name_on_a_phone(browser: Any, tmp_path: Path) -> None:
    """On a 390-px phone a player's card is narrow: the «блок» of a false start's
    lockout is never cut («бл…» was), and neither is a short name («Анна» was cut
    to «А…» beside it): the marks wrap below the name."""
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        commands.ok({"type": "select", "theme": 1, "price": 100})
        commands.ok({"type": "reading_start"})
        rig.wait_state(lambda s: s["phase"] == "reading", "the reading")
        page = host_page(browser, rig, PHONE)
        press(rig, commands, 1)  # a false start: seat 1 is locked out
        mark = page.wait_for_selector(".player[data-seat='1'] .mark.locked")
        assert mark.inner_text() == "блок"
        whole = mark.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
        card = page.eval_on_selector(
            ".player[data-seat='1']", "e => e.getBoundingClientRect().right"
        )
        inside = mark.evaluate(f"e => e.getBoundingClientRect().right <= {card} + 0.5")
        assert whole and inside
        for seat in (1, 2, 3):  # every name read whole, the locked one's too
            who = page.query_selector(f".player[data-seat='{seat}'] .who")
            assert who is not None
            assert who.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), who.inner_text()
        assert page.errors == []


def test_the_reading_with_false_starts_and_simulated_buttons_keeps_its_controls_at_hand(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A laptop's trial (the simulated buttons shown) reads a long question and the
    players press early: a false-start alert for each above the scores. The signal
    and «Снять вопрос» (the controls that end or withdraw the question) never need
    a scroll, on a tablet and on a phone; nor does «Снять вопрос» once the buttons
    open."""
    # The alerts' 8 s (their own test is test_panel_host_game's) would be a race with a
    # loaded machine here, where the subject is the layout while they are shown.
    monkeypatch.setitem(hub.TRANSIENT_ALERTS_NS, "false_start", 600_000_000_000)
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        screens = Screens(browser, rig)
        for page in screens.pages.values():
            page.wait_for_selector("#simulate button.sim-press")
        commands.ok({"type": "select", "theme": 1, "price": 100})
        screens.check("selected", "#phase[data-phase='selected']", 4)
        screens.steady("selected", "#reading-start", "#reading-end", "#timeout")
        commands.ok({"type": "reading_start"})
        rig.wait_state(lambda s: s["phase"] == "reading", "the reading")
        for seat in (1, 2, 3):
            press(rig, commands, seat)  # false starts: an alert each
        alerts = ".alert[data-kind='false_start'][data-seat='3']"
        screens.check("reading-false-starts", alerts, 4 + 6)
        screens.steady(
            "reading-false-starts", "#reading-end", "#timeout", lines="#question-text .text"
        )
        for size, page in screens.pages.items():
            # the alerts were still on the screen: the check above saw them
            assert page.locator(".alert[data-kind='false_start']").count() == 3, size
        commands.ok({"type": "reading_end"})
        screens.check("open-after-false-starts", "#phase[data-phase='open']", 2)
        screens.steady("open-after-false-starts", "#timeout")
        screens.close()


#: Runs in the page: the PIN pad's twelve keys in three columns of one width. Each
#: key's box (its digits' and «Стереть» / «Войти» alike): the widths equal within
#: 1 px, a column's keys at one left and right edge, the columns side by side, every
#: key a finger wide, its text inside it.
PINPAD = """
() => {
  const problems = [];
  const keys = [...document.querySelectorAll(".pinpad button")];
  const rects = keys.map((k) => k.getBoundingClientRect());
  const label = (i) => keys[i].id || keys[i].dataset.digit;
  const widths = rects.map((r) => r.width);
  if (Math.max(...widths) - Math.min(...widths) > 1) {
    const all = keys.map((k, i) => `${label(i)} ${widths[i].toFixed(1)}`).join(", ");
    problems.push("uneven widths: " + all);
  }
  rects.forEach((r, i) => {
    const top = rects[i - (i % 3)];
    const first = rects[i % 3];
    if (Math.abs(r.top - top.top) > 1) problems.push(`${label(i)}: not in its row`);
    if (Math.abs(r.left - first.left) > 1 || Math.abs(r.right - first.right) > 1) {
      problems.push(`${label(i)}: not under ${label(i % 3)}`);
    }
    if (i % 3 && r.left < rects[i - 1].right) problems.push(`${label(i)}: over its left neighbour`);
    if (r.width < 44 || r.height < 44) problems.push(`${label(i)}: ${r.width}×${r.height} px`);
    if (keys[i].scrollWidth > keys[i].clientWidth + 1) {
      problems.push(`${label(i)}: its text overflows`);
    }
    if (r.left < 0 || r.right > window.innerWidth) problems.push(`${label(i)}: off screen`);
  });
  return { keys: keys.length, problems };
}
"""


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_pin_pad_has_three_equal_columns(browser: Any, tmp_path: Path, lang: str) -> None:
    """The login's PIN pad on a tablet and on a phone: «Стереть» and «Войти» («Clear»,
    «Enter») widened their columns (the middle one was narrower); now each key is as
    wide as any other and the columns line up."""
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        for size, viewport in (("tablet", TABLET), ("phone", PHONE)):
            context = browser.new_context(viewport=viewport)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
            page.goto(rig.url + "/")
            page.wait_for_selector("#login:not([hidden])")
            if lang == "en":
                page.click("#lang-btn")
                page.wait_for_selector("html[lang='en']")
            shoot_both(f"login-{lang}", size, page)
            found = page.evaluate(PINPAD)
            assert found["keys"] == 12, size
            assert found["problems"] == [], f"the PIN pad on the {size} ({lang}): {found}"
            assert errors == []
            context.close()


def test_a_lock_mark_goes_from_the_viewer_when_its_time_is_up(browser: Any, tmp_path: Path) -> None:
    """A false start's «блок» ends on the game's clock, with no new state to say so:
    the viewer's scores strip (the second screen the players watch) drops it then,
    as the host's does, not at whatever happens next."""
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        commands.ok({"type": "select", "theme": 1, "price": 100})
        commands.ok({"type": "reading_start"})
        rig.wait_state(lambda s: s["phase"] == "reading", "the reading")
        context = browser.new_context(viewport=PHONE)
        viewer = context.new_page()
        viewer.goto(rig.url + "/view")
        viewer.wait_for_selector("#link.up")
        press(rig, commands, 1)  # a false start: seat 1 is locked out for a while
        state = rig.wait_state(lambda s: "1" in (s.get("locked_until") or {}), "the lockout")
        version = state["version"]
        viewer.wait_for_selector(".player[data-seat='1'] .mark.locked")
        viewer.wait_for_selector(".player[data-seat='1'] .mark.locked", state="detached")
        assert rig.state()["version"] == version  # no state said it: the clock did
        context.close()
