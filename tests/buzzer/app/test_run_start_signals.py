"""Ctrl-C and SIGTERM while ``svoyak run`` starts (buzzer/app/start_signals.py).

A Ctrl-C just after the ``PIN:`` line used to land half-way through building
the server: a traceback (2 in 30 tries on a loaded machine) and, once, a
process that never exited. From the runtime's start on, a signal only asks
the server to stop; the board window gets ``KeyboardInterrupt`` back first.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import types

import pytest

from buzzer.app.start_signals import StartSignals
from tests.support.live_run import RUN


def test_a_signal_during_the_start_is_remembered_and_stops_the_server() -> None:
    server = types.SimpleNamespace(should_exit=False)
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with contextlib.ExitStack() as cleanup:
        signals = StartSignals().install(cleanup, server)
        os.kill(os.getpid(), signal.SIGINT)  # no KeyboardInterrupt here
        assert signals.requested and server.should_exit
        os.kill(os.getpid(), signal.SIGTERM)  # nor the process killed
        assert signals.requested
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_handed_over_a_ctrl_c_or_a_sigterm_is_a_keyboard_interrupt_again() -> None:
    server = types.SimpleNamespace(should_exit=False)
    with contextlib.ExitStack() as cleanup:
        signals = StartSignals().install(cleanup, server)
        signals.hand_over()
        for signum in (signal.SIGINT, signal.SIGTERM):
            with pytest.raises(KeyboardInterrupt):
                os.kill(os.getpid(), signum)
                time.sleep(0.5)  # (the handler runs as os.kill returns)
        assert not signals.requested and not server.should_exit


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGINT, signal.SIGTERM])
def test_a_signal_just_after_the_pin_line_stops_the_run_without_a_traceback(
    signum: int, tmp_path: os.PathLike[str]
) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    proc = subprocess.Popen(
        [*RUN, "--port", "0", "--no-journal", "--no-mdns"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    printed: list[str] = []
    try:
        while not printed or not printed[-1].strip().startswith("PIN:"):
            line = proc.stdout.readline()
            assert line, "".join(printed)
            printed.append(line)
        proc.send_signal(signum)  # at once: the server is still being built
        status = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    rest = proc.stdout.read()
    assert status == 0, rest
    assert "Traceback" not in rest, rest
    assert "the game stopped" in rest, rest
