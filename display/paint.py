"""The drawing primitives of the board: text in a box, pictures, shapes, a QR code.

It exists so that the screens' composition (:mod:`display.renderer`) and the
painting of each widget (:mod:`display.widgets`) share one way of putting
pixels on a surface, with the caches that make it cheap. A :class:`Painter`
knows a pygame surface, its :class:`~display.layout.Layout`, fonts and
colours, and nothing of the game: no snapshot, no player, no rule.

Fitting a text to a box is kept per (text, box, sizes), so the wrapping of a
long question is computed once; rendered lines are kept by
:class:`~display.text.TextCache`; a picture scaled to a box is kept with the
picture itself, so that a new picture that reuses a freed one's id is not
taken for it.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pygame

from display import palette
from display.layout import Layout
from display.palette import RGB
from display.qr import Level, QrCode, encode
from display.text import Fitted, Fonts, TextCache, fit, fit_line

#: Scaled pictures kept: a question's worth (display.media.MAX_IMAGES), twice over.
MAX_PICTURES = 8
#: Fitted texts kept (least recently used dropped first).
MAX_FITS = 512
#: Rendered text kept, in screens' worth of pixels (32 bits): all the text of
#: the screen up and of the one before, so that a change of screen and back
#: renders nothing again (16 MB at 1920×1080).
TEXT_SCREENS = 2


class Painter:
    """Draws on ``surface``: fitted text, scaled pictures, shapes; caches what it can."""

    def __init__(self, surface: pygame.Surface, font: str | None = None) -> None:
        self.fonts = Fonts(font)
        self.text = TextCache(self.fonts, max_bytes=text_budget(surface))
        self._fits: OrderedDict[tuple[Any, ...], Fitted] = OrderedDict()
        self._qr: dict[tuple[str, int], pygame.Surface] = {}
        #: (id of the source, width, height) → (the source, its scaled copy); the
        #: source is kept so that a new picture reusing a freed one's id is not
        #: taken for it.
        self._images: dict[tuple[int, int, int], tuple[pygame.Surface, pygame.Surface]] = {}
        self.surface = surface
        self.layout = Layout(*surface.get_size())

    def resize(self, surface: pygame.Surface) -> None:
        """A new target: its layout; fittings and scaled pictures of the old size are dropped."""
        self.surface = surface
        self.layout = Layout(*surface.get_size())
        self._fits.clear()
        self._images.clear()
        self._qr.clear()
        self.text.max_bytes = text_budget(surface)
        self.text.trim()

    def clear_text(self) -> None:
        """Forget every rendered and fitted text: the next frames start cold (the benchmark)."""
        self.text.clear()
        self._fits.clear()

    # -- text -----------------------------------------------------------------------

    def fit(
        self, text: str, width: int, height: int, max_size: int, min_size: int, lines: int | None
    ) -> Fitted:
        """``text`` fitted to a ``width`` × ``height`` box (one line when ``lines`` is 1)."""
        key = (text, width, height, max_size, min_size, lines)
        fitted = self._fits.get(key)
        if fitted is None:
            if lines == 1:
                fitted = fit_line(self.fonts, text, width, height, max_size, min_size)
            else:
                fitted = fit(self.fonts, text, width, height, max_size, min_size, lines)
            self._fits[key] = fitted
            if len(self._fits) > MAX_FITS:
                self._fits.popitem(last=False)
        return fitted

    def blit_fitted(
        self,
        fitted: Fitted,
        rect: pygame.Rect,
        colour: RGB,
        background: RGB | None,
        align: str = "center",
    ) -> None:
        """Fitted lines drawn in ``rect``: centred vertically, aligned ``left``, ``right`` or
        ``center``."""
        surface = self.surface
        top = rect.top + (rect.height - fitted.height) // 2
        for line, offset in zip(fitted.lines, fitted.offsets, strict=True):
            if line:
                image = self.text.render(line, fitted.size, colour, background)
                if align == "left":
                    x = rect.left
                elif align == "right":
                    x = rect.right - image.get_width()
                else:
                    x = rect.left + (rect.width - image.get_width()) // 2
                surface.blit(image, (x, top + offset))

    def line(
        self,
        text: str,
        rect: pygame.Rect,
        size: int,
        colour: RGB,
        background: RGB | None,
        align: str = "center",
    ) -> Fitted:
        """One line of ``text`` at most ``size`` fitted to ``rect`` and drawn; how it fitted."""
        fitted = self.fit(text, rect.width, rect.height, size, self.layout.font_min, 1)
        self.blit_fitted(fitted, rect, colour, background, align)
        return fitted

    def lines_width(self, fitted: Fitted) -> int:
        """The width of the widest of ``fitted``'s lines (0 for none)."""
        return max((self.fonts.width(s, fitted.size) for s in fitted.lines), default=0)

    # -- pictures and shapes --------------------------------------------------------

    def scaled(self, image: pygame.Surface, width: int, height: int) -> pygame.Surface:
        """``image`` scaled to fit ``width`` × ``height``, its proportions kept."""
        key = (id(image), width, height)
        cached = self._images.get(key)
        if cached is not None and cached[0] is image:
            return cached[1]
        w, h = image.get_size()
        factor = min(width / max(1, w), height / max(1, h))
        size = (max(1, int(w * factor)), max(1, int(h * factor)))
        try:
            scaled = pygame.transform.smoothscale(image, size)
        except ValueError:  # smoothscale needs 24- or 32-bit pixels
            scaled = pygame.transform.scale(image, size)
        if len(self._images) >= 2 * MAX_PICTURES:  # a question's pictures: keep the recent
            self._images.clear()
        self._images[key] = (image, scaled)
        return scaled

    def picture(self, image: pygame.Surface, box: pygame.Rect) -> None:
        """``image`` scaled to fit ``box`` and centred in it."""
        scaled = self.scaled(image, box.width, box.height)
        self.surface.blit(scaled, scaled.get_rect(center=box.center))

    def note_icon(self, box: pygame.Rect, colour: RGB) -> None:
        """A quaver drawn with shapes (the bundled font has no ♪), centred in ``box``."""
        side = min(box.width, box.height) * 9 // 10
        if side < 12:
            return
        unit = side / 10
        left = box.centerx - round(2.5 * unit)
        top = box.centery - side // 2
        head = pygame.Rect(left, top + round(7 * unit), round(4 * unit), round(3 * unit))
        pygame.draw.ellipse(self.surface, colour, head)
        stem_x = head.right - max(2, round(0.8 * unit))
        stem = pygame.Rect(stem_x, top, max(2, round(0.8 * unit)), round(8.5 * unit))
        self.surface.fill(colour, stem)
        flag = [
            (stem.right, top),
            (stem.right + round(3.5 * unit), top + round(3 * unit)),
            (stem.right + round(3 * unit), top + round(4.5 * unit)),
            (stem.right, top + round(2.2 * unit)),
        ]
        pygame.draw.polygon(self.surface, colour, flag)

    def qr(self, url: str, side: int) -> pygame.Surface:
        """``url`` as a QR code at most ``side`` pixels square (kept per address and size)."""
        key = (url, side)
        image = self._qr.get(key)
        if image is None:
            image = qr_surface(qr_code(url), side)
            self._qr[key] = image
        return image


def text_budget(surface: pygame.Surface) -> int:
    """The bytes of rendered text kept for a target: :data:`TEXT_SCREENS` of its pixels."""
    width, height = surface.get_size()
    return TEXT_SCREENS * 4 * max(1, width) * max(1, height)


def qr_code(url: str) -> QrCode:
    """An address as a QR code: level M, a phone reads it from across a room."""
    return encode(url, Level.M)


def qr_surface(code: QrCode, side: int) -> pygame.Surface:
    """``code`` drawn black on white with its 4-module quiet zone, at most ``side`` pixels
    square, a whole number of pixels per module (so every module is sharp)."""
    modules = code.size + 8
    scale = max(1, side // modules)
    image = pygame.Surface((modules * scale, modules * scale))
    image.fill(palette.QR_LIGHT)
    for y, row in enumerate(code.modules):
        for x, dark in enumerate(row):
            if dark:
                image.fill(palette.QR_DARK, ((x + 4) * scale, (y + 4) * scale, scale, scale))
    return image
