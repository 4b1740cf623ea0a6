"""Golden screenshots: each screen drawn from a hand-made snapshot, compared with a PNG.

The snapshots are written out here (not replayed), so a change in the game
engine does not move the pictures; ``test_display_screens.py`` covers the
engine's real snapshots. Images are 640×360: small files, every element
still visible.

On a mismatch the test writes ``<name>-actual.png`` and ``<name>-diff.png``
(differing pixels in red over a faded copy of the expected image) into its
tmp directory and names them in the failure. ``SVOYAK_REGEN_GOLDEN=1``
rewrites the golden files instead of comparing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygame
import pytest

from display.renderer import render
from display.scene import NOTE_AUDIO, NOTE_VIDEO, AfterGame, Facts, Memory, Scene, StartInfo
from rules.packages import CatParams, PriceChoice
from tests.support.display_support import MS, NS, host_options
from tests.support.paths import GOLDEN

GOLDEN = GOLDEN
SIZE = (640, 360)
#: A pixel differs when a channel differs by more than this ...
CHANNEL_TOLERANCE = 48
#: ... and an image matches while at most this fraction of its pixels differ.
PIXEL_TOLERANCE = 0.01

NOW = 40 * NS
QUESTION = (
    "Этот город на Неве был основан в 1703 году и больше двухсот лет оставался столицей "
    "Российской империи. Назовите его."
)


def base(**changes: Any) -> dict[str, Any]:
    snapshot: dict[str, Any] = {
        "rules": "tv-modern",
        "players": ["Анна", "Борис", "Вера"],
        "stage": "board",
        "round": 1,
        "round_name": "Первый раунд",
        "themes": ["Кино", "Музыка", "География", "Литература XIX века", "Спорт"],
        "prices": [100, 200, 300, 400, 500],
        "played": [[1, 100], [2, 300], [3, 500], [5, 100]],
        "cell": None,
        "special": None,
        "scores": {"1": 700, "2": -200, "3": 1500},
        "chooser": 3,
        "phase": "idle",
        "answering": None,
        "recognized_at": None,
        "closes_at": None,
        "answer_deadline": None,
        "locked_until": {},
        "answered": [],
        "margins_us": {},
        "bidding": None,
        "value": None,
        "special_deadline": None,
        "final": None,
        "shootout": None,
        "winner": None,
        "over": False,
        "version": 12,
        "now": NOW,
    }
    snapshot.update(changes)
    return snapshot


def question(**changes: Any) -> dict[str, Any]:
    return base(**{"stage": "question", "cell": [3, 200], "phase": "reading", **changes})


def picture() -> pygame.Surface:
    """A package picture, drawn here: a sun over the sea."""
    image = pygame.Surface((320, 200))
    image.fill((120, 190, 250))
    pygame.draw.rect(image, (30, 90, 170), (0, 120, 320, 80))
    pygame.draw.circle(image, (255, 210, 60), (230, 70), 40)
    pygame.draw.polygon(image, (250, 250, 250), [(60, 140), (110, 140), (85, 60)])
    return image


FINAL = {"seats": [1, 3], "themes_left": [1, 3], "staked": [], "judge_order": [1, 3]}


def over_report(lang: str) -> tuple[Scene, int, str]:
    """The game-over screen with the report's corner (its QR code and the seal)."""
    snapshot = base(stage="over", winner=3, over=True, scores={"1": 1000, "2": -200, "3": 2300})
    after = AfterGame("http://192.168.1.23:8080/report", "3F7A-92C1-0B4E")
    return Scene(snapshot, after=after), NOW, lang


