"""The host page's layout in a real headless Chromium, at a tablet's 1024×768 and
a phone's 390×844 (portrait), for every screen of a game night.

For every visible control (and the board's theme rows, the finalists' rows,
the right answer): scrolled into view, it lies inside the viewport, and the
element at the centre of its box is the control itself (or inside it), so
nothing covers it: not the fixed bottom bar, not the top bar, not another
control; a button's or a theme's text does not overflow its box. And the
page never scrolls sideways. ``SVOYAK_PANEL_SHOTS=dir``
also saves a screenshot of every screen there, to look at.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from panel_game import (
    CAT_CELL,
    PHONE,
    SPONSOR_CELL,
    STAKE_CELL,
    TABLET,
    board_package,
    chromium,
    final_package,
    host_page,
    package_rig,
    press,
    remove_to_one,
    to_final,
)
from panel_support import Commands, Rig

STILL = {"window_s": 600, "answer_time_s": 600}

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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as browser:
        yield browser


class Screens:
    """The same game on a tablet and on a phone: each screen is checked on both."""

    def __init__(self, browser: Any, rig: Rig) -> None:
        self.pages = {
            "tablet": host_page(browser, rig, TABLET),
            "phone": host_page(browser, rig, PHONE),
        }
        self.shots = os.environ.get("SVOYAK_PANEL_SHOTS")

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
            if self.shots:
                folder = Path(self.shots)
                folder.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(folder / f"{name}-{size}.png"), full_page=True)

    def click(self, selector: str) -> None:
        for page in self.pages.values():
            page.click(selector)

    def close(self) -> None:
        for page in self.pages.values():
            assert page.errors == []
            page.context.close()


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
        commands.ok({"type": "reading_end"})
        screens.check("open", "#phase[data-phase='open']", 2)
        # The verdict screen.
        press(rig, commands, 2)
        screens.check("verdict", "#judge-wrong", 3)
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
        screens.check("cat-special", "#stage[data-stage='special'] #judge-wrong", 3)
        commands.ok({"type": "judge", "verdict": "correct"})
        # The sponsor question.
        commands.ok({"type": "select", "theme": SPONSOR_CELL[0], "price": SPONSOR_CELL[1]})
        screens.check("sponsor", "#stage[data-stage='special'] #judge-wrong", 3)
        commands.ok({"type": "judge", "verdict": "correct"})
        # The stake question's bidding.
        commands.ok({"type": "select", "theme": STAKE_CELL[0], "price": STAKE_CELL[1]})
        screens.check("bidding", "#stage[data-stage='bidding'] .bid-controls .big", 4)
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
        screens.check("final-question", "#stage[data-stage='final_judging'] #judge-wrong", 4)
        screens.close()
