"""The next draw of a tournament, planned from plain data (TOUR-1.6, 1.7, 2.9, 3.1, 3.2).

The store (:mod:`buzzer.tournament.store`) reads what the planner needs
(the registry, each age group's latest stage with its results, the written
qualifier, whether the superfinal is drawn) and writes what it returns; the
planning itself (who plays the next stage, in games of which sizes, the
seeded lot, the superfinal's seats, what is journaled with them) is here,
with no SQLite and no I/O, so it can be tested without a database. The
rules it applies are the pure ones of :mod:`rules.tournament`; this module
composes them into one draw and words the refusals for the organisers.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from buzzer.errors import SvoyakError
from buzzer.tournament.errors import TournamentError
from buzzer.tournament.records import DrawRecord
from buzzer.tournament.series import lot_reproduces
from rules.tournament.advancement import GameResult, advance
from rules.tournament.draw import Entrant, draw_games
from rules.tournament.qualifier import QualifierScore, rank_qualifier
from rules.tournament.registration import AgeGroup, Registry
from rules.tournament.stages import (
    FINAL_SLOTS,
    THIRD_FINAL_SLOTS,
    CommitteeDecision,
    plan_first_stage,
    plan_games,
)
from rules.tournament.superfinal import FinalOutcome, superfinal

#: ``stages.number`` of the superfinal (TOUR-1.7); its row has ``kind = 'superfinal'``.
SUPERFINAL_NUMBER = 0


def draw_rng(seed: int, kind: str, group: str | None, number: int | None) -> random.Random:
    """The lot of one journaled draw: its own stream, so each entry replays alone."""
    return random.Random(f"{seed}:{kind}:{group}:{number}")


@dataclass(frozen=True, slots=True)
class DrawNote:
    """One entry of the draw journal before it is written: what was decided, from what."""

    kind: str
    age_group: str | None
    stage: int | None
    input: Mapping[str, Any]
    outcome: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class LastStage:
    """An age group's latest stage, as far as the planner needs it."""

    number: int
    #: Each of the stage's games by id, with its result (None until recorded).
    games: Sequence[tuple[int, GameResult | None]]


@dataclass(frozen=True, slots=True)
class StageLot:
    """One age group's next stage, drawn: its entrants, game sizes and games."""

    age_group: AgeGroup
    number: int
    entrants: tuple[Entrant, ...]
    sizes: tuple[int, ...]
    games: tuple[tuple[str, ...], ...]

    def note(self) -> DrawNote:
        """The journal entry that lets :func:`reproduces` re-run this lot."""
        return DrawNote(
            "stage",
            self.age_group.value,
            self.number,
            {"entrants": [[e.name, e.team] for e in self.entrants], "sizes": list(self.sizes)},
            {"games": [list(g) for g in self.games]},
        )


@dataclass(frozen=True, slots=True)
class SuperfinalLot:
    """The superfinal's players and the seats the lot gave them (TOUR-1.7)."""

    players: tuple[str, ...]
    seats: tuple[str, ...]

    def note(self) -> DrawNote:
        """The journal entry that lets :func:`reproduces` re-run this lot."""
        return DrawNote(
            "superfinal",
            None,
            SUPERFINAL_NUMBER,
            {"players": list(self.players)},
            {"games": [list(self.seats)]},
        )


@dataclass(frozen=True, slots=True)
class DrawPlan:
    """Everything one ``draw`` writes, in the order it is journaled."""

    #: Qualifier rankings, shootouts and committee decisions (no stage of their own).
    notes: tuple[DrawNote, ...]
    stages: tuple[StageLot, ...]
    superfinal: SuperfinalLot | None


class NotReady(SvoyakError):
    """A stage still has games without results (caught while planning: the draw
    names every group that is not ready, in one refusal)."""


def final_outcome(result: GameResult) -> FinalOutcome:
    """A final's outcome as the superfinal's composition reads it (TOUR-1.7)."""
    return FinalOutcome(scores=dict(result.scores), champion=result.winner)


