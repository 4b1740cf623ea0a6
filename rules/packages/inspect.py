"""What a question package holds, for a host checking it before a game.

``svoyak package inspect FILE`` (:mod:`rules.packages.cli`) loads a
package with the ordinary readers and prints it with this module, either as
JSON (:func:`package_dict`, for scripts and tests) or as a table
(:func:`package_table`, for a person). Both are pure functions of the
:class:`~rules.packages.model.Package`: what they show is exactly what the
engine would play, holes and approximations included, because they read
the same model the engine reads and nothing else.

:func:`load_package` picks the reader by the name, so that the command takes
the same ``FILE`` that ``svoyak run --package`` and a journal's ``package``
header take: a ``.siq``, the project's own ``.json``, or ``svoyak:demo``.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from buzzer.words import LANGUAGES as WORD_LANGUAGES
from buzzer.words import table
from rules.board import board_order
from rules.packages.demo import BUILTIN_DEMO
from rules.packages.model import (
    CatAnnounce,
    CatParams,
    CatReceiver,
    MediaKind,
    MediaRef,
    Package,
    PackageError,
    PriceChoice,
    Question,
    QuestionKind,
    Round,
    RoundKind,
    StakeParams,
    Theme,
)
from rules.packages.own import media_json
from rules.special_counts import (
    SPECIAL_KINDS,
    TEXT_LANGUAGE,
    count_problems,
    counts_problems,
    era_counts,
    rules_counts,
)
from rules.specials.params import CatPrice, CatRules

#: The question kinds as the JSON names them. ``other`` is a SIGame type the
#: engine can only approximate (``forAll``, ``choice`` …: played as plain, with
#: a ``note`` saying so), told apart so that a host notices it before the game.
KIND_NAMES: Final = {
    QuestionKind.PLAIN: "normal",
    QuestionKind.STAKE: "auction",
    QuestionKind.CAT: "cat",
    QuestionKind.SPONSOR: "sponsor",
}

#: The table's languages: the catalogue's (the words are its ``package`` part).
LANGUAGES: Final = WORD_LANGUAGES


def load_package(name: str | os.PathLike[str]) -> Package:
    """The package ``name`` names: ``svoyak:demo``, a ``.siq`` or an own-format ``.json``.

    Any other suffix is recognised by its first bytes (a zip is a ``.siq``),
    so that a package renamed by a messenger app still opens. Every failure
    is a :class:`PackageError` naming the file.
    """
    if os.fspath(name) == BUILTIN_DEMO:
        from rules.packages.demo import DEMO_PACKAGE
        from rules.packages.own import load_json

        return load_json(DEMO_PACKAGE)
    path = Path(name)
    suffix = path.suffix.lower()
    if suffix not in (".siq", ".json"):
        try:
            with path.open("rb") as stream:
                head = stream.read(4)
        except FileNotFoundError:
            raise PackageError(f"{path}: no such file") from None
        except IsADirectoryError:
            raise PackageError(f"{path}: not a file") from None
        except OSError as exc:
            raise PackageError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
        suffix = ".siq" if head.startswith(b"PK") else ".json"
    if suffix == ".siq":
        from rules.packages.siq import load_siq

        return load_siq(path)
    from rules.packages.own import load_json

    return load_json(path)


# -- the era's special questions (TV-S-0b) -----------------------------------------


def special_counts(package: Package) -> list[dict[str, int]]:
    """Each main round's special questions by kind (``stake``, ``cat``, ``sponsor``)."""
    rounds: list[dict[str, int]] = []
    for game_round in package.main_rounds:
        counts = dict.fromkeys(SPECIAL_KINDS, 0)
        for theme in game_round.themes:
            for question in theme.questions:
                if question.kind is not QuestionKind.PLAIN:
                    counts[question.kind.value] += 1
        rounds.append(counts)
    return rounds


