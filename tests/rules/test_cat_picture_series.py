"""TV-S-CAT-5/6: the picture-series cat, whose value falls with every picture shown.

TV-S-CAT-5 DEFAULT: one answer, worth v_k where k is the number of pictures
shown; a wrong answer costs -v_k. TV-S-CAT-6: the content is pictures (the
package's media, shown by the board). The series comes from the package's
``cat.series`` or the header's ``specials``. Outcomes worked out from the
rules reference, not the code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from buzzer.journal.codec import JournalError
from buzzer.replay_summary import replay_summary
from rules.packages import PackageError, load_json
from tests.conftest import of_type, run
from tests.support.lines import bad, ok
from tests.support.paths import REPO

A, B, C = 1, 2, 3
SERIES = [500, 300, 100]


def head(series: Any = SERIES, **extra: Any) -> dict[str, Any]:
    cell: dict[str, Any] = {"round": 1, "theme": 1, "price": 200, "kind": "cat"}
    if series is not None:
        cell["series"] = series
    return {
        "rules": "tv-modern",
        "players": ["A", "B", "C"],
        "chooser": A,
        "specials": [cell],
        **extra,
    }


def sel(t: float) -> dict[str, Any]:
    return {"t": t, "type": "select", "theme": 1, "price": 200}


def give(t: float, seat: int) -> dict[str, Any]:
    return {"t": t, "type": "cat_give", "seat": seat}


def picture(t: float) -> dict[str, Any]:
    return {"t": t, "type": "cat_picture"}


def brief(out: list[dict[str, Any]], *types: str) -> list[tuple[Any, ...]]:
    return [
        (o["t"], o["type"], *(v for k, v in o.items() if k not in ("t", "type")))
        for o in of_type(out, *types)
    ]


def test_TV_S_CAT_5_right_after_the_first_picture_earns_the_first_sum() -> None:
    out = run(head(), sel(1.0), give(2.0, B), ok(5.0))
    assert brief(out, "cat_series", "cat_prices", "score") == [
        (2.0, "cat_series", SERIES),
        (5.0, "score", B, 500, 500),
    ]


def test_TV_S_CAT_5_each_picture_lowers_the_value_right_or_wrong() -> None:
    out = run(head(), sel(1.0), give(2.0, B), picture(4.0), picture(6.0), ok(7.0))
    assert brief(out, "cat_picture", "score") == [
        (4.0, "cat_picture", 2, 300),
        (6.0, "cat_picture", 3, 100),
        (7.0, "score", B, 100, 100),
    ]
    wrong = run(head(), sel(1.0), give(2.0, B), picture(4.0), bad(5.0))
    assert brief(wrong, "score") == [(5.0, "score", B, -300, -300)]  # -v_k


def test_TV_S_CAT_5_no_picture_beyond_the_series_and_none_outside_a_series_cat() -> None:
    with pytest.raises(JournalError) as info:
        run(head(), sel(1.0), give(2.0, B), picture(3.0), picture(4.0), picture(5.0))
    assert info.value.line == 6 and "all 3 pictures" in str(info.value)
    with pytest.raises(JournalError, match="no picture-series cat"):
        run(
            head(series=None),
            sel(1.0),
            give(2.0, B),
            {"t": 3.0, "type": "cat_price", "price": 100},
            picture(4.0),
        )


def test_TV_S_CAT_5_a_plain_cat_still_asks_its_value() -> None:
    out = run(head(series=None), sel(1.0), give(2.0, B))
    assert of_type(out, "cat_prices") and not of_type(out, "cat_series")


@pytest.mark.parametrize("series", [[500], [300, 300], [100, 300], [500, 0]])
def test_TV_S_CAT_5_a_series_must_fall_picture_by_picture(series: list[int]) -> None:
    with pytest.raises(JournalError) as info:
        run(head(series=series), sel(1.0))
    assert info.value.line == 1 and "TV-S-CAT-5" in str(info.value)


def test_TV_S_CAT_5_a_series_on_a_cell_that_is_no_cat_is_refused() -> None:
    header = head()
    header["specials"][0]["kind"] = "stake"
    with pytest.raises(JournalError, match="only for a cat"):
        run(header, sel(1.0))


def _package(tmp_path: Path, series: Any) -> Path:
    cat: dict[str, Any] = {"theme": "Живопись", "price": 400}
    if series is not None:
        cat["series"] = series
    themes = [
        {
            "name": "Картины",
            "questions": [
                {"price": 100, "text": "Вопрос", "answer": ["Ответ"]},
                {
                    "price": 200,
                    "text": "Чья это картина?",
                    "answer": ["Левитан"],
                    "kind": "cat",
                    "cat": cat,
                },
            ],
        }
    ]
    package = {
        "format": "svoyak-package",
        "version": 1,
        "name": "Картинки",
        "rounds": [{"name": "1", "themes": themes}],
    }
    path = tmp_path / "pictures.json"
    path.write_text(json.dumps(package, ensure_ascii=False), encoding="utf-8")
    return path


def test_TV_S_CAT_5_the_series_comes_from_the_package_and_survives_a_round_trip(
    tmp_path: Path,
) -> None:
    path = _package(tmp_path, [400, 200])
    cat = load_json(path).main_rounds[0].themes[0].questions[1].cat
    assert cat is not None and cat.series == (400, 200)
    header = {"rules": "tv-modern", "players": ["A", "B", "C"], "chooser": A, "package": str(path)}
    out = run(header, sel(1.0), give(2.0, C), picture(3.0), bad(4.0))
    assert brief(out, "cat_series", "cat_picture", "score") == [
        (2.0, "cat_series", [400, 200]),
        (3.0, "cat_picture", 2, 200),
        (4.0, "score", C, -200, -200),
    ]


def test_TV_S_CAT_5_a_package_with_a_rising_series_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PackageError, match="smaller than the one before"):
        load_json(_package(tmp_path, [200, 400]))


def test_TV_S_CAT_5_the_example_and_its_summary() -> None:
    example = REPO / "examples" / "tv-picture-cat.jsonl"
    lines = example.read_text(encoding="utf-8").splitlines()
    text = replay_summary(lines)
    assert "серия картинок: 500 → 300 → 100" in text
    assert "картинка 2: ответ стоит 300" in text
    assert "Анна: верно, +300 → 300" in text
