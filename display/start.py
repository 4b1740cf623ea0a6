"""The start screen, painted: the title, the game, the players, the panel's QR code.

It has its own module because the start screen is laid out on its own, over
the whole screen and without the bands of a game screen: the title on top,
the lines about the game at the left, and the panel's address as a QR code
with the address under it at the right. Never the host's PIN: the players
see the board (:class:`display.scene.StartInfo`). The key it paints
(:data:`StartKey`) is composed by :mod:`display.renderer`.
"""

from __future__ import annotations

import pygame

from display import palette
from display.i18n import tr
from display.paint import Painter
from display.palette import RGB

#: (the panel's address or "", the game's title or "", the players' names, a button
#: check's line or "": A-G-D2, «Кнопка работает: Анна»).
StartKey = tuple[str, str, tuple[str, ...], str]


def paint_start(paint: Painter, rect: pygame.Rect, key: StartKey, lang: str) -> None:
    """The whole start screen, from its key. No PIN here, ever: the players see the board."""
    url, title, players, checked = key
    layout = paint.layout
    surface = paint.surface
    surface.fill(palette.BACKGROUND, rect)
    m = layout.margin
    h = layout.height
    top = pygame.Rect(m, m, rect.width - 2 * m, round(0.18 * h))
    paint.line(tr("title", lang), top, layout.font_big, palette.GOLD, palette.BACKGROUND)
    body = pygame.Rect(m * 3, top.bottom + m, rect.width - 6 * m, rect.height - top.bottom - 4 * m)
    qr_side = min(body.height, body.width * 45 // 100) if url else 0
    info = pygame.Rect(body.left, body.top, body.width - qr_side - 3 * m, body.height)
    lines: list[tuple[str, int, RGB]] = []
    if title:
        lines.append((title, layout.font_status, palette.WHITE))
    if players:
        lines.append((" · ".join(players), layout.font_status, palette.MUTED))
    if url:
        lines.append((tr("panel_scan", lang), layout.font_status, palette.WHITE))
        lines.append((tr("pin_elsewhere", lang), layout.font_status, palette.MUTED))
    if not lines:
        lines.append((tr("waiting", lang), layout.font_status, palette.WHITE))
    # A-G-D2: the last line is kept for a button check, so that nothing moves when one
    # is shown (empty the rest of the time).
    lines.append((checked, layout.font_status, palette.GREEN))
    weights = [2 if size == layout.font_big else 1 for _, size, _ in lines]
    unit = info.height / max(1, sum(weights))
    y = float(info.top)
    for (text, size, colour), weight in zip(lines, weights, strict=True):
        box = pygame.Rect(info.left, round(y), info.width, round(unit * weight))
        if text:
            paint.line(text, box, size, colour, palette.BACKGROUND, "left")
        y += unit * weight
    if url:
        caption_h = round(0.08 * h)
        side = qr_side - caption_h
        qr_box = pygame.Rect(0, body.top, side, side)
        qr_box.right = body.right
        image = paint.qr(url, side)
        surface.blit(image, image.get_rect(center=qr_box.center))
        caption = pygame.Rect(
            body.right - qr_side, qr_box.bottom + m // 2, qr_side, caption_h - m // 2
        )
        paint.line(url, caption, layout.font_small, palette.WHITE, palette.BACKGROUND)