def plan_draw(
    registry: Registry,
    last_stages: Mapping[AgeGroup, LastStage],
    qualifier: Mapping[str, QualifierScore],
    seed: int,
    *,
    through: Sequence[str] = (),
    committee: Sequence[str] = (),
    reason: str = "",
    superfinal_drawn: bool = False,
) -> DrawPlan:
    """Plan and draw the next stage of every age group that is ready for one.

    ``last_stages``: each age group's latest stage (none before its first
    draw). ``qualifier``: the written qualifier's scores by name.
    ``superfinal_drawn``: whether the superfinal is drawn already. The other
    arguments are :meth:`buzzer.tournament.store.TournamentStore.draw_next`'s.
    :class:`TournamentError` when there is nothing to draw, with the reasons.
    """
    team_of = {p.name: p.team for p in registry.players}
    plans: list[tuple[AgeGroup, int, list[str], tuple[int, ...]]] = []
    notes: list[DrawNote] = []
    reasons: list[str] = []
    finals: dict[AgeGroup, FinalOutcome] = {}
    for group in AgeGroup:
        members = [p.name for p in registry.group(group)]
        if not members:
            continue
        last = last_stages.get(group)
        try:
            if last is None:
                plan = plan_first_stage(len(members))
                if plan.qualifier:
                    members = _qualified(group, members, qualifier, notes)
                    plan = plan_games(len(members))
                plans.append((group, 1, members, plan.sizes()))
                continue
            entrants = _advancing(group, last, through, notes)
            if entrants is None:
                result = last.games[0][1]
                assert result is not None
                finals[group] = final_outcome(result)
                reasons.append(f"{group.value}: the final has been played")
                continue
            plans.append((group, last.number + 1, entrants, plan_games(len(entrants)).sizes()))
        except CommitteeDecision as exc:
            raise TournamentError(f"{group.value}: {exc}") from None
        except NotReady as exc:
            reasons.append(f"{group.value}: {exc}")
    super_players: list[str] = []
    if committee and (plans or len(finals) != len(AgeGroup)):
        raise TournamentError(
            "--committee seats players in the superfinal only: both finals must be "
            "recorded and nothing else left to draw"
        )
    if not plans and len(finals) == len(AgeGroup):
        if superfinal_drawn:
            reasons.append("the superfinal is already drawn")
        else:
            known = [p.name for p in registry.players]
            super_players = _superfinal_players(
                finals, through, notes, reasons, known, committee, reason
            )
    if not plans and not super_players:
        raise TournamentError("nothing to draw: " + "; ".join(reasons))
    stages = tuple(
        draw_stage(group, number, [Entrant(n, team_of[n]) for n in names], sizes, seed)
        for group, number, names, sizes in plans
    )
    return DrawPlan(
        notes=tuple(notes),
        stages=stages,
        superfinal=seat_superfinal(super_players, seed) if super_players else None,
    )


def draw_stage(
    group: AgeGroup, number: int, entrants: Sequence[Entrant], sizes: Sequence[int], seed: int
) -> StageLot:
    """TOUR-3.1: the seeded lot of one stage (teammates apart where possible)."""
    draw = draw_games(entrants, sizes, draw_rng(seed, "stage", group.value, number))
    return StageLot(group, number, tuple(entrants), tuple(sizes), draw.games)


def seat_superfinal(players: Sequence[str], seed: int) -> SuperfinalLot:
    """TOUR-1.7: the superfinal's seats, drawn by lot."""
    seats = list(players)
    draw_rng(seed, "superfinal", None, SUPERFINAL_NUMBER).shuffle(seats)
    return SuperfinalLot(tuple(players), tuple(seats))


def _qualified(
    group: AgeGroup,
    members: list[str],
    scores: Mapping[str, QualifierScore],
    notes: list[DrawNote],
) -> list[str]:
    """TOUR-2.9: rank the written qualifier; everyone tied at the cut advances."""
    missing = [n for n in members if n not in scores]
    if missing:
        raise CommitteeDecision(
            f"{len(members)} players need a written qualifier first (TOUR-2.9); "
            f"no result for {', '.join(missing[:5])}"
            + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            + " (record it with `svoyak tournament qualifier DB RESULTS.csv`)"
        )
    outcome = rank_qualifier(scores[n] for n in members)
    notes.append(
        DrawNote(
            "qualifier",
            group.value,
            0,
            {"scores": [[n, scores[n].blue, scores[n].red] for n in members]},
            {
                "table": [
                    [r.place, r.score.name, r.score.total, r.score.blue, r.advances]
                    for r in outcome.table
                ]
            },
        )
    )
    return list(outcome.advancing)


