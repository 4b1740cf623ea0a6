"""Where everything goes, as fractions of the screen: the same layout from 720p to 4K.

Heights are fractions of the screen's height and widths of its width, so a
16:9 screen at any resolution gets the same picture, scaled; other aspect
ratios get the same bands with narrower or wider columns. Font sizes are
fractions of the height too (then shrunk to fit by :mod:`display.text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pygame


def _r(value: float) -> int:
    return round(value)


@dataclass(frozen=True, slots=True)
class Podium:
    """One player's podium: the lamp strip on top, then name, score, status."""

    rect: pygame.Rect
    lamp: pygame.Rect
    name: pygame.Rect
    score: pygame.Rect
    status: pygame.Rect


class Layout:
    """The bands of the screen for a size; podium and grid rectangles on demand."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        h = height
        self.margin = m = max(2, _r(0.012 * h))
        self.gap = max(1, _r(0.006 * h))
        self.screen = pygame.Rect(0, 0, width, height)
        header_h = _r(0.085 * h)
        podium_h = _r(0.2 * h)
        bar_h = max(3, _r(0.014 * h))
        self.header = pygame.Rect(m, m, width - 2 * m, header_h)
        self.podiums = pygame.Rect(m, h - m - podium_h, width - 2 * m, podium_h)
        self.bar = pygame.Rect(m, self.podiums.top - m - bar_h, width - 2 * m, bar_h)
        top = self.header.bottom + m
        self.main = pygame.Rect(m, top, width - 2 * m, self.bar.top - m - top)
        status_h = _r(0.075 * h)
        self.body = pygame.Rect(
            self.main.left, self.main.top, self.main.width, self.main.height - status_h - m
        )
        self.status = pygame.Rect(self.main.left, self.body.bottom + m, self.main.width, status_h)
        # The countdown digits sit at the right end of the header.
        clock_w = _r(0.09 * h)
        self.clock = pygame.Rect(self.header.right - clock_w, self.header.top, clock_w, header_h)
        self.header_text = pygame.Rect(
            self.header.left + m, self.header.top, self.header.width - clock_w - 2 * m, header_h
        )
        # Font sizes (pygame's size parameter; lines are about 0.75 of it).
        self.font_header = _r(0.075 * h)
        self.font_question = _r(0.11 * h)
        self.font_question_min = max(10, _r(0.03 * h))
        self.font_status = _r(0.075 * h)
        self.font_price = _r(0.1 * h)
        self.font_theme = _r(0.07 * h)
        self.font_name = _r(0.06 * h)
        self.font_score = _r(0.1 * h)
        self.font_small = _r(0.045 * h)
        self.font_big = _r(0.2 * h)
        self.font_min = max(8, _r(0.018 * h))

    def podium_rects(self, count: int) -> list[Podium]:
        """``count`` podiums side by side along the bottom band."""
        count = max(1, count)
        strip = self.podiums
        gap = self.margin
        width = (strip.width - gap * (count - 1)) / count
        out: list[Podium] = []
        for i in range(count):
            left = strip.left + _r(i * (width + gap))
            right = strip.left + _r(i * (width + gap) + width)
            rect = pygame.Rect(left, strip.top, right - left, strip.height)
            lamp_h = max(3, _r(0.16 * rect.height))
            pad = max(1, _r(0.04 * rect.height))
            inner_w = rect.width - 2 * pad
            rest = rect.height - lamp_h - 2 * pad
            name_h = _r(0.3 * rest)
            score_h = _r(0.45 * rest)
            status_h = rest - name_h - score_h
            y = rect.top + lamp_h + pad
            name = pygame.Rect(rect.left + pad, y, inner_w, name_h)
            score = pygame.Rect(rect.left + pad, name.bottom, inner_w, score_h)
            status = pygame.Rect(rect.left + pad, score.bottom, inner_w, status_h)
            lamp = pygame.Rect(rect.left, rect.top, rect.width, lamp_h)
            out.append(Podium(rect, lamp, name, score, status))
        return out

    def grid(self, themes: int, prices: int) -> tuple[list[pygame.Rect], list[list[pygame.Rect]]]:
        """The board: a theme cell per row, then a cell per price; (theme cells, cells by row)."""
        area = self.main
        themes = max(1, themes)
        prices = max(1, prices)
        gap = self.gap
        # The theme column gives way as columns are added (SIGame rounds reach 15):
        # from 27 % of the width at 5 prices down to 20 % from 8 on.
        theme_w = _r(area.width * max(0.2, 0.42 - 0.03 * prices))
        cell_w = (area.width - theme_w - gap * prices) / prices
        row_h = (area.height - gap * (themes - 1)) / themes
        theme_cells: list[pygame.Rect] = []
        rows: list[list[pygame.Rect]] = []
        for r in range(themes):
            top = area.top + _r(r * (row_h + gap))
            bottom = area.top + _r(r * (row_h + gap) + row_h)
            theme_cells.append(pygame.Rect(area.left, top, theme_w, bottom - top))
            row: list[pygame.Rect] = []
            for c in range(prices):
                left = area.left + theme_w + gap + _r(c * (cell_w + gap))
                right = area.left + theme_w + gap + _r(c * (cell_w + gap) + cell_w)
                row.append(pygame.Rect(left, top, right - left, bottom - top))
            rows.append(row)
        return theme_cells, rows

    def split(self, area: pygame.Rect, fraction: float) -> tuple[pygame.Rect, pygame.Rect]:
        """``area`` cut across: the top ``fraction`` of its height, then the rest below a margin."""
        gap = self.margin
        top_h = round(area.height * fraction)
        top = pygame.Rect(area.left, area.top, area.width, top_h)
        rest = pygame.Rect(area.left, area.top + top_h + gap, area.width, area.height - top_h - gap)
        return top, rest

    def rows(
        self, area: pygame.Rect, count: int, max_height: float | None = None
    ) -> list[pygame.Rect]:
        """``count`` rows stacked in ``area``, each at most ``max_height`` high, centred."""
        count = max(1, count)
        gap = self.gap
        row_h = (area.height - gap * (count - 1)) / count
        if max_height is not None:
            row_h = min(row_h, max_height)
        total = row_h * count + gap * (count - 1)
        top = area.top + (area.height - total) / 2
        out = []
        for i in range(count):
            y0 = _r(top + i * (row_h + gap))
            y1 = _r(top + i * (row_h + gap) + row_h)
            out.append(pygame.Rect(area.left, y0, area.width, y1 - y0))
        return out


def picture_boxes(
    area: pygame.Rect, sizes: Sequence[tuple[int, int]], gap: int
) -> list[pygame.Rect]:
    """A box in ``area`` for each picture (of the given pixel sizes), in reading order.

    The number of columns is the one that shows the smallest picture largest,
    so four squares on a wide screen sit in a row, and four tall portraits too;
    a last row that is not full is centred.
    """
    count = len(sizes)
    if count == 0 or area.width <= 0 or area.height <= 0:
        return []
    best: tuple[float, int] | None = None
    for cols in range(1, count + 1):
        rows = -(-count // cols)
        cell_w = (area.width - gap * (cols - 1)) / cols
        cell_h = (area.height - gap * (rows - 1)) / rows
        if cell_w <= 0 or cell_h <= 0:
            continue
        shown = min(
            min(cell_w / max(1, w), cell_h / max(1, h)) ** 2 * max(1, w) * max(1, h)
            for w, h in sizes
        )
        if best is None or shown > best[0]:
            best = (shown, cols)
    cols = best[1] if best is not None else count
    rows = -(-count // cols)
    cell_w = max(1.0, (area.width - gap * (cols - 1)) / cols)
    cell_h = max(1.0, (area.height - gap * (rows - 1)) / rows)
    boxes: list[pygame.Rect] = []
    for i in range(count):
        row, col = divmod(i, cols)
        in_row = min(cols, count - row * cols)
        offset = (area.width - (in_row * cell_w + gap * (in_row - 1))) / 2
        left = area.left + offset + col * (cell_w + gap)
        top = area.top + row * (cell_h + gap)
        boxes.append(pygame.Rect(round(left), round(top), round(cell_w), round(cell_h)))
    return boxes
