# mypy: ignore-errors
"""svoyak buzzer firmware for a Raspberry Pi Pico (RP2040) under MicroPython.

Copy this file and ``logic.py`` compiled to machine code (``logic.mpy``) to
the Pico's file system (docs/wire-protocol.md, *Install*); it runs at
power-up. The wire protocol is in docs/wire-protocol.md.

Only hardware glue lives here; the logic (framing, CRC, the edge ring, the
event numbering and resend, lamps, test pulses, the capture words) is in
``logic.py``, which the host's tests run under CPython and under MicroPython.
mypy skips this file: ``machine``, ``rp2`` and ``micropython`` exist only on
the device. The chip model (``firmware_bridge/chip``) runs this very file on
real MicroPython in an emulated RP2040.

**Stamps that never favour a pin.** One PIO state machine samples all button
inputs at once, every 1 µs exactly, against its own free-running counter
(:func:`capture`). On any change it pushes one word: the counter's low 22
bits and the 8 levels. So two presses in the same microsecond get the same
stamp (a tie, settled on the host by the journaled draw) and presses 2 µs or
more apart keep their true order, whatever their pin numbers, whatever the
CPU is doing: interrupts off, a garbage collection, a USB write that waits
for the host. The counter runs from the system clock, the timer from the
same crystal, so the stamp ``base + loops`` is ``time.ticks_us()`` at the
sample (``base`` is measured when the machine starts). A hard IRQ raised by
the PIO program moves the words from the 4-word FIFO into the edge ring
(``logic.EdgeRing.sample``); the main loop drains it too, with IRQs off,
right after reading the tick its heartbeat reports (see ``now_and_drain``).

**Surviving the night.** A watchdog resets the chip if the main loop stops
for ``WATCHDOG_MS``; an exception in a round is counted and the loop goes on
(``MAX_FAULTS`` in a row reset the chip: the host sees a new boot id and
resends nothing it had not acknowledged); the collector, 5-10 ms a run,
runs at a quiet moment rather than when the heap happens to fill.

- ``micropython.kbd_intr(-1)``: a 0x03 byte inside a frame must not raise
  KeyboardInterrupt. To get the REPL back, hold the Pico's BOOTSEL button
  for 2 s while the firmware runs (:class:`BootselWatch`): it stops and the
  REPL answers. (Held while plugging in, BOOTSEL starts the boot ROM's USB
  drive instead, for a new MicroPython: ``svoyak pico install`` uses that.)

**The right chip, the right files.** The register addresses below are the
RP2040's. On a Pico 2 (RP2350) the firmware captures nothing and answers
every HOST_HELLO with a HELLO flagged ``HELLO_UNSUPPORTED_CHIP``, so the
host can say so in words. The HELLO carries the hash of the files the
Pico runs (:func:`firmware_identity`), which the host compares with the
release it ships, and the buttons found held at power-up (a stuck cable),
which the host reports as a fault.
"""

import gc
import hashlib
import os
import select
import sys
import time

import logic
import machine
import micropython
import rp2
from machine import Pin

