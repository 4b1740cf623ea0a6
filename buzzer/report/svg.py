"""The report's pictures: inline SVG strings drawn from the model, in the board's palette.

Drawn by hand rather than by a plotting library: each picture is a few
dozen rects, lines, circles and texts on a fixed grid, and a library
(matplotlib, plotly, pygal) would add tens of megabytes to the install —
or a script to the page — for nothing the report needs. Hand-written SVG
also stays byte-stable, so the golden files in ``tests/golden/report/`` only
move when a picture does.

Every text that comes from the journal or its package (players' names,
round names) is hostile input: it goes through :func:`esc` (control
characters made visible by :func:`buzzer.terminal.shown`, then XML-escaped),
never into an attribute or an element unescaped. The colours are the
board's own (:mod:`display.palette`), turned into ``#rrggbb`` here — no hex
value is written twice.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Final

from buzzer.report.model import Mark, Player, Point, Question, Report
from buzzer.report.words import duration_text, number, signed, words
from buzzer.terminal import shown
from display import palette


def colour(rgb: palette.RGB) -> str:
    """A palette colour as CSS/SVG writes it."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)


BACKGROUND: Final = colour(palette.BACKGROUND)
BAND: Final = colour(palette.HEADER)
TRACK: Final = colour(palette.BAR_TRACK)
WINDOW: Final = colour(palette.BAR_WINDOW)
GOLD: Final = colour(palette.GOLD)
WHITE: Final = colour(palette.WHITE)
MUTED: Final = colour(palette.MUTED)
DIM: Final = colour(palette.DIM)
RED: Final = colour(palette.LAMP_FALSE_START)
RED_DIM: Final = colour(palette.RED_DIM)
GREEN: Final = colour(palette.GREEN)
ORANGE: Final = colour(palette.ORANGE)

#: One colour per seat in the score chart (cycled past eight players).
SERIES: Final = tuple(
    colour(c)
    for c in (
        palette.GOLD,
        palette.BAR_WINDOW,
        palette.GREEN,
        palette.ORANGE,
        palette.WHITE,
        palette.RED,
        palette.LAMP_ON,
        palette.MUTED,
    )
)

FONT: Final = 'font-family="DejaVu Sans, Arial, sans-serif"'
WIDTH: Final = 720


def esc(text: object, limit: int | None = None) -> str:
    """Text from the journal or a package, safe inside SVG/HTML (and cut to ``limit``)."""
    value = shown(text)
    if limit is not None and len(value) > limit:
        value = value[: limit - 1] + "…"
    return html.escape(value, quote=True)


def seat_colour(seat: int) -> str:
    return SERIES[(seat - 1) % len(SERIES)]


def _num(x: float) -> str:
    """A coordinate: at most one decimal, no trailing zeros (stable output)."""
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _step(span: float, target: int = 6) -> float:
    """A round tick step giving about ``target`` ticks over ``span``."""
    raw = span / target if span > 0 else 1.0
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return float(m * power)
    return float(10 * power)


def _ticks(lo: float, hi: float, target: int = 6) -> list[float]:
    step = _step(hi - lo, target)
    first = math.ceil(lo / step)
    last = math.floor(hi / step)
    return [round(k * step, 9) for k in range(first, last + 1)]


