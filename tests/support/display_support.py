"""Shared helpers of the display tests: headless SDL, scripted games, hand-made snapshots.

Importing this module sets ``SDL_VIDEODRIVER=dummy`` and ``SDL_AUDIODRIVER=dummy``
(unless already set) before pygame starts, so the tests run without a screen
or a sound card. It holds no tests of its own.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from buzzer.arbiter import events as ev
from buzzer.runtime.controller import Controller
from display.scene import Facts, Memory, Scene
from rules.snapshot import HostOptions

pygame.font.init()

RULES = (
    "championship-2003",
    "tv-1994",
    "tv-modern",
    "sport-false-start",
    "sport-clarify",
    "sport-no-false-start",
    "jeopardy",
)

NS = 1_000_000_000
MS = 1_000_000


def host_options(final_turn: int | None = None, cat_options: Any = None) -> HostOptions:
    """Host options as the engine publishes them (``GameCore.host_options``), with the
    two the board shows set by hand: whose turn it is in the final, the cat's values."""
    return {
        "settle_ms": 8.0,
        "has_chooser": True,
        "final_turn": final_turn,
        "cat_options": None if cat_options is None else list(cat_options),
        "cat_rules": None,
        "stake_opener_only": None,
        "bid_min": None,
        "bid_step": None,
        "bid_forced": None,
        "bidder_pick": None,
        "next_round": None,
        "stake_min": None,
        "stake_step": None,
        "substitute": False,
    }


@dataclass
class Frame:
    """One published state: what the board would be told."""

    snapshot: dict[str, Any]
    facts: Facts
    decisions: list[Any] = field(default_factory=list)

    def scene(self, **extra: Any) -> Scene:
        return Scene(self.snapshot, self.facts, **extra)


class ScriptedGame:
    """A game through the real :class:`Controller`, its clock advanced by hand.

    Every published (decisions, snapshot) pair is kept as a :class:`Frame`,
    as the board screen would receive it: with the controller's host options.
    """

    def __init__(self, header: dict[str, Any]) -> None:
        self.t = 0
        self.controller = Controller.new(header, clock=lambda: self.t)
        self.memory = Memory()
        self.memory.feed(self.controller.core.started)
        facts = self.memory.facts().with_options(self.controller.host_options())
        self.frames: list[Frame] = [Frame(self.controller.snapshot(), facts)]
        self.controller.subscribe(self._listen)

    def _listen(self, decisions: list[Any], snapshot: dict[str, Any]) -> None:
        facts = self.memory.feed(decisions).with_options(self.controller.host_options())
        self.frames.append(Frame(snapshot, facts, list(decisions)))

    def cat_options(self) -> list[int]:
        """The cat's values the engine offers now (empty: no choice)."""
        return list(self.controller.host_options()["cat_options"] or ())

    @property
    def snap(self) -> dict[str, Any]:
        return self.controller.snapshot()

    def wait(self, seconds: float) -> None:
        """Let time pass, ticking at every deadline on the way (as the live loop does)."""
        end = self.t + round(seconds * NS)
        while True:
            deadline = self.controller.core.next_deadline()
            if deadline is None or deadline > end:
                break
            self.t = max(self.t, deadline)
            if not self.controller.tick():
                break
        self.t = end

    def do(self, make: Callable[[int], Any], gap: float = 0.5) -> None:
        """Submit the input ``make(t)`` ``gap`` seconds from now, then let it settle."""
        self.wait(gap)
        self.controller.submit(make(self.t))
        self.wait(0.01)

    def accepts(self, make: Callable[[int], Any], gap: float = 0.5) -> bool:
        """Whether the core would take ``make(t)`` now (tried on a copy)."""
        trial = copy.deepcopy(self.controller.core)
        t = self.t + round(gap * NS)
        try:
            trial.push(make(t), [])
            trial.push(ev.Tick(t + 10 * MS), [])  # past the settle window: decided
        except Exception:
            return False
        return True

    def first(self, *makes: Callable[[int], Any], gap: float = 0.5) -> None:
        """Submit the first of ``makes`` the core accepts."""
        for make in makes:
            if self.accepts(make, gap):
                self.do(make, gap)
                return
        raise AssertionError(f"no move accepted at stage {self.snap['stage']}")


