"""Whatever the live path accepts, the journal replays to the same state (issue 13).

Hostile input must never poison the journal: a line the live game wrote and a
replay (or ``svoyak run --resume``) refuses loses the game at the next restart.
The property is played on the real live path — the panel's command gate, the
runtime's thread, the controller, a SQLite journal — with host commands drawn
by hypothesis (hostile values among them: seats the game does not have, a
correction of 0, lone surrogates, huge numbers, wrong types) and link frames
through a real ``BridgeLink`` on a pseudo-terminal (the Pico emulator: its
buttons beyond the players, forged HEARTBEATs with impossible counters, line
noise). Then:

- the journal replays without an error, to the live snapshot and the live
  decisions;
- every press and release of a button that has a seat is in the journal
  (a forged heartbeat ate none), and none of a button without one;
- a command id is journaled at most once (a retry is answered, not applied).

Each attack also has a test of its own below.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from buzzer.app.inputs import GpioSink, attach_bridge
from buzzer.arbiter.events import Correction, Press, Release
from buzzer.core import InputError
from buzzer.journal.codec import InputParser, JournalError
from buzzer.journal.encode import checked_line
from buzzer.journal.resume import rebuild
from buzzer.journal.store import JournalStore
from buzzer.panel.demo import demo_header
from buzzer.panel.gate import CommandGate, SeatError
from buzzer.panel.hub import PanelHub
from buzzer.panel.models import CommandRequest
from buzzer.replay import replay_lines
from buzzer.runtime.controller import Controller
from buzzer.runtime.runtime import CommandRefused, Runtime
from firmware_bridge import protocol as p
from firmware_bridge.emulator import Emulator
from firmware_bridge.link import BridgeLink, LinkConfig
from tests.support.fairness_rig import LiveRecord

PLAYERS = ("Аня", "Борис", "Вера")
HEADER = {**demo_header("tv-modern", PLAYERS), "settle_ms": 0}
U32 = 2**32 - 1
HOLDOFF_US = 2_000
TIMEOUT = 20.0


def wait_for(check: Callable[[], Any], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.002)


class Device:
    """The Pico emulator, plus frames of our own written into the same pty: a
    forged frame is one ``write`` (a tty takes it whole, between the device's)."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator
        self.seq = 0x8000
        self.clicks: list[int] = []
        self._free_at = 0

    def forge(self, data: bytes) -> None:
        master = self.emulator._master
        assert master is not None
        os.write(master, data)

    def frame(self, message: p.Message) -> None:
        self.seq = (self.seq + 1) & 0xFFFF
        self.forge(p.encode_frame(message, self.seq))

    def heartbeat(self, next_event: int, oldest_unacked: int) -> None:
        self.frame(p.Heartbeat(self.emulator.ticks(), next_event, oldest_unacked, 0, 0))

    def click(self, button: int) -> None:
        """A press and its release, one after another: never inside a hold-off."""
        hold = HOLDOFF_US + 500
        at = self.emulator.click_after(button, hold, not_before_us=self._free_at)
        self._free_at = at + hold + HOLDOFF_US + 500
        self.clicks.append(button)


@contextmanager
def live_game(tmp_path: Path) -> Iterator[tuple[Controller, Runtime, CommandGate, Device, Any]]:
    """A live game as ``svoyak run`` wires it, with the emulated Pico (8 buttons, 3 players)."""
    store = JournalStore(tmp_path / f"game-{time.monotonic_ns()}.sqlite")
    controller = Controller.new(HEADER, store)
    record = LiveRecord()
    controller.subscribe(record)
    runtime = Runtime(controller).start()
    PanelHub(runtime.commands)
    gate = CommandGate(runtime)
    emulator = Emulator(buttons=8, holdoff_us=HOLDOFF_US).start()
    attached = None
    try:
        config = LinkConfig(emulator.path, backoff_initial_s=0.01, backoff_max_s=0.05)
        attached = attach_bridge(runtime, emulator.path, config, connect_timeout_s=TIMEOUT)
        assert attached.link.connected
        controller.record = record  # type: ignore[attr-defined]
        yield controller, runtime, gate, Device(emulator), attached
    finally:
        if attached is not None:
            attached.close()
        runtime.stop()
        emulator.stop()
        store.close()


def journal(controller: Controller) -> list[str]:
    assert controller.store is not None
    return list(controller.store.lines())


def assert_replays_to_the_live_game(controller: Controller, lines: list[str]) -> None:
    replay_lines(lines)  # the whole journal replays (svoyak replay would exit 0)
    core, decisions = rebuild(lines)
    assert core.snapshot() == controller.core.snapshot()
    started = len(core.started)
    record: LiveRecord = controller.record  # type: ignore[attr-defined]
    assert [d.to_json() for d in decisions[started:]] == record.decisions


# -- the strategies ------------------------------------------------------------------

surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=())
texts = st.one_of(
    st.just("опечатка"),
    st.text(st.one_of(st.characters(), surrogates), min_size=0, max_size=6),
    st.text(min_size=190, max_size=600),
)
hostile_numbers = st.one_of(
    st.sampled_from([0, -1, 4, 8, 17, 10**9, 10**9 + 1, 2**31, 2**63, -(2**63), 10**30]),
    st.booleans(),
    st.floats(),
    st.none(),
    st.just("1"),
)
PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "seat": st.integers(1, 3),
    "theme": st.integers(1, 3),
    "price": st.sampled_from([100, 200, 300, 400, 600]),
    "amount": st.sampled_from([100, 200, 300, 500, 1000]),
    "delta": st.sampled_from([-300, 0, 100, 500]),
    "line": st.integers(1, 30),
    "verdict": st.sampled_from(["correct", "wrong"]),
    "reason": texts,
}
FIELDS: dict[str, tuple[str, ...]] = {
    "select": ("theme", "price"),
    "reading_start": (),
    "reading_end": (),
    "judge": ("verdict",),
    "timeout": (),
    "bid": ("seat", "amount"),
    "pass": ("seat",),
    "cat_give": ("seat",),
    "cat_price": ("price",),
    "final_remove": ("theme", "seat"),
    "final_stake": ("seat", "amount"),
    "final_judge": ("verdict", "seat"),
    "correction": ("seat", "delta", "reason"),
    "objection": ("seat",),
    "undo": ("line",),
    "pause": (),
    "resume": (),
}
# The game moves on mostly by these: a question asked, read, pressed for, judged.
FLOW = ("select", "reading_start", "reading_end", "judge", "timeout")


