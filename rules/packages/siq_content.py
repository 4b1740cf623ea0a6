"""``content.xml`` → :class:`~rules.packages.model.Package`: SIGame's XML dialects.

SIGame has written ``content.xml`` in three dialects over the years: format v5
(``https://github.com/VladimirKhil/SI/blob/master/assets/siq_5.xsd``: question
``type`` attributes, ``params`` with content ``item``\\ s) and the old
``ygpackage3.0.xsd`` formats v4 and v3 (``<type name=…>`` children,
``scenario/atom``), told apart by the namespace. This module maps all of them
into :mod:`rules.packages.model`, and is kept apart from the zip archive
(:mod:`rules.packages.siq`) because the mapping is pure: bytes in, a package
or a :class:`~rules.packages.model.PackageError` naming the place out, no
file, no media check.

The dialects stay in one reader on purpose: a question is read as it is found
(v5 ``params``, v5 ``script`` or v3/v4 ``scenario``), so a v5 file still
carrying deprecated v4 elements reads fine, and every dialect shares the
same places, prices, warnings and content sorting. The bytes reach the XML
parser only through :mod:`rules.packages.siq_xml` (no DTD, no entities).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final
from xml.etree import ElementTree as ET

from rules.packages.model import (
    MAX_PRICE,
    MAX_QUESTIONS,
    MAX_ROUNDS,
    MAX_THEMES,
    CatAnnounce,
    CatParams,
    CatReceiver,
    MediaKind,
    MediaRef,
    Package,
    PackageError,
    PackageSource,
    PriceChoice,
    Question,
    QuestionKind,
    Round,
    RoundKind,
    StakeParams,
    Theme,
)
from rules.packages.siq_names import check_media_name
from rules.packages.siq_xml import parse_xml

#: Warnings kept per package; the rest are counted.
MAX_WARNINGS: Final = 50

NS_V5: Final = "https://github.com/VladimirKhil/SI/blob/master/assets/siq_5.xsd"
#: v4 (and v3 as SIGame later wrote it).
NS_V4: Final = "http://vladimirkhil.com/ygpackage3.0.xsd"
#: v3 as the first SIGame versions wrote it.
NS_V3: Final = "http://ur-quan1986.narod.ru/ygpackage3.0.xsd"
_KNOWN_NAMESPACES: Final = {NS_V5: "5", NS_V4: "4", NS_V3: "3", "": ""}

#: Content item (v5) and atom (v3/v4) types → media kind; ``voice`` is the old audio.
_MEDIA_TYPES: Final = {
    "image": MediaKind.IMAGE,
    "audio": MediaKind.AUDIO,
    "voice": MediaKind.AUDIO,
    "video": MediaKind.VIDEO,
    "html": MediaKind.HTML,
}
#: Fragments shown on screen as text.
_TEXT_TYPES: Final = frozenset({"", "text"})
#: Fragments the host says aloud: v3/v4 ``say`` atoms (v5 marks them with a placement).
_SAY_TYPES: Final = frozenset({"say"})
#: The v5 placement of a fragment the host says aloud instead of showing it.
_SAY_PLACEMENT: Final = "replic"

#: SIGame question types that are played as a plain question here, and why.
_PLAIN_NOTES: Final = {
    "forAll": "SIGame 'forAll' (everyone answers in writing for the nominal) is played as plain",
    "stakeAll": "SIGame 'stakeAll' (everyone stakes and answers in writing) is played as plain",
    "custom": "SIGame 'custom' (played by hand in SIGame) is played as plain",
    "choice": "SIGame 'choice' (multiple choice) is played as plain",
}
_CAT_ANNOUNCE: Final = {
    "secret": CatAnnounce.AFTER,
    "secretOpenerPrice": CatAnnounce.AFTER,
    "secretPublicPrice": CatAnnounce.BEFORE,
    "secretNoQuestion": CatAnnounce.NEVER,
    "cat": CatAnnounce.AFTER,
    "bagcat": CatAnnounce.AFTER,
}
_KNOWS: Final = {
    "after": CatAnnounce.AFTER,
    "before": CatAnnounce.BEFORE,
    "never": CatAnnounce.NEVER,
}
_SELECTION: Final = {
    "exceptCurrent": CatReceiver.OTHERS,
    "any": CatReceiver.ANY,
    "current": CatReceiver.SELF,
}

#: SIGame's empty cell: a question slot with no question (``price="-1"``).
EMPTY_CELL_PRICE: Final = -1

_INT = re.compile(r"[+-]?\d{1,10}")
_COST_RANGE = re.compile(r"\[\s*(\d{1,10})\s*;\s*(\d{1,10})\s*\]\s*(?:/\s*(\d{1,10}))?")


def parse_content_xml(data: bytes, *, path: str = "") -> Package:
    """A :class:`Package` from the bytes of a ``content.xml`` (no archive, no media check)."""
    return _Parser(path or "content.xml").parse(data, path=path)


def cap_warnings(warnings: list[str]) -> tuple[str, ...]:
    """At most :data:`MAX_WARNINGS` warnings, then one line counting the rest."""
    if len(warnings) <= MAX_WARNINGS:
        return tuple(warnings)
    extra = len(warnings) - MAX_WARNINGS
    return (*warnings[:MAX_WARNINGS], f"… and {extra} more warnings")


def _local(tag: str) -> tuple[str, str]:
    """(namespace, local name) of an ElementTree tag."""
    if tag.startswith("{"):
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag


def _text(element: ET.Element | None) -> str:
    if element is None:
        return ""
    return "".join(element.itertext()).strip()


def _children(element: ET.Element | None, container: str, item: str) -> list[ET.Element]:
    """``element/container/item`` elements, in order."""
    if element is None:
        return []
    box = element.find(container)
    return [] if box is None else box.findall(item)


def _comment(element: ET.Element) -> str:
    info = element.find("info")
    return "" if info is None else _text(info.find("comments"))


class _Parser:
    """content.xml → Package, collecting warnings; errors name their place."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.warnings: list[str] = []

    def fail(self, where: str, message: str) -> PackageError:
        return PackageError(
            f"{self.label}: {where}: {message}" if where else f"{self.label}: {message}"
        )

    def warn(self, where: str, message: str) -> None:
        self.warnings.append(f"{where}: {message}" if where else message)

    def parse(self, data: bytes, *, path: str) -> Package:
        root = parse_xml(data, self.label)
        ns, local = _local(root.tag)
        if local != "package":
            raise PackageError(
                f"{self.label}: not a SIGame package: the root element of content.xml is "
                f"<{local}>, expected <package>"
            )
        for element in root.iter():
            # The package's own namespace is dropped; an element of any other
            # namespace keeps its {ns} prefix and so matches nothing below.
            if isinstance(element.tag, str) and _local(element.tag)[0] == ns:
                element.tag = _local(element.tag)[1]
        if ns not in _KNOWN_NAMESPACES:
            self.warn("", f"unknown namespace {ns!r}; read as a SIGame package")
        version = (root.get("version") or "").strip() or _KNOWN_NAMESPACES.get(ns, "")
        if version and _INT.fullmatch(version.split(".")[0]) and int(version.split(".")[0]) > 5:
            self.warn("", f"format version {version} is newer than this reader knows (5)")
        name = (root.get("name") or "").strip() or Path(path).stem
        rounds = [
            self.round(element, i)
            for i, element in enumerate(
                self.limited(_children(root, "rounds", "round"), MAX_ROUNDS, "", "rounds"), start=1
            )
        ]
        if not rounds:
            raise PackageError(f"{self.label}: the package has no rounds")
        source = PackageSource("siq", path, version, cap_warnings(self.warnings))
        return Package(name, tuple(rounds), source)

    def round(self, element: ET.Element, index: int) -> Round:
        name = (element.get("name") or "").strip()
        where = f"round {index} «{name}»"
        round_type = (element.get("type") or "").strip()
        note = ""
        if round_type == "final":
            kind = RoundKind.FINAL
        else:
            kind = RoundKind.MAIN
            if round_type not in ("", "standart", "standard"):
                note = f"SIGame round type {round_type!r} is played as a main round"
                self.warn(where, note)
        themes: list[Theme] = []
        theme_elements = self.limited(
            _children(element, "themes", "theme"), MAX_THEMES, where, "themes"
        )
        for t, theme_element in enumerate(theme_elements, start=1):
            theme = self.theme(theme_element, f"{where}, theme {t}", kind)
            if theme is not None:
                themes.append(theme)
        if not themes:
            raise self.fail(where, "the round has no questions")
        try:
            return Round(name, kind, tuple(themes), note)
        except PackageError as e:
            raise self.fail(where, str(e)) from e

    def theme(self, element: ET.Element, where: str, kind: RoundKind) -> Theme | None:
        name = (element.get("name") or "").strip()
        where = f"{where} «{name}»"
        questions: list[Question] = []
        seen: dict[int, int] = {}
        question_elements = self.limited(
            _children(element, "questions", "question"), MAX_QUESTIONS, where, "questions"
        )
        for q, question_element in enumerate(question_elements, start=1):
            question = self.question(question_element, f"{where}, question {q}", kind)
            if question is None:
                continue
            if kind is RoundKind.MAIN:
                if question.price in seen:
                    # SIGame shows both cells; this board addresses a cell by
                    # theme and price, so only the first can be chosen.
                    self.warn(
                        where,
                        f"questions {seen[question.price]} and {q} both cost {question.price}; "
                        f"only question {seen[question.price]} can be chosen on the board",
                    )
                else:
                    seen[question.price] = q
            questions.append(question)
        if not questions:
            self.warn(where, "the theme has no questions and is left out")
            return None
        return Theme(name, tuple(questions), _comment(element))

    def limited(
        self, elements: list[ET.Element], limit: int, where: str, what: str
    ) -> list[ET.Element]:
        """The elements, unless there are more than a package can sensibly have."""
        if len(elements) > limit:
            raise self.fail(where, f"{len(elements)} {what}, over the limit of {limit}")
        return elements

    def integer(self, raw: str | None, where: str, what: str) -> int:
        value = (raw or "").strip()
        if not _INT.fullmatch(value):
            shown = value if len(value) <= 40 else value[:40] + "…"
            raise self.fail(where, f"{what} {shown!r} is not a whole number")
        number = int(value)
        if abs(number) > MAX_PRICE:
            raise self.fail(where, f"{what} {number} is out of range (at most {MAX_PRICE})")
        return number

    def question(self, element: ET.Element, where: str, round_kind: RoundKind) -> Question | None:
        if element.get("price") is None:
            raise self.fail(where, "the question has no price")
        price = self.integer(element.get("price"), where, "price")
        if price == EMPTY_CELL_PRICE:
            return None  # SIGame's empty cell: nothing to play there
        if round_kind is RoundKind.MAIN and price <= 0:
            raise self.fail(where, f"price {price}: prices on the board must be positive")
        if price < 0:
            raise self.fail(where, f"price {price} is negative")

        type_element = element.find("type")
        type_name = (element.get("type") or "").strip()
        if not type_name and type_element is not None:
            type_name = (type_element.get("name") or "").strip()

        question = _Content()
        answer = _Content()
        params = element.find("params")
        script = element.find("script")
        scenario = element.find("scenario")
        if params is not None:
            self.params_content(params, where, question, answer)
        if script is not None:
            self.script_content(script, where, question, answer)
        if scenario is not None and params is None and script is None:
            self.scenario_content(scenario, where, question, answer)

        right = tuple(_text(a) for a in _children(element, "right", "answer") if _text(a))
        wrong = tuple(_text(a) for a in _children(element, "wrong", "answer") if _text(a))

        kind, cat, stake, note = self.kind(type_name, element, type_element, where, round_kind)
        return Question(
            price=price,
            kind=kind,
            text="\n".join(question.text),
            media=tuple(question.media),
            right=right,
            wrong=wrong,
            comment=_comment(element),
            answer_media=tuple(answer.media),
            cat=cat,
            stake=stake,
            origin_type=type_name if type_name not in ("simple", "default") else "",
            note=note,
            say="\n".join(question.say),
        )

    def kind(
        self,
        type_name: str,
        element: ET.Element,
        type_element: ET.Element | None,
        where: str,
        round_kind: RoundKind,
    ) -> tuple[QuestionKind, CatParams | None, StakeParams | None, str]:
        if type_name in ("", "simple", "default"):
            return QuestionKind.PLAIN, None, None, ""
        if round_kind is RoundKind.FINAL:
            return (
                QuestionKind.PLAIN,
                None,
                None,
                f"SIGame type {type_name!r} is ignored in the final round (written stakes, TV-F-3)",
            )
        if type_name in ("stake", "auction"):
            return QuestionKind.STAKE, None, StakeParams(), ""
        if type_name in ("noRisk", "sponsored"):
            return QuestionKind.SPONSOR, None, None, ""
        if type_name in _CAT_ANNOUNCE:
            cat = self.cat(type_name, element, type_element, where)
            note = ""
            if type_name == "secretOpenerPrice":
                note = "SIGame 'secretOpenerPrice': the opener, not the receiver, picks the value"
            return QuestionKind.CAT, cat, None, note
        note = _PLAIN_NOTES.get(
            type_name, f"SIGame question type {type_name!r} is unknown here; played as plain"
        )
        self.warn(where, note)
        return QuestionKind.PLAIN, None, None, note

    def cat(
        self,
        type_name: str,
        element: ET.Element,
        type_element: ET.Element | None,
        where: str,
    ) -> CatParams:
        announce = _CAT_ANNOUNCE[type_name]
        params = element.find("params")
        if params is not None and type_element is None:
            # v5: <param name="theme">, <param name="price" type="numberSet">, selectionMode.
            named = {p.get("name", ""): p for p in params.findall("param")}
            theme = _text(named.get("theme"))
            price = self.number_set(named.get("price"), where)
            mode = _text(named.get("selectionMode"))
        else:
            # v3/v4: <type name="cat|bagcat"><param name="theme|cost|self|knows">.
            named = (
                {}
                if type_element is None
                else {p.get("name", ""): p for p in type_element.findall("param")}
            )
            theme = _text(named.get("theme"))
            price = self.cost(_text(named.get("cost")), where)
            mode = ""
            if type_name == "bagcat":
                mode = "any" if _text(named.get("self")).lower() == "true" else "exceptCurrent"
                knows = _text(named.get("knows")) or "after"
                if knows not in _KNOWS:
                    raise self.fail(where, f"bagcat 'knows' {knows!r} is not before/after/never")
                announce = _KNOWS[knows]
        if mode and mode not in _SELECTION:
            self.warn(where, f"cat selection mode {mode!r} is unknown; read as exceptCurrent")
        receiver = _SELECTION.get(mode, CatReceiver.OTHERS)
        if theme == "-":  # SIGame's placeholder for "no theme" (knows=never)
            theme = ""
        return CatParams(theme=theme, price=price, receiver=receiver, announce=announce)

    def number_set(self, param: ET.Element | None, where: str) -> PriceChoice:
        if param is None:
            return PriceChoice()
        number_set = param.find("numberSet")
        if number_set is None:
            return self.cost(_text(param), where)
        values = [
            self.integer(number_set.get(attr) or "0", where, f"cat price {attr}")
            for attr in ("minimum", "maximum", "step")
        ]
        return self.choice(values[0], values[1], values[2], where)

    def cost(self, cost: str, where: str) -> PriceChoice:
        """v3/v4 ``cost``: ``700``, ``0`` (round min or max), ``[100;500]``, ``[100;1000]/200``."""
        cost = cost.strip()
        if not cost:
            return PriceChoice()
        match = _COST_RANGE.fullmatch(cost)
        if match:
            step = int(match.group(3)) if match.group(3) else 0
            return self.choice(int(match.group(1)), int(match.group(2)), step, where)
        value = self.integer(cost, where, "cat cost")
        return self.choice(value, value, 0, where)

    def choice(self, minimum: int, maximum: int, step: int, where: str) -> PriceChoice:
        if minimum > maximum:
            raise self.fail(where, f"cat price range {minimum}..{maximum} is reversed")
        try:
            return PriceChoice.of(minimum, maximum, step)
        except PackageError as e:
            raise self.fail(where, str(e)) from e

    def items(self, param: ET.Element, where: str, into: _Content) -> None:
        """v5 content ``item``\\ s, sorted into ``into``: shown text, spoken text, media."""
        for item in param.findall("item"):
            item_type = (item.get("type") or "").strip()
            value = (item.text or "").strip()
            is_ref = (item.get("isRef") or "").strip().lower() == "true"
            spoken = (item.get("placement") or "").strip() == _SAY_PLACEMENT
            self.fragment(item_type, value, is_ref, where, into, spoken=spoken)

    def fragment(
        self,
        item_type: str,
        value: str,
        is_ref: bool,
        where: str,
        into: _Content,
        *,
        spoken: bool = False,
    ) -> None:
        """One fragment of content. Text the host is to say (``spoken``, or a v3/v4
        ``say`` atom) goes to ``into.say``, never to the screen's text."""
        if item_type in _TEXT_TYPES or item_type in _SAY_TYPES:
            if value:
                (into.say if spoken or item_type in _SAY_TYPES else into.text).append(value)
            return
        kind = _MEDIA_TYPES.get(item_type)
        if kind is None:
            self.warn(where, f"content of type {item_type!r} is unknown and left out")
            return
        if not value:
            self.warn(where, f"an empty {kind.value} reference is left out")
            return
        if is_ref:
            try:
                check_media_name(value, self.label)
            except PackageError as e:
                raise self.fail(where, str(e).removeprefix(f"{self.label}: ")) from e
            into.media.append(MediaRef(kind, name=value))
        else:
            into.media.append(MediaRef(kind, inline=value))

    def params_content(
        self, params: ET.Element, where: str, question: _Content, answer: _Content
    ) -> None:
        for param in params.findall("param"):
            name = param.get("name", "")
            if name == "question":
                self.items(param, where, question)
            elif name == "answer":
                self.items(param, where, answer)
            elif name == "answerOptions":
                # Multiple choice: the options belong to what is shown.
                for option in param.findall("param"):
                    shown = _Content()
                    self.items(option, where, shown)
                    question.media.extend(shown.media)
                    label = option.get("name", "")
                    question.text.append(f"{label}) {' '.join(shown.text)}".strip())

    def script_content(
        self, script: ET.Element, where: str, question: _Content, answer: _Content
    ) -> None:
        for step in script.findall("step"):
            for param in step.findall("param"):
                name = param.get("name", "")
                if name == "answer":
                    self.items(param, where, answer)
                elif name == "content" and step.get("type") == "showContent":
                    self.items(param, where, question)

    def scenario_content(
        self, scenario: ET.Element, where: str, question: _Content, answer: _Content
    ) -> None:
        """v3/v4 atoms; those after the first ``marker`` belong to the answer."""
        into = question
        for atom in scenario.findall("atom"):
            atom_type = (atom.get("type") or "").strip()
            value = (atom.text or "").strip()
            if atom_type == "marker":
                into = answer
                continue
            is_ref = value.startswith("@")
            if is_ref:
                value = value[1:]
            self.fragment(atom_type, value, is_ref, where, into)


class _Content:
    """The fragments of a question's (or an answer's) content, sorted by where they go."""

    __slots__ = ("media", "say", "text")

    def __init__(self) -> None:
        #: Shown on the screen.
        self.text: list[str] = []
        #: Said by the host (v5 ``placement="replic"``, v3/v4 ``say``), not shown.
        self.say: list[str] = []
        self.media: list[MediaRef] = []
