"""The panel's command gate, in process: every host action of the engine, applied
once, and a refused command never reaches the journal (so the journal always
replays). No server here: a controller on a clock that moves only when told."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buzzer.core import GameCore
from buzzer.journal.resume import rebuild
from buzzer.journal.store import JournalStore
from buzzer.panel.demo import demo_header
from buzzer.panel.gate import CommandGate, Outcome, SeatError
from buzzer.panel.hub import PanelHub
from buzzer.panel.models import CommandRequest
from buzzer.replay import replay_lines
from buzzer.runtime.controller import Controller
from buzzer.runtime.runtime import Runtime
from buzzer.runtime.trial import Refused, try_input

GAMES = itertools.count()
MS = 1_000_000
S = 1_000_000_000


class FakeClock:
    def __init__(self) -> None:
        self.ns = 100 * S

    def __call__(self) -> int:
        return self.ns


class Table:
    """A controller, its hub and gate, and a clock the test moves."""

    def __init__(self, header: dict[str, Any], store: JournalStore | None = None) -> None:
        self.clock = FakeClock()
        self.controller = Controller.new(header, store, self.clock)
        self.runtime = Runtime(self.controller)  # stepped by hand: the clock is the test's
        self.hub = PanelHub(self.runtime.commands)
        self.gate = CommandGate(self.runtime)
        self.n = 0

    def wait(self, ns: int = 10 * MS) -> None:
        """Let time pass, as the runtime's thread does."""
        self.clock.ns += ns
        self.runtime.step()

    def send(self, command: dict[str, Any], version: int | None = None, id: str = "") -> Outcome:
        self.n += 1
        request = CommandRequest.model_validate(
            {"id": id or f"c{self.n}", "version": version, "command": command}
        )
        outcome = self.gate.execute(request)
        self.wait()
        return outcome

    def ok(self, command: dict[str, Any]) -> dict[str, Any]:
        outcome = self.send(command)
        assert outcome.status == 200, outcome.body
        return outcome.body

    def refused(self, command: dict[str, Any]) -> dict[str, Any]:
        lines = self.controller.core.history[:]
        outcome = self.send(command)
        assert outcome.status == 409, outcome.body
        assert [x for x in self.controller.core.history if x not in lines] == [] or all(
            type(x).__name__ == "Tick" for x in self.controller.core.history[len(lines) :]
        )
        detail: dict[str, Any] = outcome.body["detail"]
        return detail

    def press(self, seat: int) -> None:
        self.runtime.wait(self.runtime.press(seat))
        self.wait()

    @property
    def s(self) -> dict[str, Any]:
        return self.controller.snapshot()


def replays(store: JournalStore, live: Controller) -> None:
    """The journal replays without error and rebuilds the live state."""
    lines = list(store.lines())
    replay_lines(lines)
    core, _ = rebuild(lines)
    assert core.snapshot() == live.core.snapshot()