@st.composite
def raw_commands(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.one_of(st.sampled_from(FLOW), st.sampled_from(sorted(FIELDS)), st.just("bogus")))
    command: dict[str, Any] = {"type": kind}
    for name in FIELDS.get(kind, ("seat",)):
        if draw(st.integers(0, 9)) == 0:
            continue  # a field left out
        hostile = draw(st.integers(0, 3)) == 0
        command[name] = draw(hostile_numbers if hostile else PLAUSIBLE[name])
    if draw(st.integers(0, 15)) == 0:
        command["extra"] = 1
    return command


ACTIONS = st.one_of(
    # A question played through: the next cell, read, a button, a verdict.
    st.tuples(st.just("question"), st.integers(0, 7), st.sampled_from(["correct", "wrong"])),
    st.tuples(st.just("command"), raw_commands()),
    st.tuples(st.just("command"), raw_commands()),
    st.tuples(st.just("retry"), st.integers(0, 40)),
    st.tuples(st.just("click"), st.integers(0, 7)),
    st.tuples(
        st.just("heartbeat"),
        st.one_of(st.integers(0, U32), st.sampled_from([0, 1, 2, U32])),
        st.one_of(st.integers(0, U32), st.sampled_from([0, 1, 2, U32])),
    ),
    st.tuples(st.just("noise"), st.binary(max_size=40)),
)


