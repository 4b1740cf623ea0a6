"""A whole game of ``svoyak run --serial`` against the real firmware on the chip model.

The Python emulator (``firmware_bridge/emulator.py``) proves the host's side
of the link; these tests prove the pair: the project's ``main.py`` on real
MicroPython in an emulated RP2040 (paced to the wall clock, as a Pico's
crystal is), its USB serial port on a pty, a real ``svoyak run`` process
reading it through pyserial and the real ``BridgeLink``. The presses are pin
edges the harness applies at exact emulated offsets (races of 5 µs to 1 ms),
so what the journal says can be held against what the buttons really did:

- every press reaches the journal, in the order of its edge, with the
  spacing of the edges (the firmware's stamp mapped onto the host's clock);
- the recognized player is the one whose edge came first;
- the podium lamp of each recognized player is switched on by the firmware
  (``ChipModel.pin_log``: the GPIO's own changes), after that player's edge.

And ``svoyak emulate --chip`` as a user starts it: its port works for
``svoyak run --serial``.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from buzzer.journal.store import JournalStore
from buzzer.replay import replay_lines
from firmware_bridge.chip import ChipModel
from firmware_bridge.chip.model import AppliedEdge
from tests.buzzer.app.test_run_crash_resume import PACKAGE
from tests.buzzer.panel.test_panel_cli import served
from tests.support.http import http_client

# Timing is the subject (scripts/test's sequential phase): the chip model's paced CPU.
pytestmark = pytest.mark.serial

RUN = ["--headless", "--host", "127.0.0.1", "--port", "0"]
PIN = "271828"
PLAYERS = "Аня,Борис,Вера"
#: How long a scripted press is held: past the firmware's 10 ms hold-off, so
#: the release is reported too (and a button is free again soon after).
HOLD_US = 20_000
#: The first edge of a race comes this long after the request: the signal
#: (``reading_end``) is on the host's clock before any press can be stamped.
LEAD_US = 2_000
#: ``svoyak run --wait-bound-ms``: how long a decision waits for the Pico's watermark.
WAIT_BOUND_MS = 3000


class Starved(Exception):
    """This machine starved the paced chip past the wait bound during a race (measured),
    and the host's panel said so: the game cannot go on as scripted."""


