"""A real, tiny file system to fill up: the journal's disk running out mid-game.

Not a mock of a full disk: a file system the kernel says is full (``ENOSPC``),
so SQLite meets exactly what it meets on a Pi whose SD card filled up.

- As root: an ext4 image of a few hundred kilobytes, loop-mounted (a tmpfs of
  that size where loop devices are not available, as in some containers).
- As anyone else: a tmpfs in a user and mount namespace of its own
  (``unshare --user --map-root-user --mount``, unprivileged on current
  kernels). Only processes inside it see the mount, so :attr:`TinyDisk.prefix`
  runs a command there (``nsenter``), and :attr:`TinyDisk.path` reaches the
  same folder from outside through ``/proc/PID/root``.

Nothing here is optional: a machine that can do neither fails the test with
the reason, since a full disk is a promise the product makes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

#: Small enough to fill in a moment, big enough for SQLite and a short game.
SIZE_KB = 512


@dataclass
class TinyDisk:
    """A mounted tiny file system: where to put files, and how to run inside it."""

    #: The mount's folder, as this process reaches it.
    path: Path
    #: The mount's folder, as a process started with :attr:`prefix` names it.
    inside: Path
    #: Put before a command to run it where the mount is seen (empty as root).
    prefix: list[str] = field(default_factory=list)
    how: str = ""

    def fill(self) -> int:
        """Write a filler file until the file system says it is full; its size."""
        filler = self.path / "filler"
        chunk = b"\0" * 4096
        written = 0
        with filler.open("ab", buffering=0) as handle:
            while True:
                try:
                    written += handle.write(chunk)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
        # Also the last partial block: a 1-byte write at a time until none fits.
        with filler.open("ab", buffering=0) as handle, contextlib.suppress(OSError):
            while handle.write(b"\0"):
                written += 1
        return written

    def free(self) -> None:
        """Take the filler away: the space is back."""
        (self.path / "filler").unlink()


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)


@contextlib.contextmanager
def tiny_disk(size_kb: int = SIZE_KB) -> Iterator[TinyDisk]:
    """A tiny file system, mounted for the ``with`` block, then gone."""
    work = Path(tempfile.mkdtemp(prefix="svoyak-tiny-disk-"))
    mount = work / "mnt"
    mount.mkdir()
    try:
        if os.geteuid() == 0:
            with _as_root(work, mount, size_kb) as disk:
                yield disk
        else:
            with _in_namespace(mount, size_kb) as disk:
                yield disk
    finally:
        shutil.rmtree(work, ignore_errors=True)


@contextlib.contextmanager
def _as_root(work: Path, mount: Path, size_kb: int) -> Iterator[TinyDisk]:
    image = work / "disk.img"
    with image.open("wb") as handle:
        handle.truncate(size_kb * 1024)
    made = _run("mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal", str(image))
    how = "a loop-mounted ext4 image"
    mounted = made.returncode == 0 and _run("mount", "-o", "loop", str(image), str(mount))
    if not mounted or mounted.returncode != 0:
        how = "a tmpfs (no loop device here)"
        tmpfs = _run("mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tiny", str(mount))
        if tmpfs.returncode != 0:
            raise RuntimeError(f"cannot mount a tiny file system as root: {tmpfs.stderr.strip()}")
    try:
        yield TinyDisk(mount, mount, [], how)
    finally:
        _run("umount", "-l", str(mount))


@contextlib.contextmanager
def _in_namespace(mount: Path, size_kb: int) -> Iterator[TinyDisk]:
    if shutil.which("unshare") is None or shutil.which("nsenter") is None:
        raise RuntimeError("a non-root full-disk test needs util-linux's unshare and nsenter")
    holder = subprocess.Popen(
        [
            "unshare",
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            f'mount -t tmpfs -o size={size_kb}k tiny "{mount}" && echo ready && exec sleep 3600',
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        if holder.stdout.readline().strip() != "ready":
            holder.wait(timeout=10)
            err = holder.stderr.read() if holder.stderr else ""
            raise RuntimeError(
                f"cannot mount a tmpfs in a user namespace (unprivileged user namespaces "
                f"disabled?): {err.strip()}"
            )
        pid = holder.pid
        prefix = ["nsenter", "-t", str(pid), "-U", "-m", "--preserve-credentials"]
        yield TinyDisk(
            Path(f"/proc/{pid}/root") / mount.relative_to("/"),
            mount,
            prefix,
            "a tmpfs in a user namespace",
        )
    finally:
        holder.kill()
        holder.wait()
