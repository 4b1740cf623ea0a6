"""The pages' words come from the one catalogue (buzzer/words), served by the panel.

A real panel on uvicorn serves ``/words.js``, made from the catalogue's
``panel`` namespace; ``i18n.js`` holds only the lookup. In Debian's Chromium
the host's and the viewer's pages show the catalogue's words in Russian and in
English, and the page fills a text's fields exactly as Python does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from buzzer import words
from tests.support.panel_game import TIMEOUT_MS
from tests.support.panel_support import PIN, Rig, panel_rig
from tests.support.paths import REPO

STATIC = REPO / "buzzer" / "panel" / "static"


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    with panel_rig(tmp_path) as rig:
        yield rig


def served_words(rig: Rig) -> dict[str, dict[str, str]]:
    response = httpx.get(rig.url + "/words.js", timeout=10.0)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/javascript; charset=utf-8"
    assert "script-src 'self'" in response.headers["content-security-policy"]
    script = r"(?s)/\*.*?\*/\n\"use strict\";\nconst WORDS = (\{.*\});\n"
    found = re.fullmatch(script, response.text)
    assert found is not None, response.text[:200]
    served: dict[str, dict[str, str]] = json.loads(found.group(1))
    return served


def test_the_panel_serves_the_catalogue_s_panel_words(rig: Rig) -> None:
    served = served_words(rig)
    assert list(served) == list(words.LANGUAGES)
    for lang in words.LANGUAGES:
        assert served[lang] == dict(words.table("panel", lang))
    assert served["ru"]["login.title"] == "Вход ведущего"
    assert served["en"]["login.title"] == "Host login"


def test_the_pages_load_the_words_before_the_lookup_and_the_lookup_holds_no_words(
    rig: Rig,
) -> None:
    for path in ("/", "/view"):
        page = httpx.get(rig.url + path, timeout=10.0).text
        scripts = re.findall(r'<script src="([^"]+)"></script>', page)
        assert scripts[:2] == ["/words.js", "/static/i18n.js"], (path, scripts)
    lookup = (STATIC / "i18n.js").read_text(encoding="utf-8")
    assert not re.search("[А-Яа-яЁё]", lookup)  # no Russian word left in it
    assert "const WORDS" not in lookup


def page_text(page: Any, selector: str) -> str:
    text: str = page.inner_text(selector, timeout=TIMEOUT_MS)
    return text


@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_the_pages_speak_the_catalogue_in_both_languages(browser: Any, rig: Rig, lang: str) -> None:
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    host = context.new_page()
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    host.goto(f"{rig.url}/?lang={lang}")
    host.wait_for_selector("#login:not([hidden])")
    assert page_text(host, "#login h1") == words.tr("panel.login.title", lang)
    assert page_text(host, "#pin-go") == words.tr("panel.login.go", lang)
    for digit in PIN:
        host.click(f"[data-digit='{digit}']")
    host.click("#pin-go")
    host.wait_for_selector("#game:not([hidden])")
    assert host.title() == words.tr("panel.title.host", lang)
    host.wait_for_function(
        "text => document.querySelector('#stage-label').textContent.includes(text)",
        arg=words.tr("panel.stage.board", lang),
    )

    viewer = context.new_page()
    viewer.on("pageerror", lambda exc: errors.append(str(exc)))
    viewer.goto(f"{rig.url}/view?lang={lang}")
    viewer.wait_for_selector(".player[data-seat='2']")
    assert viewer.title() == words.tr("panel.title.view", lang)
    assert page_text(viewer, "#lang-btn") == words.tr("panel.lang.other", lang)

    # Every text of the page's language, its fields filled by the page's lookup,
    # is what Python's lookup makes of it.
    asked = []
    for name in sorted(words.table("panel", lang)):
        text = words.tr(f"panel.{name}", lang)
        asked.append([name, {field: f"<{field}>" for field in sorted(words.fields(text))}])
    made = viewer.evaluate("asked => asked.map(([key, vars]) => Svoyak.t(key, vars))", asked)
    expected = [words.tr(f"panel.{name}", lang, **values) for name, values in asked]
    assert made == expected
    assert any("<name>" in text for text in made)  # fields were filled, not skipped
    assert errors == []
    context.close()
