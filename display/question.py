"""The question, painted: its text, its pictures, and what the board says about its media.

It has its own module because the question's area is shared out by rules of
its own: notes about media the board does not show go first, one line each;
pictures take the upper part (more of it when the text is only a caption),
side by side or in a grid (:func:`display.layout.picture_boxes`), a picture
that could not be decoded drawn as a placeholder; the text fills the rest.
The key it paints (:data:`QuestionKey`) is composed by :mod:`display.renderer`.
"""

from __future__ import annotations

import pygame

from display import palette
from display.i18n import tr
from display.layout import picture_boxes
from display.paint import Painter
from display.palette import RGB

#: A question text up to this long under a picture is a caption: the picture gets more room.
SHORT_CAPTION = 60

#: (text, its colour, the pictures (None: not decoded), media notes, draw a note icon).
QuestionKey = tuple[str, RGB, tuple[pygame.Surface | None, ...], tuple[str, ...], bool]


def paint_question(paint: Painter, rect: pygame.Rect, key: QuestionKey, lang: str) -> None:
    """The question's area: media notes, then pictures, then the text, as the key has them."""
    text, colour, pictures, notes, icon = key
    layout = paint.layout
    surface = paint.surface
    surface.fill(palette.BACKGROUND, rect)
    inner = rect.inflate(-4 * layout.margin, -2 * layout.margin)
    if not text and not pictures and notes:
        # Nothing else to show: what the board cannot play is the message, in gold.
        if icon:
            top, inner = layout.split(inner, 0.45)
            paint.note_icon(top, palette.GOLD)
        fitted = paint.fit(
            "\n".join(notes),
            inner.width,
            inner.height,
            layout.font_question,
            layout.font_question_min,
            None,
        )
        paint.blit_fitted(fitted, inner, palette.GOLD, palette.BACKGROUND)
        return
    if notes:
        # One line per note above everything else ("Видеовопрос: …", then the
        # question), in the status line's size.
        line_h = min(layout.status.height, inner.height // 4)
        for i, note in enumerate(notes):
            box = pygame.Rect(inner.left, inner.top + i * line_h, inner.width, line_h)
            paint.line(note, box, layout.font_status, palette.GOLD, palette.BACKGROUND)
        below = inner.top + line_h * len(notes) + layout.margin
        inner = pygame.Rect(inner.left, below, inner.width, max(0, inner.bottom - below))
    text_box = inner
    if pictures:
        # The picture is the question: a short caption leaves it more room.
        share = 100 if not text else 74 if len(text) <= SHORT_CAPTION else 62
        image_box = pygame.Rect(inner.left, inner.top, inner.width, inner.height * share // 100)
        paint_pictures(paint, image_box, pictures, lang)
        text_box = pygame.Rect(
            inner.left,
            image_box.bottom + layout.margin,
            inner.width,
            inner.bottom - image_box.bottom - layout.margin,
        )
    if text and text_box.height > 0:
        fitted = paint.fit(
            text,
            text_box.width,
            text_box.height,
            layout.font_question,
            layout.font_question_min,
            None,
        )
        paint.blit_fitted(fitted, text_box, colour, palette.BACKGROUND)


def paint_pictures(
    paint: Painter, area: pygame.Rect, pictures: tuple[pygame.Surface | None, ...], lang: str
) -> None:
    """Pictures side by side (or in a grid: whichever shows them largest), each
    scaled to fit its share; a picture that failed to decode is a placeholder."""
    if area.width <= 0 or area.height <= 0:
        return
    gap = paint.layout.margin
    sizes = [(4, 3) if p is None else p.get_size() for p in pictures]
    boxes = picture_boxes(area, sizes, gap)
    for picture, box in zip(pictures, boxes, strict=True):
        if picture is None:
            paint_placeholder(paint, box, lang)
            continue
        paint.picture(picture, box)


def paint_placeholder(paint: Painter, box: pygame.Rect, lang: str) -> None:
    """Where a picture should be: a framed 4:3 panel that says it cannot be shown."""
    layout = paint.layout
    width = min(box.width, box.height * 4 // 3)
    height = min(box.height, width * 3 // 4)
    panel = pygame.Rect(0, 0, width, height)
    panel.center = box.center
    if width < 4 or height < 4:
        return
    paint.surface.fill(palette.PODIUM, panel)
    pygame.draw.rect(paint.surface, palette.MUTED, panel, max(1, layout.gap))
    inner = panel.inflate(-2 * layout.margin, -2 * layout.margin)
    fitted = paint.fit(
        tr("image_broken", lang),
        inner.width,
        inner.height,
        layout.font_status,
        layout.font_min,
        None,
    )
    paint.blit_fitted(fitted, inner, palette.MUTED, palette.PODIUM)
