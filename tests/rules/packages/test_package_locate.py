"""One loader for the package a header names (rules/packages/locate.py).

The journal codec builds the board from the header's package and the board's
screen shows the same package's texts: both go through
:func:`load_named_package`, so a game reads its package file once, and both
resolve a name the same way (the demo's name, a path relative to the journal).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from buzzer.journal.codec import JournalError, parse_header
from display.packages import PackageTexts
from rules.packages import PackageError, load_json, locate
from rules.packages.demo import BUILTIN_DEMO, DEMO_PACKAGE
from rules.packages.locate import forget_packages, load_named_package, package_path
from tests.support.package_fixtures import header, media_siq


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    forget_packages()
    yield
    forget_packages()


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every package file the loader actually parses."""
    seen: list[Path] = []
    real_siq, real_json = locate.load_siq, locate.load_json

    def siq(path: Path) -> object:
        seen.append(Path(path))
        return real_siq(path)

    def own(path: Path) -> object:
        seen.append(Path(path))
        return real_json(path)

    monkeypatch.setattr(locate, "load_siq", siq)
    monkeypatch.setattr(locate, "load_json", own)
    return seen


def test_the_codec_and_the_board_share_one_read_of_the_package(
    tmp_path: Path, reads: list[Path]
) -> None:
    path = media_siq(tmp_path)
    text = json.dumps(header(path))
    setup = parse_header(text)
    texts = PackageTexts.from_header(text, None)
    assert reads == [path]  # read once, for both
    assert texts.package is load_named_package(str(path))
    assert setup.rounds == texts.package.board_rounds()


def test_a_relative_name_is_found_beside_the_journal(tmp_path: Path, reads: list[Path]) -> None:
    games = tmp_path / "games"
    games.mkdir()
    shutil.copy(DEMO_PACKAGE, games / "cup.json")
    assert package_path("cup.json", games) == games / "cup.json"
    assert package_path(str(DEMO_PACKAGE), games) == DEMO_PACKAGE  # absolute stays
    assert load_named_package("cup.json", games) == load_json(DEMO_PACKAGE)
    texts = PackageTexts.from_header(json.dumps(header(Path("cup.json"))), games)
    assert texts.package == load_json(DEMO_PACKAGE)
    assert reads == [games / "cup.json"]


def test_the_demo_is_found_by_its_name() -> None:
    assert load_named_package(BUILTIN_DEMO) == load_json(DEMO_PACKAGE)
    assert load_named_package(BUILTIN_DEMO, Path("/nowhere")) is load_named_package(BUILTIN_DEMO)


def test_a_package_changed_on_disk_is_read_again(tmp_path: Path, reads: list[Path]) -> None:
    path = tmp_path / "cup.json"
    shutil.copy(DEMO_PACKAGE, path)
    first = load_named_package(str(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    data["name"] = "Кубок клуба"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    second = load_named_package(str(path))
    assert first.name != "Кубок клуба" and second.name == "Кубок клуба"
    assert len(reads) == 2


def test_only_the_last_few_packages_stay_read(tmp_path: Path, reads: list[Path]) -> None:
    paths = []
    for index in range(locate.CACHED_PACKAGES + 1):
        path = tmp_path / f"p{index}.json"
        shutil.copy(DEMO_PACKAGE, path)
        paths.append(path)
        load_named_package(str(path))
    load_named_package(str(paths[-1]))  # still kept
    load_named_package(str(paths[0]))  # pushed out by the later ones: read again
    assert reads == [*paths, paths[0]]


def test_a_missing_package_is_each_callers_own_error(tmp_path: Path) -> None:
    text = json.dumps(header(tmp_path / "gone.siq"))
    with pytest.raises(JournalError, match=r"cannot read question package .*gone\.siq"):
        parse_header(text)
    assert PackageTexts.from_header(text, None).package is None  # the board shows no texts
    with pytest.raises(OSError):
        load_named_package(str(tmp_path / "gone.siq"))


def test_a_broken_package_is_refused_and_not_kept(tmp_path: Path, reads: list[Path]) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(JournalError, match="question package"):
        parse_header(json.dumps(header(path)))
    with pytest.raises(PackageError):
        load_named_package(str(path))
    assert len(reads) == 2  # a refusal is not remembered as a package
