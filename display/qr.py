"""The start screen's QR code: the panel's address for a phone's camera.

The encoding (ISO/IEC 18004: segments, Reed–Solomon, masks, format and version
information) is segno's, a maintained pure-Python encoder, rather than a
hand-written one of our own. This module only asks it for byte mode at a given
error-correction level and hands the board plain modules: the painter
(:mod:`display.paint`) turns :attr:`QrCode.modules` into pixels.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import segno

from buzzer.errors import SvoyakError


class Level(Enum):
    """Error-correction level: how many codewords can be restored."""

    L = "L"  # ~7 %
    M = "M"  # ~15 %
    Q = "Q"  # ~25 %
    H = "H"  # ~30 %


class QrError(SvoyakError, ValueError):
    """The data does not fit in a QR code of the versions allowed."""


@dataclass(frozen=True, slots=True)
class QrCode:
    """A QR symbol as plain data (no quiet zone)."""

    version: int
    level: Level
    mask: int
    #: modules[y][x], True = dark; no quiet zone.
    modules: tuple[tuple[bool, ...], ...]

    @property
    def size(self) -> int:
        return len(self.modules)


def encode(
    data: str | bytes,
    level: Level = Level.M,
    *,
    min_version: int = 1,
    max_version: int = 40,
    mask: int | None = None,
) -> QrCode:
    """``data`` in byte mode at ``level``: the smallest version from ``min_version``
    that holds it, with the lowest-penalty mask unless ``mask`` (0–7) is given.

    Raises :class:`QrError` when even ``max_version`` is too small. The level
    is kept as asked (segno would otherwise raise it when the data leaves room).
    """
    if not 1 <= min_version <= max_version <= 40:
        raise ValueError(f"versions must satisfy 1 <= {min_version} <= {max_version} <= 40")
    if mask is not None and not 0 <= mask <= 7:
        raise ValueError(f"a QR mask is 0-7, not {mask}")
    payload = data.encode("utf-8") if isinstance(data, str) else data

    def make(version: int | None) -> segno.QRCode:
        return segno.make_qr(
            payload,
            error=level.value,
            version=version,
            mode="byte",
            mask=mask,
            boost_error=False,
        )

    try:
        symbol = make(None)
        if int(symbol.version) < min_version:
            symbol = make(min_version)
    except segno.DataOverflowError:
        raise QrError(
            f"{len(payload)} bytes do not fit in a QR code at level {level.name}"
        ) from None
    version = int(symbol.version)
    if version > max_version:
        raise QrError(
            f"{len(payload)} bytes need QR version {version} at level {level.name}; "
            f"at most {max_version} is allowed"
        )
    modules = tuple(tuple(bool(cell) for cell in row) for row in symbol.matrix)
    return QrCode(version, level, int(symbol.mask), modules)
