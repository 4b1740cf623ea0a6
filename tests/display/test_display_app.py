"""The board application with SDL's dummy drivers, fed by the real controller; the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pygame
import pytest

from buzzer.arbiter import events as ev
from buzzer.cli import main
from display.app import BoardApp, DisplayConfig
from display.replay import JournalPlayer
from display.scene import StartInfo
from display.sounds import FALSE_START, PRESS
from tests.support.display_support import NS, ScriptedGame
from tests.support.paths import REPO

ROOT = REPO


@pytest.fixture
def app() -> Iterator[BoardApp]:
    board = BoardApp(
        {"size": [640, 360], "sound": {"volume": 0.3}},
        start=StartInfo(url="http://10.0.0.5:8000/panel"),
    )
    board.open()
    yield board
    board.close()


def test_a_live_game_on_the_board(app: BoardApp) -> None:
    game = ScriptedGame(
        {"rules": "tv-modern", "players": ["Анна", "Борис", "Вера"], "chooser": 1, "seed": 1}
    )
    app.attach(game.controller)
    assert app.clock is not None
    dirty = app.frame()
    assert dirty == [app.screen.get_rect()]  # type: ignore[union-attr]
    assert app.show_start  # no input yet: the address and the QR code
    assert app.frame() == []  # nothing changed, nothing drawn
    game.do(lambda t: ev.Select(t, 1, 100))
    app.frame()
    assert not app.show_start
    app.set_question("Кто написал «Войну и мир»?")
    game.do(lambda t: ev.ReadingStart(t))
    game.do(lambda t: ev.Press(t, 2), gap=0.3)  # a false start
    app.frame()
    assert app.sounds is not None and app.sounds.error is None
    assert app.sounds.played == [FALSE_START]
    assert app.renderer is not None and app.renderer.animating(app.scene(), app.now())
    game.do(lambda t: ev.ReadingEnd(t))
    game.do(lambda t: ev.Press(t, 1), gap=0.2)
    app.frame()
    assert app.sounds.played == [FALSE_START, PRESS]
    assert app.snapshot is not None and app.snapshot["answering"] == 1
    game.do(lambda t: ev.Judge(t, True))
    app.frame()
    assert app.snapshot["stage"] == "board"


def test_keys_and_window_events(app: BoardApp) -> None:
    app.publish([], {"players": ["А", "Б"], "stage": "board", "version": 0, "now": 0})
    app.frame()
    app.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_s))
    assert not app.show_start
    seen: list[pygame.event.Event] = []
    app.on_event = seen.append
    app.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_1))
    assert seen and seen[0].key == pygame.K_1
    app.handle(pygame.event.Event(pygame.VIDEORESIZE, w=800, h=450, size=(800, 450)))
    app.running = True
    app.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE))
    assert not app.running


def test_run_until(app: BoardApp) -> None:
    frames = []
    app.publish([], {"players": ["А"], "stage": "board", "version": 1, "now": 0})
    app.run(until=lambda: len(frames) > 2 or frames.append(1) is not None)
    assert len(frames) == 3


def test_config_is_checked() -> None:
    config = DisplayConfig.from_mapping({"lang": "en", "fullscreen": False, "fps": 30})
    assert (config.lang, config.fullscreen, config.fps) == ("en", False, 30)
    for bad in (
        {"lang": "de"},
        {"size": [10, 10]},
        {"fps": 0},
        {"fullscreen": "yes"},
        {"colour": "red"},
        {"sound": {"volume": 3}},
    ):
        with pytest.raises(ValueError):
            DisplayConfig.from_mapping(bad)


def test_the_player_ticks_windows_shut() -> None:
    lines = (ROOT / "examples" / "sport-no-false-start.jsonl").read_text().splitlines()
    player = JournalPlayer(lines)
    closed = []
    while (t := player.next_time()) is not None:
        closed += [d for d in player.advance(t) if d.TYPE == "window_closed"]
    assert closed, "the unanswered question's window closes by a tick, as live"
    assert player.done and player.finished


def test_cli_shot(tmp_path: Path) -> None:
    out = tmp_path / "frame.png"
    journal = ROOT / "examples" / "full-game-tv-modern.jsonl"
    assert (
        main(["display", "shot", str(journal), str(out), "--size", "640x360", "--line", "12"]) == 0
    )
    assert pygame.image.load(str(out)).get_size() == (640, 360)
    at = tmp_path / "at.png"
    assert main(["display", "shot", str(journal), str(at), "--size", "640x360", "--at", "4.0"]) == 0
    assert (
        main(["display", "shot", str(journal), str(out), "--lang", "en", "--size", "640x360"]) == 0
    )


def test_cli_shot_with_package_text(tmp_path: Path) -> None:
    journal = tmp_path / "demo.jsonl"
    header = {"type": "game", "rules": "tv-modern", "players": ["А", "Б"], "chooser": 1}
    header["package"] = "svoyak:demo"
    lines = [json.dumps(header), json.dumps({"t": 1.0, "type": "select", "theme": 1, "price": 200})]
    journal.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from display.packages import PackageTexts

    texts = PackageTexts.from_header(lines[0], tmp_path)
    player = JournalPlayer(lines, tmp_path)
    player.advance(2 * NS)
    assert "Австралии" in (texts.question(player.snapshot()) or "")
    assert (
        main(["display", "shot", str(journal), str(tmp_path / "q.png"), "--size", "640x360"]) == 0
    )


def test_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.jsonl"
    assert main(["display", "shot", str(missing), str(tmp_path / "x.png")]) == 2
    assert "cannot read" in capsys.readouterr().err
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"type": "game", "rules": "nope", "players": ["A"]}\n', encoding="utf-8")
    assert main(["display", "shot", str(broken), str(tmp_path / "x.png")]) == 2
    assert "svoyak display" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["display", "shot", str(broken), "x.png", "--size", "huge"])


def test_cli_replay_runs_to_the_end(tmp_path: Path) -> None:
    journal = ROOT / "examples" / "jeopardy.jsonl"
    code = main(
        [
            "display",
            "replay",
            str(journal),
            "--speed",
            "50",
            "--hold",
            "0",
            "--size",
            "640x360",
            "--mute",
        ]
    )
    assert code == 0


def test_cli_sounds(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    monkeypatch.setattr(time, "sleep", lambda s: None)
    assert main(["display", "sounds", "--volume", "0.1"]) == 0


def test_x11_shows_the_board_without_opengl(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under X11 the window's surface goes through X's shared memory, not an OpenGL
    texture (about 115 MB of Mesa and LLVM, BENCHMARKS.md); a hint already set is kept."""
    from display import app as board_app

    monkeypatch.delenv(board_app.FRAMEBUFFER_ACCELERATION, raising=False)
    monkeypatch.setattr(pygame.display, "get_driver", lambda: "x11")
    board = BoardApp({"size": [320, 180]}, sounds=False)
    board.open()
    board.close()
    assert board_app.os.environ[board_app.FRAMEBUFFER_ACCELERATION] == "0"
    monkeypatch.setenv(board_app.FRAMEBUFFER_ACCELERATION, "1")
    board.open()
    board.close()
    assert board_app.os.environ[board_app.FRAMEBUFFER_ACCELERATION] == "1"
    monkeypatch.setattr(pygame.display, "get_driver", lambda: "kmsdrm")
    monkeypatch.delenv(board_app.FRAMEBUFFER_ACCELERATION)
    board = BoardApp({"size": [320, 180], "fullscreen": False}, sounds=False)
    board.open()
    board.close()
    assert board_app.FRAMEBUFFER_ACCELERATION not in board_app.os.environ
