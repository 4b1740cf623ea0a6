"""Files opened past ``select()``'s reach, for the tests of the Pico's port.

``svoyak run`` raises its descriptor limit to serve many panels, so a Pico
plugged in on a busy night can get a descriptor numbered 1024 or more, which
``select()`` cannot wait on (pyserial's own POSIX port waits with it).
"""

from __future__ import annotations

import contextlib
import gc
import os
import resource
from collections.abc import Iterator

#: select()'s FD_SETSIZE on Linux: it cannot wait on this descriptor or any above.
SELECT_LIMIT = 1024


@contextlib.contextmanager
def past_selects_reach() -> Iterator[None]:
    """Every free descriptor below :data:`SELECT_LIMIT` taken (the soft limit raised
    for it), so that the next file this process opens gets one past select()'s reach.

    Garbage is collected first: a file an earlier test dropped without closing would
    otherwise be finalized at some later allocation and free a descriptor below the
    limit for the file under test. A thread an earlier test left behind can still
    close one of its own; a test whose file opens later than at once checks where
    it landed (:func:`opened_past`)."""
    gc.collect()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = SELECT_LIMIT + 256
    assert hard == resource.RLIM_INFINITY or hard >= wanted, (
        f"this machine allows {hard} descriptors: no process here can hold one past "
        "select()'s reach, and there is nothing to show (raise the hard limit to run it)"
    )
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    fillers: list[int] = []
    try:
        while (fd := os.open(os.devnull, os.O_RDONLY)) < SELECT_LIMIT:
            fillers.append(fd)
        os.close(fd)  # the first one past the limit is left for the file under test
        yield
    finally:
        for fd in fillers:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def opened_past(limit: int) -> set[str]:
    """What this process holds open at descriptors ``limit`` and above (Linux's /proc)."""
    held = set()
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own descriptor is gone
            if int(name) >= limit:
                held.add(os.readlink(f"/proc/self/fd/{name}"))
    return held
