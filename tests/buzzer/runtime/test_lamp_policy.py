"""One lamp policy (buzzer/runtime/lamps.py) for the GPIO lamps and the Pico's lamps.

The policy is pure, so most of this file feeds it decisions and reads the
changes back. The adapters are then held to it: GPIO on gpiozero's mock pins,
the Pico through a recording link (and once through the emulator on a pty),
and a property that whichever adapter runs the policy, it ends in the same
state, and the hardware shows that state.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace

import pytest
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from buzzer.arbiter.decisions import (
    Chooser,
    Decision,
    FalseStart,
    Ignored,
    Note,
    NoteKind,
    QuestionSelected,
    ReadingResumed,
    Recognized,
    Score,
    Tie,
    WindowClosed,
    WindowOpened,
)
from buzzer.runtime.lamps import (
    BLINK,
    BLINK_PERIOD_MS,
    CHECK_LAMP_MS,
    LOCKED_BLINKS,
    OFF,
    ON,
    SIGNAL,
    LampChange,
    LampKey,
    LampPolicy,
    Mode,
)
from firmware_bridge.lamps import AUTO, BridgeLamps
from firmware_bridge.protocol import LampMode
from hardware.lamps import LampBoard
from hardware.pinmap import PinMap, parse_pinmap

S = 1_000_000_000
MS = 1_000_000
LAMP_PINS = {1: 16, 2: 20, 3: 21}
SIGNAL_PIN = 12


# -- helpers ---------------------------------------------------------------------------


def lit_policy() -> LampPolicy:
    """Three seats and a signal lamp, the signal given and seat 2 answering."""
    policy = LampPolicy(3, signal=True)
    policy.apply([WindowOpened(1 * S, 6 * S), Recognized(2 * S, 2)])
    return policy


class RecordingLink:
    """A stand-in for BridgeLink: records every LAMP command; ``device`` as after a HELLO."""

    def __init__(self, lamps: int | None = None) -> None:
        self.sent: list[tuple[int, LampMode, int]] = []
        self.device = None if lamps is None else SimpleNamespace(lamps=lamps)

    def set_lamp(self, lamp: int, mode: LampMode, period_ms: int = 0) -> None:
        self.sent.append((lamp, LampMode(mode), period_ms))

    def shown(self) -> dict[int, LampMode]:
        """Each lamp's last command: what the device shows (its blinks never end alone)."""
        return {lamp: mode for lamp, mode, _ in self.sent}


class Timers:
    """A scheduler under the test's control: nothing runs until :meth:`fire`."""

    def __init__(self) -> None:
        self.pending: list[tuple[float, Callable[[], None]]] = []
        self.cancelled = 0

    def __call__(self, delay_s: float, action: Callable[[], None]) -> Callable[[], None]:
        entry = (delay_s, action)
        self.pending.append(entry)

        def cancel() -> None:
            if entry in self.pending:
                self.pending.remove(entry)
                self.cancelled += 1

        return cancel

    def fire(self) -> None:
        due, self.pending = self.pending, []
        for _, action in due:
            action()


def pinmap() -> PinMap:
    return parse_pinmap(
        {
            "players": {"1": 17, "2": 27, "3": 22},
            "host": {"reading_start": 5, "reading_end": 6},
            "lamps": {
                "signal": SIGNAL_PIN,
                "podiums": {"1": 16, "2": 20, "3": {"pin": 21, "active_low": True}},
            },
        }
    )


def lit(factory: MockFactory) -> dict[LampKey, bool]:
    """What the GPIO lamps show, from the pins' levels (seat 3's driver is active low)."""
    shown: dict[LampKey, bool] = {
        seat: bool(factory.pin(pin).state) for seat, pin in LAMP_PINS.items()
    }
    shown[3] = not shown[3]
    shown[SIGNAL] = bool(factory.pin(SIGNAL_PIN).state)
    return shown


def wait_until(condition: Callable[[], bool], timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.002)
    return condition()


# -- the policy: who is lit ---------------------------------------------------------------