def _svg(width: int, height: int, label: str, body: Sequence[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{label}" {FONT}>\n'
        + "\n".join(body)
        + "\n</svg>"
    )


# -- the press timeline of a question ---------------------------------------------------

ROW: Final = 22
GUTTER: Final = 132
TOP: Final = 22
AXIS: Final = 26


def _tick_label(t: float, lang: str) -> str:
    if t == 0:
        return "0"
    text = f"{abs(t):.3f}".rstrip("0").rstrip(".")
    return f"{'−' if t < 0 else ''}{text} {words(lang)['sec']}"


def _domain(q: Question) -> tuple[float, float]:
    values = [0.0]
    late = False
    for m in q.marks:
        values.append(m.t)
        if m.locked_until is not None:
            values.append(m.locked_until)
        late = late or m.kind == "late"
    for w in q.windows:
        values.append(w.opened)
        if late or not q.marks or w.empty:
            values.append(w.closes)
    lo, hi = min(values), max(values)
    if hi - lo < 0.5:
        hi = lo + 0.5 if lo < 0 else max(hi, 0.5)
    pad = (hi - lo) * 0.06
    return lo - pad, hi + pad


def press_timeline(q: Question, names: Sequence[str], lang: str) -> str:
    """One question's presses: a row per seat, the signal at 0, every press at its stamp.

    The press window is a band; a false start's lockout a red span; the
    winner's mark is gold with its verdict and its margin beside it."""
    table = words(lang)
    seats = len(names)
    height = TOP + seats * ROW + AXIS
    lo, hi = _domain(q)
    right = WIDTH - 16

    def x(t: float) -> float:
        return GUTTER + (t - lo) / (hi - lo) * (right - GUTTER)

    def y(seat: int) -> float:
        return TOP + (seat - 0.5) * ROW

    body = [f'<rect width="{WIDTH}" height="{height}" fill="{BACKGROUND}"/>']
    bottom = TOP + seats * ROW
    for w in q.windows:
        x0, x1 = max(x(w.opened), GUTTER), min(x(w.closes), right)
        if x1 > x0:
            body.append(
                f'<rect x="{_num(x0)}" y="{TOP}" width="{_num(x1 - x0)}" '
                f'height="{seats * ROW}" fill="{TRACK}"/>'
                f'<line x1="{_num(x0)}" y1="{TOP}" x2="{_num(x1)}" y2="{TOP}" '
                f'stroke="{WINDOW}" stroke-width="2"/>'
            )
            if x(w.closes) > right and w is q.windows[-1]:
                # The window ends beyond the picture: say where, in words (not a press).
                until = table["window.until"].format(t=_tick_label(w.closes, lang))
                body.append(
                    f'<text class="until" x="{right - 2}" y="{TOP - 6}" font-size="10" '
                    f'fill="{WINDOW}" text-anchor="end">{esc(until)}</text>'
                )
    for seat in range(1, seats + 1):
        body.append(
            f'<line x1="{GUTTER}" y1="{_num(TOP + seat * ROW)}" x2="{right}" '
            f'y2="{_num(TOP + seat * ROW)}" stroke="{BAND}"/>'
            f'<text x="{GUTTER - 8}" y="{_num(y(seat) + 4)}" font-size="12" fill="{WHITE}" '
            f'text-anchor="end">{esc(names[seat - 1], 18)}</text>'
        )
    for t in _ticks(lo, hi):
        body.append(
            f'<line x1="{_num(x(t))}" y1="{bottom}" x2="{_num(x(t))}" y2="{bottom + 4}" '
            f'stroke="{MUTED}"/><text x="{_num(x(t))}" y="{bottom + 16}" font-size="10" '
            f'fill="{MUTED}" text-anchor="middle">{esc(_tick_label(t, lang))}</text>'
        )
    zero = x(0.0)
    body.append(
        f'<line x1="{_num(zero)}" y1="{TOP - 4}" x2="{_num(zero)}" y2="{bottom}" '
        f'stroke="{GOLD}" stroke-width="2"/><text x="{_num(zero + 3)}" y="{TOP - 8}" '
        f'font-size="11" fill="{GOLD}">{esc(table["zero." + q.zero])}</text>'
    )
    for m in q.marks:
        if m.kind == "false_start" and m.locked_until is not None and 1 <= m.seat <= seats:
            x0, x1 = x(m.t), min(x(m.locked_until), right)
            body.append(
                f'<rect x="{_num(x0)}" y="{_num(y(m.seat) - 3)}" width="{_num(max(x1 - x0, 1))}" '
                f'height="6" fill="{RED_DIM}"/>'
            )
    for m in q.marks:
        if 1 <= m.seat <= seats:
            body.append(_mark(m, x(m.t), y(m.seat)))
    for a in q.attempts:
        if not a.pressed or not 1 <= a.seat <= seats:
            continue
        label = _verdict_label(a.verdict, a.delta, table)
        if a.margin_us is not None:
            label += f" · Δ {duration_text(a.margin_us, lang)}"
        colour_ = GREEN if a.verdict == "right" else RED if a.verdict == "wrong" else MUTED
        others = [x(m.t) for m in q.marks if m.seat == a.seat and abs(m.t - a.t) > 1e-9]
        x0 = _label_x(x(a.t), _text_width(label, 11), others, GUTTER, right)
        width = _text_width(label, 11)
        # Beside its mark, in the middle of its own row: no row line, no window edge
        # runs through it; a backing keeps it readable over the window's band.
        body.append(
            f'<rect x="{_num(x0 - 3)}" y="{_num(y(a.seat) - 8)}" width="{_num(width + 6)}" '
            f'height="16" rx="3" fill="{BACKGROUND}" fill-opacity="0.85"/>'
            f'<text class="verdict" x="{_num(x0)}" y="{_num(y(a.seat) + 4)}" font-size="11" '
            f'fill="{colour_}">{esc(label)}</text>'
        )
    return _svg(WIDTH, height, esc(table["questions.title"]), body)


def _text_width(text: str, size: float) -> float:
    """A generous estimate of a label's width in DejaVu Sans (no font metrics here)."""
    return len(text) * size * 0.64


def _label_x(at: float, width: float, others: Sequence[float], lo: float, hi: float) -> float:
    """Where a label beside the mark at ``at`` starts: right of it, else left of it —
    the first side that fits the picture and covers none of the row's other marks."""
    sides = [at + 10, at - 10 - width]
    fits = [s for s in sides if lo <= s and s + width <= hi] or [min(max(sides[0], lo), hi - width)]
    for start in fits:
        if not any(start - 6 <= o <= start + width + 6 for o in others):
            return start
    return fits[0]


def _verdict_label(verdict: str | None, delta: int | None, table: dict[str, str]) -> str:
    if verdict == "right":
        return f"✓ {signed(delta or 0)}"
    if verdict == "wrong":
        return f"✗ {signed(delta or 0)}"
    if verdict == "free":
        return "✗ ±0"
    return table["verdict.none"]


def _mark(m: Mark, cx: float, cy: float) -> str:
    """One press, by its kind (the legend draws the same shapes)."""
    return mark_shape(m.kind, cx, cy)


def mark_shape(kind: str, cx: float, cy: float) -> str:
    x_, y_ = _num(cx), _num(cy)
    if kind in ("won", "early"):
        fill = GOLD if kind == "won" else ORANGE
        return (
            f'<circle cx="{x_}" cy="{y_}" r="6" fill="{fill}" stroke="{WHITE}" stroke-width="1.5"/>'
        )
    if kind == "behind":
        return f'<circle cx="{x_}" cy="{y_}" r="4.5" fill="{WHITE}"/>'
    if kind == "false_start":
        a, b = _num(cx - 5), _num(cx + 5)
        c, d = _num(cy - 5), _num(cy + 5)
        return f'<path d="M{a} {c}L{b} {d}M{a} {d}L{b} {c}" stroke="{RED}" stroke-width="2.5"/>'
    if kind == "locked":
        return f'<circle cx="{x_}" cy="{y_}" r="4" fill="none" stroke="{RED}" stroke-width="2"/>'
    if kind == "late":
        return f'<circle cx="{x_}" cy="{y_}" r="4" fill="none" stroke="{MUTED}" stroke-width="2"/>'
    return f'<circle cx="{x_}" cy="{y_}" r="3" fill="{DIM}"/>'


def legend(lang: str) -> str:
    """The marks' legend, drawn once above the questions."""
    table = words(lang)
    items = ["won", "behind", "early", "false_start", "locked", "late", "other"]
    # Three columns of 240 px: the longest label («в заблокированную кнопку») fits.
    columns, step, height = 3, 240, 70
    body = [f'<rect width="{WIDTH}" height="{height}" fill="{BACKGROUND}"/>']
    body.append(
        f'<rect x="10" y="6" width="26" height="12" fill="{TRACK}"/>'
        f'<line x1="10" y1="6" x2="36" y2="6" stroke="{WINDOW}" stroke-width="2"/>'
        f'<text x="42" y="16" font-size="11" fill="{WHITE}">{esc(table["legend.window"])}</text>'
    )
    for i, kind in enumerate(items):
        col, row = (i + 1) % columns, (i + 1) // columns
        cx, cy = 20 + col * step, 12 + row * 22
        if kind == "false_start":
            body.append(f'<rect x="{cx}" y="{cy - 3}" width="18" height="6" fill="{RED_DIM}"/>')
        body.append(mark_shape(kind, cx, cy))
        body.append(
            f'<text x="{cx + 22}" y="{cy + 4}" font-size="11" fill="{WHITE}">'
            f"{esc(table['legend.' + kind])}</text>"
        )
    return _svg(WIDTH, height, "legend", body)


# -- the score over the game ------------------------------------------------------------


def score_chart(report: Report, lang: str) -> str:
    """Every seat's score after each question (and the bonus contest, the final):
    rounds as bands named at the top, specials and the final named under their point."""
    table = words(lang)
    points = report.points
    names = [p.name for p in report.stats]
    left, right, top, bottom = 56, WIDTH - 150, 26, 46
    n = max(len(points) - 1, 1)

    def x(i: int) -> float:
        return left + i / n * (right - left)

    numbers, specials, rows = _chart_labels([x(i) for i in range(len(points))], points, table)
    height = 280 + 12 * (rows - 1)  # a row of labels more for each stagger
    bottom += 12 * (rows - 1)
    plot_bottom = height - bottom
    values = [v for p in points for v in p.scores] + [0]
    low, high = min(values), max(values)
    if high == low:
        high = low + 100
    pad = (high - low) * 0.08
    lo, hi = low - pad, high + pad

    def y(v: float) -> float:
        return top + (hi - v) / (hi - lo) * (plot_bottom - top)

    body = [f'<rect width="{WIDTH}" height="{height}" fill="{BACKGROUND}"/>']
    rounds = report.rounds
    for k, rnd in enumerate(rounds):
        start = x(rnd.first_point)
        end = x(rounds[k + 1].first_point) if k + 1 < len(rounds) else right
        if k % 2 == 0:
            body.append(
                f'<rect x="{_num(start)}" y="{top}" width="{_num(max(end - start, 0))}" '
                f'height="{plot_bottom - top}" fill="{BAND}"/>'
            )
        body.append(
            f'<line x1="{_num(start)}" y1="{top - 4}" x2="{_num(start)}" y2="{plot_bottom}" '
            f'stroke="{MUTED}" stroke-dasharray="3 3"/><text x="{_num(start + 4)}" '
            f'y="{top - 8}" font-size="11" fill="{MUTED}">{esc(rnd.name, 24)}</text>'
        )
    for v in _ticks(lo, hi, 5):
        body.append(
            f'<line x1="{left}" y1="{_num(y(v))}" x2="{right}" y2="{_num(y(v))}" '
            f'stroke="{TRACK}"/><text x="{left - 6}" y="{_num(y(v) + 4)}" font-size="10" '
            f'fill="{MUTED}" text-anchor="end">{esc(number(round(v)))}</text>'
        )
    body.append(
        f'<line x1="{left}" y1="{_num(y(0))}" x2="{right}" y2="{_num(y(0))}" stroke="{MUTED}"/>'
    )
    for i, label in numbers:
        body.append(
            f'<text x="{_num(x(i))}" y="{plot_bottom + 14}" font-size="10" fill="{MUTED}" '
            f'text-anchor="middle">{esc(label)}</text>'
        )
    for i, fill, row in specials:
        body.append(
            f'<text x="{_num(x(i))}" y="{plot_bottom + 28 + 12 * row}" font-size="10" '
            f'fill="{ORANGE if points[i].kind == "question" else GOLD}" '
            f'text-anchor="middle">{esc(fill)}</text>'
        )
    ends: list[tuple[float, int]] = []
    for seat in range(1, len(names) + 1):
        stroke = seat_colour(seat)
        coords = " ".join(
            f"{_num(x(i))},{_num(y(p.scores[seat - 1]))}" for i, p in enumerate(points)
        )
        body.append(
            f'<polyline points="{coords}" fill="none" stroke="{stroke}" stroke-width="2.5" '
            f'stroke-linejoin="round"/>'
        )
        for i, p in enumerate(points):
            body.append(
                f'<circle cx="{_num(x(i))}" cy="{_num(y(p.scores[seat - 1]))}" r="2.5" '
                f'fill="{stroke}"/>'
            )
        ends.append((y(points[-1].scores[seat - 1]), seat))
    # The names at the right end, spread so that equal scores do not overprint.
    placed: list[float] = []
    for end_y, seat in sorted(ends):
        at = max([end_y] + [p + 14 for p in placed[-1:]])
        placed.append(at)
        score = number(points[-1].scores[seat - 1])
        body.append(
            f'<text x="{right + 8}" y="{_num(at + 4)}" font-size="11" '
            f'fill="{seat_colour(seat)}">{esc(names[seat - 1], 14)} {esc(score)}</text>'
        )
    return _svg(WIDTH, height, esc(table["scores.title"]), body)


def _chart_labels(
    xs: Sequence[float], points: Sequence[Point], table: dict[str, str]
) -> tuple[list[tuple[int, str]], list[tuple[int, str, int]], int]:
    """The labels under the chart, none running into another: the questions' numbers
    (one left out where it would touch the one before), and the specials, the bonus
    and the final on the second line, staggered down a row where they would touch
    («кот» and «спонс.» on adjacent questions). Returns the numbers (point, text),
    the second line's (point, text, row) and how many rows it takes."""
    numbers: list[tuple[int, str]] = []
    specials: list[tuple[int, str, int]] = []
    last_number = -math.inf
    ends: list[float] = []  # each row's rightmost end so far
    for i, p in enumerate(points):
        label, fill = _point_label(p.kind, p.number, p.special, table)
        half = _text_width(label, 10) / 2
        if label and xs[i] - half >= last_number + 3:
            numbers.append((i, label))
            last_number = xs[i] + half
        if fill:
            half = _text_width(fill, 10) / 2
            row = next((k for k, end in enumerate(ends) if xs[i] - half >= end + 3), len(ends))
            if row == len(ends):
                ends.append(-math.inf)
            ends[row] = xs[i] + half
            specials.append((i, fill, row))
    return numbers, specials, max(len(ends), 1)


def _point_label(
    kind: str, number_: int | None, special: str | None, table: dict[str, str]
) -> tuple[str, str]:
    """A chart point's label under the axis, and its second line (a special, the final)."""
    if kind == "start":
        return "", table["chart.start"]
    if kind == "question":
        return str(number_), table.get(f"chart.{special}", "") if special else ""
    return "", table.get(f"chart.{kind}", kind)


# -- a player's reaction times ------------------------------------------------------------

BINS: Final = 20
BIN_US: Final = 100_000


def reaction_histogram(player: Player, lang: str) -> str:
    """A player's reaction times in 100 ms bins over 0–2 s (longer ones in the last bin);
    the median as a white line, the best as a green tick."""
    width, height, base = 220, 56, 40
    counts = [0] * BINS
    for us in player.reactions_us:
        counts[min(us // BIN_US, BINS - 1)] += 1
    peak = max(counts) or 1
    bar = (width - 20) / BINS
    body = [f'<rect width="{width}" height="{height}" fill="{BACKGROUND}"/>']
    for i, c in enumerate(counts):
        if c:
            h = c / peak * (base - 6)
            body.append(
                f'<rect x="{_num(10 + i * bar + 0.5)}" y="{_num(base - h)}" '
                f'width="{_num(bar - 1)}" height="{_num(h)}" fill="{GOLD}"/>'
            )
    body.append(f'<line x1="10" y1="{base}" x2="{width - 10}" y2="{base}" stroke="{MUTED}"/>')
    unit = words(lang)["sec"]
    for sec, anchor in ((0, "start"), (1, "middle"), (2, "end")):
        body.append(
            f'<text x="{_num(10 + sec * BINS / 2 * bar)}" y="{base + 12}" font-size="9" '
            f'fill="{MUTED}" text-anchor="{anchor}">{sec} {esc(unit)}</text>'
        )

    def at(us: int) -> float:
        return 10 + min(us / BIN_US, BINS) * bar

    if player.median_us is not None:
        body.append(
            f'<line x1="{_num(at(player.median_us))}" y1="4" x2="{_num(at(player.median_us))}" '
            f'y2="{base}" stroke="{WHITE}" stroke-width="1.5"/>'
        )
    if player.best_us is not None:
        body.append(
            f'<line x1="{_num(at(player.best_us))}" y1="{base}" x2="{_num(at(player.best_us))}" '
            f'y2="{base + 4}" stroke="{GREEN}" stroke-width="3"/>'
        )
    return _svg(width, height, esc(player.name), body)