def era_check(
    package: Package, day: datetime.date, lang: str = TEXT_LANGUAGE
) -> tuple[str, list[str]]:
    """What the TV game of ``day`` had, and what in the package does not fit it, in ``lang``.

    The sponsor question's rounds come from that day's rule system (TV-S-SPN:
    rounds 1 and 3 while it exists, TV-S-0b). While the editors fixed the
    cat's value (Sep 1996 – Jul 2007), a cat whose value is its cell's own
    price does not fit either (TV-S-CAT-4-D1, :func:`cat_value_problems`).
    """
    from rules.eras import tv_rules_for

    system = tv_rules_for(day)
    fixed = _cat_value_fixed(system.cat)
    value_problems = cat_value_problems(package, lang) if fixed else []
    era = era_counts(day)
    if era is None:
        return table("package", lang)["era.no_counts"].format(date=day), value_problems
    sponsor_rounds = (1, 3) if system.sponsor_multiplier is not None else ()
    rounds = special_counts(package)
    return era.describe(lang), [
        *count_problems(day, rounds, sponsor_rounds=sponsor_rounds, lang=lang),
        *value_problems,
    ]


def _cat_value_fixed(cat: CatRules | None) -> bool:
    return cat is not None and cat.price is CatPrice.FIXED


def cat_value_problems(package: Package, lang: str = TEXT_LANGUAGE) -> list[str]:
    """The cats whose fixed value is their cell's own price (TV-S-CAT-4-D1).

    Seed 002, Sep 1996: the cats' values «не совпадают с исходными» — the
    editors gave a cat a value other than the price of the cell it hides in.
    A package that fixes a cat's value at its cell's price is not what the
    TV game had; the game still plays it (the host's ``cat_price`` is taken
    as entered), so this is a warning for the host before the game.
    """
    words = table("package", lang)
    problems: list[str] = []
    for number, game_round in enumerate(package.main_rounds, 1):
        for theme_number, theme in enumerate(game_round.themes, 1):
            for question in theme.questions:
                if question.kind is not QuestionKind.CAT or question.cat is None:
                    continue
                if question.cat.price.fixed_value == question.price:
                    problems.append(
                        words["era.problem.cat_value"].format(
                            n=number,
                            theme=theme_number,
                            name=_one_line(theme.name),
                            price=question.price,
                        )
                    )
    return problems


def board_order_notes(package: Package, day: datetime.date, lang: str = TEXT_LANGUAGE) -> list[str]:
    """The main rounds whose themes the board of ``day`` shows in another order than
    the package's (TV-H-2001-09, seed 002, Sep 2001: «темы в алфавитном порядке»).

    Not a misfit: the board orders them itself (the snapshot's ``theme_order``),
    while the journal keeps the package's numbers; the host is told the order
    the players will see.
    """
    from rules.eras import tv_rules_for

    order = tv_rules_for(day).theme_order
    notes: list[str] = []
    for number, game_round in enumerate(package.main_rounds, 1):
        names = tuple(theme.name for theme in game_round.themes)
        shown = board_order(names, order)
        if list(shown) != sorted(shown):
            listed = ", ".join(f"«{_one_line(names[n - 1])}»" for n in shown)
            words = table("package", lang)
            notes.append(words["era.alphabetical"].format(n=number, listed=listed))
    return notes


def rules_check(
    package: Package, rules_id: str, lang: str = TEXT_LANGUAGE
) -> tuple[str, list[str]] | None:
    """What rule system ``rules_id`` fixes, and what in the package does not fit it.

    None when the system fixes no counts whatever the date (the TV systems:
    their counts are the date's, :func:`era_check`). C2003-2.4.5: one stake
    question in the Blue round, two in the Red, and no cat or sponsor question.
    """
    counts = rules_counts(rules_id)
    if counts is None:
        return None
    return counts.describe(lang), counts_problems(counts, special_counts(package), lang=lang)


# -- JSON ---------------------------------------------------------------------


def question_kind(question: Question) -> str:
    """``normal`` / ``auction`` / ``cat`` / ``sponsor``, or ``other`` for an approximated type."""
    if question.kind is QuestionKind.PLAIN and question.note:
        return "other"
    return KIND_NAMES[question.kind]


