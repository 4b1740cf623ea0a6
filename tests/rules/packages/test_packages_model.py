"""The question-package model (rules/packages): a cat's price choice, a question's
kind and its parameters, a round with holes and the board it gives."""

from __future__ import annotations

import pytest

from rules.board import Board, RoundSpec
from rules.packages import (
    MediaKind,
    MediaRef,
    Package,
    PackageError,
    PriceChoice,
    Question,
    QuestionKind,
    Round,
    RoundKind,
    StakeParams,
    Theme,
)


def test_price_choice_is_canonical_and_lists_its_options() -> None:
    assert PriceChoice.of(100, 500, 400) == PriceChoice.of(100, 500, 0) == PriceChoice(100, 500)
    assert PriceChoice.of(700, 700, 50) == PriceChoice.fixed(700)
    assert PriceChoice().round_extremes
    assert PriceChoice().options((200, 400, 600)) == (200, 600)
    assert PriceChoice.fixed(700).options((100, 500)) == (700,)
    assert PriceChoice.fixed(700).fixed_value == 700
    assert PriceChoice.of(100, 500).options(()) == (100, 500)
    assert PriceChoice.of(100, 1000, 200).options(()) == (100, 300, 500, 700, 900)
    with pytest.raises(PackageError, match="canonical"):
        PriceChoice(100, 500, 400)
    with pytest.raises(PackageError, match="more than 1000 values"):
        PriceChoice.of(1, 1_000_000, 1)
    with pytest.raises(PackageError):
        PriceChoice(500, 100)


def test_question_kind_and_parameters_go_together() -> None:
    with pytest.raises(PackageError, match="cat parameters"):
        Question(100, QuestionKind.CAT)
    with pytest.raises(PackageError, match="stake parameters"):
        Question(100, QuestionKind.PLAIN, stake=StakeParams())
    with pytest.raises(PackageError, match="minimum 500 exceeds maximum 100"):
        StakeParams(500, 100)
    with pytest.raises(PackageError, match="exactly one"):
        MediaRef(MediaKind.IMAGE)


def test_round_with_holes_gives_the_board_the_union_of_prices() -> None:
    round_ = Round(
        "R",
        RoundKind.MAIN,
        (
            Theme("A", (Question(100, right=("a",)), Question(300, right=("c",)))),
            Theme("B", (Question(200, right=("b",)), Question(100, right=("d",)))),
        ),
    )
    assert round_.prices == (100, 200, 300)
    assert not round_.is_regular
    assert round_.empty_cells() == ((1, 200), (2, 300))
    assert round_.question_at(1, 300) is not None
    assert round_.question_at(1, 300).right == ("c",)  # type: ignore[union-attr]
    assert round_.question_at(2, 300) is None
    with pytest.raises(IndexError):
        round_.question_at(3, 100)
    package = Package("P", (round_, Round("F", RoundKind.FINAL, (Theme("T", (Question(0),)),))))
    assert package.board_rounds() == (
        RoundSpec("R", ("A", "B"), (100, 200, 300), frozenset({(1, 200), (2, 300)})),
    )
    assert package.final is not None and package.final.name == "F"
    board = Board(package.board_rounds())
    for cell in round_.empty_cells():
        board.mark_played(*cell)
    assert board.next_in_order() == (1, 100)
    with pytest.raises(PackageError, match="must be positive"):
        Round("R", RoundKind.MAIN, (Theme("A", (Question(0),)),))
    with pytest.raises(PackageError, match="no rounds"):
        Package("P", ())
