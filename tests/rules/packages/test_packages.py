"""Question packages: SIGame .siq (v5 and v3/v4) and the own JSON format, into one model.

Every fixture package is built here, in tmp_path; the one compatibility test
that reads real SIGame packages runs where ``$SVOYAK_REAL_PACKAGES`` names a folder of them
(see docs/packages.md); a fresh clone has none.
"""

from __future__ import annotations

import json
import os
import struct
import zipfile
from pathlib import Path

import pytest

from rules.board import Board, RoundSpec
from rules.packages import (
    CatAnnounce,
    CatParams,
    CatReceiver,
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
from rules.packages.own import dumps, load_json, package_to_json, parse_json, parse_json_bytes
from rules.packages.own import read_media as read_own_media
from rules.packages.siq import SiqArchive, load_siq, read_media
from rules.packages.siq_content import NS_V3, NS_V4, NS_V5, parse_content_xml

SHARED = Path(os.environ.get("SVOYAK_REAL_PACKAGES", "/nonexistent"))


def make_siq(
    folder: Path,
    content: str | bytes | None,
    files: dict[str, bytes] | None = None,
    name: str = "fixture.siq",
) -> Path:
    """A .siq archive: content.xml (unless None) and the given extra entries."""
    path = folder / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        if content is not None:
            data = content.encode("utf-8") if isinstance(content, str) else content
            archive.writestr("content.xml", data)
        for entry, data in (files or {}).items():
            archive.writestr(entry, data)
    return path


def v5(rounds: str, *, name: str = "Fixture v5") -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<package name="{name}" version="5" xmlns="{NS_V5}"><rounds>{rounds}</rounds></package>'
    )


def plain(price: str, text: str = "Q", answer: str = "A") -> str:
    return (
        f'<question price="{price}"><params><param name="question" type="content">'
        f"<item>{text}</item></param></params><right><answer>{answer}</answer></right></question>"
    )


V5_CONTENT = v5(
    '<round name="Round 1"><themes>'
    '<theme name="Alpha"><info><comments>Name the author</comments></info><questions>'
    '<question price="100"><info><comments>Shown after</comments></info><params>'
    '<param name="question" type="content"><item>Look at this</item>'
    '<item type="image" isRef="True">pic one.png</item>'
    '<item placement="replic">and say it</item></param>'
    '<param name="answer" type="content"><item type="audio" isRef="True">answer.mp3</item></param>'
    "</params><right><answer>Right</answer><answer>Also right</answer></right>"
    "<wrong><answer>Wrong</answer></wrong></question>"
    '<question price="200" type="stake"><params><param name="question" type="content">'
    "<item>Stake text</item></param></params><right><answer>S</answer></right></question>"
    '<question price="-1"><params /><right /></question>'
    "</questions></theme>"
    '<theme name="Beta"><questions>'
    '<question price="100" type="secret"><params><param name="theme">Cats</param>'
    '<param name="price" type="numberSet"><numberSet minimum="0" maximum="0" step="0" /></param>'
    '<param name="selectionMode">exceptCurrent</param>'
    '<param name="question" type="content"><item>Cat text</item></param></params>'
    "<right><answer>C</answer></right></question>"
    '<question price="200" type="noRisk"><params><param name="question" type="content">'
    "<item>Sponsor text</item></param></params><right><answer>N</answer></right></question>"
    '<question price="300" type="secretPublicPrice"><params><param name="theme">Dogs</param>'
    '<param name="price" type="numberSet"><numberSet minimum="100" maximum="500" step="400" />'
    '</param><param name="selectionMode">any</param><param name="question" type="content">'
    '<item type="video" isRef="True">clip.mp4</item></param></params>'
    "<right><answer>D</answer></right></question>"
    '<question price="400" type="forAll"><params><param name="question" type="content">'
    "<item>Everyone</item></param></params><right><answer>E</answer></right></question>"
    "</questions></theme>"
    "</themes></round>"
    '<round name="Final" type="final"><themes>'
    '<theme name="F1"><questions><question price="0"><params><param name="question" '
    'type="content"><item>Final one</item></param></params><right><answer>F1A</answer></right>'
    "</question></questions></theme>"
    '<theme name="F2"><questions><question price="0"><params><param name="question" '
    'type="content"><item>Final two</item></param></params><right><answer>F2A</answer></right>'
    "</question></questions></theme>"
    "</themes></round>"
)
V5_FILES = {
    "Images/pic%20one.png": b"PNG-bytes",
    "Audio/answer.mp3": b"MP3-bytes",
    "Video/clip.mp4": b"MP4-bytes",
}


