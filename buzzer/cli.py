"""The ``svoyak`` command line.

Subcommands are thin: parse arguments, call the library, turn its errors
into a message and an exit status (2 for bad input, as docs/journal-contract.md asks).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module

from buzzer import __version__
from buzzer.terminal import shown


def _cmd_replay(args: argparse.Namespace) -> int:
    from pathlib import Path

    from buzzer.journal.codec import JournalError
    from buzzer.replay import decode_journal, replay_lines

    path: str = args.path
    try:
        data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()  # noqa: SIM115
    except OSError as exc:
        print(f"svoyak replay: cannot read {shown(path)}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        base = None if path == "-" else Path(path).resolve().parent
        if data.startswith(b"SQLite format 3\x00"):
            from buzzer.journal.store import JournalStore, JournalStoreError

            try:
                with JournalStore(path, readonly=True) as store:
                    journal = list(store.lines())
            except JournalStoreError as exc:
                print(f"svoyak replay: {shown(exc)}", file=sys.stderr)
                return 2
        else:
            journal = decode_journal(data)
        if args.summary:
            from buzzer.replay_summary import replay_summary

            text = shown(replay_summary(journal, base, args.lang), lines=True)
        else:
            text = shown("\n".join(replay_lines(journal, base)) + "\n", lines=True, json_text=True)
    except JournalError as exc:
        print(f"svoyak replay: {shown(path)}: {shown(exc)}", file=sys.stderr)
        return 2
    # Names and texts from the journal: control characters as visible escapes.
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.flush()
    return 0


def _cmd_rules(args: argparse.Namespace) -> int:
    from rules.describe import describe_rules
    from rules.profiles import RULE_SYSTEMS

    if args.id is None:
        for system in RULE_SYSTEMS.values():
            print(f"{system.id:22} {system.title}")
        return 0
    if args.id not in RULE_SYSTEMS:
        print(
            f"svoyak rules: unknown rules id {args.id!r}; known: {', '.join(RULE_SYSTEMS)}",
            file=sys.stderr,
        )
        return 2
    print(describe_rules(RULE_SYSTEMS[args.id]))
    return 0


def _cmd_journal_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from buzzer.journal.store import JournalStore, JournalStoreError

    source = Path(args.database)
    if not source.is_file():
        print(f"svoyak journal export: no such journal database: {source}", file=sys.stderr)
        return 2
    try:
        with JournalStore(source, readonly=True) as store:
            count = store.export(Path(args.output))
    except (JournalStoreError, OSError) as exc:
        print(f"svoyak journal export: {shown(exc)}", file=sys.stderr)
        return 2
    print(f"{count} lines written to {args.output}", file=sys.stderr)
    return 0


def _cmd_journal_verify(args: argparse.Namespace) -> int:
    from pathlib import Path

    from buzzer.app.both import lines
    from buzzer.journal.seal import short
    from buzzer.journal.store import JournalStoreError
    from buzzer.journal.verify import verify_file

    path = Path(args.journal)
    try:
        found = verify_file(path)
    except JournalStoreError as exc:
        print(f"svoyak journal verify: {shown(exc)}", file=sys.stderr)
        return 2
    where = shown(str(path))
    if not found.sealed:
        print(lines("journal.verify.unsealed", where=where))
        return 3
    if found.seal is None:
        line = found.first_bad
        print(lines("journal.verify.broken", where=where, line=line))
        return 1
    print(
        lines(
            "journal.verify.intact",
            where=where,
            lines=found.lines,
            short=short(found.seal),
            seal=found.seal,
        )
    )
    return 0


def _cmd_journal_repair(args: argparse.Namespace) -> int:
    from pathlib import Path

    from buzzer.app.both import lines
    from buzzer.journal.repair import HealthyLine, RepairError, repair
    from buzzer.journal.seal import short
    from buzzer.words import tr

    path = Path(args.database)
    try:
        done = repair(
            path, skip_line=args.skip_line, truncate_at=args.truncate_at, force=args.force
        )
    except HealthyLine as exc:
        # Both languages: the line, why it is refused, what --force would do to the seal.
        for lang in ("ru", "en"):
            key = "journal.repair.change_truncate" if exc.truncate else "journal.repair.change_skip"
            change = tr(key, lang, line=exc.line)
            text = tr("journal.repair.healthy", lang, path=path, line=exc.line, change=change)
            if exc.first_bad is not None:
                text += "; " + tr("journal.repair.first_bad", lang, line=exc.first_bad)
            else:
                text += "; " + tr("journal.repair.replays_whole", lang)
            print(f"svoyak journal repair: {shown(text)}", file=sys.stderr)
        return 2
    except RepairError as exc:
        print(f"svoyak journal repair: {shown(exc)}", file=sys.stderr)
        return 2

    def said(lang: str) -> str:
        if done.removed:
            what = tr("journal.repair.removed", lang, removed=done.removed)
        else:
            what = tr("journal.repair.skipped", lang, line=args.skip_line)
        return tr(
            "journal.repair.done", lang, path=path, what=what, lines=done.lines, backup=done.backup
        )

    # Both languages, a Russian line then an English one, as the other journal verdicts.
    print(f"{said('ru')}\n{said('en')}", file=sys.stderr)
    if done.old_seal is not None and done.new_seal is not None and done.old_seal != done.new_seal:
        old, new = done.old_seal, done.new_seal
        seals = {"old": old, "new": new, "old_short": short(old), "new_short": short(new)}
        print(lines("journal.repair.seal", **seals), file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="svoyak",
        description="Buzzer controller for «Своя игра»: fair lockout arbiter, game engine, replay.",
    )
    parser.add_argument("--version", action="version", version=f"svoyak {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    replay = commands.add_parser(
        "replay",
        help="replay a game journal (docs/journal-contract.md) and print every decision",
        description="Replay a game journal (JSON Lines, docs/journal-contract.md) through the "
        "arbiter and the game engine; print the decisions as JSON Lines, the result last, or "
        "with --summary a readable account of the game. Exit status 2 and a message naming "
        "the line for a broken journal.",
    )
    replay.add_argument(
        "path", help="the journal: JSON Lines, a game's SQLite journal, or - for standard input"
    )
    replay.add_argument(
        "--summary",
        action="store_true",
        help="a readable account instead of JSON Lines: each question, who pressed and when, "
        "the margin over the runner-up, false starts and late presses, verdicts, the scores "
        "after each question, the result",
    )
    replay.add_argument(
        "--lang", choices=("ru", "en"), default="ru", help="the summary's language (default ru)"
    )
    replay.set_defaults(handler=_cmd_replay)

    rules = commands.add_parser(
        "rules",
        help="list the rule systems, or show one's parameters with their rule IDs",
        description="Without an id: every rule system svoyak plays (the championship of "
        "2003, the TV game by era, the sport version), one per line. With an id: that "
        "system's parameters (windows, false starts, stakes, the final, the board's theme "
        "order, ...), each with the rule ID that fixes it (docs/rules.md).",
    )
    rules.add_argument("id", nargs="?", help="a rules id, e.g. championship-2003")
    rules.set_defaults(handler=_cmd_rules)

    journal = commands.add_parser(
        "journal",
        help="work with a game's journal database",
        description="A game's journal (the SQLite file `svoyak run --journal` writes): "
        "export it as JSON Lines, repair one that stops replaying at a line, or verify "
        "its seal (docs/journal.md).",
    )
    journal_commands = journal.add_subparsers(dest="journal_command", metavar="ACTION")
    journal_commands.required = True
    export = journal_commands.add_parser(
        "export",
        help="write a journal database (SQLite) as docs/journal-contract.md JSON Lines",
    )
    export.add_argument("database", help="the game's journal database (.sqlite)")
    export.add_argument("output", help="the JSON Lines file to write")
    export.set_defaults(handler=_cmd_journal_export)
    repair = journal_commands.add_parser(
        "repair",
        help="make a journal that stops replaying at line N resumable: skip that line, or "
        "cut the journal there (a copy is saved first)",
        description="For a journal `svoyak run --resume` refuses at line N (it names the line). "
        "--skip-line N: line N becomes an empty tick that keeps its text (field 'skipped'); "
        "--truncate-at N: lines N and after are removed. Nothing is written unless the "
        "repaired journal replays completely, and a copy of the whole database is saved "
        "beside it first (GAME.before-repair-DATE.sqlite). A line that replays fine is refused "
        "without --force; a sealed journal's old and new seals are printed. Stop the game "
        "first. Exit status 2 "
        "when nothing was changed.",
    )
    how = repair.add_mutually_exclusive_group(required=True)
    how.add_argument("--skip-line", type=int, metavar="N", help="replace line N by an empty tick")
    how.add_argument("--truncate-at", type=int, metavar="N", help="remove lines N and after")
    repair.add_argument(
        "--force",
        action="store_true",
        help="repair line N even though it replays fine (refused without it: the game and "
        "the journal's seal change, and no longer match the paper scoresheet)",
    )
    repair.add_argument("database", help="the game's journal database (.sqlite)")
    repair.set_defaults(handler=_cmd_journal_repair)
    verify = journal_commands.add_parser(
        "verify",
        help="check the journal's seal: every line chained to the one before it",
        description="Recompute the journal's chain of links (docs/journal.md, The seal) and "
        "compare it line by line. Exit status 0: intact (the seal is printed, to compare with "
        "the one written on the scoresheet); 1: a line does not match (named); 2: the file "
        "cannot be read; 3: a journal from before the seal (nothing to check).",
    )
    verify.add_argument("journal", help="the game's journal (.sqlite, or an exported .jsonl)")
    verify.set_defaults(handler=_cmd_journal_verify)
    for module in _COMMAND_MODULES:
        try:
            loaded = import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module.startswith(exc.name):
                raise
            continue  # that package has no commands yet
        add_commands = getattr(loaded, "add_commands", None)
        if add_commands is not None:
            add_commands(commands)
    return parser


#: Packages that add subcommands of their own: each module's
#: ``add_commands(subparsers)`` registers them (imported lazily, at parse time).
_COMMAND_MODULES = (
    "hardware.cli",
    "firmware_bridge.cli",
    "buzzer.app.run_command",
    "buzzer.app.doctor_command",
    "display.cli",
    # `svoyak tournament` and `tournament-server`, handed the game report's statistics
    # and pages (the report sits a layer above the tournament).
    "buzzer.app.tournament_cli",
    "rules.packages.cli",
    "buzzer.report.cli",
)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler = args.handler
    try:
        return int(handler(args))
    except KeyboardInterrupt:
        # Ctrl-C before a command has its own stop (a start waiting for a Pico, a long
        # replay): one line, not a traceback; 130, as a shell reports an interrupt.
        from buzzer.words import tr

        said = " / ".join(tr("run.interrupted", lang) for lang in ("ru", "en"))
        print(f"svoyak: {said}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
