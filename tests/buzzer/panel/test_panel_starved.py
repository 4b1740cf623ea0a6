"""A starved input thread, live: the host is told at once what happened, and why it stands.

Seat 2's buttons have their own input thread; the test stops it (the way a busy
CPU or a stuck driver starves one thread) right as seat 2 presses, and seat 1
presses 2 ms later through another source. The runtime waits for the starved
source up to its wait bound, journals the fault and gives seat 1 the floor.
When the thread runs again, 0.8 s later, seat 2's earlier press reaches the
game: it is ruled late (never played: the floor is not taken back), the
journal holds it and its replay says how late and ahead of whom, and the
host's panel, in Chromium, says so in a sentence the host can act on.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from buzzer.arbiter.events import Press
from buzzer.replay import replay_lines
from buzzer.runtime.runtime import Runtime
from tests.support.panel_game import (
    STILL,
    board_package,
    host_page,
    open_question,
    package_rig,
)
from tests.support.panel_support import Commands, Rig, wait_for

STARVED_S = 0.8


class StarvableButton:
    """One seat's input thread: it proves its time every millisecond while it runs,
    and stamps a press at its edge; ``starve()`` stops the thread with a press in
    hand, ``feed()`` lets it run again and deliver it."""

    name = "gpio-seat-2"

    def __init__(self, runtime: Runtime, seat: int) -> None:
        self.runtime = runtime
        self.seat = seat
        self.proven: int | None = runtime.now()
        self.held: Press | None = None
        self.running = threading.Event()
        self.running.set()
        self.stopped = False
        runtime.add_source(self)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def watermark(self) -> int | None:
        return self.proven

    def _run(self) -> None:
        while not self.stopped:
            self.running.wait()
            if self.held is not None:
                self.runtime.deliver(self, self.held)
                self.held = None
            self.proven = self.runtime.now()
            time.sleep(0.001)

    def starve_with_a_press(self) -> Press:
        """The edge happens now, and the thread stops before it can deliver it."""
        self.running.clear()
        time.sleep(0.005)  # the thread is parked on the event (it proves nothing more)
        press = Press(self.runtime.now(), self.seat)
        self.held = press
        return press

    def feed(self) -> None:
        self.running.set()

    def close(self) -> None:
        self.stopped = True
        self.running.set()
        self.thread.join(5)
        self.runtime.remove_source(self)


def starved_game(rig: Rig) -> tuple[Press, dict[str, Any]]:
    """Seat 2 presses first, starved; seat 1 2 ms later. Returns seat 2's press and
    the state once it has been ruled."""
    commands = Commands(rig.client())
    button = StarvableButton(rig.panel.runtime, 2)
    try:
        open_question(rig, commands, 1, 100)
        early = button.starve_with_a_press()
        time.sleep(0.002)
        response = commands.client.post("/api/simulate/press", json={"seat": 1})
        assert response.status_code == 200, response.text
        rig.wait_state(lambda s: s["answering"] == 1, "seat 1 given the floor")
        time.sleep(STARVED_S)
        button.feed()
        state = wait_for(
            lambda: next(
                (
                    body
                    for body in [rig.client().get("/api/state").json()]
                    if any(a["kind"] == "starved" for a in body["panel"]["alerts"])
                ),
                None,
            ),
            what="the starved press's alert",
        )
    finally:
        button.close()
    return early, state


def js_number(value: float) -> str:
    """A number as the page writes it (JavaScript's ``String(n)``): 4.0 is «4», 4.5 is «4.5»."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def test_a_starved_press_is_ruled_late_journaled_and_told_to_the_host(
    browser: Any, tmp_path: Path
) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        early, state = starved_game(rig)
        assert state["snapshot"]["answering"] == 1  # the decision stands
        (alert,) = [a for a in state["panel"]["alerts"] if a["kind"] == "starved"]
        assert (alert["seat"], alert["ahead_of"]) == (2, 1)
        assert alert["ahead_ms"] >= 2.0
        assert alert["late_s"] >= STARVED_S * 0.9

        # The journal: the source's fault, then the press itself, and its replay
        # rules it late with the same margins the host was told.
        lines = rig.lines()
        assert any(x.get("type") == "fault" and x["state"] == "stalled" for x in lines)
        presses = [x for x in lines if x.get("type") == "press"]
        assert [p["seat"] for p in presses] == [1, 2]
        assert round(presses[1]["t"] * 1e9) == early.t
        out = [json.loads(line) for line in replay_lines(list(rig.store.lines()))]
        (late,) = [x for x in out if x.get("type") == "ignored" and x["seat"] == 2]
        assert (late["reason"], late["ahead_of"]) == ("late", 1)
        assert round(late["ahead_us"] / 1000, 1) == alert["ahead_ms"]
        assert round(late["late_us"] / 1e6, 2) == alert["late_s"]

        # The host's panel says it in words, in Russian and in English, and it
        # stays until the host dismisses it (not a transient "late").
        page = host_page(browser, rig)
        shown = page.wait_for_selector(".alert[data-kind='starved']")
        text = shown.inner_text()
        assert "Борис" in text and "Анна" in text, text
        ahead = js_number(alert["ahead_ms"])
        assert f"на {ahead} мс раньше" in text, text
        assert "Решение остаётся в силе" in text and "исправьте счёт" in text, text
        page.click("#lang-btn")
        english = page.wait_for_selector(".alert[data-kind='starved']").inner_text()
        assert f"{ahead} ms earlier than Анна's" in english, english
        assert "its input was starved" in english and "The decision stands" in english
        assert page.errors == []