# The pin map lives in logic.py (the chip model drives the same pins): buttons
# GP2..GP9 must be consecutive (one PIO `in` reads them all), lamps GP10..GP17.
BUTTON_PINS = logic.BUTTON_PINS
LAMP_PINS = logic.LAMP_PINS
#: A contact's bounce is a few ms; the first edge counts, the next ones of that
#: button within this are ignored.
HOLDOFF_US = 10_000
#: The glitch check: a change is a press (or a release) only if the line still
#: holds its new level this long after its first edge, which keeps its stamp
#: (logic.EdgeRing). A spike coupled into a long button cable (a lamp's MOSFET
#: switching beside it) lasts microseconds; a press, tens of milliseconds.
#: The Pi's GPIO path uses the same 1 ms (glitch_ms in the pin map).
GLITCH_US = 1_000
RING_SIZE = 64
#: The longest gap between two heartbeats while the host listens (its watermark's
#: step), and how long one main-loop round may take without stretching it: a
#: heartbeat goes out once HEARTBEAT_US - HEARTBEAT_SLACK_US have passed.
HEARTBEAT_US = 1_000
HEARTBEAT_SLACK_US = 250
#: The PIO capture loop: CAPTURE_CYCLES instructions' worth of cycles per
#: sample at CAPTURE_CYCLES MHz, i.e. exactly one sample per microsecond.
CAPTURE_CYCLES = 25
#: Host frames read per main-loop round (16 bytes at most each): a flood must
#: not hold the heartbeat (or the watchdog) off.
MAX_FRAMES_PER_ROUND = 4
#: BOOTSEL held this long while the firmware runs stops it and opens the REPL;
#: the button is looked at every BOOTSEL_POLL_MS.
BOOTSEL_HOLD_MS = 2_000
BOOTSEL_POLL_MS = 50
#: WATCHDOG CTRL (RP2040 datasheet 4.7.6: WATCHDOG_BASE 0x40058000, offset 0;
#: bit 30 ENABLE) through its atomic clear alias (+0x3000, 2.1.2).
WATCHDOG_CTRL_CLEAR = 0x40058000 + 0x3000
WATCHDOG_ENABLE = 1 << 30
#: How long a frame's next bytes may keep the main loop waiting once its first
#: byte was read (they come in the same USB packet): a torn frame is then left
#: to the streaming reader, never waited for until the watchdog bites.
FRAME_REST_MS = 2
#: The main loop must come round within this, or the watchdog resets the chip.
WATCHDOG_MS = 2_000
#: Exceptions in consecutive rounds before the firmware gives up and resets.
MAX_FAULTS = 50
#: A collection takes ~10 ms on the RP2040 whatever the garbage (it sweeps
#: the whole heap: bench/chip_firmware.py), so it runs only when needed and at
#: a quiet moment. Idle rounds allocate nothing (the heartbeat is built in
#: place); events do (their frames), so it runs once GC_EVENTS events went out
#: since the last one and none awaits its ACK. The automatic collection (after
#: GC_SAFETY_BYTES allocated) is the safety net. The stamps never wait for a
#: collection (the PIO stamps, a hard IRQ files), only the frames do, by at
#: most one collection. (Not ``gc.mem_free()``: it scans the heap, ~10 ms.)
GC_EVENTS = 64
GC_SAFETY_BYTES = 64_000


#: SYSINFO's CHIP_ID (RP2040 datasheet 2.20.2: SYSINFO_BASE 0x40000000,
#: offset 0; bits 27:12 PART, 0x0002 on the RP2040). The RP2350 has SYSINFO
#: at the same address with another PART (RP2350 datasheet, SYSINFO).
SYSINFO_CHIP_ID = 0x40000000
RP2040_PART = 0x0002
#: How long after enabling the pull-ups the buttons' levels are read for the
#: "held at power-up" check (a 10 m cable's 1 nF charges through 50 kOhm in
#: well under a millisecond).
SETTLE_MS = 5


@rp2.asm_pio(in_shiftdir=rp2.PIO.SHIFT_LEFT, fifo_join=rp2.PIO.JOIN_RX)
def capture():
    # X: the last sample; Y: a down-counter, one step per loop; OSR: Y's copy.
    # Both paths take 25 cycles and sample the pins on the 3rd, so the samples
    # are exactly one loop apart and the counter counts them.
    wrap_target()
    label("loop")
    mov(osr, y)
    mov(isr, null)
    in_(pins, 8)
    mov(y, isr)
    jmp(x_not_y, "changed")
    mov(y, osr)
    jmp(y_dec, "loop")[18]
    wrap()
    label("changed")
    mov(x, y)
    mov(isr, null)
    in_(osr, 22)
    in_(x, 8)
    push(noblock)
    irq(rel(0))
    mov(y, osr)
    jmp(y_dec, "loop")[12]
    jmp("loop")  # Y passed 0: once every 2**32 loops, a cycle late


