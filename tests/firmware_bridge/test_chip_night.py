"""A firmware that survives the night, on the chip model (real MicroPython, emulated RP2040).

- the 2**30 µs wrap of ``ticks_us`` (the timer is set just before it rather
  than waiting 18 minutes): stamps stay the true edge times across it;
- a USB host that stops reading: the chip goes on stamping, and every press
  made meanwhile arrives, exactly stamped, once the host reads again;
- an exception in a round does not end the firmware; a hung main loop is
  reset by the watchdog and the chip comes back with a new boot id.

The faults are injected into a copy of ``main.py`` (lines replaced, each
anchor checked so the test breaks loudly if main.py changes); everything
else is the firmware as shipped. Three chips serve the file, one per class
(a boot costs about 3 CPU seconds, and an exact-mode chip runs, and costs a
CPU, for as long as it lives: a class-scoped chip stops when its class's
last test is done, where a module-scoped one would run on idle through the
rest of the file): one as shipped, its timer set before the wrap; one with
the faults, whose last test is the watchdog's reset; one whose capture has
no IRQ. Tests that share a chip compare counters with their values before
the test, never with zero.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from firmware_bridge import protocol
from firmware_bridge.chip import ChipModel
from firmware_bridge.chip.model import firmware_files
from firmware_bridge.clock import TickUnwrapper
from firmware_bridge.firmware import logic
from tests.support.chip_support import ChipHost

PERIOD = 1 << logic.TICKS_BITS


def _press_train(chip: ChipModel, count: int, spacing_ns: int, hold_ns: int) -> int:
    """Press buttons in turn, ``spacing_ns`` apart, each held ``hold_ns``."""
    edges = []
    for k in range(count):
        pin = chip.button_pins[k % len(chip.button_pins)]
        edges.append((pin, 0, k * spacing_ns))
        edges.append((pin, 1, k * spacing_ns + hold_ns))
    return chip.schedule(edges)


def _true_ticks(chip: ChipModel, since_ns: int) -> list[int]:
    return [chip.ticks_at(e.ns) for e in chip.edges_since(since_ns) if e.level == 0]


#: The wrap train: 16 presses 25 ms apart (each held 12 ms; a button comes
#: back 200 ms on, far past its 10 ms hold-off), half before the wrap.
TRAIN = 16
SPACING_NS = 25_000_000
HOLD_NS = 12_000_000
#: Where the timer starts: before the wrap by the boot (HELLO at ~0.53 s of
#: the chip's time, the same every run in exact mode), the train's first half
#: and a margin for the host's replies (the chip runs on while Python answers).
START_BEFORE_WRAP_US = 530_000 + TRAIN // 2 * SPACING_NS // 1000 + 200_000


@pytest.fixture(scope="class")
def near_wrap() -> Iterator[ChipHost]:
    with ChipModel(start_us=PERIOD - START_BEFORE_WRAP_US) as chip:
        yield ChipHost(chip).start()


class TestAsShippedAcrossTheWrap:
    """The firmware as shipped, its timer started just before the ticks_us wrap."""

    def test_stamps_stay_true_across_the_ticks_us_wrap(self, near_wrap: ChipHost) -> None:
        """Sixteen presses, half before the wrap and half after it (how many
        more would straddle it proves nothing new)."""
        host, chip = near_wrap, near_wrap.chip
        lead_ns = PERIOD * 1000 - chip.now_ns() - TRAIN // 2 * SPACING_NS
        assert lead_ns > 0, "the chip booted too slowly to straddle the wrap"
        edges = [
            (pin, level, at + lead_ns)
            for k in range(TRAIN)
            for pin, level, at in (
                (chip.button_pins[k % 8], 0, k * SPACING_NS),
                (chip.button_pins[k % 8], 1, k * SPACING_NS + HOLD_NS),
            )
        ]
        before = len(host.presses)
        t0 = chip.schedule(edges)
        host.wait_emulated(t0 + lead_ns + TRAIN * SPACING_NS)
        host.wait_for(lambda: len(host.presses) >= before + TRAIN, 60.0, "the sixteen presses")
        stamps = [p.ticks for p in host.presses[before:]]
        truth = _true_ticks(chip, t0)
        assert len(truth) == TRAIN
        assert truth[0] > PERIOD // 2, "the train must start before the wrap"
        assert truth[-1] < PERIOD // 2, "and end after it"
        offsets = {logic.ticks_diff(s, t) for s, t in zip(stamps, truth, strict=True)}
        assert max(offsets) - min(offsets) <= 1 and all(-1 <= o <= 20 for o in offsets), offsets
        unwrapper = TickUnwrapper(logic.TICKS_BITS)
        unwrapped = [unwrapper.unwrap(s) for s in stamps]
        gaps = [b - a for a, b in itertools.pairwise(unwrapped)]
        assert all(abs(g - SPACING_NS // 1000) <= 1 for g in gaps), gaps

    def test_a_host_that_stops_reading_never_stalls_the_stamps(self, near_wrap: ChipHost) -> None:
        """The train ends 187 ms after it starts; the host stays away 250 ms."""
        host, chip = near_wrap, near_wrap.chip
        host.wait_emulated(chip.now_ns() + 30_000_000)
        before = len(host.presses)
        overflows = host.heartbeats[-1].ring_overflows
        chip.stall_host(True)
        t0 = _press_train(chip, count=8, spacing_ns=25_000_000, hold_ns=12_000_000)
        host.wait_emulated(t0 + 250_000_000)
        assert len(host.presses) == before, "nothing can arrive while the host does not read"
        chip.stall_host(False)
        host.wait_for(
            lambda: len(host.presses) >= before + 8, 60.0, "the presses made during the stall"
        )
        presses = host.presses[before:]
        truth = _true_ticks(chip, t0)
        offsets = {logic.ticks_diff(p.ticks, t) for p, t in zip(presses, truth, strict=True)}
        assert max(offsets) - min(offsets) <= 1 and all(-1 <= o <= 20 for o in offsets), offsets
        assert [p.button for p in presses] == list(range(8))
        assert host.heartbeats[-1].ring_overflows == overflows
        assert chip.resets == []


def _with_faults(replacements: list[tuple[str, str]], **constants: int) -> dict[str, bytes]:
    files = firmware_files()
    source = files["main.py"].decode()
    for anchor, replacement in replacements:
        assert anchor in source, "main.py changed: update the fault injection"
        source = source.replace(anchor, replacement, 1)
    for name, value in constants.items():
        line = next(x for x in source.splitlines() if x.startswith(f"{name} = "))
        source = source.replace(line, f"{name} = {value}", 1)
    files["main.py"] = source.encode()
    return files


#: A lone 0xEE right after a delimiter makes a round raise (as a bug would), a
#: lone 0xEF hangs the main loop. Only a one-byte read that follows a 0x00 is
#: looked at: inside the host's frames (an ACK's CRC, say) either byte is
#: ordinary data, and faulting on it hung the chip at random.
FEED = (
    "    host = logic.HostInput(\n"
    "        sys.stdin.buffer.readinto, device, lambda: host_waiting(poller, FRAME_REST_MS)\n"
    "    )\n",
    "    def faulty_readinto(view, _readinto=sys.stdin.buffer.readinto, _last=bytearray(1)):\n"
    "        count = _readinto(view)\n"
    "        lone = len(view) == 1 and _last[0] == 0\n"
    "        _last[0] = view[count - 1]\n"
    "        if lone and view[0] == 0xEE:\n"
    "            raise ValueError('injected')\n"
    "        while lone and view[0] == 0xEF:\n"
    "            pass\n"
    "        return count\n"
    "    host = logic.HostInput(faulty_readinto, device, lambda: host_waiting(poller, 2))\n",
)
#: What the hard IRQ runs (drain, sample, stamp) and housekeep, under a locked heap.
LOCKED_CAPTURE = (
    "        self.drain()\n        self.ring.housekeep(now)\n",
    "        micropython.heap_lock()\n"
    "        try:\n"
    "            self.drain()\n"
    "            self.ring.housekeep(now)\n"
    "        except MemoryError:\n"
    "            self.allocated = True\n"
    "        micropython.heap_unlock()\n"
    "        if getattr(self, 'allocated', False):\n"
    "            print('ALLOCATED IN THE CAPTURE PATH')\n",
)


@pytest.fixture(scope="class")
def faulty() -> Iterator[tuple[ChipHost, bytearray]]:
    files = _with_faults([FEED, LOCKED_CAPTURE], WATCHDOG_MS=300)
    with ChipModel(files=files) as chip:
        raw = bytearray()
        read = chip.read

        def keep(*args: object, **kwargs: object) -> bytes:
            data = read(*args, **kwargs)  # type: ignore[arg-type]
            raw.extend(data)
            return data

        chip.read = keep  # type: ignore[method-assign]
        yield ChipHost(chip).start(), raw


class TestFaultsInjected:
    """The faults of FEED and LOCKED_CAPTURE and a 300 ms watchdog; the watchdog's
    reset comes last (the tests before it hold ``resets`` to what it was)."""

    def test_the_capture_path_allocates_nothing_on_the_chip(
        self, faulty: tuple[ChipHost, bytearray]
    ) -> None:
        """A hard IRQ may not allocate: MicroPython would raise MemoryError in it and
        disable the handler for good (as calling a closure over many variables once
        did). The main loop's own drain runs here with the heap locked."""
        host, raw = faulty
        chip = host.chip
        before = len(host.releases)
        t0 = _press_train(chip, count=8, spacing_ns=15_000_000, hold_ns=12_000_000)
        host.wait_emulated(t0 + 150_000_000)
        host.wait_for(lambda: len(host.releases) >= before + 8, 60.0, "the presses and releases")
        assert b"ALLOCATED" not in raw
        assert b"Traceback" not in raw and b"Uncaught exception" not in raw

    def test_an_exception_in_a_round_does_not_end_the_firmware(
        self, faulty: tuple[ChipHost, bytearray]
    ) -> None:
        host, _ = faulty
        chip = host.chip
        resets = len(chip.resets)
        for _ in range(3):
            chip.write(b"\x00\xee")
        before = len(host.presses)
        t0 = _press_train(chip, count=4, spacing_ns=20_000_000, hold_ns=10_000_000)
        host.wait_emulated(t0 + 100_000_000)
        host.wait_for(lambda: len(host.presses) >= before + 4, 60.0, "presses after the faults")
        assert len(chip.resets) == resets
        assert len({h.boot_id for h in host.hellos}) == 1

    def test_a_frame_torn_by_a_silent_host_does_not_hold_the_loop_until_the_watchdog(
        self, faulty: tuple[ChipHost, bytearray]
    ) -> None:
        """The host writes 5 bytes of a PING and goes silent. The main loop must not
        wait in a read for the rest (on the real interpreter ``readinto`` blocks
        until its bytes are there): it goes on with its heartbeats and is not
        reset by its watchdog (300 ms here, so 400 ms of silence holds one whole
        period and a margin); the host, back, is answered. FEED's faults take
        only a lone 0xEE or 0xEF after a delimiter, never a frame's first byte."""
        host, _ = faulty
        chip = host.chip
        resets = len(chip.resets)
        boot = host.hellos[-1].boot_id
        chip.write(protocol.encode_frame(protocol.Ping(7), host.seq)[:5])
        host.seq = (host.seq + 1) & 0xFFFF
        before = len(host.heartbeats)
        host.wait_emulated(chip.now_ns() + 400_000_000)
        assert len(chip.resets) == resets, "the torn frame held the loop until the watchdog"
        assert len(host.heartbeats) - before > 200
        count = len(host.hellos)
        chip.write(b"\x00")
        host.send(protocol.HostHello())
        host.wait_for(lambda: len(host.hellos) > count, 60.0, "a HELLO after the torn frame")
        assert host.hellos[-1].boot_id == boot

    def test_a_hung_main_loop_is_reset_by_the_watchdog(
        self, faulty: tuple[ChipHost, bytearray]
    ) -> None:
        host, _ = faulty
        chip = host.chip
        resets = len(chip.resets)
        first = host.hellos[-1].boot_id
        chip.write(b"\x00\xef")
        host.wait_for(lambda: len(chip.resets) > resets, 120.0, "a watchdog reset")
        assert chip.resets[resets][0] == "watchdog"
        count = len(host.hellos)
        host.send(protocol.HostHello())
        host.wait_for(lambda: len(host.hellos) > count, 120.0, "a HELLO after the reset")
        assert host.hellos[-1].boot_id != first
        before = len(host.presses)
        t0 = _press_train(chip, count=2, spacing_ns=20_000_000, hold_ns=10_000_000)
        host.wait_emulated(t0 + 60_000_000)
        host.wait_for(lambda: len(host.presses) >= before + 2, 60.0, "presses after the reset")


