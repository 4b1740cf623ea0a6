"""The suite's own ordering (tests/conftest.py): a file renamed or removed must leave
:data:`LONGEST_FIRST`, or the long file it meant would silently run last again."""

from __future__ import annotations

from tests.conftest import LONGEST_FIRST
from tests.support.paths import REPO


def test_every_longest_first_file_exists() -> None:
    missing = [path for path in LONGEST_FIRST if not (REPO / path).is_file()]
    assert missing == []


def test_longest_first_names_each_file_once() -> None:
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
