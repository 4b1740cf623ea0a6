// svoyak's chip model: real MicroPython (RPI_PICO build) on an emulated RP2040.
//
// The emulator is rp2040js (npm, MIT). This harness is the project's own: it
// loads the firmware, the boot ROM and a littlefs image holding the
// project's main.py and logic.py, owns the run loop (rp2040js's own
// setTimeout-driven loops are not exact, and its PIO ignores delays and the
// clock divider), drives button pins at exact emulated nanoseconds, and
// relays the emulated USB CDC serial port to its parent process.
//
// The parent (firmware_bridge/chip/model.py) talks to it over stdin/stdout,
// one JSON object per line:
//
//   parent -> harness                         harness -> parent
//   {"op":"write","data":<b64>}  USB bytes    {"ev":"ready","ns":..}      booted, USB enumerated
//   {"op":"edges","id":n,"edges":             {"ev":"cdc","data":<b64>}  bytes the firmware wrote
//      [[pin,level,after_ns],..]}             {"ev":"edge","pin":p,"level":l,"ns":t,"wall_ns":w}
//   {"op":"now","id":n}                       {"ev":"reply","id":n,"ns":t,...}
//   {"op":"usb","connected":bool}  {"op":"usb_stall","stalled":bool}  {"op":"bootsel","held":bool}             {"ev":"time","ns":t,"wall_ns":w,"cycle_ns":c}
//   {"op":"quit"}                             {"ev":"reset","reason":..,"ns":t}  (watchdog, ...)
//                                             {"ev":"pin","pin":p,"state":s,"ns":t}  a --watch pin changed
//                                             {"ev":"dilate","ns":t,"wall_ns":w,"factor":k}  the line's origin
//                                             {"ev":"error","message":..}
//
// wall_ns is CLOCK_MONOTONIC (what Python's time.monotonic_ns() reads) when
// the harness did it. "edges" are scheduled relative to the emulated time at which the harness
// reads the command, so their spacing is exact whatever the pipe's latency;
// the reply says the absolute time of offset 0.
//
// Time: the SimulationClock's nanoseconds are the chip's true time (the
// RP2040 TIMER, hence time.ticks_us(), reads that counter). Each CPU
// instruction advances it by its cycles times cycle_ns (8 ns = 125 MHz).
// With --pace the harness keeps the emulated time on the wall clock (or off
// it by --drift-ppm, a crystal's error) by
// lengthening cycle_ns (a slower CPU), so a host talking to the chip sees a
// crystal that agrees with its own; without it, time runs as fast as the
// emulation can go (about a quarter of real time) and every run with the
// same inputs is the same. With --dilate K the CPU keeps its 125 MHz and the
// chip's time runs at K x the wall clock instead (K below the emulation's
// own speed): a host whose clock also runs at K x the wall clock sees a
// Pico at full speed, whose crystal is off a straight line only by the
// loop's short steps, not by the pacing's wander. The PIO state machines are stepped from this loop
// at their own clock (divider and delay cycles included), so a sample a PIO
// program takes is taken at its true emulated time.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { ConsoleLogger, LogLevel, Simulator, USBCDC } from 'rp2040js';

const NOMINAL_CYCLE_NS = 8; // 125 MHz
const FS_IMAGE_OFFSET = 0xa0000; // MicroPython RPI_PICO: storage is the last 1408 KiB of 2 MiB
const SLICE_NS = 200_000; // emulated time between two looks at the pipe and the wall clock
const TIME_REPORT_NS = 10_000_000;
const PACE_HORIZON_NS = 50_000_000;
// Dilated (--dilate K): the chip runs only once the line is this far ahead
// of it, and naps this long (~0.1 ms on Linux, overhead included) when not.
const DILATE_MIN_STEP_NS = 2_000;
const DILATE_NAP_MS = 0.02;
// A state machine's SHIFTCTRL (SM0's; each next one SM_STRIDE on) and its FIFO join bits.
const SM0_SHIFTCTRL = 0x0d0;
const SM_STRIDE = 0x18;
const SHIFTCTRL_FJOIN_TX = 1 << 30;
const SHIFTCTRL_FJOIN_RX = 1 << 31;
const FIFO_DEPTH = 4;
const PIO_FDEBUG = 0x008;
// rp2040js's WaitType values for a machine stalled on its FIFOs (rxFIFO, txFIFO, Out).
const WAIT_RX_FIFO = 2;
const WAIT_TX_FIFO = 3;
const WAIT_OUT = 5;
const QSPI_SS = 1; // rp2040js's qspi pins: SCLK, SS, SD0..SD3
const PAD_BANK0_RESET = 0x56;
const PAD_QSPI_SS_RESET = 0x5a;

