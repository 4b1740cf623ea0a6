"""The tournament database end to end (issue 8): journaled draws, the written
qualifier, the superfinal, manual overrides, and a simulated tournament.

Everything runs through :class:`TournamentStore` in-process, and one smoke test of
the new actions through the CLI's ``main`` (:mod:`tests.support.cli`).
"""

from __future__ import annotations

import datetime
import random
import sqlite3
import subprocess
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from buzzer.tournament.errors import TournamentError
from buzzer.tournament.store import TournamentStore
from rules.tournament import separable
from rules.tournament.draw import Draw, clashes
from rules.tournament.registration import AgeGroup, Player
from tests.support.cli import svoyak_here
from tests.support.paths import REPO

ROOT = REPO
CUTOFF = datetime.date(2026, 9, 1)
SENIOR = datetime.date(2010, 3, 1)  # 16 on the cutoff
JUNIOR = datetime.date(2014, 3, 1)  # 12 on the cutoff


def new_store(
    tmp_path: Path, seniors: int = 0, juniors: int = 0, teams: int = 5
) -> TournamentStore:
    store = TournamentStore.create(tmp_path / "cup.sqlite", CUTOFF)
    for i in range(seniors):
        store.register(Player(f"S{i:02}", SENIOR, "Тверь", f"T{i % teams}"))
    for i in range(juniors):
        store.register(Player(f"J{i:02}", JUNIOR, "Тверь", f"T{i % teams}"))
    return store


def record(
    store: TournamentStore, game_id: int, scores: dict[str, int], winner: str | None
) -> None:
    (game,) = [g for g in store.games() if g.id == game_id]
    seat = None if winner is None else game.players.index(winner) + 1
    store.record(game_id, [scores[n] for n in game.players], seat)


# 1. Draws journaled ------------------------------------------------------------


def test_draws_are_journaled_with_seed_and_replay(tmp_path: Path) -> None:
    with new_store(tmp_path, seniors=9, teams=3) as store:
        games = store.draw_next(seed=7)
        (entry,) = store.draws()
        assert (entry.kind, entry.age_group, entry.stage, entry.seed) == ("stage", "senior", 1, 7)
        assert entry.outcome["games"] == [list(g.players) for g in games]
        assert store.reproduces(entry) is True
        # Same seed, same registrations → the same draw in another database.
    (tmp_path / "b").mkdir()
    with new_store(tmp_path / "b", seniors=9, teams=3) as b:
        assert [g.players for g in b.draw_next(seed=7)] == [g.players for g in games]
        (other,) = b.draws()
        assert other.outcome == entry.outcome


def test_tampered_journal_does_not_replay(tmp_path: Path) -> None:
    with new_store(tmp_path, seniors=9, teams=3) as store:
        store.draw_next(seed=1)
    with sqlite3.connect(tmp_path / "cup.sqlite") as conn:
        conn.execute("UPDATE draws SET seed = 2")
    with TournamentStore(tmp_path / "cup.sqlite") as store:
        (entry,) = store.draws()
        assert store.reproduces(entry) is False


def test_shootout_at_the_cut_is_journaled(tmp_path: Path) -> None:
    """TOUR-3.2 key 3: 12 players → 4 triples, 4 winners + 5 slots; a tie at the cut."""
    with new_store(tmp_path, seniors=12, teams=4) as store:
        games = store.draw_next(seed=3)
        seconds = []
        for k, game in enumerate(games):
            a, b, c = game.players
            # 4 winners, 4 2nd places, then one slot for two 3rd places tied on 50.
            record(store, game.id, {a: 200, b: 100, c: [50, 50, 40, 10][k]}, a)
            seconds.append(c)
        with pytest.raises(TournamentError, match="shootout"):
            store.draw_next(seed=4)
        store.draw_next(seed=4, through=[seconds[1]])
        kinds = [d.kind for d in store.draws()]
        assert kinds == ["stage", "shootout", "stage"]
        shootout = store.draws()[1]
        assert sorted(shootout.input["tied"]) == sorted(seconds[0:2])
        assert shootout.outcome == {"through": [seconds[1]]}
        assert all(store.reproduces(d) is not False for d in store.draws())


# 2. The written qualifier (TOUR-2.9, E14) ---------------------------------------


def e14_scores() -> list[tuple[str, int, int]]:
    """25 players above 280; X 280 (Blue 130), Y and Z 280 (Blue 120); 12 below."""
    rows = [(f"S{i:02}", 150, 200 + i) for i in range(25)]
    rows += [("S25", 130, 150), ("S26", 120, 160), ("S27", 120, 160)]
    rows += [(f"S{i:02}", 50, 100 + i) for i in range(28, 40)]
    return rows


