"""Small .siq archives built in a test's tmp folder: :func:`make_siq` zips a
content.xml and media entries, :func:`v5` wraps rounds in a SIGame v5 package,
and ``V5_CONTENT``/``V5_FILES`` are a v5 package with every question kind, a
final and media (a name with a space, percent-encoded in the zip). Used by
tests/rules/packages/test_packages_siq*.py.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from rules.packages.siq_content import NS_V5


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
