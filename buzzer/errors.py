"""The one base of svoyak's own errors, for a caller that wants to catch them all.

Each error keeps its specific class (``JournalError``, ``PackageError``,
``PinMapError`` …) and, where it had one, its standard base (``ValueError``,
``RuntimeError``), so ``except ValueError`` still works; ``except
SvoyakError`` catches every error svoyak raises on purpose, with a message a
host or a technician can act on, and nothing else (a bug stays a traceback).

Dependency-free on purpose: every layer, the pure core included, imports it.
"""

from __future__ import annotations


class SvoyakError(Exception):
    """An error svoyak raises on purpose: its message says what to do."""
