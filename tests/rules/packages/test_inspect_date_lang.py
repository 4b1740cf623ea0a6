"""``svoyak package inspect --date`` (and ``--rules``) in the table's language (a new
user's trial): with no ``--lang`` the table was Russian and the era check below it
English («The TV game of 2010-01-01: … 5 cat(s) in the bag», «does not fit: …»,
«note: …»). The section follows ``--lang`` through the catalogue, and a count is
said with its plural form in either language."""

from __future__ import annotations

import pytest

from buzzer import words
from rules.special_counts import SPECIAL_KINDS, counted, plural_form
from tests.support.cli import svoyak_here


def section(*args: str) -> str:
    """The lines after the package's table: the checks."""
    done = svoyak_here("package", "inspect", "svoyak:demo", *args)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout.split("\n\n")[-1]


def test_the_era_check_is_russian_by_default() -> None:
    text = section("--date", "2010-01-01")
    assert text.startswith("Телеигра на 2010-01-01: TV-H-2003-01: 5 котов в мешке"), text
    assert "  не подходит: вся игра: 1 кот в мешке, в TV-H-2003-01 — 5" in text
    assert "  не подходит: вся игра: 2 вопроса-аукциона, в TV-H-2003-01 — 5" in text
    assert "  заметка: раунд 1: табло покажет темы по алфавиту" in text
    for english in ("The TV game", "does not fit", "note:", "round ", "(s)", " had "):
        assert english not in text, (english, text)


def test_the_era_check_in_english_has_plurals_without_s_in_brackets() -> None:
    text = section("--date", "1997-01-01", "--lang", "en")
    title = "The TV game of 1997-01-01: TV-S-0b (Sep 1996 – 2000): round 1: 2 cats in the bag, "
    assert text.startswith(title), text
    assert "1 stake question;" in text and "2 stake questions" in text
    assert "  does not fit: round 1: 0 stake questions, TV-S-0b" in text
    assert "  does not fit: round 1: 1 sponsor question, the era had 0 (TV-S-0b)" in text
    assert "(s)" not in text


def test_a_date_with_no_counts_and_the_rules_check_follow_the_language_too() -> None:
    text = section("--date", "2001-05-01")
    assert "источники не дают числа особых вопросов" in text and "  не проверено" in text
    rules = section("--rules", "tv-modern")
    assert rules.startswith("Правила tv-modern: числа особых вопросов не заданы"), rules
    assert section("--rules", "tv-modern", "--lang", "en").startswith("The rules tv-modern: no")


@pytest.mark.parametrize(
    ("n", "ru", "en"),
    [
        (0, "0 котов в мешке", "0 cats in the bag"),
        (1, "1 кот в мешке", "1 cat in the bag"),
        (3, "3 кота в мешке", "3 cats in the bag"),
        (5, "5 котов в мешке", "5 cats in the bag"),
        (11, "11 котов в мешке", "11 cats in the bag"),
        (21, "21 кот в мешке", "21 cats in the bag"),
        (22, "22 кота в мешке", "22 cats in the bag"),
    ],
)
def test_counts_take_their_plural_form(n: int, ru: str, en: str) -> None:
    assert counted("cat", n, "ru") == ru
    assert counted("cat", n, "en") == en


def test_every_kind_has_every_form_in_every_language() -> None:
    for lang in words.LANGUAGES:
        package = words.table("package", lang)
        for kind in SPECIAL_KINDS:
            for form in ("one", "few", "many", "none", "name"):
                assert f"era.{kind}.{form}" in package, (lang, kind, form)
            for n in range(30):
                assert f"era.{kind}.{plural_form(n, lang)}" in package