def v4(rounds: str, *, ns: str = NS_V4, version: str = "4") -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<package name="Fixture v{version}" version="{version}" xmlns="{ns}">'
        f"<info><authors><author>Me</author></authors></info><rounds>{rounds}</rounds></package>"
    )


V4_ROUNDS = (
    '<round name="R1" type="standart"><themes>'
    '<theme name="Old"><questions>'
    '<question price="100"><type name="simple" /><scenario><atom>Text</atom>'
    '<atom type="image">@old pic.png</atom><atom type="marker" />'
    '<atom type="voice">@tune.mp3</atom></scenario><right><answer>A</answer></right>'
    "<wrong /></question>"
    '<question price="200"><type name="auction" /><scenario><atom>Auction</atom></scenario>'
    "<right><answer>B</answer></right><wrong /></question>"
    '<question price="300"><type name="bagcat"><param name="theme">Bag</param>'
    '<param name="cost">[100;500]</param><param name="self">true</param>'
    '<param name="knows">before</param></type><scenario><atom>Bagcat</atom></scenario>'
    "<right><answer>C</answer></right><wrong /></question>"
    '<question price="400"><type name="sponsored" /><scenario><atom>Sponsored</atom></scenario>'
    "<right><answer>D</answer></right><wrong /></question>"
    '<question price="500"><type name="cat"><param name="theme">Plain cat</param>'
    '<param name="cost">700</param></type><scenario><atom type="image">'
    "https://example.org/x.png</atom></scenario><right><answer>E</answer></right><wrong />"
    "</question>"
    "</questions></theme>"
    '<theme name="Old 2"><questions>'
    '<question price="100"><type name="bagcat"><param name="theme">Range</param>'
    '<param name="cost">[100;1000]/300</param><param name="self">false</param>'
    '<param name="knows">after</param></type><scenario><atom>R</atom></scenario>'
    "<right><answer>F</answer></right><wrong /></question>"
    "</questions></theme>"
    "</themes></round>"
    '<round name="Finale" type="final"><themes><theme name="Last"><questions>'
    '<question price="0"><type name="auction" /><scenario><atom>Final</atom></scenario>'
    "<right><answer>G</answer></right><wrong /></question>"
    "</questions></theme></themes></round>"
)


# -- the model ----------------------------------------------------------------


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


# -- SIGame v5 ----------------------------------------------------------------


def test_v5_package_reads_every_question_kind_and_the_final(tmp_path: Path) -> None:
    path = make_siq(tmp_path, V5_CONTENT, V5_FILES)
    package = load_siq(path)

    assert package.name == "Fixture v5"
    assert package.source.format == "siq" and package.source.version == "5"
    assert [r.kind for r in package.rounds] == [RoundKind.MAIN, RoundKind.FINAL]
    main, final = package.rounds
    assert [t.name for t in main.themes] == ["Alpha", "Beta"]
    assert main.themes[0].comment == "Name the author"
    # The empty cell (price -1) is not a question; Alpha lacks 300 and 400.
    assert main.themes[0].prices == (100, 200)
    assert main.prices == (100, 200, 300, 400)
    assert main.empty_cells() == ((1, 300), (1, 400))

    first = main.question_at(1, 100)
    assert first == Question(
        price=100,
        text="Look at this",
        media=(MediaRef(MediaKind.IMAGE, name="pic one.png"),),
        right=("Right", "Also right"),
        wrong=("Wrong",),
        comment="Shown after",
        answer_media=(MediaRef(MediaKind.AUDIO, name="answer.mp3"),),
        say="and say it",  # placement="replic": the host's line, not the screen's
    )
    stake = main.question_at(1, 200)
    assert stake is not None and stake.kind is QuestionKind.STAKE
    assert stake.stake == StakeParams() and stake.origin_type == "stake"

    cat = main.question_at(2, 100)
    assert cat is not None and cat.kind is QuestionKind.CAT
    assert cat.cat == CatParams("Cats", PriceChoice(), CatReceiver.OTHERS, CatAnnounce.AFTER)
    assert cat.origin_type == "secret"
    sponsor = main.question_at(2, 200)
    assert sponsor is not None and sponsor.kind is QuestionKind.SPONSOR
    public = main.question_at(2, 300)
    assert public is not None and public.cat == CatParams(
        "Dogs", PriceChoice(100, 500), CatReceiver.ANY, CatAnnounce.BEFORE
    )
    assert public.media == (MediaRef(MediaKind.VIDEO, name="clip.mp4"),)
    for_all = main.question_at(2, 400)
    assert for_all is not None and for_all.kind is QuestionKind.PLAIN
    assert "forAll" in for_all.note and for_all.origin_type == "forAll"
    assert any("forAll" in w for w in package.source.warnings)

    assert [t.name for t in final.themes] == ["F1", "F2"]
    assert final.themes[1].questions[0].right == ("F2A",)
    assert package.final is final
    assert package.board_rounds() == (
        RoundSpec(
            "Round 1", ("Alpha", "Beta"), (100, 200, 300, 400), frozenset({(1, 300), (1, 400)})
        ),
    )