def test_e14_qualifier_cut_makes_a_four(tmp_path: Path) -> None:
    with new_store(tmp_path, seniors=40) as store:
        with pytest.raises(TournamentError, match="qualifier"):
            store.draw_next(seed=1)
        assert store.record_qualifier(e14_scores()) == 40
        games = store.draw_next(seed=1)
        sizes = Counter(len(g.players) for g in games)
        assert sizes == {4: 1, 3: 8}  # 28 players → 1 four + 8 triples
        seated = {n for g in games for n in g.players}
        assert {"S25", "S26", "S27"} <= seated and not seated & {f"S{i}" for i in range(28, 40)}
        qualifier, stage = store.draws()
        assert qualifier.kind == "qualifier" and stage.kind == "stage"
        table = {row[1]: row for row in qualifier.outcome["table"]}
        assert table["S25"][0] == 26 and table["S26"][0] == table["S27"][0] == 27
        with pytest.raises(TournamentError, match="already drawn"):
            store.record_qualifier([("S00", 0, 0)])


def test_qualifier_refuses_unknown_players(tmp_path: Path) -> None:
    with (
        new_store(tmp_path, seniors=3) as store,
        pytest.raises(TournamentError, match="registered"),
    ):
        store.record_qualifier([("Никто", 10, 20)])


# 3. The superfinal (TOUR-1.7, E17) ----------------------------------------------


def test_e17_superfinal(tmp_path: Path) -> None:
    with new_store(tmp_path, seniors=3, juniors=3) as store:
        games = store.draw_next(seed=5)
        senior = next(g for g in games if g.age_group is AgeGroup.SENIOR)
        junior = next(g for g in games if g.age_group is AgeGroup.JUNIOR)
        a, b, c = senior.players
        j, k, m = junior.players
        record(store, senior.id, {a: 250, b: -20, c: -50}, a)
        with pytest.raises(TournamentError, match="waiting"):
            store.draw_next(seed=6)
        record(store, junior.id, {j: 180, k: 60, m: 0}, j)
        (sf,) = store.draw_next(seed=6)
        assert sf.superfinal and sorted(sf.players) == sorted([a, j, k])
        entry = store.draws()[-1]
        assert entry.kind == "superfinal" and store.reproduces(entry) is True
        with pytest.raises(TournamentError, match="superfinal"):
            store.draw_next(seed=7)
        record(store, sf.id, {a: 100, j: 300, k: 0}, j)
        with pytest.raises(TournamentError, match="already drawn"):
            store.draw_next(seed=8)
        # The superfinal is outside both age groups' individual tables, in the team table.
        assert {s.stage for s in store.individual_standings()} == {1}
        assert any(r.superfinal for r in store.seat_results())


def test_superfinal_vacancy_goes_to_the_committee(tmp_path: Path) -> None:
    with new_store(tmp_path, seniors=3, juniors=3) as store:
        for game in store.draw_next(seed=5):
            x, y, z = game.players
            record(store, game.id, {x: 100, y: -10, z: -20}, x)
        with pytest.raises(TournamentError, match="committee"):
            store.draw_next(seed=6)


def test_TOUR_1_7_the_committee_fills_a_vacancy_and_its_decision_is_journaled(
    tmp_path: Path,
) -> None:
    with new_store(tmp_path, seniors=3, juniors=3) as store:
        games = store.draw_next(seed=5)
        for game in games:
            x, y, z = game.players
            record(store, game.id, {x: 100, y: -10, z: -20}, x)  # no runner-up above zero
        senior = next(g for g in games if g.age_group is AgeGroup.SENIOR)
        chosen = senior.players[1]
        with pytest.raises(TournamentError, match="--reason"):
            store.draw_next(seed=6, committee=[chosen])
        with pytest.raises(TournamentError, match="not registered"):
            store.draw_next(seed=6, committee=["Никто"], reason="x")
        with pytest.raises(TournamentError, match="already in the superfinal"):
            store.draw_next(seed=6, committee=[senior.players[0]], reason="x")
        assert store.games()[-1].superfinal is False  # nothing was drawn by the refusals
        (sf,) = store.draw_next(seed=6, committee=[chosen], reason="vote 5:2, 12 May")
        assert sf.superfinal and len(sf.players) == 3 and chosen in sf.players
        committee = [d for d in store.draws() if d.kind == "committee"]
        assert len(committee) == 1
        assert committee[0].input["reason"] == "vote 5:2, 12 May"
        assert committee[0].outcome == {"added": [chosen]}
        assert store.reproduces(committee[0]) is None  # a decision, not a lot


