"""A package's pictures, sound, video, cat and final on the board (issue 12).

Games run through the real controller on a small ``.siq`` built in tmp_path
(``tests/support/package_fixtures.py``): real PNG and WAV files, a video the board
cannot play, a picture that does not decode, a cat with its own theme and
price, a final. Sound goes through :class:`display.media.AudioBackend`: a
recording backend shows which bytes were loaded and when they were started,
paused, resumed and stopped, without a sound card and without sleeping; the
real ``pygame.mixer.music`` backend is checked on SDL's dummy audio driver.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from buzzer.arbiter import events as ev
from buzzer.cli import main
from display import media as board_media
from display import scene as screens
from display import view
from display.app import BoardApp
from display.layout import Layout, picture_boxes
from display.media import (
    MAX_IMAGE_PIXELS,
    MAX_IMAGE_SIDE,
    BoardMedia,
    MediaError,
    MixerMusic,
    audio_wanted,
    decode_image,
    image_size,
)
from display.packages import PackageTexts
from display.renderer import Renderer, render
from display.scene import Facts, Scene, StartInfo
from display.text import ELLIPSIS, Fitted
from rules.packages import CatAnnounce, CatParams, Package, PackageError, PriceChoice
from tests.support.display_support import ScriptedGame
from tests.support.package_fixtures import (
    PICTURE_COLOUR,
    header,
    jpeg_bytes,
    media_siq,
    png_bytes,
    wav_bytes,
)

SIZE = (640, 360)


class RecordingAudio:
    """An :class:`~display.media.AudioBackend` that only writes down what it was asked."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.fail = fail

    def start(self, data: bytes, name: str, volume: float) -> None:
        if self.fail:
            raise MediaError(f"{name}: no sound here")
        self.calls.append(("start", (data, name, volume)))

    def pause(self) -> None:
        self.calls.append(("pause", None))

    def resume(self) -> None:
        self.calls.append(("resume", None))

    def stop(self) -> None:
        self.calls.append(("stop", None))

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return media_siq(tmp_path)


def game_on(path: Path) -> ScriptedGame:
    return ScriptedGame(header(path))


def texts_of(path: Path) -> PackageTexts:
    import json

    return PackageTexts.from_header(json.dumps(header(path)), None)


def count_colour(surface: pygame.Surface, colour: tuple[int, int, int], area: pygame.Rect) -> int:
    """Pixels of ``colour`` (±8 per channel) inside ``area``."""
    count = 0
    for y in range(area.top, area.bottom, 2):
        for x in range(area.left, area.right, 2):
            r, g, b, *_ = surface.get_at((x, y))
            if abs(r - colour[0]) <= 8 and abs(g - colour[1]) <= 8 and abs(b - colour[2]) <= 8:
                count += 1
    return count


def answer_cell(game: ScriptedGame, price: int, correct: bool = True) -> None:
    game.do(lambda t: ev.Select(t, 1, price))
    game.do(lambda t: ev.ReadingStart(t))
    game.do(lambda t: ev.ReadingEnd(t))
    game.do(lambda t: ev.Press(t, 1), gap=0.3)
    game.do(lambda t: ev.Judge(t, correct))


def play_round(game: ScriptedGame) -> None:
    """The fixture's one round: four plain cells to seat 1, the cat to seat 2."""
    for price in (100, 200, 300, 400):
        answer_cell(game, price)
    game.do(lambda t: ev.Select(t, 1, 500))
    game.do(lambda t: ev.CatGive(t, 2))
    options = game.cat_options()
    game.do(lambda t: ev.CatPrice(t, options[0]))
    game.do(lambda t: ev.Judge(t, True), gap=1.0)


# -- pictures: sizes from headers, limits before decoding --------------------------------


def _saved(surface: pygame.Surface, hint: str) -> bytes:
    out = io.BytesIO()
    pygame.image.save(surface, out, hint)
    return out.getvalue()


