"""``svoyak replay --summary``: a game's journal told as a readable account.

The JSON Lines that ``svoyak replay`` prints are exact but long: a host
settling "who pressed first?" after the game, or a technician checking that
the buttons behaved, wants the story instead: each question with who chose
it, who pressed and when (after the signal, or during the reading), by how
much the winner beat the runner-up, false starts and late presses, each
verdict and the scores after it, and the result.

Everything here is read from the decisions the replay makes (the same
objects the JSON Lines print), never from a second reading of the rules, so
the account cannot disagree with the replay. :func:`format_summary` is pure;
:func:`replay_summary` replays a journal first.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from buzzer.arbiter.decisions import Decision
from buzzer.core import GameCore, InputError
from buzzer.journal.codec import InputParser, JournalError, parse_header
from buzzer.journal.resume import rebuild
from rules.game import GameSetup
from rules.packages import Package, PackageError
from rules.packages.locate import load_named_package
from rules.state import SpecialKind, Stage

Record = Mapping[str, Any]

LANGUAGES: Final = ("ru", "en")

_TEXT: Final[dict[str, dict[str, str]]] = {
    "ru": {
        "game": "Игра: {rules}; игроки: {players}",
        "first": "Первым выбирает {name} ({how})",
        "start_scores": "Счёт на начало (перенесён из прошлой игры серии): {scores}",
        "how.header": "указано в журнале",
        "how.draw": "по жребию",
        "how.youngest": "младший",
        "how.central_table": "центральный стол",
        "round": "Раунд {n} «{name}»",
        "question": "{n}. [{t}] тема {theme}, {price}",
        "chosen_by": " — выбирает {name}",
        "stake": "  аукцион: открывает {name}",
        "bids": "  торги: {bids}",
        "bid": "{name} {amount}",
        "bid.forced": " (обязательная)",
        "bid.all_in": " (ва-банк)",
        "pass": "{name} пас",
        "bidder_pick": "выбор ведущего — {name}",
        "pass.auto": "{name} пас (автоматически)",
        "stake_won": "  играет {name} за {stake}",
        "cat": "  кот в мешке: {giver} → {receiver}",
        "cat.theme": "; тема кота «{theme}»",
        "cat_value": "  стоимость кота: {value}",
        "cat_prices": "  цена на выбор: {options}",
        "cat_series": "  серия картинок: {values}",
        "cat_picture": "  картинка {shown}: ответ стоит {value}",
        "or": " или ",
        "sponsor": "  вопрос от спонсора: отвечает {name}",
        "false_start": "  фальстарт: {name} в {t} (кнопка заблокирована до {until})",
        "signal": "  сигнал: {t}",
        "reading": "во время чтения",
        "after_signal": "через {delay} с после сигнала",
        "press": "  первое нажатие: {name} в {t} ({when})",
        "buy_press": "  покупка кнопкой — первое нажатие: {name} в {t}",
        "bonus_offer": "бонус-конкурс: предложен {name} ({place}-е место)",
        "bonus_declined": "  {name} отказывается",
        "bonus_accepted": "  {name} принимает: {n} вопросов одной темы",
        "bonus_right": "  вопрос {k}: верно",
        "bonus_wrong": "  вопрос {k}: неверно — счёт {name} обнулён на Красный раунд ({delta} → 0)",
        "bonus_won": "  все вопросы верно: {name} выигрывает поездку (очков не прибавляется)",
        "bonus_not_played": "  бонус-конкурс не разыгран",
        "buy_closed": "  никто не нажал: окно покупки закрылось в {t}",
        "margin": "; отрыв от второго: {margin} ({name})",
        "later": "; позже: {others}",
        "tie": "  одновременные нажатия: {names} в {t}",
        "level": "; вровень: {names} (решил жребий)",
        "right": "  {name}: верно, {delta} → {score}",
        "wrong": "  {name}: неверно, {delta} → {score}",
        "wrong_free": "  {name}: неверно, без штрафа → {score}",
        "zero": "  {name}: {delta} → {score}",
        "window_closed": "  никто не ответил: окно закрылось в {t}",
        "no_answer": "  снят без ответа",
        "resumed": "  чтение продолжается для остальных",
        "ignored": "  другие нажатия: {presses}",
        "behind": "на {margin} позже отвечающего",
        "reason.late": "пришло слишком поздно: проверьте провод или источник",
        "reason.locked": "кнопка заблокирована",
        "reason.not_open": "чтение не начато",
        "reason.window_closed": "окно закрыто",
        "reason.already_answered": "уже отвечал(а)",
        "reason.not_eligible": "не участвует в этом вопросе",
        "reason.already_recognized": "повторное нажатие отвечающего",
        "reason.someone_answering": "отвечает другой",
        "reason.paused": "пауза",
        "pause.on": "  пауза в {t}",
        "pause.off": "  игра продолжена в {t}, пауза {length}",
        "after_signal_paused": "через {delay} с после сигнала, не считая паузы",
        "scores": "  счёт: {scores}",
        "chooser": "; выбирает {name}",
        "correction": "  поправка: {name} {delta} ({reason}) → {score}",
        "substitute": "Замена (место {seat}): {new} вместо {old}, счёт {score} остаётся",
        "objection": "  апелляция принята: {name} {delta} → {score}",
        "undone": "  отменена команда строки {line}",
        "undone_score": "  после отмены: {name} {delta} → {score}",
        "overtaken": "  команда строки {line} опоздала и не исполнена: {reason}",
        "fault.stalled": "  источник {source}: сбой ({detail})",
        "fault.back": "  источник {source}: снова в строю ({detail})",
        "time_up": "  время раунда {round} вышло: остальные вопросы не играются",
        "time_up.in_play": (
            "  [{t}] гонг: время раунда {round} вышло; этот вопрос доигрывается, "
            "остальные не играются"
        ),
        "warning": "  [{t}] сигнал: до конца раунда {round} осталась минута",
        "lot": "  наименьший счёт у {names}: по жребию первым выбирает {name}",
        "youngest": "  наименьший счёт у {names}: первым выбирает младший, {name}",
        "final": "Финал: играют {names}; тем: {themes}",
        "final.named": "Финал: играют {names}; темы: {themes}",
        "final.removed": "  {name} убирает тему {theme}",
        "final.theme": "  остаётся тема {theme}",
        "final.order": "  ответы проверяются в порядке: {names}",
        "final.timer": "  время на письменный ответ: до {until}",
        "final.answers_in": "  [{t}] ответы сданы",
        "round_chooser": "  первым в раунде выбирает {name} (наименьший счёт)",
        "final.stake": "  {name}: ставка {stake}",
        "reconsidered": "  состав финала пересмотрен после апелляции",
        "shootout": "Перестрелка №{n}: {names}",
        "shootout.right": "  {name}: верно, {delta} (в перестрелке: {score})",
        "shootout.wrong": "  {name}: неверно, {delta} (в перестрелке: {score})",
        "tie_for_first": "Ничья за первое место: {names} (решает организатор)",
        "result": "Итог: {scores}",
        "winner": "Победитель: {name}",
        "no_winner": "Без победителя",
        "not_over": "Игра не окончена",
        "sec": "с",
        "min": "мин",
        "hour": "ч",
        "ms": "мс",
        "us": "мкс",
    },
    "en": {
        "game": "Game: {rules}; players: {players}",
        "first": "First to choose: {name} ({how})",
        "start_scores": "Scores at the start (carried from the series' last game): {scores}",
        "how.header": "named in the journal",
        "how.draw": "by lot",
        "how.youngest": "the youngest",
        "how.central_table": "the central table",
        "round": "Round {n} «{name}»",
        "question": "{n}. [{t}] theme {theme}, {price}",
        "chosen_by": " — chosen by {name}",
        "stake": "  auction: opened by {name}",
        "bids": "  bidding: {bids}",
        "bid": "{name} {amount}",
        "bid.forced": " (forced)",
        "bid.all_in": " (all-in)",
        "pass": "{name} passes",
        "bidder_pick": "host's pick — {name}",
        "pass.auto": "{name} passes (automatically)",
        "stake_won": "  {name} plays for {stake}",
        "cat": "  cat in the bag: {giver} → {receiver}",
        "cat.theme": "; the cat's theme «{theme}»",
        "cat_value": "  the cat's value: {value}",
        "cat_prices": "  value to choose: {options}",
        "cat_series": "  a picture series: {values}",
        "cat_picture": "  picture {shown}: the answer is worth {value}",
        "or": " or ",
        "sponsor": "  sponsor question: {name} answers",
        "false_start": "  false start: {name} at {t} (button locked until {until})",
        "signal": "  signal: {t}",
        "buy_press": "  bought by the button: {name} pressed first at {t}",
        "bonus_offer": "bonus contest: offered to {name} (place {place})",
        "bonus_declined": "  {name} declines",
        "bonus_accepted": "  {name} accepts: {n} questions of one theme",
        "bonus_right": "  question {k}: right",
        "bonus_wrong": (
            "  question {k}: wrong — {name}'s score is 0 for the Red round ({delta} → 0)"
        ),
        "bonus_won": "  all right: {name} wins the trip (no points)",
        "bonus_not_played": "  the bonus contest is not played",
        "buy_closed": "  nobody pressed: the buy window closed at {t}",
        "reading": "during the reading",
        "after_signal": "{delay} s after the signal",
        "press": "  first press: {name} at {t} ({when})",
        "margin": "; ahead of the runner-up by {margin} ({name})",
        "later": "; later: {others}",
        "tie": "  simultaneous presses: {names} at {t}",
        "level": "; level with {names} (the draw decided)",
        "right": "  {name}: right, {delta} → {score}",
        "wrong": "  {name}: wrong, {delta} → {score}",
        "wrong_free": "  {name}: wrong, no penalty → {score}",
        "zero": "  {name}: {delta} → {score}",
        "window_closed": "  nobody answered: the window closed at {t}",
        "no_answer": "  taken off without an answer",
        "resumed": "  the reading goes on for the others",
        "ignored": "  other presses: {presses}",
        "behind": "{margin} after the answering player",
        "reason.late": "arrived too late: check the wire or the source",
        "reason.locked": "button locked",
        "reason.not_open": "reading not started",
        "reason.window_closed": "window closed",
        "reason.already_answered": "already answered",
        "reason.not_eligible": "not playing this question",
        "reason.already_recognized": "the answering player again",
        "reason.someone_answering": "someone else answering",
        "reason.paused": "paused",
        "pause.on": "  paused at {t}",
        "pause.off": "  resumed at {t}, after a pause of {length}",
        "after_signal_paused": "{delay} s after the signal, not counting the pause",
        "scores": "  scores: {scores}",
        "chooser": "; {name} chooses",
        "correction": "  correction: {name} {delta} ({reason}) → {score}",
        "substitute": "Substitute (seat {seat}): {new} for {old}, keeping the score {score}",
        "objection": "  objection accepted: {name} {delta} → {score}",
        "undone": "  host command on line {line} undone",
        "undone_score": "  after the undo: {name} {delta} → {score}",
        "overtaken": "  the command on line {line} came too late and had no effect: {reason}",
        "fault.stalled": "  source {source}: fault ({detail})",
        "fault.back": "  source {source}: back ({detail})",
        "time_up": "  round {round}'s time is up: the rest of it is not played",
        "time_up.in_play": (
            "  [{t}] the gong: round {round}'s time is up; this question is played to its "
            "end, the rest of the round is not"
        ),
        "warning": "  [{t}] the signal: one minute of round {round} is left",
        "lot": "  lowest score: {names}; by lot, {name} chooses first",
        "youngest": "  lowest score: {names}; the youngest, {name}, chooses first",
        "final": "Final: {names} play; themes: {themes}",
        "final.named": "Final: {names} play; themes: {themes}",
        "final.removed": "  {name} removes theme {theme}",
        "final.theme": "  theme {theme} is left",
        "final.order": "  answers judged in this order: {names}",
        "final.timer": "  time for the written answers: until {until}",
        "final.answers_in": "  [{t}] the answers are in",
        "round_chooser": "  first to choose in this round: {name} (the lowest score)",
        "final.stake": "  {name}: stake {stake}",
        "reconsidered": "  the finalists reconsidered after an objection",
        "shootout": "Shootout #{n}: {names}",
        "shootout.right": "  {name}: right, {delta} (shootout: {score})",
        "shootout.wrong": "  {name}: wrong, {delta} (shootout: {score})",
        "tie_for_first": "Tie for first place: {names} (the organiser decides)",
        "result": "Result: {scores}",
        "winner": "Winner: {name}",
        "no_winner": "No winner",
        "not_over": "The game is not over",
        "sec": "s",
        "min": "min",
        "hour": "h",
        "ms": "ms",
        "us": "µs",
    },
}


def replay_summary(lines: Iterable[str], base: Path | None = None, lang: str = "ru") -> str:
    """Replay a journal (header first) and tell it; :class:`JournalError` if it is broken.

    The header's package, when it can be read, names the final's themes and a
    cat's own theme (the journal has only their numbers and the cell)."""
    lines = list(lines)
    core, decisions = rebuild(lines, base)  # a broken journal is refused here, line named
    try:
        core.finish(decisions)
    except InputError as exc:
        raise JournalError(exc.ref, exc.message) from None
    return format_summary(core.setup, _records(lines, base), lang, _package(lines[0], base))


