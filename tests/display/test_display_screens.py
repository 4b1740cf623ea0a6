"""Every screen of every rule system, rendered; the dirty tracking; any resolution.

Games are played through the real controller (``ScriptedGame``) and the
example journals through :class:`display.replay.JournalPlayer`; each
published snapshot is drawn the way the live board draws it (one renderer,
incremental). The renderer must never fail, must show the screen of the
snapshot's stage, and must give the same pixels incrementally as when
drawing the scene afresh.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pygame
import pytest

from display import scene as screens
from display import view
from display.i18n import keys, translations
from display.layout import Layout
from display.renderer import Renderer, render
from display.replay import JournalPlayer
from display.scene import Facts, Memory, Scene, StartInfo, screen_kind
from tests.support.display_support import MS, NS, RULES, full_game
from tests.support.paths import REPO

ROOT = REPO
EXAMPLES = sorted((ROOT / "examples").glob("*.jsonl"))

EXPECTED = {
    "championship-2003": {"board", "question", "bidding", "special"}
    | {"final_remove", "final_stakes", "final_judging", "over"},
    "tv-1994": {"board", "question", "bidding", "special"}
    | {"final_remove", "final_stakes", "final_judging", "over"},
    "tv-modern": {"board", "question", "bidding", "cat", "special"}
    | {"final_remove", "final_stakes", "final_judging", "over"},
    "sport-false-start": {"board", "question", "over"},
    "sport-clarify": {"board", "question", "over"},
    "sport-no-false-start": {"board", "question", "over"},
    "jeopardy": {"board", "question", "over"},
}

SIZE = (640, 360)


def pixels(surface: pygame.Surface) -> bytes:
    return pygame.image.tobytes(surface, "RGB")


def test_the_seven_rule_systems_are_covered() -> None:
    from rules.profiles import RULE_SYSTEMS

    assert set(RULE_SYSTEMS) == set(RULES) == set(EXPECTED)


@pytest.mark.parametrize("rules", RULES)
def test_every_screen_of_a_whole_game(rules: str) -> None:
    game = full_game(rules)
    surface = pygame.Surface(SIZE)
    renderer = Renderer(surface)
    seen = set()
    shootout = False
    for i, frame in enumerate(game.frames):
        scene = frame.scene(question_text="Вопрос номер " + str(i))
        kind = screen_kind(scene)
        seen.add(kind)
        shootout |= bool(frame.snapshot["shootout"])
        now = frame.snapshot["now"]
        dirty = renderer.draw(scene, now)
        assert all(surface.get_rect().contains(r) for r in dirty)
        if view.countdown(scene, now) is None and i % 3 == 0:
            # Incremental drawing gives the same picture as drawing afresh.
            assert pixels(surface) == pixels(render(scene, SIZE, now))
    assert seen == EXPECTED[rules]
    assert game.snap["stage"] == "over"
    if not rules.startswith("sport"):
        assert shootout, "the scripted game should reach a shootout"
    # The start screen of that game.
    start = Scene(game.frames[0].snapshot, start=StartInfo(url="http://10.0.0.2:8000/"))
    assert screen_kind(start) == screens.START
    render(start, SIZE)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_journals_render_at_every_step(path: Path) -> None:
    player = JournalPlayer(path.read_text(encoding="utf-8").splitlines(), path.parent)
    surface = pygame.Surface(SIZE)
    renderer = Renderer(surface)
    steps = 0
    while (t := player.next_time()) is not None and steps < 500:
        player.advance(t)
        for dt in (0, 120 * MS, 700 * MS):  # the frames in between: countdowns, blinking
            renderer.draw(Scene(player.snapshot(), player.facts()), t + dt)
        steps += 1
    assert player.done
    assert steps > 0


def _question_scene(now: int = 5 * NS) -> Scene:
    snapshot = {
        "rules": "tv-modern",
        "players": ["Анна", "Борис", "Вера"],
        "stage": "question",
        "round": 1,
        "round_name": "Первый раунд",
        "themes": ["Кино", "Музыка"],
        "prices": [100, 200],
        "played": [],
        "cell": [1, 200],
        "special": None,
        "scores": {"1": 0, "2": 300, "3": -100},
        "chooser": 2,
        "phase": "open",
        "answering": None,
        "closes_at": now + 2 * NS,
        "answer_deadline": None,
        "locked_until": {"3": now + NS},
        "answered": [],
        "margins_us": {},
        "bidding": None,
        "value": None,
        "special_deadline": None,
        "final": None,
        "shootout": None,
        "winner": None,
        "over": False,
        "now": now,
    }
    return Scene(snapshot, question_text="Кто снял фильм «Сталкер»?")


def test_an_unchanged_frame_repaints_nothing() -> None:
    surface = pygame.Surface(SIZE)
    renderer = Renderer(surface)
    scene = _question_scene()
    now = scene.snapshot["now"]  # type: ignore[index]
    assert renderer.draw(scene, now) == [surface.get_rect()]
    assert renderer.draw(scene, now) == []
    assert renderer.repainted == []


def test_a_running_countdown_repaints_the_bar_and_the_digits_only() -> None:
    surface = pygame.Surface(SIZE)
    renderer = Renderer(surface)
    scene = _question_scene()
    now = scene.snapshot["now"]  # type: ignore[index]
    renderer.draw(scene, now)
    renderer.draw(scene, now + 17 * MS)
    assert set(renderer.repainted) <= {"bar"}
    renderer.draw(scene, now + NS + 17 * MS)  # a second later: the digit changes too
    assert "clock" in renderer.repainted
    assert set(renderer.repainted) <= {"bar", "clock", "podium3"}


def test_a_false_start_lamp_blinks_and_stops() -> None:
    surface = pygame.Surface(SIZE)
    renderer = Renderer(surface)
    scene = _question_scene(now=0)
    assert renderer.animating(scene, 0)
    renderer.draw(scene, 0)
    renderer.draw(scene, view.BLINK_NS)  # the other half of the blink
    assert "podium3" in renderer.repainted
    lamp = renderer.layout.podium_rects(3)[2].lamp
    off = surface.get_at(lamp.center)
    renderer.draw(scene, 2 * view.BLINK_NS)
    assert surface.get_at(lamp.center) != off
    # After the lockout: the lamp is off for good, and only the window still animates.
    after = 2 * NS + 10 * MS
    renderer.draw(scene, after)
    views = view.podiums(scene, after, "ru")
    assert views[2].lamp == view.LAMP_OFF and views[2].status == ""
    # Past the window's end nothing animates any more.
    assert not renderer.animating(scene, 3 * NS)


def test_a_press_repaints_podiums_and_the_status_line() -> None:
    surface = pygame.Surface(SIZE)
    renderer = Renderer(surface)
    scene = _question_scene()
    snapshot = dict(scene.snapshot or {})
    now = snapshot["now"]
    renderer.draw(scene, now)
    snapshot.update(
        phase="answering",
        answering=1,
        closes_at=None,
        answer_deadline=now + 5 * NS,
        margins_us={"2": 412},
        locked_until={},
    )
    renderer.draw(Scene(snapshot, question_text=scene.question_text), now)
    assert {"podium1", "podium2", "status", "bar", "clock"} <= set(renderer.repainted)
    assert "question" not in renderer.repainted and "header" not in renderer.repainted
    views = view.podiums(Scene(snapshot), now, "ru")
    assert views[0].lamp == view.LAMP_ON and "412" in views[0].status
    assert views[1].status == "+412 мкс"


def test_a_stage_change_repaints_the_whole_screen() -> None:
    surface = pygame.Surface(SIZE)
    renderer = Renderer(surface)
    scene = _question_scene()
    renderer.draw(scene, 0)
    board = dict(scene.snapshot or {}, stage="board", cell=None, phase="closed", closes_at=None)
    assert renderer.draw(Scene(board), 0) == [surface.get_rect()]


@pytest.mark.parametrize(
    "size", [(1280, 720), (1920, 1080), (3840, 2160), (1024, 768), (720, 1280)]
)
def test_layout_fits_any_resolution(size: tuple[int, int]) -> None:
    layout = Layout(*size)
    screen = layout.screen
    bands = [layout.header, layout.main, layout.bar, layout.podiums, layout.body, layout.status]
    assert all(screen.contains(r) and r.width > 0 and r.height > 0 for r in bands)
    assert layout.header.bottom <= layout.main.top <= layout.main.bottom <= layout.bar.top
    assert layout.bar.bottom <= layout.podiums.top
    for count in (1, 3, 4, 8, 16):
        podiums = layout.podium_rects(count)
        assert len(podiums) == count
        for a, b in itertools.pairwise(podiums):
            assert a.rect.right <= b.rect.left
        for p in podiums:
            assert layout.podiums.contains(p.rect)
            for part in (p.lamp, p.name, p.score, p.status):
                assert p.rect.contains(part)
    themes, rows = layout.grid(6, 5)
    for theme, row in zip(themes, rows, strict=True):
        assert layout.main.contains(theme)
        assert all(layout.main.contains(cell) and cell.left >= theme.right for cell in row)


@pytest.mark.parametrize("size", [(1280, 720), (3840, 2160)])
def test_sixteen_players_and_long_names(size: tuple[int, int]) -> None:
    scene = _question_scene()
    snapshot = dict(scene.snapshot or {})
    snapshot["players"] = [f"Игрок с очень длинным именем {i}" for i in range(1, 17)]
    snapshot["scores"] = {str(i): (-1) ** i * 123456 for i in range(1, 17)}
    surface = render(Scene(snapshot, question_text="Вопрос"), size, snapshot["now"])
    assert surface.get_size() == size


def test_english_strings() -> None:
    for key in keys():
        assert set(translations(key)) == {"ru", "en"}
    scene = _question_scene()
    views = view.podiums(scene, scene.snapshot["now"], "en")  # type: ignore[index]
    assert views[2].status == "false start"
    assert view.question_status(scene.snapshot or {}, "en")[0] == "Buzz in!"
    render(scene, SIZE, lang="en")


def test_memory_keeps_what_the_snapshot_does_not_say() -> None:
    memory = Memory()
    memory.feed([{"type": "final_started", "seats": [1, 2], "themes": 7}])
    assert memory.facts().final_total == 7
    memory.feed(
        [{"type": "final_timer", "until": 95.5}, {"type": "final_stake", "seat": 1, "stake": 300}]
    )
    facts = memory.facts()
    assert facts.final_until == 95_500_000_000 and dict(facts.revealed) == {1: 300}
    memory.feed([{"type": "special", "kind": "cat", "opener": 1}])
    memory.feed([{"type": "cat_given", "from": 1, "to": 3}])
    facts = memory.facts()
    assert (facts.cat_from, facts.cat_to) == (1, 3)
    assert Memory().facts() == Facts()


def test_the_final_shows_removed_themes_and_hidden_stakes() -> None:
    game = full_game("tv-modern")
    removing = [f for f in game.frames if f.snapshot["stage"] == "final_remove"]
    assert removing
    names = view.final_theme_names(removing[-1].scene(final_theme_names=("Кино",)), "ru")
    assert names[0] == "Кино" and len(names) == 3
    stakes = [f for f in game.frames if f.snapshot["stage"] == "final_stakes"]
    for frame in stakes:
        for podium in view.podiums(frame.scene(), frame.snapshot["now"], "ru"):
            assert not any(ch.isdigit() for ch in podium.status)  # stakes stay hidden
    judging = [f for f in game.frames if f.snapshot["stage"] == "final_judging"]
    first = view.podiums(judging[0].scene(), judging[0].snapshot["now"], "ru")
    assert any(p.status == "ставка ?" for p in first)


STAGES = ("board", "question", "bidding", "cat_give", "cat_price", "special")
STAGES += ("final_remove", "final_stakes", "final_judging", "over", "unknown")


@pytest.mark.parametrize("stage", STAGES)
def test_a_sparse_snapshot_still_draws(stage: str) -> None:
    """Fields missing or empty (an older or newer engine): the screen draws what it has."""
    for snapshot in (
        {"stage": stage},
        {"stage": stage, "players": ["Анна"], "scores": {"1": -5}, "cell": [1, 10]},
        {"stage": stage, "players": [], "themes": [], "prices": [], "final": {}, "bidding": {}},
    ):
        render(Scene(snapshot, question_text="Вопрос"), SIZE, 0)


def test_the_board_replays_a_game_journal_without_writing_to_it(tmp_path: Path) -> None:
    """`svoyak display replay` reads a game's SQLite journal read-only: a finished
    game's file is evidence after the game and stays byte for byte the same."""
    from buzzer.journal.store import JournalStore
    from display.replay import read_journal

    path = tmp_path / "game.sqlite"
    header = {"type": "game", "rules": "tv-modern", "players": ["А", "Б"], "package": "svoyak:demo"}
    with JournalStore(path) as store:
        store.append(header)
        store.append({"type": "select", "t": 1000, "theme": 1, "price": 100})
    # A journal from before journals were stamped as svoyak's own: a writable open
    # would stamp it now (and so change the evidence).
    import sqlite3

    db = sqlite3.connect(path)
    db.execute("PRAGMA application_id = 0")
    db.close()
    before = path.read_bytes()
    lines = read_journal(path)
    assert [json.loads(line)["type"] for line in lines] == ["game", "select"]
    assert path.read_bytes() == before


def test_a_long_game_of_questions_keeps_the_caches_bounded() -> None:
    """Many questions at 1920×1080: the rendered text stays within its budget, fonts too."""
    from display.paint import text_budget
    from display.text import MAX_FONTS

    surface = pygame.Surface((1920, 1080))
    renderer = Renderer(surface)
    base = _question_scene()
    words = ("кто", "что", "где", "когда", "фильм", "режиссёр", "роман", "столица", "река")
    for i in range(120):
        text = " ".join(words[(i + k) % len(words)] for k in range(5 + i % 40)) + f" {i}?"
        renderer.draw(Scene(base.snapshot, question_text=text), 5 * NS)
        renderer.draw(Scene({**base.snapshot, "stage": "board"}), 5 * NS)
        assert renderer.paint.text.bytes <= text_budget(surface)
        assert len(renderer.paint.fonts) <= MAX_FONTS
    # A smaller target lowers the budget at once.
    small = pygame.Surface((640, 360))
    renderer.resize(small)
    assert renderer.paint.text.bytes <= text_budget(small)
