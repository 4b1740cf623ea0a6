"""A reported game's journal, replayed into its result (docs/journal-contract.md).

A room (or the committee) hands the tournament a finished game's journal;
before anything is recorded it must be that game's journal: its header
names the game's drawn players in the drawn seats, its package is one of
the tournament's own (:class:`TournamentPackages`), and it replays to a
finished game. This module checks that and replays it into the seats'
final scores and the winner's seat; it never touches the tournament's
database, which :func:`buzzer.tournament.store.record_game_result` writes.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from buzzer.tournament.errors import TournamentError
from buzzer.tournament.records import DrawnGame

#: The file types a question package may have (``rules.packages``).
PACKAGE_SUFFIXES = (".siq", ".json")


@dataclass(frozen=True, slots=True)
class TournamentPackages:
    """The question packages a tournament's reported journals may name.

    A journal from a room names its package by the path it had *in that
    room*. The server never opens that path: it looks the path's file name
    up among the tournament's own packages (``--package`` files, or the
    ``.siq``/``.json`` files of a ``--package`` folder) and replays the
    journal against that copy. Any other name is refused with the same
    message whether or not such a file exists on the server.
    """

    by_name: Mapping[str, Path] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_paths(cls, paths: Iterable[str | Path]) -> TournamentPackages:
        found: dict[str, Path] = {}
        for given in paths:
            path = Path(given).resolve()
            if path.is_dir():
                files = sorted(
                    f
                    for f in path.iterdir()
                    if f.is_file() and f.suffix.lower() in PACKAGE_SUFFIXES
                )
            elif path.is_file() and path.suffix.lower() in PACKAGE_SUFFIXES:
                files = [path]
            else:
                raise TournamentError(
                    f"--package {given}: not a question package (.siq or .json) "
                    "nor a folder of them"
                )
            for file in files:
                if found.setdefault(file.name, file) != file:
                    raise TournamentError(
                        f"two of the tournament's packages are named {file.name} "
                        f"({found[file.name]} and {file}): rename one"
                    )
        return cls(MappingProxyType(found))

    def header(self, header: dict[str, Any]) -> dict[str, Any]:
        """The header with its package path replaced by the tournament's copy."""
        from rules.packages.demo import BUILTIN_DEMO

        key = "package" if "package" in header else "board"
        name = header.get(key)
        if not isinstance(name, str) or name == BUILTIN_DEMO:
            return header
        leaf = name.replace("\\", "/").rsplit("/", 1)[-1]
        if leaf not in self.by_name:
            known = ", ".join(sorted(self.by_name)) or "none configured"
            raise TournamentError(
                f"the journal's package {leaf!r} is not one of this tournament's packages "
                f"({known}): play the tournament's package, or have the organisers serve "
                "it with `svoyak tournament-server serve DB --package FILE`"
            )
        return {**header, key: str(self.by_name[leaf])}


def journal_header(lines: Sequence[str]) -> dict[str, Any]:
    """The journal's first line, the game's header; refused if it is not one."""
    try:
        header = json.loads(lines[0]) if lines else None
    except (ValueError, RecursionError):
        header = None
    if not isinstance(header, dict) or header.get("type") != "game":
        raise TournamentError(
            "the journal cannot be replayed: line 1 must be the game's header "
            "(a JSON object with type 'game')"
        )
    return header


def check_players(game: DrawnGame, header: Mapping[str, Any], registered: Iterable[str]) -> None:
    """The journal's players must be the game's drawn players, seat by seat.

    Refuses a name nobody registered, a registered player who is not in
    this game, and the right players in another seat order (seat ``k`` of
    the journal is the ``k``-th player drawn into the game).
    """
    names = header.get("players")
    drawn = "  ".join(f"{seat}:{name}" for seat, name in enumerate(game.players, start=1))
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise TournamentError(
            f"the journal's header lists no players; game {game.id} is drawn as {drawn}"
        )
    if tuple(names) == game.players:
        return
    known = set(registered)
    strangers = [n for n in names if n not in known]
    if strangers:
        raise TournamentError(
            "the journal's player(s) "
            + ", ".join(repr(n) for n in strangers)
            + f" are not registered in this tournament; game {game.id} is drawn as {drawn}: "
            "is it the right journal?"
        )
    seats = "  ".join(f"{seat}:{name}" for seat, name in enumerate(names, start=1))
    if sorted(names) == sorted(game.players):
        raise TournamentError(
            f"the journal seats the players as {seats}, but game {game.id} is drawn as "
            f"{drawn}: the seats (and so the result) would be wrong; the committee decides "
            "(`svoyak tournament result` with a corrected journal, or an override)"
        )
    raise TournamentError(
        f"the journal's players ({seats}) are not game {game.id}'s drawn players ({drawn}): "
        "is it the right journal?"
    )


def final_result(
    journal_lines: Iterable[str], base: Path | None = None
) -> tuple[list[int], int | None]:
    """Replay a journal; its seats' final scores in seat order and the winner's seat.

    Refuses a journal whose game is not over: its scores are not a result.
    ``base``: where a package named by a relative path is looked for.
    """
    from buzzer.journal.codec import JournalError
    from buzzer.replay import replay_lines

    try:
        output = replay_lines(list(journal_lines), base)
    except JournalError as exc:
        raise TournamentError(f"the journal cannot be replayed: {exc}") from None
    result = json.loads(output[-1])
    if "winner" not in result:
        raise TournamentError(
            "the journal's game is not over yet (no game_over in the replay): "
            "finish the game, then export its journal again"
        )
    scores: Mapping[str, int] = result["scores"]
    ordered = [int(scores[k]) for k in sorted(scores, key=int)]
    winner = result["winner"]
    return ordered, None if winner is None else int(winner)
