"""The controller: journal first, then decide, then publish; resume gives the same game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from buzzer.arbiter.decisions import Decision
from buzzer.arbiter.events import Judge, Press, ReadingEnd, ReadingStart, Select
from buzzer.journal.store import JournalStore
from buzzer.replay import replay_lines
from buzzer.runtime.controller import Controller

MS = 1_000_000
S = 1_000_000_000
HEADER = {"rules": "tv-modern", "players": ["А", "Б", "В"], "chooser": 1, "seed": 3}


class FakeClock:
    """A monotonic clock that moves only when told (pgzero's clock, as a model)."""

    def __init__(self, start: int = 10 * S) -> None:
        self.ns = start

    def __call__(self) -> int:
        return self.ns


def test_every_input_is_journaled_before_listeners_hear_of_it(tmp_path: Path) -> None:
    clock = FakeClock()
    store = JournalStore(tmp_path / "g.sqlite")
    controller = Controller.new(HEADER, store, clock)
    seen: list[tuple[int, list[str]]] = []

    def listener(decisions: list[Decision], snapshot: dict[str, Any]) -> None:
        # At the moment anything is shown, the journal already holds its input.
        seen.append((len(store), [d.to_json() for d in decisions]))

    controller.subscribe(listener)
    clock.ns += 1 * S
    controller.submit(Select(controller.now(), 1, 100))
    assert seen[-1][0] == 2
    assert json.loads(list(store.lines())[1])["type"] == "select"


def test_ticks_release_a_press_after_the_settle_window_and_close_windows(tmp_path: Path) -> None:
    clock = FakeClock()
    controller = Controller.new(HEADER, JournalStore(tmp_path / "g.sqlite"), clock)
    for item in (Select(1 * S, 2, 300), ReadingStart(2 * S), ReadingEnd(5 * S)):
        clock.ns = controller.t0_ns + item.t
        controller.submit(item)
    clock.ns = controller.t0_ns + 5 * S + 500 * MS
    edge = controller.now() - 200_000  # stamped at the edge, 200 µs before it got here
    held = [d.to_json() for d in controller.submit(Press(edge, 2))]
    assert not any("recognized" in d for d in held)  # held for the settle window
    clock.ns += 1 * MS
    assert controller.tick() == []  # 1 ms: not yet
    clock.ns += 3 * MS
    decided = [d.to_json() for d in controller.tick()]
    assert any('"recognized", "seat": 2' in d for d in decided)
    assert controller.snapshot()["answering"] == 2
    clock.ns += 1 * S
    controller.submit(Judge(controller.now(), False))
    clock.ns += 4 * S  # past the fresh 3 s window
    closed = [json.loads(d.to_json())["type"] for d in controller.tick()]
    # The verdict itself was held for the settle window too (a press stamped before
    # it may still be on its way); this tick decides it and then closes the window.
    assert closed == ["score", "window_opened", "window_closed", "chooser"]


def test_resume_rebuilds_the_same_state_and_the_journal_replays(tmp_path: Path) -> None:
    clock = FakeClock()
    db = tmp_path / "g.sqlite"
    controller = Controller.new(HEADER, JournalStore(db), clock)
    for item in (
        Select(1 * S, 1, 200),
        ReadingStart(2 * S),
        ReadingEnd(4 * S),
        Press(4 * S + 300 * MS, 3),
        Press(4 * S + 300 * MS, 1),  # an exact tie: the seeded draw is journaled
        Judge(6 * S, True),
    ):
        clock.ns = controller.t0_ns + item.t
        controller.submit(item)
    clock.ns += 10 * MS  # past the settle window: the verdict is decided and shown
    controller.tick()
    before = controller.snapshot()
    assert before["scores"] != {"1": 0, "2": 0, "3": 0}
    journal = list(JournalStore(db).lines())
    assert any(json.loads(x)["type"] == "draw" for x in journal)

    later = FakeClock(start=500 * S)
    resumed = Controller.resume(JournalStore(db), later)
    after = resumed.snapshot()
    for key in ("scores", "chooser", "stage", "played"):
        assert after[key] == before[key]
    assert resumed.now() == 6 * S + 10 * MS  # the game clock goes on from the last input
    result = json.loads(replay_lines(journal)[-1])
    assert result["scores"] == before["scores"]
