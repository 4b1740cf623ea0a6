"""UF2 files for the RP2040's BOOTSEL drive (pure: bytes in, bytes out).

A UF2 file (Microsoft's USB Flashing Format, github.com/microsoft/uf2) is a
run of 512-byte blocks, each carrying up to 476 bytes for one flash address.
The RP2040's boot ROM takes 256-byte payloads at page-aligned addresses,
erases each 4 KiB sector before it first programs it, and reboots into the
new firmware once it has received every block of the file (RP2040
datasheet, 2.8.4 *UF2 Format Details*).

`svoyak pico install` flashes MicroPython together with an **empty file
system**: MicroPython's own UF2 leaves the file system's sectors alone (a
re-flashed Pico keeps its files), so a Pico that already ran svoyak's
firmware would run its old ``main.py`` again, whose REPL is closed
(``micropython.kbd_intr(-1)``) and nothing could be copied. The blocks
added here write zeros over the first two blocks of the littlefs file
system, its superblock pair; MicroPython then finds no file system at boot
and formats a fresh one (``ports/rp2/modules/_boot.py``), and the Pico comes
up at its REPL. Zeros rather than 0xFF: programming can only clear bits, so
zeros wipe the superblock whether or not the sector was erased first.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from buzzer.errors import SvoyakError

MAGIC_START0 = 0x0A324655
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
#: Flag: the header's last word is a family ID (not a file size).
FLAG_FAMILY_ID = 0x00002000
#: The RP2040's family ID (the UF2 specification's list, utils/uf2families.json).
RP2040_FAMILY = 0xE48BFF56
BLOCK_SIZE = 512
PAYLOAD_SIZE = 256
_HEADER = struct.Struct("<IIIIIIII")

#: The RP2040 maps its QSPI flash here (XIP).
FLASH_BASE = 0x10000000
#: MicroPython v1.28 for RPI_PICO: littlefs in the last 1408 KiB of the 2 MiB
#: flash, in 4096-byte blocks (ports/rp2/mpconfigport.h,
#: MICROPY_HW_FLASH_STORAGE_BYTES; the chip model loads its image there too).
FLASH_SIZE = 2 * 1024 * 1024
FS_OFFSET = FLASH_SIZE - 1408 * 1024
FS_BLOCK_SIZE = 4096
#: littlefs keeps its superblock in the metadata pair of blocks 0 and 1.
FS_SUPERBLOCKS = 2


class Uf2Error(SvoyakError, ValueError):
    """Bytes that are not a UF2 file for the RP2040 (the message says which)."""


@dataclass(frozen=True)
class Uf2Block:
    """One block's flash address and payload (the rest of the header is rebuilt)."""

    address: int
    data: bytes
    family: int = RP2040_FAMILY


def parse(image: bytes) -> list[Uf2Block]:
    """The blocks of a UF2 file, in file order; Uf2Error for anything else."""
    if not image or len(image) % BLOCK_SIZE:
        raise Uf2Error(f"a UF2 file is whole 512-byte blocks; this one has {len(image)} bytes")
    blocks = []
    for offset in range(0, len(image), BLOCK_SIZE):
        raw = image[offset : offset + BLOCK_SIZE]
        start0, start1, flags, address, size, _no, _count, family = _HEADER.unpack_from(raw)
        (end,) = struct.unpack_from("<I", raw, BLOCK_SIZE - 4)
        if (start0, start1, end) != (MAGIC_START0, MAGIC_START1, MAGIC_END):
            raise Uf2Error(f"block {offset // BLOCK_SIZE} is not a UF2 block (bad magic)")
        if size > 476:
            raise Uf2Error(f"block {offset // BLOCK_SIZE} says it carries {size} bytes")
        family = family if flags & FLAG_FAMILY_ID else 0
        blocks.append(Uf2Block(address, bytes(raw[32 : 32 + size]), family))
    return blocks


def build(blocks: list[Uf2Block]) -> bytes:
    """A UF2 file of ``blocks``, numbered 0..n-1 of n (the boot ROM counts them)."""
    out = bytearray()
    for number, block in enumerate(blocks):
        raw = bytearray(BLOCK_SIZE)
        _HEADER.pack_into(
            raw,
            0,
            MAGIC_START0,
            MAGIC_START1,
            FLAG_FAMILY_ID,
            block.address,
            len(block.data),
            number,
            len(blocks),
            block.family,
        )
        raw[32 : 32 + len(block.data)] = block.data
        struct.pack_into("<I", raw, BLOCK_SIZE - 4, MAGIC_END)
        out += raw
    return bytes(out)


def superblock_wipe() -> list[Uf2Block]:
    """Blocks writing zeros over the file system's superblock pair (see the module doc)."""
    start = FLASH_BASE + FS_OFFSET
    length = FS_SUPERBLOCKS * FS_BLOCK_SIZE
    return [
        Uf2Block(address, bytes(PAYLOAD_SIZE))
        for address in range(start, start + length, PAYLOAD_SIZE)
    ]


def with_empty_filesystem(firmware: bytes) -> bytes:
    """``firmware`` (MicroPython's UF2) plus the superblock wipe, as one UF2 file.

    Uf2Error if the firmware is not an RP2040 image or reaches into the file
    system (it would be another board's build, whose flash layout differs).
    """
    blocks = parse(firmware)
    for block in blocks:
        if block.family != RP2040_FAMILY:
            raise Uf2Error(f"the UF2 is not for the RP2040 (family {block.family:#010x})")
        if block.address + len(block.data) > FLASH_BASE + FS_OFFSET:
            raise Uf2Error(
                f"the UF2 writes {block.address:#x}, inside the file system of a Pico's "
                "MicroPython: not a RPI_PICO build"
            )
    return build(blocks + superblock_wipe())


__all__ = [
    "FLASH_BASE",
    "FS_OFFSET",
    "RP2040_FAMILY",
    "Uf2Block",
    "Uf2Error",
    "build",
    "parse",
    "superblock_wipe",
    "with_empty_filesystem",
]
