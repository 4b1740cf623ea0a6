"""What the host is told when a host command is refused: Russian first, English too.

The engine's own messages are English and technical; the host, standing at a
tablet in a noisy room (or at the board's keyboard, or the host's buttons),
needs one sentence saying what to do. :func:`refused` looks at the command
and the snapshot to pick that sentence, and falls back on the engine's
message when no better one is known. Only the wording is chosen here: whether
a command is refused is decided by the engine, and by the host-command
service's own checks (``host_commands.py``: the id, the version, the pause,
who sent it), whose sentences are here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.snapshot import GameSnapshot, LiveSnapshot

STAGE_RU = {
    "board": "табло: выбор вопроса",
    "question": "вопрос",
    "bidding": "торги",
    "cat_give": "кот в мешке: кому отдать",
    "cat_price": "кот в мешке: стоимость",
    "special": "спецвопрос",
    "bonus_offer": "бонус-конкурс: предложение",
    "bonus": "бонус-конкурс",
    "final_remove": "финал: убираем темы",
    "final_stakes": "финал: ставки",
    "final_judging": "финал: ответы",
    "over": "игра окончена",
}
STAGE_EN = {
    "board": "the board: choosing a question",
    "question": "a question",
    "bidding": "the bidding",
    "cat_give": "the cat in the bag: whom to give it",
    "cat_price": "the cat in the bag: its value",
    "special": "a special question",
    "bonus_offer": "the bonus contest: the offer",
    "bonus": "the bonus contest",
    "final_remove": "the final: removing themes",
    "final_stakes": "the final: stakes",
    "final_judging": "the final: answers",
    "over": "the game is over",
}


@dataclass(frozen=True, slots=True)
class Message:
    code: str
    ru: str
    en: str
    engine: str | None = None

    def body(self) -> dict[str, Any]:
        return {
            "detail": {
                "code": self.code,
                "message": self.ru,
                "message_en": self.en,
                "engine": self.engine,
            }
        }


def name(snapshot: GameSnapshot, seat: int | None) -> str:
    players = snapshot.get("players") or []
    if seat is None or not 1 <= seat <= len(players):
        return "?"
    return f"{players[seat - 1]} ({seat})"


PAUSED = Message(
    "paused",
    "Игра на паузе: нажмите «Продолжить», чтобы играть дальше.",
    "The game is paused: tap Resume to go on.",
)
ID_REUSED = Message(
    "id_reused",
    "Этот номер команды уже использован для другой команды: обновите страницу.",
    "This command id was already used for another command: reload the page.",
)
UNKNOWN_VERSION = Message(
    "stale",
    "Панель отстала от игры: экран обновлён — проверьте его и нажмите ещё раз.",
    "The panel was behind the game: the screen is updated, check it and tap again.",
)
NOT_FROM_BUTTONS = Message(
    "not_allowed",
    "Эту команду нельзя дать кнопкой ведущего: только с панели.",
    "This command cannot be given with a host button: only from the panel.",
)


def journal_failed(error: Exception) -> Message:
    """A command (or a simulated press) that the journal could not hold: not applied.

    A :class:`~buzzer.journal.store.JournalWriteError` names its cause and the
    last line recorded; anything else is said as it is."""
    why = getattr(error, "why", None)
    recorded = getattr(error, "recorded", -1)
    line_ru = f"после строки {recorded} " if recorded >= 0 else ""
    line_en = f" after line {recorded}" if recorded >= 0 else ""
    if why == "full":
        return Message(
            "journal_full",
            f"Диск журнала заполнен: {line_ru}ничего не записано, команда не применена. "
            "Освободите место на диске и повторите — игра продолжится без перезапуска.",
            f"The journal's disk is full: nothing{line_en} was recorded, the command was not "
            "applied. Free space on the disk and try again: the game goes on, no restart needed.",
        )
    if why == "readonly":
        return Message(
            "journal_readonly",
            f"Диск журнала стал только для чтения: {line_ru}ничего не записано, команда не "
            "применена. Диск, возможно, неисправен: позовите техника.",
            f"The journal's disk became read-only: nothing{line_en} was recorded, the command "
            "was not applied. The disk may be failing: call the technician.",
        )
    return Message(
        "journal_failed",
        f"Журнал не записывается: {line_ru}ничего не записано, команда не применена "
        f"({error}). Позовите техника: проверьте диск и повторите.",
        f"The journal cannot be written: nothing{line_en} was recorded, the command was not "
        f"applied ({error}). Call the technician: check the disk and try again.",
    )


def stale(kind: str, then: LiveSnapshot, now: LiveSnapshot) -> Message:
    """The state moved on between what the host saw and the tap."""
    ru, en = "", ""
    if then.get("answering") != now.get("answering"):
        seat = now.get("answering")
        if seat is None:
            ru, en = ": сейчас никто не отвечает", ": nobody is answering now"
        else:
            who = name(now, seat)
            ru, en = f": теперь отвечает {who}", f": {who} is answering now"
    elif then.get("stage") != now.get("stage"):
        stage = str(now.get("stage"))
        ru = f": теперь — {STAGE_RU.get(stage, stage)}"
        en = f": now it is {STAGE_EN.get(stage, stage)}"
    elif then.get("phase") != now.get("phase"):
        ru, en = ": изменилось состояние вопроса", ": the question's state changed"
    return Message(
        "stale",
        f"Пока вы нажимали, игра изменилась{ru}. Проверьте экран и нажмите ещё раз.",
        f"The game changed while you were tapping{en}. Check the screen and tap again.",
    )


def no_such_seat(seat: int, players: int) -> tuple[str, str]:
    return (
        f"Нет игрока номер {seat}: в игре {players}.",
        f"There is no player {seat}: the game has {players}.",
    )


def stake_above_score(snapshot: GameSnapshot, seat: int, amount: int, score: int) -> Message:
    """A final stake typed above the finalist's score: a slip of the host's finger.

    The rules count a written stake above the score as all-in (C2003-2.7-D3),
    so the engine would take it; but the host types what the player wrote, and
    a stake of 50 000 on a score of 5 000 is far likelier a typo than a player
    writing more than they have. The panel refuses it and names the limit: an
    all-in is entered as the score itself.
    """
    who = name(snapshot, seat)
    return Message(
        "stake_above_score",
        f"Ставка {amount} больше счёта игрока {who}: не больше {score} (ва-банк — это {score}).",
        f"The stake {amount} is above {who}'s score: at most {score} (all-in is {score}).",
    )


def refused(command: dict[str, Any], snapshot: GameSnapshot, engine: str) -> Message:
    """The engine refused ``command``: one sentence for the host, and the engine's own."""
    ru, en = _explain(command, snapshot)
    if not ru and command.get("type") == "undo":
        ru = f"Эту команду нельзя отменить: {engine}"
        en = f"This command cannot be undone: {engine}"
    if not ru:
        ru, en = f"Игра отказала: {engine}", f"The game refused: {engine}"
    return Message("refused", ru, en, engine)


