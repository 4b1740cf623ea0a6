"""The firmware's logic (firmware_bridge/firmware/logic.py) under CPython and under
a real MicroPython (the WebAssembly port, run by node): one scenario gives the
same result on both, and the hard-IRQ capture path files every sample and
allocates nothing (``ALLOC_CHECK``, measured with MicroPython's GC counter).
MicroPython's install: tests/support/firmware_logic.py.
"""

from __future__ import annotations

from firmware_bridge.firmware import logic
from tests.support.firmware_logic import PERIOD
from tests.support.firmware_logic import run_cpython as _run_cpython
from tests.support.firmware_logic import run_micropython as _micropython

# Runs unchanged on both interpreters (no f-strings with format specs, no
# dataclasses); prints one JSON line. Its own LCG keeps the numbers identical.
SCENARIO = r"""
import json
import logic

seed = [12345]
def rand(n):
    seed[0] = (seed[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return seed[0] % n

result = {}
result["crc_check"] = logic.crc16(b"123456789")

# COBS round trips over awkward lengths, with zeros and long runs.
acc = 0xFFFF
ok = True
for n in (0, 1, 2, 253, 254, 255, 256, 300, 509, 510):
    data = bytes([0 if rand(4) == 0 else 1 + rand(255) for _ in range(n)])
    enc = logic.cobs_encode(data)
    ok = ok and (0 not in enc) and logic.cobs_decode(enc) == data
    acc = logic.crc16(enc, acc)
result["cobs_ok"] = ok
result["cobs_digest"] = acc

# The edge ring across the counter's wrap: bounce, a change hidden in a hold-off
# (reconciled at its own tick), a tie of two buttons in one sample.
period = 1 << logic.TICKS_BITS
ring = logic.EdgeRing(3, 32, 5000)
t = period - 2000
for dt, levels in ((0, 2), (30, 0), (70, 2), (6000, 0), (6020, 2), (6040, 0), (6100, 2),
                   (12000, 7)):
    ring.sample(levels, logic.ticks_add(t, dt))
ring.housekeep(logic.ticks_add(t, 20000))
edges = []
while True:
    e = ring.take()
    if e is None:
        break
    edges.append(list(e))
result["edges"] = edges

# Capture words: the stamp across the 2**22 and 2**30 wraps, a little after now too.
base = period - 50
stamps = []
for k, ahead in ((0, 0), (40, 3), (1 << 22, 0), ((1 << 22) + 70, -5), (3 << 22, 1000),
                 (1 << 28, -(1 << 20)), ((1 << 30) - 25, 2)):
    word = ((-k & logic.CAPTURE_MASK) << 8) | 0xA5
    now = (base + k + ahead) & logic.TICKS_MASK
    stamps.append([logic.capture_stamp(word, now, base), logic.capture_levels(word)])
result["stamps"] = stamps

# A device session: events, the host's frames, time passing across the wrap.
lamps = []
pulses = []
dev = logic.Device(4, 2, b"PICO", 77,
                   on_lamp=lambda i, v: lamps.append([i, v]),
                   on_pulse=lambda b, a: pulses.append([b, a]))
def host(msg_type, seq, payload, now):
    dev.feed(logic.frame(msg_type, seq, payload), now)
import struct
now = period - 300000
host(logic.T_HOST_HELLO, 0, struct.pack("<BB", 1, 0), now)
dev.edge(0, 1, now - 10, now)
dev.edge(0, 0, now + 50000, now + 50001)
host(logic.T_PING, 1, b"\x01\x02\x03\x04\x05\x06\x07\x08", now + 60000)
host(logic.T_ACK, 2, struct.pack("<I", 1), now + 70000)
host(logic.T_LAMP, 3, struct.pack("<BBH", 1, 2, 100), now + 80000)
host(logic.T_TEST_PULSE, 4, struct.pack("<BBHI", 2, 0, 9, 1500), now + 90000)
for step in range(0, 600000, 7000):
    dev.poll(logic.ticks_add(now, 90000 + step))
out = dev.take_output()
result["out_len"] = len(out)
result["out_crc"] = logic.crc16(out)
result["lamps"] = lamps
result["pulses"] = pulses
result["unacked"] = [e[0] for e in dev.unacked]

# The device's decoder against corrupted frames: every chunk counted, none invented.
reader = logic.FrameReader()
good = 0
sent = 0
for i in range(1500):
    fr = logic.frame(logic.T_ACK, i, struct.pack("<I", i))
    body = fr[:-1]
    kind = rand(4)
    if kind == 0:
        chunk = body
        good += 1
    elif kind == 1:
        j = rand(len(body))
        chunk = body[:j] + bytes([1 + (body[j] + rand(254)) % 255]) + body[j + 1:]
    elif kind == 2:
        chunk = body[:1 + rand(len(body) - 1)]
    else:
        chunk = bytes([1 + rand(255) for _ in range(1 + rand(90))])
    sent += 1
    reader.feed(chunk + b"\x00")
result["reader"] = [reader.good, reader.bad, good, sent]
print(json.dumps(result))
"""

