"""The journal's package, for the screen: what the snapshot does not carry.

The snapshot names the cell (round, theme, price) or the final's theme; the
question's text, pictures, sound, a cat's package theme and price, and the
final's answer are looked up here (:meth:`PackageTexts.on_board`), for the
live board, the replay and the screenshots alike (:mod:`display.media`
decodes and plays what it finds).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules.packages import (
    CatParams,
    MediaRef,
    Package,
    PackageError,
    Question,
)
from rules.packages.locate import load_named_package
from rules.packages.own import read_media as read_own_media
from rules.packages.siq import read_media as read_siq_media
from rules.snapshot import GameSnapshot, StageName

#: Stages of a main-round cell, from its selection to its end.
_CELL_STAGES: frozenset[StageName] = frozenset(
    {"question", "special", "bidding", "cat_give", "cat_price"}
)
#: Stages of the final, for the host's view (:meth:`PackageTexts.host_view`).
_FINAL_STAGES: frozenset[StageName] = frozenset({"final_remove", "final_stakes", "final_judging"})


def _host_question(question: Question) -> dict[str, Any]:
    """One question as the host's panel shows it (:meth:`PackageTexts.host_view`).

    ``media``: what the board shows with it besides the text, as kinds in package
    order, each once (:func:`_host_media`); ``cat_receiver``: whom the package lets
    a cat go to (``others``, ``any``: the chooser may keep it, ``self``), for the
    host to be told when the rules say otherwise; None for any other question.
    """
    cat = question.cat
    return {
        "text": question.text,
        "say": question.say,
        "answer": list(question.right),
        "comment": question.comment,
        "media": _host_media(question.media),
        "cat": None if cat is None else _host_cat(cat),
        "cat_receiver": None if cat is None else cat.receiver.value,
    }


def _host_media(media: tuple[MediaRef, ...]) -> list[str]:
    """The kinds of a question's media as the board treats them: ``image``, ``audio``,
    ``video`` (not played), ``html`` (not shown), ``link`` (inline content naming a
    web address: not shown), each once, in package order."""
    kinds: list[str] = []
    for ref in media:
        inline = (ref.inline or "").strip().lower()
        link = inline.startswith(("http://", "https://", "//", "www."))
        kind = "link" if link else ref.kind.value
        if kind not in kinds:
            kinds.append(kind)
    return kinds


def _host_cat(cat: CatParams) -> dict[str, Any]:
    """A cat's theme and value as its package states them, for the host to announce.

    ``price``: the package's fixed value; ``range``: ``[min, max, step]`` when it
    offers a range; both None when it leaves the value to the round's minimum
    or maximum. Whether the rule system honours them is the engine's business.
    """
    price = cat.price
    fixed = price.fixed_value
    ranged = fixed is None and not price.round_extremes
    return {
        "theme": cat.theme or None,
        "price": fixed,
        "range": [price.minimum, price.maximum, price.step] if ranged else None,
        "announce": cat.announce.value,
    }


@dataclass(frozen=True, slots=True)
class OnBoard:
    """The package's part of the board at one moment (the snapshot carries none of it).

    ``key`` names the question (a cell of a round, or a final theme), so
    that the board decodes a question's pictures and starts its sound once.
    """

    key: tuple[str | int, ...]
    #: The question's screen text while it is asked; None when there is none.
    text: str | None = None
    #: Its media while it is asked.
    media: tuple[MediaRef, ...] = ()
    #: A cat in the bag's package theme and price (the engine sets the value played).
    cat: CatParams | None = None
    #: The final's right answer, once every verdict is in.
    answer: str | None = None


@dataclass(frozen=True, slots=True)
class PackageTexts:
    """Looks up the text of the question a snapshot is on."""

    package: Package | None = None

    @property
    def final_themes(self) -> tuple[str, ...]:
        final = self.package.final if self.package is not None else None
        return tuple(theme.name for theme in final.themes) if final is not None else ()

    def host_view(self, snapshot: GameSnapshot) -> dict[str, Any] | None:
        """What the host reads at the snapshot's moment: for the host's panel only.

        Never sent to a viewer's page (a player's phone may show one). A
        main-round cell, from its selection to its end, specials included (the
        host announces a cat before the hand-over and reads a stake question
        after the bidding): the question, the host's spoken lines, the right
        answers, the comment, and a cat's own theme and value as the package
        states them (the engine sets the value played). The final: the real
        theme names from its start (the host removes themes by name, as the
        board shows them), and its question, answer and media once every stake is in
        (``final_judging``), when the host reads it out: never while stakes
        are still being written. None when the package has nothing to say.
        """
        if self.package is None or snapshot.get("shootout"):
            return None
        stage = snapshot.get("stage")
        if stage in _CELL_STAGES:
            found = self._cell(snapshot)
            return None if found is None else _host_question(found[1])
        if stage in _FINAL_STAGES and self.package.final is not None and snapshot.get("final"):
            view: dict[str, Any] = {"final_themes": list(self.final_themes)}
            if stage == "final_judging":
                theme = self._final_theme(snapshot)
                if theme is not None:
                    view.update(_host_question(theme[1]))
            return view
        return None

    def question(self, snapshot: GameSnapshot) -> str | None:
        """The text the board shows for the question being played, if the package has one.

        Only the screen's text: what the host is to say aloud (``Question.say``)
        stays off the board. The final's question counts from the moment it is
        asked, when every stake is in (stage ``final_judging``).
        """
        found = self.on_board(snapshot)
        return found.text if found is not None else None

    def on_board(self, snapshot: GameSnapshot | None) -> OnBoard | None:
        """What the package puts on the board at the snapshot's moment, or None.

        A main-round cell (from its selection to its end): its media and text
        while it is asked (stages ``question``, ``special``), a cat's package
        theme and price from the hand-over on (``cat_give``, ``cat_price``,
        ``special``). The final: its question and media once the stakes are in
        (``final_judging``), its right answer once every verdict is in (the
        game over). When each of these is *shown* is the view's business.
        """
        if self.package is None or not snapshot or snapshot.get("shootout"):
            return None
        stage = snapshot.get("stage")
        if stage in _CELL_STAGES:
            found = self._cell(snapshot)
            if found is None:
                return None
            key, question = found
            asked = stage in ("question", "special")
            return OnBoard(
                key,
                (question.text or None) if asked else None,
                question.media if asked else (),
                question.cat if snapshot.get("special") == "cat" else None,
            )
        if stage in ("final_judging", "over"):
            theme = self._final_theme(snapshot)
            if theme is None:
                return None
            number, question = theme
            final = snapshot.get("final")
            if stage == "final_judging":
                return OnBoard(("final", number), question.text or None, question.media)
            if final and final.get("judge_order"):
                return None  # over without every verdict: no final was judged
            answer = question.right[0] if question.right else None
            return OnBoard(("final", number), answer=answer)
        return None

    def media_bytes(self, media: MediaRef, max_bytes: int) -> bytes:
        """A media file of the package, at most ``max_bytes`` (raises :class:`PackageError`)."""
        package = self.package
        if package is None or not package.source.path:
            raise PackageError("the package was not read from a file: it has no media files")
        if package.source.format == "siq":
            return read_siq_media(package.source.path, media, max_bytes=max_bytes)
        return read_own_media(package.source.path, media, max_bytes=max_bytes)

    def _cell(self, snapshot: GameSnapshot) -> tuple[tuple[str | int, ...], Question] | None:
        """The main-round question at the snapshot's cell, with a key naming it."""
        assert self.package is not None
        cell = snapshot.get("cell")
        rounds = self.package.main_rounds
        round_no = int(snapshot.get("round") or 0)
        if not cell or not 1 <= round_no <= len(rounds):
            return None
        theme, price = int(cell[0]), int(cell[1])
        try:
            question = rounds[round_no - 1].question_at(theme, price)
        except IndexError:
            return None
        if question is None:
            return None
        return ("cell", round_no, theme, price), question

    def _final_theme(self, snapshot: GameSnapshot) -> tuple[int, Question] | None:
        """The final theme left in play (by its number) and its question."""
        assert self.package is not None
        final_round = self.package.final
        final = snapshot.get("final")
        left = list(final.get("themes_left") or ()) if final else []
        if final_round is None or len(left) != 1:
            return None
        number = int(left[0])
        if not 1 <= number <= len(final_round.themes):
            return None
        return number, final_round.themes[number - 1].questions[0]

    @classmethod
    def from_header(cls, header: str, base: Path | None) -> PackageTexts:
        """The package a journal header names (``package``), or none."""
        try:
            name = json.loads(header).get("package")
        except (ValueError, AttributeError):
            return cls()
        if not isinstance(name, str):
            return cls()
        try:
            return cls(load_named_package(name, base))
        except (PackageError, OSError):
            return cls()