def test_TOUR_1_7_the_committee_may_widen_the_superfinal_to_four_not_five(
    tmp_path: Path,
) -> None:
    with new_store(tmp_path, seniors=3, juniors=3) as store:
        games = store.draw_next(seed=5)
        senior = next(g for g in games if g.age_group is AgeGroup.SENIOR)
        junior = next(g for g in games if g.age_group is AgeGroup.JUNIOR)
        a, b, c = senior.players
        j, k, m = junior.players
        with pytest.raises(TournamentError, match="superfinal only"):  # the finals are to come
            store.draw_next(seed=6, committee=[k], reason="early")
        record(store, senior.id, {a: 250, b: 40, c: -50}, a)
        record(store, junior.id, {j: 180, k: 60, m: 0}, j)
        with pytest.raises(TournamentError, match="not beyond"):
            store.draw_next(seed=6, committee=[k, c], reason="too many")
        (sf,) = store.draw_next(seed=6, committee=[k], reason="place 2 in the junior final")
        assert sorted(sf.players) == sorted([a, j, b, k])


def test_superfinal_runner_up_shootout(tmp_path: Path) -> None:
    with new_store(tmp_path, seniors=3, juniors=3) as store:
        for game in store.draw_next(seed=5):
            x, y, z = game.players
            record(store, game.id, {x: 100, y: 50, z: 50}, x)
        senior = next(g for g in store.games() if g.age_group is AgeGroup.SENIOR)
        with pytest.raises(TournamentError, match="--through"):
            store.draw_next(seed=6)
        (sf,) = store.draw_next(seed=6, through=[senior.players[2]])
        assert senior.players[2] in sf.players and senior.players[1] not in sf.players


# 4. Overrides (TOUR-1.9) --------------------------------------------------------


def test_override_changes_the_winner_and_is_journaled(tmp_path: Path) -> None:
    with new_store(tmp_path, seniors=9, teams=3) as store:
        games = store.draw_next(seed=2)
        for game in games:
            x, y, z = game.players
            record(store, game.id, {x: 300, y: 200, z: 100}, x)
        first = games[0]
        with pytest.raises(TournamentError, match="reason"):
            store.override(first.id, {1: 2, 2: 1}, " ")
        with pytest.raises(TournamentError, match="seat"):
            store.override(first.id, {5: 1}, "typo")
        done = store.override(first.id, {1: 2, 2: 1}, "the jury accepted B's objection")
        assert done.before["winner_seat"] == 1 and done.after["winner_seat"] == 2
        (logged,) = store.overrides()
        assert logged.reason == "the jury accepted B's objection"
        rows = {r.name: r for r in store.seat_results() if r.game_id == first.id}
        assert rows[first.players[1]].winner and rows[first.players[1]].place == 1
        # TOUR-1.9 with TOUR-3.3: the team points follow the overridden places.
        assert rows[first.players[1]].team_points == 3
        assert rows[first.players[0]].team_points == 1
        # An untouched game keeps its points by score.
        second = {r.name: r for r in store.seat_results() if r.game_id == games[1].id}
        assert second[games[1].players[0]].team_points == 3
        (final,) = store.draw_next(seed=3)
        assert first.players[1] in final.players and first.players[0] not in final.players
        with pytest.raises(TournamentError, match="next draw"):
            store.override(first.id, {1: 1, 2: 2}, "too late")


def test_TOUR_1_9_an_override_moves_the_team_table_as_it_moves_the_export(
    tmp_path: Path,
) -> None:
    with new_store(tmp_path, seniors=9, teams=3) as store:
        games = store.draw_next(seed=2)
        for game in games:
            x, y, z = game.players
            record(store, game.id, {x: 300, y: 200, z: 100}, x)
        team = {p.name: p.team for p in store.players()}
        before = {row.team: row.points for row in store.team_standings()}
        x, y, _ = games[0].players
        store.override(games[0].id, {1: 2, 2: 1}, "B's objection accepted")
        after = {row.team: row.points for row in store.team_standings()}
        # x drops from 3 points to 1, y rises from 1 to 3; each team divides by its 3
        assert after[team[x]] - before[team[x]] == Fraction(-2, 3)
        assert after[team[y]] - before[team[y]] == Fraction(2, 3)
        # the standings and the export agree, point for point
        exported: dict[str, Fraction] = {}
        for row in store.seat_results():
            exported[row.team or ""] = exported.get(row.team or "", Fraction(0)) + row.team_points
        assert after == {t: total / 3 for t, total in exported.items()}
        # and the reason travels with the game's rows
        reasons = {r.override for r in store.seat_results() if r.game_id == games[0].id}
        assert reasons == {"B's objection accepted"}
        assert {r.override for r in store.seat_results() if r.game_id != games[0].id} == {None}