/**
 * The FIFO joins, as the RP2040 datasheet (3.7, SMx_SHIFTCTRL) says and
 * rp2040js does not do (it gives every state machine two 4-word FIFOs
 * whatever SHIFTCTRL says):
 *   FJOIN_TX: "TX FIFO steals the RX FIFO's storage, and becomes twice as
 *     deep. RX FIFO is disabled as a result (always reads as both full and
 *     empty). FIFOs are flushed when this bit is changed."
 *   FJOIN_RX: the same, the other way round.
 * A disabled FIFO is rp2040js's FIFO of size 0: `full` and `empty` are both
 * true and a push drops the word, which is what "reads as both full and
 * empty" means to every reader of FSTAT, FLEVEL and the FIFO's port. Both
 * bits set is not defined by the datasheet; it is taken as neither FIFO
 * doubled and both disabled, the most hostile reading.
 * Called after every SHIFTCTRL write; a write that changes neither bit
 * leaves the FIFOs and their words alone.
 */
export function applyFifoJoin(sm) {
  if (!sm) return;
  const joins = (sm.shiftCtrl >>> 30) & 0b11;
  if (sm.appliedJoins === joins || (sm.appliedJoins === undefined && joins === 0)) return;
  sm.appliedJoins = joins;
  const FifoClass = sm.txFIFO.constructor;
  const tx = joins === 0 ? FIFO_DEPTH : joins === 1 ? 2 * FIFO_DEPTH : 0;
  const rx = joins === 0 ? FIFO_DEPTH : joins === 2 ? 2 * FIFO_DEPTH : 0;
  sm.txFIFO = new FifoClass(tx); // new and empty: flushed
  sm.rxFIFO = new FifoClass(rx);
  // A flushed FIFO ends any stall on it (rp2040js's sticky copies of FDEBUG's stall bits).
  sm.pio.rxStall &= ~(1 << sm.index);
  sm.pio.txStall &= ~(1 << (24 + sm.index));
}

/**
 * FDEBUG's bits are sticky and cleared by writing 1 (RP2040 datasheet 3.7,
 * FDEBUG: "Write 1 to clear"). A stall bit is the state machine's stall
 * signal caught: a machine still stalled on a blocking PUSH or PULL sets it
 * again at once (pico-sdk waits for a stall by clearing the bit and polling
 * it), while a drop by a non-blocking PUSH is an event, gone once cleared.
 * rp2040js re-sets RXSTALL/TXSTALL on every FDEBUG write until the FIFO is
 * next used, stalled or not, so a firmware that counts drops (the button
 * firmware's RXSTALL) would count one drop twice. Here a written 1 clears
 * the bit, and only a machine waiting on its FIFO now sets it again.
 */
export function fifoStallBits(sm) {
  if (!sm.enabled || !sm.waiting) return 0;
  if (sm.waitType === WAIT_RX_FIFO) return 1 << sm.index;
  if (sm.waitType === WAIT_TX_FIFO || sm.waitType === WAIT_OUT) return 1 << (24 + sm.index);
  return 0;
}

