"""A host command overtaken by an earlier-stamped press that arrived just after it.

Live, a player may press 1 ms before the host taps "end of reading", and the
press may reach the controller 1 ms after the tap. The settle window puts the
press first (its timestamp is earlier): it stops the reading, and the host's
tap no longer makes sense. That is a race, not a broken journal: the tap is
reported as overtaken and has no effect; a replay agrees.
"""

from __future__ import annotations

import pytest

from buzzer.journal.codec import JournalError
from buzzer.replay import replay_lines
from tests.conftest import journal, of_type, run
from tests.support.lines import pr, re_, rs, sel

HEAD = {"rules": "championship-2003", "players": ["А", "Б", "В"], "chooser": 1}


def test_reading_end_overtaken_by_an_earlier_press_is_reported_not_refused() -> None:
    out = run(HEAD, sel(1.0, 1, 10), rs(2.0), re_(5.0), pr(4.999, 2))
    assert [
        (o["type"], o.get("seat")) for o in of_type(out, "recognized", "reading_interrupted")
    ] == [
        ("recognized", 2),
        ("reading_interrupted", 2),
    ]
    overtaken = of_type(out, "overtaken")
    assert [(o["t"], o["line"]) for o in overtaken] == [(5.0, 4)]
    assert "judge the answer first" in overtaken[0]["reason"]
    assert not of_type(out, "window_opened")  # the reading did not end: it was interrupted


def test_the_same_command_in_arrival_order_after_the_press_is_still_an_error() -> None:
    # Here the press arrived first: the host ended a reading that was already
    # interrupted — a sequence error of the journal, named by its line.
    with pytest.raises(JournalError) as caught:
        replay_lines(journal(HEAD, sel(1.0, 1, 10), rs(2.0), pr(4.999, 2), re_(5.0)))
    assert caught.value.line == 5
