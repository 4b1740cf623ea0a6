"""What the host is told when a host command is refused: Russian first, English too.

The engine's own messages are English and technical; the host, standing at a
tablet in a noisy room (or at the board's keyboard, or the host's buttons),
needs one sentence saying what to do. :func:`refused` looks at the command
and the snapshot to pick that sentence, and falls back on the engine's
message when no better one is known. Only the wording is chosen here: whether
a command is refused is decided by the engine, and by the host-command
service's own checks (``host_commands.py``: the id, the version, the pause,
who sent it), whose sentences are here too. The sentences themselves are the
catalogue's ``refusal`` namespace (``buzzer/words/*.json``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args

from buzzer.words import tr
from rules.snapshot import GameSnapshot, LiveSnapshot, StageName

STAGES: tuple[StageName, ...] = get_args(StageName)
STAGE_RU: dict[str, str] = {stage: tr(f"refusal.stage.{stage}", "ru") for stage in STAGES}
STAGE_EN: dict[str, str] = {stage: tr(f"refusal.stage.{stage}", "en") for stage in STAGES}


def say(key: str, **fields: object) -> tuple[str, str]:
    """The refusal ``key`` in Russian and in English, its fields filled."""
    return tr(f"refusal.{key}", "ru", **fields), tr(f"refusal.{key}", "en", **fields)


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


PAUSED = Message("paused", *say("paused"))
ID_REUSED = Message("id_reused", *say("id_reused"))
UNKNOWN_VERSION = Message("stale", *say("unknown_version"))
NOT_FROM_BUTTONS = Message("not_allowed", *say("not_from_buttons"))


def journal_failed(error: Exception) -> Message:
    """A command (or a simulated press) that the journal could not hold: not applied.

    A :class:`~buzzer.journal.store.JournalWriteError` names its cause and the
    last line recorded; anything else is said as it is."""
    why = getattr(error, "why", None)
    recorded = getattr(error, "recorded", -1)
    after = ("", "")
    if recorded >= 0:
        after = say("journal.after_line", line=recorded)
    if why in ("full", "readonly"):
        key = f"journal.{why}"
        return Message(
            f"journal_{why}",
            tr(f"refusal.{key}", "ru", after=after[0]),
            tr(f"refusal.{key}", "en", after=after[1]),
        )
    return Message(
        "journal_failed",
        tr("refusal.journal.failed", "ru", after=after[0], error=error),
        tr("refusal.journal.failed", "en", after=after[1], error=error),
    )


def stale(kind: str, then: LiveSnapshot, now: LiveSnapshot) -> Message:
    """The state moved on between what the host saw and the tap."""
    ru, en = "", ""
    if then.get("answering") != now.get("answering"):
        seat = now.get("answering")
        if seat is None:
            ru, en = say("stale.nobody")
        else:
            ru, en = say("stale.answering", who=name(now, seat))
    elif then.get("stage") != now.get("stage"):
        stage = str(now.get("stage"))
        ru = tr("refusal.stale.stage", "ru", stage=STAGE_RU.get(stage, stage))
        en = tr("refusal.stale.stage", "en", stage=STAGE_EN.get(stage, stage))
    elif then.get("phase") != now.get("phase"):
        ru, en = say("stale.phase")
    return Message(
        "stale",
        tr("refusal.stale", "ru", why=ru),
        tr("refusal.stale", "en", why=en),
    )


def no_such_seat(seat: int, players: int) -> tuple[str, str]:
    return say("no_such_seat", seat=seat, players=players)


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
        "stake_above_score", *say("stake_above_score", amount=amount, who=who, score=score)
    )


def refused(command: dict[str, Any], snapshot: GameSnapshot, engine: str) -> Message:
    """The engine refused ``command``: one sentence for the host, and the engine's own."""
    ru, en = _explain(command, snapshot)
    if not ru and command.get("type") == "undo":
        ru, en = say("cannot_undo", engine=engine)
    if not ru:
        ru, en = say("engine", engine=engine)
    return Message("refused", ru, en, engine)


