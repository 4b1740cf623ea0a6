"""The Pico path's trust of device time (issue 33), through the real link and the real runtime.

A new user's protocol-correct fake Pico on a pseudo-terminal
(``tests/support/fake_pico.py``) → the real ``BridgeLink`` → ``attach_bridge``
→ the runtime thread → a real SQLite journal, with the host's panel hub
listening:

- one PRESS stamped 20 s ahead of the device's own heartbeat is refused:
  never journaled as a press, counted, journaled as the ``pico`` source's
  ``fault`` and raised on the host's panel; it holds nothing, so the honest
  presses after it are journaled at once and ruled as any press;
- an event is acknowledged to the device only once it is journaled: with
  the journal's write held, no ACK covers the press, however often the
  device resends it;
- so a host that stops with a press handed on but not journaled loses
  nothing: the device still holds it, and the resumed game journals it.

No latency is asserted: each wait has a generous bound, and what is checked
is what happened (the journal's lines, the ACKs' order against the write).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from buzzer import words
from buzzer.app.inputs import Attached, attach_bridge
from buzzer.arbiter.events import ReadingEnd, ReadingStart, Select
from buzzer.journal.store import JournalStore
from buzzer.panel.hub import PanelHub
from buzzer.runtime.controller import Controller
from buzzer.runtime.runtime import Runtime
from firmware_bridge.link import LinkConfig
from tests.support.descriptors import SELECT_LIMIT, opened_past, past_selects_reach
from tests.support.fairness_rig import LiveRecord, header, host
from tests.support.fake_pico import FakePico

PLAYERS = 3
#: Far above anything this test waits for, far below the hold the forged stamp made.
PATIENCE_S = 10.0
FORGED_AHEAD_US = 20_000_000


def wait(check: Any, what: str, timeout: float = PATIENCE_S) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.002)
    return found


class HeldJournal(JournalStore):
    """A real SQLite journal whose writes can be held at a gate (an SD card that
    stalls, a host about to die), and that says when each write returned."""

    def __init__(self, path: Path, clock: Any = None) -> None:
        super().__init__(path)
        self.gate = threading.Event()
        self.gate.set()
        #: Set while a write waits at the closed gate.
        self.waiting = threading.Event()
        #: Opening the gate with this set makes the held write fail (the host died).
        self.fail = False
        self.clock = clock
        #: (the clock when the write returned, its lines)
        self.written: list[tuple[int, list[str]]] = []

    def append_lines(self, lines: list[str]) -> int:
        if not self.gate.is_set():
            self.waiting.set()
            self.gate.wait()
            if self.fail:
                raise OSError("the host died before this write")
        count = super().append_lines(lines)
        self.written.append((self.clock() if self.clock else 0, list(lines)))
        return count


def lines(store: JournalStore) -> list[dict[str, Any]]:
    return [json.loads(x) for x in list(store.lines())[1:]]


def presses(store: JournalStore) -> list[dict[str, Any]]:
    return [r for r in lines(store) if r["type"] == "press"]


@contextlib.contextmanager
def game(
    store: JournalStore, pico: FakePico, controller: Controller | None = None
) -> Iterator[tuple[Controller, Runtime, Attached, PanelHub, LiveRecord]]:
    """A live game on ``store`` (new, or ``controller`` resumed) as ``svoyak run --serial``
    wires the Pico, with the host's panel hub and a record of the live decisions."""
    if controller is None:
        controller = Controller.new(header(PLAYERS, 10), store)
    record = LiveRecord()
    controller.subscribe(record)
    runtime = Runtime(controller).start()
    hub = PanelHub(runtime.commands)
    config = LinkConfig(
        pico.path,
        seats=tuple(range(1, PLAYERS + 1)),
        backoff_initial_s=0.01,
        backoff_max_s=0.05,
        trouble_interval_s=0.1,
    )
    attached = attach_bridge(runtime, pico.path, config, connect_timeout_s=PATIENCE_S)
    try:
        assert attached.link.wait_connected(PATIENCE_S), "the fake Pico never connected"
        wait(lambda: attached.link.watermark() is not None, "the Pico's watermark")
        yield controller, runtime, attached, hub, record
    finally:
        attached.close()
        runtime.stop()


