"""Question packages as plain data: what a game is played *from*.

A package is read once (``siq.load_siq`` for SIGame's ``.siq`` archives,
``own.load_json`` for the project's own JSON format) into these frozen values,
and the engine never asks which format it came from. Everything here is pure:
no I/O, no clock. Media are *references* (a file name inside the package, or
inline content); the bytes are read on demand by the reader that made the
package, so that loading a package never unpacks anything.

The special-question parameters (:class:`CatParams`, :class:`StakeParams`)
record what the *package* says. They are era-independent on purpose: whether
a rule system honours them (the cat's fixed value before Aug 2007, TV-S-CAT-4)
or overrides them (the receiver's choice of the round's minimum or maximum
since Aug 2007, TV-S-CAT-2) is the engine's decision, not the reader's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from buzzer.errors import SvoyakError
from rules.board import RoundSpec

#: The most options a cat's price choice may offer; a hostile ``[0;10^9]/1``
#: would otherwise make :meth:`PriceChoice.options` build a billion numbers.
MAX_PRICE_OPTIONS = 1000
#: The largest price, cat value or stake limit a package may state. Real
#: packages stay far below; the bound keeps arithmetic and displays sane.
MAX_PRICE = 1_000_000_000
#: Size limits: far beyond any real package (TV: 3–4 rounds, 6 themes × 5
#: prices; SIGame packages rarely exceed 20 × 15), and small enough that every
#: per-round computation (the board, its holes) stays instant on hostile input.
MAX_ROUNDS = 100
MAX_THEMES = 100
MAX_QUESTIONS = 100
#: Distinct prices of one main round (the board's rows).
MAX_BOARD_PRICES = 100
#: The largest media file a reader returns by default, whatever the package's
#: format (``siq.SiqArchive.read_media``, ``own.read_media``): one limit, one home.
MAX_MEDIA_BYTES = 256 * 1024 * 1024


class PackageError(SvoyakError, ValueError):
    """A package that cannot be played, with a message a host can act on.

    Every reader turns whatever goes wrong (a broken archive, hostile XML, a
    price that is not a number) into this one exception, naming *where* in the
    package the problem is, so that a host sees "round 2 «…», theme 3 «…»,
    question 4: price 'abc' is not a whole number" and not a traceback.
    """


class RoundKind(Enum):
    """Whether a round is played on the board or is the final round."""

    #: Themes × prices on the board, questions chosen by the chooser (TV-G-3).
    MAIN = "main"
    #: Themes removed in turn until one is left, then written stakes (TV-F-2..5,
    #: C2003-2.7). Only the first question of the remaining theme is played.
    FINAL = "final"


class QuestionKind(Enum):
    """How a question is played; the four kinds the rules know (docs/rules.md B.1, B.2)."""

    #: Buttons, ±price (C2003-2.4.2, TV-G-5).
    PLAIN = "plain"
    #: Stake question / auction: bidding, only the winner answers (C2003-2.4.6,
    #: TV-S-AUC-*). SIGame: ``stake`` (v5), ``auction`` (v3/v4).
    STAKE = "stake"
    #: Cat in the bag: handed to another player (TV-S-CAT-*). SIGame:
    #: ``secret``, ``secretPublicPrice``, ``secretNoQuestion`` (v5), ``cat``,
    #: ``bagcat`` (v3/v4).
    CAT = "cat"
    #: Sponsor question: the opener alone, +2 × price or nothing (TV-S-SPN-*).
    #: SIGame: ``noRisk`` (v5), ``sponsored`` (v3/v4).
    SPONSOR = "sponsor"


class MediaKind(Enum):
    """What a media reference is; also names the folder SIGame keeps it in."""

    IMAGE = "image"
    AUDIO = "audio"
    VIDEO = "video"
    HTML = "html"


class CatReceiver(Enum):
    """Who may receive a cat, as the package states it (TV-S-CAT-1)."""

    #: Must be handed to an opponent (the rule since Mar 1997). SIGame ``exceptCurrent``,
    #: ``bagcat self=false``, and every plain ``cat``.
    OTHERS = "others"
    #: The opener may also keep it (Sep 1996 – Mar 1997). SIGame ``any``, ``self=true``.
    ANY = "any"
    #: Only the opener plays it. SIGame v5 ``selectionMode="current"``.
    SELF = "self"


class CatAnnounce(Enum):
    """When the cat's theme and value are revealed, relative to the hand-over."""

    #: After the hand-over (SIGame ``secret``, ``bagcat knows=after``, every ``cat``).
    AFTER = "after"
    #: Before the hand-over (SIGame ``secretPublicPrice``, ``knows=before``;
    #: TV-S-CAT-4's Jan 2005 games).
    BEFORE = "before"
    #: Never: there is no question, the receiver simply gets the value (SIGame
    #: ``secretNoQuestion``, ``knows=never``). The rules of the show have no
    #: such cat; an engine may refuse it or play it as a gift.
    NEVER = "never"


