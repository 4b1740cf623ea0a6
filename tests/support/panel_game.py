"""A game night on the host's panel: question packages of the tests' own, and
the taps that bring a game to a given stage (the panel's browser tests).

Two packages, written as the project's own JSON format into the test's
folder:

* **the board package**: one round of seven themes (one with a long name),
  five prices and long question texts, with a cat in the bag that names its
  own theme and value (КОРАБЛИ, 700, as a real .siq cat does), a sponsor
  question and a stake question; and a final of seven themes;
* **the final package**: one round of three questions (so that three
  players reach the final quickly) and the same final of seven themes.

The host's lookup (``hub.question_lookup``) is wired exactly as ``svoyak
run`` wires it: :meth:`display.packages.PackageTexts.host_view`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from display.packages import PackageTexts
from rules.packages import load_json
from tests.support.panel_support import Commands, Rig, panel_rig

PLAYERS = ["Анна", "Борис", "Вера"]
LONG_THEME = "Достопримечательности городов Золотого кольца России и их окрестностей"
THEMES = ["География", "Русский язык", "Наука", LONG_THEME, "Кино", "Музыка", "Спорт"]
PRICES = [100, 200, 300, 400, 500]
CAT_CELL = (3, 400)
SPONSOR_CELL = (5, 300)
STAKE_CELL = (6, 500)
FINAL_THEMES = [
    "ПОЛИТИКА",
    "СПОРТ",
    "НАУКА И ЖИЗНЬ",
    "НАГРАДЫ И ПРЕМИИ",
    "ЗЕРКАЛА И ОТРАЖЕНИЯ",
    "КНИЖНЫЙ МИР",
    "МИФЫ И ЛЕГЕНДЫ",
]
LONG_TEXT = (
    "Этот вопрос нарочно длинный, как бывают вопросы в настоящих пакетах: ведущий читает "
    "его вслух целиком, с цитатой, датами и пояснениями, а панель должна показать весь "
    "текст, ответ и комментарий так, чтобы кнопки «Верно» и «Неверно» оставались на "
    "экране и не уходили под нижнюю панель ни на планшете, ни на телефоне. "
) * 3


def text_of(theme: int, price: int) -> str:
    """The question at a cell: its cell is in it, so a test can tell which one shows."""
    return f"Вопрос {theme}/{price}. {LONG_TEXT}"


def answer_of(theme: int, price: int) -> list[str]:
    return [f"Ответ {theme}/{price}", f"допустимо {theme}-{price}"]


def comment_of(theme: int, price: int) -> str:
    return f"Комментарий ведущему к вопросу {theme}/{price}."


def final_text(theme: int) -> str:
    return f"Финальный вопрос темы {theme}: что объединяет эти понятия? " + LONG_TEXT


def final_answer(theme: int) -> str:
    return f"Финальный ответ {theme}"


def _question(theme: int, price: int) -> dict[str, Any]:
    question: dict[str, Any] = {
        "price": price,
        "text": text_of(theme, price),
        "answer": answer_of(theme, price),
        "comment": comment_of(theme, price),
    }
    if (theme, price) == CAT_CELL:
        question["kind"] = "cat"
        question["cat"] = {"theme": "КОРАБЛИ", "price": 700, "receiver": "others"}
    elif (theme, price) == SPONSOR_CELL:
        question["kind"] = "sponsor"
    elif (theme, price) == STAKE_CELL:
        question["kind"] = "stake"
    return question


def _final() -> dict[str, Any]:
    return {
        "name": "Финал",
        "themes": [
            {
                "name": name,
                "question": {
                    "text": final_text(i),
                    "answer": final_answer(i),
                    "comment": f"Комментарий к финалу {i}.",
                },
            }
            for i, name in enumerate(FINAL_THEMES, 1)
        ],
    }


def board_package() -> dict[str, Any]:
    themes = [
        {"name": name, "questions": [_question(i, p) for p in PRICES]}
        for i, name in enumerate(THEMES, 1)
    ]
    return {
        "format": "svoyak-package",
        "version": 1,
        "name": "Пакет для тестов панели",
        "rounds": [{"name": "1-й раунд", "themes": themes}],
        "final": _final(),
    }


def final_package() -> dict[str, Any]:
    themes = [{"name": f"Разминка {i}", "questions": [_question(i, 100)]} for i in range(1, 4)]
    return {
        "format": "svoyak-package",
        "version": 1,
        "name": "Пакет для финала",
        "rounds": [{"name": "1-й раунд", "themes": themes}],
        "final": _final(),
    }


@contextmanager
def package_rig(
    tmp_path: Path,
    package: dict[str, Any],
    rules: str = "tv-modern",
    game_options: dict[str, Any] | None = None,
    **options: Any,
) -> Iterator[Rig]:
    """A panel over ``package``, the host's lookup wired as ``svoyak run`` wires it.

    ``game_options``: the header's rule options (``{"window_s": 0.5}``).
    """
    path = tmp_path / "package.json"
    path.write_text(json.dumps(package, ensure_ascii=False), encoding="utf-8")
    header: dict[str, Any] = {
        "rules": rules,
        "players": PLAYERS,
        "package": str(path),
        "chooser": 1,
        "options": game_options or {},
    }
    with panel_rig(tmp_path, header, **options) as rig:
        rig.panel.hub.question_lookup = PackageTexts(load_json(path)).host_view
        yield rig


# -- bringing a game to a stage through the API ---------------------------------


def press(rig: Rig, commands: Commands, seat: int) -> None:
    response = commands.client.post("/api/simulate/press", json={"seat": seat})
    assert response.status_code == 200, response.text


def open_question(rig: Rig, commands: Commands, theme: int, price: int) -> None:
    """Select a plain question and give the signal: the buttons are open."""
    commands.ok({"type": "select", "theme": theme, "price": price})
    rig.wait_state(lambda s: s["stage"] == "question", "the question")
    commands.ok({"type": "reading_end"})
    rig.wait_state(lambda s: s["phase"] == "open", "the open window")


def answer_right(rig: Rig, commands: Commands, theme: int, price: int, seat: int) -> None:
    open_question(rig, commands, theme, price)
    press(rig, commands, seat)
    rig.wait_state(lambda s: s["answering"] == seat, f"seat {seat} answering")
    commands.ok({"type": "judge", "verdict": "correct"})
    rig.wait_state(lambda s: s["stage"] != "question", "the question closed")


def to_final(rig: Rig, commands: Commands) -> dict[str, Any]:
    """The final package's three questions, one right answer each: three finalists."""
    for seat in (1, 2, 3):
        answer_right(rig, commands, seat, 100, seat)
    return rig.wait_state(lambda s: s["stage"] == "final_remove", "the final")


