"""Journals written before a change of the engine replay exactly as they did.

A-G-D1 (pause and resume became inputs) and C2003-2.4.6e (a special question's
time to think from the end of its reading) added inputs and moved a snapshot's
clock; a journal without those lines must still make the same decisions, byte
for byte. The digests below are of ``svoyak replay``'s output for each shipped
example, taken with the engine as it was before either change (commit
e8f8009). A digest that no longer matches is a changed decision in an old
game: find why before anything else. (A new example is added here with the
digest its replay gives; one whose journal is edited gets its digest anew.)
"""

from __future__ import annotations

import hashlib

import pytest

from buzzer.replay import replay_lines
from tests.support.paths import REPO

EXAMPLES = REPO / "examples"

#: Example → the first 16 hex digits of the SHA-256 of its replay's output.
BEFORE_PAUSE = {
    "championship-2003.jsonl": "ddc8c959073a3172",
    "demo-package.jsonl": "1aec002ead627d7c",
    "full-game-championship-2003.jsonl": "42aefdf6f0534b61",
    "full-game-tv-modern.jsonl": "4e6c321910a2b462",
    "jeopardy.jsonl": "1c7fcb9469ecf984",
    "sport-clarify.jsonl": "4c6077f51e661894",
    "sport-false-start.jsonl": "c32153cc537553bc",
    "sport-no-false-start.jsonl": "4744dbdf18873dc0",
    "tv-1994.jsonl": "fac52c2d0355f205",
    "tv-1995-bonus-contest.jsonl": "8f68b1b97db1dd83",
    "tv-1995-round-clock.jsonl": "448149e740aa7714",
    "tv-1995-stake-buyout.jsonl": "b788c2f60eee2fe6",
    "tv-2003-cat.jsonl": "6d936958de646810",
    "tv-2003-final-game-2-carried.jsonl": "bbe5d06604481dc3",  # SER-CARRY (issue 37), added with it
    "tv-modern.jsonl": "50bd43172ca3f77a",
    # TV-S-AUC-3's bidder_pick and SER-CC1-SUB's substitute (issue 37), added with them
    "tv-modern-tie-pick-and-substitute.jsonl": "64aab52bea52d81f",
    "tv-picture-cat.jsonl": "a411e94e9cf15237",
}


def test_every_example_is_listed() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.jsonl")) == sorted(BEFORE_PAUSE)


@pytest.mark.parametrize("name", sorted(BEFORE_PAUSE))
def test_an_old_journal_replays_to_the_very_same_output(name: str) -> None:
    lines = (EXAMPLES / name).read_text(encoding="utf-8").splitlines()
    assert not any('"pause"' in line or '"resume"' in line for line in lines)
    output = "".join(line + "\n" for line in replay_lines(lines, EXAMPLES))
    assert hashlib.sha256(output.encode("utf-8")).hexdigest()[:16] == BEFORE_PAUSE[name]