def test_v5_media_are_read_by_name_and_percent_decoded(tmp_path: Path) -> None:
    path = make_siq(tmp_path, V5_CONTENT, V5_FILES)
    with SiqArchive(path) as archive:
        first = archive.package.rounds[0].themes[0].questions[0]
        # The XML says "pic one.png"; the zip entry is "Images/pic%20one.png".
        assert archive.read_media(first.media[0]) == b"PNG-bytes"
        assert archive.read_media(first.answer_media[0]) == b"MP3-bytes"
        assert archive.read_media("clip.mp4") == b"MP4-bytes"  # any media folder
        assert archive.package.source.warnings == (
            "round 1 «Round 1», theme 2 «Beta», question 4: SIGame 'forAll' (everyone answers "
            "in writing for the nominal) is played as plain",
        )
    assert read_media(path, "pic%20one.png", MediaKind.IMAGE) == b"PNG-bytes"


def test_media_names_encoded_in_the_xml_but_plain_in_the_zip(tmp_path: Path) -> None:
    content = v5(
        '<round name="R"><themes><theme name="T"><questions><question price="100"><params>'
        '<param name="question" type="content">'
        '<item type="image" isRef="True">%D0%BA%D0%BE%D1%82%20(1).jpg</item></param></params>'
        "<right><answer>A</answer></right></question></questions></theme></themes></round>"
    )
    path = make_siq(tmp_path, content, {"Images/кот (1).jpg": b"cat"})
    with SiqArchive(path) as archive:
        ref = archive.package.rounds[0].themes[0].questions[0].media[0]
        assert archive.read_media(ref) == b"cat"
        assert archive.package.source.warnings == ()


def test_missing_media_is_a_warning_not_an_error(tmp_path: Path) -> None:
    path = make_siq(tmp_path, V5_CONTENT, {"Images/pic%20one.png": b"x"})
    package = load_siq(path)
    assert "media file 'answer.mp3' (audio) is not in the archive" in package.source.warnings
    with pytest.raises(PackageError, match=r"'answer.mp3' is not in Audio/"):
        read_media(path, "answer.mp3", MediaKind.AUDIO)


def test_hand_written_content_without_a_namespace(tmp_path: Path) -> None:
    content = (
        '<package name="No ns" version="5"><rounds><round name="R"><themes><theme name="T">'
        '<questions><question price="100"><script><step type="showContent">'
        '<param name="content" type="content"><item>Scripted</item></param></step>'
        '<step type="accept"><param name="answer" type="content">'
        '<item type="html" isRef="False">&lt;b&gt;x&lt;/b&gt;</item></param></step></script>'
        "<right><answer>A</answer></right></question></questions></theme></themes></round>"
        "</rounds></package>"
    )
    package = parse_content_xml(content.encode())
    question = package.rounds[0].themes[0].questions[0]
    assert question.text == "Scripted"
    assert question.answer_media == (MediaRef(MediaKind.HTML, inline="<b>x</b>"),)


# -- SIGame v3/v4 -------------------------------------------------------------