@dataclass(frozen=True, slots=True)
class PriceChoice:
    """The values a cat's receiver may play for.

    Kept in one canonical form (build it with :meth:`of`) so that the same
    choice written by SIGame v3 (``[100;500]``) and v5 (``numberSet 100 500
    400``) compares equal:

    * ``minimum == maximum == 0``: the round's lowest or highest price, the
      receiver's choice (TV-S-CAT-2; SIGame's ``0``).
    * ``minimum == maximum > 0``: that value, fixed (TV-S-CAT-4).
    * ``step == 0``, ``minimum < maximum``: either end, nothing between.
    * ``0 < step < maximum - minimum``: ``minimum``, ``minimum + step``, … up to ``maximum``.
    """

    minimum: int = 0
    maximum: int = 0
    step: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.minimum <= self.maximum <= MAX_PRICE:
            raise PackageError(
                f"cat price range {self.minimum}..{self.maximum} must satisfy "
                f"0 ≤ minimum ≤ maximum ≤ {MAX_PRICE}"
            )
        span = self.maximum - self.minimum
        if self.step < 0 or (span == 0 and self.step != 0) or (span and self.step >= span):
            raise PackageError(
                f"cat price step {self.step} is not canonical for {self.minimum}..{self.maximum}"
                " (use PriceChoice.of)"
            )
        if self.step and span // self.step + 1 > MAX_PRICE_OPTIONS:
            raise PackageError(
                f"cat price {self.minimum}..{self.maximum} in steps of {self.step} offers more "
                f"than {MAX_PRICE_OPTIONS} values"
            )

    @classmethod
    def of(cls, minimum: int, maximum: int, step: int = 0) -> PriceChoice:
        """The canonical choice for SIGame's (minimum, maximum, step) triple.

        A step of 0, or one that reaches from one end to the other, means the
        two ends only; a single value has no step.
        """
        span = maximum - minimum
        if span <= 0 or step <= 0 or step >= span:
            step = 0
        return cls(minimum, maximum, step)

    @classmethod
    def fixed(cls, value: int) -> PriceChoice:
        return cls(value, value, 0)

    @property
    def round_extremes(self) -> bool:
        """The receiver chooses the round's lowest or highest price (TV-S-CAT-2)."""
        return self.maximum == 0

    @property
    def fixed_value(self) -> int | None:
        """The single value, when the package fixes it; else None."""
        return self.minimum if self.minimum == self.maximum and self.minimum > 0 else None

    def options(self, round_prices: tuple[int, ...]) -> tuple[int, ...]:
        """The values on offer, ascending, given the prices of the cat's round."""
        if self.round_extremes:
            if not round_prices:
                return ()
            return tuple(sorted({min(round_prices), max(round_prices)}))
        if self.minimum == self.maximum:
            return (self.minimum,)
        if self.step == 0:
            return (self.minimum, self.maximum)
        return tuple(range(self.minimum, self.maximum + 1, self.step))


@dataclass(frozen=True, slots=True)
class CatParams:
    """What the package says about one cat in the bag (TV-S-CAT-*).

    SIGame packages always state these; the engine's rule system decides
    which of them apply in its era.
    """

    #: The theme the host announces (TV-S-CAT-2: differs from the cell's). "" when none given.
    theme: str = ""
    price: PriceChoice = field(default_factory=PriceChoice)
    receiver: CatReceiver = CatReceiver.OTHERS
    announce: CatAnnounce = CatAnnounce.AFTER
    #: TV-S-CAT-5: a series of pictures; the answer is worth ``series[k - 1]``
    #: after the k-th picture (smaller and smaller). Empty: one value, as usual.
    series: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class StakeParams:
    """Bidding limits of one stake question, when the package states them.

    SIGame packages never do (the rule system sets them: C2003-2.4.6-D1/D2,
    TV-S-AUC-1), so a ``.siq`` stake question has all three None. The project's
    own format may set them for house rules.
    """

    #: The lowest opening bid; None → the rule system's (the nominal, TV-S-AUC-1).
    minimum: int | None = None
    #: The highest bid; None → the bidder's score (all-in).
    maximum: int | None = None
    #: Bids are multiples of this; None → the rule system's (10 or 100).
    step: int | None = None

    def __post_init__(self) -> None:
        for name in ("minimum", "maximum", "step"):
            value = getattr(self, name)
            if value is not None and not 0 < value <= MAX_PRICE:
                raise PackageError(f"stake {name} must be 1..{MAX_PRICE}, got {value}")
        if self.minimum is not None and self.maximum is not None and self.minimum > self.maximum:
            raise PackageError(f"stake minimum {self.minimum} exceeds maximum {self.maximum}")


