"""Fonts, text that fits its box, and a cache of rendered text.

The default font is pygame's bundled one (``pygame.font.Font(None, size)``,
GNU FreeSans Bold, which covers Cyrillic); a TTF path can be configured
instead. Fitting picks the largest size at which the text, word-wrapped,
fits both the width and the height of its box; at the smallest size a text
that still does not fit is cut with an ellipsis, so text never overflows.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import pygame

from display.palette import RGB

ELLIPSIS = "…"
MIN_FONT = 6


#: Font sizes kept open (least recently used closed first). Each open size holds its
#: FreeType face and SDL_ttf's cache of rendered glyphs, 0.1–0.5 MB; fitting texts
#: tries many sizes, and a whole game at 1920×1080 uses about 30.
MAX_FONTS = 32


class Fonts:
    """Font objects by size, opened when first asked for, and the measures of rendered lines.

    At most ``capacity`` sizes are kept open, the least recently used dropped
    first: a size asked for again is opened again, and draws the same.
    """

    def __init__(self, path: str | None = None, capacity: int = MAX_FONTS) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self.path = path
        self.capacity = capacity
        self._fonts: OrderedDict[int, pygame.font.Font] = OrderedDict()

    def __len__(self) -> int:
        """How many sizes are open."""
        return len(self._fonts)

    def get(self, size: int) -> pygame.font.Font:
        size = max(MIN_FONT, int(size))
        font = self._fonts.get(size)
        if font is None:
            font = pygame.font.Font(self.path, size)
            self._fonts[size] = font
            if len(self._fonts) > self.capacity:
                self._fonts.popitem(last=False)
        else:
            self._fonts.move_to_end(size)
        return font

    def line_height(self, size: int) -> int:
        """The step from one line's baseline to the next."""
        return self.get(size).get_linesize()

    def width(self, text: str, size: int) -> int:
        return self.get(size).size(text)[0]

    def extent(self, line: str, size: int) -> tuple[int, int]:
        """(above, height) of ``line`` as ``Font.render`` draws it.

        SDL_ttf grows the surface for glyphs that reach above the font's
        ascent (Ё, Й) or below its descent, and moves the baseline down by
        what sticks out above: ``above``. ``height`` is the surface's height.
        """
        font = self.get(size)
        linesize = font.get_linesize()
        if not line:
            return 0, linesize
        ascent = font.get_ascent()
        descent = -font.get_descent()
        metrics = [m for m in font.metrics(line) if m is not None]
        above = max(0, max((m[3] for m in metrics), default=0) - ascent)
        below = max(0, -min((m[2] for m in metrics), default=0) - descent)
        return above, max(linesize, ascent + above + descent + below)


@dataclass(frozen=True, slots=True)
class Fitted:
    """Text laid out in a box: the font size, the lines, where each line's surface goes."""

    size: int
    lines: tuple[str, ...]
    #: The baseline-to-baseline step.
    line_height: int
    #: The top of each line's rendered surface, from the top of the block.
    offsets: tuple[int, ...] = ()
    #: The height of the whole block as rendered.
    height: int = 0


def block(fonts: Fonts, lines: list[str] | tuple[str, ...], size: int) -> Fitted:
    """Lines stacked at the font's line step, baselines aligned, measured as rendered."""
    step = fonts.line_height(size)
    tops: list[int] = []
    bottom = 0
    for i, line in enumerate(lines):
        above, height = fonts.extent(line, size)
        top = i * step - above
        tops.append(top)
        bottom = max(bottom, top + height)
    first = min(tops, default=0)
    offsets = tuple(t - first for t in tops)
    return Fitted(size, tuple(lines), step, offsets, bottom - first if lines else 0)


def _break_word(fonts: Fonts, word: str, size: int, width: int) -> list[str]:
    """A word wider than the line, cut into pieces that fit (no hyphenation)."""
    pieces: list[str] = []
    rest = word
    while rest:
        low, high = 1, len(rest)
        while low < high:  # the longest prefix that fits (at least one character)
            mid = (low + high + 1) // 2
            if fonts.width(rest[:mid], size) <= width:
                low = mid
            else:
                high = mid - 1
        pieces.append(rest[:low])
        rest = rest[low:]
    return pieces


def wrap(fonts: Fonts, text: str, size: int, width: int) -> list[str]:
    """Greedy word wrap at ``size``; paragraphs (``\\n``) start new lines.

    Every line is at most ``width`` wide, except a single character wider
    than the whole box (then nothing can fit and :func:`fit` gives up).
    """
    lines: list[str] = []
    space = fonts.width(" ", size)
    for paragraph in text.split("\n"):
        words = paragraph.split()
        line = ""
        line_w = 0
        for word in words:
            word_w = fonts.width(word, size)
            if word_w > width:
                if line:
                    lines.append(line)
                pieces = _break_word(fonts, word, size, width)
                lines.extend(pieces[:-1])
                line = pieces[-1]
                line_w = fonts.width(line, size)
                continue
            if not line:
                line, line_w = word, word_w
            elif line_w + space + word_w <= width:
                line = f"{line} {word}"
                line_w = fonts.width(line, size)
            else:
                lines.append(line)
                line, line_w = word, word_w
        lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _fits(fonts: Fonts, lines: list[str], size: int, width: int, height: int) -> bool:
    if fonts.line_height(size) * (len(lines) - 1) >= height:
        return False
    if not all(fonts.width(line, size) <= width for line in lines):
        return False
    return block(fonts, lines, size).height <= height