export function writeFdebug(pio, value) {
  let stalled = 0;
  for (const sm of pio.machines) stalled |= fifoStallBits(sm);
  pio.rxStall = stalled & 0xf;
  pio.txStall = stalled & (0xf << 24);
  pio.fdebug = ((pio.fdebug & ~value) | stalled) >>> 0;
}

function parseArgs(argv) {
  const args = { pace: false, dilate: 0, driftPpm: 0, startUs: 0, logLevel: 'error', cycleNs: 0, maxCycleNs: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--firmware') args.firmware = next();
    else if (a === '--bootrom') args.bootrom = next();
    else if (a === '--fs') args.fs = next();
    else if (a === '--pace') args.pace = true;
    else if (a === '--dilate') args.dilate = Number(next());
    else if (a === '--drift-ppm') args.driftPpm = Number(next());
    else if (a === '--cycle-ns') args.cycleNs = Number(next());
    else if (a === '--max-cycle-ns') args.maxCycleNs = Number(next());
    else if (a === '--start-us') args.startUs = Number(next());
    else if (a === '--idle-high') args.idleHigh = next().split(',').filter(Boolean).map(Number);
    else if (a === '--watch') args.watch = next().split(',').filter(Boolean).map(Number);
    else if (a === '--log') args.logLevel = next();
    else if (a === '--bootsel-held') args.bootselHeld = true;
    else if (a === '--chip-id') args.chipId = Number(next());
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.firmware || !args.bootrom) throw new Error('--firmware and --bootrom are required');
  if (args.pace && args.dilate) throw new Error('--pace and --dilate are two ways to keep time: pick one');
  if (args.pace && !(args.maxCycleNs >= NOMINAL_CYCLE_NS)) throw new Error('--pace needs --max-cycle-ns (the slowest CPU the firmware still runs on)');
  if (args.cycleNs && (args.pace || args.dilate)) throw new Error('--cycle-ns fixes the CPU: it cannot be paced or dilated too');
  if (args.dilate && !(args.dilate > 0 && args.dilate <= 1)) throw new Error('--dilate must be in (0, 1]');
  return args;
}

/** CLOCK_MONOTONIC in ns, the clock Python's time.monotonic_ns() reads (Linux). */
function wallNow() {
  return Number(process.hrtime.bigint());
}

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function loadUF2(buf, mcu) {
  for (let off = 0; off + 512 <= buf.length; off += 512) {
    const dv = new DataView(buf.buffer, buf.byteOffset + off, 512);
    if (dv.getUint32(0, true) !== 0x0a324655 || dv.getUint32(4, true) !== 0x9e5d5157) continue;
    const addr = dv.getUint32(12, true);
    const size = dv.getUint32(16, true);
    mcu.flash.set(buf.subarray(off + 32, off + 32 + size), addr - 0x10000000);
  }
}

/** One RP2040 with its USB cable; rebuilt (flash kept, clock kept) on a reset. */
class Chip {
  constructor(args, clock) {
    this.args = args;
    this.firmware = readFileSync(args.firmware);
    this.bootrom = readFileSync(args.bootrom);
    this.fsImage = args.fs ? readFileSync(args.fs) : null;
    this.clock = clock;
    /** While a PIO's pin change is told (stepPio): the emulated ns of its cycle. */
    this.pioChangeNs = null;
    this.cycleNs = args.cycleNs || NOMINAL_CYCLE_NS;
    this.edges = []; // pending [ns, pin, level], sorted by ns then order given
    this.levels = new Map(); // pin -> level the harness drives (pull-ups are not modelled)
    for (const pin of args.idleHigh ?? []) this.levels.set(pin, true);
    this.txQueue = [];
    this.rxChunks = [];
    this.plugged = true;
    this.boot();
  }