def _package(header: str, base: Path | None) -> Package | None:
    """The package the header names, or None (none named, or it cannot be read now)."""
    try:
        name = json.loads(header).get("package")
    except (ValueError, AttributeError):
        return None
    if not isinstance(name, str):
        return None
    try:
        return load_named_package(name, base)
    except (PackageError, OSError):
        return None


def _records(lines: list[str], base: Path | None) -> list[dict[str, Any]]:
    """The replay's decisions as output objects, and one fact they do not carry: the
    value a cat was played for (``cat_value``), read from the game as its receiver
    gets the question (the host's ``cat_price`` or the rules' own value)."""
    core = GameCore(parse_header(lines[0], base))
    parser = InputParser(len(core.setup.players))
    records: list[dict[str, Any]] = []
    told: set[tuple[int, tuple[int, int]]] = set()

    def take(out: list[Decision]) -> None:
        records.extend(json.loads(d.to_json()) for d in out)
        game = core.game
        if game.stage is Stage.SPECIAL and game.special is SpecialKind.CAT and game.cell:
            key = (game.board.round_index, game.cell)
            if key not in told:
                told.add(key)
                t = records[-1].get("t", 0.0) if records else 0.0
                records.append({"t": t, "type": "cat_value", "value": game.value})

    take(list(core.started))
    for line, text in enumerate(lines[1:], 2):
        out: list[Decision] = []
        core.push(parser.parse(text, line), out)
        take(out)
    out = []
    core.finish(out)
    take(out)
    return records


