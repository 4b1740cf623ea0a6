"""Property-based tests of the core (hypothesis), over every rule system.

(a) arrival order never decides: a game fed in time order and in any arrival
    order within the settle window makes the same decisions (in memory and
    through the docs/journal-contract.md path, ``replay_lines``);
(b) determinism: the same journal replays to the same bytes; a tie without a
    draw line goes to the same seat for the same seed, however its lines are
    ordered;
(c) one recognition per seat per question, and never while someone answers;
(d) scores move only on verdicts, by exactly ± the question's price;
and the settle window (:class:`ReorderBuffer`) on its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from buzzer.arbiter.events import Input, Press, ReadingStart, Tick
from buzzer.arbiter.params import NS_PER_MS, NS_PER_S
from buzzer.arbiter.sequencer import ReorderBuffer
from buzzer.core import InputError
from buzzer.replay import replay_lines
from rules.profiles import RULE_SYSTEMS
from tests.support.paths import REPO
from tests.support.strategies import (
    PLAYERS,
    RULE_IDS,
    GameScript,
    arrival_orders,
    games,
    journal_lines,
    play,
)

#: A quick run by default; ``SVOYAK_PROPERTY_EXAMPLES=2000`` for a deep one.
EXAMPLES = int(os.environ.get("SVOYAK_PROPERTY_EXAMPLES", "25"))
FAST = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: TV-G-2: everybody starts at 50 under the 1994 TV rules, at 0 elsewhere.
START_SCORE = {rules_id: 50 if rules_id == "tv-1994" else 0 for rules_id in RULE_IDS}


def test_every_rule_system_is_covered() -> None:
    assert set(RULE_SYSTEMS) == set(RULE_IDS)
    for rules_id, system in RULE_SYSTEMS.items():
        assert system.start_score == START_SCORE[rules_id]
        # (c) relies on it: one answer per seat per question in every shipped system.
        assert system.buttons.answers_per_question == 1


def _replay(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in replay_lines(lines)]


# -- (a) arrival order ---------------------------------------------------------------


@st.composite
def game_and_arrival(draw: Any, rules_id: str, unit: int) -> tuple[GameScript, list[Input]]:
    script = draw(games(rules_id, unit=unit))
    arrival = draw(arrival_orders(script.inputs, script.setup.settle_ns, unit))
    return script, arrival


@pytest.mark.parametrize("rules_id", RULE_IDS)
@FAST
@given(data=st.data())
def test_arrival_order_never_decides(rules_id: str, data: st.DataObject) -> None:
    script, arrival = data.draw(game_and_arrival(rules_id, unit=1))
    timed = play(script.setup, script.inputs, script.draws)
    assert timed.decisions == script.reference, "release points changed the decisions"
    assert timed.result == script.reference_result
    try:
        late = play(script.setup, arrival, script.draws)
    except InputError as exc:
        pytest.fail(f"a valid game was refused in arrival order: {exc.message}")
    assert list(late.decisions) == list(timed.decisions)
    assert late.result == timed.result


@pytest.mark.parametrize("rules_id", RULE_IDS)
@FAST
@given(data=st.data())
def test_arrival_order_never_decides_through_the_journal(
    rules_id: str, data: st.DataObject
) -> None:
    script, arrival = data.draw(game_and_arrival(rules_id, unit=1000))
    timed = play(script.setup, script.inputs, script.draws)
    late = play(script.setup, arrival, script.draws)
    timed_lines = journal_lines(script.setup, timed.fed)
    late_lines = journal_lines(script.setup, late.fed)
    note("time order:\n" + "\n".join(timed_lines))
    note("arrival order:\n" + "\n".join(late_lines))
    timed_out = replay_lines(timed_lines)
    assert timed_out[:-1] == list(timed.decisions)
    assert replay_lines(late_lines) == timed_out


# -- (b) determinism -----------------------------------------------------------------


@pytest.mark.parametrize("rules_id", RULE_IDS)
@FAST
@given(data=st.data())
def test_replay_of_a_generated_game_is_byte_identical(rules_id: str, data: st.DataObject) -> None:
    # Without recorded draws every tie goes to the seed: the same seed, the same game.
    script = data.draw(games(rules_id, unit=1000, record_draws=data.draw(st.booleans())))
    lines = journal_lines(script.setup, play(script.setup, script.inputs, script.draws).fed)
    first = "\n".join(replay_lines(lines)).encode("utf-8")
    second = "\n".join(replay_lines(list(lines))).encode("utf-8")
    assert first == second


@st.composite
def tie_journals(draw: Any, rules_id: str) -> dict[str, Any]:
    """A question read to the end, then an exact tie of 2..4 seats inside the window."""
    seats = draw(st.integers(2, 4))
    tied = draw(st.lists(st.integers(1, seats), min_size=2, max_size=seats, unique=True))
    system = RULE_SYSTEMS[rules_id]
    head: dict[str, Any] = {
        "type": "game",
        "rules": rules_id,
        "players": list(PLAYERS[:seats]),
        "seed": draw(st.integers(0, 10**6) | st.text(min_size=1, max_size=5)),
    }
    select: dict[str, Any] = {"t": 1.0, "type": "select"}
    if system.has_chooser:
        head["chooser"] = 1
        select.update(theme=1, price=system.rounds[0].prices[0])
    t_end_us = draw(st.integers(2_000_000, 3_000_000))
    after_us = draw(st.integers(0, system.buttons.window_ns // 1000))
    t_press = (t_end_us + after_us) / 1e6
    presses = [{"t": t_press, "type": "press", "seat": s} for s in tied]
    trailing = draw(st.sampled_from(["none", "tick", "press"]))
    tail: list[dict[str, Any]] = []
    if trailing == "tick":
        tail.append({"t": t_press + 1.0, "type": "tick"})
    elif trailing == "press":
        tail.append({"t": t_press + 0.5, "type": "press", "seat": 1})
    return {
        "head": head,
        "before": [
            select,
            {"t": 1.5, "type": "reading_start"},
            {"t": t_end_us / 1e6, "type": "reading_end"},
        ],
        "presses": presses,
        "tail": tail,
        "tied": sorted(tied),
    }


def _lines(head: dict[str, Any], *events: dict[str, Any]) -> list[str]:
    return [json.dumps(head, ensure_ascii=False)] + [json.dumps(e) for e in events]


def _winner(outputs: list[dict[str, Any]], tied: list[int]) -> int:
    ties = [o for o in outputs if o["type"] == "tie"]
    assert [o["seats"] for o in ties] == [tied]
    recognized = [o for o in outputs if o["type"] == "recognized"]
    assert len(recognized) == 1
    assert recognized[0]["t"] == ties[0]["t"]
    lost = sorted(o["seat"] for o in outputs if o.get("reason") == "lost_draw")
    assert lost == sorted(set(tied) - {recognized[0]["seat"]})
    seat: int = recognized[0]["seat"]
    return seat


@pytest.mark.parametrize("rules_id", RULE_IDS)
@FAST
@given(data=st.data())
def test_undrawn_tie_goes_to_the_same_seat_for_the_same_seed(
    rules_id: str, data: st.DataObject
) -> None:
    case = data.draw(tie_journals(rules_id))
    lines = _lines(case["head"], *case["before"], *case["presses"], *case["tail"])
    winner = _winner(_replay(lines), case["tied"])
    assert winner in case["tied"]
    assert _winner(_replay(lines), case["tied"]) == winner
    # The order of the tied lines (arrival order) does not decide.
    shuffled = data.draw(st.permutations(case["presses"]))
    lines2 = _lines(case["head"], *case["before"], *shuffled, *case["tail"])
    assert _winner(_replay(lines2), case["tied"]) == winner
    # A journaled draw decides whatever the seed.
    recorded = data.draw(st.sampled_from(case["tied"]))
    draw_line = {"t": case["presses"][-1]["t"], "type": "draw", "seats": case["tied"]}
    draw_line["winner"] = recorded
    lines3 = _lines(case["head"], *case["before"], *shuffled, draw_line, *case["tail"])
    assert _winner(_replay(lines3), case["tied"]) == recorded


# -- (c) and (d): properties of the output of any game -----------------------------------


@pytest.mark.parametrize("rules_id", RULE_IDS)
@FAST
@given(data=st.data())
def test_one_recognition_per_seat_per_question(rules_id: str, data: st.DataObject) -> None:
    script = data.draw(games(rules_id, unit=1000))
    lines = journal_lines(script.setup, play(script.setup, script.inputs, script.draws).fed)
    note("\n".join(lines))
    recognized_here: set[int] = set()
    answering: int | None = None
    for out in _replay(lines):
        kind = out["type"]
        if kind == "question":
            assert answering is None, "a question was selected while a seat was answering"
            recognized_here = set()
        elif kind == "recognized":
            seat = out["seat"]
            assert answering is None, f"seat {seat} recognized while seat {answering} answers"
            assert seat not in recognized_here, f"seat {seat} recognized twice in a question"
            recognized_here.add(seat)
            answering = seat
        elif kind == "score":
            assert out["seat"] == answering, "a score for a seat that was not answering"
            answering = None


@pytest.mark.parametrize("rules_id", RULE_IDS)
@FAST
@given(data=st.data())
def test_scores_move_only_on_verdicts_by_the_price(rules_id: str, data: st.DataObject) -> None:
    script = data.draw(games(rules_id, unit=1000))
    lines = journal_lines(script.setup, play(script.setup, script.inputs, script.draws).fed)
    note("\n".join(lines))
    outputs = _replay(lines)
    start = START_SCORE[rules_id]
    seats = range(1, len(script.setup.players) + 1)
    scores = dict.fromkeys(seats, start)
    price: int | None = None
    question_over = False
    score_lines = []
    for out in outputs[:-1]:
        kind = out["type"]
        if kind == "question":
            price = out["price"]
            question_over = False
        elif kind == "window_closed":
            question_over = True
        elif kind == "score":
            assert price is not None, "a score before any question"
            assert not question_over, "a score after the window closed"
            assert out["delta"] in (price, -price)
            scores[out["seat"]] += out["delta"]
            assert out["score"] == scores[out["seat"]]
            score_lines.append(out)
    # One score per verdict, at the verdict's instant, of the verdict's sign: no other
    # input (window_closed, timeout, select while open) ever moves a score.
    judges = script.judges
    assert [s["t"] for s in score_lines] == [j.t / NS_PER_S for j in judges]
    assert [s["delta"] > 0 for s in score_lines] == [j.correct for j in judges]
    result = outputs[-1]
    assert result["type"] == "result"
    deltas = Counter[int]()
    for s in score_lines:
        deltas[s["seat"]] += s["delta"]
    assert result["scores"] == {str(s): start + deltas[s] for s in seats}


# -- the settle window alone -----------------------------------------------------------


@st.composite
def buffer_feeds(draw: Any) -> tuple[int, list[tuple[Input, bool]]]:
    """Presses, host inputs and ticks in an arrival order: each arrives ``delay`` after
    its ``t``; ``True`` marks a delay within the settle window."""
    settle = draw(st.sampled_from((0, 1, 1000, 3 * NS_PER_MS)))
    step = draw(st.sampled_from(sorted({1, max(1, settle // 2), max(1, settle)})))
    count = draw(st.integers(0, 40))
    keyed = []
    for ref in range(1, count + 1):
        t = draw(st.integers(0, 12)) * step
        kind = draw(st.sampled_from(("press", "press", "press", "host", "tick")))
        item: Input
        if kind == "press":
            item = Press(t, draw(st.integers(1, 4)), ref)
        elif kind == "host":
            item = ReadingStart(t, ref)
        else:
            item = Tick(t, ref)
        delay = draw(
            st.sampled_from((0, settle))
            | st.integers(0, settle)
            | st.integers(settle + 1, 3 * settle + 2)
        )
        keyed.append((t + delay, draw(st.integers(0, 3)), ref, item, delay <= settle))
    keyed.sort(key=lambda k: k[:3])
    return settle, [(k[3], k[4]) for k in keyed]


@FAST
@given(feed=buffer_feeds())
def test_reorder_buffer_releases_in_time_order_and_groups_ties(
    feed: tuple[int, list[tuple[Input, bool]]],
) -> None:
    settle, arrivals = feed
    buffer = ReorderBuffer(settle)
    late: set[int] = set()
    releases: list[tuple[int, Any]] = []  # (arrival step, batch)
    for step, (item, _) in enumerate(arrivals):
        if buffer.is_late(item.t):
            late.add(item.ref)
            continue
        if isinstance(item, Tick):
            buffer.observe(item.t)
        else:
            buffer.add(item, step)
        while (batch := buffer.pop_ready()) is not None:
            first = batch[0] if isinstance(batch, tuple) else batch
            assert first.t + settle < buffer.watermark, "released inside the settle window"
            releases.append((step, batch))
    while (batch := buffer.pop_ready(flush=True)) is not None:
        releases.append((len(arrivals), batch))
    assert len(buffer) == 0

    # Releases come in timestamp order, host inputs before presses at one instant.
    order = []
    for _, batch in releases:
        if isinstance(batch, tuple):
            assert batch, "an empty batch"
            assert all(isinstance(p, Press) and p.t == batch[0].t for p in batch)
            order.append((batch[0].t, Press.PRIORITY))
        else:
            assert not isinstance(batch, Press), "a press released outside a tuple"
            order.append((batch.t, batch.PRIORITY))
    assert order == sorted(order)

    # No input arriving after a release has a timestamp at or before it, unless it is late.
    for step, batch in releases:
        t_released = (batch[0] if isinstance(batch, tuple) else batch).t
        for item, _ in arrivals[step + 1 :]:
            if item.t <= t_released and not isinstance(item, Tick):
                assert item.ref in late, f"{item} arrived after {batch} and was not late"

    # A delay within the settle window is never late.
    assert not any(item.ref in late for item, in_time in arrivals if in_time)

    # Every input is released once or reported late; equal-time presses share one tuple.
    released = [p.ref for _, b in releases for p in (b if isinstance(b, tuple) else (b,))]
    assert len(released) == len(set(released))
    inputs = {item.ref for item, _ in arrivals if not isinstance(item, Tick)}
    assert set(released) | (late - {i.ref for i, _ in arrivals if isinstance(i, Tick)}) == inputs
    assert not set(released) & late
    groups = Counter(b[0].t for _, b in releases if isinstance(b, tuple))
    assert all(n == 1 for n in groups.values()), f"presses of one instant split: {groups}"
    on_time = Counter(i.t for i, _ in arrivals if isinstance(i, Press) and i.ref not in late)
    sizes = {b[0].t: len(b) for _, b in releases if isinstance(b, tuple)}
    assert sizes == dict(on_time)


def _tie_game(rules_id: str) -> list[str]:
    """Two undrawn ties in one question under ``rules_id``, a string seed."""
    system = RULE_SYSTEMS[rules_id]
    head: dict[str, Any] = {"type": "game", "rules": rules_id, "players": list(PLAYERS)}
    head["seed"] = "свояк"
    select: dict[str, Any] = {"t": 1.0, "type": "select"}
    if system.has_chooser:
        select.update(theme=2, price=system.rounds[0].prices[1])
    return _lines(
        head,
        select,
        {"t": 1.5, "type": "reading_start"},
        {"t": 3.0, "type": "reading_end"},
        *({"t": 3.25, "type": "press", "seat": s} for s in (3, 1, 2)),
        {"t": 4.0, "type": "judge", "verdict": "wrong"},
        *({"t": 4.5, "type": "press", "seat": s} for s in (4, 2, 3, 1)),
        {"t": 5.0, "type": "judge", "verdict": "correct"},
    )


def test_replay_is_byte_identical_across_processes() -> None:
    """The same journals replay to the same bytes in another interpreter, whatever
    its hash seed (string hashing must not leak into draws or output order)."""
    journals = {rules_id: _tie_game(rules_id) for rules_id in RULE_IDS}
    here = {rules_id: replay_lines(lines) for rules_id, lines in journals.items()}
    for lines in here.values():
        assert sum(json.loads(line)["type"] == "tie" for line in lines) == 2
    script = (
        "import json, sys\n"
        "from buzzer.replay import replay_lines\n"
        "journals = json.load(sys.stdin)\n"
        "out = {k: replay_lines(v) for k, v in journals.items()}\n"
        "sys.stdout.write(json.dumps(out, ensure_ascii=False))\n"
    )
    for hash_seed in ("0", "4242"):
        proc = subprocess.run(
            [sys.executable, "-c", script],
            input=json.dumps(journals).encode("utf-8"),
            capture_output=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            cwd=REPO,
        )
        assert json.loads(proc.stdout.decode("utf-8")) == here