#: The capture without its IRQ (the handler is never attached): only the main
#: loop drains the capture machine's FIFO.
NO_IRQ = ("    sm.irq(capture.drain, hard=True)\n", "")


@pytest.fixture(scope="class")
def no_irq() -> Iterator[ChipHost]:
    with ChipModel(files=_with_faults([NO_IRQ])) as chip:
        yield ChipHost(chip).start()


class TestCaptureWithoutItsIrq:
    """With the main loop held in a write to a host that stopped reading, the
    capture machine's FIFO (8 words, joined) fills and drops words."""

    def test_samples_the_capture_fifo_dropped_are_counted_never_silent(
        self, no_irq: ChipHost
    ) -> None:
        """The heartbeat must report the dropped words. The train (16 words)
        ends 150 ms after it starts; the host stays away 200 ms."""
        host, chip = no_irq, no_irq.chip
        host.wait_for(lambda: bool(host.heartbeats), 60.0, "a heartbeat")
        overflows = host.heartbeats[-1].ring_overflows
        before = len(host.presses)
        chip.stall_host(True)
        t0 = _press_train(chip, count=8, spacing_ns=20_000_000, hold_ns=10_000_000)
        host.wait_emulated(t0 + 200_000_000)
        chip.stall_host(False)
        host.wait_for(
            lambda: host.heartbeats[-1].ring_overflows > overflows,
            60.0,
            "a heartbeat reporting the lost samples",
        )
        assert len(host.presses) - before < 8

    def test_after_a_dropped_capture_word_the_levels_are_read_again_from_the_pins(
        self, no_irq: ChipHost
    ) -> None:
        """The capture machine pushes changes only: a dropped word would leave the
        ring's level of that button stale until the button changed again, and the
        glitch check would read the stale level (a held press never reported).
        On an overflow the firmware reads the pins themselves, so the press held
        through it is reported, late rather than never, and its release after it.
        Button 8 is held 90 ms past the host's return (the resync is the next
        round of the main loop, a millisecond or so)."""
        host, chip = no_irq, no_irq.chip
        host.wait_emulated(chip.now_ns() + 30_000_000)
        overflows = host.heartbeats[-1].ring_overflows
        presses, releases = len(host.presses), len(host.releases)
        chip.stall_host(True)
        # Buttons 1-7 tap, 20 ms apart (14 words: the FIFO fills and drops, as in
        # the test above); then button 8 is pressed and held: its word is
        # dropped too, and nothing changes on the pins until its release.
        pins = chip.button_pins
        edges = []
        for k in range(7):
            edges += [(pins[k], 0, k * 20_000_000), (pins[k], 1, k * 20_000_000 + 10_000_000)]
        edges += [(pins[7], 0, 160_000_000), (pins[7], 1, 290_000_000)]
        t0 = chip.schedule(edges)
        host.wait_emulated(t0 + 200_000_000)
        chip.stall_host(False)
        host.wait_emulated(t0 + 330_000_000)
        host.wait_for(
            lambda: any(r.button == 7 for r in host.releases[releases:]), 60.0, "button 8's release"
        )
        assert host.heartbeats[-1].ring_overflows > overflows  # words were dropped, and it says so
        assert 7 in [p.button for p in host.presses[presses:]]  # the held press, read from the pin