@micropython.viper
def seal_frame(raw, wire, table):
    """CRC-16/CCITT-FALSE and COBS of a short frame, in machine code.

    The same bytes as ``logic.HeartbeatFrame.build``'s Python loops (which a
    test holds it against), about a hundred times faster: those loops took
    ~2 ms per heartbeat on the RP2040, longer than the heartbeat's period.
    ``raw`` holds the frame with two bytes left for the CRC; ``wire`` gets
    COBS(raw) and the delimiter (a frame this short has no 254-byte block).
    """
    src = ptr8(raw)
    dst = ptr8(wire)
    crc_table = ptr16(table)
    n = int(len(raw))  # noqa: RUF046 (viper: the cast makes it a machine int)
    end = n - 2
    crc = 0xFFFF
    i = 0
    while i < end:
        crc = ((crc << 8) & 0xFF00) ^ crc_table[((crc >> 8) ^ src[i]) & 0xFF]
        i += 1
    src[end] = crc >> 8
    src[end + 1] = crc & 0xFF
    code_at = 0
    code = 1
    j = 1
    i = 0
    while i < n:
        byte = src[i]
        if byte == 0:
            dst[code_at] = code
            code_at = j
            code = 1
        else:
            dst[j] = byte
            code += 1
        j += 1
        i += 1
    dst[code_at] = code
    dst[j] = 0


@micropython.viper
def crc_fast(data, n: int, table) -> int:
    """logic.crc16 in machine code (CRC-16/CCITT-FALSE from its table)."""
    src = ptr8(data)
    crc_table = ptr16(table)
    crc = 0xFFFF
    i = 0
    while i < n:
        crc = ((crc << 8) & 0xFF00) ^ crc_table[((crc >> 8) ^ src[i]) & 0xFF]
        i += 1
    return crc


@micropython.viper
def cobs_fast(data, n: int, out) -> int:
    """logic.cobs_encode into ``out`` in machine code; returns the length written."""
    src = ptr8(data)
    dst = ptr8(out)
    code_at = 0
    code = 1
    j = 1
    i = 0
    while i < n:
        byte = src[i]
        if byte == 0:
            dst[code_at] = code
            code_at = j
            j += 1
            code = 1
        else:
            dst[j] = byte
            j += 1
            code += 1
            if code == 0xFF:
                dst[code_at] = code
                code_at = j
                j += 1
                code = 1
        i += 1
    dst[code_at] = code
    return j


@micropython.viper
def uncobs_fast(data, n: int, out) -> int:
    """logic.cobs_decode of ``data[:n]`` into ``out`` in machine code; returns the
    length decoded, or -1 if the chunk is malformed (as logic.cobs_decode's None)."""
    src = ptr8(data)
    dst = ptr8(out)
    i = 0
    j = 0
    while i < n:
        code = src[i]
        if code == 0 or i + code > n:
            return -1
        k = i + 1
        end = i + code
        while k < end:
            byte = src[k]
            if byte == 0:
                return -1
            dst[j] = byte
            j += 1
            k += 1
        i = end
        if code != 0xFF and i < n:
            dst[j] = 0
            j += 1
    return j


@micropython.viper
def start_and_read_tick() -> int:
    """Start PIO0's state machine 0, then read ``ticks_us``: loop 0's tick.

    Two register accesses a few instructions apart (``sm.active(1)`` and a
    ``time.ticks_us()`` call are tens of µs apart on a slow CPU, and the
    gap would be an offset of every stamp). Read after the start, never
    before: a stamp may be late by those few instructions, never early, and
    an early one could fall behind a heartbeat already sent
    (``logic.CAPTURE_LAG_US``). ``ticks_us`` is the timer's low bits.
    """
    ctrl_set = ptr32(0x50202000)  # PIO0 CTRL, atomic bit-set alias: SM_ENABLE bit 0
    timer = ptr32(0x40054028)  # TIMER TIMERAWL
    ctrl_set[0] = 1
    tick = timer[0]
    return tick & 0x3FFFFFFF


