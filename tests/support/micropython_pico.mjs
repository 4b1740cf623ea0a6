// A Pico's serial port as the install sees it, played by real MicroPython:
// the WebAssembly port's REPL (its raw REPL; raw-paste mode below) on this
// process's stdin/stdout, with a file system (emscripten's in-memory one).
// tests/support/micropython_pico.py relays a pseudo-terminal to it.
//
//   node micropython_pico.mjs MICROPYTHON_MJS SEED_JSON
//
// SEED_JSON: {"name": "<base64>", ...}, the files the "Pico" holds at start.
// `import machine; machine.reset()` ends the run as a reset ends MicroPython
// on a Pico: this process writes one line to stderr,
//   SVOYAK-PICO-RESET {"name": "<base64>", ...}
// (every file at the root of the file system, as the Pico would boot with
// them) and exits.
//
// Everything is synchronous, as on a Pico: raw-paste mode reads the pasted
// code from stdin itself, in the middle of handling one REPL character, so
// stdin is read with blocking reads (never through process.stdin's events)
// and every byte MicroPython writes goes out at once.
import { readFileSync, readSync, writeSync } from 'node:fs';

const [, , modulePath, seedPath] = process.argv;
const { loadMicroPython } = await import(modulePath);

const input = Buffer.alloc(65536);
let inputStart = 0;
let inputEnd = 0;
const nap = new Int32Array(new SharedArrayBuffer(4));

function nextByte() {
  while (inputStart === inputEnd) {
    let n;
    try {
      n = readSync(0, input, 0, input.length, null);
    } catch (e) {
      if (e.code === 'EAGAIN') {
        Atomics.wait(nap, 0, 0, 1);
        continue;
      }
      if (e.code === 'EOF') process.exit(0);
      throw e;
    }
    if (n === 0) process.exit(0); // the relay closed our stdin: the test is over
    inputStart = 0;
    inputEnd = n;
  }
  return input[inputStart++];
}

const write = (bytes) => writeSync(1, Buffer.from(bytes));
const mp = await loadMicroPython({ stdin: nextByte, stdout: write, stderr: write, linebuffer: false });

const seed = JSON.parse(readFileSync(seedPath, 'utf8'));
for (const [name, b64] of Object.entries(seed)) {
  mp.FS.writeFile('/' + name, Buffer.from(b64, 'base64'));
}

function rootFiles() {
  const files = {};
  for (const name of mp.FS.readdir('/')) {
    const path = '/' + name;
    if (mp.FS.isFile(mp.FS.stat(path).mode)) {
      files[name] = Buffer.from(mp.FS.readFile(path)).toString('base64');
    }
  }
  return files;
}

mp.registerJsModule('machine', {
  reset: () => {
    writeSync(2, 'SVOYAK-PICO-RESET ' + JSON.stringify(rootFiles()) + '\n');
    process.exit(0);
  },
});

// Raw-paste mode (Ctrl-E 'A' Ctrl-A) reads the pasted code with
// mp_hal_stdin_rx_chr, which the WebAssembly port defines as 0: it cannot
// work there. So the request is answered as a MicroPython that knows the
// command but not this mode answers it ("R\x00"), and mpremote falls back
// to the plain raw REPL (the same exec, the code sent whole before Ctrl-D).
const RAW_PASTE = [0x05, 0x41, 0x01];
const held = [];
mp.replInit();
for (;;) {
  held.push(nextByte());
  const n = held.length;
  if (held.every((b, i) => b === RAW_PASTE[i])) {
    if (n === RAW_PASTE.length) {
      write([0x52, 0x00]);
      held.length = 0;
    }
    continue;
  }
  for (const b of held.splice(0)) mp.replProcessChar(b);
}