@dataclass(frozen=True, slots=True)
class MediaRef:
    """One picture, sound, video or HTML fragment of a question or answer.

    Either ``name`` (a file inside the package, read on demand by the reader
    that loaded it) or ``inline`` (content carried in the package text itself:
    usually an external URL, sometimes HTML) is set, never both. Loading keeps
    references only, so a package with a gigabyte of video loads instantly and
    nothing is unpacked to disk.
    """

    kind: MediaKind
    name: str | None = None
    inline: str | None = None

    def __post_init__(self) -> None:
        if (self.name is None) == (self.inline is None):
            raise PackageError("a media reference needs exactly one of a file name or inline text")
        if self.name is not None and not self.name:
            raise PackageError("a media file name must not be empty")


@dataclass(frozen=True, slots=True)
class Question:
    """One cell: its price, how it is played, what is shown and what is accepted."""

    price: int
    kind: QuestionKind = QuestionKind.PLAIN
    #: The question as the screen shows it, fragments joined by newlines. Only
    #: what the package puts on screen: the host's spoken lines are :attr:`say`.
    text: str = ""
    #: Media shown with the question, in package order.
    media: tuple[MediaRef, ...] = ()
    #: Right answers; the first is the one displayed.
    right: tuple[str, ...] = ()
    #: Answers known to be wrong (for the host's and a bot's benefit).
    wrong: tuple[str, ...] = ()
    #: Shown after the question (SIGame's question comment).
    comment: str = ""
    #: Media shown with the answer (SIGame v5 ``answer`` content, v3/v4 atoms after the marker).
    answer_media: tuple[MediaRef, ...] = ()
    #: Set exactly when ``kind`` is CAT.
    cat: CatParams | None = None
    #: Set exactly when ``kind`` is STAKE.
    stake: StakeParams | None = None
    #: The package's own type name (``secretPublicPrice``, ``bagcat`` …), "" for a plain one.
    origin_type: str = ""
    #: Why the kind was approximated, e.g. a SIGame ``forAll`` played as plain; else "".
    note: str = ""
    #: What the host says aloud and the board must not show (SIGame v5 items with
    #: ``placement="replic"``, v3/v4 atoms of type ``say``), fragments joined by
    #: newlines. SIGame puts it in the host's speech bubble; mixing it into
    #: :attr:`text` showed the host's cue as the question.
    say: str = ""

    def __post_init__(self) -> None:
        if (self.kind is QuestionKind.CAT) != (self.cat is not None):
            raise PackageError("cat parameters go with, and only with, a cat question")
        if (self.kind is QuestionKind.STAKE) != (self.stake is not None):
            raise PackageError("stake parameters go with, and only with, a stake question")


@dataclass(frozen=True, slots=True)
class Theme:
    """One theme (a board column, or one theme of the final)."""

    name: str
    questions: tuple[Question, ...]
    #: The theme's comment (often the common part of its questions: "Name the singer").
    comment: str = ""

    def __post_init__(self) -> None:
        if not self.questions:
            raise PackageError(f"theme {self.name!r} has no questions")
        if len(self.questions) > MAX_QUESTIONS:
            raise PackageError(
                f"theme {self.name!r} has {len(self.questions)} questions, over the limit of "
                f"{MAX_QUESTIONS}"
            )

    @property
    def prices(self) -> tuple[int, ...]:
        return tuple(q.price for q in self.questions)


