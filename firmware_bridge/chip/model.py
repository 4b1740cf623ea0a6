"""The Pico on a chip model: real MicroPython on an emulated RP2040, from Python.

:class:`ChipModel` starts ``harness.mjs`` under Node (the ``rp2040js``
emulator, installed from this folder's ``package-lock.json``), with the
MicroPython firmware and boot ROM carried in ``rp2040/`` and a littlefs
image holding the project's own ``main.py`` and ``logic.py`` (compiled to
machine code by mpy-cross, as a Pico is given it): the chip boots
as a Pico does and runs ``main.py`` at power-on. It then

- drives button pins at exact emulated times (:meth:`ChipModel.schedule`,
  :meth:`press_after`), keeping the true time of every edge it applied
  (:attr:`ChipModel.edge_log`): what a test compares the firmware's stamps with;
- carries the emulated USB CDC serial port: :meth:`write` sends bytes to the
  firmware, :meth:`read` returns what it wrote; :meth:`open_pty` bridges it
  to a pseudo-terminal, so ``svoyak run --serial <pty>`` talks to the
  emulated chip exactly as to ``/dev/ttyACM0``;
- with ``pace=True`` keeps the chip's time on the wall clock (a slower CPU
  rather than slower time: see harness.mjs), which a host that maps the
  chip's clock onto its own needs; with ``dilate=K`` runs the CPU at its
  full speed and the chip's time at K x the wall clock, for a host that
  reads :attr:`ChipModel.host_clock` (``dilation.py``); with neither, runs
  are deterministic.

Why a separate process: rp2040js is JavaScript, and the emulation must own
its run loop (exact emulated times); Python only exchanges JSON lines with it.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import errno
import json
import os
import queue
import select
import shutil
import subprocess
import tempfile
import threading
import time
import tty
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from buzzer.errors import SvoyakError
from firmware_bridge import shipped
from firmware_bridge.chip.dilation import DilatedClock, dilation_factor
from firmware_bridge.firmware import logic

HERE = Path(__file__).resolve().parent
FIRMWARE_DIR = HERE.parent / "firmware"
ASSETS = HERE / "rp2040"

#: littlefs geometry of MicroPython v1.28 RPI_PICO: the last 1408 KiB of the
#: 2 MiB flash, 4096-byte blocks, program size 256 (ports/rp2 of MicroPython).
FS_BLOCK_SIZE = 4096
FS_BLOCK_COUNT = 352
FS_PROG_SIZE = 256

#: The 2**30 µs period of ``time.ticks_us`` on the RP2040.
TICKS_PERIOD_US = 1 << logic.TICKS_BITS

#: The slowest CPU cycle (ns) a paced chip may run at: 10 MHz against the
#: RP2040's 125 MHz (8 ns). The model's interrupts come every emulated
#: millisecond whatever the CPU's speed, so a CPU slowed far enough spends
#: every cycle in them: measured with a fixed cycle (``cycle_ns``), MicroPython
#: and main.py reach their HELLO after 65 million cycles at 8, 40, 80, 100 and
#: 120 ns and never at 140 or 160 ns (``ChipModel(cycle_ns=...)``, 2026-12-05;
#: tests/firmware_bridge/test_chip_boot.py boots it at this cycle). A
#: paced chip the machine cannot run at this speed falls behind the wall clock
#: rather than stop being a Pico; its time reports show by how much.
SLOWEST_CYCLE_NS = 100


class ChipModelError(SvoyakError, RuntimeError):
    """The chip model cannot run here; the message says what to install or fix."""


@dataclass(frozen=True)
class AppliedEdge:
    """A level the harness drove on a pin, at its true emulated time."""

    pin: int
    level: int
    ns: int
    #: ``time.monotonic_ns()`` when the harness applied it (with ``pace=True``
    #: the chip's time follows the wall clock, so this is the edge's host time).
    wall_ns: int


def rp2040js_dir() -> Path:
    """Where ``node_modules/rp2040js`` is: beside the harness, or ``$SVOYAK_RP2040JS``."""
    override = os.environ.get("SVOYAK_RP2040JS")
    if override:
        return Path(override)
    return HERE


def check_available(node: str = "node") -> str:
    """The path of ``node`` if the chip model can run; else a ChipModelError saying why."""
    found = shutil.which(node)
    if found is None:
        raise ChipModelError(
            "the chip model needs Node.js 18 or newer (`node` is not on PATH): "
            "apt-get install nodejs npm"
        )
    where = rp2040js_dir()
    if not (where / "node_modules" / "rp2040js" / "package.json").is_file():
        raise ChipModelError(
            f"the chip model needs the rp2040js emulator: npm ci --prefix {where} "
            "(or set SVOYAK_RP2040JS to a folder holding node_modules/rp2040js)"
        )
    for asset in ("firmware.uf2", "bootrom-b1.bin"):
        if not (ASSETS / asset).is_file():
            raise ChipModelError(f"the chip model's {asset} is missing from {ASSETS}")
    return found


def firmware_files(native: bool = True) -> dict[str, bytes]:
    """The files the Pico holds (``firmware_bridge.shipped``, their one home);
    ChipModelError if they cannot be built here."""
    try:
        return shipped.firmware_files(native)
    except shipped.FirmwareBuildError as exc:
        raise ChipModelError(str(exc)) from exc


def littlefs_image(files: Mapping[str, bytes]) -> bytes:
    """A littlefs2 image of MicroPython's RPI_PICO file system holding ``files``.

    The emulator does not model flash erase/program, so the firmware cannot
    write its own file system: the image is made here and loaded into flash
    before boot, as ``mpremote cp`` would have left it.
    """
    try:
        from littlefs import LittleFS
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        raise ChipModelError(
            "the chip model needs littlefs-python to build the Pico's file system: "
            "pip install 'svoyak[chip]'"
        ) from exc
    fs = LittleFS(block_size=FS_BLOCK_SIZE, block_count=FS_BLOCK_COUNT, prog_size=FS_PROG_SIZE)
    for name, data in files.items():
        with fs.open(name, "wb") as fh:
            fh.write(data)
    return bytes(fs.context.buffer)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            proc.kill()


class ChipModel:
    """One emulated Pico running the project's firmware (see the module docstring).

    ``button_pins``/``lamp_pins`` are the GPIO numbers of the firmware's pin
    map (``logic.BUTTON_PINS``/``logic.LAMP_PINS`` by default). Button lines
    idle high (the pull-up; the emulator does not model pulls) and a press
    drives them low, as a button shorting to ground does.
    """

    def __init__(
        self,
        *,
        pace: bool = False,
        dilate: float | Fraction | None = None,
        drift_ppm: float = 0.0,
        start_us: int = 0,
        files: Mapping[str, bytes] | None = None,
        button_pins: Iterable[int] | None = None,
        lamp_pins: Iterable[int] | None = None,
        node: str = "node",
        boot_timeout: float = 60.0,
        bootsel_held: bool = False,
        chip_id: int | None = None,
        held_pins: Iterable[int] = (),
        cycle_ns: int | None = None,
    ) -> None:
        if pace and dilate is not None:
            raise ChipModelError("a chip model is paced or dilated, not both")
        if cycle_ns is not None and (pace or dilate is not None):
            raise ChipModelError("a chip model's CPU is fixed (cycle_ns), paced or dilated: one")
        #: A fixed CPU cycle in ns (None: 8 ns, 125 MHz, unless paced): a slower CPU
        #: whose runs stay deterministic, for what the firmware needs of its speed.
        self.cycle_ns = cycle_ns
        self.pace = pace
        #: The chip's time per wall-clock time when dilated (None: not dilated).
        self.dilation = None if dilate is None else dilation_factor(dilate)
        self.drift_ppm = drift_ppm
        self.start_us = start_us
        self.files = dict(files) if files is not None else firmware_files()
        self.button_pins = tuple(button_pins if button_pins is not None else logic.BUTTON_PINS)
        self.lamp_pins = tuple(lamp_pins if lamp_pins is not None else logic.LAMP_PINS)
        self.node = node
        self.boot_timeout = boot_timeout
        #: The BOOTSEL button held at power-up (the firmware then stays at the REPL).
        self.bootsel_held = bootsel_held
        #: SYSINFO CHIP_ID as the chip answers it (None: the RP2040's, 0x10002927);
        #: another part number plays a chip the firmware must refuse (an RP2350's).
        self.chip_id = chip_id
        #: Button pins held low from power-up (a stuck button): not driven idle high.
        self.held_pins = frozenset(held_pins)
        self.edge_log: list[AppliedEdge] = []
        #: (pin, state, ns, wall_ns) of every change of a watched output (the lamps)
        self.pin_log: list[tuple[int, int, int, int]] = []
        #: Called with (pin, state, ns) on each such change, from the reader thread:
        #: what wires a watched output to something outside the chip.
        self.on_pin: Callable[[int, int, int], None] | None = None
        self.resets: list[tuple[str, int]] = []
        #: (emulated ns, bytes) of each chunk the firmware wrote, as the harness relayed it
        self.cdc_log: list[tuple[int, int]] = []
        self.errors: list[str] = []
        #: (emulated ns, time.monotonic_ns()) every 10 ms of emulated time
        self.time_reports: list[tuple[int, int]] = []
        #: (time.monotonic_ns(), the CPU's cycle in ns) with each time report: a paced
        #: chip lengthens its cycle (8 ns: 125 MHz; SLOWEST_CYCLE_NS at most) when the
        #: machine leaves it less CPU. A test reads how starved the chip was.
        self.cycle_reports: list[tuple[int, float]] = []
        self.ready_ns: int | None = None
        #: Dilated: (emulated ns, monotonic ns) where the chip's line starts; from
        #: there its time is at most ``dilation`` x the wall time since.
        self.dilation_origin: tuple[int, int] | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._rx = bytearray()
        self._rx_cond = threading.Condition()
        self._replies: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._next_id = 1
        self._send_lock = threading.Lock()
        self._ready = threading.Event()
        self._reader: threading.Thread | None = None
        self._pty_master: int | None = None
        self._pty_slave: int | None = None
        self._pty_thread: threading.Thread | None = None
        self._pty_stop = threading.Event()

    # -- life -----------------------------------------------------------------

    def start(self) -> ChipModel:
        node = check_available(self.node)
        self._tmp = tempfile.TemporaryDirectory(prefix="svoyak-chip-")
        image = Path(self._tmp.name) / "fs.img"
        image.write_bytes(littlefs_image(self.files))
        cmd = [
            node,
            str(HERE / "harness.mjs"),
            "--firmware",
            str(ASSETS / "firmware.uf2"),
            "--bootrom",
            str(ASSETS / "bootrom-b1.bin"),
            "--fs",
            str(image),
            "--start-us",
            str(self.start_us),
            "--idle-high",
            ",".join(str(p) for p in self.button_pins if p not in self.held_pins),
            "--watch",
            ",".join(str(p) for p in self.lamp_pins),
        ]
        if self.bootsel_held:
            cmd.append("--bootsel-held")
        if self.chip_id is not None:
            cmd += ["--chip-id", str(self.chip_id)]
        if self.pace:
            cmd += ["--pace", "--drift-ppm", str(self.drift_ppm)]
            cmd += ["--max-cycle-ns", str(SLOWEST_CYCLE_NS)]
        elif self.dilation is not None:
            cmd += ["--dilate", repr(float(self.dilation)), "--drift-ppm", str(self.drift_ppm)]
        elif self.cycle_ns is not None:
            cmd += ["--cycle-ns", str(self.cycle_ns)]
        env = dict(os.environ)
        override = os.environ.get("SVOYAK_RP2040JS")
        if override:
            env["NODE_PATH"] = str(Path(override) / "node_modules")
        self._proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(rp2040js_dir()),
            env=env,
        )
        # A test that fails or a program that dies must not leave an emulator
        # running (it would take a CPU for good): killed at exit at the latest.
        weakref.finalize(self, _kill, self._proc)
        atexit.register(_kill, self._proc)
        self._reader = threading.Thread(target=self._read_events, name="chip-events", daemon=True)
        self._reader.start()
        if not self._ready.wait(self.boot_timeout):
            detail = "; ".join(self.errors) or self._stderr_tail()
            self.stop()
            raise ChipModelError(f"the emulated Pico did not enumerate on USB: {detail}")
        return self

    def wait_firmware(self, timeout: float = 60.0) -> None:
        """Block until ``main.py`` has said its boot HELLO (the bytes stay to be read).

        USB enumerates while MicroPython still boots; a byte from the host
        before ``main.py`` turns Ctrl-C off (0x03 is a common byte in a frame)
        would break into it and leave it at the REPL. A real Pico is plugged
        in before the host starts: this is the model's way of waiting for that.
        """
        from firmware_bridge import protocol

        deadline = time.monotonic() + timeout
        with self._rx_cond:
            while True:
                frames = protocol.FrameDecoder().feed(bytes(self._rx))
                if any(isinstance(f.message, protocol.Hello) for f in frames):
                    return
                left = deadline - time.monotonic()
                if left <= 0 or not self.running:
                    detail = "; ".join(self.errors) or f"it wrote {bytes(self._rx[-200:])!r}"
                    detail += self.progress()
                    raise ChipModelError(
                        f"the firmware on the emulated Pico did not say HELLO within "
                        f"{timeout:g} s ({detail})"
                    )
                self._rx_cond.wait(min(left, 0.5))

    def stop(self) -> None:
        self._pty_stop.set()
        if self._pty_thread is not None:
            self._pty_thread.join(2)
        for fd in (self._pty_master, self._pty_slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._pty_master = self._pty_slave = None
        proc = self._proc
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                self._send({"op": "quit"})
            try:
                proc.wait(3)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(3)
        if proc is not None:
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        if self._reader is not None:
            self._reader.join(2)
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> ChipModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def host_clock(self) -> DilatedClock:
        """The clock a host must read to see this dilated chip as a Pico (see dilation.py)."""
        if self.dilation is None:
            raise ChipModelError("only a dilated chip model (dilate=K) has a host clock of its own")
        return DilatedClock(self.dilation)

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    # -- the pipe to the harness ------------------------------------------------

    def _send(self, msg: dict[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise ChipModelError("the chip model is not running")
        line = (json.dumps(msg) + "\n").encode()
        with self._send_lock:
            proc.stdin.write(line)
            proc.stdin.flush()

    def _request(self, msg: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        with self._send_lock:
            ident = self._next_id
            self._next_id += 1
            box: queue.Queue[dict[str, Any]] = queue.Queue(1)
            self._replies[ident] = box
        self._send({**msg, "id": ident})
        try:
            return box.get(timeout=timeout)
        except queue.Empty as exc:
            raise ChipModelError(f"the chip model did not answer {msg['op']!r}") from exc
        finally:
            self._replies.pop(ident, None)

    def _read_events(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        for raw in proc.stdout:
            try:
                ev = json.loads(raw)
            except ValueError:
                self.errors.append(f"harness wrote {raw[:80]!r}")
                continue
            kind = ev.get("ev")
            if kind == "cdc":
                data = base64.b64decode(ev["data"])
                self.cdc_log.append((int(ev["ns"]), len(data)))
                if self._pty_master is not None:
                    self._forward_to_pty(data)
                else:
                    with self._rx_cond:
                        self._rx += data
                        self._rx_cond.notify_all()
            elif kind == "edge":
                self.edge_log.append(AppliedEdge(ev["pin"], ev["level"], ev["ns"], ev["wall_ns"]))
            elif kind == "pin":
                self.pin_log.append((ev["pin"], ev["state"], ev["ns"], ev["wall_ns"]))
                if self.on_pin is not None:
                    self.on_pin(ev["pin"], ev["state"], ev["ns"])
            elif kind == "reply":
                box = self._replies.get(ev["id"])
                if box is not None:
                    box.put(ev)
            elif kind == "ready":
                self.ready_ns = ev["ns"]
                self._ready.set()
            elif kind == "time":
                self.time_reports.append((ev["ns"], ev["wall_ns"]))
                if "cycle_ns" in ev:
                    self.cycle_reports.append((ev["wall_ns"], float(ev["cycle_ns"])))
            elif kind == "dilate":
                self.dilation_origin = (ev["ns"], ev["wall_ns"])
            elif kind == "reset":
                self.resets.append((ev["reason"], ev["ns"]))
            elif kind == "error":
                self.errors.append(ev["message"])
        with self._rx_cond:
            self._rx_cond.notify_all()

    def progress(self) -> str:
        """What the model last said of itself, for a message that it did not do something
        in time: its resets, its emulated time against the wall's, its CPU's cycle and PC."""
        parts = []
        if self.resets:
            parts.append(f"resets: {self.resets[-5:]}")
        if self.time_reports:
            ns, wall_ns = self.time_reports[-1]
            parts.append(
                f"last time report: chip {ns / 1e9:.3f} s, "
                f"{(time.monotonic_ns() - wall_ns) / 1e9:.1f} s ago"
            )
        if self.cycle_reports:
            parts.append(f"cycle {self.cycle_reports[-1][1]:.0f} ns")
        return f"; {', '.join(parts)}" if parts else ""

    def _stderr_tail(self) -> str:
        proc = self._proc
        if proc is None or proc.stderr is None or proc.poll() is None:
            return "no output"
        return proc.stderr.read().decode(errors="replace")[-500:] or "no output"

    # -- pins and time ------------------------------------------------------------

    def slow_cycle_ns(self, since_wall_ns: int) -> float | None:
        """The CPU cycle (ns) a paced chip ran at or slower for a tenth of the time since
        ``since_wall_ns`` (monotonic; the 90th percentile): how far this machine's load
        slowed it. (Its pace controller swings and touches the floor for a moment even
        on an idle machine, so not the longest.) None without a report."""
        cycles = sorted(c for wall, c in list(self.cycle_reports) if wall >= since_wall_ns)
        return cycles[len(cycles) * 9 // 10] if cycles else None

    def lag_ns(self, since_wall_ns: int) -> int:
        """How far a paced chip fell behind the wall clock since ``since_wall_ns``
        (monotonic): the longest run of wall time its emulated time did not make up,
        from its time reports. 0 on pace; a host mapping its clock is off by up to
        this much meanwhile, as with a Pico whose crystal stalled. The pace controller
        catches up afterwards, so the lag is a window's worst, not its end's."""
        worst = 0
        least: int | None = None
        for ns, wall_ns in list(self.time_reports):
            if wall_ns < since_wall_ns:
                continue
            offset = wall_ns - ns
            least = offset if least is None else min(least, offset)
            worst = max(worst, offset - least)
        return worst

    def starved(self, since_wall_ns: int, tolerance_ns: int) -> str | None:
        """What this machine's load did to a paced chip since ``since_wall_ns``, in
        words, if it was more than a test built on the wall clock can take: fell
        behind it by over ``tolerance_ns``, or ran at its slowest CPU
        (``SLOWEST_CYCLE_NS``) a tenth of the time. None: it kept a Pico's pace."""
        lag = self.lag_ns(since_wall_ns)
        if lag > tolerance_ns:
            return f"the chip fell {lag / 1e6:.0f} ms behind the wall clock"
        cycle = self.slow_cycle_ns(since_wall_ns)
        if cycle is not None and cycle >= SLOWEST_CYCLE_NS:
            return f"the chip ran at its slowest CPU ({cycle:.0f} ns a cycle)"
        return None

    def now_ns(self) -> int:
        """The chip's true time (emulated ns) as the harness read the request."""
        return int(self._request({"op": "now"})["ns"])

    def schedule(self, edges: Iterable[tuple[int, int, int]]) -> int:
        """Drive ``(pin, level, after_ns)`` edges at exact offsets from one instant.

        Returns that instant (emulated ns). The offsets are exact: the harness
        fixes the instant when it reads the request, whatever the pipe's delay.
        """
        return int(self._request({"op": "edges", "edges": [list(e) for e in edges]})["ns"])

    def press_after(self, offsets_us: Mapping[int, float], hold_us: float = 50_000) -> int:
        """Press buttons (0-based) at offsets in µs from one instant, release after ``hold_us``."""
        edges: list[tuple[int, int, int]] = []
        for button, offset in offsets_us.items():
            pin = self.button_pins[button]
            at = round(offset * 1000)
            edges.append((pin, 0, at))
            edges.append((pin, 1, at + round(hold_us * 1000)))
        return self.schedule(edges)

    def ticks_at(self, ns: int) -> int:
        """``time.ticks_us()`` at emulated time ``ns`` (the timer reads the same counter)."""
        return (ns // 1000) % TICKS_PERIOD_US

    def edges_since(self, ns: int) -> list[AppliedEdge]:
        return [e for e in list(self.edge_log) if e.ns >= ns]

    def set_usb(self, connected: bool) -> None:
        """Plug or unplug the emulated USB cable's data (the chip keeps running)."""
        self._send({"op": "usb", "connected": connected})

    def stall_host(self, stalled: bool) -> None:
        """Make the emulated USB host stop (or resume) reading the serial port.

        The firmware's IN transfers are then held on the cable, as a hung host
        driver or program would leave them: its writes wait, or are dropped,
        while the chip goes on stamping.
        """
        self._send({"op": "usb_stall", "stalled": stalled})

    # -- the serial port ------------------------------------------------------------

    def bootsel(self, held: bool) -> None:
        """Press (or let go of) the Pico's BOOTSEL button now."""
        self._send({"op": "bootsel", "held": held})

    def write(self, data: bytes) -> None:
        """Bytes from the host to the firmware (its ``sys.stdin``)."""
        if data:
            self._send({"op": "write", "data": base64.b64encode(data).decode()})

    def read(self, n: int | None = None, timeout: float = 10.0) -> bytes:
        """Take up to ``n`` bytes the firmware wrote (all if ``None``), waiting for at least one."""
        deadline = time.monotonic() + timeout
        with self._rx_cond:
            while not self._rx and self.running and time.monotonic() < deadline:
                self._rx_cond.wait(deadline - time.monotonic())
            count = len(self._rx) if n is None else min(n, len(self._rx))
            out = bytes(self._rx[:count])
            del self._rx[:count]
            return out

    def read_until(self, marker: bytes, timeout: float = 10.0) -> bytes:
        """Take everything up to and including ``marker``; ChipModelError on timeout."""
        deadline = time.monotonic() + timeout
        with self._rx_cond:
            while True:
                at = self._rx.find(marker)
                if at >= 0:
                    out = bytes(self._rx[: at + len(marker)])
                    del self._rx[: at + len(marker)]
                    return out
                left = deadline - time.monotonic()
                if left <= 0 or not self.running:
                    raise ChipModelError(
                        f"the firmware did not write {marker!r}; got {bytes(self._rx[-200:])!r}"
                    )
                self._rx_cond.wait(left)

    def open_pty(self) -> str:
        """Bridge the USB serial port to a new pseudo-terminal; returns the slave's path.

        From then on the firmware's output goes to the pty (not :meth:`read`)
        and what is written to the pty reaches the firmware.
        """
        if self._pty_master is not None:
            raise ChipModelError("the chip model's pty is already open")
        master, slave = os.openpty()
        tty.setraw(slave)
        self._pty_master, self._pty_slave = master, slave
        with self._rx_cond:
            pending = bytes(self._rx)
            self._rx.clear()
        self._forward_to_pty(pending)
        self._pty_thread = threading.Thread(target=self._pty_loop, name="chip-pty", daemon=True)
        self._pty_thread.start()
        return os.ttyname(slave)

    def _forward_to_pty(self, data: bytes) -> None:
        master = self._pty_master
        if master is None or not data:
            return
        view = memoryview(data)
        while view:
            try:
                written = os.write(master, view)
            except BlockingIOError:
                time.sleep(0.001)
                continue
            except OSError:
                return
            view = view[written:]

    def _pty_loop(self) -> None:
        master = self._pty_master
        assert master is not None
        while not self._pty_stop.is_set():
            try:
                # poll(), not select(): any descriptor number (serial_port.py says why)
                poller = select.poll()
                poller.register(master, select.POLLIN)
                ready = poller.poll(200)
            except (OSError, ValueError):
                return
            if not ready:
                continue
            try:
                data = os.read(master, 4096)
            except OSError as exc:
                if exc.errno == errno.EIO:  # nobody holds the slave open right now
                    time.sleep(0.01)
                    continue
                return
            if data:
                self.write(data)