def test_a_whole_game_with_every_host_action(tmp_path: Path) -> None:
    store = JournalStore(tmp_path / "g.sqlite")
    table = Table(demo_header("tv-modern"), store)
    # A plain question: a wrong answer, then a right one.
    table.ok({"type": "select", "theme": 1, "price": 100})
    table.ok({"type": "reading_start"})
    table.ok({"type": "reading_end"})
    table.press(2)
    assert table.s["answering"] == 2
    table.press(3)  # behind seat 2: a margin
    assert "3" in table.s["margins_us"]
    table.ok({"type": "judge", "verdict": "wrong"})
    table.press(3)
    table.ok({"type": "judge", "verdict": "correct"})
    assert table.s["scores"] == {"1": 0, "2": -100, "3": 100}
    assert table.s["chooser"] == 3
    # An objection turns seat 2's wrong answer into a right one.
    table.ok({"type": "objection", "seat": 2})
    assert table.s["scores"]["2"] == 100
    # A question nobody answers.
    table.ok({"type": "select", "theme": 1, "price": 200})
    table.ok({"type": "reading_end"})
    table.ok({"type": "timeout"})
    assert table.s["stage"] == "board"
    # The stake question (round 1, theme 2, 200): the auction.
    for seat in (1, 2, 3):
        table.ok({"type": "correction", "seat": seat, "delta": 1000, "reason": "фора"})
    table.ok({"type": "select", "theme": 2, "price": 200})
    assert table.s["stage"] == "bidding"
    bidding = table.s["bidding"]
    opener = bidding["turn"]
    assert table.hub.extras()["bid_min"] == 200
    detail = table.refused({"type": "bid", "seat": opener, "amount": 250})  # not a step of 100
    assert detail["code"] == "refused"
    table.refused({"type": "pass", "seat": opener})  # the opener must bid first
    table.ok({"type": "bid", "seat": opener, "amount": 300})
    second = table.s["bidding"]["turn"]
    assert second != opener
    table.ok({"type": "bid", "seat": second, "amount": 400})
    while table.s["stage"] == "bidding":
        turn = table.s["bidding"]["turn"]
        table.ok({"type": "pass", "seat": turn})
    assert table.s["stage"] == "special"
    table.ok({"type": "judge", "verdict": "correct"})
    # A score correction with a reason, then undone by its journal line.
    result = table.ok({"type": "correction", "seat": 1, "delta": 300, "reason": "судья ошибся"})
    line = result["line"]
    assert json.loads(list(store.lines())[line - 1])["type"] == "correction"
    table.ok({"type": "undo", "line": line})
    before = table.s["scores"]["1"]
    table.ok({"type": "correction", "seat": 1, "delta": 300, "reason": "судья ошибся"})
    assert table.s["scores"]["1"] == before + 300
    # The rest of round 1.
    for theme, price in [(1, 300), (2, 100), (2, 300), (3, 100), (3, 200), (3, 300)]:
        table.ok({"type": "select", "theme": theme, "price": price})
        table.ok({"type": "reading_end"})
        table.press(1)
        table.ok({"type": "judge", "verdict": "correct"})
    # The round is over: the next select moves to round 2, whose first chooser (the
    # lowest score) the panel shows beforehand.
    upcoming = table.hub.extras()["next_round"]
    assert upcoming is not None
    assert upcoming["round"] == 2 and upcoming["prices"] == [200, 400, 600]
    # The core plays the preview's select on a copy once per version of the game,
    # not once per panel that asks (Controller.host_options).
    with mock.patch.object(GameCore, "copy", autospec=True, side_effect=GameCore.copy) as copies:
        for _ in range(3):
            assert table.hub.extras()["next_round"] == upcoming
    assert copies.call_count == 0
    table.ok({"type": "select", "theme": 1, "price": 200})
    assert table.s["round"] == 2
    chooser = table.s["chooser"]
    assert chooser == upcoming["chooser"]
    assert table.s["scores"][str(chooser)] == min(table.s["scores"].values())
    # Round 2: the cat in the bag (theme 1, 200) and the sponsor question (theme 3, 600).
    assert table.s["stage"] == "cat_give"
    table.refused({"type": "cat_give", "seat": chooser})  # must go to an opponent
    other = 1 if chooser != 1 else 2
    table.ok({"type": "cat_give", "seat": other})
    assert table.hub.extras()["cat_options"] == [200, 600]
    table.refused({"type": "cat_price", "price": 400})
    table.ok({"type": "cat_price", "price": 600})
    assert table.s["stage"] == "special" and table.s["answering"] == other
    table.ok({"type": "judge", "verdict": "wrong"})
    table.ok({"type": "select", "theme": 3, "price": 600})
    assert table.s["special"] == "sponsor" and table.s["stage"] == "special"
    table.ok({"type": "judge", "verdict": "wrong"})
    for theme, price in [(1, 400), (1, 600), (2, 200), (2, 400), (2, 600), (3, 200), (3, 400)]:
        table.ok({"type": "select", "theme": theme, "price": price})
        table.ok({"type": "reading_end"})
        table.press(2)
        table.ok({"type": "judge", "verdict": "correct"})
    # The final: themes removed in turn, hidden stakes, answers judged in order.
    assert table.s["stage"] == "final_remove"
    turn = table.hub.extras()["final_turn"]
    table.ok({"type": "final_remove", "theme": 1, "seat": turn})
    table.ok({"type": "final_remove", "theme": 2})
    assert table.s["stage"] == "final_stakes"
    finalists = table.s["final"]["seats"]
    # C2003-2.7.3: the question is read once every stake is in
    early = table.refused({"type": "reading_start"})
    assert early["message"] == "Вопрос финала читается, когда сданы все ставки."
    assert "every stake is in" in early["engine"]
    for seat in finalists:
        table.ok({"type": "final_stake", "seat": seat, "amount": 100})
    assert table.s["stage"] == "final_judging"
    order = table.s["final"]["judge_order"]
    # C2003-2.7.4/2.7.5, TV-F-4/5: a verdict before the reading, or inside the 30 s, is a
    # stray tap: refused, and no stake is revealed
    unread = table.refused({"type": "final_judge", "verdict": "correct", "seat": order[0]})
    assert unread["message"].startswith("Сначала прочитайте вопрос финала")
    assert "has not been read yet" in unread["engine"]
    table.ok({"type": "reading_start"})
    table.ok({"type": "reading_end"})
    assert table.hub.extras()["final_timer_until"] is not None
    writing = table.refused({"type": "final_judge", "verdict": "correct", "seat": order[0]})
    assert writing["message"] == "Игроки ещё пишут ответы: оценивайте, когда выйдет время."
    assert "still writing" in writing["engine"]
    assert table.s["final"]["answers_in"] is False
    assert [d for d in table.controller.core.history if type(d).__name__ == "FinalJudge"] == []
    table.wait(30 * S)
    assert table.s["final"]["answers_in"] is True
    if len(order) > 1:
        detail = table.refused({"type": "final_judge", "verdict": "correct", "seat": order[1]})
        assert "возрастанию" in detail["message"]
    for seat in order:
        table.ok({"type": "final_judge", "verdict": "correct", "seat": seat})
    assert table.s["stage"] == "over" and table.s["winner"] is not None
    over = table.refused({"type": "select", "theme": 1, "price": 200})
    assert over["message"] == "Игра окончена."
    replays(store, table.controller)


