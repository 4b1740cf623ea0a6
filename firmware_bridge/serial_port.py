"""Opening the Pico's port: pyserial, waiting with ``poll()`` instead of ``select()``.

pyserial's POSIX ``Serial`` waits for its file descriptor with ``select()``,
which cannot take a descriptor numbered 1024 or above (``FD_SETSIZE``):
``ValueError: filedescriptor out of range in select()``, on every read and
every write. ``svoyak run`` raises its descriptor limit to serve many panels
and viewers (``buzzer/panel/connections.py``), so a Pico plugged back in while
a thousand connections are open gets such a descriptor, and the link could
never speak to it again. (Seen in a test run whose worker held more than
1024 descriptors: every write failed so.) :class:`PollSerial` waits with
``poll()``, which takes any descriptor; pyserial's own ``PosixPollSerial``
does so only for reads, and its read fails at a timeout with nothing read.

:func:`open_port` is the link's factory: a device path gets :class:`PollSerial`,
a pyserial URL (``loop://``, ``socket://``, ``rfc2217://``) its own class.
"""

from __future__ import annotations

import errno
import os
import select
from typing import Any

import serial  # type: ignore[import-untyped]
from serial.serialposix import Serial as PosixSerial  # type: ignore[import-untyped]
from serial.serialutil import (  # type: ignore[import-untyped]
    PortNotOpenError,
    SerialException,
    SerialTimeoutException,
    Timeout,
)

#: poll() events that end a wait: ready, or the device gone.
_READ = select.POLLIN | select.POLLERR | select.POLLHUP | select.POLLNVAL
_WRITE = select.POLLOUT | select.POLLERR | select.POLLHUP | select.POLLNVAL
_GONE = select.POLLERR | select.POLLHUP | select.POLLNVAL
#: errno values of a write that would block: wait, then write again.
_AGAIN = (errno.EAGAIN, errno.EALREADY, errno.EWOULDBLOCK, errno.EINPROGRESS, errno.EINTR)


def _wait(fd: int, abort_fd: int, events: int, timeout: Timeout) -> str:
    """Wait for ``fd``: "ready", "abort" (cancel_read/cancel_write), "timeout" or "gone"."""
    poller = select.poll()
    poller.register(fd, events)
    poller.register(abort_fd, select.POLLIN)
    left = timeout.time_left()
    for ready_fd, event in poller.poll(None if left is None else max(left, 0) * 1000):
        if ready_fd == abort_fd:
            os.read(abort_fd, 1000)
            return "abort"
        if event & _GONE and not event & (select.POLLIN | select.POLLOUT):
            return "gone"
        return "ready"
    return "timeout"


class PollSerial(PosixSerial):  # type: ignore[misc]  # pyserial has no type hints
    """pyserial's POSIX port with its waits on ``poll()``: any descriptor number."""

    def read(self, size: int = 1) -> bytes:
        if not self.is_open:
            raise PortNotOpenError()
        out = bytearray()
        timeout = Timeout(self._timeout)
        while len(out) < size:
            state = _wait(self.fd, self.pipe_abort_read_r, _READ, timeout)
            if state == "abort" or state == "timeout":
                break
            try:
                chunk = os.read(self.fd, size - len(out))
            except OSError as exc:
                if exc.errno in _AGAIN:
                    continue
                raise SerialException(f"read failed: {exc}") from exc
            if not chunk:
                # Readable with nothing to read: the device is gone (as pyserial says it).
                raise SerialException(
                    "device reports readiness to read but returned no data "
                    "(device disconnected or multiple access on port?)"
                )
            out.extend(chunk)
            if timeout.expired():
                break
        return bytes(out)

    def write(self, data: bytes) -> int:
        if not self.is_open:
            raise PortNotOpenError()
        pending = memoryview(bytes(data))
        length = len(pending)
        timeout = Timeout(self._write_timeout)
        while len(pending):
            try:
                written = os.write(self.fd, pending)
            except OSError as exc:
                if exc.errno not in _AGAIN:
                    raise SerialException(f"write failed: {exc}") from exc
                written = 0
            if timeout.is_non_blocking:
                return written
            pending = pending[written:]
            if not len(pending):
                break
            if timeout.expired():
                raise SerialTimeoutException("Write timeout")
            state = _wait(self.fd, self.pipe_abort_write_r, _WRITE, timeout)
            if state == "abort":
                return length - len(pending)
            if state == "timeout":
                raise SerialTimeoutException("Write timeout")
            if state == "gone":
                raise SerialException("write failed: the device is gone")
        return length


def open_port(url: str, **kwargs: Any) -> Any:
    """The link's port: :class:`PollSerial` for a device path, pyserial's for a URL."""
    if "://" in url:
        return serial.serial_for_url(url, **kwargs)
    return PollSerial(url, **kwargs)
