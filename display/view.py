"""From a scene to what each part of the screen says: plain data, no pixels.

These functions read the snapshot and turn it into the words, numbers and
lamp states the renderer draws. They decide nothing about the game: who is
answering, who is locked out, who has answered, whose turn it is — all of
it is read from the snapshot (or the decisions' facts in the scene).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from display import i18n
from display import scene as screens
from display.i18n import tr
from display.scene import Facts, Scene
from rules.packages.model import CatAnnounce
from rules.snapshot import GameSnapshot

# Lamp states.
LAMP_OFF = "off"
LAMP_ON = "on"
LAMP_FALSE_START = "false_start"  # blinks while the lockout lasts
LAMP_DIM = "dim"

# Tones of a status line.
TONE_PLAIN = "plain"
TONE_GOLD = "gold"
TONE_RED = "red"
TONE_MUTED = "muted"
TONE_GREEN = "green"

# Countdown kinds.
WINDOW = "window"  # the press window (closes_at)
ANSWER = "answer"  # the answering player's time (answer_deadline, special_deadline)
FINAL = "final"  # the final's written answers

BLINK_NS = 150_000_000  # a false-start lamp blinks at ~3 Hz


@dataclass(frozen=True, slots=True)
class PodiumView:
    seat: int
    name: str
    score: str
    negative: bool
    lamp: str
    dim: bool
    active: bool
    status: str
    tone: str


@dataclass(frozen=True, slots=True)
class Countdown:
    kind: str
    deadline: int
    remaining: int


def seats(snapshot: GameSnapshot) -> list[int]:
    return list(range(1, len(snapshot.get("players") or ()) + 1))


def player_name(snapshot: GameSnapshot, seat: int | None, lang: str) -> str:
    players = snapshot.get("players") or ()
    if seat is None:
        return ""
    if 1 <= seat <= len(players):
        return str(players[seat - 1])
    return tr("seat", lang, n=seat)


#: How long the board names the player whose button check it saw (A-G-D2).
CHECK_SHOWN_NS = 2_000_000_000


def button_check(scene: Scene, now: int, lang: str) -> str:
    """A-G-D2: «Кнопка работает: Анна» for :data:`CHECK_SHOWN_NS` after a press
    while no question is open (before the first, between questions, paused on
    the board), else "". The engine said it was a check; this only words it."""
    snapshot = scene.snapshot
    checked = scene.facts.checked
    if snapshot is None or checked is None or snapshot.get("stage") != "board":
        return ""
    seat, t = checked
    if not 0 <= now - t < CHECK_SHOWN_NS:
        return ""
    return tr("button_works", lang, name=player_name(snapshot, seat, lang))


def _int_keys(mapping: Mapping[str, int] | None) -> dict[int, int]:
    return {int(k): v for k, v in (mapping or {}).items()}


def theme_names(snapshot: GameSnapshot, lang: str) -> list[str]:
    """The board's theme titles (the shootout's one theme is called the shootout)."""
    if snapshot.get("shootout"):
        return [tr("shootout", lang)] * len(snapshot.get("themes") or ())
    return [str(t) for t in snapshot.get("themes") or ()]


def board_rows(
    snapshot: GameSnapshot, lang: str
) -> tuple[tuple[str, ...], frozenset[tuple[int, int]]]:
    """The board's theme titles row by row, and the played cells as (row, price).

    The rows stand in the snapshot's ``theme_order`` (TV-H-2001-09: alphabetical
    in that era); the snapshot's cells are numbered by theme, as the journal is.
    """
    names = theme_names(snapshot, lang)
    order = snapshot.get("theme_order") or range(1, len(names) + 1)
    row_of = {number: row for row, number in enumerate(order, 1)}
    played = frozenset(
        (row_of[int(theme)], int(price))
        for theme, price in snapshot.get("played") or ()
        if int(theme) in row_of
    )
    return tuple(names[number - 1] for number in order), played


def cell_theme(snapshot: GameSnapshot, lang: str) -> str:
    cell = snapshot.get("cell")
    names = theme_names(snapshot, lang)
    theme = int(cell[0]) if cell else 0
    return names[theme - 1] if 1 <= theme <= len(names) else ""


def cell_price(snapshot: GameSnapshot) -> int | None:
    cell = snapshot.get("cell")
    return int(cell[1]) if cell else None


def special_title(snapshot: GameSnapshot, lang: str) -> str:
    kind = snapshot.get("special")
    if kind == "stake":
        rules = str(snapshot.get("rules") or "")
        return tr("auction_title" if rules.startswith("tv") else "stake_title", lang)
    if kind == "cat":
        return tr("cat_title", lang)
    if kind == "sponsor":
        return tr("sponsor_title", lang)
    return ""


def round_title(snapshot: GameSnapshot, lang: str) -> str:
    shootout = snapshot.get("shootout")
    if shootout:
        number = int(shootout.get("number") or 1)
        return tr("shootout", lang) if number == 1 else tr("shootout_n", lang, n=number)
    name = str(snapshot.get("round_name") or "").strip()
    if name.isdigit():
        # SIGame packages often number their rounds ("1"): a bare digit in the
        # header reads as a score, so it is shown as "Раунд 1".
        return tr("round", lang, n=name)
    return name or tr("round", lang, n=snapshot.get("round", 1))


def frozen_now(scene: Scene, now: int) -> int:
    """The instant the screen shows: ``now``, or the pause's while the game is paused
    (A-G-D1: every clock stands still, so each timer shows what it had left then)."""
    snapshot = scene.snapshot
    paused_at = snapshot.get("paused_at") if snapshot is not None else None
    return now if paused_at is None else int(paused_at)


def countdown(scene: Scene, now: int) -> Countdown | None:
    """The timer running now, if any: the press window, the answer, the final's 30 s
    (frozen at the pause's instant while the game is paused)."""
    snapshot = scene.snapshot
    if snapshot is None or scene.start is not None:
        return None
    now = frozen_now(scene, now)
    stage = snapshot.get("stage")
    deadline: int | None = None
    kind = WINDOW
    if stage == "question":
        closes_at = snapshot.get("closes_at")
        answer_deadline = snapshot.get("answer_deadline")
        if closes_at is not None:
            deadline = int(closes_at)
        elif snapshot.get("answering") is not None and answer_deadline is not None:
            deadline, kind = int(answer_deadline), ANSWER
    elif stage == "special":
        special_deadline = snapshot.get("special_deadline")
        if special_deadline is not None:
            deadline, kind = int(special_deadline), ANSWER
    elif stage in ("final_stakes", "final_judging") and scene.facts.final_until is not None:
        deadline, kind = scene.facts.final_until, FINAL
    if deadline is None or (kind == FINAL and deadline <= now):
        return None
    return Countdown(kind, deadline, deadline - now)


def _locked(snapshot: GameSnapshot, now: int) -> dict[int, int]:
    if snapshot.get("stage") != "question":
        return {}
    return {s: int(u) for s, u in _int_keys(snapshot.get("locked_until")).items() if int(u) > now}


def animating(scene: Scene, now: int) -> bool:
    """True while something moves without the snapshot changing: a countdown, a blinking lamp."""
    snapshot = scene.snapshot
    if snapshot is None:
        return False
    if button_check(scene, now, "en"):
        return True  # A-G-D2: the name goes away on its own
    if scene.start is not None:
        return False
    if snapshot.get("paused_at") is not None:
        return False  # A-G-D1: nothing moves during a pause
    timer = countdown(scene, now)
    if timer is not None and timer.remaining > 0:
        return True
    return bool(_locked(snapshot, now))


def blink_on(now: int) -> bool:
    return (now // BLINK_NS) % 2 == 0


def paused_clocks(scene: Scene, lang: str) -> list[tuple[str, str]]:
    """A-G-D1: (what, time left) of each clock the pause froze, for the pause screen:
    the press window (or the stake question's buy window), the answer, the final's
    writing time, each false start's lockout."""
    snapshot = scene.snapshot
    paused_at = snapshot.get("paused_at") if snapshot is not None else None
    if snapshot is None or paused_at is None:
        return []
    at = int(paused_at)
    stage = snapshot.get("stage")
    out: list[tuple[str, str]] = []
    closes_at = snapshot.get("closes_at")
    if stage in ("question", "bidding") and closes_at is not None:
        what = "paused_buy" if stage == "bidding" else "paused_window"
        out.append((tr(what, lang), i18n.tenths(int(closes_at) - at, lang)))
    answering = snapshot.get("answering")
    deadline = (
        snapshot.get("special_deadline") if stage == "special" else snapshot.get("answer_deadline")
    )
    if stage in ("question", "special") and answering is not None and deadline is not None:
        name = player_name(snapshot, answering, lang)
        out.append((tr("answers", lang, name=name), i18n.tenths(int(deadline) - at, lang)))
    until = scene.facts.final_until
    if stage in ("final_stakes", "final_judging") and until is not None and until > at:
        out.append((tr("paused_final", lang), i18n.tenths(until - at, lang)))
    for seat, locked in sorted(_locked(snapshot, at).items()):
        name = player_name(snapshot, seat, lang)
        out.append((tr("paused_lockout", lang, name=name), i18n.tenths(locked - at, lang)))
    return out


def margins(snapshot: GameSnapshot) -> dict[int, int]:
    """Seat → µs behind the answering player's press, while someone is answering."""
    if snapshot.get("stage") != "question" or snapshot.get("phase") != "answering":
        return {}
    return {int(s): int(v) for s, v in (snapshot.get("margins_us") or {}).items()}


def winning_margin(snapshot: GameSnapshot) -> int | None:
    """By how much the answering player won the button: the closest other press."""
    behind = margins(snapshot)
    return min(behind.values()) if behind else None


def podiums(scene: Scene, now: int, lang: str) -> list[PodiumView]:
    snapshot = scene.snapshot
    if snapshot is None:
        return []
    facts = scene.facts
    stage = snapshot.get("stage")
    scores = _int_keys(snapshot.get("scores"))
    answering = snapshot.get("answering") if stage in ("question", "special") else None
    locked = _locked(snapshot, now)
    answered = set(snapshot.get("answered") or ()) if stage == "question" else set()
    behind = margins(snapshot)
    chooser = snapshot.get("chooser")
    bidding = snapshot.get("bidding") or None
    final = snapshot.get("final") or None
    shootout = snapshot.get("shootout") or None
    shootout_seats = set(shootout.get("seats") or ()) if shootout else set()
    shootout_scores = _int_keys(shootout.get("scores")) if shootout else {}
    final_stage = str(stage).startswith("final")
    finalists = set(final.get("seats") or ()) if final else set()
    out: list[PodiumView] = []
    for seat in seats(snapshot):
        score = int(shootout_scores.get(seat, scores.get(seat, 0)))
        lamp = LAMP_OFF
        dim = False
        active = False
        status, tone = "", TONE_PLAIN
        if shootout and seat not in shootout_seats:
            dim = True
        if final_stage and seat not in finalists:
            dim = True
        if stage == "question" and seat in answered and seat != answering:
            dim = True
        if stage == "over":
            winner = snapshot.get("winner")
            if winner == seat:
                lamp, active, status, tone = LAMP_ON, True, tr("winner_status", lang), TONE_GOLD
        elif seat == answering:
            lamp, active = LAMP_ON, True
            won_by = winning_margin(snapshot)
            if won_by is None:
                status, tone = tr("answering", lang), TONE_GOLD
            elif won_by == 0:
                status, tone = tr("draw", lang), TONE_GOLD
            else:
                status, tone = tr("faster_by", lang, margin=i18n.margin(won_by, lang)), TONE_GOLD
        elif seat in locked:
            lamp, status, tone = LAMP_FALSE_START, tr("false_start", lang), TONE_RED
        elif seat in behind:
            us = behind[seat]
            status = (
                tr("draw", lang) if us == 0 else tr("behind_by", lang, margin=i18n.margin(us, lang))
            )
            tone = TONE_MUTED
        elif stage == "question" and seat in answered:
            status, tone = tr("answered", lang), TONE_MUTED
        elif stage == "board" and chooser == seat and not shootout:
            active, status, tone = True, tr("chooses", lang), TONE_GOLD
        elif stage == "bidding" and bidding:
            bid = bidding.get("bid")
            if seat in (bidding.get("passed") or ()):
                dim, status, tone = True, tr("passed", lang), TONE_MUTED
            elif bidding.get("turn") == seat:
                active, status, tone = True, tr("turn", lang), TONE_GOLD
            elif bidding.get("leader") == seat and bid is not None:
                status = f"{tr('leads', lang)} · {i18n.number(int(bid))}"
                tone = TONE_GREEN
        elif (stage == "cat_give" and chooser == seat) or (
            stage == "cat_price" and facts.cat_to == seat
        ):
            active, status, tone = True, tr("cat_title", lang), TONE_GOLD
        elif stage == "final_remove" and facts.final_turn == seat:
            active, status, tone = True, tr("turn", lang), TONE_GOLD
        elif stage == "final_stakes" and seat in finalists:
            staked = seat in (final.get("staked") or ()) if final else False
            status = tr("stake_in" if staked else "stake_wait", lang)
            tone = TONE_GREEN if staked else TONE_MUTED
        elif stage == "final_judging" and seat in finalists:
            order = list(final.get("judge_order") or ()) if final else []
            if seat in facts.revealed:
                status = tr("stake_shown", lang, amount=i18n.number(facts.revealed[seat]))
                tone = verdict_tone(facts, seat)
            else:
                status = tr("stake_hidden", lang)
            if order and order[0] == seat:
                active, tone = True, TONE_GOLD
        if dim and lamp == LAMP_OFF:
            lamp = LAMP_DIM
        out.append(
            PodiumView(
                seat=seat,
                name=player_name(snapshot, seat, lang),
                score=i18n.number(score),
                negative=score < 0,
                lamp=lamp,
                dim=dim,
                active=active,
                status=status,
                tone=tone,
            )
        )
    return out


def verdict_tone(facts: Facts, seat: int) -> str:
    """A revealed final stake's colour: green judged right, red judged wrong, plain
    when no verdict is known (a stake of 0)."""
    verdict = facts.verdicts.get(seat)
    return TONE_PLAIN if verdict is None else TONE_GREEN if verdict else TONE_RED


def question_status(snapshot: GameSnapshot, lang: str) -> tuple[str, str]:
    """The line under the question: reading, buzz in, who answers (and by how much)."""
    stage = snapshot.get("stage")
    if stage == "special":
        name = player_name(snapshot, snapshot.get("answering"), lang)
        value = snapshot.get("value")
        if value is None:
            return tr("answers", lang, name=name), TONE_GOLD
        return tr("plays_for", lang, name=name, value=i18n.number(int(value))), TONE_GOLD
    phase = snapshot.get("phase")
    if phase == "answering":
        name = player_name(snapshot, snapshot.get("answering"), lang)
        text = tr("answers", lang, name=name)
        won_by = winning_margin(snapshot)
        if won_by:
            text = f"{text} · {tr('faster_by', lang, margin=i18n.margin(won_by, lang))}"
        return text, TONE_GOLD
    if phase == "open":
        return tr("press_now", lang), TONE_GREEN
    if phase == "reading":
        return tr("reading", lang), TONE_MUTED
    if phase == "selected":
        return tr("selected", lang), TONE_MUTED
    if phase == "closed":
        return tr("closed", lang), TONE_MUTED
    return "", TONE_PLAIN


def header(scene: Scene, kind: str, lang: str) -> tuple[str, str]:
    """The header's (left, right) texts for a screen."""
    snapshot = scene.snapshot
    if snapshot is None:
        return tr("title", lang), ""
    price = cell_price(snapshot)
    price_text = "" if price is None else i18n.number(price)
    if kind == screens.BOARD:
        return round_title(snapshot, lang), ""
    if kind == screens.QUESTION:
        theme = cell_theme(snapshot, lang)
        if snapshot.get("shootout"):
            theme = round_title(snapshot, lang)
        return theme, price_text
    if kind in (screens.BIDDING, screens.CAT):
        return special_title(snapshot, lang), f"{cell_theme(snapshot, lang)} · {price_text}"
    if kind == screens.SPECIAL:
        title = special_title(snapshot, lang)
        # A cat is played in the package's own theme (TV-S-CAT-2), not the cell's.
        cat = scene.cat if snapshot.get("special") == "cat" else None
        theme = cat.theme if cat is not None and cat.theme else cell_theme(snapshot, lang)
        value = snapshot.get("value")
        return f"{title} · {theme}" if title else theme, "" if value is None else i18n.number(
            int(value)
        )
    if kind in (screens.FINAL_REMOVE, screens.FINAL_STAKES, screens.FINAL_JUDGING):
        subtitle = {
            screens.FINAL_STAKES: tr("stakes", lang),
            screens.FINAL_JUDGING: tr("judging", lang),
        }.get(kind, "")
        left = tr("final", lang)
        if kind == screens.FINAL_JUDGING:
            # The question is up: its theme, when the package names it, heads it.
            final = snapshot.get("final")
            left_themes = [int(t) for t in final.get("themes_left") or ()] if final else []
            names = scene.final_theme_names
            chosen = left_themes[0] if len(left_themes) == 1 else 0
            if 1 <= chosen <= len(names) and names[chosen - 1]:
                left = f"{left} · {names[chosen - 1]}"
        return left, subtitle
    if kind == screens.OVER:
        return tr("game_over", lang), ""
    if kind == screens.BONUS:
        return round_title(snapshot, lang), tr("bonus_title", lang)
    return tr("title", lang), ""


def media_lines(scene: Scene, lang: str) -> list[str]:
    """What the board says about the question's media it does not show, one line each."""
    return [tr(f"note_{note}", lang) for note in scene.media_notes if note in screens.MEDIA_NOTES]


def cat_theme(scene: Scene) -> str:
    """The cat's theme from the package, once it may be known: after the hand-over,
    or before it when the package announces it first (SIGame ``secretPublicPrice``)."""
    snapshot = scene.snapshot
    cat = scene.cat
    if snapshot is None or cat is None or not cat.theme or snapshot.get("special") != "cat":
        return ""
    if snapshot.get("stage") == "cat_give" and cat.announce is not CatAnnounce.BEFORE:
        return ""
    return cat.theme


def cat_value(scene: Scene, lang: str) -> str:
    """The cat's value once it is handed over: the choice the engine offers, else the
    package's value (which an engine may override: TV-S-CAT-2 since Aug 2007)."""
    snapshot = scene.snapshot
    choosing = tr("cat_price", lang)
    options = scene.facts.cat_options
    if len(options) == 2:
        a, b = (i18n.number(v) for v in options)
        return f"{choosing}: {tr('cat_options', lang, a=a, b=b)}"
    if options:
        return f"{choosing}: {', '.join(i18n.number(v) for v in options)}"
    cat = scene.cat
    if cat is None:
        return choosing
    price = cat.price
    if price.fixed_value is not None:
        return tr("cat_value", lang, value=i18n.number(price.fixed_value))
    if price.round_extremes:
        listed = snapshot.get("prices") if snapshot is not None else None
        prices = tuple(int(p) for p in listed or ())
        ends = price.options(prices)
        if len(ends) == 2:
            a, b = (i18n.number(v) for v in ends)
            return f"{choosing}: {tr('cat_options', lang, a=a, b=b)}"
        return f"{choosing}: {tr('cat_extremes', lang)}"
    values = price.options(())
    a, b = i18n.number(values[0]), i18n.number(values[-1])
    if price.step:
        span = tr("cat_range_step", lang, a=a, b=b, step=i18n.number(price.step))
    else:
        span = tr("cat_options", lang, a=a, b=b)
    return f"{choosing}: {span}"


def final_answer(scene: Scene, lang: str) -> str:
    """The final's right answer, shown once every verdict is in (the game is over)."""
    snapshot = scene.snapshot
    if snapshot is None or not scene.answer_text or snapshot.get("stage") != "over":
        return ""
    final = snapshot.get("final")
    if not final or final.get("judge_order"):
        return ""
    return tr("final_answer", lang, answer=scene.answer_text)


def final_theme_names(scene: Scene, lang: str) -> list[str]:
    """Every theme the final offered, by number (names from the package when given)."""
    snapshot = scene.snapshot
    final = snapshot.get("final") if snapshot is not None else None
    left = [int(t) for t in final.get("themes_left") or ()] if final else []
    total = max([scene.facts.final_total, len(scene.final_theme_names), *left, 0])
    names = list(scene.final_theme_names)
    return [
        names[i] if i < len(names) and names[i] else tr("final_theme", lang, n=i + 1)
        for i in range(total)
    ]


def ranking(snapshot: GameSnapshot, lang: str) -> list[tuple[str, str, bool]]:
    """(name, score, negative) from the highest score down (the winner first)."""
    scores = _int_keys(snapshot.get("scores"))
    winner = snapshot.get("winner")
    order = sorted(scores, key=lambda s: (s != winner, -scores[s], s))
    return [(player_name(snapshot, s, lang), i18n.number(scores[s]), scores[s] < 0) for s in order]