def open_question(runtime: Runtime) -> None:
    host(runtime, lambda t: Select(t, None, None), ReadingStart, ReadingEnd)


def honest_presses_then_refused_on_the_record(
    pico: FakePico, store: Any, runtime: Runtime, hub: Any, record: Any, why: str, detail: str
) -> None:
    """After a forged stamp: the honest presses are journaled at once (not 20 s
    later) and ruled as any; the forgery is the pico source's fault on the
    record and a host's alert (``why``) that says how far ahead it was."""
    pico.press(1)  # seat 2
    pico.press(2)  # seat 3
    wait(lambda: len(presses(store)) == 2, "the honest presses journaled")
    assert [r["seat"] for r in presses(store)] == [2, 3]
    wait(lambda: record.recognized == [2], "seat 2 recognized")
    assert "window_closed" not in "".join(record.decisions)
    assert runtime.stats.behind == 0 and record.late == 0
    wait(lambda: any(r["type"] == "fault" for r in lines(store)), "the fault line")
    (fault,) = [r for r in lines(store) if r["type"] == "fault"]
    assert fault["source"] == "pico" and fault["detail"].startswith(detail)
    (alert,) = wait(lambda: [a for a in list(hub.alerts) if a.get("why") == why], "the alert")
    assert alert["source"] == "pico" and alert["count"] == 1
    # Ahead of the device's latest report, which is up to a heartbeat (and the
    # machine's stalls) older than the forged stamp's "now".
    assert FORGED_AHEAD_US // 1000 - 1000 <= alert["ms"] <= FORGED_AHEAD_US // 1000 + 100


def test_a_press_stamped_in_the_devices_future_is_refused_on_the_record(tmp_path: Path) -> None:
    with (
        JournalStore(tmp_path / "g.sqlite") as store,
        FakePico(buttons=PLAYERS) as pico,
        game(store, pico) as (_controller, runtime, attached, hub, record),
    ):
        link = attached.link
        open_question(runtime)
        forged = pico.press(0, stamp_us=pico.now_us() + FORGED_AHEAD_US)  # seat 1
        wait(lambda: link.stats().future_stamps == 1, "the forged press refused")
        # It holds nothing: the link's promise stays on the host's clock, not 20 s ahead.
        mark = link.watermark()
        assert mark is not None and mark < time.monotonic_ns() + 1_000_000_000
        honest_presses_then_refused_on_the_record(
            pico, store, runtime, hub, record, "future", "1 event(s) refused: stamped up to "
        )
        # Counted once, though the device resent it until the fault was journaled;
        # and then acknowledged, with the honest ones.
        wait(lambda: pico.unacked() == [], "every event acknowledged")
        assert max(event for _, event in pico.acks()) >= forged + 2
        assert link.stats().future_stamps == 1
    future = {lang: words.table("panel", lang)["alert.source.future"] for lang in ("ru", "en")}
    assert future["ru"].startswith("Кнопки «{source}»: устройство прислало")
    assert future["en"].startswith("The {source} buttons: the device sent {count}")


def test_a_heartbeat_from_the_devices_future_is_refused_and_moves_nothing(
    tmp_path: Path,
) -> None:
    """A HEARTBEAT's tick is a stamp too: 20 s ahead, taken, it would carry the
    watermark 20 s past the host's clock and every honest press after it would
    be late. Refused whole: counted, journaled as the source's fault, an alert;
    the honest presses after it are journaled and ruled as any."""
    with (
        JournalStore(tmp_path / "g.sqlite") as store,
        FakePico(buttons=PLAYERS) as pico,
        game(store, pico) as (_controller, runtime, attached, hub, record),
    ):
        link = attached.link
        open_question(runtime)
        pico.forge_heartbeat(FORGED_AHEAD_US)
        wait(lambda: link.stats().future_ticks == 1, "the forged heartbeat refused")
        mark = link.watermark()
        assert mark is not None and mark < time.monotonic_ns() + 1_000_000_000
        honest_presses_then_refused_on_the_record(
            pico, store, runtime, hub, record, "future_tick", "1 heartbeat(s) refused: "
        )


