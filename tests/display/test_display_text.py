"""Text that fits its box: long Russian questions never overflow, at any resolution."""

from __future__ import annotations

import pygame
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from display.layout import Layout
from display.text import ELLIPSIS, Fitted, Fonts, TextCache, block, fit, fit_line, truncate, wrap
from tests.support.display_support import NS  # noqa: F401  (headless SDL before pygame starts)

FONTS = Fonts()

RESOLUTIONS = [(1280, 720), (1920, 1080), (3840, 2160), (1024, 768)]

CYRILLIC = "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"
words = st.text(alphabet=CYRILLIC + "0123456789«»—-,.?!:;()", min_size=1, max_size=14)
long_words = st.text(alphabet=CYRILLIC, min_size=30, max_size=90)  # no place to break
paragraphs = st.lists(st.one_of(words, words, words, long_words), min_size=1, max_size=120).map(
    " ".join
)
questions = st.lists(paragraphs, min_size=1, max_size=4).map("\n".join)


def question_box(layout: Layout) -> tuple[int, int]:
    """The text box of the question screen (as the renderer insets it)."""
    inner = layout.body.inflate(-4 * layout.margin, -2 * layout.margin)
    return inner.width, inner.height


def assert_fits(fitted: Fitted, w: int, h: int) -> None:
    """Every rendered line inside the box: widths, and heights where the lines are drawn."""
    font = FONTS.get(fitted.size)
    assert fitted.height <= h
    assert len(fitted.offsets) == len(fitted.lines)
    for line, offset in zip(fitted.lines, fitted.offsets, strict=True):
        image = font.render(line, True, (255, 255, 255))
        assert image.get_width() <= w
        assert offset >= 0 and offset + image.get_height() <= fitted.height


@pytest.mark.parametrize("resolution", RESOLUTIONS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=questions)
def test_long_russian_questions_never_overflow(resolution: tuple[int, int], text: str) -> None:
    layout = Layout(*resolution)
    w, h = question_box(layout)
    fitted = fit(FONTS, text, w, h, layout.font_question, layout.font_question_min)
    assert_fits(fitted, w, h)
    assert layout.font_question_min <= fitted.size <= layout.font_question
    shown = "".join(fitted.lines).replace(" ", "")
    original = "".join(text.split())
    if fitted.lines and fitted.lines[-1].endswith(ELLIPSIS):
        assert fitted.size == layout.font_question_min  # cut only at the smallest size
        assert original.startswith(shown[:-1].rstrip(ELLIPSIS)[: max(0, len(shown) - 40)])
    else:
        assert shown == original  # every character shown, in order


@settings(max_examples=40, deadline=None)
@given(
    text=paragraphs,
    w=st.integers(min_value=1, max_value=900),
    h=st.integers(min_value=1, max_value=500),
    size=st.integers(min_value=8, max_value=120),
)
def test_any_box_any_size(text: str, w: int, h: int, size: int) -> None:
    fitted = fit(FONTS, text, w, h, size, 8)
    assert_fits(fitted, w, h)
    one = fit_line(FONTS, text, w, h, size, 8)
    assert len(one.lines) <= 1
    assert_fits(one, w, h)


@settings(max_examples=30, deadline=None)
@given(text=paragraphs, size=st.integers(min_value=8, max_value=80), w=st.integers(1, 800))
def test_wrap_keeps_every_character_within_the_width(text: str, size: int, w: int) -> None:
    lines = wrap(FONTS, text, size, w)
    assert "".join(lines).replace(" ", "") == "".join(text.split())
    for line in lines:
        assert FONTS.width(line, size) <= w or len(line) == 1


def test_a_short_question_gets_the_largest_size() -> None:
    layout = Layout(1920, 1080)
    w, h = question_box(layout)
    assert fit(FONTS, "Столица Австралии?", w, h, layout.font_question).size == layout.font_question


def test_a_long_question_gets_smaller_but_stays_whole() -> None:
    layout = Layout(1920, 1080)
    w, h = question_box(layout)
    text = (
        "Этот русский писатель, автор «Записок охотника», долго жил во Франции, дружил с "
        "Флобером и Золя, а его роман о нигилисте Базарове вызвал споры сразу после выхода. "
        "Назовите писателя, чьё имя носят улицы едва ли не в каждом городе России, а "
        "усадьба Спасское-Лутовиново под Орлом давно стала музеем."
    )
    fitted = fit(FONTS, text, w, h, layout.font_question, layout.font_question_min)
    assert layout.font_question_min < fitted.size < layout.font_question
    assert " ".join(fitted.lines) == text


