"""The snapshot of a game, built beside its contract (:mod:`rules.snapshot`).

What a screen or a panel shows, read off the game and its parts as plain
JSON-ready data. The display and the panel render this and decide nothing; a
resumed game must give exactly the same snapshot as the one that crashed, so
this reads the state and never changes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from buzzer.arbiter.machine import Phase
from rules.board import board_order
from rules.snapshot import BiddingView, BonusView, CatSeriesView, FinalView, GameSnapshot
from rules.state import Stage

if TYPE_CHECKING:
    from rules.game import Game


def game_snapshot(game: Game) -> GameSnapshot:
    """Everything a screen or a panel shows (``Game.snapshot()``)."""
    arbiter = game.arbiter
    board = game.shootout.board if game.shootout is not None else game.board
    shootout = game.shootout
    return {
        "rules": game.rules.id,
        "players": list(game.names),
        "stage": game.stage.value,
        "round": board.round_index + 1,
        "round_name": board.current.name,
        "themes": list(board.current.themes),
        "theme_order": list(board_order(board.current.themes, game.rules.theme_order)),
        "prices": list(board.current.prices),
        "played": sorted([list(c) for c in board.played]),
        "cell": list(game.cell) if game.cell else None,
        "special": None if game.special is None else game.special.value,
        "scores": {str(s): v for s, v in game.scores.items()},
        "chooser": game.chooser,
        "phase": arbiter.phase.value,
        "answering": arbiter.answering if game.stage is Stage.QUESTION else game.answerer,
        "recognized_at": arbiter.recognized_at,
        "closes_at": arbiter.closes_at if arbiter.phase is Phase.OPEN else None,
        "answer_deadline": arbiter.answer_deadline(),
        "locked_until": {str(s): v for s, v in sorted(arbiter.locked_until.items())},
        "answered": sorted(arbiter.answered()),
        "margins_us": {str(s): v for s, v in sorted(arbiter.margins_us.items())},
        "bidding": _bidding(game),
        "value": game.value if game.stage is Stage.SPECIAL else None,
        # TV-S-CAT-5: a picture-series cat: its values and how many pictures are shown
        "cat_series": _cat_series(game),
        # TV-H-1995-03: the bonus contest being offered or played
        "bonus": _bonus(game),
        "special_deadline": game.special_deadline,
        # TV-S-CAT-4: the editors' cat values were multiples of this (None: any)
        "cat_value_step": game.rules.cat.value_step if game.rules.cat else None,
        "final": _final(game),
        "shootout": None
        if shootout is None
        else {
            "seats": list(shootout.seats),
            "number": shootout.number,
            "scores": {str(s): v for s, v in shootout.scores.items()},
        },
        "winner": game.winner,
        "over": game.over,
        # A-G-D1: when the host paused the game; the deadlines above stand still
        "paused_at": game.paused_at,
    }


def _bidding(game: Game) -> BiddingView | None:
    bidding = game.bidding
    if bidding is None:
        return None
    return {
        "turn": bidding.turn,
        "bid": bidding.bid,
        "leader": bidding.leader,
        "passed": sorted(bidding.passed),
        "order": list(bidding.order),
        # TV-H-1995-01: bought by the button; who may press now
        "by_button": bidding.by_button,
        "buyers": bidding.buyers() if bidding.by_button and bidding.turn is None else [],
        # TV-S-AUC-3: the tied players the host may pick to bid now
        "pickable": bidding.pickable(),
    }


def _cat_series(game: Game) -> CatSeriesView | None:
    cat = game.cat
    if cat is None or cat.series is None:
        return None
    return {"values": list(cat.series), "shown": cat.shown}


def _bonus(game: Game) -> BonusView | None:
    bonus = game.bonus
    if bonus is None:
        return None
    return {
        "offered": bonus.offered,
        "place": bonus.place,
        "player": bonus.player,
        "right": bonus.right,
        "questions": bonus.rules.questions,
    }


def _final(game: Game) -> FinalView | None:
    final = game.final
    if final is None:
        return None
    return {
        "seats": list(final.seats),
        "themes_left": list(final.themes),
        "staked": sorted(final.stakes),
        "judge_order": list(final.order),
        "answers_due": final.answers_due,
        "answers_in": final.answers_in,
        # C2003-2.7.4, TV-F-4 (30 s, or the final_answer_time_s option)
        "answer_time_s": final.answer_time_ns / 1e9,
    }
