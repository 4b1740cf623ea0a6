"""The UF2 `svoyak pico install` copies onto a BOOTSEL drive (firmware_bridge/uf2.py):
the shipped MicroPython, block for block, plus zeros over the file system's
superblocks, so that MicroPython boots with an empty file system (held here
against littlefs itself, through littlefs-python)."""

from __future__ import annotations

import struct

import pytest
from littlefs import LittleFS, LittleFSError

from firmware_bridge import shipped, uf2
from firmware_bridge.chip import model
from firmware_bridge.install import MICROPYTHON_UF2, micropython_image

SECTOR = 4096


def _flash_as_the_boot_rom(flash: bytearray, blocks: list[uf2.Uf2Block]) -> None:
    """What the RP2040's boot ROM does with a UF2: erase each 4 KiB sector the
    first time a block lands in it, then program (flash can only clear bits)."""
    erased: set[int] = set()
    for block in blocks:
        offset = block.address - uf2.FLASH_BASE
        sector = offset // SECTOR * SECTOR
        if sector not in erased:
            flash[sector : sector + SECTOR] = b"\xff" * SECTOR
            erased.add(sector)
        for i, byte in enumerate(block.data):
            flash[offset + i] &= byte


def _mounts(image: bytes) -> list[str] | None:
    fs = LittleFS(
        block_size=model.FS_BLOCK_SIZE,
        block_count=model.FS_BLOCK_COUNT,
        prog_size=model.FS_PROG_SIZE,
        mount=False,
    )
    fs.context.buffer[:] = image
    try:
        fs.mount()
    except LittleFSError:
        return None
    return sorted(fs.listdir("/"))


def test_the_layout_is_the_chip_models() -> None:
    assert uf2.FS_OFFSET == 0xA0000
    assert uf2.FS_OFFSET + model.FS_BLOCK_SIZE * model.FS_BLOCK_COUNT == uf2.FLASH_SIZE
    assert uf2.FS_BLOCK_SIZE == model.FS_BLOCK_SIZE


def test_the_shipped_micropython_parses_and_builds_back() -> None:
    firmware = MICROPYTHON_UF2.read_bytes()
    blocks = uf2.parse(firmware)
    assert {b.family for b in blocks} == {uf2.RP2040_FAMILY}
    assert uf2.build(blocks) == firmware


def test_micropython_comes_with_an_empty_file_system() -> None:
    firmware = uf2.parse(MICROPYTHON_UF2.read_bytes())
    image = micropython_image()
    blocks = uf2.parse(image)
    assert blocks[: len(firmware)] == firmware
    wipe = blocks[len(firmware) :]
    assert wipe == uf2.superblock_wipe()
    assert {b.address for b in wipe} == set(
        range(uf2.FLASH_BASE + uf2.FS_OFFSET, uf2.FLASH_BASE + uf2.FS_OFFSET + 8192, 256)
    )
    # Numbered 0..n-1 of n: the boot ROM reboots once it has them all.
    for number in range(len(blocks)):
        no, count = struct.unpack_from("<II", image, number * 512 + 20)
        assert (no, count) == (number, len(blocks))


def test_a_pico_that_held_svoyaks_firmware_boots_with_no_file_system() -> None:
    files = shipped.firmware_files()
    flash = bytearray(b"\xff" * uf2.FLASH_SIZE)
    fs_image = model.littlefs_image({**files, "logic.py": b"# stale"})
    flash[uf2.FS_OFFSET :] = fs_image
    # MicroPython's own UF2 leaves the file system alone: main.py would run again.
    _flash_as_the_boot_rom(flash, uf2.parse(MICROPYTHON_UF2.read_bytes()))
    assert _mounts(bytes(flash[uf2.FS_OFFSET :])) == ["logic.mpy", "logic.py", "main.py"]
    # The install's UF2: littlefs finds no superblock, so MicroPython formats
    # a fresh file system at boot (ports/rp2/modules/_boot.py) and stays at its REPL.
    _flash_as_the_boot_rom(flash, uf2.parse(micropython_image()))
    assert _mounts(bytes(flash[uf2.FS_OFFSET :])) is None
    for block in uf2.parse(MICROPYTHON_UF2.read_bytes()):
        offset = block.address - uf2.FLASH_BASE
        assert flash[offset : offset + len(block.data)] == block.data


def test_images_for_another_chip_or_layout_are_refused() -> None:
    other = uf2.build([uf2.Uf2Block(uf2.FLASH_BASE, b"\x00" * 256, family=0xADA52840)])
    with pytest.raises(uf2.Uf2Error, match="not for the RP2040"):
        uf2.with_empty_filesystem(other)
    big = uf2.build([uf2.Uf2Block(uf2.FLASH_BASE + uf2.FS_OFFSET, b"\x00" * 256)])
    with pytest.raises(uf2.Uf2Error, match="not a RPI_PICO build"):
        uf2.with_empty_filesystem(big)
    with pytest.raises(uf2.Uf2Error, match="whole 512-byte blocks"):
        uf2.parse(b"\x00" * 100)
    with pytest.raises(uf2.Uf2Error, match="bad magic"):
        uf2.parse(b"\x00" * 512)
