"""``svoyak run --resume`` on the journal of a finished game (a new user's trial): it
said «игра началась / the game is on» and «журнал продолжен» as if there were a game
to play. It serves the game as it ended and says so: the game is over, its report,
``svoyak replay``, how to start a new one. Through a real process (``svoyak run``)."""

from __future__ import annotations

import shlex
from pathlib import Path

from buzzer.arbiter.events import Judge, ReadingEnd, ReadingStart, Select
from buzzer.journal.store import JournalStore
from buzzer.runtime.controller import Controller
from buzzer.runtime.runtime import Runtime
from tests.support.live_run import Host, served

HEADER = {
    "rules": "sport-false-start",
    "players": ["Аня", "Борис", "Вера"],
    "board": {"rounds": [{"name": "Раунд", "themes": ["Реки"], "prices": [100]}]},
    "settle_ms": 0,
}


def finished_game(path: Path) -> None:
    """A journal of a one-question game, played to its end (Борис answers)."""
    store = JournalStore(path)
    controller = Controller.new(HEADER, store)
    runtime = Runtime(controller).start()
    try:
        runtime.wait(runtime.command(lambda t: Select(t, 1, 100)))
        runtime.wait(runtime.command(ReadingStart))
        runtime.wait(runtime.command(ReadingEnd))
        runtime.wait(runtime.press(2))
        runtime.wait(runtime.command(lambda t: Judge(t, True)))
        assert controller.snapshot()["stage"] == "over"
    finally:
        runtime.stop()
        store.close()


def test_resuming_a_finished_game_says_it_is_over_and_serves_its_result(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "game.sqlite"
    finished_game(journal)
    with served("--journal", str(journal), "--resume", "--no-mdns") as run:
        state = Host(run.url, run.pin).state()
        start = run.output()
    assert state["snapshot"]["stage"] == "over" and state["snapshot"]["winner"] == 2
    assert "the game is on" not in start and "игра началась" not in start
    assert "journal resumed" not in start and "журнал продолжен" not in start
    assert "игра уже окончена" in start and "the game is already over" in start, start
    report = journal.with_suffix(".html")
    assert f"отчёт об игре / the game's report: {report} (/report)" in start
    assert f"svoyak replay --summary {shlex.quote(str(journal))}" in start
    assert "a new game: svoyak run without --resume and without this --journal" in start
    assert "Traceback" not in run.output()