def host_request(body: str) -> CommandRequest | None:
    """What ``POST /api/command`` makes of a body: None where it answers 422."""
    try:
        return CommandRequest.model_validate(json.loads(body))
    except ValidationError:
        return None


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(actions=st.lists(ACTIONS, min_size=1, max_size=40))
@example(actions=[("heartbeat", U32, U32), ("click", 0), ("click", 1)])  # the frame
@example(actions=[("click", 7), ("click", 2)])  # button 7 of 8 in a 3-player game
@example(actions=[("command", {"type": "correction", "seat": 1, "delta": 0, "reason": "r"})])
def test_whatever_the_live_path_accepts_the_journal_replays(
    tmp_path: Path, actions: list[tuple[Any, ...]]
) -> None:
    with live_game(tmp_path) as (controller, runtime, gate, device, attached):
        sent: list[str] = []

        def host(command: dict[str, Any]) -> None:
            body = json.dumps({"id": f"c{len(sent)}", "command": command})
            sent.append(body)
            send(body)

        def send(body: str) -> None:
            request = host_request(body)
            if request is None:
                return
            try:
                outcome = gate.execute(request, timeout=TIMEOUT)
            except SeatError:
                return  # a 422 too
            assert outcome.status in (200, 409), outcome.body

        for action in actions:
            kind = action[0]
            if kind == "question":
                for command in ({"type": "select"}, {"type": "reading_start"}):
                    host(command)
                host({"type": "reading_end"})
                device.click(action[1])
                deadline = time.monotonic() + (0.5 if action[1] < len(PLAYERS) else 0.0)
                while controller.core.snapshot().get("answering") is None:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.002)
                host({"type": "judge", "verdict": action[2]})
            elif kind == "click":
                device.click(action[1])
            elif kind == "heartbeat":
                device.heartbeat(action[1], action[2])
            elif kind == "noise":
                device.forge(bytes(action[1]) + p.DELIMITER)
            elif kind == "command":
                host(action[1])
            elif sent:  # a retry of a command already sent: the same id and body
                send(sent[action[1] % len(sent)])

        seated = [b for b in device.clicks if b < len(PLAYERS)]
        edges = 2 * len(device.clicks)

        def pico_lines() -> tuple[int, int]:
            records = [json.loads(x) for x in journal(controller)[1:]]
            return (
                sum(r["type"] == "press" for r in records),
                sum(r["type"] == "release" for r in records),
            )

        wait_for(lambda: device.emulator.pending_edges() == 0, "the device's edges")
        assert device.emulator.late_edges == 0  # every click is the scripted one: two events
        wait_for(lambda: attached.link.stats().events >= edges, "every edge at the host")
        wait_for(lambda: pico_lines() == (len(seated), len(seated)), "the seated presses")
        assert runtime.settle(TIMEOUT)
        attached.close()
        runtime.stop()

        lines = journal(controller)
        assert_replays_to_the_live_game(controller, lines)
        assert attached.link.stats().unseated == 2 * (len(device.clicks) - len(seated))
        ids = [json.loads(x).get("id") for x in lines[1:]]
        named = [i for i in ids if i is not None]
        assert len(named) == len(set(named))


# -- (a) a button with no seat ---------------------------------------------------------


def test_a_pico_button_beyond_the_players_is_never_journaled(tmp_path: Path) -> None:
    with live_game(tmp_path) as (controller, runtime, _, device, attached):
        device.click(7)  # button 7 of 8: "seat 8" of a 3-player game
        device.click(2)
        wait_for(lambda: attached.link.stats().events >= 4, "the four edges")
        wait_for(lambda: sum('"press"' in x for x in journal(controller)) == 1, "button 2's press")
        assert runtime.settle(TIMEOUT)
        lines = journal(controller)
        seats = [json.loads(x)["seat"] for x in lines[1:] if '"seat"' in x]
        assert seats == [3, 3]
        assert attached.link.stats().unseated == 2
        # …and the game survives a restart: the journal resumes.
        assert controller.store is not None
        Controller.resume(controller.store)