  boot() {
    // A reset rebuilds the chip on the same clock: the old chip's timer,
    // watchdog and USB alarms must not fire into the new one.
    this.clock.nextAlarm = null;
    const sim = new Simulator(this.clock);
    const mcu = sim.rp2040;
    mcu.logger = new ConsoleLogger(LogLevel[this.args.logLevel[0].toUpperCase() + this.args.logLevel.slice(1)] ?? LogLevel.Error);
    mcu.loadBootrom(new Uint32Array(this.bootrom.buffer, this.bootrom.byteOffset, this.bootrom.length / 4));
    loadUF2(this.firmware, mcu);
    if (this.fsImage) mcu.flash.set(this.fsImage, FS_IMAGE_OFFSET);
    mcu.core.PC = 0x10000000;
    // The PIO blocks would otherwise step themselves from setTimeout, at no
    // particular emulated time: this loop steps them instead (see stepPio).
    for (const pio of mcu.pio) {
      pio.run = () => {};
      const write = pio.writeUint32.bind(pio);
      pio.writeUint32 = (offset, value) => {
        if (offset === PIO_FDEBUG) {
          writeFdebug(pio, pio.rawWriteValue);
          return;
        }
        write(offset, value);
        if (offset === 0) this.refreshPio(); // CTRL: a state machine started or stopped
        else if (offset >= SM0_SHIFTCTRL && (offset - SM0_SHIFTCTRL) % SM_STRIDE === 0) {
          applyFifoJoin(pio.machines[(offset - SM0_SHIFTCTRL) / SM_STRIDE]);
        }
      };
    }
    this.mcu = mcu;
    this.refreshPio();
    const watchdog = mcu.peripherals[0x40058];
    watchdog.onWatchdogTrigger = () => {
      // Stop its periodic alarm first: left running at a count of 0 it would
      // fire again at the same nanosecond forever (rp2040js has no reset of
      // its own). The chip is rebuilt when this slice returns.
      watchdog.alarm.enable = false;
      watchdog.timer.enable = false;
      // REASON: TIMER (1) the watchdog ran out; FORCE (2) machine.reset() and the like.
      this.resetPending = watchdog.reason === 2 ? 'reset' : 'watchdog';
    };
    // The pads' reset values (RP2040 datasheet 2.19.6.3, PADS_BANK0 GPIOn:
    // 0x56, and 2.19.6.4, PADS_QSPI GPIO_QSPI_SS: 0x5a): input enabled (IE,
    // bit 6) from reset. rp2040js starts every pad at 0x36, input disabled, so
    // a pad no firmware configures (QSPI_SS, which rp2.bootsel_button() reads)
    // would read low for ever.
    for (const pin of mcu.gpio) pin.padValue = PAD_BANK0_RESET;
    mcu.qspi[QSPI_SS].padValue = PAD_QSPI_SS_RESET;
    for (const [pin, level] of this.levels) mcu.gpio[pin].setInputValue(level);
    // QSPI_SS, the flash's chip select: idle high, pulled to ground through
    // 1 kOhm by the Pico's BOOTSEL button (Pico datasheet, the schematic), which
    // MicroPython's rp2.bootsel_button() reads (SIO GPIO_HI_IN bit 1).
    mcu.qspi[QSPI_SS].setInputValue(!this.args.bootselHeld);
    if (this.args.chipId !== undefined) {
      // SYSINFO CHIP_ID answered as another chip would (a test of the firmware's refusal).
      const sysinfo = mcu.peripherals[0x40000];
      const read = sysinfo.readUint32.bind(sysinfo);
      sysinfo.readUint32 = (offset) => (offset === 0 ? this.args.chipId >>> 0 : read(offset));
    }
    // Lamps and other outputs the parent watches: every change, with its true time.
    for (const pin of this.args.watch ?? []) {
      mcu.gpio[pin].addListener((state) => {
        // A PIO's change at the state machine's own cycle (stepPio); a CPU's at the
        // start of the instruction that wrote it.
        const ns = this.pioChangeNs ?? this.clock.nanos;
        emit({ ev: 'pin', pin, state, ns: Math.round(ns), wall_ns: wallNow() });
      });
    }
    this.connected = false;
    this.cdc = new USBCDC(mcu.usbCtrl);
    this.cdc.onDeviceConnected = () => {
      this.connected = true;
    };
    this.cdc.onSerialData = (data) => {
      if (this.plugged) this.rxChunks.push(Buffer.from(data));
    };
    // A host that stops reading (its driver stalled, a hung program): the
    // firmware's IN transfers on the serial data endpoint are held, not taken,
    // until the host reads again ({"op":"usb_stall"}).
    this.stalledIn = [];
    const dpramUpdated = mcu.usbCtrl.DPRAMUpdated.bind(mcu.usbCtrl);
    mcu.usbCtrl.DPRAMUpdated = (offset, value) => {
      const ep = this.cdc.inEndpoint;
      if (this.hostStalled && ep > 0 && offset === 0x80 + 8 * ep) {
        this.stalledIn.push([offset, value]);
        return;
      }
      dpramUpdated(offset, value);
    };
    this.releaseStall = () => {
      const held = this.stalledIn;
      this.stalledIn = [];
      for (const [offset, value] of held) dpramUpdated(offset, value);
    };
    this.resetPending = null;
    this.bootedAtNs = this.clock.nanos;
  }

