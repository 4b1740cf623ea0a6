"""The pulse generator: a Pico's PIO presses the buttons, and ``svoyak selftest --generator``.

The generator's firmware (``firmware_bridge/generator/main.py``) runs on the
chip model, real MicroPython on an emulated RP2040, and the host talks to it
through a pseudo-terminal with :class:`PulseGenerator`, as to
``/dev/serial/by-id/…``. Its edges are read from the chip's own pin log at
their true emulated times: the independent reference the self-test compares
the recognised order with.
"""

from __future__ import annotations

import functools
import json
import queue
import threading
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import firmware_bridge.generator
import hardware.factory
import hardware.selftest as selftest
from buzzer.arbiter.events import Press, Release
from buzzer.cli import main
from firmware_bridge.chip.model import ChipModel
from firmware_bridge.chip.wiring import ChipWires, changes_in_groups
from firmware_bridge.generator import GeneratorError, PulseGenerator
from hardware.mockpins import mock_factory
from hardware.report import BURST_SPACING_NS
from hardware.selftest import (
    GENERATOR_BURST_RELEASE_NS,
    GeneratorPulses,
    _stamped_at_first_edge,
)
from tests.support.paths import REPO

# Timing is the subject (scripts/test's sequential phase): two paced chip models.
pytestmark = pytest.mark.serial

FIRMWARE = REPO / "firmware_bridge" / "generator" / "main.py"
#: Pairs per offset end to end: each order once (the first of the pair alternates);
#: the generator's own exactness is the exact chip's tests' subject, every offset.
E2E_TRIALS = 2
OUTPUTS = tuple(range(2, 10))  # GP2..GP9: channels 0..7
#: One PIO step at 25 MHz; the chip model reports a pin change at the end of the
#: CPU instruction during which the state machine made it (a few more ns).
STEP_NS = 40
OFFSETS_US = (0, 2, 5, 10, 20, 100, 1000)


#: How long a paced chip model may take to answer (the metal: 2 s for the generator,
#: 10 s for the Pico's handshake): its emulated CPU runs on whatever the machine leaves.
CHIP_ANSWER_S = 60.0


def patient_with_chip_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """The self-test's waits for an answer, stretched for paced chip models.

    A generator answers HELLO and RUN (and is done with a RUN) within the client's
    2 s, a Pico its link's handshake within the self-test's 10 s, on the metal's
    clocks; the chip models' paced CPUs fall seconds behind those on a loaded
    machine. What is under test is the order and the stamps, which the chips keep
    on their own clocks however slowly they run, not how fast they answer.
    """
    monkeypatch.setattr(
        firmware_bridge.generator,
        "PulseGenerator",
        functools.partial(PulseGenerator, timeout_s=CHIP_ANSWER_S),
    )
    monkeypatch.setattr(selftest, "PICO_CONNECT_TIMEOUT_S", CHIP_ANSWER_S)


def generator_chip(*, pace: bool) -> ChipModel:
    chip = ChipModel(
        files={"main.py": FIRMWARE.read_bytes()}, button_pins=(), lamp_pins=OUTPUTS, pace=pace
    ).start()
    chip.read_until(b"\n", timeout=60)  # its banner: main.py runs
    return chip


@pytest.fixture(scope="module")
def exact_chip() -> Iterator[tuple[ChipModel, str]]:
    """Not paced: emulated time is exact and independent of this machine's load.
    With the pty its USB serial port is bridged to."""
    chip = generator_chip(pace=False)
    try:
        yield chip, chip.open_pty()
    finally:
        chip.stop()


def falling(chip: ChipModel, pin: int, after_ns: int) -> list[int]:
    return [ns for p, state, ns, _ in chip.pin_log if p == pin and state == 0 and ns > after_ns]


def test_the_generator_says_what_it_is(exact_chip: tuple[ChipModel, str]) -> None:
    chip, port = exact_chip
    generator = PulseGenerator(port, timeout_s=20)
    try:
        info = generator.info
        assert (info.version, info.channels, info.first_pin) == (1, 8, 2)
        assert info.resolution_ns == pytest.approx(40.0)
        # every output high at boot: an active-low button released
        assert all(any(p == pin and s == 1 for p, s, *_ in chip.pin_log) for pin in OUTPUTS)
        # a step longer than the state machine can count is refused, in words
        with pytest.raises(GeneratorError, match="refused RUN: a step holds at most"):
            generator.run([(0xFE, 1_000_000_000), (0xFF, 0)])
        with pytest.raises(GeneratorError, match="1 to 8 steps"):
            generator.run([(0xFF, 0)] * 9)
    finally:
        generator.close()


