"""The game's report for the live game: served at ``/report`` and written beside the journal.

``svoyak report`` (``buzzer/report/``) makes the page from a journal; the live
game hands it the journal's lines as they are and the seal the store keeps.
The composition is here, in the app layer, because the report sits above the
panel (it draws in the board's palette): the panel only serves what it is
given (``create_app(report=...)``).

When the game is over, :class:`ReportWriter` writes ``GAME.html`` beside the
journal, again after any later change (a correction after the final), on a
thread of its own: replaying a whole game takes a moment, and the runtime's
thread must never wait for it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from buzzer.app.both import slashed
from buzzer.journal.seal import short
from buzzer.report.cli import file_date
from buzzer.report.html import render_report
from buzzer.report.model import build_report
from buzzer.runtime.controller import Controller
from rules.snapshot import LiveSnapshot

log = logging.getLogger(__name__)


def report_page(controller: Controller, lang: str = "ru") -> str:
    """The report of the game so far, in ``lang`` ("ru" or "en"), with the journal's seal.

    Kept per game version and language: at the game's end every phone that scans the
    board's QR code asks at once, and each page is a replay of the whole game."""
    version = controller.version
    key = (id(controller), version, lang)
    with _PAGES_LOCK:
        page = _PAGES.get(key)
    if page is not None:
        return page
    store = controller.store
    base = store.path.resolve().parent if store is not None else None
    seal = controller.seal()
    report = build_report(controller.journal_lines(), base)
    played = _played(store.path) if store is not None else None
    page = render_report(report, lang, seal=None if seal is None else short(seal), played=played)
    with _PAGES_LOCK:
        for old in [k for k in _PAGES if k[0] == key[0] and k[1] != version]:
            del _PAGES[old]  # only the current version's pages are kept
        _PAGES[key] = page
    return page


def _played(journal: Path) -> str | None:
    """The journal file's date, as ``svoyak report`` gives it (None: no file to date)."""
    try:
        return file_date(journal)
    except OSError:
        return None


#: (the controller, its version, the language) → the page (see :func:`report_page`).
_PAGES: dict[tuple[int, int, str], str] = {}
_PAGES_LOCK = threading.Lock()


def report_path(journal: Path) -> Path:
    """``game-20261204-2100.sqlite`` → ``game-20261204-2100.html`` beside it."""
    return journal.with_suffix(".html")


class ReportWriter:
    """Writes the report beside the journal whenever the game is over and has changed."""

    def __init__(self, controller: Controller, target: Path) -> None:
        self.controller = controller
        self.target = target
        #: How many times the report was written (tests).
        self.written = 0
        self._wanted = threading.Event()
        self._stop = threading.Event()
        self._done_version = -1
        self._thread = threading.Thread(target=self._run, name="svoyak-report", daemon=True)

    def start(self) -> ReportWriter:
        self.controller.subscribe(self._on_update)
        self._thread.start()
        if self.controller.snapshot().get("stage") == "over":  # a resumed, finished game
            self._wanted.set()
        return self

    def _on_update(self, decisions: Sequence[Any], snapshot: LiveSnapshot) -> None:
        if snapshot.get("stage") == "over":
            self._wanted.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._wanted.wait(0.5):
                self._wanted.clear()
                self.write()

    def write(self) -> None:
        """Write it now if the game is over and changed since the last one (any thread)."""
        version = self.controller.version
        if version == self._done_version or self.controller.snapshot().get("stage") != "over":
            return
        tmp = self.target.with_name(f".{self.target.name}.part")
        try:
            tmp.write_text(report_page(self.controller), encoding="utf-8")
            tmp.replace(self.target)
        except Exception as exc:  # a full disk, a bug: the game is over and must not suffer
            with contextlib.suppress(OSError):
                tmp.unlink()
            log.warning("the game's report could not be written to %s: %s", self.target, exc)
            return
        self._done_version = version
        self.written += 1
        print(f"svoyak run: {slashed('run.report')}: {self.target}", flush=True)

    def close(self) -> None:
        """Stop the thread, writing a last report if one is due."""
        self._stop.set()
        self._thread.join(timeout=10)
        self.write()