# The hard-IRQ path must not allocate: measured with the GC's own counter. It is
# main.py's drain: capture_stamp() and EdgeRing.sample() for every capture word,
# then the main loop's housekeep() and hidden_before(). The samples go through
# every branch: an edge, a tie, a bounce that settles back inside its hold-off,
# a change hidden in a hold-off, an edge held back
# behind it, the reconciliation done inside sample() (an insertion that shifts
# the ring), both branches of capture_stamp (a stamp just after now) and the
# 2**22 and 2**30 wraps. A first ring runs it all once (MicroPython allocates
# on some first calls), a second one is measured.
ALLOC_CHECK = r"""
import gc, time, json
import logic
# time.ticks_diff and gc.mem_alloc are MicroPython's; CPython runs it for the edges.
diff = getattr(time, "ticks_diff", logic.ticks_diff)
mem_alloc = getattr(gc, "mem_alloc", lambda: 0)
mask = 15
base = (1 << logic.TICKS_BITS) - 50   # loop 0 just before the 2**30 wrap
steps = ((10, 1, 2), (20, 7, 1), (50, 5, 1), (60, 7, 4), (5000, 6, 3), (6000, 14, -2),
         (12000, 15, 5), (30000, 14, 7), ((1 << 22) + 100, 12, 100),
         (3 * (1 << 22) + 7, 8, -1))
words = []
nows = []
for k, pressed, after in steps:
    words.append(((-k & logic.CAPTURE_MASK) << 8) | (~pressed & 0xFF))
    nows.append((base + k + after) & logic.TICKS_MASK)
n = len(words)

stamp = logic.capture_stamp

def run(sample, housekeep, hidden_before):
    # The bound methods are made once, beforehand, as main.py does: making one
    # allocates.
    for i in range(n):
        word = words[i]
        sample(~word & mask, stamp(word, nows[i], base))
    housekeep(nows[n - 1])
    return hidden_before(nows[n - 1])

ring = logic.EdgeRing(4, 64, 10000, diff)
run(ring.sample, ring.housekeep, ring.hidden_before)
ring = logic.EdgeRing(4, 64, 10000, diff)
methods = (ring.sample, ring.housekeep, ring.hidden_before)
counts = [0, 0]
gc.collect()
gc.disable()
counts[0] = mem_alloc()
run(methods[0], methods[1], methods[2])
counts[1] = mem_alloc()
gc.enable()
edges = []
while True:
    e = ring.take()
    if e is None:
        break
    edges.append(list(e))
print(json.dumps({"irq_alloc_bytes": counts[1] - counts[0], "edges": edges}))
"""


def test_scenario_under_cpython() -> None:
    result = _run_cpython(SCENARIO)
    assert result["crc_check"] == 0x29B1
    assert result["cobs_ok"] is True
    t = PERIOD - 2_000
    assert result["edges"] == [
        [1, 1, 0, t],  # the press, at the first bounce's tick
        [1, 0, 0, logic.ticks_add(t, 6_000)],
        # Hidden in the release's hold-off; reported at its own tick, ahead of the
        # later edges (held back meanwhile: the device sends in stamp order).
        [1, 1, logic.FLAG_RECONCILED, logic.ticks_add(t, 6_100)],
        [0, 1, 0, logic.ticks_add(t, 12_000)],  # one sample, one stamp: a tie
        [2, 1, 0, logic.ticks_add(t, 12_000)],
    ]
    base = PERIOD - 50
    ks = (0, 40, 1 << 22, (1 << 22) + 70, 3 << 22, 1 << 28, (1 << 30) - 25)
    assert result["stamps"] == [[(base + k) % PERIOD, 0xA5] for k in ks]
    assert result["reader"][0] == result["reader"][2]  # good frames: exactly those sent good
    assert result["reader"][0] + result["reader"][1] == result["reader"][3]
    assert result["unacked"] == [2]


def test_scenario_under_micropython_matches_cpython() -> None:
    under_mp = _micropython(SCENARIO)
    assert under_mp == _run_cpython(SCENARIO)


def _alloc_check_edges() -> list[list[int]]:
    base = PERIOD - 50
    r = logic.FLAG_RECONCILED
    at = [(base + k) % PERIOD for k in (10, 20, 5_000, 6_000, 12_000, 30_000)]
    return [
        [0, 1, 0, at[0]],
        [1, 1, 0, at[1]],  # a tie: one sample, one stamp
        [2, 1, 0, at[1]],
        [0, 0, r, at[2]],  # hidden in b0's hold-off, at its own tick, ahead of b3
        [3, 1, 0, at[3]],
        [0, 1, r, at[4]],
        [0, 0, 0, at[5]],
        [1, 0, 0, (base + (1 << 22) + 100) % PERIOD],
        [2, 0, 0, (base + 3 * (1 << 22) + 7) % PERIOD],
    ]


def test_irq_path_decodes_and_files_every_sample_under_cpython() -> None:
    result = _run_cpython(ALLOC_CHECK)
    assert result["edges"] == _alloc_check_edges()


def test_irq_path_allocates_nothing_under_micropython() -> None:
    result = _micropython(ALLOC_CHECK)
    assert result == {"irq_alloc_bytes": 0, "edges": _alloc_check_edges()}