def test_TV_H_1995_01_a_buy_claim_lights_the_buyers_podium_and_the_next_window_darkens_it() -> None:
    policy = LampPolicy(3, signal=True)
    claim = Note(2 * S, NoteKind.BID_CLAIM, (("seat", 3),))
    assert policy.apply([WindowOpened(1 * S, 4 * S), claim]) == [
        LampChange(SIGNAL, ON),
        LampChange(3, ON),
    ]
    # The buyer's bid opens the next buy window: the podium lit steadily goes off.
    assert policy.apply([WindowOpened(3 * S, 6 * S)]) == [LampChange(3, OFF)]


def test_recognized_lights_that_podium_first_and_only_that_one() -> None:
    policy = LampPolicy(3, signal=True)
    assert policy.apply([WindowOpened(1 * S, 6 * S), Recognized(2 * S, 2)]) == [
        LampChange(SIGNAL, ON),
        LampChange(2, ON),
    ]
    # Another player recognized (after an undo, say): the winner's lamp goes first.
    assert policy.apply([Recognized(3 * S, 1)]) == [LampChange(1, ON), LampChange(2, OFF)]
    assert policy.state == {1: ON, 2: OFF, 3: OFF, SIGNAL: ON}


def test_a_wrong_answer_turns_that_lamp_off() -> None:
    policy = lit_policy()
    assert policy.apply([Score(3 * S, 2, -100, -100)]) == [LampChange(2, OFF)]
    assert policy.state == {1: OFF, 2: OFF, 3: OFF, SIGNAL: ON}


def test_the_window_reopening_after_a_wrong_answer() -> None:
    policy = lit_policy()
    # The wrong answer and the window opening again for the others, in one batch.
    changes = policy.apply([Score(3 * S, 2, -100, -100), WindowOpened(3 * S, 8 * S)])
    assert changes == [LampChange(2, OFF)]  # the signal lamp was on already
    assert policy.state == {1: OFF, 2: OFF, 3: OFF, SIGNAL: ON}
    assert policy.apply([WindowOpened(4 * S, 9 * S)]) == []  # nothing left to change
    assert policy.apply([Recognized(5 * S, 3)]) == [LampChange(3, ON)]


def test_a_new_window_and_a_resumed_reading_put_out_steady_podiums_only() -> None:
    policy = LampPolicy(3, signal=True)
    policy.apply([Recognized(1 * S, 1), FalseStart(1 * S, 2, 3 * S)])
    assert policy.apply([ReadingResumed(2 * S)]) == [LampChange(1, OFF)]
    assert policy.mode(2) is BLINK  # the lockout's blink goes on
    policy.apply([Recognized(2 * S, 3)])
    assert policy.apply([WindowOpened(2 * S, 4 * S)]) == [
        LampChange(3, OFF),
        LampChange(SIGNAL, ON),
    ]


@pytest.mark.parametrize(
    "closing",
    [
        WindowClosed(6 * S),
        Chooser(6 * S, 1),
        QuestionSelected(6 * S, 1, 2, 200),
        Note(6 * S, NoteKind.GAME_OVER, (("winner", 2),)),
        Score(6 * S, 2, 100, 100),
    ],
    ids=lambda d: d.TYPE,
)
def test_the_signal_lamp_goes_off_when_the_question_closes(closing: Decision) -> None:
    policy = lit_policy()
    assert policy.mode(SIGNAL) is ON
    changes = policy.apply([closing])
    assert sorted(changes, key=str) == sorted(
        [LampChange(2, OFF), LampChange(SIGNAL, OFF)], key=str
    )
    assert set(policy.state.values()) == {OFF}


@pytest.mark.parametrize(
    "harmless",
    [
        Score(3 * S, 2, 0, 0),
        Note(3 * S, NoteKind.UNDONE, (("line", 4),)),
        Tie(3 * S, (1, 3)),
        Ignored(3 * S, 1, "someone_answering", 30),
    ],
    ids=lambda d: d.TYPE,
)
def test_other_decisions_leave_the_lamps_alone(harmless: Decision) -> None:
    policy = lit_policy()
    assert policy.apply([harmless]) == []
    assert policy.state == {1: OFF, 2: ON, 3: OFF, SIGNAL: ON}


