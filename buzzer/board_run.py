"""``svoyak run`` with the board: the window on the main thread, the panel beside it.

The composition: the controller owns the game; uvicorn serves the panel in
a background thread (its ticker lets time pass); the board window runs on
the main thread (SDL wants it there), drawing the controller's snapshots
and turning the keyboard into buttons. Closing the window stops the server.
"""

from __future__ import annotations

import socket
import sys
import threading
from typing import Any

from buzzer.arbiter.events import Input, Press, Release
from buzzer.controller import Controller


def run_with_board(
    server: Any, sock: socket.socket, controller: Controller, pin: str, url: str, texts: Any = None
) -> int:
    """Serve the panel in a thread and run the board window until it closes."""
    import pygame

    from buzzer.panel.trial import Refused, try_input
    from display.app import BoardApp
    from display.keyboard import KeyboardButtons
    from display.scene import StartInfo

    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    board = BoardApp(start=StartInfo(pin=pin, url=url))
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
    board.attach(controller)
    if texts is not None:
        # The question's text from the package (the snapshot carries none).
        controller.subscribe(
            lambda decisions, snapshot: board.set_question(texts.question(snapshot))
        )
        board.final_theme_names = texts.final_themes
    poke = _ticker_poke(server)

    def submit(item: Input) -> None:
        # Presses always make sense; a host key is tried on a copy first, so a
        # refused one never reaches the journal (as the panel does).
        if not isinstance(item, Press | Release):
            with controller.lock:
                try_input(controller.core, item)
                controller.submit(item)
        else:
            controller.submit(item)
        poke()

    def refused(exc: Exception) -> None:
        if isinstance(exc, Refused):
            print(f"svoyak: {exc.message}", file=sys.stderr)
        else:
            raise exc

    keys = KeyboardButtons(
        submit, controller.game_time, len(controller.core.setup.players), on_error=refused
    )
    board.on_event = keys.handle
    try:
        board.run(until=lambda: not thread.is_alive())
    finally:
        board.close()
        server.should_exit = True
        thread.join(timeout=5)
    return 0


def _ticker_poke(server: Any) -> Any:
    """The panel's ticker's wake-up (a keyboard press needs its settle deadline)."""
    app = getattr(server.config, "app", None)
    panel = getattr(getattr(app, "state", None), "panel", None)
    ticker = getattr(panel, "ticker", None)
    return ticker.poke if ticker is not None else (lambda: None)