def _pillow_saved(size: tuple[int, int], fmt: str, mode: str = "RGB", **options: Any) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new(mode, size).save(out, fmt, **options)
    return out.getvalue()


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def test_image_size_is_read_from_the_files_own_header() -> None:
    surface = pygame.Surface((37, 21))
    assert image_size(_saved(surface, "png")) == (37, 21)
    assert image_size(_saved(surface, "jpg")) == (37, 21)
    assert image_size(_saved(surface, "bmp")) == (37, 21)
    assert image_size(_pillow_saved((300, 200), "GIF")) == (300, 200)
    # WebP's three headers: lossy (VP8), lossless (VP8L), extended (VP8X, with alpha).
    lossy = _pillow_saved((640, 480), "WEBP")
    lossless = _pillow_saved((640, 480), "WEBP", lossless=True)
    extended = _pillow_saved((1920, 1080), "WEBP", mode="RGBA")
    assert [data[12:16] for data in (lossy, lossless, extended)] == [b"VP8 ", b"VP8L", b"VP8X"]
    assert image_size(lossy) == image_size(lossless) == (640, 480)
    assert image_size(extended) == (1920, 1080)
    # Formats a board does not take, whatever their reader could say about them.
    assert image_size(_pillow_saved((10, 10), "TIFF")) is None
    assert image_size(b"<svg xmlns='http://www.w3.org/2000/svg'/>") is None
    assert image_size(b"") is None


def png_bomb(side: int) -> bytes:
    """A valid PNG header claiming ``side`` × ``side`` pixels, and 64 bytes of picture."""
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(b"\0" * 64))
    )


def test_a_picture_claiming_too_many_pixels_is_refused_without_decoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    side = 50_000
    assert side * side > MAX_IMAGE_PIXELS
    bomb = png_bomb(side)
    assert image_size(bomb) == (side, side)  # the header is read, nothing decoded

    def never(*_: Any) -> pygame.Surface:
        raise AssertionError("the decoder must not be asked for a picture over the limit")

    monkeypatch.setattr(pygame.image, "load", never)
    with pytest.raises(MediaError, match="over the limit"):
        decode_image(bomb, "bomb.png")


def test_broken_or_foreign_pictures_raise_media_error() -> None:
    with pytest.raises(MediaError, match="not a PNG"):
        decode_image(b"plain text, not a picture", "notes.txt")
    with pytest.raises(MediaError, match="cannot be decoded"):
        whole = png_bytes()
        cut = whole[: whole.index(b"IDAT") + 8]  # a real header, the picture cut off
        decode_image(cut, "cut.png")
    with pytest.raises(MediaError, match="not a PNG"):
        decode_image(png_bomb(0), "zero.png")  # a header declaring no pixels at all


def test_a_large_picture_is_shrunk_once_to_the_screens_need() -> None:
    image = decode_image(png_bytes((3000, 300)), "wide.png")
    assert image.get_size() == (MAX_IMAGE_SIDE, round(300 * MAX_IMAGE_SIDE / 3000))
    small = decode_image(jpeg_bytes((64, 48)), "small.jpg")
    assert small.get_size() == (64, 48)


def test_pictures_are_laid_out_to_show_the_smallest_one_largest() -> None:
    wide = pygame.Rect(0, 0, 1200, 300)
    boxes = picture_boxes(wide, [(640, 640)] * 4, 10)
    assert len({b.top for b in boxes}) == 1  # four squares on a wide strip: one row
    tall = pygame.Rect(0, 0, 400, 900)
    boxes = picture_boxes(tall, [(640, 640)] * 4, 10)
    assert len({b.left for b in boxes}) == 1  # on a tall strip: one column
    three = picture_boxes(pygame.Rect(0, 0, 600, 600), [(100, 100)] * 3, 0)
    assert [b.width for b in three] == [300, 300, 300]
    assert three[2].centerx == 300  # the last row's lone picture is centred
    assert picture_boxes(wide, [], 10) == []


# -- the package's side of each snapshot ----------------------------------------------------


