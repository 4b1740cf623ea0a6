"""End to end in a real headless Chromium: the host plays a question on the panel,
and the score changes on the host page and on a viewer page.

Debian's ``chromium`` driven by the ``playwright`` package (no browser is
downloaded: ``executable_path``). The README's test command installs both;
a missing browser is a failure, never a silent skip.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.panel_support import PIN, Rig, panel_rig

TIMEOUT_MS = 20_000


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    with panel_rig(tmp_path) as rig:
        yield rig


def score(page: Any, seat: int) -> str:
    text: str = page.inner_text(f".player[data-seat='{seat}'] .score", timeout=TIMEOUT_MS)
    return text


def wait_score(page: Any, seat: int, value: int) -> None:
    page.wait_for_function(
        "([seat, value]) => { const n = document.querySelector("
        "`.player[data-seat='${seat}'] .score`); return n && n.textContent === String(value); }",
        arg=[seat, value],
        timeout=TIMEOUT_MS,
    )


def test_the_host_plays_a_question_and_every_screen_shows_the_score(browser: Any, rig: Rig) -> None:
    context = browser.new_context(viewport={"width": 1180, "height": 820})
    context.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    host = context.new_page()
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    viewer = browser.new_page()  # another context: no session, like a phone in the hall
    viewer.on("pageerror", lambda exc: errors.append(str(exc)))
    viewer.goto(rig.url + "/view")
    viewer.wait_for_selector(".player[data-seat='2']")

    host.goto(rig.url + "/")
    host.wait_for_selector("#login:not([hidden])")
    for digit in PIN:
        host.click(f"[data-digit='{digit}']")
    host.click("#pin-go")
    host.wait_for_selector("#game:not([hidden])")

    # Choose a question for the chooser, read it, give the signal.
    host.click(".cell[data-theme='2'][data-price='300']")
    host.click("#reading-start")
    host.wait_for_selector("#phase[data-phase='reading']")
    host.click("#reading-end")
    host.wait_for_selector("#phase[data-phase='open']")

    # A simulated press (the demo's buttons, PIN-protected like every action).
    cookies = {c["name"]: c["value"] for c in context.cookies()}
    import httpx

    pressed = httpx.post(rig.url + "/api/simulate/press", json={"seat": 2}, cookies=cookies)
    assert pressed.status_code == 200, pressed.text

    # The panel shows who is recognized, on both screens.
    host.wait_for_selector("#answering-name[data-seat='2']")
    assert host.inner_text("#answering-name") == "Борис"
    viewer.wait_for_selector("#answering-name")
    assert viewer.inner_text("#answering-name") == "Борис"

    host.click("#judge-correct")
    wait_score(host, 2, 300)
    wait_score(viewer, 2, 300)
    assert score(host, 1) == "0" and score(viewer, 3) == "0"
    # The played cell is gone from the board; the chooser is now seat 2.
    host.wait_for_selector(".cell[data-theme='2'][data-price='300'][disabled]")
    host.wait_for_selector(".player[data-seat='2'].chooser")

    # English on request.
    host.click("#lang-btn")
    host.wait_for_function(
        "() => document.querySelector('#stage-label').textContent.includes('Choosing')"
    )
    assert errors == []
    context.close()
    viewer.close()


def test_a_viewer_page_cannot_act(browser: Any, rig: Rig) -> None:
    page = browser.new_page()
    page.goto(rig.url + "/view")
    page.wait_for_selector(".player[data-seat='1']")
    status = page.evaluate(
        """async () => (await fetch('/api/command', {method: 'POST',
             headers: {'Content-Type': 'application/json'},
             body: JSON.stringify({id: 'v1', command: {type: 'correction', seat: 1,
                                   delta: 1000, reason: 'me'}})})).status"""
    )
    assert status == 401
    assert rig.state()["scores"]["1"] == 0
    page.close()
