"""``svoyak doctor``'s check of the journal's disk: fsync latency and free space.

Every decision waits for its journal commit before its lamp: a slow SD card
shows as late lamps, a full one as a game that cannot be journaled.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from buzzer.app.doctor import (
    FAIL,
    PASS,
    WARN,
    Host,
    Setup,
    Verdict,
    Words,
    skipped,
)

#: The journal's disk: one small record written and fsynced this many times...
FSYNC_RECORD = b"svoyak doctor: a journal line's worth of bytes, fsynced as SQLite commits it\n"
#: ... and judged by its p99 (ms): within PASS the lamp of a decision still looks
#: instant (a lamp within 20 ms does: docs/wire-protocol.md, the edge → lamp
#: budget, whose journal commit is 1–10 ms on an SD card); beyond FAIL every
#: decision that hits a stall shows a tenth of a second late.
FSYNC_P99_PASS_MS = 20.0
FSYNC_P99_FAIL_MS = 100.0
#: Free space on the journal's disk (MB): a game's journal is a few MB.
DISK_FAIL_MB = 100
DISK_WARN_MB = 1024


# -- the journal's disk ------------------------------------------------------------------


def quantile(ordered: Sequence[int], q: float) -> int:
    """The nearest-rank ``q`` quantile of sorted samples."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _existing(folder: Path) -> Path:
    """``folder``, or the nearest folder above it that exists (svoyak run creates the rest)."""
    for candidate in (folder, *folder.parents):
        if candidate.is_dir():
            return candidate
    return Path("/")


def _probe_file(folder: Path) -> tuple[Path, int] | None:
    try:
        fd, name = tempfile.mkstemp(dir=folder, prefix=".svoyak-doctor-", suffix=".fsync")
    except OSError:
        return None
    return Path(name), fd


def check_journal_disk(setup: Setup, host: Host, count: int) -> list[Verdict]:
    """The journal's disk: fsync latency (median, p99) and free space."""
    target = setup.journal_dir
    base = _existing(target)
    data: dict[str, Any] = {"journal_dir": str(target), "from": setup.journal_from}
    fsync = _measure_fsync(base, host, count, data)
    return [fsync, _free_space(base, host, data)]


def _measure_fsync(base: Path, host: Host, count: int, data: dict[str, Any]) -> Verdict:
    opened = _probe_file(base)
    where = base
    if opened is None:
        # Not this user's folder (the service's /var/lib/svoyak): the same disk elsewhere.
        try:
            device = base.stat().st_dev
        except OSError:
            device = None
        for other in (Path(tempfile.gettempdir()), Path("/var/tmp"), Path.home()):
            try:
                same = other.is_dir() and other.stat().st_dev == device
            except OSError:
                same = False
            if same and (opened := _probe_file(other)) is not None:
                where = other
                break
    if opened is None:
        return skipped(
            "fsync",
            Words.of("doctor.disk.cannot_write_nor_anywhere", user=host.user, base=base),
            **data,
        )
    path, fd = opened
    times: list[int] = []
    try:
        for _ in range(count):
            start = host.clock()
            os.write(fd, FSYNC_RECORD)
            host.fsync(fd)
            times.append(host.clock() - start)
    except OSError as exc:
        return Verdict(
            "fsync",
            FAIL,
            Words.of("doctor.disk.writing_failed", where=where, value=exc.strerror or exc),
            _CARD_FIX if exc.errno == errno.EIO else _SPACE_FIX,
            data,
        )
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
    ordered = sorted(times)
    median_ms = quantile(ordered, 0.5) / 1e6
    p99_ms = quantile(ordered, 0.99) / 1e6
    max_ms = ordered[-1] / 1e6
    data.update(
        measured_in=str(where),
        count=count,
        median_ms=round(median_ms, 3),
        p99_ms=round(p99_ms, 3),
        max_ms=round(max_ms, 3),
        pass_p99_ms=FSYNC_P99_PASS_MS,
        fail_p99_ms=FSYNC_P99_FAIL_MS,
    )
    elsewhere = Words("", "")
    if where != base:
        elsewhere = Words.of(
            "doctor.disk.same_disk_cannot_write", where=where, user=host.user, base=base
        )
    figures = Words.of(
        "doctor.disk.write_fsync_median_ms",
        count=count,
        median_ms=f"{median_ms:.1f}",
        p99_ms=f"{p99_ms:.1f}",
        max_ms=f"{max_ms:.1f}",
    )
    if p99_ms <= FSYNC_P99_PASS_MS:
        return Verdict("fsync", PASS, figures + elsewhere, None, data)
    status = WARN if p99_ms <= FSYNC_P99_FAIL_MS else FAIL
    limit = FSYNC_P99_PASS_MS if status == WARN else FSYNC_P99_FAIL_MS
    return Verdict(
        "fsync",
        status,
        figures + Words.of("doctor.disk.over_ms_journal_will", limit=f"{limit:g}") + elsewhere,
        _CARD_FIX,
        data,
    )


_CARD_FIX = Words.of("doctor.disk.sd_card_stalls_use")
_SPACE_FIX = Words.of("doctor.disk.free_some_space_give")


def _free_space(base: Path, host: Host, data: dict[str, Any]) -> Verdict:
    try:
        usage = host.disk_usage(str(base))
    except OSError as exc:
        return Verdict(
            "disk",
            WARN,
            Words.of("doctor.disk.cannot_tell_free_space", base=base, value=exc.strerror or exc),
            None,
            {"dir": str(base)},
        )
    free_mb = usage.free / 1e6
    found = Words.of("doctor.disk.free", size=_size(usage.free), dir=data["journal_dir"])
    facts = {
        "dir": str(base),
        "free_mb": round(free_mb, 1),
        "fail_mb": DISK_FAIL_MB,
        "warn_mb": DISK_WARN_MB,
    }
    if free_mb >= DISK_WARN_MB:
        return Verdict("disk", PASS, found, None, facts)
    return Verdict(
        "disk",
        WARN if free_mb >= DISK_FAIL_MB else FAIL,
        found,
        Words.of("doctor.disk.free_some_space_old"),
        facts,
    )


def _size(count: float) -> Words:
    if count >= 1e9:
        return Words.of("doctor.disk.gb", n=f"{count / 1e9:.1f}")
    return Words.of("doctor.disk.mb", n=f"{count / 1e6:.0f}")