# -- the policy: blinks ---------------------------------------------------------------------


def test_a_false_start_blinks_through_its_lockout_then_the_lamp_is_dark() -> None:
    policy = LampPolicy(3, signal=True)
    t = 1 * S
    lockout = 1200 * MS  # five blinks of 240 ms
    assert policy.apply([FalseStart(t, 2, t + lockout)]) == [
        LampChange(2, BLINK, 5, BLINK_PERIOD_MS)
    ]
    assert LampChange(2, BLINK, 5, BLINK_PERIOD_MS).duration_ms == 1200
    # A press inside the lockout while it blinks: the blink goes on as it is.
    assert policy.apply([Ignored(t + 500 * MS, 2, "locked")]) == []
    # The first decision after the blink's end records the lamp as dark, and says so.
    assert policy.apply([WindowOpened(t + lockout, t + 5 * S)]) == [
        LampChange(2, OFF),
        LampChange(SIGNAL, ON),
    ]
    # Now a locked press (a longer lockout than blinks) blinks again, a few times.
    assert policy.apply([Ignored(t + 1300 * MS, 2, "locked")]) == [
        LampChange(2, BLINK, LOCKED_BLINKS, BLINK_PERIOD_MS)
    ]


def test_a_blink_ends_at_the_snapshots_now_too() -> None:
    policy = LampPolicy(2, signal=False)
    policy.apply([Ignored(1 * S, 1, "locked")])
    end = 1 * S + LOCKED_BLINKS * BLINK_PERIOD_MS * MS
    assert policy.apply([], {"stage": "question", "now": end - 1}) == []
    assert policy.apply([], {"stage": "question", "now": end}) == [LampChange(1, OFF)]


def test_a_short_lockout_still_blinks_once() -> None:
    policy = LampPolicy(3, signal=False, blink_period_ms=100)
    assert policy.apply([FalseStart(1 * S, 3, 1 * S + 10 * MS)]) == [LampChange(3, BLINK, 1, 100)]


def test_a_blink_started_and_over_within_one_batch_is_not_sent() -> None:
    policy = LampPolicy(3, signal=True)
    decisions: list[Decision] = [FalseStart(1 * S, 1, 1 * S + 240 * MS), WindowOpened(2 * S, 5 * S)]
    assert policy.apply(decisions) == [LampChange(SIGNAL, ON)]
    assert policy.mode(1) is OFF


# -- the policy: back on the board, and only changes ------------------------------------------


@pytest.mark.parametrize("stage", ["board", "over"])
def test_back_on_the_board_every_lamp_goes_out(stage: str) -> None:
    """A sport system closes a question with nobody right without a `chooser` line."""
    policy = lit_policy()
    policy.apply([FalseStart(2 * S, 3, 4 * S)])
    changes = policy.apply([Score(3 * S, 2, -10, -10)], {"stage": stage, "now": 3 * S})
    assert {c.lamp: c.mode for c in changes} == {2: OFF, 3: OFF, SIGNAL: OFF}
    assert set(policy.state.values()) == {OFF}


def test_inside_a_question_the_snapshot_changes_nothing() -> None:
    policy = lit_policy()
    assert policy.apply([Score(3 * S, 2, -10, -10)], {"stage": "question"}) == [LampChange(2, OFF)]
    assert policy.mode(SIGNAL) is ON


def test_only_changes_are_emitted() -> None:
    policy = lit_policy()
    assert policy.apply([WindowOpened(3 * S, 8 * S), Recognized(3 * S, 2)]) == []
    # Lit and put out again within one call: no change, nothing to send.
    assert policy.apply([Score(4 * S, 2, -10, -10), Recognized(4 * S, 2)]) == []
    assert policy.all_off() == [LampChange(2, OFF), LampChange(SIGNAL, OFF)]
    assert policy.all_off() == []
    assert policy.all_off(force=True) == [LampChange(k, OFF) for k in (1, 2, 3, SIGNAL)]