def _explain(command: dict[str, Any], snap: GameSnapshot) -> tuple[str, str]:
    kind = command.get("type")
    stage = snap.get("stage")
    phase = snap.get("phase")
    answering = snap.get("answering")
    where_ru = STAGE_RU.get(str(stage), str(stage))
    where_en = STAGE_EN.get(str(stage), str(stage))

    def at_stage(key: str) -> tuple[str, str]:
        """A sentence naming the stage the game is at, in each language."""
        return (
            tr(f"refusal.{key}", "ru", stage=where_ru),
            tr(f"refusal.{key}", "en", stage=where_en),
        )

    judge_first = say("judge_first", who=name(snap, answering))
    if kind == "pause" and snap.get("paused_at") is not None:
        return say("already_paused")
    if kind == "resume" and snap.get("paused_at") is None:
        return say("not_paused")
    if stage == "over":
        return say("over")
    if kind in ("judge", "final_judge"):
        if kind == "judge" and stage == "final_judging":
            return "", ""
        if answering is None and stage != "final_judging":
            return say("nothing_to_judge")
        if kind == "final_judge" and stage != "final_judging":
            return at_stage("final_judged_later")
        final = snap.get("final")
        if stage == "final_judging" and not (final and final["answers_in"]):
            # C2003-2.7.4/2.7.5, TV-F-4/5: verdicts once the written answers are in
            if final is None or final["answers_due"] is None:
                return say("final_read_first")
            return say("final_writing")
        order = final["judge_order"] if final else []
        if kind == "final_judge" and order and command.get("seat") not in (None, order[0]):
            return say("final_order", who=name(snap, order[0]))
        return "", ""
    if kind in ("reading_start", "reading_end"):
        if stage == "final_stakes":
            return say("final_stakes_first")
        if stage == "final_judging":
            final = snap.get("final")
            if final is not None and final["answers_due"] is not None:
                return say("final_read_already")
            return "", ""
        if stage != "question":
            return at_stage("choose_first")
        if phase == "answering":
            return judge_first
        if phase == "open":
            return say("read_already")
        if phase == "closed":
            return say("closed_already")
        return "", ""
    if kind == "select":
        if stage == "question" and phase == "answering":
            return judge_first
        if stage not in ("board", "question"):
            return at_stage("select_not_now")
        cell = [command.get("theme"), command.get("price")]
        if cell in (snap.get("played") or []):
            return say("played_already")
        themes = snap.get("themes") or []
        prices = snap.get("prices") or []
        theme, price = command.get("theme"), command.get("price")
        if (
            theme is not None
            and price is not None
            and (not 1 <= theme <= len(themes) or price not in prices)
        ):
            return say("no_such_question")
        return "", ""
    if kind == "timeout":
        if stage == "special":
            return say("special_silence", who=name(snap, answering))
        if stage == "question" and phase == "answering":
            return judge_first
        return say("no_question")
    if kind == "bidder_pick":
        # TV-S-AUC-3: «игрока выбирает ведущий», among equal scores, when the turn comes
        bidding = snap.get("bidding")
        if stage != "bidding" or not bidding:
            return say("no_bidding")
        tied = bidding.get("pickable") or []
        if not tied:
            return say("nobody_to_pick")
        return say("pick_among", among=", ".join(name(snap, seat) for seat in tied))
    if kind in ("bid", "pass"):
        bidding = snap.get("bidding")
        if stage != "bidding" or not bidding:
            return say("no_bidding")
        turn = bidding.get("turn")
        if turn is None and bidding.get("by_button"):
            if kind == "pass":
                return "", ""
            return say("nobody_pressed")
        if command.get("seat") != turn:
            return say("turn_of", who=name(snap, turn))
        return "", ""
    if kind == "cat_picture":
        series = snap.get("cat_series")
        if not series:
            return say("no_cat_series")
        return say("cat_series_shown", n=len(series["values"]))
    if kind == "bonus" and stage != "bonus_offer":
        return say("bonus_not_offered")
    if kind == "cat_give" and stage != "cat_give":
        return say("no_cat")
    if kind == "cat_price" and stage != "cat_price":
        return say("cat_price_not_now")
    if kind == "cat_price":
        price, step = command.get("price"), snap.get("cat_value_step")
        if isinstance(price, int) and price <= 0:
            return say("cat_price_positive")
        if isinstance(price, int) and isinstance(step, int) and price % step:
            return say("cat_price_step", step=step, price=price)
    if kind in ("final_remove", "final_stake"):
        expected = "final_remove" if kind == "final_remove" else "final_stakes"
        if stage != expected:
            return at_stage("another_stage")
        final = snap.get("final")
        if kind == "final_stake" and command.get("seat") not in (final["seats"] if final else []):
            return say("not_finalist", who=name(snap, command.get("seat")))
        return "", ""
    if kind == "substitute":
        # SER-CC1-SUB: between round 2 and round 3 only
        return say("substitute")
    if kind == "objection":
        return say("objection")
    return "", ""
