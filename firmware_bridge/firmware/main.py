# mypy: ignore-errors
"""svoyak buzzer firmware for a Raspberry Pi Pico (RP2040) under MicroPython.

Copy this file and ``logic.py`` to the Pico's file system (e.g. with
``mpremote cp firmware_bridge/firmware/logic.py firmware_bridge/firmware/main.py :``);
it runs at power-up. The wire protocol is in docs/wire-protocol.md.

Only hardware glue lives here; the logic (framing, CRC, the edge ring, the
event numbering and resend, lamps, test pulses) is in ``logic.py``, which the
host's tests run under CPython and under MicroPython. mypy skips this file:
``machine`` and ``micropython`` exist only on the device.

- Each button pin is an input with the internal pull-up (a button shorts it
  to ground: active low) and a *hard* IRQ on both edges. The handler reads
  ``time.ticks_us()`` first, then hands button and tick to
  ``EdgeRing.put`` (preallocated arrays; no allocation, as a hard IRQ
  requires).
- The main loop never sleeps: it reads what the host sent (``select.poll`` on
  stdin, so a read never blocks) and answers, then ``Device.service`` reads
  the tick, drains the ring into PRESS/RELEASE frames and sends a HEARTBEAT
  (at least every millisecond while the host is there) that promises the
  host nothing stamped at or before its tick is still to come; the frames go
  to USB CDC (``sys.stdout.buffer``), which ignores the baud rate, so 1 kHz
  of 24-byte heartbeats is a small part of a full-speed link.
- ``micropython.kbd_intr(-1)``: a 0x03 byte inside a frame must not raise
  KeyboardInterrupt. To get the REPL back, hold button 1 while plugging in.
"""

import select
import sys
import time

import logic
import machine
import micropython
from machine import Pin

# The pin map (GPIO numbers). Buttons GP2..GP9, lamps GP10..GP17: adjust to the wiring.
BUTTON_PINS = (2, 3, 4, 5, 6, 7, 8, 9)
LAMP_PINS = (10, 11, 12, 13, 14, 15, 16, 17)
#: A contact's bounce is a few ms; the first edge counts, the next ones of that
#: button within this are ignored.
HOLDOFF_US = 10_000
RING_SIZE = 64
#: The longest gap between two heartbeats while the host listens (its watermark's
#: step), and how long one main-loop round may take without stretching it: a
#: heartbeat goes out once HEARTBEAT_US - HEARTBEAT_SLACK_US have passed.
HEARTBEAT_US = 1_000
HEARTBEAT_SLACK_US = 250


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


def host_waiting(poller):
    """True if the host sent a byte; ``ipoll`` allocates nothing (``poll`` returns a
    new list every call: garbage on every round of a loop that never sleeps)."""
    for _ in poller.ipoll(0):
        return True
    return False


def main():
    micropython.alloc_emergency_exception_buf(128)
    buttons = [Pin(n, Pin.IN, Pin.PULL_UP) for n in BUTTON_PINS]
    time.sleep_ms(5)
    if buttons[0].value() == 0:
        return  # button 1 held at power-up: stay at the REPL
    lamps = [Pin(n, Pin.OUT, value=0) for n in LAMP_PINS]
    ring = logic.EdgeRing(len(buttons), RING_SIZE, HOLDOFF_US, time.ticks_diff)
    ticks_us = time.ticks_us

    def make_handler(index):
        def handler(pin):
            ring.put(index, ticks_us())

        return handler

    def on_lamp(index, level):
        lamps[index].value(level)

    def on_pulse(index, active):
        # The test pulse drives the input low from inside (as the button would):
        # an active-low button only ever shorts to ground, so driving low is safe.
        # The pin's input path and IRQ stay as they are, so the pulse's edges are
        # stamped by the same hard IRQ as a real press.
        if active:
            buttons[index].init(Pin.OUT, value=0)
        else:
            buttons[index].init(Pin.IN, Pin.PULL_UP)

    device = logic.Device(
        len(buttons),
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
    )
    for index, pin in enumerate(buttons):
        pin.irq(make_handler(index), Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)

    micropython.kbd_intr(-1)
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    levels = bytearray(len(buttons))
    count = len(buttons)
    device.hello(ticks_us())
    while True:
        for index in range(count):  # (no enumerate: no garbage per round)
            # A pin driven by a test pulse reads low: it is pressed on purpose.
            levels[index] = 1 - buttons[index].value()
        state = machine.disable_irq()
        # The tick is read with IRQs off: a reconciled edge is then stamped after
        # every edge already in the ring and before any still to come, so the
        # ring's stamps never go backwards (the host's watermark relies on it).
        ring.housekeep(ticks_us(), levels)
        machine.enable_irq(state)
        while host_waiting(poller):
            device.feed(stdin.read(1), ticks_us())
        # Reads the tick, then drains the ring, then may send the heartbeat: in
        # that order, or an edge caught in between would come after a heartbeat
        # that said nothing so old was still to come.
        device.service(ring, ticks_us)
        device.write_output(stdout.write)


main()
