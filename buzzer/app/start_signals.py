"""Ctrl-C and SIGTERM while ``svoyak run`` starts: remembered, never raised half-way.

Python turns SIGINT into a ``KeyboardInterrupt`` wherever the main thread
happens to be. Between the runtime's threads starting and uvicorn installing
its own handlers, that may be halfway through building the server or
publishing the PIN (a traceback for the host); and once asyncio's runner has
started, its own SIGINT handler takes the signal before uvicorn's does, which
can leave the panel serving with the stop lost.

From :meth:`StartSignals.install` on, either signal only asks the server to
stop: ``svoyak run`` then does not serve, or uvicorn (which checks
``should_exit`` from its first tick) stops at once, and the stop's lines are
printed as for any Ctrl-C. While uvicorn serves on the main thread it handles
the signals itself and hands them back here when it is done. With the board
window uvicorn serves in a thread and the window's loop stops on a
``KeyboardInterrupt``: :meth:`StartSignals.hand_over` gives that back first.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Any

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


class StartSignals:
    """Whether a stop was asked for since :meth:`install` (see the module docstring)."""

    def __init__(self) -> None:
        self.requested = False
        self._server: Any = None
        self._installed = False

    def install(self, cleanup: contextlib.ExitStack, server: Any) -> StartSignals:
        """Catch SIGINT and SIGTERM from now on; ``cleanup`` puts back what was there.

        ``server``: the uvicorn ``Server`` whose ``should_exit`` a signal sets.
        Signals can only be handled on the main thread: elsewhere, nothing changes.
        """
        if threading.current_thread() is not threading.main_thread():
            return self
        self._server = server
        for signum in _SIGNALS:
            previous = signal.signal(signum, self._note)
            cleanup.callback(signal.signal, signum, previous)
        self._installed = True
        return self

    def _note(self, signum: int, frame: Any) -> None:
        self.requested = True
        if self._server is not None:
            self._server.should_exit = True

    def hand_over(self) -> None:
        """From here on Ctrl-C and SIGTERM raise ``KeyboardInterrupt`` in the main
        thread (the board window's loop stops on it). By default SIGTERM would kill
        the process on the spot, leaving the mDNS name in the tablets' caches and
        the PIN file behind."""
        if self._installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, _interrupt)


__all__ = ["StartSignals"]
