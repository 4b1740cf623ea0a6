"""Shared helpers: build journals in memory and replay them through the real code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from buzzer.replay import replay_lines


def journal(header: dict[str, Any], *events: dict[str, Any]) -> list[str]:
    """A journal's lines from a header and input events (dicts)."""
    head = {"type": "game", **header}
    return [json.dumps(head, ensure_ascii=False)] + [json.dumps(e) for e in events]


def run(header: dict[str, Any], *events: dict[str, Any]) -> list[dict[str, Any]]:
    """Replay a journal; the decoded output lines, the result last."""
    return [json.loads(line) for line in replay_lines(journal(header, *events))]


def of_type(outputs: list[dict[str, Any]], *types: str) -> list[dict[str, Any]]:
    return [o for o in outputs if o["type"] in types]


@pytest.fixture
def three() -> list[str]:
    return ["Аня", "Борис", "Вера"]


@pytest.fixture(autouse=True, scope="session")
def _games_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """`svoyak run` journals every game under $XDG_DATA_HOME and keeps its PIN file and
    the self-test's histograms under $XDG_STATE_HOME: not in the tester's home."""
    import os

    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("xdg-data"))
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("xdg-state"))


#: The files that take the longest (CPU or waiting; measured on 3 workers,
#: 2026-12-05), longest first. pytest-xdist's ``--dist loadfile`` hands files to
#: the workers in collection order (with ``--no-loadscope-reorder``, which
#: scripts/test passes: by default xdist puts the files with the most tests
#: first, whatever they cost): with these first, the short files fill the end
#: and the workers finish together, instead of one worker starting a long file
#: while the others have nothing left (18 s of one worker alone, measured).
LONGEST_FIRST = (
    "tests/buzzer/panel/test_panel_host_game.py",
    "tests/buzzer/journal/test_journal_bad_disks.py",
    "tests/firmware_bridge/test_bridge_delivery.py",
    "tests/buzzer/panel/test_panel_defects.py",
    "tests/buzzer/runtime/test_runtime_fairness.py",
    "tests/buzzer/panel/test_panel_layout.py",
    "tests/firmware_bridge/test_chip_night.py",
    "tests/buzzer/app/test_run_network.py",
    "tests/buzzer/panel/test_panel_attacks.py",
    "tests/firmware_bridge/test_chip_fidelity.py",
    "tests/firmware_bridge/test_chip_boot.py",
    "tests/buzzer/app/test_run_pico_link.py",
    "tests/buzzer/panel/test_panel_cli.py",
    "tests/firmware_bridge/test_pico_install.py",
    "tests/buzzer/tournament/test_tournament_hostile.py",
    "tests/buzzer/panel/test_panel_trial_fixes.py",
    "tests/firmware_bridge/test_chip_fairness.py",
    "tests/buzzer/app/test_run_journal_choice.py",
    "tests/buzzer/panel/test_panel_api.py",
    "tests/hardware/test_hardware_selftest.py",
    "tests/buzzer/app/test_doctor_pico.py",
    "tests/buzzer/arbiter/test_properties.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run :data:`LONGEST_FIRST`'s files first, each file's tests in their own order."""
    rank = {path: n for n, path in enumerate(LONGEST_FIRST)}
    root = Path(__file__).resolve().parent.parent

    def file_rank(item: pytest.Item) -> int:
        try:
            relative = item.path.resolve().relative_to(root).as_posix()
        except ValueError:
            return len(rank)
        return rank.get(relative, len(rank))

    items.sort(key=file_rank)  # stable: the order within a file is kept


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test's panel pages are its own: the report of a failure lists only them."""
    import sys

    pages = sys.modules.get("tests.support.panel_game")
    if pages is not None:
        pages.OPENED_PAGES.clear()
    rigs = sys.modules.get("tests.support.panel_support")
    if rigs is not None:
        rigs.FAILURE_STATES.clear()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed test that drove the panel in Chromium says what each page posted and
    was answered, the toast it showed, its errors and last taps; a failed panel rig,
    what its runtime held and where every thread was at the failure. A tap that led
    nowhere on a loaded machine is otherwise only a timeout."""
    import sys

    outcome = yield
    report = outcome.get_result()
    pages = sys.modules.get("tests.support.panel_game")
    if report.when == "call" and report.failed and pages is not None and pages.OPENED_PAGES:
        traffic = "\n".join(pages.page_traffic(page) for page in pages.OPENED_PAGES)
        report.sections.append(("panel traffic", traffic))
    rigs = sys.modules.get("tests.support.panel_support")
    if report.when == "call" and report.failed and rigs is not None:
        report.sections.extend(rigs.FAILURE_STATES)


class _SharedChromium:
    """One headless Chromium, kept from one browser test to the next.

    Launching one costs about a second of CPU, and a browser per test file cost
    the suite a dozen launches on each worker. It cannot simply live for the
    whole session: while Playwright's sync API is started, its event loop counts
    as running in this thread, and any other test's ``asyncio.run()`` fails. So
    it is closed as soon as the next test to run does not use it
    (:func:`pytest_runtest_teardown`), and launched again when one does.
    """

    def __init__(self) -> None:
        self._manager: Any = None
        self._browser: Any = None

    def get(self) -> Any:
        if self._browser is None:
            from tests.support.panel_game import chromium

            manager = chromium()
            self._browser = manager.__enter__()
            self._manager = manager
        return self._browser

    def close(self) -> None:
        manager, self._manager, self._browser = self._manager, None, None
        if manager is not None:
            manager.__exit__(None, None, None)


_CHROMIUM = _SharedChromium()


@pytest.fixture
def browser() -> Any:
    """The shared headless Chromium; the contexts (pages, sockets, cookies) a test
    opens in it go with the test: a page left open would keep reconnecting to its
    test's stopped server."""
    launched = _CHROMIUM.get()
    yield launched
    for context in list(launched.contexts):
        context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    yield
    if nextitem is None or "browser" not in getattr(nextitem, "fixturenames", ()):
        _CHROMIUM.close()