  /** Schedule edges relative to now; returns the absolute ns of offset 0. */
  schedule(edges) {
    const t0 = this.clock.nanos;
    for (const [pin, level, afterNs] of edges) {
      this.edges.push([t0 + Math.max(0, Math.round(afterNs)), pin, !!level, this.edges.length]);
    }
    this.edges.sort((a, b) => a[0] - b[0] || a[3] - b[3]);
    return Math.round(t0);
  }

  applyEdge(edge) {
    const [, pin, level] = edge;
    this.levels.set(pin, level);
    this.mcu.gpio[pin].setInputValue(level);
    emit({ ev: 'edge', pin, level: level ? 1 : 0, ns: Math.round(this.clock.nanos), wall_ns: wallNow() });
  }

  /** The state machines that run; called whenever the firmware writes a PIO's CTRL. */
  refreshPio() {
    const now = this.clock.nanos;
    const active = [];
    for (const pio of this.mcu.pio) {
      for (const sm of pio.machines) {
        if (!sm.enabled) continue;
        if (!sm.wasEnabled) sm.readyNs = now; // starts now, not at some stale time
        active.push(sm);
      }
      for (const sm of pio.machines) sm.wasEnabled = sm.enabled;
    }
    this.activeSms = active;
    this.nextPioNs = active.length ? Math.min(...active.map((sm) => sm.readyNs)) : Infinity;
  }

  /** Step every running PIO state machine up to emulated time `ns`, each at its own clock. */
  stepPio(ns) {
    let next = Infinity;
    for (const sm of this.activeSms) {
      const cycleNs = NOMINAL_CYCLE_NS * (sm.clockDivInt + sm.clockDivFrac / 256 || 65536);
      let ready = sm.readyNs;
      if (ready <= ns) {
        const pio = sm.pio;
        do {
          const before = sm.cycles;
          const values = pio.pinValues;
          const directions = pio.pinDirections;
          sm.step();
          if (pio.pinValues !== values || pio.pinDirections !== directions) {
            // Said now, at this cycle's time: checked only after the whole batch, a
            // change would be stamped at the start of the CPU instruction the batch
            // ran beside, up to 12 cycles early (a pair's spacing was seen 64 ns off).
            this.pioChangeNs = ready;
            pio.checkChangedPins();
            this.pioChangeNs = null;
          }
          const spent = sm.cycles - before;
          ready += (spent > 0 ? spent : 1) * cycleNs;
        } while (ready <= ns);
        sm.readyNs = ready;
        sm.pio.checkChangedPins();
        // A machine stalled on its FIFO holds its FDEBUG stall bit set (see writeFdebug).
        if (sm.waiting) sm.pio.fdebug = (sm.pio.fdebug | fifoStallBits(sm)) >>> 0;
      }
      if (ready < next) next = ready;
    }
    this.nextPioNs = next;
  }

