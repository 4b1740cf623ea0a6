"""A small QR code encoder (ISO/IEC 18004, Model 2), byte mode only.

Enough for the start screen's panel address: a URL of a few dozen bytes.
Versions 1–40 and the four error-correction levels are supported; the mask
is the one with the lowest penalty score, unless one is asked for. Pure
Python, no pygame: the renderer turns :attr:`QrCode.modules` into pixels.

The steps follow the standard: mode indicator, character count, data,
terminator and pad bytes; Reed–Solomon error correction per block over
GF(2⁸) (polynomial 0x11D); interleaving; the function patterns (finders,
separators, timing, alignment, dark module); the zigzag placement; the mask;
the format information (BCH(15,5), XOR 0x5412) and, from version 7, the
version information (BCH(18,6)).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from buzzer.errors import SvoyakError


class Level(Enum):
    """Error-correction level: (table row, the two format-information bits)."""

    L = (0, 0b01)  # ~7 % of codewords can be restored
    M = (1, 0b00)  # ~15 %
    Q = (2, 0b11)  # ~25 %
    H = (3, 0b10)  # ~30 %

    @property
    def row(self) -> int:
        return self.value[0]

    @property
    def format_bits(self) -> int:
        return self.value[1]


# ISO/IEC 18004 Table 9, by level (L, M, Q, H) then version 1..40.
_ECC_PER_BLOCK = (
    (7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
     28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30),
    (10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
     26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28),
    (13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
     28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30),
    (17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
     30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30),
)  # fmt: skip
_BLOCKS = (
    (1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
     8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25),
    (1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
     17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49),
    (1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
     23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68),
    (1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
     25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81),
)  # fmt: skip

MIN_VERSION, MAX_VERSION = 1, 40

# The eight data masks (x = column, y = row): True inverts the module.
MASKS: tuple[Callable[[int, int], bool], ...] = (
    lambda x, y: (x + y) % 2 == 0,
    lambda x, y: y % 2 == 0,
    lambda x, y: x % 3 == 0,
    lambda x, y: (x + y) % 3 == 0,
    lambda x, y: (x // 3 + y // 2) % 2 == 0,
    lambda x, y: (x * y) % 2 + (x * y) % 3 == 0,
    lambda x, y: ((x * y) % 2 + (x * y) % 3) % 2 == 0,
    lambda x, y: ((x + y) % 2 + (x * y) % 3) % 2 == 0,
)


class QrError(SvoyakError, ValueError):
    """The data does not fit any allowed version."""


# -- GF(256) and Reed–Solomon ---------------------------------------------------------

_EXP = [0] * 512
_LOG = [0] * 256
_value = 1
for _i in range(255):
    _EXP[_i] = _value
    _LOG[_value] = _i
    _value <<= 1
    if _value & 0x100:
        _value ^= 0x11D
for _i in range(255, 512):
    _EXP[_i] = _EXP[_i - 255]


def gf_mul(a: int, b: int) -> int:
    if a == 0 or b == 0:
        return 0
    return _EXP[_LOG[a] + _LOG[b]]


def rs_generator(degree: int) -> list[int]:
    """The generator polynomial ∏(x − αⁱ), i < degree, highest coefficient first."""
    poly = [1]
    for i in range(degree):
        root = _EXP[i]
        product = [*poly, 0]
        for j, coefficient in enumerate(poly):
            product[j + 1] ^= gf_mul(coefficient, root)
        poly = product
    return poly


def rs_remainder(data: bytes | list[int], degree: int) -> list[int]:
    """The ``degree`` error-correction codewords of ``data``."""
    generator = rs_generator(degree)
    remainder = [0] * degree
    for byte in data:
        factor = byte ^ remainder[0]
        remainder = [*remainder[1:], 0]
        if factor:
            for j in range(degree):
                remainder[j] ^= gf_mul(generator[j + 1], factor)
    return remainder


# -- capacity -------------------------------------------------------------------------


def alignment_positions(version: int) -> list[int]:
    """The centre coordinates of the alignment patterns (rows and columns alike)."""
    if version == 1:
        return []
    count = version // 7 + 2
    last = version * 4 + 10
    # Evenly spaced back from the last, in even steps (version 32 is the exception).
    step = 26 if version == 32 else (version * 4 + count * 2 + 1) // (count * 2 - 2) * 2
    return [6, *reversed([last - i * step for i in range(count - 1)])]


def raw_codewords(version: int) -> int:
    """Codewords (data + error correction) a symbol of ``version`` holds."""
    modules = (16 * version + 128) * version + 64
    if version >= 2:
        count = version // 7 + 2
        modules -= (25 * count - 10) * count - 55
        if version >= 7:
            modules -= 36
    return modules // 8


def data_codewords(version: int, level: Level) -> int:
    i = version - 1
    return raw_codewords(version) - _ECC_PER_BLOCK[level.row][i] * _BLOCKS[level.row][i]


def block_layout(version: int, level: Level) -> tuple[int, list[int]]:
    """(error-correction codewords per block, data codewords of each block)."""
    i = version - 1
    blocks = _BLOCKS[level.row][i]
    ecc = _ECC_PER_BLOCK[level.row][i]
    raw = raw_codewords(version)
    short = blocks - raw % blocks
    short_data = raw // blocks - ecc
    return ecc, [short_data + (0 if b < short else 1) for b in range(blocks)]


def _count_bits(version: int) -> int:
    return 8 if version < 10 else 16


def byte_capacity(version: int, level: Level) -> int:
    """How many bytes fit in byte mode."""
    return (data_codewords(version, level) * 8 - 4 - _count_bits(version)) // 8


# -- the symbol -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QrCode:
    version: int
    level: Level
    mask: int
    #: modules[y][x], True = dark; no quiet zone.
    modules: tuple[tuple[bool, ...], ...]

    @property
    def size(self) -> int:
        return len(self.modules)


def _codewords(data: bytes, version: int, level: Level) -> list[int]:
    """Data codewords (mode, count, data, terminator, pad), then interleaved with their ECC."""
    capacity = data_codewords(version, level) * 8
    bits: list[int] = []

    def put(value: int, width: int) -> None:
        bits.extend((value >> i) & 1 for i in range(width - 1, -1, -1))

    put(0b0100, 4)  # byte mode
    put(len(data), _count_bits(version))
    for byte in data:
        put(byte, 8)
    put(0, min(4, capacity - len(bits)))
    put(0, -len(bits) % 8)
    pad = 0xEC
    while len(bits) < capacity:
        put(pad, 8)
        pad ^= 0xEC ^ 0x11
    words = [int("".join(map(str, bits[i : i + 8])), 2) for i in range(0, len(bits), 8)]

    ecc, sizes = block_layout(version, level)
    blocks: list[list[int]] = []
    start = 0
    for size in sizes:
        blocks.append(words[start : start + size])
        start += size
    out = [block[i] for i in range(max(sizes)) for block in blocks if i < len(block)]
    corrections = [rs_remainder(block, ecc) for block in blocks]
    out.extend(c[i] for i in range(ecc) for c in corrections)
    return out


class _Matrix:
    def __init__(self, version: int) -> None:
        self.version = version
        self.size = n = version * 4 + 17
        self.dark = [[False] * n for _ in range(n)]
        self.function = [[False] * n for _ in range(n)]

    def put(self, x: int, y: int, dark: bool) -> None:
        self.dark[y][x] = dark
        self.function[y][x] = True

    def draw_function_patterns(self) -> None:
        n = self.size
        for i in range(n):  # timing patterns
            self.put(6, i, i % 2 == 0)
            self.put(i, 6, i % 2 == 0)
        for cx, cy in ((3, 3), (n - 4, 3), (3, n - 4)):  # finders with their separators
            for dy in range(-4, 5):
                for dx in range(-4, 5):
                    x, y = cx + dx, cy + dy
                    if 0 <= x < n and 0 <= y < n:
                        self.put(x, y, max(abs(dx), abs(dy)) not in (2, 4))
        centres = alignment_positions(self.version)
        last = len(centres) - 1
        for i, cx in enumerate(centres):
            for j, cy in enumerate(centres):
                if (i, j) in ((0, 0), (0, last), (last, 0)):
                    continue  # those corners hold finders
                for dy in range(-2, 3):
                    for dx in range(-2, 3):
                        self.put(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1)
        self.draw_format(0)  # reserve the format areas (drawn for real after masking)
        if self.version >= 7:
            self.draw_version()

    def draw_format(self, bits: int) -> None:
        n = self.size

        def bit(i: int) -> bool:
            return (bits >> i) & 1 == 1

        for i in range(6):
            self.put(8, i, bit(i))
        self.put(8, 7, bit(6))
        self.put(8, 8, bit(7))
        self.put(7, 8, bit(8))
        for i in range(9, 15):
            self.put(14 - i, 8, bit(i))
        for i in range(8):
            self.put(n - 1 - i, 8, bit(i))
        for i in range(8, 15):
            self.put(8, n - 15 + i, bit(i))
        self.put(8, n - 8, True)  # the dark module

    def draw_version(self) -> None:
        bits = version_bits(self.version)
        n = self.size
        for i in range(18):
            dark = (bits >> i) & 1 == 1
            a, b = n - 11 + i % 3, i // 3
            self.put(a, b, dark)
            self.put(b, a, dark)

    def draw_codewords(self, words: list[int]) -> None:
        n = self.size
        total = len(words) * 8
        i = 0
        right = n - 1
        while right >= 1:
            if right == 6:
                right = 5  # the vertical timing pattern is skipped
            upward = ((right + 1) & 2) == 0
            for vert in range(n):
                y = n - 1 - vert if upward else vert
                for x in (right, right - 1):
                    if self.function[y][x]:
                        continue
                    if i < total:
                        self.dark[y][x] = (words[i >> 3] >> (7 - (i & 7))) & 1 == 1
                        i += 1
                    # remainder bits stay light
            right -= 2

    def masked(self, mask: int) -> list[list[bool]]:
        invert = MASKS[mask]
        return [
            [d if f else d != invert(x, y) for x, (d, f) in enumerate(zip(row, frow, strict=True))]
            for y, (row, frow) in enumerate(zip(self.dark, self.function, strict=True))
        ]


def format_bits(level: Level, mask: int) -> int:
    """The 15 format-information bits: level and mask, BCH(15,5), XOR 0x5412."""
    data = level.format_bits << 3 | mask
    rem = data
    for _ in range(10):
        rem = (rem << 1) ^ ((rem >> 9) * 0x537)
    return (data << 10 | rem) ^ 0x5412


def version_bits(version: int) -> int:
    """The 18 version-information bits (versions 7 and up): BCH(18,6)."""
    rem = version
    for _ in range(12):
        rem = (rem << 1) ^ ((rem >> 11) * 0x1F25)
    return version << 12 | rem


def penalty(modules: list[list[bool]]) -> int:
    """The mask penalty score (ISO/IEC 18004 7.8.3: N1 = 3, N2 = 3, N3 = 40, N4 = 10)."""
    n = len(modules)
    columns = [[modules[y][x] for y in range(n)] for x in range(n)]
    score = 0
    finder_a = (True, False, True, True, True, False, True, False, False, False, False)
    finder_b = finder_a[::-1]
    for line in (*modules, *columns):
        run = 1
        for i in range(1, n + 1):
            if i < n and line[i] == line[i - 1]:
                run += 1
                continue
            if run >= 5:
                score += 3 + run - 5
            run = 1
        padded = (False,) * 4 + tuple(line) + (False,) * 4
        for i in range(len(padded) - 10):
            window = padded[i : i + 11]
            if window in (finder_a, finder_b):
                score += 40
    for y in range(n - 1):
        row, below = modules[y], modules[y + 1]
        for x in range(n - 1):
            if row[x] == row[x + 1] == below[x] == below[x + 1]:
                score += 3
    dark = sum(sum(row) for row in modules)
    percent = dark * 100 // (n * n)
    score += 10 * (abs(percent - 50) // 5)
    return score


def encode(
    data: bytes | str,
    level: Level = Level.M,
    *,
    min_version: int = MIN_VERSION,
    max_version: int = MAX_VERSION,
    mask: int | None = None,
) -> QrCode:
    """The smallest symbol (version ≥ ``min_version``) that holds ``data`` at ``level``."""
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if not MIN_VERSION <= min_version <= max_version <= MAX_VERSION:
        raise ValueError(f"versions must be within {MIN_VERSION}..{MAX_VERSION}")
    if mask is not None and not 0 <= mask < len(MASKS):
        raise ValueError("mask must be 0..7")
    version = next(
        (v for v in range(min_version, max_version + 1) if len(payload) <= byte_capacity(v, level)),
        None,
    )
    if version is None:
        raise QrError(
            f"{len(payload)} bytes do not fit a version-{max_version} QR code at level {level.name}"
        )
    matrix = _Matrix(version)
    matrix.draw_function_patterns()
    matrix.draw_codewords(_codewords(payload, version, level))
    candidates = range(len(MASKS)) if mask is None else (mask,)
    best: tuple[int, int, list[list[bool]]] | None = None
    for m in candidates:
        modules = matrix.masked(m)
        trial = _Matrix(version)
        trial.dark, trial.function = modules, [row[:] for row in matrix.function]
        trial.draw_format(format_bits(level, m))
        score = penalty(trial.dark) if mask is None else 0
        if best is None or score < best[0]:
            best = (score, m, trial.dark)
    assert best is not None
    _, chosen, modules = best
    return QrCode(version, level, chosen, tuple(tuple(row) for row in modules))
