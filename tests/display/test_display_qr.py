"""The start screen's QR code (segno's encoding), checked by a decoder written
separately from it.

The decoder below reads a symbol the way a phone does once it has found the
grid: the finder, timing and alignment patterns where the standard puts
them (alignment centres from ISO/IEC 18004 Annex E, typed in, not computed),
the format information (BCH-checked, both copies), the version information
from version 7, the data modules in zigzag order, unmasked, de-interleaved
into blocks whose Reed–Solomon syndromes must all be zero, and the byte-mode
segment that must give back the input.
"""

from __future__ import annotations

import pygame
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from display import qr
from display.paint import qr_code, qr_surface
from display.qr import Level, encode

# ISO/IEC 18004 Annex E, Table E.1 (versions 1–10, 14, 21, 32, 40).
ALIGNMENT = {
    1: [],
    2: [6, 18],
    3: [6, 22],
    4: [6, 26],
    5: [6, 30],
    6: [6, 34],
    7: [6, 22, 38],
    8: [6, 24, 42],
    9: [6, 26, 46],
    10: [6, 28, 50],
    14: [6, 26, 46, 66],
    21: [6, 28, 50, 72, 94],
    32: [6, 34, 60, 86, 112, 138],
    40: [6, 30, 58, 86, 114, 142, 170],
}

# ISO/IEC 18004 Table 9: (version, level) → total codewords, and the blocks as
# (count, data codewords per block) with the error-correction codewords per block.
BLOCKS = {
    (1, "M"): (26, 10, [(1, 16)]),
    (2, "L"): (44, 10, [(1, 34)]),
    (3, "M"): (70, 26, [(1, 44)]),
    (4, "H"): (100, 16, [(4, 9)]),
    (5, "Q"): (134, 18, [(2, 15), (2, 16)]),
    (7, "M"): (196, 18, [(4, 31)]),
    (10, "H"): (346, 28, [(6, 15), (2, 16)]),
    (14, "Q"): (581, 20, [(11, 16), (5, 17)]),
}

# ISO/IEC 18004 Tables 1 and 9 for versions 1–10: total codewords; per level the
# error-correction codewords per block and the number of blocks.
TOTAL = [26, 44, 70, 100, 134, 172, 196, 242, 292, 346]
ECC = {
    "L": [7, 10, 15, 20, 26, 18, 20, 24, 30, 18],
    "M": [10, 16, 26, 18, 24, 16, 18, 22, 22, 26],
    "Q": [13, 22, 18, 26, 18, 24, 18, 22, 20, 24],
    "H": [17, 28, 22, 16, 22, 28, 26, 26, 24, 28],
}
COUNT = {
    "L": [1, 1, 1, 1, 1, 2, 2, 2, 2, 4],
    "M": [1, 1, 1, 2, 2, 4, 4, 4, 5, 5],
    "Q": [1, 1, 2, 2, 4, 4, 6, 6, 8, 8],
    "H": [1, 1, 2, 4, 4, 4, 5, 6, 8, 8],
}


def table(version: int, level: str) -> tuple[int, int, list[tuple[int, int]]]:
    if (version, level) in BLOCKS:
        return BLOCKS[(version, level)]
    return derived(version, level)


def derived(version: int, level: str) -> tuple[int, int, list[tuple[int, int]]]:
    total, ecc, count = TOTAL[version - 1], ECC[level][version - 1], COUNT[level][version - 1]
    short = count - total % count
    data = total // count - ecc
    groups = [(short, data)] + ([(count - short, data + 1)] if count > short else [])
    return total, ecc, groups


FORMAT_LEVEL = {0b01: "L", 0b00: "M", 0b11: "Q", 0b10: "H"}

