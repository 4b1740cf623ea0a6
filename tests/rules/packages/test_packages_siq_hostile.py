"""Hostile and broken .siq packages (rules/packages/siq.py): every one a
PackageError that says what is wrong, never a crash or a read past a limit: not
a zip, no content.xml, a DTD (an entity bomb), unsafe entry and media names,
bad prices, sizes beyond any real board, declared or real zip bombs, an
understated size, unsupported compression, encryption. A DOCTYPE that is a
question's text is text.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from rules.packages import (
    MediaKind,
    MediaRef,
    PackageError,
)
from rules.packages.siq import load_siq, read_media
from tests.support.siq_archives import V5_CONTENT, V5_FILES, make_siq, v5


def plain(price: str, text: str = "Q", answer: str = "A") -> str:
    return (
        f'<question price="{price}"><params><param name="question" type="content">'
        f"<item>{text}</item></param></params><right><answer>{answer}</answer></right></question>"
    )


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
