"""The game-over screen's report corner: a QR code to the game's report, and the seal.

After the game every player may scan the board for the report
(``/report`` on the panel's address, anyone's once the game is over), and the
host copies the journal's seal from the board onto the paper scoresheet. The
board does not decide what either is: the composition (``buzzer/app/board.py``)
hands it an :class:`~display.scene.AfterGame` (the address, the seal's short
form); this module only paints them.
"""

from __future__ import annotations

import pygame

from display import palette
from display.i18n import tr
from display.paint import Painter

#: (the report's address or "", the seal's short form or "").
AfterKey = tuple[str, str]


def paint_after(paint: Painter, rect: pygame.Rect, key: AfterKey, lang: str) -> None:
    """The QR code of the report's address with its caption, then the seal under it."""
    url, seal = key
    layout = paint.layout
    surface = paint.surface
    surface.fill(palette.BACKGROUND, rect)
    m = layout.margin
    line_h = round(0.06 * layout.height)
    text_h = 2 * line_h + (2 * line_h if seal else 0)
    side = max(0, min(rect.width, rect.height - text_h - m))
    y = rect.top
    if url and side > 0:
        image = paint.qr(url, side)
        box = pygame.Rect(rect.left, y, rect.width, side)
        surface.blit(image, image.get_rect(center=box.center))
        y += side + m // 2
        caption = pygame.Rect(rect.left, y, rect.width, line_h)
        paint.line(tr("report_scan", lang), caption, layout.font_small, palette.WHITE,
                   palette.BACKGROUND)  # fmt: skip
        y += line_h
        address = pygame.Rect(rect.left, y, rect.width, line_h)
        paint.line(url, address, layout.font_small, palette.MUTED, palette.BACKGROUND)
        y += line_h
    if seal:
        label = pygame.Rect(rect.left, y + m // 2, rect.width, line_h)
        paint.line(tr("seal", lang), label, layout.font_small, palette.MUTED, palette.BACKGROUND)
        value = pygame.Rect(rect.left, label.bottom, rect.width, line_h)
        paint.line(seal, value, layout.font_status, palette.GOLD, palette.BACKGROUND)