def test_seats_it_does_not_have_and_no_signal_lamp() -> None:
    policy = LampPolicy((1, 3), signal=False)
    assert policy.lamps == (1, 3)
    policy.apply([Recognized(1 * S, 1)])
    assert policy.apply([Recognized(2 * S, 2)]) == [LampChange(1, OFF)]
    assert policy.apply([FalseStart(2 * S, 4, 3 * S), WindowOpened(2 * S, 5 * S)]) == []
    assert policy.state == {1: OFF, 3: OFF}


def test_lamps_by_hand() -> None:
    policy = LampPolicy(2, signal=True)
    assert policy.set(1, ON) == [LampChange(1, ON)]
    assert policy.set(1, ON) == []
    assert policy.set(SIGNAL, ON) == [LampChange(SIGNAL, ON)]
    assert policy.set(2, BLINK, blinks=4) == [LampChange(2, BLINK, 4, BLINK_PERIOD_MS)]
    assert policy.set(7, ON) == []
    with pytest.raises(ValueError):
        policy.set(2, BLINK)
    # A blink by hand has no end on the game clock: it is still a blink much later.
    assert policy.apply([Tie(100 * S, (1, 2))]) == []
    assert policy.mode(2) is BLINK
    assert isinstance(policy.mode(2), str) and policy.mode(2) == "blink"


@pytest.mark.parametrize("seats", [(0, 1), (1, 1)])
def test_bad_seats_are_refused(seats: tuple[int, ...]) -> None:
    with pytest.raises(ValueError):
        LampPolicy(seats, signal=False)


# -- the Pico's adapter, on a recording link ---------------------------------------------------


def test_the_pico_adapter_puts_every_lamp_out_first() -> None:
    link = RecordingLink()
    BridgeLamps(link, 3)
    assert link.sent == [(i, LampMode.OFF, 0) for i in (0, 1, 2, 3)]


def test_a_wrong_answer_on_the_pico_turns_that_lamp_off_and_keeps_the_signal() -> None:
    link = RecordingLink(lamps=8)
    lamps = BridgeLamps(link, 3, schedule=Timers())
    link.sent.clear()
    lamps.apply([WindowOpened(1 * S, 6 * S), Recognized(2 * S, 2)], {"stage": "question"})
    assert link.sent == [(3, LampMode.ON, 0), (1, LampMode.ON, 0)]
    lamps.apply([Score(3 * S, 2, -100, -100)], {"stage": "question"})
    lamps.apply([WindowOpened(3 * S, 8 * S)], {"stage": "question"})
    assert link.sent[2:] == [(1, LampMode.OFF, 0)]
    assert link.shown() == {3: LampMode.ON, 1: LampMode.OFF}
    lamps.apply([WindowClosed(8 * S)], {"stage": "question"})
    assert link.sent[3:] == [(3, LampMode.OFF, 0)]
    assert lamps.state == {1: OFF, 2: OFF, 3: OFF, SIGNAL: OFF}


def test_back_on_the_board_the_pico_puts_its_lamps_out() -> None:
    link = RecordingLink(lamps=8)
    lamps = BridgeLamps(link, 2)
    lamps.apply([WindowOpened(1 * S, 6 * S), Recognized(2 * S, 1)], {"stage": "question"})
    link.sent.clear()
    lamps.apply([Score(3 * S, 1, -10, -10)], {"stage": "board"})
    assert sorted(link.sent) == [(0, LampMode.OFF, 0), (2, LampMode.OFF, 0)]


def test_a_false_start_blinks_on_the_pico_and_the_host_ends_the_blink() -> None:
    link = RecordingLink(lamps=8)
    timers = Timers()
    lamps = BridgeLamps(link, 3, schedule=timers)
    link.sent.clear()
    lamps.apply([FalseStart(1 * S, 2, 1 * S + 1200 * MS)])
    assert link.sent == [(1, LampMode.BLINK, BLINK_PERIOD_MS)]
    assert [delay for delay, _ in timers.pending] == [pytest.approx(1.2)]
    timers.fire()
    assert link.sent[1:] == [(1, LampMode.OFF, 0)]
    # The policy's own word on the blink's end, later, is the same (idempotent) OFF.
    lamps.apply([WindowOpened(3 * S, 6 * S)])
    assert link.shown()[1] is LampMode.OFF and lamps.state[2] is OFF