def test_on_board_follows_a_whole_game_of_the_package(package: Path) -> None:
    texts = texts_of(package)
    game = game_on(package)
    game.do(lambda t: ev.Select(t, 1, 100))
    found = texts.on_board(game.snap)
    assert found is not None and found.key == ("cell", 1, 1, 100)
    # The host's spoken line is not on the board; the picture is.
    assert found.text == "Что на картинке?" == texts.question(game.snap)
    assert [m.name for m in found.media] == ["sun.png"]
    game.do(lambda t: ev.ReadingStart(t))
    game.do(lambda t: ev.ReadingEnd(t))
    game.do(lambda t: ev.Press(t, 1), gap=0.3)
    game.do(lambda t: ev.Judge(t, True))
    assert texts.on_board(game.snap) is None  # back on the board
    for price in (200, 300, 400):
        answer_cell(game, price)
    game.do(lambda t: ev.Select(t, 1, 500))
    handing = texts.on_board(game.snap)
    assert game.snap["stage"] == "cat_give"
    assert handing is not None and handing.cat is not None and handing.cat.theme == "КОРАБЛИ"
    assert handing.text is None and handing.media == ()  # not asked yet
    game.do(lambda t: ev.CatGive(t, 2))
    game.do(lambda t: ev.CatPrice(t, game.cat_options()[0]))
    asked = texts.on_board(game.snap)
    assert game.snap["stage"] == "special"
    assert asked is not None and asked.text is not None and "корабль" in asked.text
    game.do(lambda t: ev.Judge(t, True), gap=1.0)
    assert game.snap["stage"] == "final_remove"
    assert texts.on_board(game.snap) is None
    game.do(lambda t: ev.FinalRemove(t, 2))
    assert game.snap["stage"] == "final_stakes"
    assert texts.on_board(game.snap) is None  # the question is not asked before the stakes
    for seat in game.snap["final"]["seats"]:
        game.do(lambda t, s=seat: ev.FinalStake(t, s, 100))
    assert game.snap["stage"] == "final_judging"
    final = texts.on_board(game.snap)
    assert final is not None and final.key == ("final", 1)
    assert final.text == "Вопрос финала 1" and final.answer is None
    game.do(lambda t: ev.ReadingStart(t))
    game.do(lambda t: ev.ReadingEnd(t), gap=3.0)
    game.do(lambda t: ev.FinalJudge(t, True), gap=31.0)  # the written answers are in
    while game.snap["stage"] == "final_judging":
        game.do(lambda t: ev.FinalJudge(t, True))
    assert game.snap["stage"] == "over"
    over = texts.on_board(game.snap)
    assert over is not None and over.answer == "Ответ финала 1" and over.text is None


def test_on_board_without_a_package_or_a_cell_finds_nothing(package: Path) -> None:
    assert PackageTexts().on_board({"stage": "question", "cell": [1, 100], "round": 1}) is None
    texts = texts_of(package)
    assert texts.on_board(None) is None
    assert texts.on_board({"stage": "question", "cell": [9, 100], "round": 1}) is None
    assert texts.on_board({"stage": "question", "cell": [1, 100], "round": 7}) is None
    shootout = {"stage": "question", "cell": [1, 100], "round": 1, "shootout": {"seats": [1]}}
    assert texts.on_board(shootout) is None
    assert texts.package is not None
    ref = texts.package.rounds[0].themes[0].questions[0].media[0]
    assert texts.media_bytes(ref, 10_000) == png_bytes()
    with pytest.raises(PackageError, match=r"larger than the limit|over the limit"):
        texts.media_bytes(ref, 10)
    in_memory = PackageTexts(Package(texts.package.name, texts.package.rounds))
    with pytest.raises(PackageError, match="no media files"):
        in_memory.media_bytes(ref, 10_000)


# -- BoardMedia: decoding once, the sound following the question ----------------------------