def format_summary(
    setup: GameSetup, records: Sequence[Record], lang: str = "ru", package: Package | None = None
) -> str:
    """The account of a game from its decisions (``svoyak replay``'s output objects);
    ``package``: the game's, for the final's theme names and a cat's own theme."""
    writer = _Writer(setup, lang, package)
    for record in records:
        writer.take(record)
    return writer.finish()


def clock_text(t: float, lang: str = "ru") -> str:
    """A game time as a person reads it, to a tenth of a second: «12.5 с», «2 мин
    12.5 с», «1 ч 2 мин 3.4 с» (a press's lead is told by its margin, in µs)."""
    words = _TEXT[lang]
    tenths = max(0, math.floor(t * 10 + 0.5))  # half up: 3.25 s is «3.3 с»
    hours, rest = divmod(tenths, 36_000)
    minutes, rest = divmod(rest, 600)
    text = f"{rest // 10}.{rest % 10} {words['sec']}"
    if hours:
        return f"{hours} {words['hour']} {minutes} {words['min']} {text}"
    if minutes:
        return f"{minutes} {words['min']} {text}"
    return text


def margin_text(us: int, lang: str = "ru") -> str:
    """A press margin: µs under a millisecond, ms under a second (up to three decimals), else s."""
    words = _TEXT[lang]
    if us < 1000:
        return f"{us} {words['us']}"
    if us < 1_000_000:
        ms = f"{us / 1000:.3f}".rstrip("0").rstrip(".")
        return f"{ms} {words['ms']}"
    return f"{us / 1_000_000:.3f} {words['sec']}"


