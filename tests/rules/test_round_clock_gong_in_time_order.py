"""TV-G-6 / TV-H-1994-10: the gong when the round clock runs out during a question (issue 37).

«A gong at 10 min ends the round»; the question in progress is completed, the
rest of the round is not played. The gong is stamped at 10:00 and must be told
there: `svoyak replay` prints it between the press and the later verdict (its
lines in time order), and the summary tells it at its time too. Nothing else
changes: the question in play is scored, and the round ends after it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from buzzer.replay_summary import replay_summary
from tests.conftest import of_type, run
from tests.support.cli import svoyak_here_bytes
from tests.support.lines import bad, ok, pr, re_, rs, sel, tick
from tests.support.paths import REPO

A, B, C = 1, 2, 3
HEAD: dict[str, Any] = {
    "rules": "tv-1994",
    "date": "1995-06-01",
    "players": ["A", "B", "C"],
    "chooser": A,
}
# The clock runs from the first select at 10 s: the gong at 610 s, while B answers.
GONG_WHILE_ANSWERING = (
    sel(10.0, 1, 10),
    rs(11.0),
    re_(600.0),
    pr(601.0, B),
    ok(615.0),
    sel(620.0, 1, 20),
)


def times(out: list[dict[str, Any]]) -> list[float]:
    return [o["t"] for o in out if "t" in o]


def kinds_between(out: list[dict[str, Any]], start: float, end: float) -> list[str]:
    return [o["type"] for o in out if start <= o.get("t", -1) <= end]


def test_TV_G_6_the_gong_during_an_answer_is_printed_at_its_time() -> None:
    out = run(HEAD, *GONG_WHILE_ANSWERING)
    assert times(out) == sorted(times(out))
    assert kinds_between(out, 601.0, 615.0) == [
        "recognized",
        "round_time_up",
        "score",
        "chooser",
        "bonus_offer",
    ]
    assert of_type(out, "round_time_up") == [{"t": 610.0, "type": "round_time_up", "round": 1}]
    # The question in play is completed and scored; then the Red round.
    assert of_type(out, "score") == [
        {"t": 615.0, "type": "score", "seat": B, "delta": 10, "score": 60}
    ]
    assert [o["round"] for o in of_type(out, "question")] == [1, 2]
    assert out[-1] == {"type": "result", "scores": {"1": 50, "2": 60, "3": 50}, "chooser": C}


def test_TV_G_6_a_wrong_answer_then_a_right_one_around_the_gong() -> None:
    # B wrong before the gong, C presses after it and is right: the question goes on.
    events = (sel(10.0, 1, 10), rs(11.0), re_(600.0), pr(601.0, B), bad(609.0))
    out = run(HEAD, *events, pr(611.0, C), ok(616.0), sel(630.0, 1, 20))
    assert times(out) == sorted(times(out))
    assert [(o["seat"], o["delta"]) for o in of_type(out, "score")] == [(B, -10), (C, 10)]
    gong = out.index(of_type(out, "round_time_up")[0])
    assert [o["type"] for o in out[gong - 1 : gong + 2]] == [
        "window_opened",  # the fresh window after the wrong answer (P6)
        "round_time_up",
        "recognized",
    ]


def test_TV_G_6_the_gong_while_the_press_window_is_open() -> None:
    # The window opens at 608 and closes at 611 with no press: the gong (610) comes first.
    out = run(HEAD, sel(10.0, 1, 10), rs(11.0), re_(608.0), tick(620.0), sel(625.0, 1, 20))
    assert times(out) == sorted(times(out))
    assert kinds_between(out, 608.0, 611.0) == [
        "window_opened",
        "round_time_up",
        "window_closed",
        "chooser",
        "bonus_offer",
    ]


def test_TV_G_6_no_gong_when_the_question_in_play_is_the_rounds_last() -> None:
    board = {
        "rounds": [
            {"name": "Синий раунд", "themes": 1, "prices": [10, 20]},
            {"name": "Красный раунд", "themes": 1, "prices": [20, 40]},
        ]
    }
    events = (sel(10.0, 1, 10), {"t": 11.0, "type": "timeout"}, sel(20.0, 1, 20), rs(21.0))
    out = run({**HEAD, "board": board}, *events, re_(600.0), pr(601.0, B), ok(615.0))
    # The round ends with its last question, as a round played to its end (TV-G-6).
    assert of_type(out, "round_time_up") == []
    assert times(out) == sorted(times(out))


def journal_lines() -> list[str]:
    return [json.dumps({"type": "game", **HEAD}), *(json.dumps(e) for e in GONG_WHILE_ANSWERING)]


def test_TV_G_6_replay_cli_prints_the_gong_in_time_order(tmp_path: Path) -> None:
    path = tmp_path / "gong.jsonl"
    path.write_text("\n".join(journal_lines()) + "\n", encoding="utf-8")
    done = svoyak_here_bytes("replay", path, cwd=REPO)
    assert done.returncode == 0, done.stderr.decode()
    out = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert times(out) == sorted(times(out))
    assert [o["type"] for o in out if o.get("t") in (601.0, 610.0, 615.0)][:3] == [
        "recognized",
        "round_time_up",
        "score",
    ]


def test_TV_G_6_the_summary_tells_the_gong_between_the_press_and_the_verdict() -> None:
    lines = replay_summary(journal_lines(), lang="en").splitlines()
    press = next(i for i, x in enumerate(lines) if "first press: B" in x)
    gong = next(i for i, x in enumerate(lines) if "the gong" in x)
    verdict = next(i for i, x in enumerate(lines) if "B: right, +10 → 60" in x)
    assert press < gong < verdict
    assert lines[gong].strip().startswith("[10 min 10.0 s] the gong: round 1's time is up")
    russian = replay_summary(journal_lines())
    assert "[10 мин 10.0 с] гонг: время раунда 1 вышло; этот вопрос доигрывается" in russian