def package_dict(package: Package) -> dict[str, Any]:
    """The package as plain JSON data; fields that would be empty are left out.

    The shape ``{name, rounds: [{name, final, themes: [{name, questions:
    [{price, kind, answer}]}]}]}`` is what scripts may rely on; every other
    field is extra and present only when the package says something.
    """
    source = package.source
    result: dict[str, Any] = {"name": package.name, "format": source.format}
    if source.version:
        result["version"] = source.version
    if source.warnings:
        result["warnings"] = list(source.warnings)
    result["rounds"] = [_round_dict(r) for r in package.rounds]
    return result


def _round_dict(game_round: Round) -> dict[str, Any]:
    result: dict[str, Any] = {
        "name": game_round.name,
        "final": game_round.kind is RoundKind.FINAL,
    }
    if game_round.note:
        result["note"] = game_round.note
    if game_round.kind is RoundKind.MAIN:
        result["prices"] = list(game_round.prices)
        holes = game_round.empty_cells()
        if holes:
            result["holes"] = [{"theme": theme, "price": price} for theme, price in holes]
    result["themes"] = [_theme_dict(t) for t in game_round.themes]
    return result


def _theme_dict(theme: Theme) -> dict[str, Any]:
    result: dict[str, Any] = {"name": theme.name}
    if theme.comment:
        result["comment"] = theme.comment
    result["questions"] = [_question_dict(q) for q in theme.questions]
    return result


def _question_dict(question: Question) -> dict[str, Any]:
    result: dict[str, Any] = {
        "price": question.price,
        "kind": question_kind(question),
        "answer": question.right[0] if question.right else "",
    }
    optional: dict[str, Any] = {
        "answers": list(question.right) if len(question.right) > 1 else None,
        "wrong": list(question.wrong),
        "text": question.text,
        "say": question.say,
        "comment": question.comment,
        "media": [media_json(m) for m in question.media],
        "answer_media": [media_json(m) for m in question.answer_media],
        "cat": _cat_dict(question.cat) if question.cat else None,
        "stake": _stake_dict(question.stake) if question.stake else None,
        "type": question.origin_type,
        "note": question.note,
    }
    result.update((key, value) for key, value in optional.items() if value)
    return result


def _cat_dict(cat: CatParams) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if cat.theme:
        result["theme"] = cat.theme
    price = cat.price
    if price.round_extremes:
        result["price"] = "round_min_or_max"
    elif price.fixed_value is not None:
        result["price"] = price.fixed_value
    else:
        result["price"] = {"minimum": price.minimum, "maximum": price.maximum}
        if price.step:
            result["price"]["step"] = price.step
    result["receiver"] = cat.receiver.value
    result["announce"] = cat.announce.value
    return result


def _stake_dict(stake: StakeParams) -> dict[str, int]:
    values = {"minimum": stake.minimum, "maximum": stake.maximum, "step": stake.step}
    return {key: value for key, value in values.items() if value is not None}


# -- the table ----------------------------------------------------------------


def package_table(package: Package, lang: str = "ru") -> str:
    """The package as text: a block per round, a line per question.

    Each line reads ``price  kind  answer  [media]``, and a special question
    adds what the package says about it (the cat's own theme and value, the
    stake limits), because that is what a host must check against the rules
    of the evening before the players sit down.
    """
    words = table("package", lang)
    source = package.source
    fmt = source.format + (f" v{source.version}" if source.version else "")
    lines = [
        f"{words['package']} «{package.name}» ({fmt}), {words['rounds']}: {len(package.rounds)}"
    ]
    if source.warnings:
        lines.append(f"{words['warnings']}:")
        lines.extend(f"  - {_one_line(w)}" for w in source.warnings)
    for number, game_round in enumerate(package.rounds, 1):
        lines.append("")
        lines.extend(_round_lines(number, game_round, words))
    return "\n".join(lines) + "\n"