def test_pairs_are_exactly_as_far_apart_as_commanded_at_every_offset(
    exact_chip: tuple[ChipModel, str],
) -> None:
    """Channel 0 then channel 1, at each offset the self-test uses: the edges on the
    chip's pins are the commanded offset apart to one PIO step, and 0 µs is the
    very same instant (one instruction sets both)."""
    chip, port = exact_chip
    generator = PulseGenerator(port, timeout_s=20)
    try:
        since = max(ns for *_, ns, _ in chip.pin_log)
        for offset in OFFSETS_US:
            # (at 0 µs one step sets both, as GeneratorPulses.press_pair does)
            lead = [(0xFE, offset * 1000)] if offset else []
            generator.run([*lead, (0xFC, 2_000_000), (0xFF, 0)])
        generator.wait_done()
        generator.run([(0xFF, 0)])  # answered once the last pair's steps are over
    finally:
        generator.close()
    first, second = falling(chip, 2, since), falling(chip, 3, since)
    assert len(first) == len(second) == len(OFFSETS_US)
    for offset, a, b in zip(OFFSETS_US, first, second, strict=True):
        if offset == 0:
            assert b == a
        else:
            assert abs((b - a) - offset * 1000) <= STEP_NS, (offset, b - a)


def test_a_burst_ends_with_its_own_release_exactly_where_commanded() -> None:
    """The bounce check's burst through the generator: edges 100 µs apart, then the
    release GENERATOR_BURST_RELEASE_NS after the last, all in one RUN."""

    class Recorder:
        url = "test://"
        info = type("Info", (), {"resolution_ns": 40.0, "channels": 8})()

        def __init__(self) -> None:
            self.runs: list[list[tuple[int, int]]] = []

        def run(self, steps: list[tuple[int, int]]) -> int:
            self.runs.append(list(steps))
            return 0

        def close(self) -> None: ...

    recorder = Recorder()
    pulses = GeneratorPulses(recorder, {"1": 0, "2": 1}, {"1": True, "2": True})
    pulses.burst("2", 5, BURST_SPACING_NS)
    (steps,) = recorder.runs
    down, up = 0xFD, 0xFF  # seat 2 is channel 1, active low
    assert steps == [
        (down, BURST_SPACING_NS),
        (up, BURST_SPACING_NS),
        (down, BURST_SPACING_NS),
        (up, BURST_SPACING_NS),
        (down, GENERATOR_BURST_RELEASE_NS),
        # The release, held on the generator's clock past any hold-off: the next
        # RUN cannot start an edge inside it, however late its bytes come.
        (up, selftest.GENERATOR_RELEASE_SETTLE_NS),
    ]


def test_the_first_edge_is_told_from_a_later_one_by_the_release() -> None:
    """Stamped at the first edge, the press is the burst's length plus the release's
    distance before the release; stamped at the 3rd or 5th edge, 200 or 400 µs less."""
    length = 4 * BURST_SPACING_NS + GENERATOR_BURST_RELEASE_NS
    release = Release(10_000_000_000, 1)
    # The release is among the events; no device stamps: the host's are used.
    rig: Any = types.SimpleNamespace(device_stamps=None)
    for stamped_at, expected in ((0, True), (2, False), (4, False)):
        press = Press(release.t - length + stamped_at * BURST_SPACING_NS, 1)
        got = _stamped_at_first_edge(rig, "1", [press], [press, release], length)
        assert got is expected, stamped_at


