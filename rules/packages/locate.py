"""The question package a journal header names, found and read in one place.

A header's ``package`` is the built-in demo's name, or a path to a ``.siq`` or
the project's ``.json``, relative to the journal's folder. Both the journal
codec (which builds the board from it) and the board's screen (which shows the
questions' texts) need that package. They used to resolve the name each on its
own, and so read the file twice; now both ask :func:`load_named_package`, which
keeps the packages it read, keyed by the file's identity (path, size and
modification time), so a game reads its package once and a package edited on
disk is read afresh.

Packages are frozen dataclasses, so handing the same object to both readers
shares nothing mutable.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path

from rules.packages.demo import BUILTIN_DEMO, DEMO_PACKAGE
from rules.packages.model import Package
from rules.packages.own import load_json
from rules.packages.siq import load_siq

#: How many packages stay read: a tournament day alternates a few at most.
CACHED_PACKAGES = 4

_FileKey = tuple[str, int, int]
_cache: OrderedDict[_FileKey, Package] = OrderedDict()
_cache_lock = threading.Lock()


def package_path(name: str, base: Path | None) -> Path:
    """Where the header's ``package`` name points: relative to ``base`` (the
    journal's folder) unless absolute. The demo has no path: see
    :func:`load_named_package`."""
    path = Path(name)
    if not path.is_absolute() and base is not None:
        path = base / path
    return path


def load_named_package(name: str, base: Path | None = None) -> Package:
    """The package a header names: the built-in demo, a ``.siq`` or a ``.json``.

    Raises :class:`~rules.packages.model.PackageError` for a package that is
    not a valid one and :class:`OSError` for a file that cannot be read; each
    caller decides what that means for it (the codec refuses the journal, the
    board shows no texts).
    """
    if name == BUILTIN_DEMO:
        return _read(DEMO_PACKAGE)
    return _read(package_path(name, base))


def _read(path: Path) -> Package:
    stat = os.stat(path)
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    package = load_siq(path) if path.suffix.lower() == ".siq" else load_json(path)
    with _cache_lock:
        _cache[key] = package
        while len(_cache) > CACHED_PACKAGES:
            _cache.popitem(last=False)
    return package


def forget_packages() -> None:
    """Drop every package read so far (tests; a long-running tool after a purge)."""
    with _cache_lock:
        _cache.clear()
