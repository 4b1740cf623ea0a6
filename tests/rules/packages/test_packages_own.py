"""The own JSON package format (rules/packages/own.py): a round trip of every
question kind, a minimal document, errors that name the JSON path, structural
errors, bad JSON, the file's size limit and its media (paths kept inside the
package's folder).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.board import RoundSpec
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
