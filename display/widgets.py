"""What a widget is, and how each one paints its key.

The renderer (:mod:`display.renderer`) composes a screen as a list of
:class:`Widget`: a name, a rectangle, a *key* (the exact data it shows) and
the function that paints that key. This module is the painting side of that
contract: :class:`WidgetPainter` turns the key of each kind of widget
(header, clock, countdown bar, podium, status line, headlines, list rows,
and through :mod:`display.grid`, :mod:`display.question` and
:mod:`display.start` the board, the question and the start screen) into
pixels with the primitives of :mod:`display.paint`. It decides nothing about
what a screen shows; every painter fills its own background first, so a
widget can be repainted alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import pygame

from display import palette, view
from display.after_game import AfterKey, paint_after
from display.grid import GridKey, paint_grid
from display.layout import Podium
from display.paint import Painter
from display.palette import RGB
from display.question import QuestionKey, paint_question
from display.start import StartKey, paint_start

#: Paints a widget's key into its rectangle.
Paint = Callable[[pygame.Rect, Any], None]


class Widget(NamedTuple):
    """One part of a screen: repainted only when its rectangle or its key changes."""

    name: str
    rect: pygame.Rect
    key: Any
    paint: Paint


class Row(NamedTuple):
    """One line of a list screen (bidding, final themes, final answers, the ranking)."""

    left: str
    right: str
    tone: str
    highlight: bool = False
    struck: bool = False


_TONES: dict[str, RGB] = {
    view.TONE_PLAIN: palette.WHITE,
    view.TONE_GOLD: palette.GOLD,
    view.TONE_RED: palette.RED,
    view.TONE_MUTED: palette.MUTED,
    view.TONE_GREEN: palette.GREEN,
}

_BAR_COLOURS: dict[str, RGB] = {
    view.WINDOW: palette.BAR_WINDOW,
    view.ANSWER: palette.BAR_ANSWER,
    view.FINAL: palette.BAR_ANSWER,
}


class WidgetPainter:
    """The paint function of every kind of widget, drawing with ``paint`` in ``lang``."""

    def __init__(self, paint: Painter, lang: str) -> None:
        self.paint = paint
        self.lang = lang

    # -- around every game screen -------------------------------------------------------

    def header(self, rect: pygame.Rect, key: tuple[str, str]) -> None:
        left, right = key
        paint = self.paint
        layout = paint.layout
        paint.surface.fill(palette.HEADER, rect)
        inner = rect.inflate(-2 * layout.margin, -layout.margin)
        right_w = 0
        if right:
            box = pygame.Rect(inner.left, inner.top, inner.width * 2 // 5, inner.height)
            box.right = inner.right
            fitted = paint.fit(right, box.width, box.height, layout.font_header, layout.font_min, 1)
            paint.blit_fitted(fitted, box, palette.GOLD, palette.HEADER, "right")
            right_w = paint.lines_width(fitted)
        box = pygame.Rect(
            inner.left, inner.top, inner.width - right_w - layout.margin, inner.height
        )
        paint.line(left, box, layout.font_header, palette.WHITE, palette.HEADER, "left")

    def clock(self, rect: pygame.Rect, key: tuple[str, str] | None) -> None:
        paint = self.paint
        paint.surface.fill(palette.HEADER, rect)
        if key is None:
            return
        kind, digits = key
        colour = _BAR_COLOURS.get(kind, palette.WHITE)
        inner = rect.inflate(-paint.layout.margin, -paint.layout.margin // 2)
        paint.line(digits, inner, paint.layout.font_header, colour, palette.HEADER)

    def bar(self, rect: pygame.Rect, key: tuple[str, int] | None) -> None:
        surface = self.paint.surface
        if key is None:
            surface.fill(palette.BACKGROUND, rect)
            return
        kind, width = key
        surface.fill(palette.BAR_TRACK, rect)
        if width > 0:
            bar = pygame.Rect(0, rect.top, width, rect.height)
            bar.centerx = rect.centerx
            surface.fill(_BAR_COLOURS.get(kind, palette.WHITE), bar)

    def podium(
        self, rect: pygame.Rect, key: tuple[Podium, view.PodiumView, tuple[int, int, int]]
    ) -> None:
        podium, item, (name_size, score_size, status_size) = key
        paint = self.paint
        surface = paint.surface
        if item.active:
            body = palette.PODIUM_ACTIVE
        elif item.dim:
            body = palette.PODIUM_DIM
        else:
            body = palette.PODIUM
        surface.fill(body, rect)
        lamp = {
            view.LAMP_ON: palette.LAMP_ON,
            "fs_on": palette.LAMP_FALSE_START,
            view.LAMP_DIM: palette.LAMP_DIM,
        }.get(item.lamp, palette.LAMP_OFF)
        surface.fill(lamp, podium.lamp)
        name_colour = palette.DIM if item.dim else palette.WHITE
        paint.line(item.name, podium.name, name_size, name_colour, body)
        if item.negative:
            score_colour = palette.RED_DIM if item.dim else palette.RED
        elif item.dim:
            score_colour = palette.DIM
        else:
            score_colour = palette.GOLD if item.active else palette.WHITE
        paint.line(item.score, podium.score, score_size, score_colour, body)
        if item.status:
            colour = _TONES.get(item.tone, palette.WHITE)
            paint.line(item.status, podium.status, status_size, colour, body)

    def status(self, rect: pygame.Rect, key: tuple[str, str]) -> None:
        text, tone = key
        paint = self.paint
        paint.surface.fill(palette.BACKGROUND, rect)
        if text:
            paint.line(
                text,
                rect,
                paint.layout.font_status,
                _TONES.get(tone, palette.WHITE),
                palette.BACKGROUND,
            )

    # -- the main area -------------------------------------------------------------------

    def grid(self, rect: pygame.Rect, key: GridKey) -> None:
        paint_grid(self.paint, rect, key)

    def question(self, rect: pygame.Rect, key: QuestionKey) -> None:
        paint_question(self.paint, rect, key, self.lang)

    def start(self, rect: pygame.Rect, key: StartKey) -> None:
        paint_start(self.paint, rect, key, self.lang)

    def after(self, rect: pygame.Rect, key: AfterKey) -> None:
        paint_after(self.paint, rect, key, self.lang)

    def labelled(self, rect: pygame.Rect, key: tuple[str, str]) -> None:
        """A small muted label over a large white value (the cat's theme)."""
        label, value = key
        paint = self.paint
        layout = paint.layout
        paint.surface.fill(palette.BACKGROUND, rect)
        top, bottom = layout.split(rect, 0.3)
        paint.line(label, top, layout.font_status, palette.MUTED, palette.BACKGROUND)
        fitted = paint.fit(value, bottom.width, bottom.height, layout.font_big, layout.font_min, 2)
        paint.blit_fitted(fitted, bottom, palette.WHITE, palette.BACKGROUND)

    def answer(self, rect: pygame.Rect, key: tuple[str, str]) -> None:
        """A line that may wrap to two (a final's answer can be long), never cut short."""
        text, tone = key
        paint = self.paint
        layout = paint.layout
        paint.surface.fill(palette.BACKGROUND, rect)
        fitted = paint.fit(text, rect.width, rect.height, layout.font_status, layout.font_min, 2)
        paint.blit_fitted(fitted, rect, _TONES.get(tone, palette.WHITE), palette.BACKGROUND)

    def headline(self, rect: pygame.Rect, key: tuple[str, str]) -> None:
        """A large gold line, with a white one under it when there is one."""
        big, small = key
        paint = self.paint
        layout = paint.layout
        paint.surface.fill(palette.BACKGROUND, rect)
        if small:
            top, bottom = layout.split(rect, 0.62)
            paint.line(big, top, layout.font_big, palette.GOLD, palette.BACKGROUND)
            paint.line(small, bottom, layout.font_status, palette.WHITE, palette.BACKGROUND)
        else:
            paint.line(big, rect, layout.font_big, palette.GOLD, palette.BACKGROUND)

    def winner(self, rect: pygame.Rect, key: tuple[str, str]) -> None:
        """The winner's name, large and gold, under its title when there is one."""
        name, title = key
        paint = self.paint
        layout = paint.layout
        paint.surface.fill(palette.BACKGROUND, rect)
        if title:
            top, bottom = layout.split(rect, 0.35)
            paint.line(title, top, layout.font_status, palette.WHITE, palette.BACKGROUND)
            paint.line(name, bottom, layout.font_big, palette.GOLD, palette.BACKGROUND)
        else:
            paint.line(name, rect, layout.font_big, palette.GOLD, palette.BACKGROUND)

    def rows(self, rect: pygame.Rect, key: tuple[tuple[Row, ...], str]) -> None:
        """A list: a bar per :class:`Row` (left text, right text), a gold status line below."""
        rows, status = key
        paint = self.paint
        layout = paint.layout
        surface = paint.surface
        surface.fill(palette.BACKGROUND, rect)
        area = rect
        if status:
            area = pygame.Rect(
                rect.left, rect.top, rect.width, rect.height - layout.status.height - layout.margin
            )
            status_box = pygame.Rect(
                rect.left, area.bottom + layout.margin, rect.width, layout.status.height
            )
            paint.line(status, status_box, layout.font_status, palette.GOLD, palette.BACKGROUND)
        if not rows:
            return
        boxes = layout.rows(area, len(rows), max_height=0.1 * layout.height)
        pad = layout.margin
        for row, box in zip(rows, boxes, strict=True):
            fill = palette.PODIUM_ACTIVE if row.highlight else palette.PODIUM
            surface.fill(fill, box)
            inner = box.inflate(-2 * pad, -max(1, pad // 2))
            colour = _TONES.get(row.tone, palette.WHITE)
            right_w = 0
            if row.right:
                right_box = pygame.Rect(inner.left, inner.top, inner.width * 2 // 5, inner.height)
                right_box.right = inner.right
                fitted = paint.line(row.right, right_box, layout.font_status, colour, fill, "right")
                right_w = paint.lines_width(fitted)
            left_box = pygame.Rect(inner.left, inner.top, inner.width - right_w - pad, inner.height)
            left_colour = palette.DIM if row.struck else palette.WHITE
            fitted = paint.line(row.left, left_box, layout.font_status, left_colour, fill, "left")
            if row.struck and fitted.lines:
                width = paint.fonts.width(fitted.lines[0], fitted.size)
                top = left_box.top + (left_box.height - fitted.height) // 2 + fitted.offsets[0]
                y = top + paint.fonts.get(fitted.size).get_ascent() * 2 // 3
                pygame.draw.line(
                    surface,
                    palette.MUTED,
                    (left_box.left, y),
                    (left_box.left + width, y),
                    max(2, layout.gap // 2),
                )
