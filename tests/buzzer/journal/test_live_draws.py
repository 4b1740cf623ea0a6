"""A live game journals its tie draws; the journal replays them whatever the seed.

The journal lines are written by the live path's own encoder
(:func:`buzzer.journal.encode.encode_input`), as the controller writes them.
"""

from __future__ import annotations

import json

from buzzer.arbiter.decisions import Decision
from buzzer.arbiter.events import Input, Judge, Press, ReadingEnd, ReadingStart, Select
from buzzer.core import GameCore
from buzzer.journal.codec import parse_header
from buzzer.journal.encode import encode_input
from buzzer.replay import replay_lines

S = 1_000_000_000


def _play_live(header: dict[str, object], inputs: list[Input]) -> tuple[list[str], list[str]]:
    """Drive a core as the controller does: journal each input, push it, journal draws."""
    journal = [json.dumps(header)]
    core = GameCore(parse_header(journal[0]))
    out: list[Decision] = list(core.started)
    for item in inputs:
        journal.append(encode_input(item))
        core.push(item, out)
        draw = core.draw_for_pending_tie()
        if draw is not None:
            journal.append(encode_input(draw))
            core.push(draw, out)
    core.finish(out)
    return journal, [d.to_json() for d in out]


def _tie_game(price: int = 10) -> list[Input]:
    return [
        Select(1 * S, 1, price),
        ReadingStart(2 * S),
        ReadingEnd(5 * S),
        Press(6 * S, 2),
        Press(6 * S, 3),
        Judge(8 * S, True),
    ]


def test_A_G1_live_tie_is_journaled_and_replays_identically() -> None:
    header = {"type": "game", "rules": "championship-2003", "players": ["a", "b", "c"]}
    journal, live = _play_live({**header, "seed": 11}, _tie_game())
    draws = [json.loads(x) for x in journal if '"draw"' in x]
    assert len(draws) == 1 and draws[0]["seats"] == [2, 3]
    replayed = replay_lines(journal)
    assert replayed[:-1] == live
    winner = draws[0]["winner"]
    assert json.loads(replayed[-1])["chooser"] == winner


def test_A_G1_journaled_draw_wins_whatever_the_seed() -> None:
    header = {"type": "game", "rules": "tv-modern", "players": ["a", "b", "c"], "chooser": 1}
    journal, _ = _play_live({**header, "seed": 5}, _tie_game(100))
    winner = json.loads(next(x for x in journal if '"draw"' in x))["winner"]
    for seed in range(20):
        edited = [json.dumps({**json.loads(journal[0]), "seed": seed}), *journal[1:]]
        recognized = [json.loads(x)["seat"] for x in replay_lines(edited) if '"recognized"' in x]
        assert recognized == [winner]