def _explain(command: dict[str, Any], snap: GameSnapshot) -> tuple[str, str]:
    kind = command.get("type")
    stage = str(snap.get("stage"))
    phase = snap.get("phase")
    answering = snap.get("answering")
    where_ru = STAGE_RU.get(stage, stage)
    where_en = STAGE_EN.get(stage, stage)
    judge_first = (
        f"Отвечает {name(snap, answering)}: сначала оцените ответ.",
        f"{name(snap, answering)} is answering: judge the answer first.",
    )
    if kind == "pause" and snap.get("paused_at") is not None:
        return "Игра уже на паузе.", "The game is already paused."
    if kind == "resume" and snap.get("paused_at") is None:
        return "Игра не на паузе: продолжать нечего.", "The game is not paused: nothing to resume."
    if stage == "over":
        return "Игра окончена.", "The game is over."
    if kind in ("judge", "final_judge"):
        if kind == "judge" and stage == "final_judging":
            return "", ""
        if answering is None and stage != "final_judging":
            return "Сейчас никто не отвечает — оценивать нечего.", (
                "Nobody is answering: there is nothing to judge."
            )
        if kind == "final_judge" and stage != "final_judging":
            return (
                f"Ответы финала оцениваются позже; сейчас — {where_ru}.",
                f"Final answers are judged later; now it is {where_en}.",
            )
        final = snap.get("final")
        if stage == "final_judging" and not (final and final["answers_in"]):
            # C2003-2.7.4/2.7.5, TV-F-4/5: verdicts once the written answers are in
            if final is None or final["answers_due"] is None:
                return (
                    "Сначала прочитайте вопрос финала («Чтение окончено» запускает 30 с на "
                    "запись); ответы оцениваются после них.",
                    "Read the final question first (its end starts the 30 s to write); "
                    "the answers are judged after them.",
                )
            return (
                "Игроки ещё пишут ответы: оценивайте, когда выйдет время.",
                "The players are still writing: judge when the time is up.",
            )
        order = final["judge_order"] if final else []
        if kind == "final_judge" and order and command.get("seat") not in (None, order[0]):
            return (
                f"Ответы оцениваются по возрастанию счёта: следующий — {name(snap, order[0])}.",
                f"Answers are judged in ascending order of score: {name(snap, order[0])} is next.",
            )
        return "", ""
    if kind in ("reading_start", "reading_end"):
        if stage == "final_stakes":
            return (
                "Вопрос финала читается, когда сданы все ставки.",
                "The final question is read once every stake is in.",
            )
        if stage == "final_judging":
            final = snap.get("final")
            if final is not None and final["answers_due"] is not None:
                return "Вопрос финала уже прочитан.", "The final question has been read already."
            return "", ""
        if stage != "question":
            return (
                f"Сначала выберите вопрос; сейчас — {where_ru}.",
                f"Choose a question first; now it is {where_en}.",
            )
        if phase == "answering":
            return judge_first
        if phase == "open":
            return "Вопрос уже дочитан до конца.", "The question has already been read to the end."
        if phase == "closed":
            return "Этот вопрос уже закрыт.", "This question is already closed."
        return "", ""
    if kind == "select":
        if stage == "question" and phase == "answering":
            return judge_first
        if stage not in ("board", "question"):
            return (
                f"Сейчас нельзя выбрать вопрос: {where_ru}.",
                f"A question cannot be chosen now: {where_en}.",
            )
        cell = [command.get("theme"), command.get("price")]
        if cell in (snap.get("played") or []):
            return "Этот вопрос уже сыгран.", "This question has already been played."
        themes = snap.get("themes") or []
        prices = snap.get("prices") or []
        theme, price = command.get("theme"), command.get("price")
        if (
            theme is not None
            and price is not None
            and (not 1 <= theme <= len(themes) or price not in prices)
        ):
            return "Такого вопроса нет на табло.", "There is no such question on the board."
        return "", ""
    if kind == "timeout":
        if stage == "special":
            return (
                f"На спецвопрос отвечает {name(snap, answering)}: молчание — это «Неверно».",
                f"{name(snap, answering)} must answer the special question: "
                "silence is judged Wrong.",
            )
        if stage == "question" and phase == "answering":
            return judge_first
        return "Нет открытого вопроса.", "No question is open."
    if kind == "bidder_pick":
        # TV-S-AUC-3: «игрока выбирает ведущий», among equal scores, when the turn comes
        bidding = snap.get("bidding")
        if stage != "bidding" or not bidding:
            return "Сейчас не идут торги.", "There is no bidding now."
        tied = bidding.get("pickable") or []
        if not tied:
            return (
                "Сейчас выбирать некого: ведущий выбирает, кто ставит, только когда очередь "
                "доходит до игроков с равным счётом, ещё не ставивших, и только если правила "
                "отдают выбор ведущему (TV-S-AUC-3); иначе очередь — по жребию.",
                "There is nobody to pick now: the host picks who bids only when the turn comes "
                "to players with equal scores who have not bid yet, and only where the rules "
                "give the host that choice (TV-S-AUC-3); otherwise the lot's order stands.",
            )
        among = ", ".join(name(snap, seat) for seat in tied)
        return (
            f"Выбрать можно только из игроков с равным счётом: {among}.",
            f"Only a player with the equal score can be picked: {among}.",
        )
    if kind in ("bid", "pass"):
        bidding = snap.get("bidding")
        if stage != "bidding" or not bidding:
            return "Сейчас не идут торги.", "There is no bidding now."
        turn = bidding.get("turn")
        if turn is None and bidding.get("by_button"):
            if kind == "pass":
                return "", ""
            return (
                "Никто ещё не нажал кнопку: перебивает тот, кто нажмёт первым.",
                "Nobody has pressed yet: whoever presses first may outbid.",
            )
        if command.get("seat") != turn:
            return (
                f"Сейчас ходит {name(snap, turn)}.",
                f"It is {name(snap, turn)}'s turn.",
            )
        return "", ""
    if kind == "cat_picture":
        series = snap.get("cat_series")
        if not series:
            return (
                "Сейчас не разыгрывается кот с серией картинок.",
                "No picture-series cat is being played now.",
            )
        return (
            f"Все {len(series['values'])} картинок уже показаны.",
            f"All {len(series['values'])} pictures are shown already.",
        )
    if kind == "bonus" and stage != "bonus_offer":
        return (
            "Бонус-конкурс сейчас никому не предлагается.",
            "The bonus contest is not being offered to anybody now.",
        )
    if kind == "cat_give" and stage != "cat_give":
        return "Сейчас некому передавать кота.", "There is no cat to give now."
    if kind == "cat_price" and stage != "cat_price":
        return "Стоимость кота сейчас не выбирается.", "The cat's value is not being set now."
    if kind == "cat_price":
        price, step = command.get("price"), snap.get("cat_value_step")
        if isinstance(price, int) and price <= 0:
            return "Стоимость кота — положительное число.", "The cat's value must be positive."
        if isinstance(price, int) and isinstance(step, int) and price % step:
            return (
                f"В эту эпоху стоимость кота кратна {step}: {price} не подходит (TV-S-CAT-4).",
                f"In this era the cat's value is a multiple of {step}: {price} is not "
                "(TV-S-CAT-4).",
            )
    if kind in ("final_remove", "final_stake"):
        expected = "final_remove" if kind == "final_remove" else "final_stakes"
        if stage != expected:
            return (
                f"Сейчас другой этап: {where_ru}.",
                f"This is another stage now: {where_en}.",
            )
        final = snap.get("final")
        if kind == "final_stake" and command.get("seat") not in (final["seats"] if final else []):
            seat = command.get("seat")
            return (
                f"{name(snap, seat)} не играет в финале.",
                f"{name(snap, seat)} does not play the final.",
            )
        return "", ""
    if kind == "substitute":
        # SER-CC1-SUB: between round 2 and round 3 only
        return (
            "Замена игрока — только перед третьим раундом: когда второй раунд сыгран и "
            "вопрос третьего ещё не выбран, и под именем, которого нет за другим столом.",
            "A player is substituted only before round 3: once round 2 is over and before "
            "round 3's first question is chosen, under a name no other seat has.",
        )
    if kind == "objection":
        return (
            "Апелляцию можно принять только после вопроса, где этот игрок ответил неверно, "
            "и до выбора следующего вопроса.",
            "An objection is accepted only right after a question this player answered wrong, "
            "before the next question is chosen.",
        )
    return "", ""