  pumpTx() {
    const { cdc, txQueue } = this;
    while (txQueue.length && cdc.txFIFO.itemCount < cdc.txFIFO.size) cdc.sendSerialByte(txQueue.shift());
  }

  /** Run the chip until emulated time `untilNs` (the hot loop: keep it lean). */
  run(untilNs) {
    const { clock } = this;
    const core = this.mcu.core;
    let n = 0;
    while (clock.nanos < untilNs && !this.resetPending) {
      const stop = this.edges.length && this.edges[0][0] < untilNs ? this.edges[0][0] : untilNs;
      while (clock.nanos < stop) {
        if (core.waiting) {
          // The CPU sleeps until an interrupt; the PIO and the pins go on.
          let step = stop - clock.nanos;
          const alarm = clock.nanosToNextAlarm;
          if (alarm > 0 && alarm < step) step = alarm;
          if (this.nextPioNs - clock.nanos < step) step = Math.max(this.nextPioNs - clock.nanos, 1);
          const end = clock.nanos + step;
          if (end >= this.nextPioNs) this.stepPio(end);
          clock.tick(step);
        } else {
          const end = clock.nanos + core.executeInstruction() * this.cycleNs;
          if (end >= this.nextPioNs) this.stepPio(end);
          clock.tick(end - clock.nanos);
        }
        if ((++n & 0x3ff) === 0) {
          this.pumpTx();
          if (this.resetPending) return;
        }
      }
      while (this.edges.length && this.edges[0][0] <= clock.nanos) this.applyEdge(this.edges.shift());
    }
    this.pumpTx();
  }

