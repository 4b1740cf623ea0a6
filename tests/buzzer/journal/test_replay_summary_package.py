"""``svoyak replay --summary`` with the game's package (issue 35): the final's real
theme names, the cat's own theme and the value it was played for, and game times
as a person reads them («2 мин 12.5 с», not «132.517651 с»)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from buzzer.cli import main
from buzzer.replay_summary import clock_text

PACKAGE: dict[str, Any] = {
    "format": "svoyak-package",
    "version": 1,
    "name": "Сводка",
    "rounds": [
        {
            "name": "Первый раунд",
            "themes": [
                {
                    "name": "Разминка",
                    "questions": [
                        {"price": 100, "text": "Вопрос", "answer": ["Ответ"]},
                        {
                            "price": 200,
                            "text": "Кот",
                            "answer": ["Ответ"],
                            "kind": "cat",
                            "cat": {"theme": "КОРАБЛИ", "price": 700, "receiver": "others"},
                        },
                    ],
                }
            ],
        }
    ],
    "final": {
        "name": "Финал",
        "themes": [
            {"name": name, "question": {"text": f"Ф{i}", "answer": f"О{i}"}}
            for i, name in enumerate(("ПОЛИТИКА", "СПОРТ", "НАУКА И ЖИЗНЬ"), 1)
        ],
    },
}

EVENTS: list[dict[str, Any]] = [
    {"t": 1.0, "type": "select", "theme": 1, "price": 100},
    {"t": 1.5, "type": "reading_start"},
    {"t": 3.0, "type": "reading_end"},
    {"t": 3.2, "type": "press", "seat": 1},
    {"t": 4.0, "type": "judge", "verdict": "correct"},
    {"t": 132.517651, "type": "select", "theme": 1, "price": 200},  # the cat
    {"t": 134.0, "type": "cat_give", "seat": 2},
    {"t": 135.0, "type": "cat_price", "price": 200},
    {"t": 138.0, "type": "reading_end"},
    {"t": 141.0, "type": "judge", "verdict": "correct"},
    {"t": 150.0, "type": "final_remove", "theme": 1},
    {"t": 151.0, "type": "final_remove", "theme": 2},
    {"t": 160.0, "type": "final_stake", "seat": 1, "amount": 50},
    {"t": 161.0, "type": "final_stake", "seat": 2, "amount": 40},
    {"t": 170.0, "type": "reading_start"},
    {"t": 171.0, "type": "reading_end"},
    {"t": 3702.0, "type": "final_judge", "verdict": "correct"},
    {"t": 3703.0, "type": "final_judge", "verdict": "wrong"},
]


def journal(tmp_path: Path, package: bool = True) -> Path:
    header: dict[str, Any] = {
        "type": "game",
        "rules": "tv-modern",
        "players": ["Анна", "Борис", "Вера"],
        "chooser": 1,
    }
    if package:
        (tmp_path / "pkg.json").write_text(json.dumps(PACKAGE, ensure_ascii=False), "utf-8")
        header["package"] = "pkg.json"
    else:
        header["board"] = {"themes": ["Разминка"], "prices": [100, 200]}
        header["specials"] = [{"round": 1, "theme": 1, "price": 200, "kind": "cat"}]
        header["final_themes"] = 3
    path = tmp_path / "game.jsonl"
    lines = [json.dumps(header, ensure_ascii=False)]
    lines += [json.dumps(e, ensure_ascii=False) for e in EVENTS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def summary(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> list[str]:
    status = main(["replay", str(path), "--summary", *extra])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out.splitlines()


def test_the_summary_names_the_final_s_themes_and_the_cat_s_from_the_package(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = summary(capsys, journal(tmp_path))
    text = "\n".join(lines)
    assert "1. [1.0 с] тема 1 «Разминка», 100 — выбирает Анна" in lines
    assert "2. [2 мин 12.5 с] тема 1 «Разминка», 200 — выбирает Анна" in lines
    assert "  сигнал: 3.0 с" in lines
    assert "  первое нажатие: Анна в 3.2 с (через 0.200 с после сигнала)" in lines
    assert "  кот в мешке: Анна → Борис; тема кота «КОРАБЛИ»" in lines
    assert "  цена на выбор: 100 или 200\n  стоимость кота: 200\n  Борис: верно" in text
    assert "Финал: играют Анна, Борис; темы: 1 «ПОЛИТИКА», 2 «СПОРТ», 3 «НАУКА И ЖИЗНЬ»" in lines
    assert "  Анна убирает тему 1 «ПОЛИТИКА»" in lines
    assert "  Борис убирает тему 2 «СПОРТ»" in lines
    assert "  остаётся тема 3 «НАУКА И ЖИЗНЬ»" in lines
    assert "  время на письменный ответ: до 3 мин 21.0 с" in lines
    assert not any("132.5" in line or "201.000" in line for line in lines), text

    english = summary(capsys, journal(tmp_path), "--lang", "en")
    assert "2. [2 min 12.5 s] theme 1 «Разминка», 200 — chosen by Анна" in english
    assert "  cat in the bag: Анна → Борис; the cat's theme «КОРАБЛИ»" in english
    assert "  the cat's value: 200" in english
    assert "Final: Анна, Борис play; themes: 1 «ПОЛИТИКА», 2 «СПОРТ», 3 «НАУКА И ЖИЗНЬ»" in english
    assert "  theme 3 «НАУКА И ЖИЗНЬ» is left" in english


def test_without_a_package_the_themes_are_numbers_and_the_cat_s_value_is_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = summary(capsys, journal(tmp_path, package=False))
    assert "  кот в мешке: Анна → Борис" in lines
    assert "  стоимость кота: 200" in lines
    assert "Финал: играют Анна, Борис; тем: 3" in lines
    assert "  Анна убирает тему 1" in lines and "  остаётся тема 3" in lines


def test_game_times_read_as_minutes_and_seconds() -> None:
    assert clock_text(0.0) == "0.0 с"
    assert clock_text(3.96) == "4.0 с"
    assert clock_text(59.96) == "1 мин 0.0 с"
    assert clock_text(132.517651) == "2 мин 12.5 с"
    assert clock_text(3723.44) == "1 ч 2 мин 3.4 с"
    assert clock_text(132.517651, "en") == "2 min 12.5 s"
    assert clock_text(3600.0, "en") == "1 h 0 min 0.0 s"