def test_the_controller_refuses_a_seat_the_game_does_not_have(tmp_path: Path) -> None:
    """Whatever a source slips through, the core refuses it before the journal."""
    store = JournalStore(tmp_path / "g.sqlite")
    controller = Controller.new(HEADER, store)
    runtime = Runtime(controller)  # stepped by hand
    source = runtime.clock_source("stray")
    refused = source.put(lambda t: Press(t, 8))
    kept = source.put(lambda t: Press(t, 2))
    runtime.settle()
    with pytest.raises(CommandRefused, match="seat"):
        refused.result(0)
    assert kept.result(0).line == 2
    lines = list(store.lines())
    presses = [json.loads(x) for x in lines[1:] if '"press"' in x]
    assert [r["seat"] for r in presses] == [2]
    assert runtime.stats.refused == 1
    Controller.resume(store)
    with pytest.raises(InputError, match="seat"):
        controller.submit(Release(controller.now(), 0))
    assert len(store) == len(lines)  # submit() refuses before the journal too
    store.close()


def test_a_gpio_button_beyond_the_players_is_dropped_at_the_edge() -> None:
    put: list[Any] = []

    class Source:
        def put(self, item: Any, *, trial: bool = False) -> Future[Any]:
            put.append(item)
            return Future()

    sink = GpioSink(Source(), None, 3)  # type: ignore[arg-type]
    for seat in (1, 7, 7, 3, 4):
        sink(Press(0, seat))
    sink(Release(0, 7))
    assert [e.seat for e in put] == [1, 3]
    assert sink.unseated == {7: 3, 4: 1}


# -- (b) a correction of 0 ---------------------------------------------------------------


def test_a_correction_of_0_is_refused_by_the_api_and_by_the_controller(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="must not be 0"):
        CommandRequest.model_validate(
            {"id": "z", "command": {"type": "correction", "seat": 1, "delta": 0, "reason": "r"}}
        )
    store = JournalStore(tmp_path / "g.sqlite")
    controller = Controller.new(HEADER, store)
    runtime = Runtime(controller)
    zero = runtime.command(lambda t: Correction(t, 1, 0, "r"))
    one = runtime.command(lambda t: Correction(t, 1, 1, "r"))
    runtime.settle()
    with pytest.raises(CommandRefused, match="delta"):
        zero.result(0)
    assert one.result(0).line == 2
    kinds = [json.loads(x)["type"] for x in store.lines()]
    assert [k for k in kinds if k != "tick"] == ["game", "correction"]
    Controller.resume(store)
    store.close()


def test_the_api_answers_422_to_a_correction_of_0_and_to_a_lone_surrogate(
    tmp_path: Path,
) -> None:
    from tests.support.panel_support import panel_rig

    with panel_rig(tmp_path) as rig:
        client = rig.client()
        for body in (
            b'{"id": "a", "command": {"type": "correction", "seat": 1, "delta": 0, "reason": "r"}}',
            b'{"id": "b", "command": {"type": "correction", "seat": 1, "delta": 5, '
            b'"reason": "\\ud800"}}',
        ):
            response = client.post(
                "/api/command", content=body, headers={"content-type": "application/json"}
            )
            assert response.status_code == 422, response.text
        client.close()
        assert len(rig.store) == 1


# -- a lone surrogate ----------------------------------------------------------------------


def test_a_lone_surrogate_never_reaches_the_journal(tmp_path: Path) -> None:
    store = JournalStore(tmp_path / "g.sqlite")
    controller = Controller.new(HEADER, store)
    runtime = Runtime(controller)
    source = runtime.clock_source("buttons")
    bad = runtime.command(lambda t: Correction(t, 1, 5, "\ud800"))
    press = source.put(lambda t: Press(t, 1))  # in the same batch: must not be lost
    runtime.settle()
    with pytest.raises(CommandRefused, match="surrogate"):
        bad.result(0)
    assert press.result(0).line == 2
    replay_lines(list(store.lines()))
    store.close()


def test_a_header_with_a_lone_surrogate_is_refused_before_the_journal(tmp_path: Path) -> None:
    """A player's name from a command line of bytes that are not UTF-8 (surrogateescape)."""
    store = JournalStore(tmp_path / "g.sqlite")
    with pytest.raises(JournalError, match="surrogate"):
        Controller.new({**HEADER, "players": ["Аня", "\udcff"]}, store)
    assert len(store) == 0
    store.close()