def two_finalists(store: JournalStore | None = None) -> Table:
    """A one-question game whose seats 1 and 2 (100 each) reach the final's stakes."""
    header = {
        "rules": "championship-2003",
        "players": ["А", "Б", "В"],
        "chooser": 1,
        "board": {"rounds": [{"name": "Раунд", "themes": 1, "prices": [10]}]},
        "final_themes": 2,
    }
    table = Table(header, store)
    table.ok({"type": "correction", "seat": 1, "delta": 100, "reason": "test"})
    table.ok({"type": "correction", "seat": 2, "delta": 100, "reason": "test"})
    table.ok({"type": "select", "theme": 1, "price": 10})
    table.ok({"type": "timeout"})
    assert table.s["stage"] == "final_remove"
    table.ok({"type": "final_remove", "theme": 2})
    return table


def read_final_question(table: Table) -> None:
    """The host reads the final question; the 30 s for the written answers run out."""
    table.ok({"type": "reading_start"})
    table.ok({"type": "reading_end"})
    table.wait(30 * S)


def test_a_tie_after_the_final_is_played_off_in_a_shootout(tmp_path: Path) -> None:
    store = JournalStore(tmp_path / "g.sqlite")
    table = two_finalists(store)
    for seat in (1, 2):
        table.ok({"type": "final_stake", "seat": seat, "amount": 50})
    read_final_question(table)
    for seat in table.s["final"]["judge_order"]:
        table.ok({"type": "final_judge", "verdict": "wrong", "seat": seat})
    shootout = table.s["shootout"]
    assert shootout is not None and shootout["seats"] == [1, 2]
    table.ok({"type": "select"})  # the shootout's questions go in order
    table.ok({"type": "reading_end"})
    table.press(3)  # not in the shootout: ignored
    table.press(2)
    table.ok({"type": "judge", "verdict": "correct"})
    while table.s["stage"] != "over":
        table.ok({"type": "select"})
        table.ok({"type": "timeout"})
    assert table.s["winner"] == 2
    replays(store, table.controller)


def test_a_repeated_id_is_applied_once_and_returns_the_first_result(tmp_path: Path) -> None:
    store = JournalStore(tmp_path / "g.sqlite")
    table = Table(demo_header(), store)
    first = table.send({"type": "correction", "seat": 2, "delta": 50, "reason": "x"}, id="tap")
    again = table.send({"type": "correction", "seat": 2, "delta": 50, "reason": "x"}, id="tap")
    assert first.status == again.status == 200
    assert again.body == first.body and again.repeat
    assert table.s["scores"]["2"] == 50
    assert sum(1 for line in store.lines() if '"correction"' in line) == 1
    other = table.send({"type": "correction", "seat": 2, "delta": 70, "reason": "x"}, id="tap")
    assert other.status == 409 and other.body["detail"]["code"] == "id_reused"
    # A refusal is remembered too: the retry gets the same 409.
    no = table.send({"type": "judge", "verdict": "correct"}, id="judge")
    assert no.status == 409
    assert table.send({"type": "judge", "verdict": "correct"}, id="judge").body == no.body