@pytest.mark.parametrize(("ns", "version"), [(NS_V4, "4"), (NS_V3, "3")])
def test_old_format_maps_auction_bagcat_cat_and_sponsored(
    tmp_path: Path, ns: str, version: str
) -> None:
    path = make_siq(
        tmp_path,
        v4(V4_ROUNDS, ns=ns, version=version),
        {"Images/old%20pic.png": b"img", "Audio/tune.mp3": b"tune"},
    )
    package = load_siq(path)
    assert package.source.version == version
    main, final = package.rounds
    old = main.themes[0]
    kinds = [q.kind for q in old.questions]
    assert kinds == [
        QuestionKind.PLAIN,
        QuestionKind.STAKE,
        QuestionKind.CAT,
        QuestionKind.SPONSOR,
        QuestionKind.CAT,
    ]
    first = old.questions[0]
    assert first.text == "Text"
    assert first.media == (MediaRef(MediaKind.IMAGE, name="old pic.png"),)
    # Atoms after the marker belong to the answer; "voice" is audio.
    assert first.answer_media == (MediaRef(MediaKind.AUDIO, name="tune.mp3"),)
    assert first.origin_type == ""
    assert old.questions[1].origin_type == "auction"
    assert old.questions[2].cat == CatParams(
        "Bag", PriceChoice(100, 500), CatReceiver.ANY, CatAnnounce.BEFORE
    )
    assert old.questions[4].cat == CatParams(
        "Plain cat", PriceChoice.fixed(700), CatReceiver.OTHERS, CatAnnounce.AFTER
    )
    # Without "@" an atom is an external link, kept inline.
    assert old.questions[4].media == (
        MediaRef(MediaKind.IMAGE, inline="https://example.org/x.png"),
    )
    ranged = main.themes[1].questions[0].cat
    assert ranged is not None and ranged.price.options(()) == (100, 400, 700, 1000)
    assert ranged.receiver is CatReceiver.OTHERS
    # A special type in the final round is played as the final is.
    assert final.kind is RoundKind.FINAL
    assert final.themes[0].questions[0].kind is QuestionKind.PLAIN
    assert "final" in final.themes[0].questions[0].note
    with SiqArchive(path) as archive:
        assert archive.read_media(first.media[0]) == b"img"
        assert archive.package.source.warnings == ()


# -- hostile and broken .siq --------------------------------------------------


def patch_central_size(path: Path, entry: str, size: int) -> None:
    """Rewrite the uncompressed size the central directory declares for an entry."""
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        name_len = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46 : at + 46 + name_len] == entry.encode():
            struct.pack_into("<I", data, at + 24, size)
        at = data.find(b"PK\x01\x02", at + 4)
    path.write_bytes(bytes(data))


def patch_headers(path: Path, local_offset: int, central_offset: int, value: int) -> None:
    """Set a 16-bit field of every entry's local and central header."""
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", local_offset), (b"PK\x01\x02", central_offset)):
        at = data.find(signature)
        while at >= 0:
            struct.pack_into("<H", data, at + offset, value)
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_doctype_inside_a_questions_text_is_text_not_a_dtd(tmp_path: Path) -> None:
    # A question about HTML may well say "<!DOCTYPE html>": in CDATA or escaped it is
    # text, and only a real declaration (below, BOMB) is refused.
    text = "<![CDATA[What does <!DOCTYPE html> start?]]>"
    content = v5(
        f'<round name="R"><themes><theme name="Web"><questions>{plain("100", text)}'
        f"{plain('200', '&lt;!ENTITY x&gt; is what?')}</questions></theme></themes></round>"
    )
    package = load_siq(make_siq(tmp_path, content))
    (theme,) = package.rounds[0].themes
    assert [q.text for q in theme.questions] == [
        "What does <!DOCTYPE html> start?",
        "<!ENTITY x> is what?",
    ]