def test_the_sound_plays_with_the_question_and_holds_for_an_answer(package: Path) -> None:
    audio = RecordingAudio()
    board = BoardMedia(texts_of(package), audio, volume=0.5)
    game = game_on(package)
    answer_cell(game, 100)
    game.do(lambda t: ev.Select(t, 1, 200))
    shown = board.update(game.snap)
    assert audio.calls == []  # selected, not yet read: silence
    assert shown.notes == (screens.NOTE_AUDIO,) and shown.images == () and shown.text is None
    game.do(lambda t: ev.ReadingStart(t))
    board.update(game.snap)
    assert audio.names == ["start"]
    data, name, volume = audio.calls[0][1]
    assert data == wav_bytes() and name == "tune.wav" and volume == 0.5
    game.do(lambda t: ev.ReadingEnd(t))
    board.update(game.snap)
    game.do(lambda t: ev.Press(t, 2), gap=0.3)
    board.update(game.snap)
    assert audio.names == ["start", "pause"]  # someone answers: the tune holds
    game.do(lambda t: ev.Judge(t, False))
    board.update(game.snap)
    assert audio.names == ["start", "pause", "resume"]  # the others hear the rest
    game.do(lambda t: ev.Press(t, 3), gap=0.3)
    board.update(game.snap)
    game.do(lambda t: ev.Judge(t, True))
    board.update(game.snap)
    assert audio.names == ["start", "pause", "resume", "pause", "stop"]
    game.do(lambda t: ev.Select(t, 1, 300))
    board.update(game.snap)
    assert audio.names[-1] == "stop" and len(audio.calls) == 5  # the video cell: no sound