@micropython.viper
def fifo_overflowed() -> int:
    """1 if the capture machine had to drop a word (its RX FIFO was full), and clear it.

    PIO0's FDEBUG.RXSTALL for state machine 0 is set by a non-blocking push
    to a full FIFO, which drops the word: a change of some button's level
    that never reached the ring. It must be counted, never silent.
    """
    fdebug = ptr32(0x50200008)  # PIO0 FDEBUG; RXSTALL of SM0 is bit 0, write 1 to clear
    if fdebug[0] & 1:
        fdebug[0] = 1
        return 1
    return 0


@micropython.viper
def pin_levels(first_pin: int, mask: int) -> int:
    """The button inputs' levels now (bit i: button i's pin high), from SIO GPIO_IN.

    One register read, no allocation (GPIO_IN has 30 bits: a small int), so the
    hard IRQ may call it.
    """
    gpio_in = ptr32(0xD0000004)  # SIO GPIO_IN
    return (gpio_in[0] >> first_pin) & mask


def on_rp2040():
    """True on an RP2040 (a Pico), False on anything else (a Pico 2's RP2350).

    Two independent witnesses, either one enough to refuse: the chip's own
    CHIP_ID register, and the MicroPython build's name for its machine.
    """
    try:
        part = (machine.mem32[SYSINFO_CHIP_ID] >> 12) & 0xFFFF
        named = os.uname().machine
    except Exception:
        return False
    return part == RP2040_PART and "RP2350" not in named


def firmware_identity():
    """The first 8 bytes of SHA-256 over main.py then logic.mpy, as they are on
    the file system (firmware_bridge/shipped.py computes the same on the host)."""
    digest = hashlib.sha256()
    chunk = bytearray(512)
    for name in ("main.py", "logic.mpy"):
        try:
            with open(name, "rb") as f:
                while True:
                    n = f.readinto(chunk)
                    if not n:
                        break
                    digest.update(memoryview(chunk)[:n])
        except OSError:
            pass  # missing: the identity cannot be the shipped one
    return digest.digest()[:8]


def board_id():
    try:
        return machine.unique_id()
    except Exception:
        return b"\x00" * 8


def boot_id():
    try:
        import os

        return int.from_bytes(os.urandom(4), "little")
    except Exception:
        return time.ticks_us() ^ 0x5A5A5A5A


def host_waiting(poller, timeout_ms=0):
    """True if the host sent a byte (within ``timeout_ms``); ``ipoll`` allocates
    nothing (``poll`` returns a new list every call: garbage on every round of a
    loop that never sleeps)."""
    for _ in poller.ipoll(timeout_ms):
        return True
    return False


def start_capture(first_pin, count):
    """Start the capture state machine; returns it and the tick of its loop 0.

    X starts as "all released", so a button already held at power-up is
    reported by the very first sample. The start tick is read a few
    instructions after the start (:func:`start_and_read_tick`).
    """
    sm = rp2.StateMachine(0, capture, freq=CAPTURE_CYCLES * 1_000_000, in_base=Pin(first_pin))
    # X = ``count`` ones, built inside the machine by executed instructions.
    # Never ``sm.put``: ``capture`` joins the FIFOs for RX, which disables the
    # TX FIFO ("always reads as both full and empty", RP2040 datasheet 3.7,
    # SMx_SHIFTCTRL.FJOIN_RX), and MicroPython's put() waits while it is full:
    # it would never return. ``in`` shifts the source's ``count`` low bits
    # into the ISR (3.4.4); MOV to the ISR empties it and its counter (3.4.8).
    sm.exec("mov(isr, null)")
    sm.exec("mov(x, invert(null))")
    sm.exec(f"in_(x, {count})")
    sm.exec("mov(x, isr)")
    sm.exec("mov(isr, null)")
    sm.exec("set(y, 0)")
    return sm, start_and_read_tick()