  takeOutput() {
    if (!this.rxChunks.length) return null;
    const out = Buffer.concat(this.rxChunks);
    this.rxChunks = [];
    return out;
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const sim = new Simulator();
  const clock = sim.clock;
  clock.nanosCounter = Math.round(args.startUs * 1000); // e.g. just before the 2**30 µs wrap
  const chip = new Chip(args, clock);
  let quit = false;
  const inbox = [];
  const rl = createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    if (line.trim()) inbox.push(line);
  });
  rl.on('close', () => {
    quit = true;
  });

  const handle = (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      emit({ ev: 'error', message: `not JSON: ${line.slice(0, 80)}` });
      return;
    }
    switch (msg.op) {
      case 'write':
        if (chip.plugged) for (const b of Buffer.from(msg.data, 'base64')) chip.txQueue.push(b);
        break;
      case 'edges':
        emit({ ev: 'reply', id: msg.id, ns: chip.schedule(msg.edges ?? []), wall_ns: wallNow() });
        break;
      case 'now':
        emit({ ev: 'reply', id: msg.id, ns: Math.round(clock.nanos), wall_ns: wallNow(), cycle_ns: chip.cycleNs });
        break;
      case 'usb':
        chip.plugged = !!msg.connected;
        if (!chip.plugged) chip.txQueue = [];
        break;
      case 'bootsel':
        // The BOOTSEL button, pressed or let go now (a reset reads it again).
        chip.args.bootselHeld = !!msg.held;
        chip.mcu.qspi[QSPI_SS].setInputValue(!msg.held);
        break;
      case 'usb_stall':
        chip.hostStalled = !!msg.stalled;
        if (!chip.hostStalled) chip.releaseStall();
        break;
      case 'quit':
        quit = true;
        break;
      default:
        emit({ ev: 'error', message: `unknown op ${msg.op}` });
    }
  };

  let announced = false;
  // Dilated, the line starts at the firmware's first bytes on USB (main.py's
  // HELLO), not when USB comes up: nothing maps the chip's clock before the
  // firmware speaks, and its boot at full emulation speed is seconds shorter
  // than at K x the wall clock.
  let spoke = false;
  let lastReport = clock.nanos;
  let paceRef = null;
  let dilateRef = null;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  let lastIter = { wall: Number(process.hrtime.bigint()), emu: clock.nanos };
  const yieldNow = () => new Promise((resolve) => setImmediate(resolve));
  while (!quit) {
    while (inbox.length) handle(inbox.shift());
    if (quit) break;
    let until = clock.nanos + SLICE_NS;
    if (args.dilate && spoke) {
      // Dilated: the chip's time at exactly K x the wall clock (times 1 +
      // drift) from the firmware's first bytes on USB, its CPU at the full 125 MHz. The
      // chip is never run past the line, so it trails it by one short step
      // (K x the loop's own wall time), and a host whose clock is K x the wall
      // clock (firmware_bridge/chip/dilation.py) sees a Pico's crystal.
      const wall = wallNow();
      if (dilateRef === null) {
        dilateRef = { wall, emu: clock.nanos };
        emit({ ev: 'dilate', ns: Math.round(clock.nanos), wall_ns: wall, factor: args.dilate });
      }
      const want = dilateRef.emu + (wall - dilateRef.wall) * args.dilate * (1 + args.driftPpm * 1e-6);
      if (want - clock.nanos < DILATE_MIN_STEP_NS) {
        // At the line: nap a moment (Atomics.wait takes fractions of a ms;
        // setTimeout's 1 ms would let the line run K ms ahead).
        Atomics.wait(nap, 0, 0, DILATE_NAP_MS);
        await yieldNow();
        continue;
      }
      until = Math.min(until, want);
    }
    chip.run(until);
    if (chip.resetPending) {
      emit({ ev: "reset", reason: chip.resetPending, ns: Math.round(clock.nanos) });
      chip.boot(); // (the pacing reference stays: the chip's clock runs on)
      announced = false;
    }
    if (!announced && chip.connected) {
      announced = true;
      emit({ ev: "ready", ns: Math.round(clock.nanos), booted_ns: Math.round(chip.bootedAtNs) });
    }
    const out = chip.takeOutput();
    if (out) {
      emit({ ev: 'cdc', data: out.toString('base64'), ns: Math.round(clock.nanos) });
      spoke = true;
    }
    if (args.pace && announced) {
      // Keep emulated time on the wall clock (times 1 + drift) from the moment
      // USB came up: the CPU's cycle is lengthened until the emulation runs at
      // the wall clock's rate, closing any gap over about PACE_HORIZON_NS;
      // when ahead (the CPU asleep, say), wait.
      const wall = Number(process.hrtime.bigint());
      if (paceRef === null) paceRef = { wall, emu: clock.nanos };
      const want = paceRef.emu + (wall - paceRef.wall) * (1 + args.driftPpm * 1e-6);
      const behind = want - clock.nanos;
      const achieved = (clock.nanos - lastIter.emu) / Math.max(wall - lastIter.wall, 1);
      const rate = Math.max(0.05, 1 + args.driftPpm * 1e-6 + behind / PACE_HORIZON_NS);
      if (achieved > 0) {
        // Never slower than --max-cycle-ns: below that the firmware no longer runs
        // (the interrupts due every emulated ms take the whole CPU), and a chip
        // that cannot keep the wall clock falls behind it instead, which the
        // time reports show (ns against wall_ns) and a test measures.
        chip.cycleNs = Math.min(args.maxCycleNs, Math.max(NOMINAL_CYCLE_NS, (chip.cycleNs * rate) / achieved));
      }
      if (behind < -1e6) await new Promise((resolve) => setTimeout(resolve, Math.floor(-behind / 1e6)));
    }
    lastIter = { wall: Number(process.hrtime.bigint()), emu: clock.nanos };
    if (clock.nanos - lastReport >= TIME_REPORT_NS) {
      lastReport = clock.nanos;
      emit({ ev: 'time', ns: Math.round(clock.nanos), wall_ns: wallNow(), cycle_ns: chip.cycleNs, pc: chip.mcu.core.PC });
    }
    await yieldNow();
  }
  rl.close();
}

main().catch((err) => {
  emit({ ev: 'error', message: String(err?.stack ?? err) });
  process.exit(1);
});