def test_a_stale_command_is_refused_with_what_changed(tmp_path: Path) -> None:
    store = JournalStore(tmp_path / "g.sqlite")
    table = Table(demo_header(), store)
    table.ok({"type": "select", "theme": 1, "price": 100})
    table.ok({"type": "reading_end"})
    seen = table.s["version"]  # the host looks at the open window…
    table.press(3)  # …and seat 3 presses before the tap arrives
    lines = len(store)
    outcome = table.send({"type": "timeout"}, version=seen)
    assert outcome.status == 409
    detail = outcome.body["detail"]
    assert detail["code"] == "stale" and "Вера" in detail["message"]
    assert "Вера" in detail["message_en"]
    assert len(store) == lines  # nothing journaled
    # The same tap made from the current state goes through (ticks don't make it stale).
    table.wait(200 * MS)
    assert table.send({"type": "judge", "verdict": "correct"}, version=seen).status == 409
    now = table.s["version"]
    table.wait(S)
    assert table.send({"type": "judge", "verdict": "correct"}, version=now).status == 200
    # A version the server never published.
    future = table.send({"type": "correction", "seat": 1, "delta": 1, "reason": "r"}, version=10**6)
    assert future.status == 409 and future.body["detail"]["code"] == "stale"


def test_a_cat_value_off_the_eras_step_is_refused_in_the_hosts_language() -> None:
    header = {
        "rules": "tv-1994",
        "date": "2004-05-01",  # TV-S-CAT-4: the editors' values in hundreds since 2003
        "players": ["А", "Б", "В"],
        "chooser": 1,
        "specials": [{"round": 1, "theme": 1, "price": 100, "kind": "cat"}],
    }
    table = Table(header)
    table.ok({"type": "select", "theme": 1, "price": 100})
    table.ok({"type": "cat_give", "seat": 2})
    odd = table.refused({"type": "cat_price", "price": 250})
    assert odd["message"] == "В эту эпоху стоимость кота кратна 100: 250 не подходит (TV-S-CAT-4)."
    assert "multiple of 100" in odd["engine"]
    zero = table.refused({"type": "cat_price", "price": 0})
    assert zero["message"] == "Стоимость кота — положительное число."
    table.ok({"type": "cat_price", "price": 400})
    assert table.s["value"] == 400


def test_a_seat_the_game_does_not_have_is_a_validation_error() -> None:
    table = Table(demo_header())
    with pytest.raises(SeatError):
        table.send({"type": "objection", "seat": 9})


def test_pause_blocks_the_game_but_not_corrections(tmp_path: Path) -> None:
    store = JournalStore(tmp_path / "g.sqlite")
    table = Table(demo_header(), store)
    assert table.send({"type": "pause"}).status == 200
    assert table.hub.paused
    lines = len(store)
    outcome = table.send({"type": "select", "theme": 1, "price": 100})
    assert outcome.status == 409 and outcome.body["detail"]["code"] == "paused"
    assert len(store) == lines
    assert table.send({"type": "correction", "seat": 1, "delta": 5, "reason": "r"}).status == 200
    assert table.send({"type": "resume"}).status == 200
    assert not table.hub.paused
    assert table.send({"type": "select", "theme": 1, "price": 100}).status == 200


def test_the_trial_copy_leaves_the_game_untouched() -> None:
    table = Table(demo_header())
    table.ok({"type": "select", "theme": 1, "price": 100})
    table.ok({"type": "reading_end"})
    table.press(1)
    core = table.controller.core
    before = json.dumps(core.snapshot(), sort_keys=True)
    history = list(core.history)
    twin = core.copy()
    from buzzer.arbiter.events import Judge, ReadingStart

    twin.push(Judge(table.controller.now(), True), [])
    twin.push(Judge(table.controller.now() + 10 * MS, True), [])
    assert twin.snapshot()["scores"]["1"] == 100
    assert json.dumps(core.snapshot(), sort_keys=True) == before
    assert core.history == history
    with pytest.raises(Refused):
        try_input(core, ReadingStart(table.controller.now()))  # seat 1 is answering
    assert json.dumps(core.snapshot(), sort_keys=True) == before


def test_a_game_holds_no_closures_so_its_copy_shares_nothing_mutable() -> None:
    """The handler table is a class-level table of names: nothing in a game's state
    is a function bound to that game, which a deep copy would leave pointing at
    the original (the trial run would then change the real game)."""
    import types

    table = Table(demo_header())
    table.ok({"type": "select", "theme": 1, "price": 100})
    game = table.controller.core.game

    def functions(value: object) -> bool:
        kinds = (types.FunctionType, types.MethodType)
        if isinstance(value, dict):
            return any(isinstance(v, kinds) for v in value.values())
        return isinstance(value, kinds)

    assert [name for name, value in vars(game).items() if functions(value)] == []
    twin = table.controller.core.copy()
    assert twin.game is not game and twin.game.scores is not game.scores
    assert twin.game.arbiter is not game.arbiter