def _cells(snapshot: dict[str, Any]) -> Iterator[tuple[int, int]]:
    played = {tuple(c) for c in snapshot["played"]}
    for theme in range(1, len(snapshot["themes"]) + 1):
        for price in snapshot["prices"]:
            if (theme, price) not in played:
                yield theme, price


def play_question(game: ScriptedGame, n: int) -> None:
    """A plain question: a false start or an early press now and then, races, verdicts."""
    seats = len(game.snap["players"])
    game.do(lambda t: ev.ReadingStart(t))
    if n % 4 == 3:  # nobody knows: the window runs out
        game.do(lambda t: ev.ReadingEnd(t))
        game.wait(6.0)
        if game.snap["stage"] == "question":
            game.do(lambda t: ev.Timeout(t))
        return
    if n % 2 == 0:
        early = n % seats + 1
        game.do(lambda t: ev.Press(t, early), gap=0.4)  # a false start, or an interruption
    if game.snap["stage"] == "question" and game.snap["phase"] == "answering":
        game.do(lambda t: ev.Judge(t, n % 3 != 0))
    if game.snap["stage"] == "question" and game.snap["phase"] == "reading":
        game.do(lambda t: ev.ReadingEnd(t))
    for attempt in range(seats):
        snap = game.snap
        if snap["stage"] != "question" or snap["phase"] != "open":
            break
        first = (n + attempt) % seats + 1
        second = first % seats + 1
        game.do(lambda t, s=first: ev.Press(t, s), gap=0.3)
        game.do(lambda t, s=second: ev.Press(t, s), gap=0.0004)
        if game.snap["phase"] == "answering":
            right = (n + attempt) % 3 == 1
            game.do(lambda t, r=right: ev.Judge(t, r))
    snap = game.snap
    if snap["stage"] == "question" and snap["phase"] == "answering":
        game.do(lambda t: ev.Judge(t, True))
    if game.snap["stage"] == "question":
        game.wait(6.0)  # the window runs out
    if game.snap["stage"] == "question":
        game.do(lambda t: ev.Timeout(t))


def play_special(game: ScriptedGame, n: int) -> None:
    """Bidding, the cat's hand-over and value, and the designated answer."""
    for _ in range(20):
        snap = game.snap
        stage = snap["stage"]
        if stage == "bidding":
            bidding = snap["bidding"]
            turn = bidding["turn"]
            bid = bidding["bid"] or 0
            score = snap["scores"][str(turn)]
            raises = [bid + step for step in (10, 20, 50, 100, 200)] + [score]
            moves = [lambda t, s=turn: ev.Pass(t, s)] if bidding["bid"] is not None else []
            moves += [lambda t, s=turn, a=a: ev.Bid(t, s, a) for a in raises if a > 0]
            moves += [lambda t, s=turn: ev.Pass(t, s)]
            game.first(*moves)
        elif stage == "cat_give":
            chooser = snap["chooser"]
            others = [s for s in range(1, len(snap["players"]) + 1) if s != chooser]
            game.first(*(lambda t, s=s: ev.CatGive(t, s) for s in [*others, chooser]))
        elif stage == "cat_price":
            options = game.cat_options() or list(snap["prices"])
            game.first(*(lambda t, p=p: ev.CatPrice(t, p) for p in options))
        elif stage == "special":
            game.do(lambda t: ev.Judge(t, n % 2 == 0), gap=2.0)
        else:
            return