def _round_lines(number: int, game_round: Round, words: Mapping[str, str]) -> list[str]:
    final = game_round.kind is RoundKind.FINAL
    title = words["final"] if final else f"{words['round']} {number}"
    head = f"{title} «{_one_line(game_round.name)}» — {words['themes']}: {len(game_round.themes)}"
    if not final:
        head += f", {words['prices']}: " + ", ".join(str(p) for p in game_round.prices)
    lines = [head]
    if game_round.note:
        lines.append(f"  ({_one_line(game_round.note)})")
    if not final and game_round.empty_cells():
        holes = ", ".join(f"{t}/{p}" for t, p in game_round.empty_cells())
        lines.append(f"  {words['holes']}: {holes}")
    price_width = max(len(str(q.price)) for t in game_round.themes for q in t.questions)
    kind_width = max(len(words[question_kind(q)]) for t in game_round.themes for q in t.questions)
    for index, theme in enumerate(game_round.themes, 1):
        theme_head = f"  {words['theme']} {index} «{_one_line(theme.name)}»"
        if theme.comment:
            theme_head += f" ({_one_line(theme.comment)})"
        lines.append(theme_head)
        for question in theme.questions:
            kind = words[question_kind(question)]
            answer = _one_line(question.right[0]) if question.right else words["no_answer"]
            if final:
                # A final question has neither a price nor a kind: it is played for
                # written stakes (TV-F-3, C2003-2.7), whatever the package says.
                row = f"    {answer}"
            else:
                row = f"    {question.price:>{price_width}}  {kind:<{kind_width}}  {answer}"
            extras = _question_extras(question, words)
            if extras:
                row += "  [" + "; ".join(extras) + "]"
            lines.append(row.rstrip())
    return lines


def _question_extras(question: Question, words: Mapping[str, str]) -> list[str]:
    extras: list[str] = []
    if len(question.right) > 1:
        others = " / ".join(_one_line(a) for a in question.right[1:])
        extras.append(f"{words['also']}: {others}")
    if question.cat is not None:
        extras.extend(_cat_extras(question.cat, words))
    if question.stake is not None:
        stake = question.stake
        for key, value in (
            ("stake_min", stake.minimum),
            ("stake_max", stake.maximum),
            ("stake_step", stake.step),
        ):
            if value is not None:
                extras.append(f"{words[key]} {value}")
    media = _media_kinds(question.media, words)
    if media:
        extras.append(media)
    answer_media = _media_kinds(question.answer_media, words)
    if answer_media:
        extras.append(f"{words['answer']}: {answer_media}")
    if question.note:
        extras.append(_one_line(question.note))
    return extras


def _cat_extras(cat: CatParams, words: Mapping[str, str]) -> list[str]:
    extras: list[str] = []
    if cat.theme:
        extras.append(f"{words['cat_theme']} «{_one_line(cat.theme)}»")
    extras.append(f"{words['cat_price']} {_price_choice(cat.price, words)}")
    extras.append(
        {
            CatReceiver.OTHERS: words["to_others"],
            CatReceiver.ANY: words["to_any"],
            CatReceiver.SELF: words["to_self"],
        }[cat.receiver]
    )
    if cat.announce is CatAnnounce.BEFORE:
        extras.append(words["before"])
    elif cat.announce is CatAnnounce.NEVER:
        extras.append(words["never"])
    return extras


def _price_choice(price: PriceChoice, words: Mapping[str, str]) -> str:
    if price.round_extremes:
        return words["round_extremes"]
    if price.fixed_value is not None:
        return str(price.fixed_value)
    if price.step == 0:
        return f"{price.minimum} {words['either']} {price.maximum}"
    return f"{price.minimum}..{price.maximum}, {words['step']} {price.step}"


def _media_kinds(media: tuple[MediaRef, ...], words: Mapping[str, str]) -> str:
    """The kinds of a question's media, in package order, each once (``image, audio``)."""
    kinds: list[MediaKind] = []
    for ref in media:
        if ref.kind not in kinds:
            kinds.append(ref.kind)
    return ", ".join(words[k.value] for k in kinds)


def _one_line(text: str) -> str:
    """Text from the package on one line: a name with newlines must not break the table."""
    return " ".join(text.split())
