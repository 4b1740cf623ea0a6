"""The built-in demo package (``rules/packages/demo/demo.json``) is a complete, valid game."""

from __future__ import annotations

import pytest

from rules.board import Board, RoundSpec
from rules.packages import Package, QuestionKind, RoundKind
from rules.packages.demo import DEMO_PACKAGE
from rules.packages.own import load_json

ROUND_1_PRICES = (100, 200, 300, 400, 500)
ROUND_2_PRICES = (200, 400, 600, 800, 1000)
MAX_TEXT = 300


@pytest.fixture(scope="module")
def demo() -> Package:
    return load_json(DEMO_PACKAGE)


def kinds(package: Package, round_index: int) -> list[QuestionKind]:
    return [q.kind for t in package.main_rounds[round_index].themes for q in t.questions]


def test_the_file_is_shipped_with_the_package() -> None:
    assert DEMO_PACKAGE.name == "demo.json"
    assert DEMO_PACKAGE.is_file()


def test_it_loads_without_warnings(demo: Package) -> None:
    assert demo.name == "Демо-игра svoyak"
    assert demo.source.format == "json"
    assert demo.source.warnings == ()


def test_two_main_rounds_then_the_final(demo: Package) -> None:
    assert [r.kind for r in demo.rounds] == [RoundKind.MAIN, RoundKind.MAIN, RoundKind.FINAL]
    assert [r.name for r in demo.main_rounds] == ["Первый раунд", "Второй раунд"]


@pytest.mark.parametrize(("index", "prices"), [(0, ROUND_1_PRICES), (1, ROUND_2_PRICES)])
def test_main_rounds_have_four_full_themes(
    demo: Package, index: int, prices: tuple[int, ...]
) -> None:
    round_ = demo.main_rounds[index]
    assert len(round_.themes) == 4
    assert len({t.name for t in round_.themes}) == 4
    for theme in round_.themes:
        assert theme.prices == prices
    assert round_.prices == prices
    assert round_.is_regular
    assert round_.empty_cells() == ()


def test_round_1_has_one_cat_and_one_sponsor(demo: Package) -> None:
    found = kinds(demo, 0)
    assert found.count(QuestionKind.CAT) == 1
    assert found.count(QuestionKind.SPONSOR) == 1
    assert found.count(QuestionKind.STAKE) == 0
    cat = next(
        q for t in demo.main_rounds[0].themes for q in t.questions if q.kind is QuestionKind.CAT
    )
    assert cat.cat is not None
    assert cat.cat.theme.strip()
    assert cat.cat.theme not in {t.name for t in demo.main_rounds[0].themes}
    assert cat.cat.price.round_extremes
    assert cat.cat.price.options(demo.main_rounds[0].prices) == (100, 500)


def test_round_2_has_two_stakes_only(demo: Package) -> None:
    found = kinds(demo, 1)
    assert found.count(QuestionKind.STAKE) == 2
    assert found.count(QuestionKind.CAT) == 0
    assert found.count(QuestionKind.SPONSOR) == 0


def test_the_final_has_five_themes_of_one_question(demo: Package) -> None:
    final = demo.final
    assert final is not None
    assert len(final.themes) == 5
    assert len({t.name for t in final.themes}) == 5
    for theme in final.themes:
        assert len(theme.questions) == 1
        assert theme.questions[0].kind is QuestionKind.PLAIN


def test_every_question_has_text_and_an_answer(demo: Package) -> None:
    questions = [q for r in demo.rounds for t in r.themes for q in t.questions]
    assert len(questions) == 4 * 5 + 4 * 5 + 5
    for question in questions:
        assert question.text.strip()
        assert question.right
        assert all(answer.strip() for answer in question.right)
        for text in (question.text, question.comment, *question.right):
            assert len(text) < MAX_TEXT
        assert not question.media
        assert not question.answer_media


def test_board_rounds_are_the_two_boards(demo: Package) -> None:
    specs = demo.board_rounds()
    assert [s.name for s in specs] == ["Первый раунд", "Второй раунд"]
    assert all(isinstance(s, RoundSpec) for s in specs)
    assert specs[0].prices == ROUND_1_PRICES
    assert specs[1].prices == ROUND_2_PRICES
    for spec, round_ in zip(specs, demo.main_rounds, strict=True):
        assert spec.themes == tuple(t.name for t in round_.themes)
        assert spec.holes == frozenset()
    board = Board(specs)
    assert not board.exhausted