BOMB = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>'
    '<package name="&lol2;" version="5"><rounds/></package>'
)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda p: write(p, b"this is not a zip"), "not a zip archive"),
        (lambda p: p.parent / "missing.siq", "no such file"),
        (lambda p: p.parent, "not a file"),
        (
            lambda p: make_siq(p.parent, None, {"Images/x.png": b"x"}),
            r"no content.xml in the archive \(entries: 'Images/x.png'\)",
        ),
        (lambda p: make_siq(p.parent, BOMB), r"contains <!DOCTYPE>"),
        (
            lambda p: make_siq(p.parent, BOMB.encode("utf-16")),
            r"contains <!DOCTYPE>",
        ),
        (
            lambda p: make_siq(p.parent, v5(""), {"../evil.sh": b"rm -rf"}),
            r"unsafe entry name '../evil.sh'",
        ),
        (
            lambda p: make_siq(p.parent, v5(""), {"/etc/passwd": b"x"}),
            "unsafe entry name",
        ),
        (
            lambda p: make_siq(p.parent, v5(""), {"Images/%2e%2e/%2e%2e/x": b"x"}),
            "unsafe entry name",
        ),
        (lambda p: make_siq(p.parent, v5("")), "the package has no rounds"),
        (
            lambda p: make_siq(p.parent, v5('<round name="Empty"><themes/></round>')),
            "round 1 «Empty»: the round has no questions",
        ),
        (
            lambda p: make_siq(
                p.parent,
                v5('<round name="R"><themes><theme name="T"><questions/></theme></themes></round>'),
            ),
            "round 1 «R»: the round has no questions",
        ),
        (
            lambda p: make_siq(
                p.parent,
                v5(
                    '<round name="R"><themes><theme name="T"><questions>'
                    + plain("100")
                    + plain("1x0")
                    + "</questions></theme></themes></round>"
                ),
            ),
            r"round 1 «R», theme 1 «T», question 2: price '1x0' is not a whole number",
        ),
        (
            lambda p: make_siq(
                p.parent,
                v5(
                    '<round name="R"><themes><theme name="T"><questions>'
                    + plain("99999999999999999999")
                    + "</questions></theme></themes></round>"
                ),
            ),
            "is not a whole number",
        ),
        (
            lambda p: make_siq(
                p.parent,
                v5(
                    '<round name="R"><themes><theme name="T"><questions>'
                    + plain("0")
                    + "</questions></theme></themes></round>"
                ),
            ),
            "question 1: price 0: prices on the board must be positive",
        ),
        (
            lambda p: make_siq(
                p.parent,
                v5(
                    '<round name="R"><themes><theme name="T"><questions>'
                    '<question price="100" type="secret"><params><param name="price" '
                    'type="numberSet"><numberSet minimum="lots" /></param></params>'
                    "<right /></question></questions></theme></themes></round>"
                ),
            ),
            "question 1: cat price minimum 'lots' is not a whole number",
        ),
        (
            lambda p: make_siq(
                p.parent,
                v5(
                    '<round name="R"><themes><theme name="T"><questions>'
                    '<question price="100"><params><param name="question" type="content">'
                    '<item type="image" isRef="True">../../etc/passwd</item></param></params>'
                    "<right /></question></questions></theme></themes></round>"
                ),
            ),
            "media name '../../etc/passwd' is not a plain file name",
        ),
        (lambda p: make_siq(p.parent, "<package><rounds>"), "not well-formed XML"),
        (lambda p: make_siq(p.parent, "<html/>"), r"root element of content.xml is <html>"),
        (lambda p: make_siq(p.parent, b"\xff\xfe\xfa<package/>"), "not valid text"),
    ],
)
def test_hostile_siq_gives_a_package_error(tmp_path: Path, build: object, message: str) -> None:
    path = build(tmp_path / "hostile.siq")  # type: ignore[operator]
    with pytest.raises(PackageError, match=message):
        load_siq(path)


def test_sizes_beyond_any_real_board_are_refused(tmp_path: Path) -> None:
    many = "".join(plain(str(p)) for p in range(1, 202))
    path = make_siq(
        tmp_path,
        v5(
            f'<round name="R"><themes><theme name="T"><questions>{many}</questions></theme>'
            "</themes></round>"
        ),
    )
    with pytest.raises(PackageError, match="theme 1 «T»: 201 questions, over the limit of 100"):
        load_siq(path)
    themes = "".join(
        f'<theme name="T{p}"><questions>{plain(str(p))}</questions></theme>' for p in range(1, 102)
    )
    path = make_siq(tmp_path, v5(f'<round name="R"><themes>{themes}</themes></round>'))
    with pytest.raises(PackageError, match="round 1 «R»: 101 themes, over the limit of 100"):
        load_siq(path)
    themes = "".join(
        f'<theme name="T{t}"><questions>'
        + "".join(plain(str(t * 1000 + p)) for p in range(1, 12))
        + "</questions></theme>"
        for t in range(1, 11)
    )
    path = make_siq(tmp_path, v5(f'<round name="R"><themes>{themes}</themes></round>'))
    with pytest.raises(PackageError, match="110 different prices, over the limit of 100 rows"):
        load_siq(path)


def test_declared_size_over_the_limit_is_refused_before_reading(tmp_path: Path) -> None:
    path = make_siq(tmp_path, V5_CONTENT)
    patch_central_size(path, "content.xml", 3_000_000_000)
    with pytest.raises(PackageError, match=r"content.xml is 3000000000 bytes uncompressed"):
        load_siq(path)


def test_a_real_zip_bomb_is_stopped_at_the_limit(tmp_path: Path) -> None:
    path = make_siq(tmp_path, V5_CONTENT.replace("Look at this", " " * 300_000))
    assert path.stat().st_size < 10_000
    with pytest.raises(PackageError, match="over the limit of 100000"):
        load_siq(path, max_xml_bytes=100_000)


def test_a_size_understated_in_the_zip_is_caught(tmp_path: Path) -> None:
    path = make_siq(tmp_path, V5_CONTENT)
    patch_central_size(path, "content.xml", 50)
    with pytest.raises(PackageError, match=r"damaged|well-formed"):
        load_siq(path)