def test_lines_keep_one_baseline_whatever_their_accents() -> None:
    """Ё and Й make SDL_ttf draw a line lower in a taller surface: offsets undo that."""
    size = 80
    fitted = block(FONTS, ["ааа", "ЁЙу", "ааа"], size)
    font = FONTS.get(size)
    bottoms = []
    for line, offset in zip(fitted.lines, fitted.offsets, strict=True):
        image = font.render(line, True, (255, 255, 255), (0, 0, 0))
        width = FONTS.width(line[0], size) if line[0] == "а" else FONTS.width("ЁЙ", size)
        column = [
            y
            for y in range(image.get_height())
            for x in range(min(width, image.get_width()))
            if line[0] == "а" and image.get_at((x, y))[0] > 128
        ]
        if column:
            bottoms.append(offset + max(column))
    step = fitted.line_height
    assert bottoms[1] - bottoms[0] == 2 * step  # the first and the last line, two steps apart
    # The accented line sits on the same grid: its baseline is where the plain line's would be.
    above, _ = FONTS.extent("ЁЙу", size)
    assert above > 0 and fitted.offsets[1] == step - above + fitted.offsets[0]


def test_truncate_and_fit_line() -> None:
    assert (
        truncate(FONTS, "Григорий Константинопольский", 20, 10_000)
        == "Григорий Константинопольский"
    )
    cut = truncate(FONTS, "Григорий Константинопольский", 20, 120)
    assert cut.endswith(ELLIPSIS) and FONTS.width(cut, 20) <= 120
    assert truncate(FONTS, "Ж", 40, 1) == ""
    fitted = fit_line(FONTS, "Григорий Константинопольский", 200, 40, 60, 10)
    assert len(fitted.lines) == 1 and FONTS.width(fitted.lines[0], fitted.size) <= 200
    assert fit(FONTS, "", 100, 100, 40).lines == ()
    assert fit(FONTS, "Текст", 100, 3, 40).lines == ()  # not even one line fits: nothing drawn


def test_the_default_font_has_cyrillic() -> None:
    """pygame's bundled FreeSans Bold draws Cyrillic: not the missing-glyph box."""
    font = FONTS.get(40)
    box = font.render("\uffff", True, (255, 255, 255))  # a code point no font has
    for letter in "ЖжЁёЯяЩщЫы":
        glyph = font.render(letter, True, (255, 255, 255))
        same = glyph.get_size() == box.get_size() and pygame.image.tobytes(
            glyph, "RGBA"
        ) == pygame.image.tobytes(box, "RGBA")
        assert not same, letter


def test_text_cache_reuses_surfaces() -> None:
    cache = TextCache(FONTS, capacity=2)
    a = cache.render("Вопрос", 30, (255, 255, 255), (0, 0, 0))
    assert cache.render("Вопрос", 30, (255, 255, 255), (0, 0, 0)) is a
    assert cache.hits == 1 and cache.misses == 1
    cache.render("Ответ", 30, (255, 255, 255))
    cache.render("Счёт", 30, (255, 255, 255))
    assert cache.render("Вопрос", 30, (255, 255, 255), (0, 0, 0)) is not a  # evicted


def test_text_cache_keeps_at_most_its_bytes_and_draws_the_same_again() -> None:
    """A whole game's questions do not pile up: the bytes kept stay under the limit."""
    first = FONTS.get(60).render("Вопрос номер 0", True, (255, 255, 255), (0, 0, 0))
    limit = 20 * first.get_pitch() * first.get_height()
    cache = TextCache(FONTS, max_bytes=limit)
    a = cache.render("Вопрос номер 0", 60, (255, 255, 255), (0, 0, 0))
    for i in range(200):
        cache.render(f"Вопрос номер {i}", 60, (255, 255, 255), (0, 0, 0))
        kept = list(cache._surfaces.values())
        assert cache.bytes == sum(s.get_pitch() * s.get_height() for s in kept)
        assert cache.bytes <= limit
    assert len(cache) < 25
    again = cache.render("Вопрос номер 0", 60, (255, 255, 255), (0, 0, 0))
    assert again is not a  # evicted, rendered again: the same pixels
    assert pygame.image.tobytes(again, "RGB") == pygame.image.tobytes(a, "RGB")
    cache.clear()
    assert cache.bytes == 0 and len(cache) == 0


def test_text_cache_keeps_the_newest_even_over_its_bytes() -> None:
    cache = TextCache(FONTS, max_bytes=1)
    a = cache.render("Большой", 80, (255, 255, 255))
    assert cache.render("Большой", 80, (255, 255, 255)) is a and len(cache) == 1
    cache.render("Другой", 80, (255, 255, 255))
    assert len(cache) == 1


def test_fonts_keep_at_most_capacity_sizes_open() -> None:
    fonts = Fonts(capacity=4)
    heights = {size: fonts.line_height(size) for size in range(10, 60)}
    assert len(fonts) == 4
    assert fonts.get(59) is fonts.get(59)  # recently used: still open
    for size, height in heights.items():  # reopened sizes measure the same
        assert fonts.line_height(size) == height
        assert len(fonts) <= 4
