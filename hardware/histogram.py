"""The self-test's latency histogram as a PNG, drawn with pygame (no display needed).

One row per button on a shared time axis: the bars, the median (dark line)
and the p99 (orange line). Samples beyond the axis are counted in the last
bar, which is then drawn in red. A legend under the axis says which colour
is which and what the axis counts, so that the picture can be read without
the report beside it (a technician sends it to whoever built the rig).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path

WIDTH = 960
LEFT = 215
RIGHT = 30
TOP = 56
ROW = 74
BOTTOM = 78
BINS = 60
#: The legend's row, measured from the image's bottom edge, and its slots.
LEGEND_FROM_BOTTOM = 22
LEGEND_LEFT = 12
LEGEND_SLOT = 230
SWATCH = (18, 10)

_BG = (255, 255, 255)
_INK = (30, 30, 30)
_GRID = (225, 225, 225)
_BAR = (52, 101, 164)
_OVER = (204, 0, 0)
_MEDIAN = (20, 20, 20)
_P99 = (237, 125, 0)


def legend(unit: str = "µs") -> tuple[tuple[str, tuple[int, int, int], str], ...]:
    """The legend's entries: (label, colour, ``bar`` or ``line``), in drawing order."""
    return (
        (f"presses per bin (x: latency, {unit})", _BAR, "bar"),
        ("beyond the axis (last bar)", _OVER, "bar"),
        ("median", _MEDIAN, "line"),
        ("p99", _P99, "line"),
    )


def legend_swatches(
    height: int, unit: str = "µs"
) -> list[tuple[str, tuple[int, int, int], tuple[int, int, int, int]]]:
    """Where each legend swatch is drawn in an image ``height`` tall: (label, colour, rect).

    Fixed slots rather than positions measured from the rendered text, so that
    the layout does not depend on the font (and a test can find the swatches).
    """
    y = height - LEGEND_FROM_BOTTOM
    width, tall = SWATCH
    swatches = []
    for index, (label, colour, shape) in enumerate(legend(unit)):
        x = LEGEND_LEFT + index * LEGEND_SLOT
        # A bar's swatch is a small block; a line's is a short 2 px line, as on the rows.
        bar = (x, y, width, tall)
        line = (x + width // 2 - 1, y - 2, 2, tall + 4)
        rect = bar if shape == "bar" else line
        swatches.append((label, colour, rect))
    return swatches


def _nice_step(span: float, ticks: int = 6) -> float:
    raw = span / ticks
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


def _quantile(ordered: Sequence[float], q: float) -> float:
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def write_histogram(
    path: str | Path,
    series: Sequence[tuple[str, Sequence[float]]],
    title: str,
    unit: str = "µs",
) -> tuple[int, int]:
    """Draw ``series`` (label, samples) and save a PNG at ``path``; returns (width, height)."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    pygame.font.init()
    font = pygame.font.Font(None, 20)
    small = pygame.font.Font(None, 17)
    big = pygame.font.Font(None, 26)

    rows = [(label, sorted(samples)) for label, samples in series]
    height = TOP + ROW * max(1, len(rows)) + BOTTOM
    surface = pygame.Surface((WIDTH, height))
    surface.fill(_BG)
    surface.blit(big.render(title, True, _INK), (12, 14))

    tops = [_quantile(s, 0.99) for _, s in rows if s]
    x_max = max(tops) * 1.25 if tops and max(tops) > 0 else 1.0
    step = _nice_step(x_max)
    x_max = step * math.ceil(x_max / step)
    plot_w = WIDTH - LEFT - RIGHT

    def x_of(value: float) -> int:
        return LEFT + round(min(value, x_max) / x_max * plot_w)

    tick = 0.0
    while tick <= x_max + 1e-9:
        x = x_of(tick)
        pygame.draw.line(surface, _GRID, (x, TOP), (x, height - BOTTOM))
        text = small.render(f"{tick:g}", True, _INK)
        surface.blit(text, (x - text.get_width() // 2, height - BOTTOM + 6))
        tick += step
    axis = font.render(f"latency, {unit}", True, _INK)
    surface.blit(axis, (WIDTH - RIGHT - axis.get_width(), height - BOTTOM + 24))
    for label, colour, rect in legend_swatches(height, unit):
        pygame.draw.rect(surface, colour, rect)
        text = small.render(label, True, _INK)
        surface.blit(text, (rect[0] + SWATCH[0] + 6, height - LEGEND_FROM_BOTTOM - 1))

    bin_w = x_max / BINS
    for index, (label, samples) in enumerate(rows):
        top = TOP + index * ROW
        base = top + ROW - 10
        pygame.draw.line(surface, _INK, (LEFT, base), (WIDTH - RIGHT, base))
        surface.blit(font.render(label, True, _INK), (12, top + 12))
        if not samples:
            surface.blit(small.render("no samples", True, _OVER), (12, top + 34))
            continue
        median = _quantile(samples, 0.5)
        p99 = _quantile(samples, 0.99)
        note = f"median {median:.1f}  p99 {p99:.1f} {unit}"
        surface.blit(small.render(note, True, _INK), (12, top + 34))
        counts = [0] * BINS
        for value in samples:
            counts[min(BINS - 1, max(0, int(value / bin_w)))] += 1
        over = sum(1 for v in samples if v > x_max)
        peak = max(counts)
        for b, count in enumerate(counts):
            if not count:
                continue
            bar_h = max(1, round(count / peak * (ROW - 22)))
            x0 = x_of(b * bin_w)
            x1 = x_of((b + 1) * bin_w)
            colour = _OVER if (b == BINS - 1 and over) else _BAR
            pygame.draw.rect(surface, colour, (x0 + 1, base - bar_h, max(1, x1 - x0 - 1), bar_h))
        for value, colour in ((median, _MEDIAN), (p99, _P99)):
            x = x_of(value)
            pygame.draw.line(surface, colour, (x, top + 6), (x, base), 2)
    pygame.image.save(surface, str(path))
    return WIDTH, height