def test_the_journal_line_check_is_the_replays_own() -> None:
    parser = InputParser(3)
    assert checked_line(Correction(10**9, 2, -5, "ok", 7), parser, 7)
    for bad in (
        Correction(10**9, 2, 0, "r", 7),
        Correction(10**9, 4, 5, "r", 7),
        Correction(10**9, 2, 5, "\udc00", 7),
        Correction(10**9, 2, 5, "x" * 501, 7),
        Press(-1, 1, 7),
        Press(10**9, True, 7),  # type: ignore[arg-type]
    ):
        with pytest.raises(JournalError) as caught:
            checked_line(bad, parser, 7)
        assert caught.value.line == 7


# -- (c) a forged HEARTBEAT ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("next_event", "oldest_unacked"),
    [(U32, U32), (5, U32), (U32, 1_000), (0, 0)],
)
def test_a_heartbeat_with_impossible_counters_eats_no_press(
    next_event: int, oldest_unacked: int
) -> None:
    with Emulator(holdoff_us=HOLDOFF_US) as emulator:
        config = LinkConfig(emulator.path, backoff_initial_s=0.01, backoff_max_s=0.05)
        with BridgeLink(config) as link:
            assert link.wait_connected(TIMEOUT)
            device = Device(emulator)
            device.click(0)
            wait_for(lambda: link.stats().events == 2, "the first click")
            device.heartbeat(next_event, oldest_unacked)
            wait_for(lambda: link.stats().bad_counters >= 1, "the forged heartbeat")
            device.click(1)
            device.click(2)
            got = [link.events.get(timeout=TIMEOUT) for _ in range(6)]
            assert [(type(e), e.seat) for e in got] == [
                (Press, 1),
                (Release, 1),
                (Press, 2),
                (Release, 2),
                (Press, 3),
                (Release, 3),
            ]
            stats = link.stats()
            # A resend the ACK came too late to spare (a busy machine) is a
            # duplicate, dropped: none is delivered twice, none is lost.
            assert stats.lost == 0 and stats.bad_counters == 1
            assert stats.events == 6 and link.events.empty()


def test_a_forged_hello_cannot_declare_later_presses_old() -> None:
    """A HELLO in the same boot comes before the ring's resends: it settles only up to
    the events in hand, and one with impossible counters is ignored."""
    with Emulator(holdoff_us=HOLDOFF_US) as emulator:
        config = LinkConfig(emulator.path, backoff_initial_s=0.01, backoff_max_s=0.05)
        with BridgeLink(config) as link:
            assert link.wait_connected(TIMEOUT)
            device = Device(emulator)
            hello = link.device
            assert hello is not None
            device.frame(
                p.Hello(
                    hello.protocol,
                    hello.firmware,
                    hello.buttons,
                    hello.lamps,
                    hello.tick_bits,
                    hello.board_id,
                    hello.boot_id,  # the same boot
                    emulator.ticks(),
                    U32,
                    U32,
                )
            )
            wait_for(lambda: link.stats().handshakes >= 2, "the forged HELLO")
            device.click(4)
            got = [link.events.get(timeout=TIMEOUT) for _ in range(2)]
            assert [(type(e), e.seat) for e in got] == [(Press, 5), (Release, 5)]
            assert link.stats().lost == 0


# -- the runtime's thread and a journal that cannot be written meanwhile -----------------


def test_a_refused_input_does_not_end_the_batch(tmp_path: Path) -> None:
    """Hostile inputs amid good ones, in one batch: only the hostile ones are left out."""
    store = JournalStore(tmp_path / "g.sqlite")
    controller = Controller.new(HEADER, store)
    runtime = Runtime(controller)
    source = runtime.clock_source("buttons")
    futures = [
        source.put(lambda t: Press(t, 1)),
        runtime.command(lambda t: Correction(t, 2, 0, "r")),
        source.put(lambda t: Press(t, 9)),
        runtime.command(lambda t: Correction(t, 2, 7, "r")),
        source.put(lambda t: Release(t, 1)),
    ]
    runtime.settle()
    outcomes = [f.exception(0) is None for f in futures]
    assert outcomes == [True, False, False, True, True]
    assert [f.result(0).line for f in futures if f.exception(0) is None] == [2, 3, 4]
    core, _ = rebuild(list(store.lines()))
    assert core.snapshot() == controller.core.snapshot()
    store.close()