def test_TOUR_3_D_a_member_cut_in_the_qualifier_counts_in_the_divisor(tmp_path: Path) -> None:
    with new_store(tmp_path, seniors=40, teams=5) as store:
        store.record_qualifier(e14_scores())
        games = store.draw_next(seed=4)
        drawn = {n for g in games for n in g.players}
        cut = {f"S{i:02}" for i in range(40)} - drawn
        assert cut, "the qualifier cut someone"
        for game in games:
            scores = dict(zip(game.players, (300, 200, 100, 0), strict=False))
            record(store, game.id, scores, game.players[0])
        # every registered member played the qualifier: each team divides by all 8
        table = store.team_standings()
        assert {row.players for row in table} == {8}
        earned: dict[str, Fraction] = {}
        for row in store.seat_results():
            earned[row.team or ""] = earned.get(row.team or "", Fraction(0)) + row.team_points
        assert {row.team: row.points for row in table} == {t: p / 8 for t, p in earned.items()}


def test_TOUR_3_5_a_shootout_does_not_split_tied_team_points(tmp_path: Path) -> None:
    """E12: A and B tie for first on points and A wins the shootout: A is 1st and B
    2nd for advancement, but their teams get (3 + 1) / 2 = 2 each."""
    with new_store(tmp_path, seniors=9, teams=3) as store:
        games = store.draw_next(seed=5)
        x, y, z = games[0].players
        record(store, games[0].id, {x: 250, y: 250, z: 100}, x)
        rows = {r.name: r for r in store.seat_results() if r.game_id == games[0].id}
        assert rows[x].place == 1 and rows[y].place == 2
        assert rows[x].team_points == 2 and rows[y].team_points == 2
        assert rows[z].team_points == 0


# 5. A simulated 40-player tournament --------------------------------------------


def _stage_checks(store: TournamentStore, drawn: tuple[object, ...], teams: dict[str, str]) -> None:
    games = [g for g in store.games() if g in drawn]
    names = [n for g in games for n in g.players]
    assert len(names) == len(set(names)), "someone is in two games at once"
    for group in AgeGroup:
        mine = [g.players for g in games if g.age_group is group and not g.superfinal]
        if not mine:
            continue
        team_sizes = Counter(teams[n] for game in mine for n in game)
        if separable(team_sizes.values(), [len(g) for g in mine]):
            assert clashes(Draw(tuple(mine)), teams) == 0, "teammates share a game"


def test_simulated_forty_player_tournament(tmp_path: Path) -> None:
    """40 seniors (written qualifier) and 12 juniors, from registration to the superfinal."""
    rng = random.Random(2003)
    with new_store(tmp_path, seniors=40, juniors=12, teams=7) as store:
        teams = {p.name: str(p.team) for p in store.players()}
        store.record_qualifier(
            [(f"S{i:02}", rng.randrange(0, 451, 10), rng.randrange(0, 901, 20)) for i in range(40)]
        )
        unique = iter(rng.sample(range(10, 5000), 500))
        counts: dict[AgeGroup, list[int]] = {AgeGroup.SENIOR: [], AgeGroup.JUNIOR: []}
        seed = 0
        superfinal = None
        while superfinal is None:
            seed += 1
            drawn = store.draw_next(seed=seed)
            _stage_checks(store, drawn, teams)
            for group in AgeGroup:
                players = [
                    n for g in drawn if g.age_group is group and not g.superfinal for n in g.players
                ]
                if players:
                    counts[group].append(len(players))
            for game in drawn:
                scores = {n: next(unique) for n in game.players}
                record(store, game.id, scores, max(scores, key=scores.__getitem__))
                if game.superfinal:
                    superfinal = game
        senior, junior = counts[AgeGroup.SENIOR], counts[AgeGroup.JUNIOR]
        assert 27 <= senior[0] <= 36 and senior[1:] == [9, 3]
        assert junior == [12, 9, 3]
        assert len(superfinal.players) == 3
        finals = [g for g in store.games() if len(g.players) == 3 and g.stage == 3]
        champions = {
            r.name for r in store.seat_results() if r.winner and r.game_id in {g.id for g in finals}
        }
        assert champions <= set(superfinal.players) and len(champions) == 2
        kinds = Counter(d.kind for d in store.draws())
        assert kinds["qualifier"] == 1 and kinds["superfinal"] == 1 and kinds["stage"] == 6
        assert all(store.reproduces(d) is not False for d in store.draws())
        assert len(store.team_standings()) == 7
        with pytest.raises(TournamentError, match="nothing to draw"):
            store.draw_next(seed=99)


