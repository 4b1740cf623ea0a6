"""TV-H-2001-09 on the board window: the rows in the snapshot's ``theme_order``.

In that era (and in ``tv-modern``) the themes stand in alphabetical order; the
snapshot says the rows' order and keeps the journal's theme numbers on the
cells, so the board must move a played cell with its theme's row.
"""

from __future__ import annotations

from typing import Any

from display import view


def snapshot(**fields: Any) -> Any:
    base = {
        "stage": "board",
        "themes": ["Кино", "Авиация", "«Бег»"],
        "prices": [100, 200],
        "played": [[1, 200], [3, 100]],
    }
    return {**base, **fields}


def test_TV_H_2001_09_the_rows_stand_in_the_snapshot_s_order_with_their_played_cells() -> None:
    titles, played = view.board_rows(snapshot(theme_order=[2, 3, 1]), "ru")
    assert titles == ("Авиация", "«Бег»", "Кино")
    # «Кино» (theme 1) is the third row now, «Бег» (theme 3) the second
    assert played == frozenset({(3, 200), (2, 100)})


def test_without_an_order_the_package_s_order_stands() -> None:
    titles, played = view.board_rows(snapshot(), "ru")
    assert titles == ("Кино", "Авиация", "«Бег»")
    assert played == frozenset({(1, 200), (3, 100)})
