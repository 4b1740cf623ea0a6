"""Which names from a ``.siq`` may be looked up: zip entry names and media names.

A package is untrusted input, and a name in it is what could reach outside
the package: an entry named ``../x`` or ``C:x`` in the zip, or a media
reference in ``content.xml`` with a path in it. Both the archive
(:mod:`rules.packages.siq`, on opening it and on each media lookup) and the
``content.xml`` reader (:mod:`rules.packages.siq_content`, for each media
reference) apply these rules, so they live below both, in one place.
Pure: no I/O.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from rules.packages.model import PackageError

_DRIVE = re.compile(r"^[A-Za-z]:")


def unsafe_entry_name(name: str) -> bool:
    """An entry name that could point outside a folder it were extracted to."""
    norm = name.replace("\\", "/")
    return (
        "\x00" in norm
        or norm.startswith("/")
        or bool(_DRIVE.match(norm))
        or any(part == ".." for part in norm.split("/"))
    )


def check_media_name(name: str, label: str) -> None:
    """Refuse a media name that is not a plain file name, as written or percent-decoded."""
    for candidate in (name, unquote(name)):
        if (
            not candidate
            or candidate in (".", "..")
            or "/" in candidate
            or "\\" in candidate
            or "\x00" in candidate
        ):
            raise PackageError(
                f"{label}: media name {name!r} is not a plain file name; refusing to look it up"
            )