def test_an_event_is_acknowledged_only_once_journaled(tmp_path: Path) -> None:
    with FakePico(buttons=PLAYERS) as pico:
        store = HeldJournal(tmp_path / "g.sqlite", clock=pico.now_us)
        with store, game(store, pico) as (_controller, runtime, attached, _hub, _record):
            open_question(runtime)
            store.gate.clear()
            event = pico.press(1)  # seat 2
            wait(store.waiting.is_set, "the journal's write held")
            wait(lambda: attached.link.stats().events >= 1, "the press in the link's hands")
            # The device resends it (unacknowledged for 60 ms); the host answers each
            # resend with an ACK, and none covers the press while its write is held.
            asked = len(pico.acks())
            wait(lambda: len(pico.acks()) >= asked + 2, "the host's ACKs while it waits")
            assert all(acked < event for _, acked in pico.acks())
            assert event in pico.unacked()
            store.gate.set()
            wait(lambda: event not in pico.unacked(), "the ACK once journaled")
            (journaled_us,) = [at for at, batch in store.written if '"press"' in "".join(batch)]
            covering = [at for at, acked in pico.acks() if acked >= event]
            assert covering and min(covering) >= journaled_us
            assert [r["seat"] for r in presses(store)] == [2]


def test_a_host_that_stops_before_journaling_a_press_loses_nothing(tmp_path: Path) -> None:
    """The press reached the host, which stopped (died) before its journal write:
    never acknowledged, the device keeps it and resends it to the next host; the
    resumed game journals it (its time was decided before the restart: late)."""
    path = tmp_path / "g.sqlite"
    with FakePico(buttons=PLAYERS) as pico:
        store = HeldJournal(path)
        controller = Controller.new(header(PLAYERS, 10), store)
        # A game an hour old: the moments the host is down are well inside its time.
        controller.t0_ns -= 3600 * 1_000_000_000
        try:
            with game(store, pico, controller) as (_c, runtime, attached, _hub, _record):
                open_question(runtime)
                store.gate.clear()
                event = pico.press(2)  # seat 3
                wait(store.waiting.is_set, "the journal's write held")
                wait(lambda: attached.link.stats().events >= 1, "the press in the link's hands")
                attached.link.stop()  # the host dies: its threads stop where they are
                store.fail = True
                store.gate.set()
            assert all(acked < event for _, acked in pico.acks())
            assert presses(store) == []
        finally:
            store.close()
        assert pico.unacked() == [event]
        # svoyak run --resume: the game goes on from its journal, the Pico resends.
        with JournalStore(path) as again:
            resumed = Controller.resume(again)
            with game(again, pico, resumed) as (_c, _runtime, attached, _hub, record):
                wait(lambda: presses(again) != [], "the resent press journaled")
                assert [r["seat"] for r in presses(again)] == [3]
                wait(lambda: pico.unacked() == [], "the press acknowledged")
                assert attached.link.stats().stale == 0
                assert record.late == 1  # its time was decided before the restart


#: Set-ups tried before the port must have landed past select()'s reach.
PREMISE_ATTEMPTS = 3


def test_a_pico_port_opened_past_selects_reach_still_plays(tmp_path: Path) -> None:
    """``svoyak run`` raises its descriptor limit to serve many panels, so the Pico's
    port can be opened at descriptor 1024 or above (a Pico plugged back in on a busy
    night). pyserial's own port cannot wait on it and the link would never speak to
    the Pico; the game's link opens it with ``open_port`` (poll), and plays.

    The port opens on the link's thread while the game starts; if a thread an
    earlier test left behind closed one of its descriptors below 1024 meanwhile,
    the port took that one and the premise failed: the game is set up again."""
    landed_low = 0
    for attempt in range(PREMISE_ATTEMPTS):
        with (
            JournalStore(tmp_path / f"g{attempt}.sqlite") as store,
            FakePico(buttons=PLAYERS) as pico,
            past_selects_reach(),
            game(store, pico) as (_controller, runtime, _attached, _hub, record),
        ):
            if pico.path not in opened_past(SELECT_LIMIT):
                landed_low += 1
                continue
            open_question(runtime)
            pico.press(1)  # seat 2
            wait(lambda: record.recognized == [2], "seat 2 recognized")
            assert [r["seat"] for r in presses(store)] == [2]
            return
    raise AssertionError(
        f"the port was opened below 1024 in all {landed_low} set-ups: something else in "
        "this process freed a descriptor below 1024 each time, so nothing was shown"
    )
