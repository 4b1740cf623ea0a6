"""The report's words, Russian and English side by side (as ``buzzer/replay_summary/words.py``).

One table for the HTML and the pictures, so a language is complete or
visibly not: ``tests/buzzer/report/test_report_model.py`` checks both
languages have the same keys.
"""

from __future__ import annotations

from typing import Final

LANGUAGES: Final = ("ru", "en")

TEXT: Final[dict[str, dict[str, str]]] = {
    "ru": {
        "title": "Отчёт об игре",
        "rules": "Правила",
        "package": "Пакет",
        "date": "Дата",
        "date.none": "не указана в журнале",
        "file_date": "{date} (файл журнала)",
        "players": "Игроки",
        "start_scores": "Счёт на начало (перенесён из прошлой игры серии)",
        "substitute": "место {seat}: {new} вместо {old}",
        "substitute.label": "Замена",
        "before": "до замены: {names}",
        "lines": "Строк в журнале",
        "seal": "Печать журнала",
        "seal.none": "нет (журнал до печати, или печать нарушена: svoyak journal verify)",
        "seal.hint": "сверьте с печатью, записанной на бланке счёта",
        "result": "Итог",
        "winner": "Победитель: {name}",
        "no_winner": "Без победителя",
        "not_over": "Игра не окончена",
        "scores.title": "Счёт по ходу игры",
        "players.title": "Игроки",
        "questions.title": "Вопросы: кто и когда нажал",
        "questions.none": "В игре не сыграно ни одного вопроса.",
        "col.player": "Игрок",
        "col.median": "Медиана реакции",
        "col.best": "Лучшая",
        "col.n": "Нажатий в окно",
        "col.dist": "Распределение (0–2 с)",
        "col.fs": "Фальстарты",
        "col.reading": "Во время чтения",
        "col.won": "Взял кнопку",
        "col.right": "Верно",
        "col.wrong": "Неверно",
        "col.rounds": "Очки по раундам",
        "col.score": "Счёт",
        "round.n": "Р{n}",
        "round.final": "Финал",
        "reaction.note": (
            "Реакция — от сигнала (или от нового открытия окна после неверного ответа) "
            "до первого нажатия игрока, без пауз. Фальстарты и нажатия во время чтения "
            "считаются отдельно."
        ),
        "question": "{n}. {theme}, {price}",
        "question.round": "раунд {n} «{name}»",
        "theme": "тема {n}",
        "theme.named": "тема {n} «{title}»",
        "chosen_by": "выбирает {name}",
        "shootout": "перестрелка",
        "special.cat": "кот в мешке",
        "special.stake": "аукцион",
        "special.sponsor": "вопрос от спонсора",
        "special.note": "Специальный вопрос: отвечает один игрок, кнопки не нажимаются.",
        "zero.signal": "сигнал",
        "zero.reading_start": "начало чтения",
        "zero.question": "выбор вопроса",
        "zero.note.reading_start": "Сигнала не было (ответ во время чтения): 0 — начало чтения.",
        "zero.note.question": "Сигнала не было: 0 — выбор вопроса.",
        "attempt": "{name}: первое нажатие, {t}",
        "attempt.reading": "{name}: нажатие во время чтения, {t}",
        "attempt.special": "{name} отвечает",
        "margin": "отрыв от второго: {margin} ({name})",
        "level": "вровень с {names}: решил жребий",
        "alone": "других нажатий в окне нет",
        "verdict.right": "верно, {delta}",
        "verdict.wrong": "неверно, {delta}",
        "verdict.free": "неверно, без штрафа",
        "verdict.none": "без вердикта",
        "window.empty": "окно закрылось без нажатий ({t})",
        "false_start": "фальстарт: {name} в {t}, кнопка заблокирована до {until}",
        "late": "поздно: {name} в {t} ({reason})",
        "reason.late": "пришло позже окна упорядочивания — проверьте провод или источник",
        "reason.window_closed": "окно уже закрыто",
        "change.correction": "поправка: {name} {delta}",
        "change.objection": "апелляция принята: {name} {delta}",
        "change.undone": "после отмены: {name} {delta}",
        "scores.after": "Счёт после вопроса: {scores}",
        "legend.won": "взял кнопку",
        "legend.behind": "позже",
        "legend.false_start": "фальстарт и блокировка",
        "legend.early": "во время чтения",
        "legend.locked": "в заблокированную кнопку",
        "legend.late": "поздно",
        "legend.other": "прочее",
        "legend.window": "окно для нажатий",
        "chart.start": "начало",
        "chart.final": "финал",
        "chart.bonus": "бонус",
        "chart.cat": "кот",
        "chart.stake": "аукц.",
        "chart.sponsor": "спонс.",
        "sec": "с",
        "ms": "мс",
        "us": "мкс",
        "none": "—",
        "footer": "svoyak {version}: отчёт построен повтором журнала через движок игры.",
    },
    "en": {
        "title": "Game report",
        "rules": "Rules",
        "package": "Package",
        "date": "Date",
        "date.none": "not in the journal",
        "file_date": "{date} (the journal file's)",
        "players": "Players",
        "start_scores": "Scores at the start (carried from the series' last game)",
        "substitute": "seat {seat}: {new} for {old}",
        "substitute.label": "Substitute",
        "before": "before the change: {names}",
        "lines": "Journal lines",
        "seal": "Journal seal",
        "seal.none": "none (a journal before seals, or a broken seal: svoyak journal verify)",
        "seal.hint": "compare it with the seal written on the paper scoresheet",
        "result": "Result",
        "winner": "Winner: {name}",
        "no_winner": "No winner",
        "not_over": "The game is not over",
        "scores.title": "The score over the game",
        "players.title": "Players",
        "questions.title": "Questions: who pressed, and when",
        "questions.none": "No question was played in this game.",
        "col.player": "Player",
        "col.median": "Median reaction",
        "col.best": "Best",
        "col.n": "Presses in a window",
        "col.dist": "Distribution (0–2 s)",
        "col.fs": "False starts",
        "col.reading": "During the reading",
        "col.won": "Took the floor",
        "col.right": "Right",
        "col.wrong": "Wrong",
        "col.rounds": "Points by round",
        "col.score": "Score",
        "round.n": "R{n}",
        "round.final": "Final",
        "reaction.note": (
            "Reaction: from the signal (or from the window's reopening after a wrong answer) "
            "to the player's first press, pauses not counted. False starts and presses during "
            "the reading are counted apart."
        ),
        "question": "{n}. {theme}, {price}",
        "question.round": "round {n} «{name}»",
        "theme": "theme {n}",
        "theme.named": "theme {n} «{title}»",
        "chosen_by": "chosen by {name}",
        "shootout": "shootout",
        "special.cat": "cat in the bag",
        "special.stake": "auction",
        "special.sponsor": "sponsor question",
        "special.note": "A special question: one player answers, no button is pressed.",
        "zero.signal": "signal",
        "zero.reading_start": "reading start",
        "zero.question": "question chosen",
        "zero.note.reading_start": (
            "No signal (answered during the reading): 0 is the reading's start."
        ),
        "zero.note.question": "No signal: 0 is the question's choice.",
        "attempt": "{name}: first press, {t}",
        "attempt.reading": "{name}: pressed during the reading, {t}",
        "attempt.special": "{name} answers",
        "margin": "ahead of the runner-up by {margin} ({name})",
        "level": "level with {names}: the draw decided",
        "alone": "no other press in the window",
        "verdict.right": "right, {delta}",
        "verdict.wrong": "wrong, {delta}",
        "verdict.free": "wrong, no penalty",
        "verdict.none": "no verdict",
        "window.empty": "the window closed with no press ({t})",
        "false_start": "false start: {name} at {t}, button locked until {until}",
        "late": "late: {name} at {t} ({reason})",
        "reason.late": "arrived beyond the settle window: check the wire or the source",
        "reason.window_closed": "the window was closed",
        "change.correction": "correction: {name} {delta}",
        "change.objection": "objection accepted: {name} {delta}",
        "change.undone": "after an undo: {name} {delta}",
        "scores.after": "Scores after the question: {scores}",
        "legend.won": "took the floor",
        "legend.behind": "later",
        "legend.false_start": "false start and lockout",
        "legend.early": "during the reading",
        "legend.locked": "into a locked button",
        "legend.late": "late",
        "legend.other": "other",
        "legend.window": "press window",
        "chart.start": "start",
        "chart.final": "final",
        "chart.bonus": "bonus",
        "chart.cat": "cat",
        "chart.stake": "auct.",
        "chart.sponsor": "spons.",
        "sec": "s",
        "ms": "ms",
        "us": "µs",
        "none": "—",
        "footer": "svoyak {version}: the report is the journal replayed through the game engine.",
    },
}


