"""The firmware's start on the chip model with the FIFO joins the datasheet describes.

Issue 33: ``start_capture`` used to ``put`` the capture machine's initial
X into a TX FIFO that ``FJOIN_RX`` disables, and MicroPython's ``put``
waits forever on a FIFO that reads full; rp2040js did not model the join,
so every test passed while a real Pico never said HELLO. The harness now
joins the FIFOs as the datasheet says (tests/firmware_bridge/test_chip_fidelity.py
holds the model to it); these tests hold the firmware's start to that model:

- it boots and says HELLO, with the capture machine's RX FIFO 8 deep, and
  its HELLO's firmware identity, computed on the chip over its own files,
  is what the host computes over the same files (firmware_bridge/shipped.py):
  test_chip_fairness.py holds the firmware as shipped to both, on the chip
  its stamps are tested on (one boot of it serves both files' claims);
- BOOTSEL pressed as main.py starts, or held 2 s while it runs, leaves the
  REPL (not a seat-1 cable; held at power-up it is the boot ROM's);
- a button held at power-up is in the HELLO, and still a press;
- on the slowest CPU a paced chip may be given (``SLOWEST_CYCLE_NS``) it
  still boots, says HELLO and reports a press: a paced chip on a busy
  machine is slow, never silent;
- on a chip whose SYSINFO says another part (an RP2350) it captures
  nothing and says so in its HELLO, which the host turns into words.
"""

from __future__ import annotations

from firmware_bridge import protocol, shipped
from firmware_bridge.chip import ChipModel
from firmware_bridge.chip.model import SLOWEST_CYCLE_NS
from firmware_bridge.firmware import logic
from tests.support.chip_support import ChipHost

#: SYSINFO CHIP_ID with PART 0x0004, as an RP2350 answers it (its datasheet,
#: SYSINFO; the RP2040's is 0x10002927, PART 0x0002).
RP2350_CHIP_ID = 0x20004927


def _booted(chip: ChipModel) -> ChipHost:
    chip.start()
    return ChipHost(chip).start()


def test_bootsel_pressed_as_main_py_starts_stays_at_the_repl() -> None:
    chip = ChipModel(bootsel_held=True)
    try:
        chip.start()
        chip.write(b"\r\n")
        seen = chip.read_until(b">>> ", timeout=60.0)
        assert b">>> " in seen
        chip.write(b"print(6 * 7)\r\n")
        assert b"42" in chip.read_until(b"42", timeout=30.0)
    finally:
        chip.stop()


def test_a_button_held_at_power_up_is_in_the_hello_and_is_a_press() -> None:
    chip = ChipModel(held_pins=[logic.BUTTON_PINS[1]])
    try:
        host = _booted(chip)
        assert host.hellos[-1].held_at_boot == 0b10
        detail = shipped.held_at_boot_detail(host.hellos[-1])
        assert detail is not None and detail.startswith("button(s) 2 held")
        host.wait_for(lambda: bool(host.presses), 60.0, "the held button's PRESS")
        assert host.presses[0].button == 1
    finally:
        chip.stop()


def test_the_firmware_runs_on_the_slowest_cpu_a_paced_chip_may_have() -> None:
    """Beside two CPU hogs a paced chip once ran at 2.5 MHz and never said HELLO: its
    interrupts, due every emulated ms, took every cycle. At the slowest cycle the
    pacing now allows (fixed here, so the run does not depend on this machine's
    load) the firmware boots, says HELLO and stamps a press."""
    chip = ChipModel(cycle_ns=SLOWEST_CYCLE_NS)
    try:
        host = _booted(chip)
        assert host.hellos, "no HELLO"
        chip.press_after({2: 1_000})
        host.wait_for(lambda: bool(host.presses), 60.0, "the press on the slowest CPU")
        assert host.presses[0].button == 2
    finally:
        chip.stop()


def test_on_an_rp2350_the_firmware_refuses_and_the_host_says_why() -> None:
    chip = ChipModel(chip_id=RP2350_CHIP_ID)
    try:
        host = _booted(chip)
        hello = host.hellos[-1]
        assert hello.unsupported_chip
        why = shipped.hello_refusal(hello)
        assert why is not None and "Pico 2 / RP2350 is not supported by this firmware" in why
        # Nothing captured, nothing driven: a press brings no PRESS and no heartbeat.
        chip.press_after({0: 500}, hold_us=20_000)
        host.wait_emulated(chip.now_ns() + 50_000_000)
        assert host.presses == [] and host.heartbeats == []
        # And it still answers a HOST_HELLO with the flagged HELLO.
        before = len(host.hellos)
        host.send(protocol.HostHello())
        host.wait_for(lambda: len(host.hellos) > before, 30.0, "a second HELLO")
        assert host.hellos[-1].unsupported_chip
    finally:
        chip.stop()


def test_bootsel_held_while_the_firmware_runs_opens_the_repl_and_stops_the_watchdog() -> None:
    """BOOTSEL held at power-up starts the boot ROM's USB drive, never main.py
    (RP2040 datasheet 2.8), so the way to the REPL is BOOTSEL held while the
    firmware runs: it stops, Ctrl-C works again, and the watchdog (300 ms
    here) no longer resets the chip under the technician's REPL. The REPL is
    watched for 400 ms of the chip's time from the prompt: the loop's last
    feed came before the prompt, so a watchdog still armed would have reset
    the chip within it (one period and a margin; more prove nothing new)."""
    from tests.firmware_bridge.test_chip_night import _with_faults

    files = _with_faults([], WATCHDOG_MS=300, BOOTSEL_HOLD_MS=200)
    chip = ChipModel(files=files)
    try:
        host = _booted(chip)
        assert host.hellos
        chip.bootsel(True)
        chip.read_until(b"this is MicroPython's REPL", timeout=120.0)
        chip.bootsel(False)
        chip.write(b"\r\n")
        chip.read_until(b">>> ", timeout=60.0)
        until = chip.now_ns() + 400_000_000
        while chip.now_ns() < until:
            chip.read(timeout=0.2)
        assert chip.resets == [], "the watchdog reset the REPL"
        chip.write(b"print(6 * 7)\r\n")
        assert b"42" in chip.read_until(b"42", timeout=30.0)
    finally:
        chip.stop()
