"""Model tests: the chip model against the RP2040 datasheet's words, not against our firmware.

Each test runs a few lines of MicroPython on the chip model's REPL (real
MicroPython 1.28 on rp2040js and the project's harness) that poke the
registers the two firmwares rely on, and checks what the datasheet says
they do. They are the rows of the fidelity table in docs/chip-model.md;
where the model and the firmware disagree, the firmware is wrong until the
datasheet says otherwise, and these tests are what make the model worth
trusting. Section numbers are those of the RP2040 datasheet (build
2023-06-14 and later); register offsets are from its 3.7 (PIO) and 4.6
(TIMER) register lists.
"""

from __future__ import annotations

import binascii
from collections.abc import Iterator

import pytest

from firmware_bridge.chip import ChipModel
from firmware_bridge.firmware import logic
from tests.support.chip_repl import ChipRepl

#: The registers the snippets use, in MicroPython's words.
REGISTERS = """
import machine, rp2, time
PIO0 = 0x50200000
CTRL, FSTAT, FDEBUG, FLEVEL = PIO0 + 0x000, PIO0 + 0x004, PIO0 + 0x008, PIO0 + 0x00C
TXF0, RXF0, IRQ, INTR = PIO0 + 0x010, PIO0 + 0x020, PIO0 + 0x030, PIO0 + 0x128
IRQ0_INTE, IRQ0_INTS = PIO0 + 0x12C, PIO0 + 0x134
SM0_SHIFTCTRL = PIO0 + 0x0D0
m = machine.mem32
"""

#: A program that does nothing by itself: the snippets drive state machine 0
#: with sm.exec(), so each step happens exactly when the test says.
IDLE_PROGRAM = """
@rp2.asm_pio({options})
def idle():
    wrap_target()
    nop()
    wrap()
sm = rp2.StateMachine(0, idle)
"""


@pytest.fixture(scope="class")
def repl() -> Iterator[ChipRepl]:
    chip = ChipModel(files={}).start()  # no main.py: MicroPython's REPL
    try:
        yield ChipRepl(chip)
    finally:
        chip.stop()


def _program(options: str = "") -> str:
    return REGISTERS + IDLE_PROGRAM.format(options=options)