def remove_to_one(rig: Rig, commands: Commands) -> dict[str, Any]:
    """Remove final themes in turn until one is left (the last one stays)."""
    while True:
        state = rig.state()
        if state["stage"] != "final_remove":
            return state
        theme = state["final"]["themes_left"][0]
        commands.ok({"type": "final_remove", "theme": theme})
        # Until the state shows this removal (a newer version alone may be an
        # update from before it, and the next round would pick the same theme).
        rig.wait_state(
            lambda s, t=theme: s["stage"] != "final_remove" or t not in s["final"]["themes_left"],
            "the removal",
        )


#: A long answer window and answer time: nothing moves on by itself mid-test.
STILL: dict[str, Any] = {"window_s": 600, "answer_time_s": 600}


# -- the browser ------------------------------------------------------------------

CHROMIUM = Path(os.environ.get("SVOYAK_CHROMIUM", "/usr/bin/chromium"))
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
TIMEOUT_MS = 20_000
TABLET = {"width": 1024, "height": 768}
PHONE = {"width": 390, "height": 844}


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium through playwright; missing, it is a failure, never a skip."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the playwright package is not installed (see docs/panel.md)")
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is not installed (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def shoot(page: Any, name: str, *, prefix: str = "", full_page: bool = False) -> None:
    """``SVOYAK_PANEL_SHOTS=dir``: a screenshot of the page saved there, to look at."""
    folder = os.environ.get("SVOYAK_PANEL_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{prefix}{name}.png"), full_page=full_page)


