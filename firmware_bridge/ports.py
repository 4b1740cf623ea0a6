"""Serial ports of the Picos (the bridge, the pulse generator): opened by one program at a time.

Both are opened with pyserial's ``exclusive=True`` (an ``flock`` on the
device on POSIX). Without it a technician's ``svoyak selftest --serial``
started while the service runs would open the same Pico, and the two
programs would each read part of every frame: presses lost on both sides.
With it the second program is refused at open, and this module says why in
words a technician can act on.
"""

from __future__ import annotations

import errno

#: pyserial's message when ``exclusive=True`` finds the port locked by another program.
_LOCKED = "could not exclusively lock port"


def port_held_elsewhere(exc: BaseException) -> bool:
    """Whether opening a port failed because another program holds it (its lock, or EBUSY)."""
    if _LOCKED in str(exc).lower():
        return True
    return getattr(exc, "errno", None) == errno.EBUSY


HELD_ADVICE = (
    "another program holds the port (most often the running svoyak service): stop it first "
    "(sudo systemctl stop svoyak), run this, then start it again (sudo systemctl start svoyak)"
)
