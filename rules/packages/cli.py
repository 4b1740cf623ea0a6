"""``svoyak package …``: question packages on the command line.

Registered through ``buzzer.cli._COMMAND_MODULES``.

Keep this module light: it is imported every time ``svoyak`` parses its
arguments, so the handlers import the readers when they run.

- ``svoyak package inspect FILE [--json] [--lang ru|en]`` — what a package
  holds (rounds, themes, prices, kinds, answers), checked before a game;
  ``--date`` / ``--rules`` check its special questions (TV-S-0b, C2003-2.4.5).
"""

from __future__ import annotations

import argparse
import datetime
import sys
from typing import Any

from rules.packages.demo import BUILTIN_DEMO


def add_commands(subparsers: Any) -> None:
    """Register ``svoyak package`` on ``svoyak``'s subparsers."""
    package = subparsers.add_parser(
        "package",
        help="question packages: inspect one before a game",
        description="Question packages: SIGame .siq, the project's own .json "
        f"(docs/packages.md), or {BUILTIN_DEMO}.",
    )
    actions = package.add_subparsers(dest="package_command", metavar="ACTION")
    actions.required = True
    inspect = actions.add_parser(
        "inspect",
        help="print a package's rounds, themes, prices, question kinds and answers",
        description="Read a question package as a game would and print what it holds: every "
        "round, theme and price, each question's kind (normal, auction, cat in the bag, "
        "sponsor) and answer, what the package says about its special questions, and the "
        "reader's warnings. A package that cannot be played: one line on stderr, exit status 2.",
    )
    inspect.add_argument("file", help=f"a .siq, the project's .json, or {BUILTIN_DEMO}")
    inspect.add_argument(
        "--json",
        action="store_true",
        help="print JSON: {name, rounds: [{name, final, themes: [{name, questions: "
        "[{price, kind, answer, …}]}]}]}",
    )
    inspect.add_argument(
        "--lang", choices=("ru", "en"), default="ru", help="the table's language (default ru)"
    )
    inspect.add_argument(
        "--date",
        type=_day,
        default=None,
        metavar="YYYY-MM-DD",
        help="check the special questions against the TV game of that date (TV-S-0b, "
        "TV-H-2003-01): how many stake questions / auctions, cats and sponsor questions "
        "each round had; what does not fit is listed, and the exit status is 1. Also noted: "
        "the order the board of that date shows each round's themes in (TV-H-2001-09: "
        "alphabetical from 2001-09-16). Dates from the first broadcast, 1994-04-14, on; an "
        "earlier one: exit status 2",
    )
    inspect.add_argument(
        "--rules",
        default=None,
        metavar="ID",
        help="check the special questions against the counts rule system ID fixes "
        "(championship-2003: one stake question in the Blue round, two in the Red, "
        "C2003-2.4.5); what does not fit is listed, and the exit status is 1. A system "
        "whose counts depend on the date (the TV ones) is not checked: give --date. "
        "An unknown ID: exit status 2",
    )
    inspect.set_defaults(handler=_cmd_inspect)


def _day(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date like 2004-03-15: {text!r}") from None


def _cmd_inspect(args: argparse.Namespace) -> int:
    from buzzer.terminal import shown, shown_json
    from buzzer.words import table
    from rules.packages.inspect import (
        board_order_notes,
        era_check,
        load_package,
        package_dict,
        package_table,
        rules_check,
    )
    from rules.packages.model import PackageError
    from rules.special_counts import era_counts

    if args.date is not None:
        problem = _date_problem(args.date)
        if problem is not None:
            return _fail(problem)
    if args.rules is not None:
        problem = _rules_problem(args.rules)
        if problem is not None:
            return _fail(problem)
    try:
        package = load_package(args.file)
    except PackageError as exc:
        return _fail(str(exc))
    except RecursionError:
        return _fail(f"{args.file}: the package is nested too deeply to be read")
    problems: list[str] = []
    if args.json:
        data = package_dict(package)
        if args.date is not None:
            era, problems = era_check(package, args.date)
            data["era_check"] = {
                "date": str(args.date),
                "era": era,
                "problems": problems,
                "board_order": board_order_notes(package, args.date),
            }
        if args.rules is not None:
            checked_rules = rules_check(package, args.rules)
            rules_problems = checked_rules[1] if checked_rules else []
            data["rules_check"] = {
                "rules": args.rules,
                "counts": checked_rules[0] if checked_rules else None,
                "problems": rules_problems,
            }
            problems = problems + rules_problems
        text = shown_json(data) + "\n"
    else:
        lang = args.lang
        text = package_table(package, lang)
        # The checks' sections follow --lang too (the catalogue's package.era.*).
        words = table("package", lang)
        if args.date is not None:
            era, problems = era_check(package, args.date, lang)
            checked = era_counts(args.date) is not None
            verdict = [words["era.misfit"].format(problem=p) for p in problems] or [
                words["era.fits"] if checked else words["era.not_checked"]
            ]
            notes = board_order_notes(package, args.date, lang)
            verdict += [words["era.note"].format(note=n) for n in notes]
            title = words["era.title"].format(date=args.date, era=era)
            text += "\n".join([f"\n{title}", *(f"  {v}" for v in verdict)]) + "\n"
        if args.rules is not None:
            checked_rules = rules_check(package, args.rules, lang)
            if checked_rules is None:
                title = words["era.rules_no_counts"].format(rules=args.rules)
                text += f"\n{title}\n  {words['era.not_checked']}\n"
            else:
                counts, rules_problems = checked_rules
                verdict = [words["era.misfit"].format(problem=p) for p in rules_problems]
                verdict = verdict or [words["era.fits"]]
                title = words["era.rules_title"].format(rules=args.rules, counts=counts)
                text += "\n".join([f"\n{title}", *(f"  {v}" for v in verdict)]) + "\n"
                problems = problems + rules_problems
        # The package's names and answers: control characters as visible escapes.
        text = shown(text, lines=True)
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.flush()
    return 1 if problems else 0


def _date_problem(day: datetime.date) -> str | None:
    """Why ``day`` cannot be checked against the TV game (bad input), or None.

    TV-94 (docs/rules.md Part D): «В эфире с 14 апреля 1994 года» — there
    are no TV rules, so nothing to check against, before the first broadcast.
    """
    from rules.eras import TV_FIRST_DAY

    if day >= TV_FIRST_DAY:
        return None
    return (
        f"--date {day.isoformat()} is before the first broadcast of «Своя игра», "
        f"14 April 1994 (TV-94): there are no TV rules to check against; "
        f"give a date from {TV_FIRST_DAY.isoformat()} on (YYYY-MM-DD)"
    )


def _rules_problem(rules_id: str) -> str | None:
    """Why ``--rules`` names no rule system (bad input), or None."""
    from rules.profiles import RULE_SYSTEMS

    if rules_id in RULE_SYSTEMS:
        return None
    return f"--rules {rules_id}: unknown rules id; known: {', '.join(RULE_SYSTEMS)}"


def _fail(message: str) -> int:
    from buzzer.terminal import shown

    # One line whatever the package put into the message (a name with newlines),
    # its control characters as visible escapes.
    print(f"svoyak package inspect: {shown(' '.join(message.split()))}", file=sys.stderr)
    return 2
