"""Where the repository's own files are, for tests at any depth of tests/."""

from __future__ import annotations

from pathlib import Path

#: The checkout's root (the folder holding pyproject.toml).
REPO = Path(__file__).resolve().parents[2]
#: The shipped example journals.
EXAMPLES = REPO / "examples"
#: The board's golden images.
GOLDEN = REPO / "tests" / "golden"
#: The shared helpers (some are run as scripts).
SUPPORT = Path(__file__).resolve().parent