def test_unsupported_compression_is_a_package_error(tmp_path: Path) -> None:
    path = make_siq(tmp_path, V5_CONTENT)
    patch_headers(path, 8, 10, 99)  # the compression method
    with pytest.raises(PackageError, match=r"content\.xml uses an unsupported compression"):
        load_siq(path)


def test_encrypted_content_is_a_package_error(tmp_path: Path) -> None:
    path = make_siq(tmp_path, V5_CONTENT)
    patch_headers(path, 6, 8, 0x0001)  # the general-purpose flags: encrypted
    with pytest.raises(PackageError, match=r"content\.xml is encrypted"):
        load_siq(path)


def test_read_media_refuses_paths_and_caps_size(tmp_path: Path) -> None:
    path = make_siq(tmp_path, V5_CONTENT, {**V5_FILES, "Images/big.png": b"x" * 1000})
    for name in ("../content.xml", "Images/pic%20one.png", "%2e%2e", "a\\b", ""):
        with pytest.raises(PackageError, match="not a plain file name"):
            read_media(path, name)
    with pytest.raises(PackageError, match="over the limit of 100"):
        read_media(path, "big.png", max_bytes=100)
    with pytest.raises(PackageError, match="inline content"):
        read_media(path, MediaRef(MediaKind.HTML, inline="<p>"))
    # content.xml is not a media file, whatever the name says.
    with pytest.raises(PackageError, match="is not in"):
        read_media(path, "content.xml")


# -- the own JSON format ------------------------------------------------------


def own_package() -> Package:
    return Package(
        "Own",
        (
            Round(
                "Round 1",
                RoundKind.MAIN,
                (
                    Theme(
                        "Rivers",
                        (
                            Question(
                                100, text="Longest?", right=("Nile", "Amazon"), wrong=("Don",)
                            ),
                            Question(
                                200,
                                QuestionKind.STAKE,
                                "Bid",
                                right=("x",),
                                stake=StakeParams(200, None, 100),
                            ),
                            Question(300, QuestionKind.SPONSOR, "Free", right=("y",), comment="c"),
                        ),
                        comment="Geography",
                    ),
                    Theme(
                        "Cats",
                        (
                            Question(
                                100,
                                QuestionKind.CAT,
                                "Meow",
                                media=(MediaRef(MediaKind.IMAGE, name="media/cat.png"),),
                                right=("cat",),
                                cat=CatParams("Pets", PriceChoice(), CatReceiver.OTHERS),
                            ),
                            Question(
                                200,
                                QuestionKind.CAT,
                                right=("z",),
                                answer_media=(MediaRef(MediaKind.HTML, inline="<b>z</b>"),),
                                cat=CatParams(
                                    "T",
                                    PriceChoice.of(100, 1000, 300),
                                    CatReceiver.ANY,
                                    CatAnnounce.BEFORE,
                                ),
                            ),
                            Question(
                                300,
                                QuestionKind.CAT,
                                cat=CatParams(
                                    price=PriceChoice.fixed(700), announce=CatAnnounce.NEVER
                                ),
                            ),
                        ),
                    ),
                ),
            ),
            Round(
                "Финал",
                RoundKind.FINAL,
                (Theme("Last", (Question(0, text="Final?", right=("Yes",)),)),),
            ),
        ),
    )


def test_own_format_round_trip(tmp_path: Path) -> None:
    package = own_package()
    document = package_to_json(package)
    assert document["format"] == "svoyak-package"
    assert document["final"]["themes"][0]["question"] == {"text": "Final?", "answer": "Yes"}
    assert parse_json(document) == package
    path = tmp_path / "own.json"
    path.write_text(dumps(package), encoding="utf-8")
    loaded = load_json(path)
    assert loaded == package
    assert loaded.source.format == "json" and loaded.source.path == str(path)
    assert loaded.board_rounds() == (RoundSpec("Round 1", ("Rivers", "Cats"), (100, 200, 300)),)


def test_own_format_minimal_document() -> None:
    package = parse_json(
        {
            "name": "Mini",
            "rounds": [
                {
                    "name": "R",
                    "themes": [
                        {"name": "T", "questions": [{"price": 100, "text": "Q", "answer": "A"}]}
                    ],
                }
            ],
            "final": {"themes": [{"name": "F", "question": {"text": "?", "answer": "!"}}]},
        }
    )
    assert package.rounds[0].themes[0].questions[0] == Question(100, text="Q", right=("A",))
    assert package.final is not None and package.final.name == "Финал"


