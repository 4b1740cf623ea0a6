"""``svoyak run`` with the board: the window on the main thread, the panel beside it.

The composition: the controller owns the game and the runtime owns time
(its own thread); uvicorn serves the panel in a background thread; the
board window runs on the main thread (SDL wants it there), drawing the
controller's snapshots and turning the keyboard into buttons — a source of
the runtime, like every other, whose host keys go through the runtime's
host-command service like the panel's taps. Closing the window stops the server.
"""

from __future__ import annotations

import socket
import sys
import threading
from typing import Any

from buzzer.arbiter.commands import Sender
from buzzer.runtime.runtime import CommandRefused, Runtime


def run_with_board(
    server: Any, sock: socket.socket, runtime: Runtime, url: str, texts: Any = None
) -> int:
    """Serve the panel in a thread and run the board window until it closes.

    The start screen shows ``url`` (and its QR code), never the host's PIN:
    every player looks at the board, and the PIN makes whoever knows it the
    judge of their own answer (``hostpin.py``).
    """
    import pygame

    from buzzer.journal.seal import short
    from display.app import BoardApp
    from display.keyboard import KeyboardButtons
    from display.scene import AfterGame, StartInfo

    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    title = runtime.controller.core.setup.rules.title
    board = BoardApp(start=StartInfo(url=url, title=title))
    try:
        board.open()
    except pygame.error as exc:
        server.should_exit = True
        thread.join(timeout=5)
        print(
            f"svoyak run: cannot open the board window ({exc}); "
            "on a machine with no screen use --headless",
            file=sys.stderr,
        )
        return 2
    controller = runtime.controller
    board.attach(controller)
    # The game-over screen's corner: the report on the panel's address, and
    # the journal's seal for the paper scoresheet (None without a sealed journal).
    report_url = url.rstrip("/") + "/report"

    def after() -> AfterGame:
        seal = controller.seal()
        return AfterGame(report_url, None if seal is None else short(seal))

    board.after = after
    if texts is not None:
        # The question's text, pictures and sound from the package (the snapshot
        # carries none), looked up on the board's own thread as snapshots arrive.
        board.use_package(texts)
    keyboard = runtime.clock_source("keyboard")

    def refused(exc: Exception) -> None:
        if isinstance(exc, CommandRefused):
            told = exc.refusal
            said = f"{told.ru} / {told.en}" if told is not None else exc.message
            print(f"svoyak: {said}", file=sys.stderr)
        else:
            raise exc

    keys = KeyboardButtons(
        lambda make, trial: keyboard.put(make, trial=trial),
        len(controller.core.setup.players),
        on_error=refused,
        # the host's keys are host commands: the one service, as the host's buttons
        command=lambda wire: runtime.commands.submit(wire, sender=Sender.BUTTONS, source=keyboard),
    )
    board.on_event = keys.handle
    try:
        board.run(until=lambda: not thread.is_alive())
    finally:
        board.close()
        server.should_exit = True
        thread.join(timeout=5)
    return 0