def test_a_lamp_switched_during_its_blink_is_not_put_out_by_the_old_timer() -> None:
    link = RecordingLink(lamps=8)
    timers = Timers()
    lamps = BridgeLamps(link, 3, schedule=timers)
    lamps.apply([FalseStart(1 * S, 2, 2 * S)])
    stale = timers.pending[0][1]
    lamps.apply([Recognized(1 * S + 500 * MS, 2)])  # a by-hand correction, say
    assert timers.cancelled == 1 and timers.pending == []
    stale()  # a timer that fired anyway, racing the cancel
    assert link.shown()[1] is LampMode.ON
    # A blink restarted: the first blink's timer must not end the second one.
    lamps.apply([WindowClosed(3 * S), Ignored(3 * S, 1, "locked")])
    first = timers.pending[0][1]
    lamps.apply([FalseStart(4 * S, 1, 6 * S)])
    first()
    assert link.shown()[0] is LampMode.BLINK
    timers.fire()
    assert link.shown()[0] is LampMode.OFF


def test_a_blink_still_running_when_the_adapter_closes_is_left_alone() -> None:
    timers = Timers()
    lamps = BridgeLamps(RecordingLink(lamps=8), 3, schedule=timers)
    lamps.apply([Ignored(1 * S, 1, "locked")])
    assert len(timers.pending) == 1
    lamps.close()
    assert timers.pending == [] and timers.cancelled == 1


def test_the_signal_lamp_index() -> None:
    def signal_commands(link: RecordingLink, signal_lamp: int | str | None) -> set[int]:
        lamps = BridgeLamps(link, 3, signal_lamp, schedule=Timers())  # type: ignore[arg-type]
        lamps.apply([WindowOpened(1 * S, 6 * S)])
        return {lamp for lamp, mode, _ in link.sent if lamp >= 3}

    assert signal_commands(RecordingLink(lamps=8), AUTO) == {3}
    assert signal_commands(RecordingLink(lamps=None), AUTO) == {3}  # no HELLO yet
    assert signal_commands(RecordingLink(lamps=3), AUTO) == set()  # the device has no lamp 3
    assert signal_commands(RecordingLink(lamps=8), 7) == {7}
    assert signal_commands(RecordingLink(lamps=8), None) == set()
    assert SIGNAL not in BridgeLamps(RecordingLink(), 3, None).state
    for bad in (1, -1, 0xFF, "signal"):
        with pytest.raises(ValueError):
            BridgeLamps(RecordingLink(), 3, bad)  # type: ignore[arg-type]


# -- the GPIO adapter, on mock pins -------------------------------------------------------------


def test_gpio_a_wrong_answer_and_the_window_reopening() -> None:
    factory = MockFactory()
    with LampBoard(pinmap(), factory) as lamps:
        lamps.apply([WindowOpened(1 * S, 6 * S), Recognized(2 * S, 2)], {"stage": "question"})
        assert lit(factory) == {1: False, 2: True, 3: False, SIGNAL: True}
        lamps.apply([Score(3 * S, 2, -100, -100), WindowOpened(3 * S, 8 * S)])
        assert lit(factory) == {1: False, 2: False, 3: False, SIGNAL: True}
        lamps.apply([Score(4 * S, 1, -100, -100)], {"stage": "board"})
        assert lit(factory) == {1: False, 2: False, 3: False, SIGNAL: False}
        assert lamps.state == {1: OFF, 2: OFF, 3: OFF, SIGNAL: OFF}


def test_gpio_lamps_lit_by_hand_are_known_to_the_policy() -> None:
    factory = MockFactory()
    with LampBoard(pinmap(), factory) as lamps:
        lamps.podium(1, True)
        lamps.set_signal(True)
        lamps.apply([Recognized(1 * S, 3)])
        assert lit(factory) == {1: False, 2: False, 3: True, SIGNAL: True}
        lamps.apply([WindowClosed(2 * S)])
        assert lit(factory) == {1: False, 2: False, 3: False, SIGNAL: False}


