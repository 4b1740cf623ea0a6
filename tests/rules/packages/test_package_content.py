"""What a question *shows*, what the host *says*, and its media: kept apart (issue 12).

SIGame's own demo package put the host's spoken line (v5 ``placement="replic"``,
v3/v4 ``say`` atoms) into the question's text, so the board showed the host's
cue as the question and the picture beside it was lost. These fixtures are
built here; they mirror the real package's question shapes.
"""

from __future__ import annotations

from pathlib import Path

from rules.packages import (
    CatAnnounce,
    CatParams,
    CatReceiver,
    MediaKind,
    MediaRef,
    PriceChoice,
    Question,
    QuestionKind,
    load_siq,
)
from rules.packages.siq_content import parse_content_xml
from tests.support.package_fixtures import media_files, media_siq, old_format_content, write_siq


def test_v5_replic_is_the_hosts_not_the_screens(tmp_path: Path) -> None:
    package = load_siq(media_siq(tmp_path))
    first = package.rounds[0].question_at(1, 100)
    assert first is not None
    assert first.text == "Что на картинке?"
    assert first.say == "Посмотрите на экран"
    assert first.media == (MediaRef(MediaKind.IMAGE, name="sun.png"),)
    assert package.source.warnings == ()  # every referenced file is in the archive


def test_v5_media_only_questions_have_no_text(tmp_path: Path) -> None:
    round_ = load_siq(media_siq(tmp_path)).rounds[0]
    sound = round_.question_at(1, 200)
    video = round_.question_at(1, 300)
    assert sound is not None and sound.text == "" and sound.say == ""
    assert sound.media == (MediaRef(MediaKind.AUDIO, name="tune.wav"),)
    assert video is not None and video.text == "Назовите фильм"
    assert video.media == (MediaRef(MediaKind.VIDEO, name="clip.mp4"),)


def test_a_question_of_only_spoken_text_shows_nothing_of_it() -> None:
    content = (
        '<?xml version="1.0" encoding="utf-8"?><package name="P" version="5">'
        '<rounds><round name="R"><themes><theme name="T"><questions>'
        '<question price="100"><params><param name="question" type="content">'
        '<item placement="replic">Слушайте внимательно</item>'
        '<item placement="screen">На экране</item>'
        '<item placement="background">Фоном</item>'
        "</param></params><right><answer>A</answer></right></question>"
        "</questions></theme></themes></round></rounds></package>"
    )
    question = parse_content_xml(content.encode()).rounds[0].themes[0].questions[0]
    # "screen" and "background" text is shown; only the replic is the host's.
    assert question.text == "На экране\nФоном"
    assert question.say == "Слушайте внимательно"


def test_v4_say_atoms_are_the_hosts(tmp_path: Path) -> None:
    path = write_siq(tmp_path, old_format_content(), media_files(), name="old.siq")
    package = load_siq(path)
    round_ = package.rounds[0]
    first = round_.question_at(1, 100)
    assert first is not None
    assert (first.text, first.say) == ("Что на картинке?", "Устный комментарий")
    assert first.media == (MediaRef(MediaKind.IMAGE, name="sun.png"),)
    sound = round_.question_at(1, 200)
    assert sound is not None and sound.media == (MediaRef(MediaKind.AUDIO, name="tune.wav"),)


def test_the_cat_carries_its_package_theme_and_price_in_both_formats(tmp_path: Path) -> None:
    new = load_siq(media_siq(tmp_path)).rounds[0].question_at(1, 500)
    assert new is not None and new.kind is QuestionKind.CAT
    assert new.cat == CatParams(
        "КОРАБЛИ", PriceChoice.fixed(700), CatReceiver.OTHERS, CatAnnounce.AFTER
    )
    old_path = write_siq(tmp_path, old_format_content(), media_files(), name="old.siq")
    old = load_siq(old_path).rounds[0].question_at(1, 300)
    assert old is not None and old.kind is QuestionKind.CAT
    # v4 ``bagcat``: theme and cost as type params; knows=before announces them first.
    assert old.cat == CatParams(
        "КОРАБЛИ", PriceChoice.fixed(700), CatReceiver.OTHERS, CatAnnounce.BEFORE
    )
    assert new.cat.price.fixed_value == old.cat.price.fixed_value == 700  # type: ignore[union-attr]


def test_say_is_part_of_a_questions_identity() -> None:
    assert Question(100, text="Q", say="line") != Question(100, text="Q")
    assert Question(100).say == ""


def test_the_own_format_carries_the_hosts_lines(tmp_path: Path) -> None:
    from rules.packages.own import package_to_json, parse_json

    package = load_siq(media_siq(tmp_path))
    document = package_to_json(package)
    first = document["rounds"][0]["themes"][0]["questions"][0]
    assert first["say"] == "Посмотрите на экран" and first["text"] == "Что на картинке?"
    back = parse_json(document)
    # (SIGame's own type names are not the own format's: compare what is shown and said.)
    shown = [(q.text, q.say, q.media) for q in back.rounds[0].themes[0].questions]
    assert shown == [(q.text, q.say, q.media) for q in package.rounds[0].themes[0].questions]
