"""TV-S-AUC-3: «игрока выбирает ведущий» — the host picks the next bidder among equal scores.

When the bidding's turn comes to a player whose score equals that of others
who have not bid yet, the host says which of them bids now (``bidder_pick``).
Where the rules give the host that choice (the TV bidding by turns, from
TV-H-1996-09; ``tv-modern``), the order drawn by lot stands until the host
picks (TV-S-AUC-3-D1), so a journal without a pick replays as before; where
they do not (``championship-2003``: C2003-2.4.6-D4, the lot), a pick is
refused. The pick is journaled, replayed, offered by ``HostOptions`` when
pending and refused with the host's sentence otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from buzzer.arbiter.events import BidderPick, Tick
from buzzer.core import GameCore
from buzzer.journal.codec import InputParser, JournalError, parse_header
from buzzer.panel.demo import demo_header
from buzzer.runtime.controller import Controller
from buzzer.runtime.runtime import Runtime
from tests.conftest import of_type, run

A, B, C = 1, 2, 3
S = 1_000_000_000


def head(rules: str = "tv-modern", price: int = 200) -> dict[str, Any]:
    return {
        "rules": rules,
        "players": ["A", "B", "C"],
        "chooser": A,
        "seed": 1,
        "specials": [{"round": 1, "theme": 1, "price": price, "kind": "stake"}],
    }


def scores(a: int, b: int, c: int) -> list[dict[str, Any]]:
    return [
        {"t": 1.0 + n / 10, "type": "correction", "seat": seat, "delta": v, "reason": "setup"}
        for n, (seat, v) in enumerate(((A, a), (B, b), (C, c)))
    ]


def opened(price: int = 200, bid: int = 200) -> list[dict[str, Any]]:
    return [
        *scores(500, 400, 400),
        {"t": 2.0, "type": "select", "theme": 1, "price": price},
        {"t": 3.0, "type": "bid", "seat": A, "amount": bid},
    ]


def pick(t: float, seat: int) -> dict[str, Any]:
    return {"t": t, "type": "bidder_pick", "seat": seat}


def test_TV_S_AUC_3_the_lot_stands_until_the_host_picks() -> None:
    out = run(head(), *opened())
    assert of_type(out, "special")[0]["order"] == [A, C, B]  # the seed's lot: C first
    assert of_type(out, "bid_turn")[-1]["seat"] == C


def test_TV_S_AUC_3_the_host_picks_the_other_tied_player_to_bid_now() -> None:
    out = run(
        head(),
        *opened(),
        pick(4.0, B),
        {"t": 5.0, "type": "bid", "seat": B, "amount": 300},
        {"t": 6.0, "type": "pass", "seat": C},
        {"t": 7.0, "type": "pass", "seat": A},
    )
    assert [(o["t"], o["seat"], o.get("tied")) for o in of_type(out, "bidder_pick")] == [
        (4.0, B, [C, B])
    ]
    turns = [(o["t"], o["seat"]) for o in of_type(out, "bid_turn")]
    # B now, then C (the lot's place kept), then round to A
    assert turns[-4:] == [(3.0, C), (4.0, B), (5.0, C), (6.0, A)]
    assert of_type(out, "stake_won")[0]["seat"] == B


def test_TV_S_AUC_3_picking_the_player_whose_turn_it_is_confirms_the_lot() -> None:
    out = run(head(), *opened(), pick(4.0, C))
    assert of_type(out, "bid_turn")[-1] == {"t": 4.0, "type": "bid_turn", "seat": C}


@pytest.mark.parametrize(
    ("events", "match"),
    [
        # the opener bids first whatever the scores: no pick before the opening bid
        (
            [
                *scores(500, 300, 300),
                {"t": 2.0, "type": "select", "theme": 1, "price": 200},
                pick(3.0, B),
            ],
            "no tie to pick",
        ),
        # A is not tied with C and B
        ([*opened(), pick(4.0, A)], "not among the tied players"),
        # once B has bid, the tie is decided: C's turn, nobody left to pick from
        (
            [
                *opened(),
                pick(4.0, B),
                {"t": 5.0, "type": "bid", "seat": B, "amount": 300},
                pick(6.0, C),
            ],
            "no tie to pick",
        ),
        # no bidding at all
        ([pick(2.0, B)], "no stake question or auction is being bid on"),
    ],
)
def test_TV_S_AUC_3_a_pick_with_nothing_to_pick_is_refused(
    events: list[dict[str, Any]], match: str
) -> None:
    with pytest.raises(JournalError, match=match):
        run(head(), *events)


def test_TV_S_AUC_3_no_tie_no_pick() -> None:
    events = [*scores(500, 300, 400), {"t": 2.0, "type": "select", "theme": 1, "price": 200}]
    events.append({"t": 3.0, "type": "bid", "seat": A, "amount": 200})
    with pytest.raises(JournalError, match="no tie to pick"):
        run(head(), *events, pick(4.0, B))


def test_C2003_2_4_6_D4_where_the_rules_draw_lots_the_host_does_not_pick() -> None:
    events = [
        *scores(50, 30, 30),
        {"t": 2.0, "type": "select", "theme": 1, "price": 20},
        {"t": 3.0, "type": "bid", "seat": A, "amount": 20},
    ]
    run(head("championship-2003", 20), *events)  # the bidding itself is fine
    with pytest.raises(JournalError, match=r"lot orders equal scores \(C2003-2.4.6-D4\)"):
        run(head("championship-2003", 20), *events, pick(4.0, B))


@pytest.mark.parametrize(("day", "picks"), [("1996-08-31", False), ("1996-09-01", True)])
def test_TV_S_AUC_3_the_host_picks_from_TV_H_1996_09(day: str, picks: bool) -> None:
    # Until Aug 1996 the stake question is bought by the button (TV-H-1995-01): no order.
    header = {**head(f"tv@{day}", 20)}
    events = [
        *scores(50, 30, 30),
        {"t": 2.0, "type": "select", "theme": 1, "price": 20},
        {"t": 3.0, "type": "bid", "seat": A, "amount": 20},
    ]
    if picks:
        out = run(header, *events, pick(4.0, B))
        assert of_type(out, "bidder_pick")[0]["seat"] == B
    else:
        with pytest.raises(JournalError, match="pick"):
            run(header, *events, pick(4.0, B))


def test_TV_S_AUC_3_host_options_offer_the_pick_only_when_pending() -> None:
    header = {"type": "game", **head(), "settle_ms": 0}
    core = GameCore(parse_header(json.dumps(header)))
    parser = InputParser(3)
    offered: list[list[int] | None] = []
    events = [*opened(), pick(4.0, B), {"t": 5.0, "type": "bid", "seat": B, "amount": 300}]
    for number, event in enumerate(events, 2):
        core.push(parser.parse(json.dumps(event), number), [])
        core.push(Tick(int(event["t"] * S) + S // 100), [])  # past the settle time
        offered.append(core.host_options(int(event["t"] * S))["bidder_pick"])
    # pending from the opening bid until one of the tied bids (the host may pick
    # again meanwhile); then C's turn is its own
    assert offered == [None, None, None, None, [C, B], [B, C], None]
    snapshot = core.snapshot()
    assert snapshot["bidding"] is not None
    assert snapshot["bidding"]["order"] == [A, B, C]
    assert snapshot["bidding"]["pickable"] == []


def test_TV_S_AUC_3_the_pick_replays_the_same() -> None:
    events = [*opened(), pick(4.0, B), {"t": 5.0, "type": "bid", "seat": B, "amount": 400}]
    assert run(head(), *events) == run(head(), *events)
    assert BidderPick(4 * S, B).TYPE == "bidder_pick"


# -- the host's sentence ---------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.ns = 100 * S

    def __call__(self) -> int:
        return self.ns


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    controller = Controller.new({**demo_header(), "settle_ms": 0}, None, Clock())
    yield Runtime(controller)


def test_TV_S_AUC_3_the_host_is_told_why_a_pick_is_refused(runtime: Runtime) -> None:
    commands = runtime.commands
    outcome = commands.execute({"type": "bidder_pick", "seat": 2})
    assert outcome.refusal is not None
    assert outcome.refusal.ru == "Сейчас не идут торги."
    for seat, delta in ((1, 500), (2, 300), (3, 300)):
        correction = {"type": "correction", "seat": seat, "delta": delta, "reason": "r"}
        assert commands.execute(correction).accepted
    assert commands.execute({"type": "select", "theme": 2, "price": 200}).accepted
    outcome = commands.execute({"type": "bidder_pick", "seat": 2})
    assert outcome.refusal is not None and "Сейчас выбирать некого" in outcome.refusal.ru
    assert "TV-S-AUC-3" in outcome.refusal.en
    assert commands.execute({"type": "bid", "seat": 1, "amount": 200}).accepted
    outcome = commands.execute({"type": "bidder_pick", "seat": 1})
    assert outcome.refusal is not None
    assert outcome.refusal.ru.startswith("Выбрать можно только из игроков с равным счётом: ")
    tied = runtime.controller.snapshot()["bidding"]["pickable"]  # type: ignore[index]
    assert sorted(tied) == [2, 3]
    assert commands.execute({"type": "bidder_pick", "seat": tied[1]}).accepted
    assert runtime.controller.snapshot()["bidding"]["turn"] == tied[1]  # type: ignore[index]


def test_TV_S_AUC_3_the_replay_summary_tells_the_host_s_pick() -> None:
    from buzzer.replay_summary import replay_summary
    from tests.conftest import journal

    events = [
        *opened(),
        pick(4.0, B),
        {"t": 5.0, "type": "bid", "seat": B, "amount": 300},
        {"t": 6.0, "type": "pass", "seat": C},
        {"t": 7.0, "type": "pass", "seat": A},
    ]
    text = replay_summary(journal(head(), *events))
    assert "торги: A 200, выбор ведущего — B, B 300" in text
    english = replay_summary(journal(head(), *events), lang="en")
    assert "bidding: A 200, host's pick — B, B 300" in english