#: The pages opened by the running test (cleared at each test's setup, tests/conftest.py):
#: a failed test's report lists their traffic (:func:`page_traffic`).
OPENED_PAGES: list[Any] = []


def host_page(browser: Any, rig: Rig, viewport: dict[str, int] = TABLET) -> Any:
    """A host page already logged in (the session cookie of an API login).

    Page errors are collected in ``page.errors``: a test ends by checking it is empty.
    """
    client = rig.client()
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(TIMEOUT_MS)
    context.add_cookies(
        [{"name": c.name, "value": c.value or "", "url": rig.url} for c in client.cookies.jar]
    )
    # The last taps the page took (pointer down and up, clicks: on what, disabled or
    # not), kept in the page for a failed test's report.
    context.add_init_script(TAP_LOG_JS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    # Every command the page posted, from the moment it left (an answer that never
    # comes shows as such), with the answer it got (read at a timeout).
    commands: list[Any] = []
    page.on("request", lambda r: _keep_command(commands, r))
    page.commands = commands
    OPENED_PAGES.append(page)
    page.goto(rig.url + "/")
    page.wait_for_selector("#game:not([hidden])")
    page.wait_for_selector("#link.up")
    return page


#: Installed in each host page before its own scripts: its last 40 taps, each with
#: the page's clock (s), the event, and the button or element it reached.
TAP_LOG_JS = """
window.__taps = [];
for (const kind of ["pointerdown", "pointerup", "click"]) {
  document.addEventListener(kind, (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const hit = target && (target.closest("button, input, [id]") || target);
    const label = hit && !hit.id ? ` «${(hit.textContent || "").trim().slice(0, 24)}»` : "";
    let what = hit ? (hit.id ? "#" + hit.id : hit.tagName.toLowerCase() + label) : "nothing";
    if (hit && hit.disabled) what += " (disabled)";
    window.__taps.push(`${(performance.now() / 1000).toFixed(3)} ${kind} ${what}`);
    if (window.__taps.length > 40) window.__taps.shift();
  }, true);
}
"""


def _keep_command(commands: list[Any], request: Any) -> None:
    if request.url.endswith("/api/command"):
        commands.append(request)


def page_traffic(page: Any) -> str:
    """A page's commands with their answers, the toast it shows and its errors."""
    size = page.viewport_size or {}
    lines = [f"page {size.get('width')}x{size.get('height')}:"]
    # First a call into the page: the sync API hears its events only inside one.
    try:
        toast = page.evaluate(
            "(() => { const b = document.getElementById('toast');"
            " return b && !b.hidden ? b.textContent : ''; })()"
        )
    except Exception as exc:
        toast = f"unreadable ({exc})"
    try:
        taps = page.evaluate("(() => [performance.now() / 1000, window.__taps || []])()")
    except Exception as exc:
        taps = [None, [f"unreadable ({exc})"]]
    for request in list(getattr(page, "commands", [])):
        failure = request.failure
        try:
            # a request still waiting for its answer has none: never wait for it here
            timing = request.timing
            done = timing.get("responseEnd", -1) >= 0 or failure is not None
            response = request.response() if done else None
            if response is None:
                answer = "no answer yet" if failure is None else ""
            else:
                answer = f"{response.status} {response.text()}"
        except Exception as exc:  # the page closed under us: say so, keep going
            answer = f"unreadable ({exc})"
        lines.append(f"  {request.post_data} -> {failure or answer}")
    if len(lines) == 1:
        lines.append("  no command posted")
    lines.append(f"  toast: {toast!r}")
    lines.append(f"  page errors: {list(getattr(page, 'errors', []))}")
    now, tapped = taps
    lines.append(f"  last taps (page clock now {now}): " + ("; ".join(tapped) or "none"))
    return "\n".join(lines)


def wait_stage(page: Any, stage: str) -> None:
    page.wait_for_selector(f"#stage[data-stage='{stage}']")
