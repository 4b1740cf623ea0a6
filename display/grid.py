"""The board of themes and prices, painted: the one widget that sizes text across cells.

It has its own module because the grid is the one painter with real text
policy of its own: one font size for every theme name (so the column reads
evenly, and no word is split across lines), one for every price (so the row
does), and prices whose grouped digits close up rather than be cut short in
the narrow cells of a wide round. The key it paints (:data:`GridKey`) is
composed by :mod:`display.renderer`.
"""

from __future__ import annotations

import pygame

from display import palette
from display.i18n import number
from display.paint import Painter
from display.text import Fitted

#: Lines a theme name may wrap to on the board (then it shrinks).
THEME_LINES = 4

#: (theme names, prices, the played cells as (theme number, price)).
GridKey = tuple[tuple[str, ...], tuple[int, ...], frozenset[tuple[int, int]]]


def paint_grid(paint: Painter, rect: pygame.Rect, key: GridKey) -> None:
    """The board: a theme cell per row, then a price cell per price (empty once played)."""
    themes, prices, played = key
    layout = paint.layout
    surface = paint.surface
    surface.fill(palette.BACKGROUND, rect)
    if not themes or not prices:
        return
    theme_cells, rows = layout.grid(len(themes), len(prices))
    if not rows or not rows[0]:
        return
    pad = layout.gap * 2
    labels, price_size = price_labels(paint, prices, rows)
    theme_h = theme_cells[0].height - pad if theme_cells else 0
    theme_w = theme_cells[0].width - 2 * pad if theme_cells else 0
    # No size at which a word would be split across lines ("Дополнитель / но"):
    # the longest word of any theme sets the ceiling, unless it fits at no size.
    words = [w for t in themes for w in t.split()]
    longest = max(words, key=lambda w: paint.fonts.width(w, 40), default="")
    ceiling = layout.font_theme
    if longest:
        ceiling = paint.fit(longest, theme_w, theme_h, layout.font_theme, layout.font_min, 1).size
    # One size for all theme names (the smallest best fit): the column reads evenly.
    theme_size = min(
        (
            paint.fit(t, theme_w, theme_h, ceiling, layout.font_min, THEME_LINES).size
            for t in themes
        ),
        default=ceiling,
    )
    for r, (theme_cell, row) in enumerate(zip(theme_cells, rows, strict=True)):
        surface.fill(palette.THEME_CELL, theme_cell)
        title = themes[r] if r < len(themes) else ""
        inner = theme_cell.inflate(-2 * pad, -pad)
        fitted = paint.fit(
            title, inner.width, inner.height, theme_size, layout.font_min, THEME_LINES
        )
        paint.blit_fitted(fitted, inner, palette.WHITE, palette.THEME_CELL)
        for c, box in enumerate(row):
            price = prices[c]
            if (r + 1, price) in played:
                surface.fill(palette.CELL_PLAYED, box)
                continue
            surface.fill(palette.CELL, box)
            image = paint.text.render(labels[c], price_size, palette.GOLD, palette.CELL)
            surface.blit(image, image.get_rect(center=box.center))


def price_labels(
    paint: Painter, prices: tuple[int, ...], rows: list[list[pygame.Rect]]
) -> tuple[list[str], int]:
    """The board's price labels and their one font size, fitted to the narrowest cell.

    With many columns (SIGame rounds reach 15) the cells are narrow and tall:
    the side padding shrinks with the cell, and should grouped digits
    (``10 000``) still not fit whole, the digits go ungrouped (``10000``).
    A price is never cut short while it can be drawn at the smallest size.
    """
    layout = paint.layout
    cells = rows[0]
    width = min(box.width for box in cells)
    height = min(box.height for box in cells)
    pad_x = max(1, min(layout.gap * 2, width // 12))
    pad_y = layout.gap * 2
    fitted: Fitted | None = None
    labels: list[str] = []
    for style in (number, str):
        labels = [style(p) for p in prices]
        widest = max(labels, key=lambda s: paint.fonts.width(s, 40), default="")
        fitted = paint.fit(
            widest, width - 2 * pad_x, height - pad_y, layout.font_price, layout.font_min, 1
        )
        if fitted.lines == (widest,):
            break
    assert fitted is not None
    return labels, fitted.size