class Capture:
    """Moves the PIO's words into the edge ring: from its hard IRQ, and from the main loop.

    A class, not closures: MicroPython allocates on the heap to call a closure
    over more than a few variables, and a hard IRQ may not allocate (the
    first such call raised MemoryError and disabled the handler for good).
    Attribute reads and a bound method allocate nothing.
    """

    def __init__(self, sm, base, ring, mask, first_pin):
        self.rx_level = sm.rx_fifo
        self.take_word = sm.get
        self.base = base
        self.ring = ring
        self.sample = ring.sample
        self.mask = mask
        self.first_pin = first_pin
        self.levels = pin_levels
        self.stamp = logic.capture_stamp
        self.ticks_us = time.ticks_us
        self.disable_irq = machine.disable_irq
        self.enable_irq = machine.enable_irq

    def drain(self, _sm=None):
        # Hard IRQ (and the main loop, IRQs off): no allocation here. The
        # sample's bits are levels (1 = high = released); the ring wants pressed.
        now = self.ticks_us()
        while self.rx_level():
            word = self.take_word()
            self.sample(~word & self.mask, self.stamp(word, now, self.base))
        if fifo_overflowed():
            self.ring.lost()
            # The dropped word was a change, and the PIO pushes changes only: the
            # ring would keep a stale level until the pins change again, and a
            # glitch check would read it (a bounce's last press lost = no press).
            # Resynchronise from the pins themselves, stamped now.
            levels = self.levels(self.first_pin, self.mask)
            self.ring.resync(~levels & self.mask, self.ticks_us())

    def now_and_drain(self):
        # The tick the heartbeat will report, then every word sampled before it:
        # the heartbeat's promise ("nothing stamped earlier is still to come")
        # holds even when the PIO's IRQ has not run yet.
        state = self.disable_irq()
        now = self.ticks_us()
        self.drain()
        self.ring.housekeep(now)
        self.enable_irq(state)
        return now


def refuse_chip(count, lamp_count, identity, held):
    """The loop on a chip this firmware has no register map for: answer every
    HOST_HELLO (and PING) with the flagged HELLO, capture nothing, drive nothing."""
    device = logic.Device(
        count,
        lamp_count,
        board_id(),
        boot_id(),
        logic.TICKS_BITS,
        diff=time.ticks_diff,
        add=time.ticks_add,
        firmware_id=identity,
        held_at_boot=held,
        hello_flags=logic.HELLO_UNSUPPORTED_CHIP,
    )
    micropython.kbd_intr(-1)
    reader = logic.HostInput(sys.stdin.buffer.readinto, device)
    stdout = sys.stdout.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    device.hello(time.ticks_us())
    while True:
        if poller.poll(100):
            reader.read(time.ticks_us)
        device.write_output(stdout.write, time.ticks_us)


class BootselWatch:
    """BOOTSEL held for ``BOOTSEL_HOLD_MS`` while the firmware runs: the way to the REPL.

    The boot ROM reads BOOTSEL at power-up and, held then, starts the USB
    drive instead of MicroPython (RP2040 datasheet 2.8), so "held at
    power-up" cannot reach main.py. Read every ``BOOTSEL_POLL_MS``:
    ``rp2.bootsel_button()`` turns interrupts off for a few µs while it
    reads the flash's chip select (the PIO stamps meanwhile; its FIFO holds
    the words).
    """

    def __init__(self, now):
        self.next_look = now
        self.since = None

    def held_long(self, now):
        if time.ticks_diff(now, self.next_look) < 0:
            return False
        self.next_look = time.ticks_add(now, BOOTSEL_POLL_MS * 1000)
        if not rp2.bootsel_button():
            self.since = None
            return False
        if self.since is None:
            self.since = now
        return time.ticks_diff(now, self.since) >= BOOTSEL_HOLD_MS * 1000


