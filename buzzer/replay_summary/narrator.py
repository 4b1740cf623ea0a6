"""The summary's narrator: one handler per kind of decision, the account line by line.

:class:`Narrator` walks a replay's decisions (its output objects, in order)
and keeps what a reader needs that a single decision does not say: the
question being told, the press waiting for its margins, the bids of an
auction, the scores after each verdict. Each ``on_<type>`` handler tells one
kind of decision; a type without a handler is not told. The words are in
:mod:`.words`, the numbers' writing in :mod:`.text`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from buzzer.arbiter.decisions import NoteKind
from buzzer.replay_summary.text import clock_text, margin_text, number, signed
from buzzer.replay_summary.words import TEXT
from rules.game import GameSetup
from rules.packages import Package

Record = Mapping[str, Any]


def withdrawn(state: str, shootout: bool) -> bool:
    """A question that ended in ``state`` was withdrawn by the host (``timeout``), as
    the report reads it (``buzzer.report.model.withdrawn``, which this layer may not
    import): ``open`` — a window open, a reading going on; ``wrong`` — a wrong verdict
    the question did not close at (TV-94-A2's ``hold``). A shootout passes no choice,
    so there a last wrong answer cannot be told from a withdrawal: not one."""
    return state == "open" or (state == "wrong" and not shootout)


class Narrator:
    """Walks the decisions in order and writes the account line by line.

    A question is a block: its heading, what happened, then the scores when
    the next block starts. A press is written once its margins are known (the
    ``ignored`` presses that follow it), so the line can say by how much the
    winner was ahead.
    """

    def __init__(self, setup: GameSetup, lang: str, package: Package | None = None) -> None:
        if lang not in TEXT:
            raise ValueError(f"unknown language {lang!r}; known: {', '.join(TEXT)}")
        self.words = TEXT[lang]
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
        #: Whether the question is still open (as the report's model reads it): ``open``,
        #: ``right``, ``closed``, or ``wrong`` at ``wrong_at`` (closed if the choice passes
        #: at that same instant: nobody was left to answer).
        self.state = "open"
        self.wrong_at: object = None
        self.adjusting: NoteKind | None = None
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
        return " · ".join(f"{self.name(s)} {number(v)}" for s, v in scores.items())

    def end_block(self) -> None:
        """Close the question being told: its outcome if silent, then the scores."""
        self.flush_press()
        self.flush_others()
        if not self.in_question:
            return
        if not self.scored and not self.closed:
            self.say("no_answer")
        elif self.scored and withdrawn(self.state, self.shootout is not None):
            self.say("withdrawn")  # the host took it off after a wrong answer
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
        if self.adjusting is NoteKind.UNDONE and (
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
        self.state = "open"
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
        delta = signed(self.bonus_loss) if self.bonus_loss else "0"
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
        self.state = "open"
        if self.signal is None:
            self.signal = float(r["t"])
            self.say("signal", t=self.clock(r["t"]))

    def on_window_closed(self, r: Record) -> None:
        self.state = "closed"
        if self.buying:
            self.say("buy_closed", t=self.clock(r["t"]))
            return
        self.closed = True
        self.say("window_closed", t=self.clock(r["t"]))

    def on_reading_resumed(self, r: Record) -> None:
        self.state = "open"
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
        fields = {"name": self.name(seat), "delta": signed(delta), "score": number(score)}
        if self.adjusting is NoteKind.UNDONE:
            self.say("undone_score", **fields)
            return
        if self.adjusting is not None:
            key, self.adjusting = self.adjusting, None
            self.say(key, reason=self.reason, **fields)
            return
        self.scored = True
        self.verdict(delta, r["t"])
        if self.final_stake is not None and self.final_stake == 0:
            self.say("zero", **fields)
        elif delta > 0:
            self.say("right", **fields)
        elif delta < 0:
            self.say("wrong", **fields)
        else:
            self.say("wrong_free", **fields)
        self.final_stake = None

    def verdict(self, delta: int, t: object) -> None:
        self.state = "right" if delta > 0 else "wrong"
        self.wrong_at = t

    def on_chooser(self, r: Record) -> None:
        if self.state == "wrong" and r.get("t") == self.wrong_at:
            self.state = "closed"  # the wrong answer left nobody to answer
        self.chooser = r["seat"]
        if self.round_opening:
            # C2003-2.3.2, TV-G-4: a new round's first choice goes to the lowest score.
            self.say("round_chooser", name=self.name(r["seat"]))

    def on_correction(self, r: Record) -> None:
        self.adjusting = NoteKind.CORRECTION
        self.reason = " ".join(str(r.get("reason", "")).split()) or "—"

    def on_substitute(self, r: Record) -> None:
        """SER-CC1-SUB: the seat's new player is named from here on."""
        self.end_block()  # the question before it is told with the old name
        seat = r["seat"]
        score = number(self.scores.get(seat, 0))
        self.say("substitute", seat=seat, new=r["in"], old=r["out"], score=score)
        self.names[seat] = r["in"]

    def on_objection(self, r: Record) -> None:
        self.adjusting = NoteKind.OBJECTION

    def on_undone(self, r: Record) -> None:
        self.adjusting = NoteKind.UNDONE
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
        self.verdict(int(r["delta"]), r["t"])
        if self.shootout is not None:
            self.shootout[r["seat"]] = int(r["score"])
        self.say(
            "shootout.right" if int(r["delta"]) > 0 else "shootout.wrong",
            name=self.name(r["seat"]),
            delta=signed(int(r["delta"])),
            score=number(int(r["score"])),
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
        if self.state == "wrong":
            self.state = "closed"  # the journal ends in the question: still in play
        self.end_block()
        self.flush_others()
        self.lines.append("")
        ranked = sorted(self.scores.items(), key=lambda item: (-item[1], item[0]))
        board = " · ".join(f"{self.name(s)} {number(v)}" for s, v in ranked)
        self.say("result", scores=board)
        if not self.over:
            self.say("not_over")
        elif self.winner is None:
            self.say("no_winner")
        else:
            self.say("winner", name=self.name(self.winner))
        return "\n".join(self.lines) + "\n"


__all__ = ["Narrator", "Record"]
