# mypy: ignore-errors
"""svoyak pulse generator: a Raspberry Pi Pico that presses the buttons for the self-test.

Copy this file to a second Pico as ``main.py`` (``mpremote cp
firmware_bridge/generator/main.py :main.py``) and wire its outputs GP2..GP9
to the button inputs under test, each through 1 kΩ (docs/hardware-test-plan.md):
channel 0 (GP2) to seat 1, channel 1 (GP3) to seat 2, and so on. Then
``svoyak selftest --generator /dev/serial/by-id/…`` presses the buttons
with it.

**Why a PIO program.** The self-test must compare the order the system under
test recognises with an order that is known independently of it. Two Python
writes on the Pi cannot be 2 µs apart; this state machine's can, to the
cycle: each word the host sends is one *step*, the 8 output levels and how
long to hold them, and the state machine sets all 8 pins with one
instruction, so edges on different channels are exactly as far apart as
commanded (a multiple of the state machine's 40 ns step), whatever
MicroPython, USB or the garbage collector do meanwhile.

Protocol (text lines over USB CDC, so a technician can try it from a serial
terminal; docs/wire-protocol.md, *The pulse generator*):

    HELLO                   -> SVOYAK-GEN <version> channels=8 first_pin=2 clock_hz=<f>
    RUN <LL>:<ns> ...       -> OK <steps> <ticks_us of the first step>
                               (LL: the 8 levels in hex, bit 0 = GP2; ns: how long
                               the step holds; the last step's levels stay)
    anything else           -> ERR <why>

The generator boots with every output high (a released active-low button).
A RUN waits for the previous one's steps to be over before it starts.
"""

import select
import sys
import time

import machine
import rp2
from machine import Pin

VERSION = 1
FIRST_PIN = 2
CHANNELS = 8
#: The joined TX FIFO's depth: a RUN's steps are all queued before it starts,
#: so no step ever waits for MicroPython to hand over the next one.
MAX_STEPS = 8
#: Cycles each step costs besides its hold loop (out pins, out x, the last jmp, pull).
STEP_OVERHEAD_CYCLES = 4
MAX_HOLD = (1 << 24) - 1
#: The state machine's clock: 25 MHz, a step every 40 ns, 25 times finer than the
#: 1 µs the self-test's closest pair needs. (At the full 125 MHz the chip model,
#: which steps a running state machine cycle by cycle, cannot keep its pace.)
STEP_CLOCK_HZ = 25_000_000
#: PIO0's FDEBUG register; TXSTALL of state machine 0 (write 1 to clear): set
#: when the machine waits at its ``pull`` with an empty FIFO, i.e. its steps are
#: over. Stopping it any earlier would cut a step and leave words behind.
PIO0_FDEBUG = 0x50200008
TXSTALL_SM0 = 1 << 24
#: A RUN waits at most this long past its predecessor's end for it to be over.
DONE_SLACK_US = 100_000
#: A command line longer than this is cut (a RUN of 8 steps is about 120 bytes).
MAX_LINE = 256


@rp2.asm_pio(
    out_init=(rp2.PIO.OUT_HIGH,) * CHANNELS,
    out_shiftdir=rp2.PIO.SHIFT_RIGHT,
    fifo_join=rp2.PIO.JOIN_TX,
)
def steps():
    # One word per step: bits 0-7 the levels, bits 8-31 the hold count N.
    # From one `out(pins)` to the next: out x, N + 1 jmps, pull: N + 4 cycles.
    pull(block)
    out(pins, 8)
    out(x, 24)
    label("hold")
    jmp(x_dec, "hold")


def _cycles_of(ns, clock_hz):
    return (ns * clock_hz + 500_000_000) // 1_000_000_000


class Generator:
    def __init__(self):
        self.clock_hz = STEP_CLOCK_HZ
        self.sm = rp2.StateMachine(0, steps, freq=self.clock_hz, out_base=Pin(FIRST_PIN))
        self.busy_until = time.ticks_us()
        self.running = False

    def hello(self):
        return (
            f"SVOYAK-GEN {VERSION} channels={CHANNELS} first_pin={FIRST_PIN} "
            f"clock_hz={self.clock_hz}"
        )

    def words(self, fields):
        if not fields:
            raise ValueError("RUN needs at least one step LL:ns")
        if len(fields) > MAX_STEPS:
            raise ValueError(f"at most {MAX_STEPS} steps in one RUN")
        words = []
        total_ns = 0
        for field in fields:
            head, _, tail = field.partition(":")
            try:
                levels = int(head, 16)
                ns = int(tail)
            except ValueError:
                raise ValueError(f"bad step {field} (LL:ns, e.g. FE:2000)") from None
            if not 0 <= levels <= 0xFF or ns < 0:
                raise ValueError(f"bad step {field}")
            hold = _cycles_of(ns, self.clock_hz) - STEP_OVERHEAD_CYCLES
            if hold < 0:
                hold = 0
            if hold > MAX_HOLD:
                longest = (MAX_HOLD + STEP_OVERHEAD_CYCLES) * 1_000_000_000 // self.clock_hz
                raise ValueError(f"a step holds at most {longest} ns")
            words.append(levels | hold << 8)
            total_ns += ns
        return words, total_ns

    def done(self):
        """The last RUN's steps are over: the machine waits at ``pull``, its FIFO empty."""
        return self.sm.tx_fifo() == 0 and machine.mem32[PIO0_FDEBUG] & TXSTALL_SM0

    def run(self, fields):
        words, total_ns = self.words(fields)
        if self.running:
            give_up = time.ticks_add(self.busy_until, DONE_SLACK_US)
            while not self.done():
                if time.ticks_diff(time.ticks_us(), give_up) > 0:
                    raise ValueError("the previous RUN never ended (the state machine is stuck)")
        sm = self.sm
        sm.active(0)
        for word in words:
            sm.put(word)
        machine.mem32[PIO0_FDEBUG] = TXSTALL_SM0
        sm.active(1)
        start = time.ticks_us()
        self.running = True
        self.busy_until = time.ticks_add(start, total_ns // 1000 + 1)
        return f"OK {len(words)} {start}"

    def idle(self):
        """Stop the state machine once its steps are over: the pins keep their levels,
        and a stopped machine costs nothing (the chip model steps a running one
        cycle by cycle)."""
        if self.running and self.done():
            self.sm.active(0)
            self.running = False

    def handle(self, line):
        parts = line.split()
        if not parts:
            return None
        if parts[0] == "HELLO":
            return self.hello()
        if parts[0] == "RUN":
            try:
                return self.run(parts[1:])
            except ValueError as exc:
                return f"ERR {exc}"
        return f"ERR unknown command {parts[0]} (HELLO, RUN)"


def main():
    generator = Generator()
    sys.stdout.write(generator.hello() + "\n")
    # Polled, never a blocking readline: the chip sleeps in a blocking read
    # (WFE), and a line is gathered byte by byte as it comes.
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    line = bytearray()
    while True:
        generator.idle()
        if not poller.poll(1):
            continue
        byte = sys.stdin.buffer.read(1)
        if not byte or byte == b"\r":
            continue
        if byte != b"\n":
            if len(line) < MAX_LINE:
                line += byte
            continue
        try:
            reply = generator.handle(line.decode().strip())
        except Exception as exc:  # a bad line must never leave the generator dead
            reply = f"ERR {exc!r}"
        line = bytearray()
        if reply is not None:
            sys.stdout.write(reply + "\n")


main()