def own_doc(question: dict[str, object]) -> dict[str, object]:
    good = {"price": 100, "text": "Q", "answer": "A"}
    return {
        "name": "Doc",
        "rounds": [
            {"name": "R0", "themes": [{"name": "T", "questions": [good]}]},
            {
                "name": "R1",
                "themes": [
                    {"name": "T0", "questions": [good]},
                    {"name": "T1", "questions": [good]},
                    {"name": "T2", "questions": [question]},
                ],
            },
        ],
    }


@pytest.mark.parametrize(
    ("question", "message"),
    [
        (
            {"price": "100", "answer": "A"},
            r"rounds\[1\]\.themes\[2\]\.questions\[0\]\.price: "
            r"must be a whole number, got a string",
        ),
        ({"price": 100.5, "answer": "A"}, r"questions\[0\]\.price: must be a whole number"),
        (
            {"price": True, "answer": "A"},
            r"questions\[0\]\.price: must be a whole number, got true/false",
        ),
        ({"price": 0, "answer": "A"}, r"questions\[0\]\.price: must be 1\.\.1000000000, got 0"),
        ({"answer": "A"}, r"questions\[0\]\.price: is missing"),
        ({"price": 100}, r"questions\[0\]\.answer: is missing"),
        (
            {"price": 100, "answer": "A", "qustion": "typo"},
            r"questions\[0\]: unknown key 'qustion'",
        ),
        (
            {"price": 100, "answer": "A", "kind": "auction"},
            r"questions\[0\]\.kind: must be one of cat, plain, sponsor, stake",
        ),
        (
            {"price": 100, "answer": "A", "cat": {}},
            r"questions\[0\]\.cat: only a question of \"kind\": \"cat\"",
        ),
        (
            {
                "price": 100,
                "answer": "A",
                "kind": "cat",
                "cat": {"price": {"min": 500, "max": 100}},
            },
            r"questions\[0\]\.cat\.price\.max: must be 500\.\.1000000000, got 100",
        ),
        (
            {"price": 100, "answer": "A", "kind": "cat", "cat": {"receiver": "me"}},
            r"cat\.receiver: must be one of any, others, self",
        ),
        (
            {"price": 100, "answer": "A", "kind": "stake", "stake": {"min": 500, "max": 100}},
            r"questions\[0\]\.stake: stake minimum 500 exceeds maximum 100",
        ),
        (
            {"price": 100, "answer": ["A", 7]},
            r"questions\[0\]\.answer\[1\]: must be a string, got the number 7",
        ),
        (
            {"price": 100, "answer": "A", "media": [{"kind": "image", "file": "../x.png"}]},
            r"media\[0\]\.file: '\.\./x\.png' has an empty, '\.' or '\.\.' path part",
        ),
        (
            {"price": 100, "answer": "A", "media": [{"kind": "image", "file": "/etc/x"}]},
            r"media\[0\]\.file: '/etc/x' is an absolute path",
        ),
        (
            {"price": 100, "answer": "A", "media": [{"kind": "image"}]},
            r"media\[0\]: needs exactly one of \"file\" or \"inline\"",
        ),
        ("not an object", r"questions\[0\]: must be an object, got a string"),
    ],
)
def test_own_format_errors_name_the_path(question: object, message: str) -> None:
    with pytest.raises(PackageError, match=message):
        parse_json(own_doc(question))  # type: ignore[arg-type]


def test_own_format_structural_errors() -> None:
    def theme(*prices: int) -> dict[str, object]:
        return {"name": "T", "questions": [{"price": p, "answer": "A"} for p in prices]}

    with pytest.raises(
        PackageError, match=r"rounds\[0\]\.themes\[0\]\.questions\[1\]\.price: 100 is already"
    ):
        parse_json({"name": "P", "rounds": [{"name": "R", "themes": [theme(100, 100)]}]})
    with pytest.raises(PackageError, match=r"rounds: the package has no rounds and no final"):
        parse_json({"name": "P", "rounds": []})
    with pytest.raises(PackageError, match=r"rounds\[0\]\.themes: must not be empty"):
        parse_json({"name": "P", "rounds": [{"name": "R", "themes": []}]})
    with pytest.raises(
        PackageError, match=r"rounds\[0\]\.themes\[0\]\.questions: must not be empty"
    ):
        parse_json({"name": "P", "rounds": [{"name": "R", "themes": [theme()]}]})
    with pytest.raises(PackageError, match=r"name: is missing"):
        parse_json({"rounds": [{"name": "R", "themes": [theme(100)]}]})
    with pytest.raises(PackageError, match=r"rounds\[0\]\.themes: has 101 items, over the limit"):
        parse_json({"name": "P", "rounds": [{"name": "R", "themes": [theme(100)] * 101}]})
    with pytest.raises(PackageError, match=r"the document: must be an object, got a list"):
        parse_json([])
    with pytest.raises(PackageError, match=r"version: must be 1\.\.1, got 2"):
        parse_json({"version": 2, "name": "P", "rounds": [{"name": "R", "themes": [theme(100)]}]})
    with pytest.raises(PackageError, match=r"final\.themes\[0\]\.question: unknown key 'kind'"):
        parse_json(
            {
                "name": "P",
                "final": {"themes": [{"name": "F", "question": {"answer": "A", "kind": "cat"}}]},
            }
        )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"name": "P",\n "rounds": [}', r"not valid JSON: .* \(line 2, column 13\)"),
        (b'{"name": "P", "name": "Q"}', r"the key 'name' appears twice"),
        (b'{"name": NaN}', r"NaN is not a number JSON allows"),
        (b"\xff\xfe{}", r"not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000, r"nested too deeply"),
        (b'{"n": ' + b"9" * 5000 + b"}", r"not valid JSON"),
    ],
)
def test_own_format_bad_json(data: bytes, message: str) -> None:
    with pytest.raises(PackageError, match=message):
        parse_json_bytes(data, path="pack.json")