def play_final(game: ScriptedGame, tie: bool) -> None:
    """Remove themes down to one, stakes, the reading, the verdicts (a tie if asked)."""
    for _ in range(40):
        snap = game.snap
        stage = snap["stage"]
        final = snap["final"]
        if stage == "final_remove":
            game.do(lambda t, theme=final["themes_left"][-1]: ev.FinalRemove(t, theme))
        elif stage == "final_stakes":
            seat = next(s for s in final["seats"] if s not in final["staked"])
            if tie and seat == final["seats"][0] and len(final["seats"]) > 1:
                # Level the two leading finalists so that the final ends in a tie.
                a, b = final["seats"][:2]
                delta = snap["scores"][str(b)] - snap["scores"][str(a)]
                if delta:
                    game.do(lambda t, s=a, d=delta: ev.Correction(t, s, d, "tie for the test"))
            game.first(
                *(lambda t, s=seat, v=v: ev.FinalStake(t, s, v) for v in (10, 100, 200, None))
            )
            if game.snap["stage"] == "final_judging":
                game.do(lambda t: ev.ReadingStart(t))
                game.do(lambda t: ev.ReadingEnd(t), gap=3.0)
        elif stage == "final_judging":
            # the first verdict once the 30 s for the written answers are over (C2003-2.7.5)
            gap = 2.0 if final["answers_in"] else 31.0
            game.do(lambda t: ev.FinalJudge(t, True), gap=gap)
        else:
            return


def setup_header(rules: str) -> dict[str, Any]:
    """A small game of ``rules`` with every special question the system has."""
    header: dict[str, Any] = {
        "rules": rules,
        "players": ["Аня", "Борис", "Вера"],
        "seed": 5,
        "chooser": 1,
    }
    if rules.startswith("sport"):
        del header["chooser"]
        header["board"] = {"themes": ["Кино", "Музыка"], "prices": [10, 20, 30]}
        return header
    prices = {"tv-modern": [100, 200, 300], "jeopardy": [200, 400, 600]}.get(rules, [10, 20, 30])
    header["board"] = {"themes": ["История", "Кино", "Наука"], "prices": prices}
    specials = []
    if rules in ("championship-2003", "tv-1994", "tv-modern"):
        specials.append({"round": 1, "theme": 2, "price": prices[1], "kind": "stake"})
        header["final_themes"] = 3
    if rules == "tv-modern":
        specials.append({"round": 1, "theme": 3, "price": prices[1], "kind": "cat"})
        specials.append({"round": 1, "theme": 1, "price": prices[2], "kind": "sponsor"})
    if specials:
        header["specials"] = specials
    return header


def full_game(rules: str, tie: bool = True) -> ScriptedGame:
    """A whole game of ``rules``: every kind of question, the final, a shootout where possible."""
    game = ScriptedGame(setup_header(rules))
    big = {"tv-modern": 1000, "jeopardy": 1000}.get(rules, 100)
    # Scores high enough that the stake question has real bidding.
    for seat, score in ((1, 3 * big), (2, 2 * big), (3, big)):
        game.do(lambda t, s=seat, v=score: ev.Correction(t, s, v, "start"), gap=0.1)
    n = 0
    for _ in range(80):
        snap = game.snap
        stage = snap["stage"]
        if stage == "over":
            break
        if stage == "board":
            if snap["rules"].startswith("sport") or snap["shootout"]:
                game.do(lambda t: ev.Select(t, None, None))
            else:
                cells = list(_cells(snap))
                if len(cells) == 1 and tie and snap["rules"] == "jeopardy":
                    # Level the two leaders before the last question: a tie for first.
                    a, b = sorted(snap["scores"], key=lambda s: -snap["scores"][s])[:2]
                    delta = snap["scores"][b] - snap["scores"][a]
                    game.do(lambda t, s=int(a), d=delta: ev.Correction(t, s, d, "tie for the test"))
                theme, price = cells[0]
                game.do(lambda t, a=theme, b=price: ev.Select(t, a, b))
                if len(cells) == 1 and tie and snap["rules"] == "jeopardy":
                    game.do(lambda t: ev.Timeout(t))  # nobody scores: the tie stands
            n += 1
        elif stage == "question":
            if snap["shootout"]:
                if n % 5 == 0:
                    seat = snap["shootout"]["seats"][0]
                    game.do(lambda t: ev.ReadingStart(t))
                    game.do(lambda t: ev.ReadingEnd(t))
                    game.do(lambda t, s=seat: ev.Press(t, s), gap=0.3)
                    game.do(lambda t: ev.Judge(t, True))
                else:
                    game.do(lambda t: ev.Timeout(t))
            else:
                play_question(game, n)
        elif stage in ("bidding", "cat_give", "cat_price", "special"):
            play_special(game, n)
        elif stage.startswith("final"):
            play_final(game, tie)
    return game