SCENES: dict[str, Callable[[], tuple[Scene, int, str]]] = {
    "start": lambda: (
        Scene(
            base(version=0),
            start=StartInfo(url="http://192.168.1.23:8000/panel", title="«Своя игра», ТВ, с 2008"),
        ),
        NOW,
        "ru",
    ),
    "board": lambda: (Scene(base()), NOW, "ru"),
    # A-G-D2: Борис pressed his button half a second ago, no question open: the
    # header's right-hand side names him (the board decides nothing).
    "board_button_check": lambda: (
        Scene(base(), Facts(checked=(2, NOW - 500 * MS))),
        NOW,
        "ru",
    ),
    # A-G-D2 before the game: the start screen stays up, and names who pressed.
    "start_button_check_english": lambda: (
        Scene(
            base(version=2),
            Facts(checked=(1, NOW - 100 * MS)),
            start=StartInfo(url="http://192.168.1.23:8000/panel", title="Svoyak, TV since 2008"),
        ),
        NOW,
        "en",
    ),
    "question_reading_false_start": lambda: (
        Scene(question(locked_until={"2": NOW + NS}), question_text=QUESTION),
        NOW,
        "ru",
    ),
    "question_window": lambda: (
        Scene(question(phase="open", closes_at=NOW + 3 * NS), question_text=QUESTION),
        NOW + 1200 * MS,
        "ru",
    ),
    "question_answering_margin": lambda: (
        Scene(
            question(
                phase="answering",
                answering=1,
                answer_deadline=NOW + 5 * NS,
                margins_us={"2": 1830, "3": 412},
                answered=[2],
            ),
            question_text=QUESTION,
        ),
        NOW,
        "ru",
    ),
    "question_image": lambda: (
        Scene(
            question(phase="open", closes_at=NOW + 3 * NS),
            question_text="Что это?",
            image=picture(),
        ),
        NOW,
        "ru",
    ),
    "question_english": lambda: (
        Scene(
            question(
                phase="answering", answering=3, margins_us={"1": 0}, answer_deadline=NOW + 5 * NS
            ),
            question_text="Which city on the Neva was the capital of the Russian Empire?",
        ),
        NOW,
        "en",
    ),
    "bidding": lambda: (
        Scene(
            base(
                stage="bidding",
                cell=[4, 400],
                special="stake",
                bidding={"turn": 1, "bid": 600, "leader": 3, "passed": [2], "order": [3, 1, 2]},
            )
        ),
        NOW,
        "ru",
    ),
    # TV-H-1995-01: the stake question bought by the button; nobody has the floor yet.
    "bidding-buy-window": lambda: (
        Scene(
            base(
                rules="tv@1995-06-01",
                stage="bidding",
                cell=[4, 40],
                special="stake",
                phase="open",
                closes_at=NOW + 2 * NS,
                prices=[10, 20, 30, 40, 50],
                scores={"1": 70, "2": 20, "3": 90},
                bidding={
                    "turn": None,
                    "bid": 40,
                    "leader": 1,
                    "passed": [2],
                    "order": [1, 3, 2],
                    "by_button": True,
                    "buyers": [3],
                },
            )
        ),
        NOW,
        "ru",
    ),
    # TV-H-1995-03: the bonus contest's player, two right so far.
    "bonus": lambda: (
        Scene(
            base(
                rules="tv@1995-06-01",
                stage="bonus",
                round_name="Синий раунд",
                scores={"1": 70, "2": 20, "3": 90},
                answering=3,
                bonus={"offered": None, "place": 1, "player": 3, "right": 2, "questions": 5},
            )
        ),
        NOW,
        "ru",
    ),
    "cat": lambda: (
        Scene(
            base(stage="cat_price", cell=[2, 200], special="cat", answering=2),
            Facts(cat_from=3, cat_to=2, special_opener=3).with_options(
                host_options(cat_options=[100, 500])
            ),
        ),
        NOW,
        "ru",
    ),
    "special_sponsor": lambda: (
        Scene(
            base(
                stage="special",
                cell=[1, 500],
                special="sponsor",
                answering=3,
                value=1000,
                special_deadline=NOW + 5 * NS,
            ),
            question_text=QUESTION,
        ),
        NOW,
        "ru",
    ),
    "final_remove": lambda: (
        Scene(
            base(stage="final_remove", final=FINAL, played=[]),
            Facts(final_total=5).with_options(host_options(final_turn=3)),
            final_theme_names=("Оперы", "Реки Европы", "Шахматы", "Живопись", "Космос"),
        ),
        NOW,
        "ru",
    ),
    "final_stakes": lambda: (
        Scene(
            base(stage="final_stakes", final=dict(FINAL, themes_left=[3], staked=[3])),
            Facts(final_total=5, final_until=NOW + 20 * NS),
            final_theme_names=("Оперы", "Реки Европы", "Шахматы", "Живопись", "Космос"),
        ),
        NOW,
        "ru",
    ),
    "final_judging": lambda: (
        Scene(
            base(
                stage="final_judging",
                final=dict(FINAL, themes_left=[3], staked=[1, 3], judge_order=[3]),
                scores={"1": 1000, "2": -200, "3": 1500},
            ),
            Facts(final_total=5, revealed={1: 300}, verdicts={1: True}),
        ),
        NOW,
        "ru",
    ),
    # Issue 35: a stake revealed with its verdict, as the decisions tell it (the
    # final_stake, then the score): a wrong answer's stake in red, a right one's green.
    "final_judging_verdicts": lambda: (
        Scene(
            base(
                stage="final_judging",
                players=["Анна", "Борис", "Вера", "Глеб"],
                final={
                    "seats": [1, 3, 4],
                    "themes_left": [3],
                    "staked": [1, 3, 4],
                    "judge_order": [3],
                },
                scores={"1": 700, "2": -200, "3": 1500, "4": 1400},
            ),
            Memory().feed(
                [
                    {"type": "final_started", "themes": 5, "seats": [1, 3, 4]},
                    {"type": "final_stake", "seat": 1, "stake": 300},
                    {"type": "score", "seat": 1, "delta": -300, "score": 700},
                    {"type": "final_stake", "seat": 4, "stake": 400},
                    {"type": "score", "seat": 4, "delta": 400, "score": 1400},
                ]
            ),
        ),
        NOW,
        "ru",
    ),
    "shootout": lambda: (
        Scene(
            base(
                themes=["1"],
                played=[[1, 100]],
                round_name="Перестрелка",
                shootout={"seats": [1, 3], "number": 2, "scores": {"1": 100, "3": 0}},
                scores={"1": 1500, "2": -200, "3": 1500},
            )
        ),
        NOW,
        "ru",
    ),
    "over": lambda: (
        Scene(base(stage="over", winner=3, over=True, scores={"1": 1000, "2": -200, "3": 2300})),
        NOW,
        "ru",
    ),
    # The report's QR code and the journal's seal in the game-over corner.
    "over_report": lambda: over_report("ru"),
    "over_report_english": lambda: over_report("en"),
    "over_no_winner": lambda: (
        Scene(
            base(
                rules="championship-2003",
                stage="over",
                winner=None,
                over=True,
                scores={"1": -10, "2": -20, "3": 0},
            )
        ),
        NOW,
        "ru",
    ),
    # -- a package's media, a wide round, the cat's own theme, the final (issue 12) --
    "question_pictures": lambda: (
        Scene(
            question(phase="open", closes_at=NOW + 3 * NS),
            question_text="Что общего у этих картинок?",
            images=(picture(), None, pygame.transform.rotate(picture(), 90)),
        ),
        NOW,
        "ru",
    ),
    "question_video": lambda: (
        Scene(
            question(),
            question_text="Назовите фильм",
            media_notes=(NOTE_VIDEO,),
        ),
        NOW,
        "ru",
    ),
    "question_audio": lambda: (
        Scene(question(), media_notes=(NOTE_AUDIO,)),
        NOW,
        "ru",
    ),
    "board_wide": lambda: (
        Scene(
            base(
                round_name="1",
                themes=["Вопросы разных типов", "Контент вопросов", "Дополнительно"],
                prices=[100 * (i + 1) for i in range(15)],
                played=[[1, 300], [2, 1500], [3, 700]],
            )
        ),
        NOW,
        "ru",
    ),
    "cat_theme": lambda: (
        Scene(
            base(stage="cat_price", cell=[2, 200], special="cat", answering=2),
            Facts(cat_from=3, cat_to=2, special_opener=3).with_options(
                host_options(cat_options=[100, 500])
            ),
            cat=CatParams("КОРАБЛИ", PriceChoice.fixed(700)),
        ),
        NOW,
        "ru",
    ),
    "final_question": lambda: (
        Scene(
            base(
                stage="final_judging",
                final=dict(FINAL, themes_left=[3], staked=[1, 3], judge_order=[1, 3]),
            ),
            Facts(final_total=5, final_until=NOW + 25 * NS),
            question_text="Эта опера Чайковского написана по повести Пушкина.",
            final_theme_names=("Оперы", "Реки Европы", "Шахматы", "Живопись", "Космос"),
        ),
        NOW,
        "ru",
    ),
    "over_final_answer": lambda: (
        Scene(
            base(
                stage="over",
                winner=3,
                over=True,
                final=dict(FINAL, themes_left=[3], staked=[1, 3], judge_order=[]),
                scores={"1": 1000, "2": -200, "3": 2300},
            ),
            answer_text="«Пиковая дама»",
        ),
        NOW,
        "ru",
    ),
    # A-G-D1: the host paused the game: a full screen, the clocks frozen at the pause's
    # instant (drawn 10 s later: still 3,5 s of the window and 1,2 s of the lockout).
    "pause": lambda: (
        Scene(
            question(
                phase="open",
                closes_at=NOW + 3500 * MS,
                locked_until={"2": NOW + 1200 * MS},
                paused_at=NOW,
            ),
            question_text=QUESTION,
        ),
        NOW + 10 * NS,
        "ru",
    ),
    "pause_english": lambda: (
        Scene(
            question(
                phase="answering",
                answering=3,
                margins_us={"1": 412},
                answer_deadline=NOW + 3200 * MS,
                paused_at=NOW,
            ),
            question_text="Which city on the Neva was the capital of the Russian Empire?",
        ),
        NOW + 10 * NS,
        "en",
    ),
}