def test_own_format_file_limits_and_media(tmp_path: Path) -> None:
    path = tmp_path / "pack.json"
    path.write_text(json.dumps({"name": "P", "pad": "x" * 200}), encoding="utf-8")
    with pytest.raises(PackageError, match="larger than the limit of 100 bytes"):
        load_json(path, max_bytes=100)
    with pytest.raises(PackageError, match="no such file"):
        load_json(tmp_path / "nope.json")
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "cat.png").write_bytes(b"meow")
    (tmp_path / "secret.txt").write_bytes(b"no")
    (tmp_path / "media" / "link.png").symlink_to(tmp_path / ".." / "outside.png")
    assert read_own_media(path, MediaRef(MediaKind.IMAGE, name="media/cat.png")) == b"meow"
    with pytest.raises(PackageError, match="path part"):
        read_own_media(path, "media/../secret.txt")
    with pytest.raises(PackageError, match="resolves outside"):
        read_own_media(path, "media/link.png")
    with pytest.raises(PackageError, match="larger than the limit"):
        read_own_media(path, "media/cat.png", max_bytes=2)


# -- the real packages, when present ----------------------------------------


@pytest.mark.skipif(
    not SHARED.exists(), reason="set SVOYAK_REAL_PACKAGES to a folder of real .siq packages"
)
def test_real_sigame_packages_load_and_v3_matches_v5() -> None:
    for path in sorted(SHARED.glob("*.siq")):
        package = load_siq(path)
        assert package.rounds, path
        package.board_rounds()
        # The own format carries each of them, except a theme with a price twice
        # (test.siq), which it refuses by name; the .siq reader warned about it.
        if any("both cost" in w for w in package.source.warnings):
            with pytest.raises(PackageError, match="is already the price"):
                parse_json(package_to_json(package))
        else:
            assert parse_json(package_to_json(package)).name == package.name
    for path in sorted((SHARED / "xml").glob("*.xml")):
        assert parse_content_xml(path.read_bytes(), path=str(path)).rounds, path

    new = load_siq(SHARED / "khil-1-v5.siq")
    old = load_siq(SHARED / "khil-1-v3.siq")
    assert (new.source.version, old.source.version) == ("5", "3")
    assert new.board_rounds() == old.board_rounds()
    assert [(r.name, r.kind) for r in new.rounds] == [(r.name, r.kind) for r in old.rounds]

    def specials(package: Package) -> list[tuple[int, int, int, QuestionKind, CatParams | None]]:
        return [
            (r, t, q.price, q.kind, q.cat)
            for r, round_ in enumerate(package.rounds)
            for t, theme in enumerate(round_.themes, start=1)
            for q in theme.questions
            if q.kind is not QuestionKind.PLAIN
        ]

    assert specials(new) == specials(old)
    kinds = {kind for *_, kind, _ in specials(new)}
    assert kinds == {QuestionKind.STAKE, QuestionKind.CAT, QuestionKind.SPONSOR}
    for a, b in zip(new.rounds, old.rounds, strict=True):
        for ta, tb in zip(a.themes, b.themes, strict=True):
            assert [q.right for q in ta.questions] == [q.right for q in tb.questions]
            # (The two files' texts differ by an edit or two, so only their presence is compared.)
            assert [bool(q.text) for q in ta.questions] == [bool(q.text) for q in tb.questions]
