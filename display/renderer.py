"""Composes each screen from a scene, and redraws only what changed.

This is the board's composition: from a :class:`~display.scene.Scene` it
decides which screen is up (:func:`~display.scene.screen_kind`) and what goes
where on it, as a list of widgets (header, clock, countdown bar, each podium,
the board grid, the question, the status line, …). Each frame every widget
gets a *key*: the exact data it would draw. A widget whose key and rectangle
are the same as last frame is not touched; the others are repainted and
their rectangles returned, for ``pygame.display.update(rects)``. A change of
screen (the game's stage) or of size repaints everything.

The painting is elsewhere: :mod:`display.widgets` turns each widget's key
into pixels with the primitives of :mod:`display.paint` (which keeps the
rendered text, the fitted layouts and the scaled pictures), the board's
grid, the question and the start screen in :mod:`display.grid`,
:mod:`display.question` and :mod:`display.start`.

So a frame whose snapshot did not change and where nothing animates costs
the computing of the keys only; a running countdown repaints a thin bar and
the digits; a press repaints a few podiums and the status line.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import pygame

from display import palette, view
from display import scene as screens
from display.i18n import DEFAULT_LANGUAGE, number, seconds_left, tr
from display.layout import Layout, Podium
from display.paint import Painter
from display.scene import Scene, screen_kind, stage_kind
from display.widgets import Row, Widget, WidgetPainter
from rules.snapshot import GameSnapshot

NS_PER_S = 1_000_000_000


class Renderer:
    """Draws :class:`Scene` objects onto ``surface`` (the display, or any Surface)."""

    def __init__(
        self, surface: pygame.Surface, lang: str = DEFAULT_LANGUAGE, font: str | None = None
    ) -> None:
        #: The primitives and their caches (text, fittings, pictures, QR codes).
        self.paint = Painter(surface, font)
        #: The paint function of each kind of widget.
        self.widgets = WidgetPainter(self.paint, lang)
        self._spans: OrderedDict[tuple[str, int], int] = OrderedDict()
        self._podium_rects: dict[int, list[Podium]] = {}
        self._kind: str | None = None
        self._drawn: dict[str, tuple[pygame.Rect, Any]] = {}
        #: Widgets repainted by the last :meth:`draw` (for tests and the benchmark).
        self.repainted: list[str] = []

    # -- public ---------------------------------------------------------------

    @property
    def lang(self) -> str:
        """The board's language: the composition's words and the painters' alike."""
        return self.widgets.lang

    @lang.setter
    def lang(self, lang: str) -> None:
        self.widgets.lang = lang

    @property
    def surface(self) -> pygame.Surface:
        """The target drawn on."""
        return self.paint.surface

    @property
    def layout(self) -> Layout:
        """The target's layout."""
        return self.paint.layout

    def resize(self, surface: pygame.Surface) -> None:
        """A new target (a resized window, another resolution): lay out and repaint all."""
        self.paint.resize(surface)
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
            snapshot = scene.snapshot
            now = int(snapshot.get("now") or 0) if snapshot is not None else 0
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
            return self._start(scene, now)
        snapshot = scene.snapshot
        assert snapshot is not None
        lang = self.lang
        layout = self.layout
        # A-G-D2: a button check on the board (paused there too) is named in the
        # header's right-hand side, where a question's price stands: on real time,
        # as a press in a pause is after the pause's frozen instant.
        checked = view.button_check(scene, now, lang)
        now = view.frozen_now(scene, now)  # A-G-D1: a paused game's clocks stand still
        # The pause screen keeps the header of what was being played.
        left, right = view.header(scene, stage_kind(scene) if kind == screens.PAUSE else kind, lang)
        right = checked or right
        out = [Widget("header", self._header_rect(), (left, right), self.widgets.header)]
        out.extend(self._timer(scene, now))
        out.extend(self._podiums(scene, now))
        if kind == screens.BOARD:
            titles, played = view.board_rows(snapshot, lang)
            key = (titles, tuple(int(p) for p in snapshot.get("prices") or ()), played)
            out.append(Widget("grid", layout.main, key, self.widgets.grid))
        elif kind in (screens.QUESTION, screens.SPECIAL):
            out.append(self._question(scene, snapshot))
            text, tone = view.question_status(snapshot, lang)
            out.append(Widget("status", layout.status, (text, tone), self.widgets.status))
        elif kind == screens.BIDDING:
            out.extend(self._bidding(scene, snapshot))
        elif kind == screens.CAT:
            out.extend(self._cat(scene, snapshot))
        elif kind == screens.BONUS:
            out.extend(self._bonus(scene, snapshot))
        elif kind == screens.FINAL_REMOVE:
            out.extend(self._final_remove(scene, snapshot))
        elif kind == screens.FINAL_STAKES:
            out.append(self._question(scene, snapshot, fallback=self._final_theme(scene, snapshot)))
        elif kind == screens.FINAL_JUDGING:
            rows = self._judging_rows(scene, snapshot)
            if scene.question_text or scene.pictures or scene.media_notes:
                # The final's question is asked once every stake is in: it stays up,
                # above the stakes being revealed, until the last verdict.
                top, rest = layout.split(layout.main, 0.5)
                out.append(self._question(scene, snapshot, area=top))
                out.append(self._rows("rows", rest, rows))
            else:
                out.append(self._rows("rows", layout.main, rows))
        elif kind == screens.OVER:
            out.extend(self._over(scene, snapshot))
        elif kind == screens.PAUSE:
            out.extend(self._pause(scene))
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
                Widget("bar", layout.bar, None, self.widgets.bar),
                Widget("clock", layout.clock, None, self.widgets.clock),
            ]
        span = self._span(timer)
        remaining = max(0, timer.remaining)
        width = round(layout.bar.width * min(1.0, remaining / span))
        digits = seconds_left(remaining)
        return [
            Widget("bar", layout.bar, (timer.kind, width), self.widgets.bar),
            Widget("clock", layout.clock, (timer.kind, digits), self.widgets.clock),
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
            out.append(Widget(f"podium{item.seat}", podium.rect, key, self.widgets.podium))
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
        fit = self.paint.fit

        def common(texts: list[str], rect: pygame.Rect, size: int) -> int:
            fits = [fit(t, rect.width, rect.height, size, low, 1).size for t in texts if t]
            return min(fits, default=size)

        return (
            common([v.name for v in views], box.name, layout.font_name),
            common([v.score for v in views], box.score, layout.font_score),
            layout.font_small,  # statuses differ in length: each fits on its own
        )

    def _question(
        self,
        scene: Scene,
        snapshot: GameSnapshot,
        fallback: str | None = None,
        area: pygame.Rect | None = None,
    ) -> Widget:
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
        return Widget("question", area or self.layout.body, key, self.widgets.question)

    def _bidding(self, scene: Scene, snapshot: GameSnapshot) -> list[Widget]:
        lang = self.lang
        bidding = snapshot.get("bidding")
        layout = self.layout
        bid = bidding.get("bid") if bidding else None
        leader = bidding.get("leader") if bidding else None
        turn = bidding.get("turn") if bidding else None
        passed = set(bidding.get("passed") or ()) if bidding else set()
        by_button = bool(bidding.get("by_button")) if bidding else False  # TV-H-1995-01
        order = (bidding.get("order") or ()) if bidding else ()
        price = view.cell_price(snapshot)
        if bid is None:
            headline = tr("no_bid", lang)
        else:
            who = view.player_name(snapshot, leader, lang)
            headline = f"{tr('bid', lang, amount=number(int(bid)))} · {who}"

        nominal = "" if price is None else tr("nominal", lang, price=number(price))
        rows: list[Row] = []
        for seat in order:
            name = view.player_name(snapshot, seat, lang)
            if seat in passed:
                rows.append(Row(name, tr("passed", lang), view.TONE_MUTED, struck=True))
            elif seat == leader and bid is not None:
                rows.append(Row(name, number(int(bid)), view.TONE_GREEN, seat == turn))
            elif seat == turn:
                word = "buys" if by_button else "turn"
                rows.append(Row(name, tr(word, lang), view.TONE_GOLD, True))
            else:
                rows.append(Row(name, "", view.TONE_PLAIN))
        top, rest = layout.split(layout.main, 0.28)
        if turn:
            who = view.player_name(snapshot, turn, lang)
            status = tr("buyer_of" if by_button else "turn_of", lang, name=who)
        else:
            status = tr("buy_press", lang) if by_button else ""
        return [
            Widget("headline", top, (headline, nominal), self.widgets.headline),
            self._rows("rows", rest, rows, status),
        ]

    def _bonus(self, scene: Scene, snapshot: GameSnapshot) -> list[Widget]:
        """TV-H-1995-03: who is offered the contest, then how far its player got."""
        lang = self.lang
        layout = self.layout
        bonus = snapshot.get("bonus")
        player = bonus.get("player") if bonus else None
        if bonus and player is not None:
            name = view.player_name(snapshot, player, lang)
            headline = tr("bonus_player", lang, name=name)
            detail = tr(
                "bonus_progress", lang, right=bonus.get("right", 0), of=bonus.get("questions", 5)
            )
        else:
            offered = bonus.get("offered") if bonus else None
            name = view.player_name(snapshot, offered, lang)
            headline, detail = tr("bonus_offer", lang, name=name), tr("bonus_rules", lang)
        top, rest = layout.split(layout.main, 0.28)
        return [
            Widget("headline", top, (headline, detail), self.widgets.headline),
            self._rows("rows", rest, [], ""),
        ]

    def _cat(self, scene: Scene, snapshot: GameSnapshot) -> list[Widget]:
        lang = self.lang
        layout = self.layout
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
            top, rest = layout.split(layout.main, 0.45)
            return [
                Widget("headline", top, (tr("cat_title", lang), ""), self.widgets.headline),
                Widget("catline", rest, (line, detail), self.widgets.headline),
            ]
        # The package's own theme for the cat (TV-S-CAT-2: not the cell's), large and
        # white under its label; who has the cat and its value below, as without it.
        top, bottom = layout.split(layout.main, 0.5)
        return [
            Widget("headline", top, (tr("cat_theme", lang), theme), self.widgets.labelled),
            Widget("catline", bottom, (line, detail), self.widgets.headline),
        ]

    def _final_theme(self, scene: Scene, snapshot: GameSnapshot) -> str:
        names = view.final_theme_names(scene, self.lang)
        final = snapshot.get("final")
        left = [int(t) for t in final.get("themes_left") or ()] if final else []
        if len(left) == 1 and 1 <= left[0] <= len(names):
            return names[left[0] - 1]
        return tr("final", self.lang)

    def _final_remove(self, scene: Scene, snapshot: GameSnapshot) -> list[Widget]:
        lang = self.lang
        final = snapshot.get("final")
        left = {int(t) for t in final.get("themes_left") or ()} if final else set()
        names = view.final_theme_names(scene, lang)
        rows = [
            Row(name, "", view.TONE_PLAIN if n in left else view.TONE_MUTED, struck=n not in left)
            for n, name in enumerate(names, 1)
        ]
        turn = scene.facts.final_turn
        status = tr("removes", lang, name=view.player_name(snapshot, turn, lang)) if turn else ""
        return [self._rows("rows", self.layout.main, rows, status)]

    def _judging_rows(self, scene: Scene, snapshot: GameSnapshot) -> list[Row]:
        lang = self.lang
        final = snapshot.get("final")
        order = list(final.get("judge_order") or ()) if final else []
        revealed = scene.facts.revealed
        judged = [s for s in final.get("seats") or () if s not in order] if final else []
        rows = []
        for seat in [*judged, *order]:
            name = view.player_name(snapshot, seat, lang)
            if seat in revealed:
                rows.append(
                    Row(
                        name,
                        tr("stake_shown", lang, amount=number(revealed[seat])),
                        view.verdict_tone(scene.facts, seat),
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

    def _over(self, scene: Scene, snapshot: GameSnapshot) -> list[Widget]:
        after = scene.after
        if after is None or not (after.report_url or after.seal):
            return self._over_in(self.layout.main, scene, snapshot)
        # The report's corner at the right: its QR code and the journal's seal.
        main = self.layout.main
        gap = self.layout.margin * 2
        side = main.width * 30 // 100
        corner = pygame.Rect(main.right - side, main.top, side, main.height)
        rest = pygame.Rect(main.left, main.top, main.width - side - gap, main.height)
        key = (after.report_url or "", after.seal or "")
        return [
            *self._over_in(rest, scene, snapshot),
            Widget("after", corner, key, self.widgets.after),
        ]

    def _over_in(self, main: pygame.Rect, scene: Scene, snapshot: GameSnapshot) -> list[Widget]:
        lang = self.lang
        layout = self.layout
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
            top, rest = layout.split(main, 0.32)
            line, rest = layout.split(rest, 0.2)
            return [
                Widget("headline", top, headline, self.widgets.winner),
                Widget("answer", line, (answer, view.TONE_GOLD), self.widgets.answer),
                self._rows("rows", rest, rows),
            ]
        top, rest = layout.split(main, 0.4)
        return [
            Widget("headline", top, headline, self.widgets.winner),
            self._rows("rows", rest, rows),
        ]

    def _pause(self, scene: Scene) -> list[Widget]:
        """A-G-D1: «Пауза», large, and what each frozen clock has left."""
        lang = self.lang
        layout = self.layout
        headline = (tr("pause", lang), tr("pause_note", lang))
        clocks = view.paused_clocks(scene, lang)
        if not clocks:
            return [Widget("headline", layout.main, headline, self.widgets.headline)]
        top, rest = layout.split(layout.main, 0.4)
        rows = [Row(what, left, view.TONE_GOLD) for what, left in clocks]
        return [
            Widget("headline", top, headline, self.widgets.headline),
            self._rows("rows", rest, rows),
        ]

    def _rows(self, name: str, area: pygame.Rect, rows: Sequence[Row], status: str = "") -> Widget:
        return Widget(name, area, (tuple(rows), status), self.widgets.rows)

    def _start(self, scene: Scene, now: int) -> list[Widget]:
        start = scene.start or screens.StartInfo()
        snapshot = scene.snapshot
        listed = snapshot.get("players") if snapshot is not None else None
        players = tuple(str(p) for p in listed or ())
        title = start.title or ""
        # A-G-D2: players check their buttons before the game, the start screen up
        key = (start.url or "", title, players, view.button_check(scene, now, self.lang))
        return [Widget("start", self.layout.screen, key, self.widgets.start)]


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