COMMANDS = st.one_of(
    st.builds(
        lambda t, p: {"type": "select", "theme": t, "price": p},
        st.integers(1, 4),
        st.sampled_from([100, 200, 300, 400, 600]),
    ),
    st.just({"type": "select"}),
    st.just({"type": "reading_start"}),
    st.just({"type": "reading_end"}),
    st.sampled_from([{"type": "judge", "verdict": v} for v in ("correct", "wrong")]),
    st.just({"type": "timeout"}),
    st.builds(
        lambda s, a: {"type": "bid", "seat": s, "amount": a},
        st.integers(1, 3),
        st.sampled_from([0, 100, 200, 250, 300, 600, 1000]),
    ),
    st.builds(lambda s: {"type": "pass", "seat": s}, st.integers(1, 3)),
    st.builds(lambda s: {"type": "cat_give", "seat": s}, st.integers(1, 3)),
    st.builds(lambda p: {"type": "cat_price", "price": p}, st.sampled_from([200, 400, 600])),
    st.builds(
        lambda t, s: {"type": "final_remove", "theme": t, "seat": s},
        st.integers(1, 4),
        st.one_of(st.none(), st.integers(1, 3)),
    ),
    st.builds(
        lambda s, a: {"type": "final_stake", "seat": s, "amount": a},
        st.integers(1, 3),
        st.one_of(st.none(), st.integers(0, 500)),
    ),
    st.builds(
        lambda v, s: {"type": "final_judge", "verdict": v, "seat": s},
        st.sampled_from(["correct", "wrong"]),
        st.one_of(st.none(), st.integers(1, 3)),
    ),
    st.builds(
        lambda s, d: {"type": "correction", "seat": s, "delta": d, "reason": "r"},
        st.integers(1, 3),
        st.sampled_from([-300, 100, 500]),
    ),
    st.builds(lambda s: {"type": "objection", "seat": s}, st.integers(1, 3)),
    st.builds(lambda n: {"type": "undo", "line": n}, st.integers(1, 40)),
    st.builds(lambda s: {"press": s}, st.integers(1, 3)),
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(COMMANDS, min_size=1, max_size=40), st.sampled_from(["tv-modern", "tv-1994"]))
def test_whatever_the_host_taps_the_journal_replays(
    tmp_path: Path, commands: list[dict[str, Any]], rules: str
) -> None:
    """Refused commands never reach the journal: the journal always replays, to the
    same state, whatever sequence of taps (most of them refused) the host made."""
    store = JournalStore(tmp_path / f"g{next(GAMES)}.sqlite")
    try:
        table = Table(demo_header(rules), store)
        for command in commands:
            if "press" in command:
                table.press(command["press"])
                continue
            outcome = table.send(command)
            assert outcome.status in (200, 409), outcome.body
        replays(store, table.controller)
    finally:
        store.close()


def test_a_command_followed_by_a_tick_in_one_batch_still_updates_the_hosts_log() -> None:
    """A replaced final stake changes nothing a viewer sees, but the host's
    command log (where the panel reads the accepted stake) must go out in full,
    even when the runtime's batch put a tick after the command (it does when a
    deadline fell due): the update covers the whole batch, not its last input."""
    from buzzer.arbiter.events import FinalStake, Tick

    table = two_finalists()
    table.ok({"type": "final_stake", "seat": 1, "amount": 70})
    sent: list[tuple[str, str]] = []
    hub = table.hub
    original = hub._dispatch

    def spy(viewer: str, host: str) -> None:
        sent.append((viewer, host))
        original(viewer, host)

    hub._dispatch = spy  # type: ignore[method-assign]
    now = table.clock.ns
    results, _ = table.controller.apply_batch(
        [(FinalStake(now, 1, 40), True), (Tick(now + 1), False)]
    )
    assert results[0].line is not None
    assert len(sent) == 1
    message = json.loads(sent[0][1])
    assert message["type"] == "update"
    stakes = [c for c in message["panel"]["commands"] if c["type"] == "final_stake"]
    assert [(c["seat"], c["amount"]) for c in stakes] == [(1, 40), (1, 70)]
    # The viewer's copy never carries the log (it holds the hidden stakes).
    assert "commands" not in json.loads(sent[0][0])["panel"]