MASKS = {
    0: lambda x, y: (x + y) % 2 == 0,
    1: lambda x, y: y % 2 == 0,
    2: lambda x, y: x % 3 == 0,
    3: lambda x, y: (x + y) % 3 == 0,
    4: lambda x, y: (y // 2 + x // 3) % 2 == 0,
    5: lambda x, y: (x * y) % 2 + (x * y) % 3 == 0,
    6: lambda x, y: ((x * y) % 2 + (x * y) % 3) % 2 == 0,
    7: lambda x, y: ((x + y) % 2 + (x * y) % 3) % 2 == 0,
}


# -- an independent decoder ------------------------------------------------------------


def gf_tables() -> tuple[list[int], list[int]]:
    exp, log = [0] * 512, [0] * 256
    x = 1
    for i in range(255):
        exp[i] = exp[i + 255] = x
        log[x] = i
        x = (x << 1) ^ (0x11D if x & 0x80 else 0)
    return exp, log


EXP, LOG = gf_tables()


def poly_at(codeword: list[int], x: int) -> int:
    """The codeword polynomial (highest degree first) evaluated at x in GF(256)."""
    value = 0
    for c in codeword:
        value = (EXP[LOG[value] + LOG[x]] if value else 0) ^ c
    return value


def bch_ok(value: int, bits: int, generator: int) -> bool:
    """``value`` is a codeword of the BCH code with ``generator`` (remainder zero)."""
    degree = generator.bit_length() - 1
    for shift in range(bits - 1, degree - 1, -1):
        if value >> shift & 1:
            value ^= generator << (shift - degree)
    return value == 0


def function_modules(version: int) -> set[tuple[int, int]]:
    n = 17 + 4 * version
    fixed: set[tuple[int, int]] = set()
    for x0, y0 in ((0, 0), (n - 8, 0), (0, n - 8)):  # finders with separators
        fixed |= {(x0 + dx, y0 + dy) for dx in range(8) for dy in range(8)}
    fixed |= {(6, i) for i in range(n)} | {(i, 6) for i in range(n)}
    fixed |= {(8, i) for i in range(9)} | {(i, 8) for i in range(9)}  # format, top left
    fixed |= {(8, n - 1 - i) for i in range(8)} | {(n - 1 - i, 8) for i in range(8)}
    centres = ALIGNMENT[version]
    for cx in centres:
        for cy in centres:
            if {(cx, cy)} & {(6, 6), (6, centres[-1]), (centres[-1], 6)}:
                continue
            fixed |= {(cx + dx, cy + dy) for dx in range(-2, 3) for dy in range(-2, 3)}
    if version >= 7:
        fixed |= {(n - 11 + i % 3, i // 3) for i in range(18)}
        fixed |= {(i // 3, n - 11 + i % 3) for i in range(18)}
    return fixed


def decode(code: qr.QrCode) -> tuple[int, str, int, bytes]:
    """(version, level, mask, data) read back from the modules alone."""
    m = code.modules
    n = len(m)
    assert (n - 17) % 4 == 0
    version = (n - 17) // 4
    assert all(len(row) == n for row in m)
    finder = [[max(abs(x - 3), abs(y - 3)) != 2 for x in range(7)] for y in range(7)]
    for x0, y0 in ((0, 0), (n - 7, 0), (0, n - 7)):
        assert [[m[y0 + y][x0 + x] for x in range(7)] for y in range(7)] == finder
    for i in range(8):  # separators are light
        for x, y in ((7, i), (i, 7), (n - 8, i), (n - 1 - i, 7), (7, n - 1 - i), (i, n - 8)):
            assert not m[y][x]
    for i in range(8, n - 8):  # timing patterns
        assert m[6][i] == (i % 2 == 0) and m[i][6] == (i % 2 == 0)
    assert m[n - 8][8]  # the dark module
    centres = ALIGNMENT[version]
    for cx in centres:
        for cy in centres:
            if {(cx, cy)} & {(6, 6), (6, centres[-1]), (centres[-1], 6)}:
                continue
            for dy in range(-2, 3):
                for dx in range(-2, 3):
                    assert m[cy + dy][cx + dx] == (max(abs(dx), abs(dy)) != 1)

    # Format information: both copies, BCH(15,5) after unmasking with 0x5412.
    first = (
        [(8, i) for i in range(6)] + [(8, 7), (8, 8), (7, 8)] + [(14 - i, 8) for i in range(9, 15)]
    )
    second = [(n - 1 - i, 8) for i in range(8)] + [(8, n - 15 + i) for i in range(8, 15)]
    copies = [sum(m[y][x] << i for i, (x, y) in enumerate(c)) for c in (first, second)]
    assert copies[0] == copies[1]
    info = copies[0] ^ 0x5412
    assert bch_ok(info, 15, 0x537)
    level = FORMAT_LEVEL[info >> 13]
    mask = info >> 10 & 0b111

    if version >= 7:
        for cells in (
            [(n - 11 + i % 3, i // 3) for i in range(18)],
            [(i // 3, n - 11 + i % 3) for i in range(18)],
        ):
            bits = sum(m[y][x] << i for i, (x, y) in enumerate(cells))
            assert bits >> 12 == version and bch_ok(bits, 18, 0x1F25)

    # The data modules, in zigzag pairs of columns from the bottom right.
    fixed = function_modules(version)
    stream: list[int] = []
    columns = [c for c in range(n - 1, 0, -2)]
    columns = [c - 1 if c <= 6 else c for c in columns]
    for k, right in enumerate(columns):
        rows = range(n - 1, -1, -1) if k % 2 == 0 else range(n)
        for y in rows:
            for x in (right, right - 1):
                if (x, y) not in fixed:
                    stream.append(int(m[y][x] != MASKS[mask](x, y)))
    total, ecc, groups = table(version, level)
    assert len(stream) // 8 == total
    words = [int("".join(map(str, stream[i : i + 8])), 2) for i in range(0, total * 8, 8)]

    sizes = [size for count, size in groups for _ in range(count)]
    blocks: list[list[int]] = [[] for _ in sizes]
    pos = 0
    for i in range(max(sizes)):
        for b, size in enumerate(sizes):
            if i < size:
                blocks[b].append(words[pos])
                pos += 1
    for _ in range(ecc):
        for b in range(len(sizes)):
            blocks[b].append(words[pos])
            pos += 1
    assert pos == total
    for block in blocks:
        assert all(poly_at(block, EXP[i]) == 0 for i in range(ecc)), "Reed–Solomon syndrome"

    data_bits = "".join(f"{w:08b}" for b, size in zip(blocks, sizes, strict=True) for w in b[:size])
    assert data_bits[:4] == "0100"  # byte mode
    count_bits = 8 if version < 10 else 16
    length = int(data_bits[4 : 4 + count_bits], 2)
    start = 4 + count_bits
    payload = bytes(int(data_bits[start + 8 * i : start + 8 * i + 8], 2) for i in range(length))
    rest = data_bits[start + 8 * length :]
    assert set(rest[:4]) <= {"0"}  # the terminator
    pads = rest[(4 + (-(start + 8 * length + 4)) % 8) :]
    pad_words = [int(pads[i : i + 8], 2) for i in range(0, len(pads) - 7, 8)]
    if pad_words[:1] == [0]:
        # segno 1.6 fills to the codeword boundary with 8 zero bits when the
        # terminator already ends on one: a whole zero codeword before the pad
        # codewords. Readers stop at the terminator, so it costs nothing but
        # capacity the data did not need; anything else must be the pattern.
        pad_words = pad_words[1:]
    assert pad_words == [(0xEC, 0x11)[i % 2] for i in range(len(pad_words))]
    return version, level, mask, payload


# -- tests --------------------------------------------------------------------------------


def byte_capacity(version: int, level: str) -> int:
    """Bytes a symbol holds in byte mode, from the typed tables (4-bit mode, count bits)."""
    _total, _ecc, groups = table(version, level)
    data_words = sum(count * size for count, size in groups)
    count_bits = 8 if version < 10 else 16
    return (data_words * 8 - 4 - count_bits) // 8


@pytest.mark.parametrize("version_level", sorted(BLOCKS))
def test_symbols_decode_back(version_level: tuple[int, str]) -> None:
    version, level = version_level
    capacity = byte_capacity(version, level)
    payload = bytes((i * 37 + 11) % 256 for i in range(capacity))
    for mask in (0, 5):
        code = encode(payload, Level[level], min_version=version, max_version=version, mask=mask)
        assert code.size == 17 + 4 * version
        assert decode(code) == (version, level, mask, payload)


def test_the_drawn_code_reads_back() -> None:
    """The start screen's picture of the code: sampled at module centres, it decodes."""
    url = "http://192.168.1.23:8000/panel"
    code = qr_code(url)
    image = qr_surface(code, 300)
    modules = code.size + 8
    scale = image.get_width() // modules
    assert image.get_width() == image.get_height() == modules * scale <= 300
    light = image.get_at((scale // 2, scale // 2))  # the quiet zone
    assert light == pygame.Color(255, 255, 255)
    sampled = tuple(
        tuple(
            image.get_at(((x + 4) * scale + scale // 2, (y + 4) * scale + scale // 2))[0] < 128
            for x in range(code.size)
        )
        for y in range(code.size)
    )
    read = qr.QrCode(0, Level.M, 0, sampled)
    assert decode(read)[3] == url.encode()


def test_the_panel_address() -> None:
    url = "http://192.168.1.23:8000/panel"
    code = encode(url)
    assert code.level is Level.M and code.version == 3 and code.size == 29
    assert decode(code) == (3, "M", code.mask, url.encode())


def test_a_cyrillic_address_is_its_utf8_bytes() -> None:
    url = "http://своя-игра.local:8000/"
    assert decode(encode(url))[3] == url.encode("utf-8")


@settings(max_examples=30, deadline=None)
@given(st.binary(min_size=0, max_size=60), st.sampled_from(list(Level)))
def test_any_short_payload(payload: bytes, level: Level) -> None:
    code = encode(payload, level, max_version=10)
    version, name, mask, data = decode(code)
    assert (version, name, mask, data) == (code.version, level.name, code.mask, payload)
    # The smallest version that holds it, at the level asked (not raised).
    assert version == 1 or len(payload) > byte_capacity(version - 1, level.name)


def test_the_typed_tables_agree() -> None:
    for (version, level), expected in BLOCKS.items():
        if version <= 10:
            assert derived(version, level) == expected
    # ISO/IEC 18004 Table 7, byte mode.
    assert [byte_capacity(1, lv) for lv in "LMQH"] == [17, 14, 11, 7]
    assert byte_capacity(10, "M") == 213


def test_limits() -> None:
    with pytest.raises(qr.QrError, match="at most 10"):
        encode(b"x" * 300, Level.H, max_version=10)
    with pytest.raises(qr.QrError, match="do not fit"):
        encode(b"x" * 3000, Level.L)
    with pytest.raises(ValueError):
        encode("x", mask=8)
    with pytest.raises(ValueError):
        encode("x", min_version=5, max_version=4)
    assert encode("x", min_version=5).version == 5
