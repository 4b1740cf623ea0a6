"""``svoyak package inspect``: what a package holds, through the real CLI.

Every package is built here in ``tmp_path`` (a small SIGame v5 archive with
every special kind, a hole and a final; an own-format JSON file), except the
built-in ``svoyak:demo``. The JSON shape is checked field by field; hostile
and broken files must give one line on stderr and exit status 2.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from buzzer.cli import main
from rules.packages.demo import DEMO_PACKAGE
from rules.packages.siq_content import NS_V5


def question(price: int, answer: str, *, kind: str = "", params: str = "", extra: str = "") -> str:
    type_attr = f' type="{kind}"' if kind else ""
    return (
        f'<question price="{price}"{type_attr}><params>{params}'
        f'<param name="question" type="content"><item>Q {price}</item>{extra}</param>'
        f"</params><right><answer>{answer}</answer></right></question>"
    )


def content_xml() -> str:
    """Two themes: every question kind, a cat with its own theme and value, media, a hole."""
    alpha = (
        question(100, "Alpha one", extra='<item type="image" isRef="True">pic.png</item>')
        + question(200, "Alpha stake", kind="stake")
        + question(300, "Alpha sponsor", kind="noRisk")
    )
    beta = (
        question(
            100,
            "Beta cat",
            kind="secret",
            params='<param name="theme">Cats</param><param name="price" type="numberSet">'
            '<numberSet minimum="500" maximum="500" step="0" /></param>'
            '<param name="selectionMode">exceptCurrent</param>',
        )
        + question(200, "Beta all", kind="forAll")
        + '<question price="-1"><params /><right /></question>'
    )
    final = (
        '<theme name="F1"><questions><question price="0"><params><param name="question" '
        'type="content"><item>Final</item></param></params><right><answer>Final answer'
        "</answer></right></question></questions></theme>"
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<package name="Inspect me" version="5" xmlns="{NS_V5}"><rounds>'
        '<round name="Round one"><themes>'
        f'<theme name="Alpha"><questions>{alpha}</questions></theme>'
        f'<theme name="Beta"><questions>{beta}</questions></theme>'
        "</themes></round>"
        f'<round name="The final" type="final"><themes>{final}</themes></round>'
        "</rounds></package>"
    )


def make_siq(
    path: Path, content: str | bytes | None, files: dict[str, bytes] | None = None
) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        if content is not None:
            archive.writestr("content.xml", content)
        for name, data in (files or {}).items():
            archive.writestr(name, data)
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["package", "inspect", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def inspect_json(capsys: pytest.CaptureFixture[str], path: Path | str) -> Any:
    status, out, err = run(capsys, str(path), "--json")
    assert status == 0, err
    assert err == ""
    return json.loads(out)


def test_siq_json_has_the_documented_shape_field_by_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make_siq(tmp_path / "pack.siq", content_xml(), {"Images/pic.png": b"png"})
    data = inspect_json(capsys, path)

    assert data["name"] == "Inspect me"
    assert data["format"] == "siq" and data["version"] == "5"
    assert [r["name"] for r in data["rounds"]] == ["Round one", "The final"]
    main_round, final = data["rounds"]
    assert main_round["final"] is False and final["final"] is True
    assert main_round["prices"] == [100, 200, 300]
    # Beta has no 300 (its -1 cell is SIGame's empty cell): a hole, not a question.
    assert main_round["holes"] == [{"theme": 2, "price": 300}]
    alpha, beta = main_round["themes"]
    assert alpha["name"] == "Alpha" and beta["name"] == "Beta"

    def short(q: dict[str, Any]) -> tuple[int, str, str]:
        return q["price"], q["kind"], q["answer"]

    assert [short(q) for q in alpha["questions"]] == [
        (100, "normal", "Alpha one"),
        (200, "auction", "Alpha stake"),
        (300, "sponsor", "Alpha sponsor"),
    ]
    assert [short(q) for q in beta["questions"]] == [
        (100, "cat", "Beta cat"),
        (200, "other", "Beta all"),
    ]
    first = alpha["questions"][0]
    assert first["media"] == [{"kind": "image", "file": "pic.png"}]
    assert first["text"] == "Q 100"
    assert "cat" not in first and "stake" not in first and "note" not in first
    cat = beta["questions"][0]
    assert cat["cat"] == {"theme": "Cats", "price": 500, "receiver": "others", "announce": "after"}
    assert cat["type"] == "secret"
    # A .siq states no bidding limits (the rule system sets them): nothing to show.
    assert "stake" not in alpha["questions"][1]
    for_all = beta["questions"][1]
    assert for_all["type"] == "forAll" and "forAll" in for_all["note"]
    assert any("forAll" in w for w in data["warnings"])

    assert [t["name"] for t in final["themes"]] == ["F1"]
    assert final["themes"][0]["questions"] == [
        {"price": 0, "kind": "normal", "answer": "Final answer", "text": "Final"}
    ]
    assert "prices" not in final


def test_siq_table_shows_rounds_themes_prices_kinds_answers_and_the_cat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make_siq(tmp_path / "pack.siq", content_xml(), {"Images/pic.png": b"png"})
    status, out, err = run(capsys, str(path))
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "Пакет «Inspect me» (siq v5), раундов: 2"
    assert "Раунд 1 «Round one» — тем: 2, цены: 100, 200, 300" in lines
    assert "  пустые клетки: 2/300" in lines
    assert "    100  обычный      Alpha one  [картинка]" in lines
    assert "    200  аукцион      Alpha stake" in lines
    assert "    300  от спонсора  Alpha sponsor" in lines
    cat_line = next(line for line in lines if "Beta cat" in line)
    assert cat_line.startswith("    100  кот в мешке  Beta cat  [")
    assert "тема кота «Cats»" in cat_line and "цена 500" in cat_line
    assert "отдать другому" in cat_line
    assert any(line.startswith("    200  особый") and "Beta all" in line for line in lines)
    assert "Финал «The final» — тем: 1" in lines
    assert "    Final answer" in lines

    status, out, _ = run(capsys, str(path), "--lang", "en")
    assert status == 0
    assert "Round 1 «Round one» — themes: 2, prices: 100, 200, 300" in out
    assert "cat's theme «Cats»" in out and "    200  auction" in out


def test_own_json_package(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = {
        "format": "svoyak-package",
        "version": 1,
        "name": "Свой пакет",
        "rounds": [
            {
                "name": "Раунд",
                "themes": [
                    {
                        "name": "Реки",
                        "comment": "Назовите реку",
                        "questions": [
                            {"price": 100, "text": "Q", "answer": ["Нил", "Амазонка"]},
                            {
                                "price": 200,
                                "kind": "stake",
                                "text": "Q",
                                "answer": "Волга",
                                "stake": {"min": 200, "step": 100},
                            },
                            {
                                "price": 300,
                                "kind": "cat",
                                "text": "Q",
                                "answer": "Обь",
                                "cat": {"theme": "Сибирь", "price": {"min": 100, "max": 500}},
                            },
                        ],
                    }
                ],
            }
        ],
        "final": {"themes": [{"name": "Итог", "question": {"text": "?", "answer": "!"}}]},
    }
    path = tmp_path / "own.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    data = inspect_json(capsys, path)
    assert data["name"] == "Свой пакет" and data["format"] == "json"
    theme = data["rounds"][0]["themes"][0]
    assert theme["comment"] == "Назовите реку"
    plain, stake, cat = theme["questions"]
    assert (plain["kind"], plain["answer"], plain["answers"]) == (
        "normal",
        "Нил",
        ["Нил", "Амазонка"],
    )
    assert stake["kind"] == "auction" and stake["stake"] == {"minimum": 200, "step": 100}
    assert cat["kind"] == "cat"
    assert cat["cat"]["theme"] == "Сибирь"
    assert cat["cat"]["price"] == {"minimum": 100, "maximum": 500}
    assert data["rounds"][1] == {
        "name": "Финал",
        "final": True,
        "themes": [
            {
                "name": "Итог",
                "questions": [{"price": 0, "kind": "normal", "answer": "!", "text": "?"}],
            }
        ],
    }

    status, out, _ = run(capsys, str(path))
    assert status == 0
    assert "Тема 1 «Реки» (Назовите реку)" in out
    assert "мин. ставка 200; шаг ставки 100" in out
    assert "цена 100 или 500" in out


def test_the_builtin_demo_package(capsys: pytest.CaptureFixture[str]) -> None:
    data = inspect_json(capsys, "svoyak:demo")
    document = json.loads(DEMO_PACKAGE.read_text(encoding="utf-8"))
    assert data["name"] == document["name"]
    main_rounds = [r for r in data["rounds"] if not r["final"]]
    assert [r["name"] for r in main_rounds] == [r["name"] for r in document["rounds"]]
    for shown, written in zip(main_rounds, document["rounds"], strict=True):
        for theme, source in zip(shown["themes"], written["themes"], strict=True):
            assert theme["name"] == source["name"]
            assert [q["price"] for q in theme["questions"]] == [
                q["price"] for q in source["questions"]
            ]
    kinds = {q["kind"] for r in main_rounds for t in r["themes"] for q in t["questions"]}
    assert {"normal", "cat", "sponsor", "auction"} <= kinds
    assert data["rounds"][-1]["final"] is True


def test_a_renamed_package_is_recognised_by_its_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = make_siq(tmp_path / "pack.zip", content_xml())
    assert inspect_json(capsys, path)["name"] == "Inspect me"


DOCTYPE = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>'
    f'<package name="&lol2;" version="5" xmlns="{NS_V5}"><rounds/></package>'
)


def _not_a_zip(path: Path) -> Path:
    path.write_bytes(b"this is not a zip")
    return path


def _bomb(path: Path) -> Path:
    # 21 MB of spaces inside the question text: a few kilobytes on disk, over the
    # reader's 20 MB limit for content.xml once inflated.
    return make_siq(path, content_xml().replace("Q 100", " " * 21_000_000))


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (_not_a_zip, "not a zip archive"),
        (_bomb, "over the limit of"),
        (lambda p: make_siq(p, DOCTYPE), "contains <!DOCTYPE>"),
        (lambda p: make_siq(p, None, {"Images/x.png": b"x"}), "no content.xml in the archive"),
        (lambda p: make_siq(p, "<package><rounds>"), "not well-formed XML"),
        (lambda p: make_siq(p, content_xml(), {"../evil.sh": b"x"}), "unsafe entry name"),
        (lambda p: p.parent / "missing.siq", "no such file"),
        (lambda p: p.parent, "not a file"),
    ],
    ids=["not-zip", "zip-bomb", "dtd", "no-content", "bad-xml", "traversal", "missing", "dir"],
)
def test_hostile_siq_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], build: Any, message: str
) -> None:
    path = build(tmp_path / "hostile.siq")
    for extra in ([], ["--json"]):
        status, out, err = run(capsys, str(path), *extra)
        assert status == 2
        assert out == ""
        assert err.startswith("svoyak package inspect: "), err
        assert err.count("\n") == 1 and err.endswith("\n"), err
        assert message in err
        assert "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"name": "X", "rounds": []}', "no rounds"),
        (
            '{"name": "X", "rounds": [{"name": "R", "themes": [{"name": "T", "questions": '
            '[{"price": "cheap", "answer": "A"}]}]}]}',
            "rounds[0].themes[0].questions[0].price",
        ),
        ('{"name": "X", "rounds": [], "colour": "red"}', "colour"),
    ],
    ids=["syntax", "empty", "bad-price", "unknown-key"],
)
def test_a_json_package_with_errors_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "broken.json"
    path.write_text(text, encoding="utf-8")
    status, out, err = run(capsys, str(path), "--json")
    assert status == 2 and out == ""
    assert err.startswith(f"svoyak package inspect: {path}")
    assert err.count("\n") == 1
    assert message in err


def test_a_name_with_newlines_cannot_break_the_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = (
        content_xml()
        .replace('<theme name="Alpha">', '<theme name="Al\nph\na">')
        .replace('price="300" type="noRisk"', 'price="3x0" type="noRisk"')
    )
    status, _, err = run(capsys, str(make_siq(tmp_path / "p.siq", bad)))
    assert status == 2
    assert err.count("\n") == 1
    assert "price '3x0' is not a whole number" in err
