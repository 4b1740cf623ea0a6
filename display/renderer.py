"""Draws scenes onto a surface, redrawing only what changed.

The screen is a set of widgets (header, clock, countdown bar, each podium,
the board grid, the question, the status line, …). Each frame every widget
gets a *key*: the exact data it would draw. A widget whose key and rectangle
are the same as last frame is not touched; the others are repainted and
their rectangles returned, for ``pygame.display.update(rects)``. A change of
screen (the game's stage) or of size repaints everything. Text is rendered
once per (text, size, colour, background) and kept (:class:`TextCache`);
the word-wrapping of long texts is kept per box.

So a frame whose snapshot did not change and where nothing animates costs
the computing of the keys only; a running countdown repaints a thin bar and
the digits; a press repaints a few podiums and the status line.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import pygame

from display import palette, view
from display import scene as screens
from display.i18n import DEFAULT_LANGUAGE, number, seconds_left, tr
from display.layout import Layout, Podium
from display.palette import RGB
from display.qr import Level, QrCode, encode
from display.scene import Scene, screen_kind
from display.text import Fitted, Fonts, TextCache, fit, fit_line

NS_PER_S = 1_000_000_000
#: Lines a theme name may wrap to on the board (then it shrinks).
THEME_LINES = 4
#: A question text up to this long under a picture is a caption: the picture gets more room.
SHORT_CAPTION = 60
#: Scaled pictures kept: a question's worth (display.media.MAX_IMAGES), twice over.
MAX_PICTURES = 8

Paint = Callable[[pygame.Rect, Any], None]


class Widget(NamedTuple):
    name: str
    rect: pygame.Rect
    key: Any
    paint: Paint


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


class Row(NamedTuple):
    """One line of a list screen (bidding, final themes, final answers, the ranking)."""

    left: str
    right: str
    tone: str
    highlight: bool = False
    struck: bool = False


class Renderer:
    """Draws :class:`Scene` objects onto ``surface`` (the display, or any Surface)."""

    def __init__(
        self, surface: pygame.Surface, lang: str = DEFAULT_LANGUAGE, font: str | None = None
    ) -> None:
        self.lang = lang
        self.fonts = Fonts(font)
        self.text = TextCache(self.fonts)
        self._fits: OrderedDict[tuple[Any, ...], Fitted] = OrderedDict()
        self._spans: OrderedDict[tuple[str, int], int] = OrderedDict()
        self._qr: dict[tuple[str, int], pygame.Surface] = {}
        #: (id of the source, width, height) → (the source, its scaled copy); the
        #: source is kept so that a new picture reusing a freed one's id is not
        #: taken for it.
        self._images: dict[tuple[int, int, int], tuple[pygame.Surface, pygame.Surface]] = {}
        self._podium_rects: dict[int, list[Podium]] = {}
        self.surface = surface
        self.layout = Layout(*surface.get_size())
        self._kind: str | None = None
        self._drawn: dict[str, tuple[pygame.Rect, Any]] = {}
        #: Widgets repainted by the last :meth:`draw` (for tests and the benchmark).
        self.repainted: list[str] = []

    # -- public ---------------------------------------------------------------

    def resize(self, surface: pygame.Surface) -> None:
        """A new target (a resized window, another resolution): lay out and repaint all."""
        self.surface = surface
        self.layout = Layout(*surface.get_size())
        self._fits.clear()
        self._images.clear()
        self._podium_rects.clear()
        self.invalidate()

    def invalidate(self) -> None:
        """Repaint everything on the next frame."""
        self._kind = None
        self._drawn = {}

    def animating(self, scene: Scene, now: int) -> bool:
        """Whether frames must keep coming although the scene does not change."""
        return view.animating(scene, now)

    def draw(self, scene: Scene, now: int | None = None) -> list[pygame.Rect]:
        """Bring the surface up to ``scene`` at game time ``now`` (ns); the changed rectangles."""
        if now is None:
            now = int((scene.snapshot or {}).get("now") or 0)
        kind = screen_kind(scene)
        widgets = self._widgets(kind, scene, now)
        surface = self.surface
        full = kind != self._kind
        if full:
            surface.fill(palette.BACKGROUND)
            self._drawn = {}
            self._kind = kind
        drawn = self._drawn
        dirty: list[pygame.Rect] = []
        repainted: list[str] = []
        seen: set[str] = set()
        for name, rect, key, paint in widgets:
            seen.add(name)
            old = drawn.get(name)
            if old is not None and old[1] == key and old[0] == rect:
                continue
            if old is not None and old[0] != rect:
                surface.fill(palette.BACKGROUND, old[0])
                dirty.append(old[0])
            paint(rect, key)
            drawn[name] = (rect, key)
            dirty.append(rect)
            repainted.append(name)
        for name in [n for n in drawn if n not in seen]:
            rect = drawn.pop(name)[0]
            surface.fill(palette.BACKGROUND, rect)
            dirty.append(rect)
        self.repainted = repainted
        return [surface.get_rect()] if full else dirty

    # -- widgets of each screen ---------------------------------------------------

    def _widgets(self, kind: str, scene: Scene, now: int) -> list[Widget]:
        if kind == screens.START:
            return self._start(scene)
        snapshot = scene.snapshot
        assert snapshot is not None
        lang = self.lang
        layout = self.layout
        left, right = view.header(scene, kind, lang)
        out = [Widget("header", self._header_rect(), (left, right), self._paint_header)]
        out.extend(self._timer(scene, now))
        out.extend(self._podiums(scene, now))
        if kind == screens.BOARD:
            played = frozenset(tuple(c) for c in snapshot.get("played") or ())
            key = (
                tuple(view.theme_names(snapshot, lang)),
                tuple(int(p) for p in snapshot.get("prices") or ()),
                played,
            )
            out.append(Widget("grid", layout.main, key, self._paint_grid))
        elif kind in (screens.QUESTION, screens.SPECIAL):
            out.append(self._question(scene))
            text, tone = view.question_status(snapshot, lang)
            out.append(Widget("status", layout.status, (text, tone), self._paint_status))
        elif kind == screens.BIDDING:
            out.extend(self._bidding(scene))
        elif kind == screens.CAT:
            out.extend(self._cat(scene))
        elif kind == screens.BONUS:
            out.extend(self._bonus(scene))
        elif kind == screens.FINAL_REMOVE:
            out.extend(self._final_remove(scene))
        elif kind == screens.FINAL_STAKES:
            out.append(self._question(scene, fallback=self._final_theme(scene)))
        elif kind == screens.FINAL_JUDGING:
            rows = self._judging_rows(scene)
            if scene.question_text or scene.pictures or scene.media_notes:
                # The final's question is asked once every stake is in: it stays up,
                # above the stakes being revealed, until the last verdict.
                top, rest = self._split(layout.main, 0.5)
                out.append(self._question(scene, area=top))
                out.append(self._rows("rows", rest, rows))
            else:
                out.append(self._rows("rows", layout.main, rows))
        elif kind == screens.OVER:
            out.extend(self._over(scene))
        return out

    def _header_rect(self) -> pygame.Rect:
        layout = self.layout
        header = layout.header
        return pygame.Rect(header.left, header.top, layout.clock.left - header.left, header.height)

    def _timer(self, scene: Scene, now: int) -> list[Widget]:
        layout = self.layout
        timer = view.countdown(scene, now)
        if timer is None:
            return [
                Widget("bar", layout.bar, None, self._paint_bar),
                Widget("clock", layout.clock, None, self._paint_clock),
            ]
        span = self._span(timer)
        remaining = max(0, timer.remaining)
        width = round(layout.bar.width * min(1.0, remaining / span))
        return [
            Widget("bar", layout.bar, (timer.kind, width), self._paint_bar),
            Widget("clock", layout.clock, (timer.kind, seconds_left(remaining)), self._paint_clock),
        ]

    def _span(self, timer: view.Countdown) -> int:
        """The length of a countdown: what was left when it was first seen, in whole seconds."""
        key = (timer.kind, timer.deadline)
        span = self._spans.get(key)
        if span is None:
            seconds = max(1, -(-max(0, timer.remaining) // NS_PER_S))
            span = seconds * NS_PER_S
            self._spans[key] = span
            if len(self._spans) > 32:
                self._spans.popitem(last=False)
        return span

    def _podiums(self, scene: Scene, now: int) -> list[Widget]:
        views = view.podiums(scene, now, self.lang)
        if not views:
            return []
        rects = self._podium_rects.get(len(views))
        if rects is None:
            rects = self.layout.podium_rects(len(views))
            self._podium_rects[len(views)] = rects
        blink = view.blink_on(now)
        sizes = self._podium_sizes(rects, views)
        out = []
        for podium, item in zip(rects, views, strict=True):
            if item.lamp == view.LAMP_FALSE_START:
                item = dataclasses.replace(item, lamp="fs_on" if blink else "fs_off")
            key = (podium, item, sizes)
            out.append(Widget(f"podium{item.seat}", podium.rect, key, self._paint_podium))
        return out

    def _podium_sizes(
        self, rects: list[Podium], views: list[view.PodiumView]
    ) -> tuple[int, int, int]:
        """One font size for all names and one for all scores: the smallest that fits
        every podium, so the row reads evenly."""
        layout = self.layout
        if not rects:
            return layout.font_name, layout.font_score, layout.font_small
        box = rects[0]
        low = layout.font_min

        def common(texts: list[str], rect: pygame.Rect, size: int) -> int:
            fits = [self._fit(t, rect.width, rect.height, size, low, 1).size for t in texts if t]
            return min(fits, default=size)

        return (
            common([v.name for v in views], box.name, layout.font_name),
            common([v.score for v in views], box.score, layout.font_score),
            layout.font_small,  # statuses differ in length: each fits on its own
        )

    def _question(
        self, scene: Scene, fallback: str | None = None, area: pygame.Rect | None = None
    ) -> Widget:
        snapshot = scene.snapshot or {}
        text = scene.question_text or ""
        pictures = scene.pictures
        notes = tuple(view.media_lines(scene, self.lang))
        colour = palette.WHITE
        if not text and not pictures and not notes:
            if fallback is not None:
                text = fallback
            else:
                price = view.cell_price(snapshot)
                theme = view.cell_theme(snapshot, self.lang)
                text = theme if price is None else f"{theme}\n{number(price)}"
            colour = palette.GOLD
        # A sound and nothing to look at: a note drawn large says "listen".
        icon = screens.NOTE_AUDIO in scene.media_notes and not pictures and not text
        key = (text, colour, pictures, notes, icon)
        return Widget("question", area or self.layout.body, key, self._paint_question)

    def _bidding(self, scene: Scene) -> list[Widget]:
        snapshot = scene.snapshot or {}
        lang = self.lang
        bidding = snapshot.get("bidding") or {}
        layout = self.layout
        bid = bidding.get("bid")
        leader = bidding.get("leader")
        price = view.cell_price(snapshot)
        if bid is None:
            headline = tr("no_bid", lang)
        else:
            who = view.player_name(snapshot, leader, lang)
            headline = f"{tr('bid', lang, amount=number(int(bid)))} · {who}"

        nominal = "" if price is None else tr("nominal", lang, price=number(price))
        rows: list[Row] = []
        passed = set(bidding.get("passed") or ())
        by_button = bool(bidding.get("by_button"))  # TV-H-1995-01
        for seat in bidding.get("order") or ():
            name = view.player_name(snapshot, seat, lang)
            if seat in passed:
                rows.append(Row(name, tr("passed", lang), view.TONE_MUTED, struck=True))
            elif seat == leader and bid is not None:
                rows.append(
                    Row(name, number(int(bid)), view.TONE_GREEN, seat == bidding.get("turn"))
                )
            elif seat == bidding.get("turn"):
                word = "buys" if by_button else "turn"
                rows.append(Row(name, tr(word, lang), view.TONE_GOLD, True))
            else:
                rows.append(Row(name, "", view.TONE_PLAIN))
        top, rest = self._split(layout.main, 0.28)
        turn = bidding.get("turn")
        if turn:
            who = view.player_name(snapshot, turn, lang)
            status = tr("buyer_of" if by_button else "turn_of", lang, name=who)
        else:
            status = tr("buy_press", lang) if by_button else ""
        return [
            Widget("headline", top, (headline, nominal), self._paint_headline),
            self._rows("rows", rest, rows, status),
        ]

    def _bonus(self, scene: Scene) -> list[Widget]:
        """TV-H-1995-03: who is offered the contest, then how far its player got."""
        snapshot = scene.snapshot or {}
        lang = self.lang
        bonus = snapshot.get("bonus") or {}
        player = bonus.get("player")
        if player is None:
            name = view.player_name(snapshot, bonus.get("offered"), lang)
            headline, detail = tr("bonus_offer", lang, name=name), tr("bonus_rules", lang)
        else:
            name = view.player_name(snapshot, player, lang)
            headline = tr("bonus_player", lang, name=name)
            detail = tr(
                "bonus_progress", lang, right=bonus.get("right", 0), of=bonus.get("questions", 5)
            )
        top, rest = self._split(self.layout.main, 0.28)
        return [
            Widget("headline", top, (headline, detail), self._paint_headline),
            self._rows("rows", rest, [], ""),
        ]

    def _cat(self, scene: Scene) -> list[Widget]:
        snapshot = scene.snapshot or {}
        lang = self.lang
        facts = scene.facts
        if snapshot.get("stage") == "cat_give":
            line = tr(
                "cat_gives", lang, name=view.player_name(snapshot, snapshot.get("chooser"), lang)
            )
            detail = ""
        else:
            receiver = facts.cat_to if facts.cat_to is not None else snapshot.get("answering")
            line = tr("cat_to", lang, name=view.player_name(snapshot, receiver, lang))
            detail = view.cat_value(scene, lang)
        theme = view.cat_theme(scene)
        if not theme:
            top, rest = self._split(self.layout.main, 0.45)
            return [
                Widget("headline", top, (tr("cat_title", lang), ""), self._paint_headline),
                Widget("catline", rest, (line, detail), self._paint_headline),
            ]
        # The package's own theme for the cat (TV-S-CAT-2: not the cell's), large and
        # white under its label; who has the cat and its value below, as without it.
        top, bottom = self._split(self.layout.main, 0.5)
        return [
            Widget("headline", top, (tr("cat_theme", lang), theme), self._paint_labelled),
            Widget("catline", bottom, (line, detail), self._paint_headline),
        ]

    def _final_theme(self, scene: Scene) -> str:
        names = view.final_theme_names(scene, self.lang)
        final = (scene.snapshot or {}).get("final") or {}
        left = [int(t) for t in final.get("themes_left") or ()]
        if len(left) == 1 and 1 <= left[0] <= len(names):
            return names[left[0] - 1]
        return tr("final", self.lang)

    def _final_remove(self, scene: Scene) -> list[Widget]:
        snapshot = scene.snapshot or {}
        lang = self.lang
        final = snapshot.get("final") or {}
        left = {int(t) for t in final.get("themes_left") or ()}
        names = view.final_theme_names(scene, lang)
        rows = [
            Row(name, "", view.TONE_PLAIN if n in left else view.TONE_MUTED, struck=n not in left)
            for n, name in enumerate(names, 1)
        ]
        turn = scene.facts.final_turn
        status = tr("removes", lang, name=view.player_name(snapshot, turn, lang)) if turn else ""
        return [self._rows("rows", self.layout.main, rows, status)]

    def _judging_rows(self, scene: Scene) -> list[Row]:
        snapshot = scene.snapshot or {}
        lang = self.lang
        final = snapshot.get("final") or {}
        order = list(final.get("judge_order") or ())
        revealed = scene.facts.revealed
        judged = [s for s in final.get("seats") or () if s not in order]
        rows = []
        for seat in [*judged, *order]:
            name = view.player_name(snapshot, seat, lang)
            if seat in revealed:
                rows.append(
                    Row(
                        name,
                        tr("stake_shown", lang, amount=number(revealed[seat])),
                        view.TONE_GREEN,
                    )
                )
            else:
                rows.append(
                    Row(
                        name,
                        tr("stake_hidden", lang),
                        view.TONE_GOLD,
                        bool(order) and seat == order[0],
                    )
                )
        return rows

    def _over(self, scene: Scene) -> list[Widget]:
        snapshot = scene.snapshot or {}
        lang = self.lang
        winner = snapshot.get("winner")
        if winner is None:
            headline = (tr("no_winner", lang), "")
        else:
            headline = (view.player_name(snapshot, winner, lang), tr("winner", lang))
        rows = [
            Row(
                name,
                score,
                view.TONE_RED if negative else view.TONE_PLAIN,
                i == 0 and winner is not None,
            )
            for i, (name, score, negative) in enumerate(view.ranking(snapshot, lang))
        ]
        answer = view.final_answer(scene, lang)
        if answer:
            # The final's right answer, now that every verdict is in, between the
            # winner and the scores.
            top, rest = self._split(self.layout.main, 0.32)
            line, rest = self._split(rest, 0.2)
            return [
                Widget("headline", top, headline, self._paint_winner),
                Widget("answer", line, (answer, view.TONE_GOLD), self._paint_answer),
                self._rows("rows", rest, rows),
            ]
        top, rest = self._split(self.layout.main, 0.4)
        return [
            Widget("headline", top, headline, self._paint_winner),
            self._rows("rows", rest, rows),
        ]

    def _rows(self, name: str, area: pygame.Rect, rows: Sequence[Row], status: str = "") -> Widget:
        return Widget(name, area, (tuple(rows), status), self._paint_rows)

    def _split(self, area: pygame.Rect, fraction: float) -> tuple[pygame.Rect, pygame.Rect]:
        gap = self.layout.margin
        top_h = round(area.height * fraction)
        top = pygame.Rect(area.left, area.top, area.width, top_h)
        rest = pygame.Rect(area.left, area.top + top_h + gap, area.width, area.height - top_h - gap)
        return top, rest

    def _start(self, scene: Scene) -> list[Widget]:
        start = scene.start or screens.StartInfo()
        snapshot = scene.snapshot or {}
        players = tuple(str(p) for p in snapshot.get("players") or ())
        title = start.title or ""
        key = (start.url or "", title, players)
        return [Widget("start", self.layout.screen, key, self._paint_start)]

    # -- painting -----------------------------------------------------------------

    def _fit(
        self, text: str, width: int, height: int, max_size: int, min_size: int, lines: int | None
    ) -> Fitted:
        key = (text, width, height, max_size, min_size, lines)
        fitted = self._fits.get(key)
        if fitted is None:
            if lines == 1:
                fitted = fit_line(self.fonts, text, width, height, max_size, min_size)
            else:
                fitted = fit(self.fonts, text, width, height, max_size, min_size, lines)
            self._fits[key] = fitted
            if len(self._fits) > 512:
                self._fits.popitem(last=False)
        return fitted

    def _blit_fitted(
        self,
        fitted: Fitted,
        rect: pygame.Rect,
        colour: RGB,
        background: RGB | None,
        align: str = "center",
    ) -> None:
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

    def _line(
        self,
        text: str,
        rect: pygame.Rect,
        size: int,
        colour: RGB,
        background: RGB | None,
        align: str = "center",
    ) -> Fitted:
        fitted = self._fit(text, rect.width, rect.height, size, self.layout.font_min, 1)
        self._blit_fitted(fitted, rect, colour, background, align)
        return fitted

    def _paint_header(self, rect: pygame.Rect, key: tuple[str, str]) -> None:
        left, right = key
        layout = self.layout
        self.surface.fill(palette.HEADER, rect)
        inner = rect.inflate(-2 * layout.margin, -layout.margin)
        right_w = 0
        if right:
            box = pygame.Rect(inner.left, inner.top, inner.width * 2 // 5, inner.height)
            box.right = inner.right
            fitted = self._fit(right, box.width, box.height, layout.font_header, layout.font_min, 1)
            self._blit_fitted(fitted, box, palette.GOLD, palette.HEADER, "right")
            right_w = max((self.fonts.width(s, fitted.size) for s in fitted.lines), default=0)
        box = pygame.Rect(
            inner.left, inner.top, inner.width - right_w - layout.margin, inner.height
        )
        self._line(left, box, layout.font_header, palette.WHITE, palette.HEADER, "left")

    def _paint_clock(self, rect: pygame.Rect, key: tuple[str, str] | None) -> None:
        self.surface.fill(palette.HEADER, rect)
        if key is None:
            return
        kind, digits = key
        colour = _BAR_COLOURS.get(kind, palette.WHITE)
        inner = rect.inflate(-self.layout.margin, -self.layout.margin // 2)
        self._line(digits, inner, self.layout.font_header, colour, palette.HEADER)

    def _paint_bar(self, rect: pygame.Rect, key: tuple[str, int] | None) -> None:
        surface = self.surface
        if key is None:
            surface.fill(palette.BACKGROUND, rect)
            return
        kind, width = key
        surface.fill(palette.BAR_TRACK, rect)
        if width > 0:
            bar = pygame.Rect(0, rect.top, width, rect.height)
            bar.centerx = rect.centerx
            surface.fill(_BAR_COLOURS.get(kind, palette.WHITE), bar)

    def _paint_podium(
        self, rect: pygame.Rect, key: tuple[Podium, view.PodiumView, tuple[int, int, int]]
    ) -> None:
        podium, item, (name_size, score_size, status_size) = key
        surface = self.surface
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
        self._line(item.name, podium.name, name_size, name_colour, body)
        if item.negative:
            score_colour = palette.RED_DIM if item.dim else palette.RED
        elif item.dim:
            score_colour = palette.DIM
        else:
            score_colour = palette.GOLD if item.active else palette.WHITE
        self._line(item.score, podium.score, score_size, score_colour, body)
        if item.status:
            colour = _TONES.get(item.tone, palette.WHITE)
            self._line(item.status, podium.status, status_size, colour, body)

    def _paint_grid(
        self,
        rect: pygame.Rect,
        key: tuple[tuple[str, ...], tuple[int, ...], frozenset[tuple[int, int]]],
    ) -> None:
        themes, prices, played = key
        layout = self.layout
        surface = self.surface
        surface.fill(palette.BACKGROUND, rect)
        if not themes or not prices:
            return
        theme_cells, rows = layout.grid(len(themes), len(prices))
        if not rows or not rows[0]:
            return
        pad = layout.gap * 2
        labels, price_size = self._price_labels(prices, rows)
        theme_h = theme_cells[0].height - pad if theme_cells else 0
        theme_w = theme_cells[0].width - 2 * pad if theme_cells else 0
        # No size at which a word would be split across lines ("Дополнитель / но"):
        # the longest word of any theme sets the ceiling, unless it fits at no size.
        words = [w for t in themes for w in t.split()]
        longest = max(words, key=lambda w: self.fonts.width(w, 40), default="")
        ceiling = layout.font_theme
        if longest:
            ceiling = self._fit(
                longest, theme_w, theme_h, layout.font_theme, layout.font_min, 1
            ).size
        # One size for all theme names (the smallest best fit): the column reads evenly.
        theme_size = min(
            (
                self._fit(t, theme_w, theme_h, ceiling, layout.font_min, THEME_LINES).size
                for t in themes
            ),
            default=ceiling,
        )
        for r, (theme_cell, row) in enumerate(zip(theme_cells, rows, strict=True)):
            surface.fill(palette.THEME_CELL, theme_cell)
            title = themes[r] if r < len(themes) else ""
            inner = theme_cell.inflate(-2 * pad, -pad)
            fitted = self._fit(
                title, inner.width, inner.height, theme_size, layout.font_min, THEME_LINES
            )
            self._blit_fitted(fitted, inner, palette.WHITE, palette.THEME_CELL)
            for c, box in enumerate(row):
                price = prices[c]
                if (r + 1, price) in played:
                    surface.fill(palette.CELL_PLAYED, box)
                    continue
                surface.fill(palette.CELL, box)
                image = self.text.render(labels[c], price_size, palette.GOLD, palette.CELL)
                surface.blit(image, image.get_rect(center=box.center))

    def _price_labels(
        self, prices: tuple[int, ...], rows: list[list[pygame.Rect]]
    ) -> tuple[list[str], int]:
        """The board's price labels and their one font size, fitted to the narrowest cell.

        With many columns (SIGame rounds reach 15) the cells are narrow and tall:
        the side padding shrinks with the cell, and should grouped digits
        (``10 000``) still not fit whole, the digits go ungrouped (``10000``).
        A price is never cut short while it can be drawn at the smallest size.
        """
        layout = self.layout
        cells = rows[0]
        width = min(box.width for box in cells)
        height = min(box.height for box in cells)
        pad_x = max(1, min(layout.gap * 2, width // 12))
        pad_y = layout.gap * 2
        fitted: Fitted | None = None
        labels: list[str] = []
        for style in (number, str):
            labels = [style(p) for p in prices]
            widest = max(labels, key=lambda s: self.fonts.width(s, 40), default="")
            fitted = self._fit(
                widest, width - 2 * pad_x, height - pad_y, layout.font_price, layout.font_min, 1
            )
            if fitted.lines == (widest,):
                break
        assert fitted is not None
        return labels, fitted.size

    def _paint_question(
        self,
        rect: pygame.Rect,
        key: tuple[str, RGB, tuple[pygame.Surface | None, ...], tuple[str, ...], bool],
    ) -> None:
        text, colour, pictures, notes, icon = key
        layout = self.layout
        surface = self.surface
        surface.fill(palette.BACKGROUND, rect)
        inner = rect.inflate(-4 * layout.margin, -2 * layout.margin)
        if not text and not pictures and notes:
            # Nothing else to show: what the board cannot play is the message, in gold.
            if icon:
                top, inner = self._split(inner, 0.45)
                self._draw_note_icon(top, palette.GOLD)
            fitted = self._fit(
                "\n".join(notes),
                inner.width,
                inner.height,
                layout.font_question,
                layout.font_question_min,
                None,
            )
            self._blit_fitted(fitted, inner, palette.GOLD, palette.BACKGROUND)
            return
        if notes:
            # One line per note above everything else ("Видеовопрос: …", then the
            # question), in the status line's size.
            line_h = min(layout.status.height, inner.height // 4)
            for i, note in enumerate(notes):
                box = pygame.Rect(inner.left, inner.top + i * line_h, inner.width, line_h)
                self._line(note, box, layout.font_status, palette.GOLD, palette.BACKGROUND)
            below = inner.top + line_h * len(notes) + layout.margin
            inner = pygame.Rect(inner.left, below, inner.width, max(0, inner.bottom - below))
        text_box = inner
        if pictures:
            # The picture is the question: a short caption leaves it more room.
            share = 100 if not text else 74 if len(text) <= SHORT_CAPTION else 62
            image_box = pygame.Rect(inner.left, inner.top, inner.width, inner.height * share // 100)
            self._paint_pictures(image_box, pictures)
            text_box = pygame.Rect(
                inner.left,
                image_box.bottom + layout.margin,
                inner.width,
                inner.bottom - image_box.bottom - layout.margin,
            )
        if text and text_box.height > 0:
            fitted = self._fit(
                text,
                text_box.width,
                text_box.height,
                layout.font_question,
                layout.font_question_min,
                None,
            )
            self._blit_fitted(fitted, text_box, colour, palette.BACKGROUND)

    def _paint_pictures(
        self, area: pygame.Rect, pictures: tuple[pygame.Surface | None, ...]
    ) -> None:
        """Pictures side by side (or in a grid: whichever shows them largest), each
        scaled to fit its share; a picture that failed to decode is a placeholder."""
        if area.width <= 0 or area.height <= 0:
            return
        gap = self.layout.margin
        sizes = [(4, 3) if p is None else p.get_size() for p in pictures]
        boxes = picture_boxes(area, sizes, gap)
        for picture, box in zip(pictures, boxes, strict=True):
            if picture is None:
                self._paint_placeholder(box)
                continue
            scaled = self._scaled(picture, box.width, box.height)
            self.surface.blit(scaled, scaled.get_rect(center=box.center))

    def _paint_placeholder(self, box: pygame.Rect) -> None:
        """Where a picture should be: a framed 4:3 panel that says it cannot be shown."""
        width = min(box.width, box.height * 4 // 3)
        height = min(box.height, width * 3 // 4)
        panel = pygame.Rect(0, 0, width, height)
        panel.center = box.center
        if width < 4 or height < 4:
            return
        self.surface.fill(palette.PODIUM, panel)
        pygame.draw.rect(self.surface, palette.MUTED, panel, max(1, self.layout.gap))
        inner = panel.inflate(-2 * self.layout.margin, -2 * self.layout.margin)
        fitted = self._fit(
            tr("image_broken", self.lang),
            inner.width,
            inner.height,
            self.layout.font_status,
            self.layout.font_min,
            None,
        )
        self._blit_fitted(fitted, inner, palette.MUTED, palette.PODIUM)

    def _draw_note_icon(self, box: pygame.Rect, colour: RGB) -> None:
        """A quaver drawn with shapes (the bundled font has no ♪): a sound is playing."""
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

    def _scaled(self, image: pygame.Surface, width: int, height: int) -> pygame.Surface:
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

    def _paint_status(self, rect: pygame.Rect, key: tuple[str, str]) -> None:
        text, tone = key
        self.surface.fill(palette.BACKGROUND, rect)
        if text:
            self._line(
                text,
                rect,
                self.layout.font_status,
                _TONES.get(tone, palette.WHITE),
                palette.BACKGROUND,
            )

    def _paint_labelled(self, rect: pygame.Rect, key: tuple[str, str]) -> None:
        """A small muted label over a large white value (the cat's theme)."""
        label, value = key
        layout = self.layout
        self.surface.fill(palette.BACKGROUND, rect)
        top, bottom = self._split(rect, 0.3)
        self._line(label, top, layout.font_status, palette.MUTED, palette.BACKGROUND)
        fitted = self._fit(value, bottom.width, bottom.height, layout.font_big, layout.font_min, 2)
        self._blit_fitted(fitted, bottom, palette.WHITE, palette.BACKGROUND)

    def _paint_answer(self, rect: pygame.Rect, key: tuple[str, str]) -> None:
        """A line that may wrap to two (a final's answer can be long), never cut short."""
        text, tone = key
        layout = self.layout
        self.surface.fill(palette.BACKGROUND, rect)
        fitted = self._fit(text, rect.width, rect.height, layout.font_status, layout.font_min, 2)
        self._blit_fitted(fitted, rect, _TONES.get(tone, palette.WHITE), palette.BACKGROUND)

    def _paint_headline(self, rect: pygame.Rect, key: tuple[str, str]) -> None:
        big, small = key
        layout = self.layout
        self.surface.fill(palette.BACKGROUND, rect)
        if small:
            top, bottom = self._split(rect, 0.62)
            self._line(big, top, layout.font_big, palette.GOLD, palette.BACKGROUND)
            self._line(small, bottom, layout.font_status, palette.WHITE, palette.BACKGROUND)
        else:
            self._line(big, rect, layout.font_big, palette.GOLD, palette.BACKGROUND)

    def _paint_winner(self, rect: pygame.Rect, key: tuple[str, str]) -> None:
        name, title = key
        layout = self.layout
        self.surface.fill(palette.BACKGROUND, rect)
        if title:
            top, bottom = self._split(rect, 0.35)
            self._line(title, top, layout.font_status, palette.WHITE, palette.BACKGROUND)
            self._line(name, bottom, layout.font_big, palette.GOLD, palette.BACKGROUND)
        else:
            self._line(name, rect, layout.font_big, palette.GOLD, palette.BACKGROUND)

    def _paint_rows(self, rect: pygame.Rect, key: tuple[tuple[Row, ...], str]) -> None:
        rows, status = key
        layout = self.layout
        surface = self.surface
        surface.fill(palette.BACKGROUND, rect)
        area = rect
        if status:
            area = pygame.Rect(
                rect.left, rect.top, rect.width, rect.height - layout.status.height - layout.margin
            )
            status_box = pygame.Rect(
                rect.left, area.bottom + layout.margin, rect.width, layout.status.height
            )
            self._line(status, status_box, layout.font_status, palette.GOLD, palette.BACKGROUND)
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
                fitted = self._line(row.right, right_box, layout.font_status, colour, fill, "right")
                right_w = max((self.fonts.width(s, fitted.size) for s in fitted.lines), default=0)
            left_box = pygame.Rect(inner.left, inner.top, inner.width - right_w - pad, inner.height)
            left_colour = palette.DIM if row.struck else palette.WHITE
            fitted = self._line(row.left, left_box, layout.font_status, left_colour, fill, "left")
            if row.struck and fitted.lines:
                width = self.fonts.width(fitted.lines[0], fitted.size)
                top = left_box.top + (left_box.height - fitted.height) // 2 + fitted.offsets[0]
                y = top + self.fonts.get(fitted.size).get_ascent() * 2 // 3
                pygame.draw.line(
                    surface,
                    palette.MUTED,
                    (left_box.left, y),
                    (left_box.left + width, y),
                    max(2, layout.gap // 2),
                )

    def _paint_start(self, rect: pygame.Rect, key: tuple[str, str, tuple[str, ...]]) -> None:
        # No PIN here, ever: the players see the board (display/scene.py, StartInfo).
        url, title, players = key
        layout = self.layout
        lang = self.lang
        surface = self.surface
        surface.fill(palette.BACKGROUND, rect)
        m = layout.margin
        h = layout.height
        top = pygame.Rect(m, m, rect.width - 2 * m, round(0.18 * h))
        self._line(tr("title", lang), top, layout.font_big, palette.GOLD, palette.BACKGROUND)
        body = pygame.Rect(
            m * 3, top.bottom + m, rect.width - 6 * m, rect.height - top.bottom - 4 * m
        )
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
        weights = [2 if size == layout.font_big else 1 for _, size, _ in lines]
        unit = info.height / max(1, sum(weights))
        y = float(info.top)
        for (text, size, colour), weight in zip(lines, weights, strict=True):
            box = pygame.Rect(info.left, round(y), info.width, round(unit * weight))
            self._line(text, box, size, colour, palette.BACKGROUND, "left")
            y += unit * weight
        if url:
            caption_h = round(0.08 * h)
            side = qr_side - caption_h
            qr_box = pygame.Rect(0, body.top, side, side)
            qr_box.right = body.right
            image = self._qr_surface(url, side)
            surface.blit(image, image.get_rect(center=qr_box.center))
            caption = pygame.Rect(
                body.right - qr_side, qr_box.bottom + m // 2, qr_side, caption_h - m // 2
            )
            self._line(url, caption, layout.font_small, palette.WHITE, palette.BACKGROUND)

    def _qr_surface(self, url: str, side: int) -> pygame.Surface:
        key = (url, side)
        image = self._qr.get(key)
        if image is None:
            image = qr_surface(qr_code(url), side)
            self._qr[key] = image
        return image


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


def qr_code(url: str) -> QrCode:
    """The panel address as a QR code: level M, a phone reads it from across a room."""
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


def render(
    scene: Scene,
    size: tuple[int, int] = (960, 540),
    now: int | None = None,
    lang: str = DEFAULT_LANGUAGE,
    font: str | None = None,
) -> pygame.Surface:
    """One scene on a new surface (screenshots, golden images, ``svoyak display shot``)."""
    surface = pygame.Surface(size)
    Renderer(surface, lang, font).draw(scene, now)
    return surface