def truncate(fonts: Fonts, text: str, size: int, width: int) -> str:
    """``text`` cut to ``width`` with an ellipsis (empty if not even that fits)."""
    if fonts.width(text, size) <= width:
        return text
    low, high = 0, len(text)
    while low < high:
        mid = (low + high + 1) // 2
        if fonts.width(text[:mid].rstrip() + ELLIPSIS, size) <= width:
            low = mid
        else:
            high = mid - 1
    if low == 0:
        return ELLIPSIS if fonts.width(ELLIPSIS, size) <= width else ""
    return text[:low].rstrip() + ELLIPSIS


def fit(
    fonts: Fonts,
    text: str,
    width: int,
    height: int,
    max_size: int,
    min_size: int = 12,
    max_lines: int | None = None,
) -> Fitted:
    """The largest size ≤ ``max_size`` at which ``text`` fits the box when wrapped.

    If it does not fit even at ``min_size``, the lines that fit are kept and
    the last of them ends with an ellipsis. The result never overflows:
    every line is at most ``width`` wide and all lines together at most
    ``height`` high.
    """
    min_size = max(MIN_FONT, min(min_size, max_size))
    if width <= 0 or height <= 0 or not text.strip():
        return block(fonts, (), min_size)

    def layout(size: int) -> list[str] | None:
        lines = wrap(fonts, text, size, width)
        if max_lines is not None and len(lines) > max_lines:
            return None
        return lines if _fits(fonts, lines, size, width, height) else None

    best: tuple[int, list[str]] | None = None
    low, high = min_size, max(min_size, max_size)
    while low <= high:
        mid = (low + high) // 2
        lines = layout(mid)
        if lines is not None:
            best = (mid, lines)
            low = mid + 1
        else:
            high = mid - 1
    if best is not None:
        return block(fonts, best[1], best[0])
    # Too long even at the smallest size: keep the lines that fit, end with an ellipsis.
    size = min_size
    lines = wrap(fonts, text, size, width)
    room = height // fonts.line_height(size) + 1
    if max_lines is not None:
        room = min(room, max_lines)
    kept = [line if fonts.width(line, size) <= width else "" for line in lines[:room]]
    cut = len(lines) > len(kept)
    while kept:
        if cut:
            kept[-1] = truncate(fonts, kept[-1].rstrip() + ELLIPSIS, size, width)
        fitted = block(fonts, kept, size)
        if fitted.height <= height:
            return fitted
        kept.pop()
        cut = True
    return block(fonts, (), size)


def fit_line(
    fonts: Fonts, text: str, width: int, height: int, max_size: int, min_size: int = 10
) -> Fitted:
    """One line: the largest size that fits, else cut with an ellipsis at ``min_size``."""
    min_size = max(MIN_FONT, min(min_size, max_size))
    size = max(min_size, max_size)
    if width <= 0 or height <= 0 or not text:
        return block(fonts, (), min_size)
    # Text width and height grow almost linearly with the size: scale the guess
    # down to the box, then walk down to a size that really fits.
    _, tall = fonts.extent(text, size)
    if tall > height:
        size = max(min_size, min(size - 1, size * height // tall))
    w = fonts.width(text, size)
    if w > width:
        size = max(min_size, min(size, size * width // w))
    while size > min_size:
        fitted = block(fonts, (text,), size)
        if fitted.height <= height and fonts.width(text, size) <= width:
            return fitted
        size -= 1
    fitted = block(fonts, (truncate(fonts, text, size, width),), size)
    if fitted.height > height or not fitted.lines[0]:
        return block(fonts, (), size)
    return fitted


class TextCache:
    """Rendered text surfaces, least recently used dropped first.

    A surface rendered onto a known background colour is opaque (fast to
    blit); one without is per-pixel alpha. Both are converted to the
    display's format once a display mode is set.

    At most ``capacity`` surfaces and ``max_bytes`` of pixels are kept (the
    newest always is): a question's line at 1920×1080 is half a megabyte, so
    a count alone let a whole game's questions pile up (500 MB at 1024 lines).
    """

    def __init__(self, fonts: Fonts, capacity: int = 1024, max_bytes: int | None = None) -> None:
        self.fonts = fonts
        self.capacity = capacity
        #: The most bytes of pixels kept (None: no limit but ``capacity``).
        self.max_bytes = max_bytes
        self._surfaces: OrderedDict[tuple[str, int, RGB, RGB | None], pygame.Surface] = (
            OrderedDict()
        )
        #: The bytes of pixels of the surfaces kept.
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        """How many surfaces are kept."""
        return len(self._surfaces)

    def render(
        self, text: str, size: int, color: RGB, background: RGB | None = None
    ) -> pygame.Surface:
        key = (text, size, color, background)
        surface = self._surfaces.get(key)
        if surface is not None:
            self._surfaces.move_to_end(key)
            self.hits += 1
            return surface
        self.misses += 1
        font = self.fonts.get(size)
        if background is None:
            surface = font.render(text, True, color)
            if pygame.display.get_surface() is not None:
                surface = surface.convert_alpha()
        else:
            surface = font.render(text, True, color, background)
            if pygame.display.get_surface() is not None:
                surface = surface.convert()
        self._surfaces[key] = surface
        self.bytes += _size(surface)
        self.trim()
        return surface

    def trim(self) -> None:
        """Drop the least recently used surfaces down to the limits (never the newest)."""
        surfaces = self._surfaces
        limit = self.max_bytes
        while len(surfaces) > 1 and (
            len(surfaces) > self.capacity or (limit is not None and self.bytes > limit)
        ):
            self.bytes -= _size(surfaces.popitem(last=False)[1])

    def clear(self) -> None:
        self._surfaces.clear()
        self.bytes = 0


def _size(surface: pygame.Surface) -> int:
    """The bytes of a surface's pixels."""
    return surface.get_pitch() * surface.get_height()
