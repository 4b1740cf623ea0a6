"""``svoyak replay --summary``: the readable account of a game, through the real CLI.

The account is built from the replay's own decisions, so it is checked
against them: as many question headings as ``question`` decisions, the
scores after the last question and the result equal to the replay's
``result``; and line by line on journals built here (margins, a tie, a false
start, a late press, corrections, an undo, the final).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from buzzer.cli import main
from buzzer.replay import decode_journal, replay_lines
from buzzer.replay_summary import clock_text, margin_text
from tests.support.lines import bad, ok, pr, re_, rs, sel, tick
from tests.support.paths import REPO

ROOT = REPO
EXAMPLES = sorted((ROOT / "examples").glob("*.jsonl"))


def write(tmp_path: Path, header: dict[str, Any], *events: dict[str, Any]) -> Path:
    path = tmp_path / "game.jsonl"
    lines = [json.dumps({"type": "game", **header}, ensure_ascii=False)]
    lines += [json.dumps(e, ensure_ascii=False) for e in events]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def summary(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> list[str]:
    status = main(["replay", str(path), "--summary", *extra])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert captured.err == ""
    return captured.out.splitlines()


def scores_text(scores: dict[str, int], names: list[str]) -> str:
    return " · ".join(f"{names[int(s) - 1]} {v}".replace(" -", " −") for s, v in scores.items())


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_agrees_with_the_replay(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = decode_journal(path.read_bytes())
    names = json.loads(journal[0])["players"]
    outputs = [json.loads(x) for x in replay_lines(journal, path.parent)]
    for substitute in (o for o in outputs if o["type"] == "substitute"):
        names[substitute["seat"] - 1] = substitute["in"]  # SER-CC1-SUB: the seat's new name
    result = outputs[-1]
    lines = summary(capsys, path)

    questions = [o for o in outputs if o["type"] == "question"]
    headings = [line for line in lines if re.match(r"\d+\. \[", line)]
    assert len(headings) == len(questions)
    for heading, question in zip(headings, questions, strict=True):
        assert f"[{clock_text(question['t'])}] тема {question['theme']}" in heading
        assert heading.split(" — ")[0].endswith(f", {question['price']}")
    # A scores line closes every question; the last one shows the main scores the
    # replay ends with (unless a final or a shootout followed).
    score_lines = [line for line in lines if line.startswith("  счёт: ")]
    assert len(score_lines) == len(questions)
    if not any(o["type"] in ("final_started", "shootout_started") for o in outputs):
        assert score_lines[-1].removeprefix("  счёт: ").split(";")[0] == scores_text(
            result["scores"], names
        )
    ranked = sorted(result["scores"].items(), key=lambda kv: (-kv[1], int(kv[0])))
    assert f"Итог: {scores_text(dict(ranked), names)}" in lines
    if "winner" in result:
        winner = result["winner"]
        assert lines[-1] == (f"Победитель: {names[winner - 1]}" if winner else "Без победителя")
    else:
        assert lines[-1] == "Игра не окончена"
    # Every press the replay recognized on the buttons is told, at its time.
    for record in outputs:
        if record["type"] == "false_start":
            name = names[record["seat"] - 1]
            assert any(
                line.startswith(f"  фальстарт: {name} в {clock_text(record['t'])}")
                for line in lines
            )


def test_the_full_tv_game_line_by_line(capsys: pytest.CaptureFixture[str]) -> None:
    lines = summary(capsys, ROOT / "examples" / "full-game-tv-modern.jsonl")
    text = "\n".join(lines)
    assert lines[0] == "Игра: tv-modern; игроки: 1 Анна, 2 Борис, 3 Вера"
    assert lines[1] == "Первым выбирает Борис (центральный стол)"
    assert "1. [1.0 с] тема 1 «Кино», 100 — выбирает Борис" in lines
    assert "  фальстарт: Вера в 3.2 с (кнопка заблокирована до 5.2 с)" in lines
    assert "  сигнал: 3.5 с" in lines
    # 3.9004 − 3.9 s: Борис was 400 µs behind.
    assert (
        "  первое нажатие: Анна в 3.9 с (через 0.400 с после сигнала); "
        "отрыв от второго: 400 мкс (Борис)"
    ) in lines
    assert "  Анна: верно, +100 → 100" in lines
    assert "  счёт: Анна 100 · Борис 0 · Вера 0; выбирает Анна" in lines
    assert "  вопрос от спонсора: отвечает Анна" in lines
    assert "  кот в мешке: Анна → Вера\n  цена на выбор: 100 или 200" in text
    assert "  Вера: неверно, −200 → −200" in lines
    # C2003-2.3.2 / TV-G-4: round 2 opens with the lowest score choosing.
    assert "Раунд 2 «Второй раунд»\n  первым в раунде выбирает Вера (наименьший счёт)" in text
    assert "  торги: Вера 400 (обязательная), Борис пас (автоматически), Анна 500 (ва-банк)" in text
    assert "  играет Анна за 500" in lines
    assert "Финал: играют Анна, Борис; тем: 3" in lines
    assert "  Борис убирает тему 3" in lines and "  остаётся тема 2" in lines
    assert "  Борис: ставка 400\n  Борис: верно, +400 → 1100" in text
    assert lines[-2:] == ["Итог: Анна 1600 · Борис 1100 · Вера 0", "Победитель: Анна"]

    english = summary(capsys, ROOT / "examples" / "full-game-tv-modern.jsonl", "--lang", "en")
    assert english[1] == "First to choose: Борис (the central table)"
    assert "  false start: Вера at 3.2 s (button locked until 5.2 s)" in english
    assert any("ahead of the runner-up by 400 µs (Борис)" in line for line in english)
    assert english[-1] == "Winner: Анна"


def test_margins_a_tie_late_presses_and_corrections(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = {
        "rules": "tv-modern",
        "players": ["Аня", "Борис", "Вера"],
        "chooser": 1,
        "board": {"themes": ["Кино", "Реки"], "prices": [100, 200]},
    }
    path = write(
        tmp_path,
        head,
        sel(1.0, 2, 100),  # line 2
        rs(1.5),
        re_(3.0),
        pr(3.25, 2),
        pr(3.2512345, 3),  # 1.2345 ms behind
        pr(3.2600, 1),  # 10 ms behind
        bad(4.0),  # line 8
        tick(9.0),
        pr(6.5, 3),  # stamped 2.5 s before time already decided: late
        sel(10.0, 1, 100),  # line 11
        rs(10.5),
        re_(12.0),
        pr(12.5, 2),
        bad(12.8),
        pr(13.5, 1),
        pr(13.5, 3),  # an exact tie, drawn by lot from the seed
        ok(14.0),  # line 18
        {"t": 15.0, "type": "correction", "seat": 2, "delta": 100, "reason": "ошибка счёта"},
        {"t": 16.0, "type": "objection", "seat": 2},  # TOUR-3.7: Борис's −100 becomes +100
        {"t": 17.0, "type": "undo", "line": 19},  # the correction
    )
    lines = summary(capsys, path)
    assert "1. [1.0 с] тема 2 «Реки», 100 — выбирает Аня" in lines
    assert (
        "  первое нажатие: Борис в 3.3 с (через 0.250 с после сигнала); "
        "отрыв от второго: 1.235 мс (Вера); позже: Аня +10 мс"
    ) in lines
    assert "  Борис: неверно, −100 → −100" in lines
    assert any(
        line.startswith("  другие нажатия: Вера 6.5 с (пришло слишком поздно") for line in lines
    )
    assert "  никто не ответил: окно закрылось в 7.0 с" in lines
    assert "  Борис: неверно, −100 → −200" in lines
    assert "  одновременные нажатия: Аня, Вера в 13.5 с" in lines
    tie = next(line for line in lines if "в 13.5 с (через 1.500 с после сигнала)" in line)
    replayed = json.loads(replay_lines(decode_journal(path.read_bytes()))[-1])
    winner = next(int(s) for s, v in replayed["scores"].items() if v == 100 and s != "2")
    loser = 4 - winner  # the other of seats 1 and 3
    names = ["Аня", "Борис", "Вера"]
    assert tie.startswith(f"  первое нажатие: {names[winner - 1]} в 13.5 с")
    assert f"вровень: {names[loser - 1]} (решил жребий)" in tie
    assert f"  {names[winner - 1]}: верно, +100 → 100" in lines
    assert "  поправка: Борис +100 (ошибка счёта) → −100" in lines
    assert "  апелляция принята: Борис +200 → 100" in lines
    assert "  отменена команда строки 19" in lines
    assert "  после отмены: Борис −100 → 0" in lines
    assert replayed["scores"]["2"] == 0
    assert lines[-2].startswith("Итог: ")


def test_a_verdict_after_an_undo_is_a_verdict_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = {"rules": "championship-2003", "players": ["А", "Б", "В"], "chooser": 1}
    path = write(
        tmp_path,
        head,
        sel(1.0, 1, 30),
        rs(1.5),
        re_(3.0),
        pr(3.5, 2),
        bad(4.0),  # line 6
        {"t": 4.5, "type": "undo", "line": 6},
        ok(5.0),
    )
    lines = summary(capsys, path)
    assert lines[lines.index("  Б: неверно, −30 → −30") + 1 :][:4] == [
        "  отменена команда строки 6",
        "  после отмены: Б +30 → 0",
        "  Б: верно, +30 → 30",
        "  счёт: А 0 · Б 30 · В 0; выбирает Б",
    ]


def test_a_final_and_a_shootout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = {
        "rules": "championship-2003",
        "players": ["А", "Б", "В"],
        "chooser": 1,
        "final_themes": 1,
        "board": {"rounds": [{"name": "Единственный", "themes": 1, "prices": [10]}]},
    }
    path = write(
        tmp_path,
        head,
        {"t": 0.0, "type": "correction", "seat": 1, "delta": 100, "reason": "до игры"},
        {"t": 0.0, "type": "correction", "seat": 2, "delta": 100, "reason": "до игры"},
        sel(1.0, 1, 10),
        {"t": 2.0, "type": "timeout"},  # the board is empty: the final (А and Б)
        {"t": 20.0, "type": "final_stake", "seat": 1, "amount": 50},
        {"t": 21.0, "type": "final_stake", "seat": 2, "amount": 50},
        rs(22.0),
        re_(23.0),  # the 30 s for the written answers: until 53
        {"t": 54.0, "type": "final_judge", "verdict": "correct"},
        {"t": 55.0, "type": "final_judge", "verdict": "correct"},  # 150 each: a shootout
        sel(70.0),  # the shootout's questions go in order
        rs(70.1),
        re_(71.0),
        pr(71.2, 3),  # В is not in it
        pr(71.5, 2),
        ok(72.0),
        *(e for i in range(4) for e in (sel(80.0 + 2 * i), {"t": 81.0 + 2 * i, "type": "timeout"})),
    )
    lines = summary(capsys, path)
    assert "  поправка: А +100 (до игры) → 100" in lines
    assert "  снят без ответа" in lines
    assert "Финал: играют А, Б; тем: 1" in lines
    assert "  время на письменный ответ: до 53.0 с" in lines
    assert "  [53.0 с] ответы сданы" in lines
    assert "  А: ставка 50" in lines and "  А: верно, +50 → 150" in lines
    assert "Перестрелка №1: А, Б" in lines
    first = lines.index("Перестрелка №1: А, Б") + 1
    assert lines[first] == "2. [1 мин 10.0 с] тема 1, 10"  # nobody chooses in a shootout
    assert "  другие нажатия: В 1 мин 11.2 с (не участвует в этом вопросе)" in lines
    assert "  Б: верно, +10 (в перестрелке: 10)" in lines
    assert "  счёт: А 0 · Б 10" in lines
    assert lines[-2:] == ["Итог: А 150 · Б 150 · В 0", "Победитель: Б"]


def test_json_lines_stay_the_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = ROOT / "examples" / "tv-modern.jsonl"
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == replay_lines(decode_journal(path.read_bytes()), path.parent)
    assert all(isinstance(json.loads(line), dict) for line in out)


def test_a_broken_journal_is_an_error_with_summary_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, {"rules": "tv-modern", "players": ["А", "Б"]}, ok(1.0))
    assert main(["replay", str(path), "--summary"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"svoyak replay: {path}: line 2: ")


def test_time_and_margin_formats() -> None:
    assert clock_text(3.9) == "3.9 с"
    assert clock_text(3.9004) == "3.9 с"  # a press's lead is its margin, not its time
    assert clock_text(132.517651) == "2 мин 12.5 с"
    assert clock_text(132.517651, "en") == "2 min 12.5 s"
    assert margin_text(0) == "0 мкс"
    assert margin_text(999) == "999 мкс"
    assert margin_text(1100) == "1.1 мс"
    assert margin_text(1_100_000, "en") == "1.100 s"


def test_a_pause_is_told_and_left_out_of_the_reaction_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A-G-D1: the summary says when the host paused and resumed, names a press
    meanwhile as «пауза», and counts the answer's time from the signal without
    the pause (the clocks stood still)."""
    path = write(
        tmp_path,
        {"rules": "tv-1994", "players": ["Андрей", "Борис", "Вика"], "chooser": 3},
        {"t": 0.5, "type": "select", "theme": 5, "price": 20},
        {"t": 1.0, "type": "reading_start"},
        {"t": 8.0, "type": "reading_end"},
        {"t": 9.2, "type": "pause"},
        {"t": 9.3, "type": "press", "seat": 3},
        {"t": 20.2, "type": "resume"},
        {"t": 20.5, "type": "press", "seat": 1},
        {"t": 21.5, "type": "judge", "verdict": "correct"},
    )
    lines = summary(capsys, path)
    assert "  сигнал: 8.0 с" in lines
    told = lines[lines.index("  сигнал: 8.0 с") + 1 :]
    assert told[:4] == [
        "  пауза в 9.2 с",
        "  другие нажатия: Вика 9.3 с (пауза)",
        "  игра продолжена в 20.2 с, пауза 11.0 с",
        "  первое нажатие: Андрей в 20.5 с (через 1.500 с после сигнала, не считая паузы)",
    ]
    english = summary(capsys, path, "--lang", "en")
    assert "  resumed at 20.2 s, after a pause of 11.0 s" in english
    assert any("1.500 s after the signal, not counting the pause" in line for line in english)