def test_gpio_a_locked_press_blinks_again_once_the_false_starts_blink_is_over() -> None:
    factory = MockFactory()
    with LampBoard(pinmap(), factory, blink_on_s=0.005, blink_off_s=0.005) as lamps:
        pin = factory.pin(LAMP_PINS[1])
        pin.clear_states()
        lamps.apply([FalseStart(1 * S, 1, 1 * S + 30 * MS)])  # three 10 ms blinks
        assert lamps.policy.mode(1) is BLINK
        # gpiozero counts the blinks: three flashes, then dark, by itself.
        assert wait_until(lambda: len(pin.states) >= 7 and not pin.state)
        time.sleep(0.1)
        assert [s.state for s in pin.states[1:]] == [True, False] * 3
        lamps.apply([Tie(2 * S, (2, 3))])
        assert lamps.policy.mode(1) is OFF and not lit(factory)[1]
        pin.clear_states()
        lamps.apply([Ignored(2 * S, 1, "locked")])
        assert lamps.policy.mode(1) is BLINK
        assert wait_until(lambda: len(pin.states) >= 4)  # it toggles by itself


# -- whichever adapter runs it --------------------------------------------------------------


SEATS = st.integers(1, 4)  # seat 4 has no lamp in a three-seat setup


@st.composite
def decision_batches(draw: st.DrawFn) -> list[tuple[list[Decision], dict[str, object] | None]]:
    t = 0
    batches: list[tuple[list[Decision], dict[str, object] | None]] = []
    for _ in range(draw(st.integers(1, 12))):
        batch: list[Decision] = []
        for _ in range(draw(st.integers(0, 4))):
            t += draw(st.integers(0, 2 * S))
            kind = draw(st.sampled_from(range(13)))
            seat = draw(SEATS)
            options: list[Decision] = [
                Recognized(t, seat),
                FalseStart(t, seat, t + draw(st.integers(0, 3 * S))),
                Ignored(t, seat, "locked"),
                Ignored(t, seat, "someone_answering", 5),
                WindowOpened(t, t + 5 * S),
                ReadingResumed(t),
                Score(t, seat, draw(st.sampled_from([-100, 0, 100])), 0),
                WindowClosed(t),
                Chooser(t, seat),
                QuestionSelected(t, 1, 1, 100),
                Note(t, draw(st.sampled_from([NoteKind.GAME_OVER, NoteKind.UNDONE]))),
                Tie(t, (1, 2)),
                Ignored(t, seat, "window_closed", check=True),  # A-G-D2
            ]
            batch.append(options[kind])
        stage = draw(st.sampled_from([None, "question", "board", "over"]))
        snapshot = None if stage is None else {"stage": stage, "now": t}
        batches.append((batch, snapshot))
    return batches


PICO_MODE = {OFF: LampMode.OFF, ON: LampMode.ON, BLINK: LampMode.BLINK}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decision_batches())
def test_the_state_is_the_same_whichever_adapter_runs_the_policy(
    batches: list[tuple[list[Decision], dict[str, object] | None]],
) -> None:
    policy = LampPolicy(3, signal=True)
    link = RecordingLink(lamps=8)
    pico = BridgeLamps(link, 3, schedule=Timers())  # blinks end only by the policy's word
    factory = MockFactory()
    with LampBoard(pinmap(), factory, schedule=Timers()) as gpio:  # checks end likewise
        for decisions, snapshot in batches:
            policy.apply(decisions, snapshot)
            pico.apply(decisions, snapshot)
            gpio.apply(decisions, snapshot)
            state: dict[LampKey, Mode] = policy.state
            assert pico.state == state
            assert gpio.state == state
            # What the hardware shows is what the state says.
            assert link.shown() == {pico.index[k]: PICO_MODE[m] for k, m in state.items()}
            shown = lit(factory)
            for lamp, mode in state.items():
                if mode is not BLINK:
                    assert shown[lamp] == (mode is ON), (lamp, mode)


