"""Simulated players on the host's panel (issue 35 item 3), through a real ``svoyak run``.

A headless trial (``svoyak run --headless`` without ``--pins`` or ``--serial``)
has no buttons but the panel's: the host's page shows one press button per
player and a «зажать» for the stuck-button alert, marked as a simulation, on
a tablet and on a phone. A new host plays a question from the page alone: a
player's button, the floor, the verdict. With real buttons (GPIO on mock pins
here) there is no such strip, and ``/api/simulate`` is not served.
"""

from __future__ import annotations

import os
from typing import Any

import httpx

from tests.support.live_run import served
from tests.support.panel_game import PHONE, TABLET, TIMEOUT_MS, shoot
from tests.support.paths import REPO

#: ``svoyak run --headless`` on 127.0.0.1 (tests/support/live_run.py), no journal.
HEADLESS = ("--no-journal",)


def log_in(browser: Any, url: str, pin: str, viewport: dict[str, int]) -> Any:
    """A new host on the page, the PIN typed on its pad."""
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    page.goto(url + "/")
    page.wait_for_selector("#login:not([hidden])")
    for digit in pin:
        page.click(f"[data-digit='{digit}']")
    page.click("#pin-go")
    page.wait_for_selector("#game:not([hidden])")
    page.wait_for_selector("#link.up")
    return page


#: Runs in the page: the simulation's controls on the screen at the top of the page,
#: a finger wide, uncovered, their text inside them; nothing scrolls sideways.
FITS = """
() => {
  const problems = [];
  const width = window.innerWidth, height = window.innerHeight;
  if (document.documentElement.scrollWidth > width) problems.push("the page scrolls sideways");
  window.scrollTo(0, 0);
  for (const node of document.querySelectorAll("#simulate button")) {
    const r = node.getBoundingClientRect();
    const name = node.id || node.textContent;
    if (r.left < 0 || r.right > width || r.top < 0 || r.bottom > height) {
      problems.push(`${name} is off screen: ${JSON.stringify(r)}`);
    }
    if (r.width < 44 || r.height < 44) problems.push(`${name}: ${r.width}x${r.height} to tap`);
    if (node.scrollWidth > node.clientWidth + 1) problems.push(`${name}: its text overflows`);
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === node || node.contains(hit))) problems.push(`${name} is covered`);
  }
  return problems;
}
"""


def score(page: Any, seat: int) -> str:
    text: str = page.inner_text(f".player[data-seat='{seat}'] .score")
    return text


def test_a_new_host_plays_a_headless_trial_from_the_panel_alone(browser: Any) -> None:
    with served(*HEADLESS, pin=None) as run:
        url, pin = run.url, run.pin
        page = log_in(browser, url, pin, TABLET)
        # Marked as a simulation, one press button per player.
        strip = page.wait_for_selector("#simulate:not([hidden])")
        assert "Имитация кнопок" in (page.text_content("#simulate") or "")
        presses = page.query_selector_all("#simulate .sim-press")
        assert [p.inner_text().split("\n")[0] for p in presses] == ["Анна", "Борис", "Вера"]
        assert len(page.query_selector_all("#simulate .sim-stuck")) == 3
        assert page.evaluate(FITS) == [], "tablet"
        shoot(page, "board-tablet", prefix="simulate-")

        # A question, played from the page: the chooser's cell, the reading, the signal,
        # Борис's button, the floor, the verdict.
        page.click(".cell[data-theme='1'][data-price='100']")
        page.click("#reading-start")
        page.wait_for_selector("#phase[data-phase='reading']")
        page.click("#reading-end")
        page.wait_for_selector("#phase[data-phase='open']")
        shoot(page, "open-tablet", prefix="simulate-")
        page.click("#sim-press-2")
        page.wait_for_selector("#answering-name[data-seat='2']")
        assert page.inner_text("#answering-name") == "Борис"
        page.click("#judge-correct")
        page.wait_for_function(
            "() => document.querySelector(\".player[data-seat='2'] .score\").textContent === '100'"
        )
        assert score(page, 1) == "0" and score(page, 3) == "0"
        page.wait_for_selector(".player[data-seat='2'].chooser")

        # The stuck-button alert: raised, then taken down, from the strip.
        page.click("#sim-stuck-3")
        page.wait_for_selector(".alert.stuck[data-seat='3']")
        assert "Кнопка залипла: Вера" in page.inner_text("#alerts")
        shoot(page, "stuck-tablet", prefix="simulate-")
        assert page.inner_text("#sim-stuck-3") == "отпустить"
        page.click("#sim-stuck-3")
        page.wait_for_selector(".alert.stuck", state="detached")
        assert page.inner_text("#sim-stuck-3") == "зажать"

        # English when the panel is in English.
        page.click("#lang-btn")
        page.wait_for_function(
            "() => document.querySelector('#simulate').textContent.includes('Simulated')"
        )
        assert page.inner_text("#sim-stuck-3") == "hold down"
        assert strip.is_visible()

        # A phone: the same strip, every button on the screen and a finger wide.
        page.set_viewport_size(PHONE)
        page.wait_for_timeout(100)
        assert page.evaluate(FITS) == [], "phone"
        shoot(page, "board-phone-en", prefix="simulate-")
        page.click("#lang-btn")
        page.click(".cell[data-theme='2'][data-price='100']")
        page.wait_for_selector("#phase[data-phase='selected']")
        assert page.evaluate(FITS) == [], "phone, a question"
        shoot(page, "question-phone", prefix="simulate-")
        assert page.errors == []
        page.context.close()


def test_real_buttons_leave_no_simulated_ones(browser: Any) -> None:
    pins = REPO / "hardware" / "pinmap.example.toml"
    env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock"}
    with served(*HEADLESS, "--pins", str(pins), pin=None, env=env) as run:
        url, pin = run.url, run.pin
        assert httpx.get(url + "/api/simulate", timeout=10).status_code == 404
        page = log_in(browser, url, pin, TABLET)
        page.wait_for_selector(".cell[data-theme='1'][data-price='100']")
        page.wait_for_timeout(300)  # the page has asked the server by now
        assert page.query_selector("#simulate .sim-press") is None
        assert page.is_hidden("#simulate")
        assert page.errors == []
        page.context.close()
