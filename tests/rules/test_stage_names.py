"""The snapshot's stage words and the engine's ``Stage`` are one list.

``StageName`` types the snapshot's ``stage`` so that mypy catches a reader's
misspelt stage; it is worth that only while it names exactly the stages.
"""

from __future__ import annotations

import json
from typing import get_args

from rules.snapshot import StageName
from rules.state import Stage


def test_the_snapshot_words_are_the_stage_values_in_order() -> None:
    assert get_args(StageName) == tuple(stage.value for stage in Stage)


def test_a_stage_value_is_a_bare_word_in_the_json() -> None:
    """The panel and the screens receive the same JSON as before: a plain string."""
    for stage in Stage:
        assert type(stage.value) is str
        assert json.dumps({"stage": stage.value}) == f'{{"stage": "{stage.name.lower()}"}}'