# -- the Pico adapter through the emulator ------------------------------------------------------


@pytest.fixture
def emulated() -> Iterator[tuple[object, object]]:
    from firmware_bridge.emulator import Emulator
    from firmware_bridge.link import BridgeLink, LinkConfig

    with Emulator() as emulator:
        link = BridgeLink(LinkConfig(emulator.path, backoff_initial_s=0.01, backoff_max_s=0.05))
        link.start()
        try:
            assert link.wait_connected(20)
            yield emulator, link
        finally:
            link.stop()


def test_a_wrong_answer_puts_out_that_lamp_on_the_emulated_pico(
    emulated: tuple[object, object],
) -> None:
    from firmware_bridge.emulator import Emulator
    from firmware_bridge.link import BridgeLink

    emulator, link = emulated
    assert isinstance(emulator, Emulator) and isinstance(link, BridgeLink)
    levels = emulator.lamp_levels
    lamps = BridgeLamps(link, 3)
    try:
        lamps.apply([WindowOpened(1 * S, 6 * S), Recognized(2 * S, 2)], {"stage": "question"})
        assert wait_until(lambda: levels[1] == 1 and levels[3] == 1)  # seat 2, the signal
        lamps.apply([Score(3 * S, 2, -100, -100), WindowOpened(3 * S, 8 * S)])
        assert wait_until(lambda: levels[1] == 0)
        assert list(levels[:4]) == [0, 0, 0, 1]  # the signal lamp stays lit
        lamps.apply([WindowClosed(8 * S)], {"stage": "board"})
        assert wait_until(lambda: not any(levels))
    finally:
        lamps.close()


# -- A-G-D2: a button check between questions ---------------------------------------------------


def check(t: int, seat: int, reason: str = "window_closed") -> Ignored:
    """A press on the board, as the engine decides it (A-G-D2)."""
    return Ignored(t, seat, reason, check=True)


def test_A_G_D2_a_check_lights_that_podium_for_0_3_s_of_game_time_then_it_is_dark() -> None:
    policy = LampPolicy(3, signal=True)
    board = {"stage": "board", "now": 1 * S}
    assert policy.apply([check(1 * S, 2)], board) == [LampChange(2, ON, for_ms=CHECK_LAMP_MS)]
    assert CHECK_LAMP_MS == 300
    assert policy.state == {1: OFF, 2: ON, 3: OFF, SIGNAL: OFF}
    assert policy.apply([], {"stage": "board", "now": 1 * S + 299 * MS}) == []
    assert policy.apply([], {"stage": "board", "now": 1 * S + 300 * MS}) == [LampChange(2, OFF)]
    assert set(policy.state.values()) == {OFF}


def test_A_G_D2_a_press_again_during_the_check_restarts_its_time() -> None:
    policy = LampPolicy(3, signal=False)
    policy.apply([check(1 * S, 1)])
    assert policy.apply([check(1 * S + 200 * MS, 1)]) == [LampChange(1, ON, for_ms=300)]
    assert policy.apply([], {"stage": "board", "now": 1 * S + 400 * MS}) == []
    assert policy.apply([], {"stage": "board", "now": 1 * S + 500 * MS}) == [LampChange(1, OFF)]


def test_A_G_D2_a_new_question_puts_a_check_lamp_out_at_once() -> None:
    policy = LampPolicy(3, signal=True)
    policy.apply([check(1 * S, 3)], {"stage": "board", "now": 1 * S})
    changes = policy.apply([QuestionSelected(1 * S + 100 * MS, 1, 1, 100)])
    assert changes == [LampChange(3, OFF)]
    assert policy.apply([], {"stage": "question", "now": 2 * S}) == []


def test_A_G_D2_a_check_never_touches_a_lamp_the_game_lit() -> None:
    policy = lit_policy()  # seat 2 has the floor, the signal lamp is on
    assert policy.apply([check(3 * S, 2, "someone_answering")]) == []
    assert policy.apply([], {"stage": "question", "now": 9 * S}) == []
    assert policy.state == {1: OFF, 2: ON, 3: OFF, SIGNAL: ON}