def words(lang: str) -> dict[str, str]:
    """The table of ``lang``; an unknown language is a ValueError naming the known ones."""
    if lang not in TEXT:
        raise ValueError(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}")
    return TEXT[lang]


def signed(value: int) -> str:
    """A score change as the board writes it: «+300», «−300», «±0» (a real minus sign)."""
    return f"+{value}" if value > 0 else f"−{-value}" if value < 0 else "±0"


def number(value: int) -> str:
    """A score: «−300» with a real minus sign."""
    return f"−{-value}" if value < 0 else str(value)


def seconds_text(t: float, lang: str) -> str:
    """Seconds from a question's zero, to the millisecond: «+0.400 с», «−0.500 с», «0»."""
    if round(t, 3) == 0:
        return "0"
    sign = "+" if t > 0 else "−"
    return f"{sign}{abs(t):.3f} {words(lang)['sec']}"


def duration_text(us: int, lang: str) -> str:
    """A duration in µs: µs under a millisecond, ms under a second, else seconds."""
    table = words(lang)
    if us < 1000:
        return f"{us} {table['us']}"
    if us < 1_000_000:
        ms = f"{us / 1000:.3f}".rstrip("0").rstrip(".")
        return f"{ms} {table['ms']}"
    return f"{us / 1_000_000:.3f} {table['sec']}"
