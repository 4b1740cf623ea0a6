"""The screen's words: Russian by default, English available.

One table, one lookup (:func:`tr`); numbers, margins and seconds are formatted
here too, so the decimal comma and the minus sign follow the language.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

LANGUAGES = ("ru", "en")
DEFAULT_LANGUAGE = "ru"

_STRINGS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "title": {"ru": "Своя игра", "en": "Svoyak"},
        "round": {"ru": "Раунд {n}", "en": "Round {n}"},
        "pin": {"ru": "PIN ведущего", "en": "Host PIN"},
        "panel": {"ru": "Пульт ведущего", "en": "Host panel"},
        "panel_scan": {
            "ru": "Пульт ведущего — по QR-коду",
            "en": "The host's panel: scan the QR code",
        },
        "pin_elsewhere": {
            "ru": "PIN знает только ведущий",
            "en": "Only the host knows the PIN",
        },
        "players": {"ru": "Игроки", "en": "Players"},
        "waiting": {"ru": "Ждём начала игры", "en": "Waiting for the game to start"},
        # A-G-D2: a press between questions, shown for a moment (display.view.button_check)
        "button_works": {"ru": "Кнопка работает: {name}", "en": "Button works: {name}"},
        "chooses": {"ru": "выбирает", "en": "chooses"},
        "answering": {"ru": "отвечает", "en": "answering"},
        "answered": {"ru": "ответ был", "en": "answered"},
        "false_start": {"ru": "фальстарт", "en": "false start"},
        "reading": {"ru": "Читается вопрос", "en": "Reading the question"},
        "press_now": {"ru": "Жмите!", "en": "Buzz in!"},
        "answers": {"ru": "Отвечает {name}", "en": "{name} answers"},
        "closed": {"ru": "Вопрос закрыт", "en": "Question closed"},
        "selected": {"ru": "Вопрос выбран", "en": "Question selected"},
        "question_for": {"ru": "{theme} за {price}", "en": "{theme} for {price}"},
        "faster_by": {"ru": "быстрее на {margin}", "en": "faster by {margin}"},
        "behind_by": {"ru": "+{margin}", "en": "+{margin}"},
        "draw": {"ru": "жребий", "en": "drawn by lot"},
        "stake_title": {"ru": "Вопрос со ставкой", "en": "Stake question"},
        "auction_title": {"ru": "Аукцион", "en": "Auction"},
        "cat_title": {"ru": "Кот в мешке", "en": "Cat in the bag"},
        "sponsor_title": {"ru": "Вопрос от спонсора", "en": "Sponsor question"},
        "nominal": {"ru": "Номинал {price}", "en": "Nominal {price}"},
        "bid": {"ru": "Ставка {amount}", "en": "Bid {amount}"},
        "no_bid": {"ru": "Ставок нет", "en": "No bids yet"},
        "leads": {"ru": "ведёт", "en": "leads"},
        "passed": {"ru": "пас", "en": "pass"},
        "turn": {"ru": "ход", "en": "turn"},
        "turn_of": {"ru": "Ход: {name}", "en": "Turn: {name}"},
        # TV-H-1995-01: the stake question bought by the button
        "buy_press": {"ru": "Кто купит? Жмите кнопку", "en": "Who buys it? Press the button"},
        "buys": {"ru": "покупает", "en": "buys"},
        "buyer_of": {"ru": "Покупает {name}", "en": "{name} buys"},
        # TV-H-1995-03: the bonus contest after the Blue round
        "bonus_title": {"ru": "Бонус-конкурс", "en": "Bonus contest"},
        "bonus_offer": {"ru": "Предлагается: {name}", "en": "Offered to {name}"},
        "bonus_rules": {
            "ru": "5 вопросов одной темы: все верно — поездка",
            "en": "5 questions of one theme: all right wins a trip",
        },
        "bonus_player": {"ru": "Играет {name}", "en": "{name} plays"},
        "bonus_progress": {"ru": "Верно {right} из {of}", "en": "{right} of {of} right"},
        "cat_gives": {"ru": "{name} отдаёт кота", "en": "{name} hands the cat over"},
        "cat_to": {"ru": "Кота получает {name}", "en": "{name} gets the cat"},
        "cat_price": {"ru": "Выбор стоимости", "en": "Choosing the value"},
        "cat_options": {"ru": "{a} или {b}", "en": "{a} or {b}"},
        "plays_for": {"ru": "{name} играет за {value}", "en": "{name} plays for {value}"},
        "final": {"ru": "Финал", "en": "Final round"},
        "final_theme": {"ru": "Тема {n}", "en": "Theme {n}"},
        "removes": {"ru": "Убирает тему: {name}", "en": "Removing a theme: {name}"},
        "stakes": {"ru": "Ставки", "en": "Stakes"},
        "stake_in": {"ru": "ставка сделана", "en": "stake made"},
        "stake_wait": {"ru": "думает", "en": "thinking"},
        "stake_hidden": {"ru": "ставка ?", "en": "stake ?"},
        "stake_shown": {"ru": "ставка {amount}", "en": "stake {amount}"},
        "judging": {"ru": "Проверка ответов", "en": "Checking the answers"},
        "shootout": {"ru": "Перестрелка", "en": "Shootout"},
        "shootout_n": {"ru": "Перестрелка, {n}-я", "en": "Shootout {n}"},
        "winner": {"ru": "Победитель", "en": "Winner"},
        "winner_status": {"ru": "победитель", "en": "winner"},
        "no_winner": {"ru": "Победителя нет", "en": "No winner"},
        "game_over": {"ru": "Игра окончена", "en": "Game over"},
        # The game-over screen's corner: the report's QR code, the journal's seal.
        "report_scan": {"ru": "Отчёт об игре: наведите камеру", "en": "The game's report: scan"},
        "seal": {"ru": "Печать журнала", "en": "The journal's seal"},
        "seat": {"ru": "Игрок {n}", "en": "Player {n}"},
        "ms": {"ru": "мс", "en": "ms"},
        "us": {"ru": "мкс", "en": "µs"},
        # A question's media the board does not show (display.scene.NOTE_*).
        "note_audio": {"ru": "Аудиовопрос", "en": "Audio question"},
        "note_audio_failed": {
            "ru": "Аудиовопрос: звук не воспроизводится на табло",
            "en": "Audio question: the board cannot play the sound",
        },
        "note_video": {
            "ru": "Видеовопрос: видео не воспроизводится на табло",
            "en": "Video question: the board does not play video",
        },
        "note_html": {
            "ru": "HTML-вопрос: на табло не показывается",
            "en": "HTML question: not shown on the board",
        },
        "note_link": {
            "ru": "Медиа по ссылке: на табло не показывается",
            "en": "Media from a web address: not shown on the board",
        },
        "image_broken": {"ru": "Картинка не открывается", "en": "The picture cannot be shown"},
        # The cat in the bag as the package states it.
        "cat_theme": {"ru": "Тема кота", "en": "The cat's theme"},
        "cat_value": {"ru": "Стоимость: {value}", "en": "Value: {value}"},
        "cat_range_step": {"ru": "от {a} до {b}, шаг {step}", "en": "{a} to {b}, step {step}"},
        "cat_extremes": {
            "ru": "минимум или максимум раунда",
            "en": "the round's lowest or highest",
        },
        "final_answer": {"ru": "Правильный ответ: {answer}", "en": "Right answer: {answer}"},
        # A-G-D1: the host's pause, and the clocks it froze.
        "pause": {"ru": "Пауза", "en": "Pause"},
        "pause_note": {"ru": "Время остановлено", "en": "The clocks are stopped"},
        "paused_window": {"ru": "Окно для ответа", "en": "Buzz-in window"},
        "paused_buy": {"ru": "Покупка вопроса", "en": "Buying the question"},
        "paused_final": {"ru": "Ответы финала", "en": "Final answers"},
        "paused_lockout": {"ru": "Фальстарт: {name}", "en": "False start: {name}"},
        "seconds": {"ru": "{s} с", "en": "{s} s"},
    }
)


def tr(key: str, lang: str = DEFAULT_LANGUAGE, **fields: object) -> str:
    """The string ``key`` in ``lang`` (falling back to Russian), formatted with ``fields``."""
    variants = _STRINGS[key]
    text = variants.get(lang) or variants[DEFAULT_LANGUAGE]
    return text.format(**fields) if fields else text


def keys() -> frozenset[str]:
    return frozenset(_STRINGS)


def translations(key: str) -> Mapping[str, str]:
    return _STRINGS[key]


MINUS = "\u2212"  # a real minus sign: wider and clearer than a hyphen from across a room


def number(value: int) -> str:
    """A score: digits grouped by threes from 10 000 up, a minus sign for negatives."""
    digits = str(abs(value))
    if len(digits) > 4:
        groups = []
        while digits:
            groups.append(digits[-3:])
            digits = digits[:-3]
        digits = " ".join(reversed(groups))
    return f"{MINUS}{digits}" if value < 0 else digits


def margin(us: int, lang: str = DEFAULT_LANGUAGE) -> str:
    """A margin in microseconds: ``850 мкс`` below a millisecond, else ``3,2 мс``."""
    if us < 1000:
        return f"{us} {tr('us', lang)}"
    ms = f"{us / 1000:.1f}" if us < 100_000 else f"{us // 1000}"
    if lang == "ru":
        ms = ms.replace(".", ",")
    return f"{ms} {tr('ms', lang)}"


def tenths(ns: int, lang: str = DEFAULT_LANGUAGE) -> str:
    """A time left to the tenth of a second (``4,0 с``), as a frozen clock shows it."""
    tenth = max(0, -(-ns // 100_000_000))
    text = f"{tenth // 10}.{tenth % 10}"
    if lang == "ru":
        text = text.replace(".", ",")
    return tr("seconds", lang, s=text)


def seconds_left(ns: int) -> str:
    """Whole seconds still to go, rounded up (``3`` for 2.1 s): the countdown's digit."""
    if ns <= 0:
        return "0"
    return str(-(-ns // 1_000_000_000))