def test_A_G_D2_several_players_check_at_once_each_lamp_for_its_own_time() -> None:
    policy = LampPolicy(3, signal=True)
    policy.apply([check(1 * S, 1), check(1 * S + 100 * MS, 3)], {"stage": "board", "now": 1 * S})
    assert policy.state == {1: ON, 2: OFF, 3: ON, SIGNAL: OFF}
    assert policy.apply([], {"stage": "board", "now": 1 * S + 300 * MS}) == [LampChange(1, OFF)]
    assert policy.apply([], {"stage": "board", "now": 1 * S + 400 * MS}) == [LampChange(3, OFF)]


def test_A_G_D2_an_ignored_press_that_is_no_check_lights_nothing() -> None:
    policy = LampPolicy(3, signal=True)
    assert policy.apply([Ignored(1 * S, 2, "not_open")], {"stage": "question"}) == []


def test_A_G_D2_the_pico_lights_the_check_and_its_own_timer_puts_it_out() -> None:
    link = RecordingLink(lamps=8)
    timers = Timers()
    lamps = BridgeLamps(link, 3, schedule=timers)
    link.sent.clear()
    lamps.apply([check(1 * S, 2)], {"stage": "board", "now": 1 * S})
    assert link.sent == [(1, LampMode.ON, 0)]
    assert [delay for delay, _ in timers.pending] == [0.3]
    timers.fire()
    assert link.sent[-1] == (1, LampMode.OFF, 0)


def test_A_G_D2_on_the_pico_a_question_opening_cancels_the_checks_timer() -> None:
    link = RecordingLink(lamps=8)
    timers = Timers()
    lamps = BridgeLamps(link, 3, schedule=timers)
    lamps.apply([check(1 * S, 2)], {"stage": "board", "now": 1 * S})
    lamps.apply([QuestionSelected(1 * S + 100 * MS, 1, 1, 100)], {"stage": "question"})
    assert timers.pending == [] and timers.cancelled == 1
    assert link.shown()[1] is LampMode.OFF


def test_A_G_D2_gpio_a_real_press_on_the_board_lights_the_lamp_then_0_3_s_later_it_is_dark() -> (
    None
):
    """Through the live controller (its clock injected) onto gpiozero's mock pins."""
    from buzzer.arbiter.events import Press, Select
    from buzzer.runtime.controller import Controller

    now = [0]
    controller = Controller.new(
        {"rules": "tv-modern", "players": ["А", "Б", "В"], "settle_ms": 0, "chooser": 1},
        clock=lambda: now[0],
    )
    timers = Timers()
    factory = MockFactory()
    with LampBoard(pinmap(), factory, schedule=timers) as lamps:
        controller.subscribe(lamps.apply)
        now[0] = 2 * S
        controller.submit(Press(2 * S, 3))
        now[0] = 2 * S + 1 * MS  # the press is released once time has passed it
        controller.tick()
        assert lit(factory) == {1: False, 2: False, 3: True, SIGNAL: False}
        assert [delay for delay, _ in timers.pending] == [0.3]
        assert controller.snapshot()["scores"] == {"1": 0, "2": 0, "3": 0}
        # 0.3 s later the adapter's timer puts it out; the policy says so at the next snapshot.
        now[0] = 2 * S + 300 * MS
        timers.fire()
        assert lit(factory)[3] is False
        controller.submit(Press(now[0], 1))
        now[0] += 1 * MS
        controller.tick()
        assert lamps.state[3] is OFF and lamps.state[1] is ON
        # A question opening puts the new check out and cancels its timer.
        now[0] += 50 * MS
        controller.submit(Select(now[0], 1, 100))
        now[0] += 1 * MS
        controller.tick()
        assert controller.snapshot()["stage"] == "question"
        assert lit(factory) == {1: False, 2: False, 3: False, SIGNAL: False}
        assert timers.pending == []