def _advancing(
    group: AgeGroup,
    last: LastStage,
    through: Sequence[str],
    notes: list[DrawNote],
) -> list[str] | None:
    """Who plays the next stage; None once the final is recorded."""
    missing = [g for g, r in last.games if r is None]
    if missing:
        raise NotReady(
            "waiting for the results of game(s) "
            + ", ".join(map(str, missing))
            + " (use `svoyak tournament result`)"
        )
    if len(last.games) == 1:
        return None
    slots = THIRD_FINAL_SLOTS if len(last.games) > FINAL_SLOTS else FINAL_SLOTS
    outcome = advance([r for _, r in last.games if r is not None], slots)
    if outcome.complete:
        return list(outcome.advancing)
    chosen = [n for n in through if n in outcome.shootout]
    if len(chosen) != outcome.shootout_slots:
        raise CommitteeDecision(
            f"{', '.join(outcome.shootout)} are tied for {outcome.shootout_slots} slot(s): "
            f"play a one-theme shootout (TOUR-3.2) and pass its winner(s) with --through NAME"
        )
    notes.append(
        DrawNote(
            "shootout",
            group.value,
            last.number,
            {"tied": list(outcome.shootout), "slots": outcome.shootout_slots},
            {"through": chosen},
        )
    )
    return list(outcome.advancing) + chosen


def _superfinal_players(
    finals: Mapping[AgeGroup, FinalOutcome],
    through: Sequence[str],
    notes: list[DrawNote],
    reasons: list[str],
    registered: Sequence[str],
    committee: Sequence[str] = (),
    reason: str = "",
) -> list[str]:
    """TOUR-1.7 through the pure :func:`superfinal`; [] with a reason if not yet.

    The committee's players (``committee``) fill the seats nobody
    qualified for, or widen the superfinal to four (TOUR-1.7); never more.
    """
    senior, junior = finals[AgeGroup.SENIOR], finals[AgeGroup.JUNIOR]
    composed = superfinal(senior, junior)
    if composed.shootout:
        chosen = [n for n in through if n in composed.shootout]
        if len(chosen) != 1:
            reasons.append(
                f"superfinal: {', '.join(composed.shootout)} are level for the runner-up "
                "seat: play a one-theme shootout (TOUR-1.7) and pass its winner with "
                "--through NAME"
            )
            return []
        notes.append(
            DrawNote(
                "shootout",
                None,
                SUPERFINAL_NUMBER,
                {"tied": list(composed.shootout)},
                {"through": chosen},
            )
        )
        fixed = FinalOutcome(scores=senior.scores, champion=senior.champion, runner_up=chosen[0])
        if chosen[0] in junior.scores:
            fixed = FinalOutcome(
                scores=junior.scores, champion=junior.champion, runner_up=chosen[0]
            )
            composed = superfinal(senior, fixed)
        else:
            composed = superfinal(fixed, junior)
    players = list(composed.players)
    if committee:
        check_committee(committee, players, registered)
        notes.append(
            DrawNote(
                "committee",
                None,
                SUPERFINAL_NUMBER,
                {"qualified": list(players), "reason": reason},
                {"added": list(committee)},
            )
        )
        players += committee
    missing = 3 - len(players)
    if missing > 0:
        reasons.append(
            f"superfinal: {missing} seat(s) nobody qualifies for "
            f"({', '.join(players) or 'no champions'}); the committee decides "
            "(TOUR-1.7, TOUR-1.9): `svoyak tournament draw --committee NAME --reason TEXT`"
        )
        return []
    return players


def check_committee(
    committee: Sequence[str], qualified: Sequence[str], registered: Sequence[str]
) -> None:
    """The committee's superfinalists: registered, not seated already, four at most."""
    known = set(registered)
    strangers = [n for n in committee if n not in known]
    if strangers:
        raise TournamentError(
            "--committee: " + ", ".join(repr(n) for n in strangers) + " not registered"
        )
    twice = [n for n in committee if n in qualified or list(committee).count(n) > 1]
    if twice:
        raise TournamentError(
            "--committee: " + ", ".join(sorted(set(twice))) + " already in the superfinal"
        )
    if len(qualified) + len(committee) > 4:
        raise TournamentError(
            f"--committee: the superfinal has {len(qualified)} qualified player(s) "
            f"({', '.join(qualified)}); the committee may widen it to four (TOUR-1.7), "
            "not beyond"
        )


def reproduces(record: DrawRecord) -> bool | None:
    """Re-run a journaled lot from its seed: whether it gives the recorded outcome.

    None for entries that involve no lot (qualifier rankings, shootouts).
    """
    if record.kind == "fobs":  # SER-CAR04-2 / SER-CAR08-2: a series' fob lot
        return lot_reproduces(record.input, record.outcome)
    if record.seed is None or record.kind not in ("stage", "superfinal"):
        return None
    rng = draw_rng(record.seed, record.kind, record.age_group, record.stage)
    if record.kind == "stage":
        entrants = [Entrant(n, t) for n, t in record.input["entrants"]]
        games = [list(g) for g in draw_games(entrants, record.input["sizes"], rng).games]
    else:
        seats = list(record.input["players"])
        rng.shuffle(seats)
        games = [seats]
    return bool(games == record.outcome["games"])