def until(check: Callable[[], Any], what: str | Callable[[], str], timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        if time.monotonic() > deadline:
            raise AssertionError(what() if callable(what) else what)
        time.sleep(0.02)
    return found


def pace(chip: ChipModel | None) -> str:
    """How well the paced chip kept up: a starved emulator explains a silent Pico."""
    if chip is None or len(chip.time_reports) < 2:
        return ""
    (ns0, wall0), (ns1, wall1) = chip.time_reports[0], chip.time_reports[-1]
    behind_ms = ((wall1 - wall0) - (ns1 - ns0)) / 1e6
    silent_s = (time.monotonic_ns() - wall1) / 1e9
    return (
        f"; the chip's clock fell {behind_ms:.0f} ms behind the wall clock, its last time "
        f"report {silent_s:.1f} s ago, errors {chip.errors}, resets {chip.resets}"
    )


class Host:
    """The host's tablet: the panel's API, as ``test_run_crash_resume.py`` drives it."""

    def __init__(self, url: str, chip: ChipModel | None = None) -> None:
        self.client = http_client(base_url=url, timeout=10)
        assert self.client.post("/api/login", json={"pin": PIN}).status_code == 200
        self.count = 0
        self.chip = chip

    def command(self, **command: Any) -> None:
        self.count += 1
        body = {"id": f"chip-{self.count}", "command": command}
        response = self.client.post("/api/command", json=body)
        assert response.status_code == 200, response.text

    def snapshot(self) -> dict[str, Any]:
        snapshot: dict[str, Any] = self.client.get("/api/state").json()["snapshot"]
        return snapshot

    def settled(self, check: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        def matching() -> dict[str, Any] | None:
            snapshot = self.snapshot()
            return snapshot if check(snapshot) else None

        def why() -> str:
            state = self.client.get("/api/state").json()
            snapshot = {k: state["snapshot"].get(k) for k in ("stage", "phase", "answering")}
            alerts = [
                {k: v for k, v in a.items() if k in ("kind", "source", "detail", "why")}
                for a in state["panel"]["alerts"]
            ]
            return f"{what} ({snapshot}, alerts {alerts}{pace(self.chip)})"

        found: dict[str, Any] = until(matching, why)
        return found

    def open_window(self, price: int | None) -> None:
        if price is not None:
            self.command(type="select", theme=1, price=price)
            self.command(type="reading_start")
            self.command(type="reading_end")
        self.settled(lambda s: s["phase"] == "open", "the window did not open")


def race(chip: ChipModel, offsets_us: dict[int, float]) -> list[AppliedEdge]:
    """Press seats (1-based) at these offsets; the falling edges, once all are applied."""
    buttons = {seat - 1: LEAD_US + offset for seat, offset in offsets_us.items()}
    t0 = chip.press_after(buttons, HOLD_US)
    # The harness applies an edge at the first instruction boundary at or
    # after its instant: 8-24 ns late at 125 MHz, up to a few µs on a paced
    # CPU slowed to a few MHz. The pin's next edge is its release, 20 ms on.
    wanted = {chip.button_pins[b]: t0 + round(at * 1000) for b, at in buttons.items()}

    def applied() -> list[AppliedEdge] | None:
        edges = [
            e
            for e in chip.edges_since(t0)
            if e.level == 0 and 0 <= e.ns - wanted.get(e.pin, -(10**18)) < 50_000
        ]
        return edges if len(edges) == len(wanted) else None

    found: list[AppliedEdge] = until(
        applied,
        lambda: (
            f"the harness did not apply {wanted} (from {t0}): {chip.edges_since(t0)}" + pace(chip)
        ),
        10,
    )
    return sorted(found, key=lambda e: e.ns)


@pytest.fixture
def chip() -> Iterator[ChipModel]:
    model = ChipModel(pace=True).start()
    try:
        # USB comes up before main.py runs; a Pico is plugged in before the
        # host starts, and `svoyak run` gives it 5 s: wait for the firmware's
        # first frame (its HELLO at boot) as `svoyak emulate --chip` does.
        assert model.read(timeout=60), f"the firmware did not start: {model.errors}"
        yield model
    finally:
        model.stop()


def test_a_whole_game_against_the_real_firmware(chip: ChipModel, tmp_path: Path) -> None:
    package = tmp_path / "chip.json"
    package.write_text(json.dumps(PACKAGE, ensure_ascii=False), encoding="utf-8")
    journal = tmp_path / "game.sqlite"
    port = chip.open_pty()
    args = [
        *RUN,
        "--pin",
        PIN,
        "--journal",
        str(journal),
        "--rules",
        "sport-no-false-start",
        "--package",
        str(package),
        "--players",
        PLAYERS,
        "--serial",
        port,
        # The chip model's CPU runs 4-40 times slower than a Pico's here (it is
        # paced to the wall clock on two shared cores), so its heartbeat, the
        # Pico's watermark, comes tens to hundreds of ms apart: decisions may
        # wait for it up to 3 s. What is tested is the path, not its latency
        # (bench/chip_soak.py measures that).
        "--wait-bound-ms",
        str(WAIT_BOUND_MS),
    ]
    seat_of_pin = {pin: seat for seat, pin in enumerate(chip.button_pins, 1)}

    def lamp_lit(seat: int, since_ns: int) -> None:
        """Wait for the seat's podium lamp on the chip, as the host looks at the podium
        before judging (the link sends only the latest lamp state: an ON judged away
        before the slow chip took it would never show)."""
        pin = chip.lamp_pins[seat - 1]
        deadline = time.monotonic() + 30
        while not any(p == pin and st == 1 and ns > since_ns for p, st, ns, _ in chip.pin_log):
            assert time.monotonic() < deadline, (
                f"seat {seat}'s lamp never lit on the chip after its edge at {since_ns} ns: "
                f"{[(st, ns) for p, st, ns, _ in chip.pin_log if p == pin]}, "
                f"chip now {chip.now_ns()} ns, resets {chip.resets}"
            )
            time.sleep(0.05)

    def answering(seat: int, race_from: int, what: str) -> None:
        """The race's first edge recognized, or: the chip fell behind the wall clock
        by more than the wait bound since the race began (as the chip model measured),
        so the runtime decided without the Pico, as designed, and the host's panel
        must say so (the Pico's source alert, the presses ruled late): :class:`Starved`."""
        try:
            host.settled(lambda s: s["answering"] == seat, what)
        except AssertionError:
            why = chip.starved(race_from, WAIT_BOUND_MS * 1_000_000)
            if why is None:
                raise
            alerts = host.client.get("/api/state").json()["panel"]["alerts"]
            told = [a for a in alerts if a["kind"] == "late" or a.get("source") == "pico"]
            assert told, (why, alerts)
            raise Starved(why) from None

    races: list[list[AppliedEdge]] = []
    starved: Starved | None = None
    with served(*args) as (url, printed):
        assert f"Pico: {port} (" in "".join(printed)  # the HELLO was read: the firmware's
        host = Host(url, chip)
        try:
            play_the_game(host, chip, races, answering, lamp_lit)
        except Starved as exc:
            starved = exc
        time.sleep(0.1)  # the last releases and lamp commands
    assert chip.errors == [] and chip.resets == []

    with JournalStore(journal, readonly=True) as store:
        lines = list(store.lines())
    records = [json.loads(line) for line in lines[1:]]
    presses = [r for r in records if r["type"] == "press"]
    edges = [e for one in races for e in one]
    journaled = [p["seat"] for p in presses]
    pressed = [seat_of_pin[e.pin] for e in edges]
    # Every press is in the journal, once, in the order of its edge (a starved race's
    # as far as they reached the host before it stopped: late, never reordered)...
    if starved is None:
        assert journaled == pressed
    else:
        assert journaled == pressed[: len(journaled)], (str(starved), journaled, pressed)
        assert len(journaled) >= len(pressed) - len(races[-1]), (str(starved), journaled)
    decided = races if starved is None else races[:-1]
    # ...and within a race the journaled times are the edges' spacing: the
    # firmware stamps to the µs, the host maps its ticks with one clock fit.
    at = 0
    for one in decided:
        got = presses[at : at + len(one)]
        at += len(one)
        for p, e in zip(got[1:], one[1:], strict=True):
            spacing_us = (p["t"] - got[0]["t"]) * 1e6
            assert abs(spacing_us - (e.ns - one[0].ns) / 1e3) <= 3.0, (got, one)
    # The replay of the journal recognizes whoever's edge came first.
    decisions = [json.loads(line) for line in replay_lines(lines)]
    recognized = [d["seat"] for d in decisions if d["type"] == "recognized"]
    if starved is not None:
        # The races before the starved one were decided as their edges say.
        first = [seat_of_pin[one[0].pin] for one in decided]
        assert recognized[: len(decided)] == first, (str(starved), recognized)
        return
    assert recognized == [2, 1, 2, 3] == [seat_of_pin[one[0].pin] for one in races]
    assert decisions[-1]["scores"] == {"1": 10, "2": 10, "3": 30}
    assert decisions[-1]["winner"] == 3

    # The firmware switched each recognized player's podium lamp on after their edge.
    lamp_seat = {pin: seat for seat, pin in enumerate(chip.lamp_pins[:3], 1)}
    lit = [
        (lamp_seat[pin], ns)
        for pin, state, ns, _ in chip.pin_log
        if pin in lamp_seat and state == 1
    ]
    assert [seat for seat, _ in lit] == recognized, str(
        [(p, s, round(n / 1e6, 1)) for p, s, n, _ in chip.pin_log if p in lamp_seat]
    )
    for (seat, ns), one in zip(lit, races, strict=True):
        assert seat_of_pin[one[0].pin] == seat and ns > one[0].ns


def play_the_game(
    host: Host,
    chip: ChipModel,
    races: list[list[AppliedEdge]],
    answering: Callable[[int, int, str], None],
    lamp_lit: Callable[[int, int], None],
) -> None:
    """The scripted game: four races, each race's edges appended to ``races``."""

    def race_won_by(seat: int, offsets_us: dict[int, float], name: str) -> None:
        """A race; its first edge's seat answers, and that podium's lamp lights."""
        race_from = time.monotonic_ns()
        races.append(race(chip, offsets_us))
        answering(seat, race_from, f"{name}'s press was not recognized")
        lamp_lit(races[-1][0].pin - chip.button_pins[0] + 1, races[-1][0].ns)

    # 1. Борис 300 µs before Аня: Борис answers, wrongly.
    host.open_window(10)
    race_won_by(2, {2: 0, 1: 300}, "Борис")
    host.command(type="judge", verdict="wrong")
    # The window opens again for the others: Аня 5 µs before Вера, and right.
    host.open_window(None)
    race_won_by(1, {1: 0, 3: 5}, "Аня")
    host.command(type="judge", verdict="correct")
    host.settled(lambda s: s["stage"] == "board", "back to the board")

    # 2. Борис 20 µs before Вера.
    host.open_window(20)
    race_won_by(2, {2: 0, 3: 20}, "Борис")
    host.command(type="judge", verdict="correct")
    host.settled(lambda s: s["stage"] == "board", "back to the board")

    # 3. All three within a millisecond: Вера, Аня 50 µs later, Борис 1 ms.
    host.open_window(30)
    race_won_by(3, {3: 0, 1: 50, 2: 1000}, "Вера")
    host.command(type="judge", verdict="correct")
    final = host.settled(lambda s: s["over"], "the game did not end")
    assert final["scores"] == {"1": 10, "2": 10, "3": 30}


def test_svoyak_emulate_chip_prints_a_port_that_svoyak_run_plays_on(tmp_path: Path) -> None:
    """The command line a user types: the chip model behind a stable path."""
    emulate = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "buzzer.cli",
            "emulate",
            "--chip",
            "--buttons",
            "3",
            "--random-presses",
            "4",
            "--hold-ms",
            "30",
            "--duration",
            "90",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    out: queue.Queue[str] = queue.Queue()

    def drain() -> None:
        for line in emulate.stdout or ():
            out.put(line)

    threading.Thread(target=drain, daemon=True).start()
    try:
        found = None
        while found is None:
            found = re.search(r"serial port (\S+) \(pty /dev/pts/\d+\)", out.get(timeout=60))
        port = found.group(1)
        assert os.path.islink(port)
        args = [
            *RUN,
            "--pin",
            PIN,
            "--no-journal",
            "--rules",
            "sport-no-false-start",
            "--players",
            PLAYERS,
            "--serial",
            port,
        ]
        with served(*args) as (url, printed):
            assert f"Pico: {port} (" in "".join(printed)
            host = Host(url)
            host.command(type="select", theme=1, price=10)
            host.command(type="reading_start")
            host.command(type="reading_end")
            # The random presses (4 a second on seats 1-3) reach the game.
            state = host.settled(lambda s: s["answering"] is not None, "no press was taken")
            seat = state["answering"]
        lamp = f"  lamp {seat} on"
        until(lambda: any(line.rstrip() == lamp for line in list(out.queue)), lamp, 10)
    finally:
        emulate.send_signal(signal.SIGINT)
        try:
            emulate.wait(timeout=15)
        except subprocess.TimeoutExpired:
            emulate.kill()
            emulate.wait()
    assert not os.path.exists(port)  # it cleaned its folder up