class Relay:
    """The cables from the generator's outputs to the Pi's button inputs (mock pins).

    The chip's pin changes come from its reader thread; a thread of the relay's
    own drives the mock inputs, so a slow input path never holds the chip's
    serial port up. Not exact in time (the offsets the stamps show are the
    relay's), exact in order: what the fairness rows need. Changes less than
    ``GROUP_NS`` apart on the chip are driven back to back, and a group closes
    only once the chip's clock is past it, so the glitch check's 1 µs spike
    stays a spike however late its second edge's bytes come on a busy machine,
    rather than a low level as long as the chip's reader was preempted.
    """

    GROUP_NS = 200_000
    GROUP_WAIT_S = 0.005

    def __init__(self, chip: ChipModel, factory: Any, wiring: dict[int, int]) -> None:
        self.chip = chip
        self.factory = factory
        self.wiring = wiring
        self.events: queue.SimpleQueue[tuple[int, int, int] | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        chip.on_pin = lambda pin, state, ns: self.events.put((pin, state, ns))

    def _run(self) -> None:
        for group in changes_in_groups(
            self.events, self.GROUP_NS, self.GROUP_WAIT_S, self.chip.now_ns
        ):
            for pin, state, _ in group:
                target = self.wiring.get(pin)
                if target is not None and state in (0, 1):
                    mock = self.factory.pin(target)
                    (mock.drive_high if state else mock.drive_low)()

    def close(self) -> None:
        self.events.put(None)
        self.thread.join(5)


def test_selftest_generator_end_to_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``svoyak selftest --generator PORT``: the generator on the paced chip model, its
    GP2/GP3 wired to seats 1 and 2 of the Pi (mock pins), the presses through the
    ButtonBank into a running game."""
    pins = tmp_path / "pins.toml"
    pins.write_text("[players]\n1 = 17\n2 = 27\n[host]\nreading_start = 5\nreading_end = 6\n")
    factory = mock_factory()
    monkeypatch.setattr(hardware.factory, "open_pin_factory", lambda *a, **k: factory)
    patient_with_chip_models(monkeypatch)
    chip = generator_chip(pace=True)
    relay = Relay(chip, factory, {2: 17, 3: 27})
    try:
        port = chip.open_pty()
        status = main(
            [
                "selftest",
                "--generator",
                port,
                "--pins",
                str(pins),
                "--checks",
                "latency,fairness,glitch,stuck",
                "--trials",
                "4",
                "--offsets",
                "100,1000",
                "--stuck-s",
                "0.2",
                "--no-png",
                "--no-progress",
                "--json",
            ]
        )
    finally:
        relay.close()
        chip.stop()
    report = json.loads(capsys.readouterr().out)
    assert status == 0, json.dumps({k: report[k] for k in ("fairness", "glitch", "stuck")})
    assert report["mode"] == "generator" and "pulse generator on" in report["source"]
    assert report["software_only"] is False
    rows = report["fairness"]["rows"]
    assert report["fairness"]["offsets_exact"] is True  # the generator's PIO: exact
    assert [(r["offset_us"], r["first_won"], r["late"], r["missed"]) for r in rows] == [
        (100, 4, 0, 0),
        (1000, 4, 0, 0),
    ]
    assert all(r["delivery_delay"]["max_ms"] is not None for r in rows)
    # the generator's spike is exactly 1 µs, and no press came of it
    glitch = report["glitch"]["buttons"]
    assert [(b["width_us"], b["presses"]) for b in glitch] == [(1.0, 0), (1.0, 0)]
    # ... and each spike reached its pin (a raw edge), or the row would prove nothing
    assert all(b["edges"] >= 1 and b["ok"] for b in glitch), glitch
    assert all(b["reported"] and b["freed"] for b in report["stuck"]["buttons"])
    # no host-clock drive time through the generator: latency is not run, and says why
    assert "not on this host's clock" in report["not_run"]["latency"]


def test_selftest_generator_that_is_not_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pins = tmp_path / "pins.toml"
    pins.write_text("[players]\n1 = 17\n2 = 27\n[host]\nreading_start = 5\nreading_end = 6\n")
    monkeypatch.setattr(hardware.factory, "open_pin_factory", lambda *a, **k: mock_factory())
    args = ["--generator", "/dev/nonexistent-generator", "--pins", str(pins), "--no-png"]
    status = main(["selftest", *args])
    assert status == 2
    err = capsys.readouterr().err
    assert "the pulse generator on /dev/nonexistent-generator cannot be opened" in err
    assert "ls -l /dev/serial/by-id/" in err


def test_selftest_generator_presses_a_pico_end_to_end(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``svoyak selftest --generator GEN --serial PICO``: the generator's firmware on one
    chip model, the buttons' firmware on another, the Pico's presses back through
    BridgeLink into a running game; the pairs keep their order and 0 µs is a tie,
    because both chips stamp on their own exact clocks."""
    # The Pico here is the chip model: its paced CPU's heartbeat lags on a busy
    # machine, so the game gets the chip model's wait bound (as chip_rig does);
    # a real Pico gets the game's own.
    real_rig = selftest.pico_generator_rig

    def chip_model_rig(*args: Any) -> Any:
        rig = real_rig(*args)
        rig.wait_bound_ns = selftest.CHIP_WAIT_BOUND_NS
        return rig

    monkeypatch.setattr(selftest, "pico_generator_rig", chip_model_rig)
    patient_with_chip_models(monkeypatch)
    generator = generator_chip(pace=True)
    pico = ChipModel(pace=True).start()
    cables = ChipWires(generator, pico)
    try:
        pico.wait_firmware()
        started = time.monotonic_ns()
        status = main(
            [
                "selftest",
                "--generator",
                generator.open_pty(),
                "--serial",
                pico.open_pty(),
                # The bounce burst too: 5 edges 100 µs apart into the capture
                # FIFO the model joins to 8 words, as FJOIN_RX does on a Pico.
                "--checks",
                "latency,fairness,bounce",
                "--pair",
                "1,2",
                "--trials",
                str(E2E_TRIALS),
                # (2 and 5 µs: bench/selftest_generator.py on a quiet machine.
                # Here, beside the rest of the suite, the model applies an edge
                # at the end of the instruction running then, which a CPU slowed
                # by the load stretches to a µs or two.)
                "--offsets",
                "0,10,1000",
                "--no-png",
                "--no-progress",
                "--json",
            ]
        )
        # Both chips keep the wall clock only while this machine leaves them the CPU:
        # one that falls behind it for a good part of the wait bound has its presses
        # mapped that much early, and the game rules them late, as it must.
        tolerance = selftest.CHIP_WAIT_BOUND_NS // 3
        starved = pico.starved(started, tolerance) or generator.starved(started, tolerance)
    finally:
        cables.close()
        generator.stop()
        pico.stop()
    captured = capsys.readouterr()
    assert captured.out, f"status {status}: {captured.err}"
    report = json.loads(captured.out)
    summary = json.dumps({k: report[k] for k in ("fairness", "bounce")})
    assert report["mode"] == "generator-pico"
    rows = {r["offset_us"]: r for r in report["fairness"]["rows"]}
    # Whatever the load: every trial is accounted for, the second press never wins,
    # nothing is early or missed, and a failed row fails the self-test.
    for offset, row in rows.items():
        outcomes = row["first_won"] + row["second_won"] + row["ties"] + row["late"]
        assert outcomes == row["trials"] == E2E_TRIALS, row
        wrong = ("second_won", "early", "missed", "order_errors")
        assert [row[k] for k in wrong] == [0] * len(wrong), row
        assert row["first_won" if offset == 0 else "ties"] == 0, row
    if not all(r["ok"] for r in rows.values()):
        assert status == 1, summary
    if starved is not None:
        # Late, and said so: what this machine's load did, the report names.
        assert status == 0 or any(r["late"] for r in rows.values()), (starved, summary)
        return
    assert status == 0, summary
    assert rows[0]["ties"] == E2E_TRIALS
    for offset in (10, 1000):
        assert (rows[offset]["first_won"], rows[offset]["second_won"]) == (E2E_TRIALS, 0), rows[
            offset
        ]
        assert rows[offset]["gap_median_us"] == pytest.approx(offset, abs=3)
    assert set(report["not_run"]) == {"latency"}  # the only check asked that cannot run
    bounce = {r["key"]: r for r in report["bounce"]}
    assert {"1", "2"} <= set(bounce)  # every wired seat
    for row in bounce.values():
        # One press, stamped at the burst's first edge, nothing lost on the way.
        assert row["ok"] and row["presses"] == 1 and row["first_edge_stamp"], row


def test_serial_without_generator_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selftest", "--serial", "/dev/ttyACM0", "--no-png"]) == 2
    assert "--serial goes with --generator" in capsys.readouterr().err


def test_a_generator_port_another_program_holds_is_refused_with_what_to_do() -> None:
    import os
    import pty

    import serial  # type: ignore[import-untyped]

    master, slave = pty.openpty()
    name = os.ttyname(slave)
    holder = serial.serial_for_url(name, exclusive=True, timeout=0.1)
    try:
        with pytest.raises(GeneratorError, match="another program holds the port") as refused:
            PulseGenerator(name, timeout_s=0.5)
        assert "sudo systemctl stop svoyak" in str(refused.value)
    finally:
        holder.close()
        os.close(master)
        os.close(slave)
