"""Extract the RP2040 B1 boot ROM (16 KiB) that rp2040js needs but its npm package lacks.

Source: ``demo/bootrom.ts`` of the rp2040js repository (a ``Uint32Array``
dump of the Raspberry Pi pico-bootrom B1, BSD-3-Clause; licence in
``licenses/pico-bootrom-LICENSE.txt``). ``build-firmware.sh`` runs it:

    python get-bootrom.py bootrom.ts bootrom-b1.bin
"""

import re
import struct
import sys
from pathlib import Path

src, out = sys.argv[1:]
text = Path(src).read_text()
body = text[text.index("new Uint32Array([") :]
body = body[: body.index("])")]
words = [int(x, 16) for x in re.findall(r"0x[0-9a-fA-F]+", body)]
if len(words) != 4096:
    sys.exit(f"{src}: expected 4096 words, found {len(words)}")
Path(out).write_bytes(struct.pack("<4096I", *words))
print(f"{out}: {len(words) * 4} bytes")
