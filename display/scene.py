"""What one frame shows: the game's snapshot, plus what the screen needs besides it.

The snapshot (``Game.snapshot()``, with the controller's ``version`` and
``now``) is the state. Two things a screen shows are the engine's answers to
"what may the host do now" (:class:`rules.snapshot.HostOptions`, published
with each snapshot): whose turn it is to remove a final theme, and the cat's
value options. The board reads them there, as the host's panel does, and
never works them out again from the decisions: two derivations of one rule
would part ways after a correction, a resume or a change in the engine.
A few more are in neither but in the decisions the controller publishes
alongside: the final stakes revealed so far and their verdicts, the final's
answer timer, the cat's hand-over, the latest button check. :class:`Memory`
collects those, as facts to show; nothing here decides anything.

The question's text, pictures, what the board says about its other media, a
cat's package theme and price, and the final's answer come from the question
package, which the snapshot does not carry: whoever drives the screen passes
them in the scene (:mod:`display.packages` looks them up, :mod:`display.media`
decodes them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from buzzer.arbiter.decisions import NoteKind

if TYPE_CHECKING:
    import pygame

    from rules.packages import CatParams
    from rules.snapshot import HostOptions, LiveSnapshot, StageName


@dataclass(frozen=True, slots=True, kw_only=True)
class StartInfo:
    """The start screen: the panel's address (shown with a QR code) and the game's title.

    Never the host's PIN: the board is what every player looks at, and whoever
    knows the PIN can log in and judge their own answer. The PIN is printed
    on the console ``svoyak run`` was started from (``buzzer/appliance/hostpin.py``).
    Keyword-only, so that a caller still passing a PIN first fails loudly
    instead of showing it as the address.
    """

    url: str | None = None
    title: str | None = None


@dataclass(frozen=True, slots=True)
class AfterGame:
    """What the game-over screen adds: the report's address as a QR code,
    and the journal's seal in its short form for the paper scoresheet. Given by the
    composition (the board knows neither the panel's address nor the journal)."""

    report_url: str | None = None
    seal: str | None = None


@dataclass(frozen=True, slots=True)
class Facts:
    """What a screen shows beyond the snapshot: the engine's host options
    (:meth:`with_options`) and what the decisions told (:class:`Memory`)."""

    #: The seat whose turn it is to remove a final theme (``HostOptions.final_turn``).
    final_turn: int | None = None
    final_total: int = 0
    revealed: Mapping[int, int] = field(default_factory=dict)
    #: Seat → whether its final answer was judged right (the score after its stake);
    #: a stake of 0 has no verdict to show.
    verdicts: Mapping[int, bool] = field(default_factory=dict)
    final_until: int | None = None
    cat_from: int | None = None
    cat_to: int | None = None
    #: The cat's values to choose from (``HostOptions.cat_options``); empty: no choice offered.
    cat_options: tuple[int, ...] = ()
    special_opener: int | None = None
    #: A-G-D2: the latest button check (a press while no question is open): its
    #: seat and game time (ns), until a question is chosen.
    checked: tuple[int, int] | None = None

    def with_options(self, options: HostOptions | None) -> Facts:
        """These facts with the engine's word on what the host may do now: whose turn
        it is to remove a final theme, the cat's value options. ``None`` (a publisher
        that gives no options) says neither, rather than leaving a stale one shown."""
        turn = None if options is None else options.get("final_turn")
        cat = () if options is None else tuple(int(v) for v in options.get("cat_options") or ())
        if turn == self.final_turn and cat == self.cat_options:
            return self
        return dataclasses.replace(self, final_turn=turn, cat_options=cat)


def is_check(decision: Any) -> bool:
    """Whether ``decision`` is a button check (A-G-D2): an ``ignored`` press made
    while no question was open. Only a ``Decision`` object says so (its JSON
    line does not, so that old journals replay byte for byte)."""
    return _kind(decision) == "ignored" and getattr(decision, "check", False) is True


def _t_ns(decision: Any) -> int:
    """A decision's time in game ns (a JSON dict's ``t`` is in seconds)."""
    if isinstance(decision, Mapping):
        return round(float(decision.get("t") or 0) * 1e9)
    return int(decision.t)


def _kind(decision: Any) -> str:
    if isinstance(decision, Mapping):
        return str(decision.get("type", ""))
    return str(decision.TYPE)


def _field(decision: Any, name: str) -> Any:
    if isinstance(decision, Mapping):
        return decision.get(name)
    getter = getattr(decision, "get", None)
    if getter is not None and hasattr(decision, "fields"):
        try:
            return getter(name)
        except KeyError:
            return None
    return getattr(decision, name, None)


class Memory:
    """Facts from the decision stream, for the screens that need them.

    Feed it every batch of decisions (``Decision`` objects or their JSON
    dicts) in order; :meth:`facts` is an immutable view for a scene. It reads
    nothing the host options say (``final_turn`` and ``cat_prices`` notes are
    the engine's narration of them, not the board's source): those come with
    :meth:`Facts.with_options`.
    """

    def __init__(self) -> None:
        self._facts = Facts()
        #: The finalist whose stake was just revealed: the score that follows is its verdict.
        self._judged: int | None = None

    def feed(self, decisions: Iterable[Any]) -> Facts:
        facts = self._facts
        changes: dict[str, Any] = {}
        revealed: dict[int, int] | None = None
        verdicts: dict[int, bool] | None = None
        for decision in decisions:
            kind = _kind(decision)
            if kind == NoteKind.FINAL_STARTED:
                changes.update(final_total=int(_field(decision, "themes") or 0), final_until=None)
                revealed = {}
                verdicts = {}
                self._judged = None
            elif kind == NoteKind.FINAL_TIMER:
                until = _field(decision, "until")
                changes["final_until"] = None if until is None else round(float(until) * 1e9)
            elif kind == NoteKind.FINAL_STAKE and _field(decision, "stake") is not None:
                if revealed is None:
                    revealed = dict(facts.revealed)
                revealed[int(_field(decision, "seat"))] = int(_field(decision, "stake"))
                self._judged = int(_field(decision, "seat"))
            elif kind == "score" and self._judged is not None:
                # the stake revealed is scored at once (C2003-2.7.6): + right, − wrong
                seat, delta = int(_field(decision, "seat")), int(_field(decision, "delta"))
                if seat == self._judged and delta != 0:
                    if verdicts is None:
                        verdicts = dict(facts.verdicts)
                    verdicts[seat] = delta > 0
                self._judged = None
            elif kind == NoteKind.SPECIAL:
                changes.update(special_opener=_field(decision, "opener"))
                changes.update(cat_from=None, cat_to=None)
            elif kind == NoteKind.CAT_GIVEN:
                changes.update(cat_from=_field(decision, "from"), cat_to=_field(decision, "to"))
            elif kind == NoteKind.SHOOTOUT_STARTED:
                changes["final_until"] = None
            elif kind == "question":
                changes["checked"] = None  # a question is open: no check to show
            elif is_check(decision):
                changes["checked"] = (int(_field(decision, "seat")), _t_ns(decision))
        if revealed is not None:
            changes["revealed"] = revealed
        if verdicts is not None:
            changes["verdicts"] = verdicts
        if changes:
            self._facts = dataclasses.replace(facts, **changes)
        return self._facts

    def facts(self) -> Facts:
        return self._facts


@dataclass(frozen=True, slots=True)
class Scene:
    """Everything one frame shows."""

    snapshot: LiveSnapshot | None
    facts: Facts = field(default_factory=Facts)
    #: The question's text from the package (the snapshot has none).
    question_text: str | None = None
    #: The question's picture from the package (one; :attr:`images` holds several).
    image: pygame.Surface | None = None
    #: Names of the final's themes, 1-based in the snapshot's numbering.
    final_theme_names: tuple[str, ...] = ()
    #: Show the start screen (the panel's address, no PIN) instead of the game.
    start: StartInfo | None = None
    #: The question's pictures, in package order; None for one that could not be
    #: decoded (drawn as a placeholder that says so). Shown together, side by side.
    images: tuple[pygame.Surface | None, ...] = ()
    #: What the board says about media it does not show: ``NOTE_*`` below.
    media_notes: tuple[str, ...] = ()
    #: A cat in the bag's theme and price as the package states them.
    cat: CatParams | None = None
    #: The final's right answer, from the package, once every verdict is in.
    answer_text: str | None = None
    #: The game-over screen's report corner (None: nothing to add).
    after: AfterGame | None = None

    @property
    def pictures(self) -> tuple[pygame.Surface | None, ...]:
        """Every picture to show: :attr:`images`, else the single :attr:`image`."""
        if self.images:
            return self.images
        return () if self.image is None else (self.image,)


# What the board says about a question's media it does not show (display.media
# finds which apply, display.view words them).
#: A sound plays with the question.
NOTE_AUDIO = "audio"
#: A sound belongs to the question but cannot be played here (no audio, a broken file).
NOTE_AUDIO_FAILED = "audio_failed"
#: A video: the board does not play video.
NOTE_VIDEO = "video"
#: HTML content: the board does not show web pages.
NOTE_HTML = "html"
#: Media given as an internet address: the board fetches nothing.
NOTE_LINK = "link"
MEDIA_NOTES = (NOTE_AUDIO, NOTE_AUDIO_FAILED, NOTE_VIDEO, NOTE_HTML, NOTE_LINK)

# Screen kinds, one per layout.
START = "start"
BOARD = "board"
QUESTION = "question"
BIDDING = "bidding"
CAT = "cat"
SPECIAL = "special"
BONUS = "bonus"
FINAL_REMOVE = "final_remove"
FINAL_STAKES = "final_stakes"
FINAL_JUDGING = "final_judging"
OVER = "over"
#: A-G-D1: the host paused the game: a full screen saying so, its timers frozen.
PAUSE = "pause"

SCREENS = (
    START,
    BOARD,
    QUESTION,
    BIDDING,
    CAT,
    SPECIAL,
    BONUS,
    FINAL_REMOVE,
    FINAL_STAKES,
    FINAL_JUDGING,
    OVER,
    PAUSE,
)

_BY_STAGE: dict[StageName, str] = {
    "board": BOARD,
    "question": QUESTION,
    "bidding": BIDDING,
    "cat_give": CAT,
    "cat_price": CAT,
    "special": SPECIAL,
    "bonus_offer": BONUS,  # TV-H-1995-03
    "bonus": BONUS,
    "final_remove": FINAL_REMOVE,
    "final_stakes": FINAL_STAKES,
    "final_judging": FINAL_JUDGING,
    "over": OVER,
}


def screen_kind(scene: Scene) -> str:
    """Which screen a scene is drawn on: the start screen, the pause (A-G-D1), or the
    one for the game's stage."""
    snapshot = scene.snapshot
    if scene.start is not None or snapshot is None:
        return START
    if snapshot.get("paused_at") is not None:
        return PAUSE
    return stage_kind(scene)


def stage_kind(scene: Scene) -> str:
    """The screen of the game's stage, paused or not (the pause screen's header is its)."""
    snapshot = scene.snapshot
    if snapshot is None:
        return START
    stage = snapshot.get("stage")
    return BOARD if stage is None else _BY_STAGE.get(stage, BOARD)