@dataclass(frozen=True, slots=True)
class Round:
    """One round of a package.

    Themes of one round may have different prices (real packages leave holes,
    e.g. SIGame's empty cell ``price="-1"``). The board (:class:`RoundSpec`)
    has one price list per round, so :attr:`prices` is the union of all the
    themes' prices and :meth:`question_at` answers per cell; a cell of the
    union that a theme lacks is a hole (:meth:`empty_cells`), which the engine
    should mark played when the round starts, so that the round can finish.

    A theme may even have one price twice (SIGame allows it). The model keeps
    both questions, in package order; the board can only reach the first
    (:meth:`question_at`), and the reader says so in the package's warnings.
    """

    name: str
    kind: RoundKind
    themes: tuple[Theme, ...]
    #: Why the round kind was approximated (an unknown SIGame round type); else "".
    note: str = ""

    def __post_init__(self) -> None:
        if not self.themes:
            raise PackageError(f"round {self.name!r} has no themes")
        if len(self.themes) > MAX_THEMES:
            raise PackageError(
                f"round {self.name!r} has {len(self.themes)} themes, over the limit of {MAX_THEMES}"
            )
        if self.kind is RoundKind.MAIN:
            if len(self.prices) > MAX_BOARD_PRICES:
                raise PackageError(
                    f"round {self.name!r} has {len(self.prices)} different prices, over the "
                    f"limit of {MAX_BOARD_PRICES} rows on the board"
                )
            for theme in self.themes:
                prices = theme.prices
                if any(p <= 0 for p in prices):
                    raise PackageError(
                        f"round {self.name!r}, theme {theme.name!r}: prices on the board "
                        f"must be positive, got {prices}"
                    )

    @property
    def prices(self) -> tuple[int, ...]:
        """Every price of the round, ascending (the board's row values)."""
        return tuple(sorted({q.price for t in self.themes for q in t.questions}))

    @property
    def is_regular(self) -> bool:
        """Every theme has exactly the round's prices: no holes on the board."""
        prices = set(self.prices)
        return all(set(t.prices) == prices for t in self.themes)

    def question_at(self, theme: int, price: int) -> Question | None:
        """The question at a board cell, or None for a hole.

        ``theme`` is numbered from 1, as :class:`rules.board.Board` numbers it.
        Should the theme have the price twice, the first question in package order.
        """
        if not 1 <= theme <= len(self.themes):
            raise IndexError(f"theme {theme} is not in round {self.name!r} (1..{len(self.themes)})")
        for question in self.themes[theme - 1].questions:
            if question.price == price:
                return question
        return None

    def empty_cells(self) -> tuple[tuple[int, int], ...]:
        """Board cells (theme from 1, price) that have no question."""
        prices = self.prices
        cells: list[tuple[int, int]] = []
        for i, theme in enumerate(self.themes, start=1):
            present = set(theme.prices)
            cells.extend((i, price) for price in prices if price not in present)
        return tuple(cells)

    def spec(self) -> RoundSpec:
        """This main round as the board sees it: theme titles and the union of prices."""
        if self.kind is not RoundKind.MAIN:
            raise PackageError(f"round {self.name!r} is a final round, not a board")
        return RoundSpec(
            self.name,
            tuple(t.name for t in self.themes),
            self.prices,
            frozenset(self.empty_cells()),
        )


@dataclass(frozen=True, slots=True)
class PackageSource:
    """Where a package came from, and what the reader had to approximate.

    Not part of a package's identity (:class:`Package` compares without it):
    the same questions read from a v3 and a v5 file are the same package.
    """

    #: ``siq`` or ``json``.
    format: str
    #: The file it was read from ("" when parsed from memory).
    path: str = ""
    #: The format's version: SIGame ``3``, ``4``, ``5``; own format ``1``.
    version: str = ""
    #: Things the host should know (a missing media file, a dropped empty theme).
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Package:
    """A question package: its rounds in play order, main and final alike."""

    name: str
    rounds: tuple[Round, ...]
    source: PackageSource = field(default=PackageSource("memory"), compare=False)

    def __post_init__(self) -> None:
        if not self.rounds:
            raise PackageError(f"package {self.name!r} has no rounds")
        if len(self.rounds) > MAX_ROUNDS:
            raise PackageError(
                f"package {self.name!r} has {len(self.rounds)} rounds, over the limit of "
                f"{MAX_ROUNDS}"
            )

    @property
    def main_rounds(self) -> tuple[Round, ...]:
        return tuple(r for r in self.rounds if r.kind is RoundKind.MAIN)

    @property
    def final(self) -> Round | None:
        """The final round, if the package has one (the first, should it have several)."""
        return next((r for r in self.rounds if r.kind is RoundKind.FINAL), None)

    def board_rounds(self) -> tuple[RoundSpec, ...]:
        """The main rounds as the board's :class:`RoundSpec`, in order (see :class:`Round`)."""
        return tuple(r.spec() for r in self.main_rounds)