def _signed(delta: int) -> str:
    return f"+{delta}" if delta > 0 else f"−{-delta}" if delta < 0 else "±0"


def _number(value: int) -> str:
    return f"−{-value}" if value < 0 else str(value)


class _Writer:
    """Walks the decisions in order and writes the account line by line.

    A question is a block: its heading, what happened, then the scores when
    the next block starts. A press is written once its margins are known (the
    ``ignored`` presses that follow it), so the line can say by how much the
    winner was ahead.
    """

    def __init__(self, setup: GameSetup, lang: str, package: Package | None = None) -> None:
        if lang not in _TEXT:
            raise ValueError(f"unknown language {lang!r}; known: {', '.join(_TEXT)}")
        self.words = _TEXT[lang]
        self.lang = lang
        self.setup = setup
        self.package = package
        final = package.final if package is not None else None
        #: The final's theme names, by number (the package's; none without one).
        self.final_names = tuple(t.name for t in final.themes) if final is not None else ()
        #: The question being told: (round, theme, price).
        self.cell: tuple[int, int, int] | None = None
        self.rounds = setup.rounds or setup.rules.rounds
        self.scores = dict.fromkeys(range(1, len(setup.players) + 1), setup.rules.start_score)
        if setup.start_scores is not None:  # SER-CARRY: a series game's carried scores
            self.scores = dict(enumerate(setup.start_scores, 1))
        self.lines: list[str] = []
        self.chooser: int | None = None
        self.winner: int | None = None
        self.over = False
        self.count = 0
        self.in_question = False
        self.signal: float | None = None
        #: Seconds the game stood paused since the question's signal (A-G-D1).
        self.paused_since_signal = 0.0
        self.special: str | None = None
        self.scored = False
        self.closed = False
        self.adjusting: str | None = None
        self.reason = ""
        self.undone_at: object = None
        self.round_shown = False
        self.round_opening = False
        self.shootout: dict[int, int] | None = None
        self.press: dict[str, Any] | None = None
        self.others: list[str] = []
        self.bids: list[str] = []
        #: A stake question's buy window is open (TV-H-1995-01): its window is no signal.
        self.buying = False
        #: The 1995 bonus contest (TV-H-1995-03): its player, and the wrong answer's loss.
        self.bonus_player: object = None
        self.bonus_wrong = 0
        self.bonus_loss = 0
        self.final_stake: int | None = None
        duplicates = {n for n in setup.players if setup.players.count(n) > 1}
        self.names = {
            seat: f"{name} ({seat})" if name in duplicates else name
            for seat, name in enumerate(setup.players, 1)
        }
        players = ", ".join(f"{s} {n}" for s, n in enumerate(setup.players, 1))
        self.say("game", rules=setup.rules.id, players=players)
        if setup.start_scores is not None:  # SER-CARRY
            self.say("start_scores", scores=self.scoreboard())

    # -- output -----------------------------------------------------------------

    def say(self, key: str, **fields: Any) -> None:
        """One line; the presses waiting to be told go first, to keep time order."""
        self.flush_press()
        self.flush_others()
        self.lines.append(self.words[key].format(**fields))

    def name(self, seat: object) -> str:
        return self.names.get(seat, str(seat)) if isinstance(seat, int) else "—"

    def names_of(self, seats: Iterable[object]) -> str:
        return ", ".join(self.name(s) for s in seats)

    def scoreboard(self) -> str:
        scores = self.shootout if self.shootout is not None else self.scores
        return " · ".join(f"{self.name(s)} {_number(v)}" for s, v in scores.items())

    def end_block(self) -> None:
        """Close the question being told: its outcome if silent, then the scores."""
        self.flush_press()
        self.flush_others()
        if not self.in_question:
            return
        if not self.scored and not self.closed:
            self.say("no_answer")
        line = self.words["scores"].format(scores=self.scoreboard())
        if self.chooser is not None and self.shootout is None:
            line += self.words["chooser"].format(name=self.name(self.chooser))
        self.lines.append(line)
        self.in_question = False

    def flush_press(self) -> None:
        press = self.press
        if press is None:
            return
        self.press = None
        line = self.words[press.get("key", "press")].format(**press["fields"])
        behind: list[tuple[int, int]] = [(us, seat) for us, seat, _ in press["behind"]]
        level = [seat for _, seat, reason in press["behind"] if reason == "lost_draw"]
        if level:
            # An exact tie (A-G1): no margin to tell, the draw decided.
            line += self.words["level"].format(names=self.names_of(level))
            behind = [(us, seat) for us, seat in behind if seat not in level]
            if behind:
                rest = [f"{self.name(s)} +{margin_text(us, self.lang)}" for us, s in behind]
                line += self.words["later"].format(others=", ".join(rest))
        elif behind:
            first_us, first_seat = behind[0]
            margin = margin_text(first_us, self.lang)
            line += self.words["margin"].format(margin=margin, name=self.name(first_seat))
            rest = [f"{self.name(s)} +{margin_text(us, self.lang)}" for us, s in behind[1:]]
            if rest:
                line += self.words["later"].format(others=", ".join(rest))
        self.lines.append(line)

    # -- the decisions -----------------------------------------------------------

    def take(self, record: Record) -> None:
        kind = str(record.get("type"))
        if self.adjusting == "undone" and (
            kind not in ("score", "chooser") or record.get("t") != self.undone_at
        ):
            self.adjusting = None  # the undo's own score lines are over
        handler = getattr(self, "on_" + kind, None)
        if handler is not None:
            handler(record)

    def on_first_chooser(self, r: Record) -> None:
        self.chooser = r["seat"]
        how = self.words.get(f"how.{r['how']}", str(r["how"]))
        self.say("first", name=self.name(r["seat"]), how=how)

    def on_round_started(self, r: Record) -> None:
        self.end_block()
        self.lines.append("")
        self.say("round", n=r["round"], name=r["name"])
        self.round_shown = True
        self.round_opening = True

    def on_question(self, r: Record) -> None:
        self.end_block()
        self.round_opening = False
        if not self.round_shown and self.shootout is None:
            # The first round starts with the game: no round_started announces it.
            self.lines.append("")
            self.say("round", n=r["round"], name=self.rounds[r["round"] - 1].name)
            self.round_shown = True
        self.count += 1
        self.in_question = True
        self.signal = None
        self.paused_since_signal = 0.0
        self.special = None
        self.scored = False
        self.closed = False
        self.cell = (int(r["round"]), int(r["theme"]), int(r["price"]))
        theme = self.theme_title(r["round"], r["theme"])
        line = self.words["question"].format(
            n=self.count, t=self.clock(r["t"]), theme=theme, price=r["price"]
        )
        if self.chooser is not None and self.shootout is None:
            # The shootout's questions go in order (C2003-2.8-D2): nobody chooses them.
            line += self.words["chosen_by"].format(name=self.name(self.chooser))
        self.lines.append(line)

    def clock(self, t: float) -> str:
        return clock_text(float(t), self.lang)

    def theme_title(self, round_no: int, theme: int) -> str:
        if 1 <= round_no <= len(self.rounds):
            titles = self.rounds[round_no - 1].themes
            if 1 <= theme <= len(titles) and titles[theme - 1] != str(theme):
                return f"{theme} «{titles[theme - 1]}»"
        return str(theme)

    def on_special(self, r: Record) -> None:
        self.special = str(r["kind"])
        if self.special == "stake":
            self.say("stake", name=self.name(r["opener"]))
            self.bids = []

    def on_bid(self, r: Record) -> None:
        text = self.words["bid"].format(name=self.name(r["seat"]), amount=r["amount"])
        if r.get("forced"):
            text += self.words["bid.forced"]
        elif r.get("all_in"):
            text += self.words["bid.all_in"]
        self.bids.append(text)

    def on_bidder_pick(self, r: Record) -> None:
        """TV-S-AUC-3: the host picked who of the tied players bids now."""
        self.bids.append(self.words["bidder_pick"].format(name=self.name(r["seat"])))

    def on_pass(self, r: Record) -> None:
        key = "pass.auto" if r.get("auto") else "pass"
        self.bids.append(self.words[key].format(name=self.name(r["seat"])))

    def on_buy_window(self, r: Record) -> None:
        self.buying = True

    def on_bid_claim(self, r: Record) -> None:
        self.flush_press()
        self.flush_others()
        fields = {"name": self.name(r["seat"]), "t": self.clock(r["t"])}
        self.press = {"fields": fields, "behind": [], "key": "buy_press"}

    # -- the 1995 bonus contest (TV-H-1995-03) ---------------------------------

    def on_bonus_offer(self, r: Record) -> None:
        self.end_block()
        self.say("bonus_offer", name=self.name(r["seat"]), place=r["place"])

    def on_bonus_declined(self, r: Record) -> None:
        self.say("bonus_declined", name=self.name(r["seat"]))

    def on_bonus_accepted(self, r: Record) -> None:
        self.say("bonus_accepted", name=self.name(r["seat"]), n=r["questions"])
        self.bonus_player = r["seat"]

    def on_bonus_answer(self, r: Record) -> None:
        if r["correct"]:
            self.say("bonus_right", k=r["number"])
        else:
            self.bonus_wrong = int(r["number"])
            self.bonus_loss = 0

    def on_bonus_lost(self, r: Record) -> None:
        seat = r["seat"]
        delta = _signed(self.bonus_loss) if self.bonus_loss else "0"
        self.say("bonus_wrong", k=self.bonus_wrong, name=self.name(seat), delta=delta)
        self.bonus_player = None

    def on_bonus_won(self, r: Record) -> None:
        self.say("bonus_won", name=self.name(r["seat"]))
        self.bonus_player = None

    def on_bonus_not_played(self, r: Record) -> None:
        self.say("bonus_not_played")

    def on_stake_won(self, r: Record) -> None:
        self.buying = False
        if self.bids:
            self.say("bids", bids=", ".join(self.bids))
            self.bids = []
        self.say("stake_won", name=self.name(r["seat"]), stake=r["stake"])

    def on_cat_given(self, r: Record) -> None:
        line = self.words["cat"].format(giver=self.name(r["from"]), receiver=self.name(r["to"]))
        theme = self.cat_theme()
        if theme:
            line += self.words["cat.theme"].format(theme=theme)
        self.lines.append(line)

    def cat_theme(self) -> str | None:
        """The cat's own theme, as its package states it (a real .siq cat has one)."""
        if self.package is None or self.cell is None:
            return None
        round_no, theme, price = self.cell
        rounds = self.package.main_rounds
        if not 1 <= round_no <= len(rounds):
            return None
        try:
            question = rounds[round_no - 1].question_at(theme, price)
        except IndexError:
            return None
        cat = question.cat if question is not None else None
        return (cat.theme or None) if cat is not None else None

    def on_cat_value(self, r: Record) -> None:
        self.say("cat_value", value=r["value"])

    def on_cat_series(self, r: Record) -> None:
        self.say("cat_series", values=" → ".join(str(v) for v in r["values"]))

    def on_cat_picture(self, r: Record) -> None:
        self.say("cat_picture", shown=r["shown"], value=r["value"])

    def on_cat_prices(self, r: Record) -> None:
        self.say("cat_prices", options=self.words["or"].join(str(o) for o in r["options"]))

    def on_false_start(self, r: Record) -> None:
        self.say(
            "false_start",
            name=self.name(r["seat"]),
            t=self.clock(r["t"]),
            until=self.clock(r["locked_until"]),
        )

    def on_paused(self, r: Record) -> None:
        self.say("pause.on", t=self.clock(r["t"]))

    def on_resumed(self, r: Record) -> None:
        length = float(r["paused_s"])
        if self.signal is not None:
            self.paused_since_signal += length
        self.say("pause.off", t=self.clock(r["t"]), length=clock_text(length, self.lang))

    def on_window_opened(self, r: Record) -> None:
        if self.buying:
            return
        if self.signal is None:
            self.signal = float(r["t"])
            self.say("signal", t=self.clock(r["t"]))

    def on_window_closed(self, r: Record) -> None:
        if self.buying:
            self.say("buy_closed", t=self.clock(r["t"]))
            return
        self.closed = True
        self.say("window_closed", t=self.clock(r["t"]))

    def on_reading_resumed(self, r: Record) -> None:
        self.say("resumed")

    def on_tie(self, r: Record) -> None:
        self.say("tie", names=self.names_of(r["seats"]), t=self.clock(r["t"]))

    def on_recognized(self, r: Record) -> None:
        seat = r["seat"]
        if self.special == "sponsor" and not self.scored:
            self.say("sponsor", name=self.name(seat))
            return
        if self.special is not None or not self.in_question:
            return  # the one player of a special question, named above: no buttons (A-G4)
        self.flush_press()
        self.flush_others()
        t = float(r["t"])
        if self.signal is None or t < self.signal:
            when = self.words["reading"]
        elif self.paused_since_signal:
            # A-G-D1: the clocks stood still while paused; so does the reaction time.
            delay = t - self.signal - self.paused_since_signal
            when = self.words["after_signal_paused"].format(delay=f"{delay:.3f}")
        else:
            when = self.words["after_signal"].format(delay=f"{t - self.signal:.3f}")
        fields = {"name": self.name(seat), "t": self.clock(t), "when": when}
        self.press = {"fields": fields, "behind": []}

    def on_ignored(self, r: Record) -> None:
        reason = str(r["reason"])
        behind = r.get("behind_us")
        if behind is not None and self.press is not None:
            self.press["behind"].append((int(behind), r["seat"], reason))
            return
        if reason == "already_recognized":
            return  # the answering player pressing again says nothing
        label = self.words.get(f"reason.{reason}", reason)
        if behind is not None:
            label = self.words["behind"].format(margin=margin_text(int(behind), self.lang))
        when = self.clock(r["t"])
        self.others.append(f"{self.name(r['seat'])} {when} ({label})")

    def flush_others(self) -> None:
        if self.others:
            others, self.others = self.others, []
            self.lines.append(self.words["ignored"].format(presses="; ".join(others)))

    def on_score(self, r: Record) -> None:
        seat, delta, score = r["seat"], int(r["delta"]), int(r["score"])
        self.scores[seat] = score
        if self.bonus_player == seat and self.adjusting is None:
            self.bonus_loss = delta  # told by on_bonus_lost, which follows
            return
        fields = {"name": self.name(seat), "delta": _signed(delta), "score": _number(score)}
        if self.adjusting == "undone":
            self.say("undone_score", **fields)
            return
        if self.adjusting is not None:
            key, self.adjusting = self.adjusting, None
            self.say(key, reason=self.reason, **fields)
            return
        self.scored = True
        if self.final_stake is not None and self.final_stake == 0:
            self.say("zero", **fields)
        elif delta > 0:
            self.say("right", **fields)
        elif delta < 0:
            self.say("wrong", **fields)
        else:
            self.say("wrong_free", **fields)
        self.final_stake = None

    def on_chooser(self, r: Record) -> None:
        self.chooser = r["seat"]
        if self.round_opening:
            # C2003-2.3.2, TV-G-4: a new round's first choice goes to the lowest score.
            self.say("round_chooser", name=self.name(r["seat"]))

    def on_correction(self, r: Record) -> None:
        self.adjusting = "correction"
        self.reason = " ".join(str(r.get("reason", "")).split()) or "—"

    def on_substitute(self, r: Record) -> None:
        """SER-CC1-SUB: the seat's new player is named from here on."""
        self.end_block()  # the question before it is told with the old name
        seat = r["seat"]
        score = _number(self.scores.get(seat, 0))
        self.say("substitute", seat=seat, new=r["in"], old=r["out"], score=score)
        self.names[seat] = r["in"]

    def on_objection(self, r: Record) -> None:
        self.adjusting = "objection"

    def on_undone(self, r: Record) -> None:
        self.adjusting = "undone"
        self.undone_at = r["t"]
        self.say("undone", line=r["line"])

    def on_overtaken(self, r: Record) -> None:
        self.say("overtaken", line=r["line"], reason=r["reason"])

    def on_source_fault(self, r: Record) -> None:
        state = "back" if r.get("state") == "back" else "stalled"
        self.say(f"fault.{state}", source=r["source"], detail=r.get("detail") or "—")

    def on_round_warning(self, r: Record) -> None:
        self.say("warning", t=self.clock(r["t"]), round=r["round"])

    def on_round_time_up(self, r: Record) -> None:
        if self.in_question:
            # TV-G-6: the gong during a question, told at its time; the question goes on.
            self.say("time_up.in_play", t=self.clock(r["t"]), round=r["round"])
            return
        self.end_block()
        self.say("time_up", round=r["round"])

    def on_lot(self, r: Record) -> None:
        self.say("lot", names=self.names_of(r["seats"]), name=self.name(r["winner"]))
        self.round_opening = False  # the line says who chooses, and why

    def on_youngest(self, r: Record) -> None:
        self.say("youngest", names=self.names_of(r["seats"]), name=self.name(r["winner"]))
        self.round_opening = False

    def on_final_started(self, r: Record) -> None:
        self.end_block()
        self.lines.append("")
        names = self.names_of(r["seats"])
        count = int(r["themes"])
        if self.final_names and count <= len(self.final_names):
            themes = ", ".join(self.final_title(n) for n in range(1, count + 1))
            self.say("final.named", names=names, themes=themes)
        else:
            self.say("final", names=names, themes=r["themes"])

    def final_title(self, theme: int) -> str:
        """A final theme: its number, and its name from the package when there is one."""
        names = self.final_names
        return f"{theme} «{names[theme - 1]}»" if 1 <= theme <= len(names) else str(theme)

    def on_final_removed(self, r: Record) -> None:
        self.say("final.removed", name=self.name(r["seat"]), theme=self.final_title(r["theme"]))

    def on_final_theme(self, r: Record) -> None:
        self.say("final.theme", theme=self.final_title(r["theme"]))

    def on_final_question(self, r: Record) -> None:
        self.say("final.order", names=self.names_of(r["judge_order"]))

    def on_final_timer(self, r: Record) -> None:
        self.say("final.timer", until=self.clock(r["until"]))

    def on_final_answers_in(self, r: Record) -> None:
        self.say("final.answers_in", t=self.clock(r["t"]))

    def on_final_stake(self, r: Record) -> None:
        self.final_stake = int(r["stake"])
        self.say("final.stake", name=self.name(r["seat"]), stake=r["stake"])

    def on_final_reconsidered(self, r: Record) -> None:
        self.say("reconsidered")

    def on_shootout_started(self, r: Record) -> None:
        self.end_block()
        self.lines.append("")
        self.say("shootout", n=r["number"], names=self.names_of(r["seats"]))
        self.shootout = dict.fromkeys(r["seats"], 0)

    def on_shootout_score(self, r: Record) -> None:
        self.scored = True
        if self.shootout is not None:
            self.shootout[r["seat"]] = int(r["score"])
        self.say(
            "shootout.right" if int(r["delta"]) > 0 else "shootout.wrong",
            name=self.name(r["seat"]),
            delta=_signed(int(r["delta"])),
            score=_number(int(r["score"])),
        )

    def on_tie_for_first(self, r: Record) -> None:
        self.end_block()
        self.shootout = None
        self.lines.append("")
        self.say("tie_for_first", names=self.names_of(r["seats"]))

    def on_game_over(self, r: Record) -> None:
        self.end_block()
        self.shootout = None
        self.over = True
        self.winner = r.get("winner")

    def finish(self) -> str:
        self.end_block()
        self.flush_others()
        self.lines.append("")
        ranked = sorted(self.scores.items(), key=lambda item: (-item[1], item[0]))
        board = " · ".join(f"{self.name(s)} {_number(v)}" for s, v in ranked)
        self.say("result", scores=board)
        if not self.over:
            self.say("not_over")
        elif self.winner is None:
            self.say("no_winner")
        else:
            self.say("winner", name=self.name(self.winner))
        return "\n".join(self.lines) + "\n"