def stop_for_repl(sm, lamps):
    """Stop the firmware and leave the REPL to the technician: the capture and its
    IRQ off, the lamps dark, Ctrl-C back, and the watchdog paused, or it would
    reset the REPL (MicroPython cannot stop it; its CTRL.ENABLE can: RP2040
    datasheet 4.7.6, "When not enabled the watchdog timer is paused")."""
    sm.irq(None)
    sm.active(0)
    for lamp in lamps:
        lamp.value(0)
    machine.mem32[WATCHDOG_CTRL_CLEAR] = WATCHDOG_ENABLE
    micropython.kbd_intr(3)
    sys.stdout.write("\r\nsvoyak firmware stopped (BOOTSEL held): this is MicroPython's REPL\r\n")


def main():
    micropython.alloc_emergency_exception_buf(128)
    if rp2.bootsel_button():
        # BOOTSEL pressed just after the boot ROM looked (held at power-up, the
        # ROM starts the USB drive instead): stay at the REPL.
        return
    buttons = [Pin(n, Pin.IN, Pin.PULL_UP) for n in BUTTON_PINS]
    time.sleep_ms(SETTLE_MS)
    count = len(buttons)
    # A button low now was held at power-up: a stuck button or a shorted cable.
    # It is still reported as a press by the capture's first sample; the HELLO
    # tells the host it was there from the start, a fault the host shows.
    held = 0
    for i in range(count):
        if buttons[i].value() == 0:
            held |= 1 << i
    identity = firmware_identity()
    if not on_rp2040():
        refuse_chip(count, len(LAMP_PINS), identity, held)
        return
    lamps = [Pin(n, Pin.OUT, value=0) for n in LAMP_PINS]
    mask = (1 << count) - 1
    ring = logic.EdgeRing(count, RING_SIZE, HOLDOFF_US, time.ticks_diff, GLITCH_US)
    ticks_us = time.ticks_us
    sm, base = start_capture(BUTTON_PINS[0], count)
    capture = Capture(sm, base, ring, mask, BUTTON_PINS[0])
    sm.irq(capture.drain, hard=True)
    now_and_drain = capture.now_and_drain

    def on_lamp(index, level):
        lamps[index].value(level)

    def on_pulse(index, active):
        # The test pulse drives the input low from inside (as the button would):
        # an active-low button only ever shorts to ground, so driving low is safe.
        # The PIO samples the pad, so the pulse's edges are stamped as a press's.
        if active:
            buttons[index].init(Pin.OUT, value=0)
        else:
            buttons[index].init(Pin.IN, Pin.PULL_UP)

    device = logic.Device(
        count,
        len(lamps),
        board_id(),
        boot_id(),
        logic.TICKS_BITS,
        heartbeat_us=HEARTBEAT_US,
        heartbeat_slack_us=HEARTBEAT_SLACK_US,
        on_lamp=on_lamp,
        on_pulse=on_pulse,
        diff=time.ticks_diff,
        add=time.ticks_add,
        firmware_id=identity,
        held_at_boot=held,
    )

    device.beat.seal = seal_frame
    logic.accelerate(crc_fast, cobs_fast, uncobs_fast)
    micropython.kbd_intr(-1)
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    host = logic.HostInput(
        sys.stdin.buffer.readinto, device, lambda: host_waiting(poller, FRAME_REST_MS)
    )
    stdout = sys.stdout.buffer
    wdt = machine.WDT(timeout=WATCHDOG_MS)
    gc.collect()
    gc.threshold(GC_SAFETY_BYTES)
    collected_at = device.next_event
    faults = 0
    device.hello(ticks_us())
    bootsel = BootselWatch(ticks_us())
    while True:
        wdt.feed()
        if bootsel.held_long(ticks_us()):
            stop_for_repl(sm, lamps)
            return
        try:
            # What the host sent, a bounded number of frames per round.
            for _ in range(MAX_FRAMES_PER_ROUND):
                if not host_waiting(poller):
                    break
                host.read(ticks_us)
            device.service(ring, now_and_drain)
            device.write_output(stdout.write, ticks_us)
            if not device.ev_count and device.next_event - collected_at >= GC_EVENTS:
                gc.collect()
                collected_at = device.next_event
            faults = 0
        except Exception:  # a bad round must not end the night
            faults += 1
            if faults >= MAX_FAULTS:
                machine.reset()


main()