class TestOnOneRepl:
    """The model tests that share one chip's REPL (class-scoped: the chip runs,
    and costs a CPU, for as long as it lives, so it stops before the tests that
    need a chip of their own start theirs)."""

    def test_fjoin_rx_doubles_the_rx_fifo_and_disables_tx(self, repl: ChipRepl) -> None:
        """3.7 SMx_SHIFTCTRL.FJOIN_RX: "RX FIFO steals the TX FIFO's storage, and
        becomes twice as deep. TX FIFO is disabled as a result (always reads as
        both full and empty)." A write to a disabled FIFO is dropped."""
        got = repl.values(
            _program("fifo_join=rp2.PIO.JOIN_RX")
            + """
for i in range(10):
    sm.exec("push(noblock)")
print("rx_level=%d" % ((m[FLEVEL] >> 4) & 0xF))
print("rx_full=%d" % (m[FSTAT] & 1))
print("tx_full=%d" % ((m[FSTAT] >> 16) & 1))
print("tx_empty=%d" % ((m[FSTAT] >> 24) & 1))
m[TXF0] = 0x1234
print("tx_level=%d" % (m[FLEVEL] & 0xF))
print("sm_tx=%d" % sm.tx_fifo())
"""
        )
        assert got == {
            "rx_level": 8,
            "rx_full": 1,
            "tx_full": 1,
            "tx_empty": 1,
            "tx_level": 0,
            "sm_tx": 0,
        }

    def test_fjoin_tx_doubles_the_tx_fifo_and_disables_rx(self, repl: ChipRepl) -> None:
        """3.7 SMx_SHIFTCTRL.FJOIN_TX: the TX FIFO 8 deep, the RX FIFO full and
        empty; and FDEBUG.TXOVER: a write to a full TX FIFO is dropped and flagged."""
        got = repl.values(
            _program("fifo_join=rp2.PIO.JOIN_TX")
            + """
m[FDEBUG] = 0xFFFFFFFF
for i in range(9):
    m[TXF0] = i
print("tx_level=%d" % (m[FLEVEL] & 0xF))
print("tx_over=%d" % ((m[FDEBUG] >> 16) & 1))
print("rx_full=%d" % (m[FSTAT] & 1))
print("rx_empty=%d" % ((m[FSTAT] >> 8) & 1))
sm.exec("push(noblock)")
print("rx_level=%d" % ((m[FLEVEL] >> 4) & 0xF))
"""
        )
        assert got == {"tx_level": 8, "tx_over": 1, "rx_full": 1, "rx_empty": 1, "rx_level": 0}

    def test_changing_a_join_flushes_both_fifos_and_unjoined_they_are_4_deep(
        self, repl: ChipRepl
    ) -> None:
        """3.7 SMx_SHIFTCTRL.FJOIN_RX/FJOIN_TX: "FIFOs are flushed when this bit is
        changed"; unjoined, each FIFO is 4 words (3.2, 3.5.6)."""
        got = repl.values(
            _program("fifo_join=rp2.PIO.JOIN_RX")
            + """
for i in range(3):
    sm.exec("push(noblock)")
print("before=%d" % ((m[FLEVEL] >> 4) & 0xF))
m[SM0_SHIFTCTRL] = m[SM0_SHIFTCTRL] & ~(1 << 31)
print("after=%d" % m[FLEVEL])
print("empty=%d" % ((m[FSTAT] >> 8) & 1))
print("tx_empty=%d" % ((m[FSTAT] >> 24) & 1))
print("tx_full=%d" % ((m[FSTAT] >> 16) & 1))
for i in range(6):
    sm.exec("push(noblock)")
    m[TXF0] = i
print("rx_depth=%d" % ((m[FLEVEL] >> 4) & 0xF))
print("tx_depth=%d" % (m[FLEVEL] & 0xF))
"""
        )
        assert got == {
            "before": 3,
            "after": 0,
            "empty": 1,
            "tx_empty": 1,
            "tx_full": 0,
            "rx_depth": 4,
            "tx_depth": 4,
        }

    def test_fdebug_rxstall_is_sticky_and_cleared_by_writing_1(self, repl: ChipRepl) -> None:
        """3.7 FDEBUG.RXSTALL: "set when a nonblocking PUSH to a full FIFO took place,
        in which case the state machine has dropped data. Write 1 to clear." The
        button firmware counts a dropped capture word by exactly this bit."""
        got = repl.values(
            _program("fifo_join=rp2.PIO.JOIN_RX")
            + """
m[FDEBUG] = 0xFFFFFFFF
for i in range(8):
    sm.exec("push(noblock)")
print("full_no_stall=%d" % (m[FDEBUG] & 1))
sm.exec("push(noblock)")
print("stall=%d" % (m[FDEBUG] & 1))
m[FDEBUG] = 0
print("kept_by_0=%d" % (m[FDEBUG] & 1))
m[FDEBUG] = 1
print("cleared_by_1=%d" % (m[FDEBUG] & 1))
print("still_clear=%d" % (m[FDEBUG] & 1))
print("words_kept=%d" % ((m[FLEVEL] >> 4) & 0xF))
"""
        )
        assert got == {
            "full_no_stall": 0,
            "stall": 1,
            "kept_by_0": 1,
            "cleared_by_1": 0,
            "still_clear": 0,
            "words_kept": 8,
        }

    def test_fdebug_txstall_comes_back_while_the_machine_still_waits(self, repl: ChipRepl) -> None:
        """3.7 FDEBUG.TXSTALL: "State machine has stalled on empty TX FIFO during a
        blocking PULL". The stall is a state: cleared while the machine still waits
        at its PULL, the bit is set again (pico-sdk waits for a stall by clearing
        it and polling); once the FIFO feeds the machine, a cleared bit stays clear.
        The pulse generator knows its steps are over by this bit."""
        got = repl.values(
            REGISTERS
            + """
@rp2.asm_pio()
def puller():
    wrap_target()
    pull(block)
    wrap()
sm = rp2.StateMachine(0, puller, freq=2_000_000)
sm.active(1)
time.sleep_ms(2)
print("stalled=%d" % ((m[FDEBUG] >> 24) & 1))
m[FDEBUG] = 1 << 24
print("again=%d" % ((m[FDEBUG] >> 24) & 1))
sm.active(0)
m[FDEBUG] = 1 << 24
print("stopped=%d" % ((m[FDEBUG] >> 24) & 1))
sm.active(1)
time.sleep_ms(2)
print("running_again=%d" % ((m[FDEBUG] >> 24) & 1))
sm.active(0)
"""
        )
        assert got == {"stalled": 1, "again": 1, "stopped": 0, "running_again": 1}

    def test_pio_irq_flags_inte_ints_and_the_cpu_interrupt(self, repl: ChipRepl) -> None:
        """3.7 IRQ ("Write 1 to clear"), INTR (SM0..3 at bits 11:8), IRQ0_INTE and
        IRQ0_INTS (INTR masked by INTE), and 3.2.5: an `irq` instruction raises the
        system interrupt the button firmware's hard IRQ runs on."""
        got = repl.values(
            _program()
            + """
m[IRQ] = 0xFF
m[IRQ0_INTE] = 0
sm.exec("irq(1)")
print("flag=%d" % ((m[IRQ] >> 1) & 1))
print("intr=%d" % ((m[INTR] >> 9) & 1))
print("ints_masked=%d" % ((m[IRQ0_INTS] >> 9) & 1))
state = machine.disable_irq()
m[IRQ0_INTE] = 1 << 9
ints = (m[IRQ0_INTS] >> 9) & 1
m[IRQ0_INTE] = 0
machine.enable_irq(state)
print("ints_enabled=%d" % ints)
m[IRQ] = 1 << 1
print("cleared=%d" % ((m[IRQ] >> 1) & 1))
hits = []
sm.irq(lambda s: hits.append(1))
sm.exec("irq(0)")
time.sleep_ms(1)
print("handler_calls=%d" % len(hits))
print("flag_after_handler=%d" % (m[IRQ] & 1))
sm.irq(None)
"""
        )
        assert got == {
            "flag": 1,
            "intr": 1,
            "ints_masked": 0,
            "ints_enabled": 1,
            "cleared": 0,
            "handler_calls": 1,
            "flag_after_handler": 0,
        }

    def test_autopush_at_the_threshold(self, repl: ChipRepl) -> None:
        """3.5.4 autopush: the ISR goes to the RX FIFO when the shift count reaches
        PUSH_THRESH, and the ISR and its count are cleared."""
        got = repl.values(
            _program("autopush=True, push_thresh=8, in_shiftdir=rp2.PIO.SHIFT_LEFT")
            + """
sm.exec("set(x, 5)")
sm.exec("in_(x, 4)")
print("after_4=%d" % ((m[FLEVEL] >> 4) & 0xF))
sm.exec("in_(x, 4)")
print("after_8=%d" % ((m[FLEVEL] >> 4) & 0xF))
print("word=%d" % sm.get())
sm.exec("in_(x, 4)")
print("after_12=%d" % ((m[FLEVEL] >> 4) & 0xF))
"""
        )
        assert got == {"after_4": 0, "after_8": 1, "word": 0x55, "after_12": 0}

    def test_each_state_machine_runs_at_its_divided_clock(self, repl: ChipRepl) -> None:
        """3.5.5 the clock divider: a state machine executes one instruction per
        cycle of clk_sys / (INT + FRAC/256). At freq=1 MHz a one-cycle loop counts
        about 1 per µs of the timer (4.6), to the µs or so Python adds."""
        got = repl.values(
            REGISTERS
            + """
@rp2.asm_pio()
def count():
    label("l")
    jmp(y_dec, "l")
sm = rp2.StateMachine(0, count, freq=1_000_000)
sm.exec("set(y, 0)")
t0 = time.ticks_us()
sm.active(1)
time.sleep_ms(20)
sm.active(0)
t1 = time.ticks_us()
sm.exec("mov(isr, y)")
sm.exec("push()")
y = sm.get()
print("cycles=%d" % ((0x100000000 - y) & 0xFFFFFFFF))
print("us=%d" % time.ticks_diff(t1, t0))
"""
        )
        assert got["cycles"] > 0
        assert abs(got["cycles"] - got["us"]) <= max(60, got["us"] // 100), got

    def test_in_pins_reads_from_in_base(self, repl: ChipRepl) -> None:
        """3.5.6 / 3.4.4: `in pins, N` shifts in N pins starting at IN_BASE (GPIO
        IN_BASE is bit 0). The harness drives the button pins; the pattern read is
        the one driven, pin by pin (1 = high)."""
        chip = repl.chip
        pattern = 0b1011_0010
        start = chip.schedule(
            [(pin, (pattern >> i) & 1, 0) for i, pin in enumerate(logic.BUTTON_PINS)]
        )
        assert start >= 0
        got = repl.values(
            REGISTERS
            + """
from machine import Pin
@rp2.asm_pio(in_shiftdir=rp2.PIO.SHIFT_LEFT)
def idle():
    wrap_target()
    nop()
    wrap()
sm = rp2.StateMachine(0, idle, in_base=Pin(2))
sm.exec("mov(isr, null)")
sm.exec("in_(pins, 8)")
sm.exec("push()")
print("levels=%d" % sm.get())
"""
        )
        chip.schedule([(pin, 1, 0) for pin in logic.BUTTON_PINS])
        assert got["levels"] == pattern

    def test_usb_cdc_holds_the_firmwares_bytes_while_the_host_does_not_read(
        self, repl: ChipRepl
    ) -> None:
        """USB 2.0 bulk IN (and TinyUSB's CDC): a device's IN packets wait until the
        host asks for them, so a host that stops reading holds the firmware's writes
        on the cable; they arrive, in order, once it reads again. The harness
        models that stall (rp2040js alone takes every packet at once)."""
        chip = repl.chip
        repl.run("import sys")
        chip.stall_host(True)
        chip.write(b"for i in range(20): print('line', i)\x04")
        before = chip.now_ns()
        while chip.now_ns() < before + 50_000_000:
            assert chip.read(timeout=0.2) == b"", "bytes came through a stalled host"
        chip.stall_host(False)
        body = chip.read_until(b"\x04>", timeout=60.0)
        text = body.decode(errors="replace")
        assert "line 0" in text and "line 19" in text
        assert text.index("line 0") < text.index("line 19")


#: Where the TIMELR test starts the timer: this long before the 2**32 µs carry.
CARRY_AFTER_US = 200_000


def test_timelr_latches_timehr() -> None:
    """4.6.2: "To get a full 64-bit time, read TIMELR then TIMEHR: reading TIMELR
    latches TIMEHR" - across the 2**32 µs carry the pair stays consistent."""
    # The REPL (no main.py) runs a snippet ~20 ms of the chip's time after
    # power-up; the carry comes 200 ms after it, with room for a slow host's
    # replies (the chip runs on while Python answers). Every µs before the carry
    # is spent in the snippet's busy wait.
    chip = ChipModel(files={}, start_us=(1 << 32) - CARRY_AFTER_US).start()
    try:
        got = ChipRepl(chip).values(
            """
import machine, time
T = 0x40054000
m = machine.mem32
U = 0xFFFFFFFF  # mem32 reads are signed ints
lo = m[T + 0x0C] & U
while lo >= 0x80000000 and m[T + 0x28] & U >= lo:
    pass
hi = m[T + 0x08]
print("lo=%d" % lo)
print("hi_latched=%d" % hi)
print("hi_raw=%d" % m[T + 0x24])
"""
        )
    finally:
        chip.stop()
    assert got["hi_latched"] == 0 and got["hi_raw"] == 1
    assert got["lo"] >= (1 << 32) - CARRY_AFTER_US, "the carry came before the test could latch"


def test_the_watchdog_resets_an_unfed_chip_in_its_timeout() -> None:
    """4.7 the watchdog: not fed within its time, it resets the chip (the
    harness rebuilds the chip on the same clock and says so)."""
    chip = ChipModel(files={}).start()
    try:
        got = ChipRepl(chip).values(
            """
import machine, time
print("armed_us=%d" % time.ticks_us())
w = machine.WDT(timeout=200)
"""
        )
        deadline_ns = chip.now_ns() + 2_000_000_000
        while not chip.resets and chip.now_ns() < deadline_ns:
            chip.read(timeout=0.2)
        assert chip.resets, "the watchdog never reset the chip"
        reason, at_ns = chip.resets[0]
        assert reason == "watchdog"
        waited_ms = (at_ns // 1000 - got["armed_us"]) / 1000
        assert 190 <= waited_ms <= 260, waited_ms
    finally:
        chip.stop()


def test_littlefs_boot_runs_main_py_from_the_image() -> None:
    """MicroPython's rp2 port mounts littlefs2 at 0xA0000 of flash and runs
    main.py at boot (docs/chip-model.md): the image's files are there, byte
    for byte."""
    data = bytes(range(256)) * 4
    # main.py runs in __main__, whose globals the REPL then shares.
    chip = ChipModel(files={"main.py": b"MAIN_RAN = 42\n", "data.bin": data}).start()
    try:
        got = ChipRepl(chip).values(
            """
import binascii
d = open("data.bin", "rb").read()
print("main=%d" % MAIN_RAN)
print("size=%d" % len(d))
print("crc=%d" % binascii.crc32(d))
"""
        )
    finally:
        chip.stop()
    assert got == {"main": 42, "size": len(data), "crc": binascii.crc32(data)}