# CLI smoke test of the new actions ---------------------------------------------


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return svoyak_here("tournament", *args, cwd=ROOT)


def test_cli_qualifier_draws_override(tmp_path: Path) -> None:
    with new_store(tmp_path, seniors=40):
        pass
    db = tmp_path / "cup.sqlite"
    csv_path = tmp_path / "q.csv"
    csv_path.write_text(
        "name,blue,red\n" + "".join(f"{n},{b},{r}\n" for n, b, r in e14_scores()), "utf-8"
    )
    bad = tmp_path / "bad.csv"
    bad.write_text("name,blue,red\nS00,x,1\n", "utf-8")
    done = run("qualifier", db, bad)
    assert done.returncode == 2 and "integers" in done.stderr
    assert run("qualifier", db, csv_path).returncode == 0
    refused = run("draw", db, "--committee", "S00")  # the committee's seats need a reason
    assert refused.returncode == 2 and "--committee needs --reason" in refused.stderr
    refused = run("draw", db, "--committee", "S00", "--reason", "early")
    assert refused.returncode == 2 and "superfinal only" in refused.stderr
    done = run("draw", db, "--seed", "11")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 9
    done = run("draws", db)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "qualifier" in lines[0] and "seed 11  replays" in lines[1]
    assert "--reason" in run("override", db, "1", "--place", "1=2").stderr
    done = run("override", db, "1", "--place", "1=2", "--reason", "x")
    assert done.returncode == 2 and "no result yet" in done.stderr


# 6. Tiny fields and a final without a winner (TOUR-N-D, C2003-2.6c) -------------


def play_out(store: TournamentStore, scores_of: Any) -> list[list[int]]:
    """Draw and record stage after stage; the game sizes of each stage drawn."""
    sizes: list[list[int]] = []
    while True:
        try:
            games = store.draw_next(seed=1)
        except TournamentError as exc:
            assert "the final has been played" in str(exc), exc
            return sizes
        sizes.append([len(g.players) for g in games])
        for index, game in enumerate(games):
            scores = scores_of(len(sizes), index, len(game.players))
            best = max(scores)
            winner = scores.index(best) + 1 if best > 0 else None
            store.record(game.id, scores, winner)


def distinct(stage: int, game: int, size: int) -> list[int]:
    return [300 - 100 * k - 10 * game for k in range(size)]


@pytest.mark.parametrize(
    ("players", "stages"),
    [
        (3, [[3]]),  # the first stage is the final
        (4, [[4]]),
        (6, [[3, 3], [3]]),  # the two winners and the best runner-up meet in the final
        (8, [[4, 4], [3]]),
        (9, [[3, 3, 3], [3]]),
    ],
)
def test_TOUR_N_D_a_small_field_goes_from_its_first_stage_to_a_final_of_three(
    tmp_path: Path, players: int, stages: list[list[int]]
) -> None:
    with new_store(tmp_path, seniors=players, teams=3) as store:
        assert play_out(store, distinct) == stages
        (champion,) = store.champions().values()
        assert champion is not None and champion in {p.name for p in store.players()}


@pytest.mark.parametrize("players", [1, 2, 5])
def test_TOUR_N_D_a_field_that_cannot_be_split_is_the_committees(
    tmp_path: Path, players: int
) -> None:
    with new_store(tmp_path, seniors=players, teams=1) as store:
        with pytest.raises(TournamentError, match=r"cannot be split|no games"):
            store.draw_next(seed=1)
        assert store.games() == ()


def test_C2003_2_6c_a_final_without_a_winner_awards_no_title(tmp_path: Path) -> None:
    with new_store(tmp_path, seniors=3, teams=3) as store:
        assert store.champions() == {}  # no final yet
        (game,) = store.draw_next(seed=1)
        store.record(game.id, [0, -10, -20], None)  # C2003-2.6b: nobody above zero
        assert store.champions() == {AgeGroup.SENIOR: None}
    standings = run("standings", tmp_path / "cup.sqlite")
    assert standings.returncode == 0, standings.stderr
    assert "senior final: no winner, the title is not awarded (C2003-2.6c)" in standings.stdout
