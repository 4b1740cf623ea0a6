"""Small SIGame packages with real media, built in a test's tmp folder (no test of its own).

The pictures are drawn with pygame and saved as PNG/JPEG, the sound is a WAV
written with :mod:`wave`: genuine files that the board decodes and plays,
so a test sees what a real package would give it. The package mirrors what
issue 12 found in SIGame's own ``media-new.siq``: a picture with the host's
spoken line beside it (``placement="replic"``), a sound, a video, a picture
that does not decode, a cat in the bag with its own theme and price, and a
final with answers.
"""

from __future__ import annotations

import io
import math
import struct
import wave
import zipfile
from pathlib import Path
from typing import Any

import pygame

from rules.packages.siq_content import NS_V4, NS_V5

#: The colour the fixture's picture is filled with: easy to find in a screenshot.
PICTURE_COLOUR = (255, 0, 255)


def png_bytes(
    size: tuple[int, int] = (160, 120), colour: tuple[int, int, int] = PICTURE_COLOUR
) -> bytes:
    """A real PNG of one colour with a white frame."""
    image = pygame.Surface(size)
    image.fill(colour)
    pygame.draw.rect(image, (255, 255, 255), image.get_rect(), 2)
    out = io.BytesIO()
    pygame.image.save(image, out, "png")
    return out.getvalue()


def jpeg_bytes(size: tuple[int, int] = (64, 48)) -> bytes:
    image = pygame.Surface(size)
    image.fill((0, 160, 80))
    out = io.BytesIO()
    pygame.image.save(image, out, "jpg")
    return out.getvalue()


def wav_bytes(seconds: float = 0.3, rate: int = 22050) -> bytes:
    """A real WAV: a 440 Hz tone."""
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        frames = b"".join(
            struct.pack("<h", round(12000 * math.sin(2 * math.pi * 440 * i / rate)))
            for i in range(round(seconds * rate))
        )
        w.writeframes(frames)
    return out.getvalue()


def _item(value: str, type_: str = "", placement: str = "") -> str:
    attrs = ""
    if type_:
        attrs += f' type="{type_}" isRef="True"'
    if placement:
        attrs += f' placement="{placement}"'
    return f"<item{attrs}>{value}</item>"


def _question(price: int, items: str, answer: str, type_: str = "", params: str = "") -> str:
    kind = f' type="{type_}"' if type_ else ""
    return (
        f'<question price="{price}"{kind}><params>{params}'
        f'<param name="question" type="content">{items}</param></params>'
        f"<right><answer>{answer}</answer></right></question>"
    )


def cat_params(
    theme: str, minimum: int, maximum: int, step: int = 0, mode: str = "exceptCurrent"
) -> str:
    return (
        f'<param name="theme">{theme}</param><param name="price" type="numberSet">'
        f'<numberSet minimum="{minimum}" maximum="{maximum}" step="{step}" /></param>'
        f'<param name="selectionMode">{mode}</param>'
    )


#: Theme 1 of the fixture, by price: what each cell holds.
CELLS: dict[int, str] = {
    100: "picture + the host's line + text",
    200: "a sound only",
    300: "a video + text",
    400: "a picture that does not decode + text",
    500: "a cat in the bag: КОРАБЛИ, 700",
}


def media_content(*, cat_type: str = "secret", wide: int = 0) -> str:
    """``content.xml`` (v5) of the fixture; ``wide`` adds a second theme of that many prices."""
    questions = [
        _question(
            100,
            _item("sun.png", "image")
            + _item("Посмотрите на экран", placement="replic")
            + _item("Что на картинке?"),
            "Солнце",
        ),
        _question(200, _item("tune.wav", "audio", "background"), "Мелодия"),
        _question(300, _item("clip.mp4", "video") + _item("Назовите фильм"), "Фильм"),
        _question(400, _item("broken.png", "image") + _item("Что здесь?"), "Ничего"),
        _question(
            500,
            _item("Этот шведский корабль затонул в гавани в первом же плавании"),
            "Васа",
            cat_type,
            cat_params("КОРАБЛИ", 700, 700),
        ),
    ]
    themes = f'<theme name="Картинки и звуки"><questions>{"".join(questions)}</questions></theme>'
    if wide:
        plain = "".join(
            _question(100 * (i + 1), _item(f"Вопрос {i + 1}"), f"Ответ {i + 1}")
            for i in range(wide)
        )
        themes += f'<theme name="Длинный ряд"><questions>{plain}</questions></theme>'
    final = "".join(
        f'<theme name="Тема {n}"><questions>'
        + _question(0, _item(f"Вопрос финала {n}"), f"Ответ финала {n}")
        + "</questions></theme>"
        for n in (1, 2)
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<package name="Медиа" version="5" xmlns="{NS_V5}"><rounds>'
        f'<round name="1"><themes>{themes}</themes></round>'
        f'<round name="Финал" type="final"><themes>{final}</themes></round>'
        "</rounds></package>"
    )


def media_files() -> dict[str, bytes]:
    return {
        "Images/sun.png": png_bytes(),
        "Audio/tune.wav": wav_bytes(),
        "Video/clip.mp4": b"\x00\x00\x00\x18ftypmp42 not really a video",
        "Images/broken.png": b"\x89PNG\r\n\x1a\n but then nothing a decoder can use",
    }


def write_siq(folder: Path, content: str, files: dict[str, bytes], name: str = "media.siq") -> Path:
    path = folder / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("content.xml", content.encode("utf-8"))
        for entry, data in files.items():
            archive.writestr(entry, data)
    return path


def media_siq(folder: Path, **options: Any) -> Path:
    """The fixture package as a ``.siq`` in ``folder``."""
    return write_siq(folder, media_content(**options), media_files())


def old_format_content() -> str:
    """The same kinds of content in SIGame's old format (v4 ``scenario/atom``)."""
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<package name="Медиа v4" version="4" xmlns="{NS_V4}"><rounds>'
        '<round name="1-й раунд"><themes><theme name="Старый формат"><questions>'
        '<question price="100"><scenario><atom type="image">@sun.png</atom>'
        '<atom type="say">Устный комментарий</atom><atom>Что на картинке?</atom></scenario>'
        "<right><answer>Солнце</answer></right></question>"
        '<question price="200"><scenario><atom type="voice">@tune.wav</atom></scenario>'
        "<right><answer>Мелодия</answer></right></question>"
        '<question price="300"><type name="bagcat"><param name="theme">КОРАБЛИ</param>'
        '<param name="cost">700</param><param name="self">false</param>'
        '<param name="knows">before</param></type><scenario><atom>Кот</atom></scenario>'
        "<right><answer>Васа</answer></right></question>"
        "</questions></theme></themes></round></rounds></package>"
    )


def header(path: Path, rules: str = "tv-modern") -> dict[str, Any]:
    """A game header on the fixture package."""
    return {
        "type": "game",
        "rules": rules,
        "players": ["Анна", "Борис", "Вера"],
        "chooser": 1,
        "package": str(path),
    }
