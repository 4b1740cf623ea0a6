"""C2003-2.4.6e on the host's panel: a special question's time to think starts when
the host has read it, with «Вопрос прочитан — время пошло» in the special stage.

Before, the time ran from the hand-over while the host was still reading, and
the panel had no way to say the reading was over. Chromium (Debian's) on the
panel's test package: the sponsor question shows the button and no countdown;
a tap journals a ``reading_end`` and the countdown starts; the verdict as ever.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.panel_game import (
    SPONSOR_CELL,
    board_package,
    host_page,
    package_rig,
    wait_stage,
)
from tests.support.panel_support import Commands


def test_C2003_2_4_6e_the_host_ends_the_special_s_reading_and_the_time_starts(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, board_package(), game_options={"answer_time_s": 600}) as rig:
        commands = Commands(rig.client())
        page = host_page(browser, rig)
        commands.ok({"type": "select", "theme": SPONSOR_CELL[0], "price": SPONSOR_CELL[1]})
        wait_stage(page, "special")
        assert rig.state()["special_deadline"] is None  # the host is reading: no time runs
        assert page.inner_text("#special-read") == "Вопрос прочитан — время пошло"
        lines = len(rig.store)
        page.click("#special-read")
        state = rig.wait_state(lambda s: s["special_deadline"] is not None, "the time to think")
        assert state["special_deadline"] > state["now"]
        assert rig.lines()[lines]["type"] == "reading_end"
        page.wait_for_selector("#special-read", state="detached")
        page.click("#judge-correct")
        wait_stage(page, "board")
        assert page.errors == []