def test_pictures_are_decoded_once_per_question(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded: list[str] = []
    real = board_media.decode_image

    def counting(data: bytes, name: str = "") -> pygame.Surface:
        decoded.append(name)
        return real(data, name)

    monkeypatch.setattr(board_media, "decode_image", counting)
    board = BoardMedia(texts_of(package))
    game = game_on(package)
    game.do(lambda t: ev.Select(t, 1, 100))
    first = board.update(game.snap)
    game.do(lambda t: ev.ReadingStart(t))
    again = board.update(game.snap)
    assert decoded == ["sun.png"]
    assert len(first.images) == 1 and first.images == again.images
    image = first.images[0]
    assert image is not None and image.get_at((80, 60))[:3] == PICTURE_COLOUR
    assert first.notes == ()


def test_a_broken_picture_a_video_and_a_failing_sound_are_said_plainly(package: Path) -> None:
    texts = texts_of(package)
    board = BoardMedia(texts, RecordingAudio(fail=True))
    game = game_on(package)
    answer_cell(game, 100)
    game.do(lambda t: ev.Select(t, 1, 200))
    game.do(lambda t: ev.ReadingStart(t))
    shown = board.update(game.snap)
    assert shown.notes == (screens.NOTE_AUDIO_FAILED,)
    assert any("no sound here" in e for e in board.errors)
    game.do(lambda t: ev.ReadingEnd(t))
    game.do(lambda t: ev.Press(t, 1), gap=0.3)
    game.do(lambda t: ev.Judge(t, True))
    game.do(lambda t: ev.Select(t, 1, 300))
    shown = board.update(game.snap)
    assert shown.notes == (screens.NOTE_VIDEO,) and shown.text == "Назовите фильм"
    game.do(lambda t: ev.ReadingStart(t))
    game.do(lambda t: ev.ReadingEnd(t))
    game.do(lambda t: ev.Press(t, 1), gap=0.3)
    game.do(lambda t: ev.Judge(t, True))
    game.do(lambda t: ev.Select(t, 1, 400))
    shown = board.update(game.snap)
    assert shown.images == (None,)  # broken.png: a placeholder, never a crash
    assert shown.text == "Что здесь?"
    assert any("broken.png" in e for e in board.errors)


def test_links_and_inline_content_are_never_fetched() -> None:
    from rules.packages import MediaKind, MediaRef

    found = board_media.BoardMedia(PackageTexts())
    ref = MediaRef(MediaKind.IMAGE, inline="https://example.org/x.png")
    html = MediaRef(MediaKind.HTML, inline="<b>hi</b>")
    from display.packages import OnBoard

    notes = found._notes(OnBoard(("x",), media=(ref, html)))
    assert notes == (screens.NOTE_LINK, screens.NOTE_HTML)
    assert found._decode(OnBoard(("x",), media=(ref,))) == ()


def test_audio_wanted_reads_the_snapshot_only() -> None:
    def question(phase: str) -> dict[str, Any]:
        return {"stage": "question", "phase": phase}

    assert [audio_wanted(question(p)) for p in ("selected", "reading", "open")] == [
        "stop",
        "play",
        "play",
    ]
    assert audio_wanted(question("answering")) == "pause"
    assert audio_wanted(question("closed")) == "stop"
    assert audio_wanted({"stage": "special"}) == "play"
    assert audio_wanted({"stage": "final_judging"}) == "play"
    assert audio_wanted({"stage": "board"}) == "stop"
    assert audio_wanted(None) == "stop"


def test_mixer_music_plays_on_the_dummy_driver() -> None:
    pygame.mixer.init(frequency=22050, size=-16, channels=1)
    try:
        music = MixerMusic()
        music.start(wav_bytes(2.0), "tune.wav", 0.4)
        assert pygame.mixer.music.get_busy()
        assert abs(pygame.mixer.music.get_volume() - 0.4) < 0.01
        music.pause()
        assert not pygame.mixer.music.get_busy()
        music.resume()
        assert pygame.mixer.music.get_busy()
        music.stop()
        assert not pygame.mixer.music.get_busy()
        with pytest.raises(MediaError, match="cannot be played"):
            music.start(b"not a sound at all", "noise.mp3", 1.0)
    finally:
        pygame.mixer.quit()
    with pytest.raises(MediaError, match="no audio output"):
        MixerMusic().start(wav_bytes(), "tune.wav", 1.0)


# -- the board's drawing --------------------------------------------------------------------


def question_snapshot(**changes: Any) -> dict[str, Any]:
    from tests.display.test_display_golden import question

    return question(**changes)


def test_a_question_picture_is_on_the_board_and_a_broken_one_is_a_placeholder() -> None:
    picture = decode_image(png_bytes((160, 120)), "sun.png")
    body = Layout(*SIZE).body
    shown = render(Scene(question_snapshot(), question_text="Что это?", images=(picture,)), SIZE)
    assert count_colour(shown, PICTURE_COLOUR, body) > 500
    renderer = Renderer(pygame.Surface(SIZE))
    renderer.draw(Scene(question_snapshot(), question_text="Что это?", images=(None,)))
    surface = renderer.surface
    assert count_colour(surface, PICTURE_COLOUR, body) == 0
    assert count_colour(surface, (20, 30, 84), body) > 500  # the placeholder's panel
    assert any(key[0] == "Картинка не открывается" for key in renderer.paint._fits)


def test_a_new_picture_is_never_taken_for_an_old_one_with_the_same_id() -> None:
    renderer = Renderer(pygame.Surface(SIZE))
    old = pygame.Surface((10, 10))
    old.fill((255, 0, 0))
    new = pygame.Surface((10, 10))
    new.fill((0, 0, 255))
    # As if ``old`` had been freed and ``new`` had got its id: the cache holds old's copy.
    renderer.paint._images[(id(new), 20, 20)] = (old, pygame.transform.scale(old, (20, 20)))
    assert renderer.paint.scaled(new, 20, 20).get_at((5, 5))[:3] == (0, 0, 255)


def test_the_video_note_and_the_text_are_both_shown() -> None:
    renderer = Renderer(pygame.Surface(SIZE))
    scene = Scene(
        question_snapshot(), question_text="Назовите фильм", media_notes=(screens.NOTE_VIDEO,)
    )
    renderer.draw(scene)
    key = renderer._drawn["question"][1]
    assert key[0] == "Назовите фильм"
    assert key[3] == ("Видеовопрос: видео не воспроизводится на табло",)
    assert view.media_lines(scene, "en") == ["Video question: the board does not play video"]


def test_a_sound_only_question_says_so_instead_of_repeating_the_cell() -> None:
    renderer = Renderer(pygame.Surface(SIZE))
    renderer.draw(Scene(question_snapshot(), media_notes=(screens.NOTE_AUDIO,)))
    text, _, pictures, notes, icon = renderer._drawn["question"][1]
    assert (text, pictures, notes, icon) == ("", (), ("Аудиовопрос",), True)


class FitSpy(Renderer):
    """A renderer that keeps every fitting it made: what text was laid out, how."""

    def __init__(self, surface: pygame.Surface) -> None:
        super().__init__(surface)
        self.fitted: list[tuple[str, Fitted]] = []
        fit = self.paint.fit

        def spy(
            text: str, width: int, height: int, max_size: int, min_size: int, lines: int | None
        ) -> Fitted:
            fitted = fit(text, width, height, max_size, min_size, lines)
            self.fitted.append((text, fitted))
            return fitted

        self.paint.fit = spy  # type: ignore[method-assign]


THEMES = [
    "Вопросы разных типов",
    "Контент вопросов",
    "Дополнительно",
    "Литература XIX века",
    "Достопримечательности Санкт-Петербурга",
    "Кино",
]


@pytest.mark.parametrize("size", [(640, 360), (800, 600), (1280, 720), (1920, 1080)])
@pytest.mark.parametrize("themes", [3, 6])
def test_every_column_count_keeps_prices_and_theme_names_whole(
    size: tuple[int, int], themes: int
) -> None:
    from tests.display.test_display_golden import base

    layout = Layout(*size)
    for columns in range(1, 21):
        prices = [100 * (i + 1) for i in range(columns)]
        if columns == 20:
            prices[-1] = 10_000  # a grouped number in the narrowest cells
        spy = FitSpy(pygame.Surface(size))
        spy.draw(Scene(base(themes=THEMES[:themes], prices=prices, played=[])))
        labels = {str(p) for p in prices} | {f"{p // 1000} {p % 1000:03d}" for p in prices}
        price_fits = [(t, f) for t, f in spy.fitted if t in labels]
        assert price_fits, columns
        for text, fitted in price_fits:
            assert fitted.lines == (text,), (size, columns, text, fitted.lines)
            assert fitted.size >= layout.font_min
        theme_fits = [(t, f) for t, f in spy.fitted if t in THEMES]
        assert theme_fits
        for text, fitted in theme_fits:
            words = text.split()
            assert not any(ELLIPSIS in line for line in fitted.lines), (size, columns, text)
            # Lines break between words, never inside one.
            assert all(w in words for line in fitted.lines for w in line.split()), fitted.lines
            assert " ".join(fitted.lines).split() == words


def test_grouped_digits_give_way_before_a_price_is_cut() -> None:
    from tests.display.test_display_golden import base

    prices = [10_000 + 1000 * i for i in range(20)]  # "10 000" … "29 000"
    roomy = FitSpy(pygame.Surface((1920, 1080)))
    roomy.draw(Scene(base(prices=prices, played=[])))
    grouped = {view.i18n.number(p) for p in prices}
    assert any(text in grouped and f.lines == (text,) for text, f in roomy.fitted)
    # A small window, 20 columns: "20 000" would end in "…"; the digits close up instead.
    narrow = FitSpy(pygame.Surface((520, 292)))
    narrow.draw(Scene(base(prices=prices, played=[])))
    cut = [f for text, f in narrow.fitted if text in grouped]
    whole = [(text, f) for text, f in narrow.fitted if text in {str(p) for p in prices}]
    assert cut and ELLIPSIS in cut[-1].lines[0]
    assert whole and all(f.lines == (text,) for text, f in whole)


def test_a_numbered_round_is_called_a_round() -> None:
    assert view.round_title({"round": 1, "round_name": "1"}, "ru") == "Раунд 1"
    assert view.round_title({"round": 2, "round_name": "2"}, "en") == "Round 2"
    assert view.round_title({"round": 1, "round_name": "Первый раунд"}, "ru") == "Первый раунд"


# -- the cat's package theme and price --------------------------------------------------------


def cat_scene(stage: str, cat: CatParams, options: tuple[int, ...] = ()) -> Scene:
    from tests.display.test_display_golden import base

    snapshot = base(stage=stage, cell=[2, 200], special="cat", answering=2)
    facts = Facts(cat_from=3, cat_to=2 if stage != "cat_give" else None, cat_options=options)
    return Scene(snapshot, facts, cat=cat)


def test_the_cats_theme_shows_from_the_hand_over_or_before_it_when_announced() -> None:
    after = CatParams("КОРАБЛИ", PriceChoice.fixed(700))
    before = CatParams("МЁРТВЫЕ ДУШИ", PriceChoice(500, 1000), announce=CatAnnounce.BEFORE)
    assert view.cat_theme(cat_scene("cat_give", after)) == ""
    assert view.cat_theme(cat_scene("cat_price", after)) == "КОРАБЛИ"
    assert view.cat_theme(cat_scene("cat_give", before)) == "МЁРТВЫЕ ДУШИ"
    renderer = Renderer(pygame.Surface(SIZE))
    renderer.draw(cat_scene("cat_price", after))
    assert renderer._drawn["headline"][1] == ("Тема кота", "КОРАБЛИ")


def test_the_cats_value_is_the_engines_choice_else_the_packages() -> None:
    fixed = CatParams("КОРАБЛИ", PriceChoice.fixed(700))
    # The engine offers the round's minimum or maximum (TV-S-CAT-2): that is what is played.
    engine = view.cat_value(cat_scene("cat_price", fixed, (100, 500)), "ru")
    assert engine == "Выбор стоимости: 100 или 500"
    # No choice from the engine: the package's value.
    assert view.cat_value(cat_scene("cat_price", fixed), "ru") == "Стоимость: 700"
    stepped = CatParams("Т", PriceChoice.of(100, 1000, 200))
    assert view.cat_value(cat_scene("cat_price", stepped), "ru") == (
        "Выбор стоимости: от 100 до 900, шаг 200"
    )
    ends = CatParams("Т", PriceChoice())
    assert view.cat_value(cat_scene("cat_price", ends), "en") == "Choosing the value: 100 or 500"


def test_a_cat_question_is_headed_by_its_own_theme() -> None:
    from tests.display.test_display_golden import base

    snapshot = base(stage="special", cell=[2, 200], special="cat", answering=2, value=700)
    scene = Scene(snapshot, cat=CatParams("КОРАБЛИ", PriceChoice.fixed(700)))
    assert view.header(scene, screens.SPECIAL, "ru") == ("Кот в мешке · КОРАБЛИ", "700")
    plain = Scene(snapshot)
    assert view.header(plain, screens.SPECIAL, "ru") == ("Кот в мешке · Музыка", "700")


# -- the final's question and answer ------------------------------------------------------------


def test_the_final_question_is_up_while_the_stakes_are_revealed() -> None:
    from tests.display.test_display_golden import FINAL, base

    snapshot = base(
        stage="final_judging", final=dict(FINAL, themes_left=[3], staked=[1, 3], judge_order=[1, 3])
    )
    renderer = Renderer(pygame.Surface(SIZE))
    renderer.draw(Scene(snapshot, question_text="Вопрос финала", final_theme_names=("А", "Б", "В")))
    assert renderer._drawn["question"][1][0] == "Вопрос финала"
    assert "rows" in renderer._drawn
    assert view.header(
        Scene(snapshot, final_theme_names=("А", "Б", "В")), screens.FINAL_JUDGING, "ru"
    ) == ("Финал · В", "Проверка ответов")
    renderer.draw(Scene(snapshot))
    assert "question" not in renderer._drawn  # no package: the stakes alone, as before


def test_the_final_answer_shows_once_every_verdict_is_in() -> None:
    from tests.display.test_display_golden import FINAL, base

    over = base(stage="over", winner=3, over=True, final=dict(FINAL, judge_order=[]))
    scene = Scene(over, answer_text="«Пиковая дама»")
    assert view.final_answer(scene, "ru") == "Правильный ответ: «Пиковая дама»"
    renderer = Renderer(pygame.Surface(SIZE))
    renderer.draw(scene)
    assert renderer._drawn["answer"][1][0] == "Правильный ответ: «Пиковая дама»"
    judging = Scene(dict(over, stage="final_judging", final=FINAL), answer_text="«Пиковая дама»")
    assert view.final_answer(judging, "ru") == ""
    no_final = Scene(base(stage="over", winner=3, over=True), answer_text="x")
    assert view.final_answer(no_final, "ru") == ""


# -- the live board and the command line --------------------------------------------------------


@pytest.fixture
def board() -> Iterator[BoardApp]:
    app = BoardApp({"size": list(SIZE)}, sounds=False)
    app.open()
    yield app
    app.close()


def test_the_live_board_shows_the_package_and_plays_its_sound(
    board: BoardApp, package: Path
) -> None:
    audio = RecordingAudio()
    game = game_on(package)
    board.attach(game.controller)
    board.use_package(texts_of(package), audio)
    assert board.final_theme_names == ("Тема 1", "Тема 2")
    game.do(lambda t: ev.Select(t, 1, 100))
    board.frame()
    scene = board.scene()
    assert scene.question_text == "Что на картинке?" and len(scene.images) == 1
    assert board.screen is not None
    assert count_colour(board.screen, PICTURE_COLOUR, Layout(*SIZE).body) > 500
    game.do(lambda t: ev.ReadingStart(t))
    game.do(lambda t: ev.ReadingEnd(t))
    game.do(lambda t: ev.Press(t, 1), gap=0.3)
    game.do(lambda t: ev.Judge(t, True))
    game.do(lambda t: ev.Select(t, 1, 200))
    game.do(lambda t: ev.ReadingStart(t))
    board.frame()
    assert audio.names == ["start"] and audio.calls[0][1][1] == "tune.wav"
    assert board.scene().media_notes == (screens.NOTE_AUDIO,)
    board.close()
    assert audio.names == ["start", "stop"]  # closing the board silences it


def test_shot_draws_the_start_screen(tmp_path: Path, package: Path) -> None:
    import json

    journal = tmp_path / "game.jsonl"
    journal.write_text(json.dumps(header(package)) + "\n", encoding="utf-8")
    out = tmp_path / "start.png"
    url = "http://192.168.1.23:8000/panel"
    args = ["display", "shot", str(journal), str(out), "--size", "640x360", "--screen", "start"]
    assert main([*args, "--url", url]) == 0
    from display.replay import JournalPlayer

    player = JournalPlayer([json.dumps(header(package))], tmp_path)
    expected = render(
        Scene(player.snapshot(), start=StartInfo(url=url, title=player.setup.rules.title)), SIZE
    )
    assert pygame.image.tobytes(pygame.image.load(str(out)), "RGB") == pygame.image.tobytes(
        expected, "RGB"
    )


def test_shot_draws_a_package_picture_and_names_a_broken_one(
    tmp_path: Path, package: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    lines = [json.dumps(header(package))]
    lines.append(json.dumps({"t": 1.0, "type": "select", "theme": 1, "price": 100}))
    journal = tmp_path / "q.jsonl"
    journal.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "q.png"
    assert main(["display", "shot", str(journal), str(out), "--size", "640x360"]) == 0
    shot = pygame.image.load(str(out))
    assert count_colour(shot, PICTURE_COLOUR, Layout(*SIZE).body) > 500
    lines[1] = json.dumps({"t": 1.0, "type": "select", "theme": 1, "price": 400})
    journal.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["display", "shot", str(journal), str(out), "--size", "640x360"]) == 0
    assert "broken.png" in capsys.readouterr().err