def compare(actual: pygame.Surface, expected: pygame.Surface) -> tuple[int, pygame.Surface]:
    """(pixels that differ, a diff image)."""
    a = pygame.image.tobytes(actual, "RGB")
    b = pygame.image.tobytes(expected, "RGB")
    diff = expected.copy()
    diff.fill((96, 96, 96), special_flags=pygame.BLEND_RGB_MULT)
    if a == b:
        return 0, diff
    width = actual.get_width()
    count = 0
    for i in range(0, len(a), 3):
        if (
            abs(a[i] - b[i]) > CHANNEL_TOLERANCE
            or abs(a[i + 1] - b[i + 1]) > CHANNEL_TOLERANCE
            or abs(a[i + 2] - b[i + 2]) > CHANNEL_TOLERANCE
        ):
            count += 1
            pixel = i // 3
            diff.set_at((pixel % width, pixel // width), (255, 0, 0))
    return count, diff


@pytest.mark.parametrize("name", sorted(SCENES))
def test_golden(name: str, tmp_path: Path) -> None:
    scene, now, lang = SCENES[name]()
    actual = render(scene, SIZE, now, lang)
    path = GOLDEN / f"{name}.png"
    if os.environ.get("SVOYAK_REGEN_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        pygame.image.save(actual, str(path))
        return
    assert path.exists(), f"no golden image {path}: run with SVOYAK_REGEN_GOLDEN=1"
    expected = pygame.image.load(str(path))
    assert expected.get_size() == actual.get_size()
    differing, diff = compare(actual, expected)
    limit = PIXEL_TOLERANCE * SIZE[0] * SIZE[1]
    if differing > limit:
        pygame.image.save(actual, str(tmp_path / f"{name}-actual.png"))
        pygame.image.save(diff, str(tmp_path / f"{name}-diff.png"))
        pytest.fail(
            f"{name}: {differing} pixels differ (limit {limit:.0f}); see "
            f"{tmp_path / (name + '-diff.png')} and {name}-actual.png; "
            "SVOYAK_REGEN_GOLDEN=1 rewrites the golden images"
        )


def test_a_mismatch_writes_a_diff_image(tmp_path: Path) -> None:
    scene, now, lang = SCENES["board"]()
    actual = render(scene, SIZE, now, lang)
    other = render(SCENES["over"]()[0], SIZE, now, lang)
    differing, diff = compare(actual, other)
    assert differing > PIXEL_TOLERANCE * SIZE[0] * SIZE[1]
    pygame.image.save(diff, str(tmp_path / "diff.png"))
    assert (tmp_path / "diff.png").stat().st_size > 0
    assert compare(actual, actual.copy())[0] == 0
