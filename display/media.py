"""The package's pictures and sounds on the board: decoded safely, played on the board machine.

A package is untrusted input, and a picture is the easiest way to hurt a
board: a 30 KB PNG can claim 50 000 × 50 000 pixels and make the decoder ask
for ten gigabytes. So a picture is read from the package with a byte limit,
its size is read from the file's own header *before* decoding (by Pillow; PNG, JPEG,
GIF, BMP, WebP — the formats SIGame packages use; anything else is refused),
and only then handed to ``pygame.image.load``. A picture that cannot be
shown becomes ``None``: the renderer draws a placeholder that says so, and
the game goes on.

Sound goes through ``pygame.mixer.music`` (it streams, so a long track costs
its file's bytes, not its decoded samples), behind :class:`AudioBackend` so
that tests can check what was loaded and started without a sound card or
sleeping. Video and HTML are not played on the board: the board says so
(``scene.NOTE_VIDEO`` …) instead of pretending.

:class:`BoardMedia` ties it together for the live board and the replay: fed
each snapshot, it decodes the current question's pictures once, starts,
pauses and stops its sound with the question's phase, and hands the scene
what to show. It decides nothing about the game; it follows the snapshot.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol

from buzzer.errors import SvoyakError
from display import scene as screens
from rules.packages import MediaKind, MediaRef, PackageError

if TYPE_CHECKING:
    import pygame

    from display.packages import OnBoard, PackageTexts
    from rules.packages import CatParams
    from rules.snapshot import GameSnapshot

#: The largest picture file read from a package (far below the readers' own
#: limit, rules.packages.model.MAX_MEDIA_BYTES: a board picture is never that
#: big, and it is held in memory).
MAX_IMAGE_BYTES: Final = 32 * 1024 * 1024
#: The most pixels a picture may declare; 40 MP is a 7 700 × 5 200 photograph,
#: 160 MB decoded at 32 bits: the most a Raspberry Pi should be asked for.
MAX_IMAGE_PIXELS: Final = 40_000_000
#: Pictures are shrunk to this longest side once decoded: a screen never needs more,
#: and every later scaling then works on a small surface.
MAX_IMAGE_SIDE: Final = 2048
#: The most pictures of one question shown together (SIGame allows a screenful).
MAX_IMAGES: Final = 8
#: The largest sound file played (it is kept in memory while it plays).
MAX_AUDIO_BYTES: Final = 64 * 1024 * 1024


class MediaError(SvoyakError):
    """A picture or a sound that the board cannot use, with the reason."""


# -- pictures ------------------------------------------------------------------------------


#: The formats a board picture may have (Pillow's names): the ones SIGame packages use.
IMAGE_FORMATS: Final = ("PNG", "JPEG", "GIF", "BMP", "WEBP")


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a picture's header, or None when the format is not one we take.

    Read before decoding, so that a picture claiming billions of pixels is
    refused without allocating them. Pillow reads it (``Image.open`` parses the
    header and decodes nothing until asked): the maintained reader of these
    formats' headers, rather than five hand-written parsers. Its own pixel
    limit is turned off here: :func:`decode_image` applies
    :data:`MAX_IMAGE_PIXELS` with a message the technician can act on.
    """
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = None
    try:
        with Image.open(io.BytesIO(data), formats=IMAGE_FORMATS) as image:
            width, height = image.size
            return int(width), int(height)
    except Exception:  # an untrusted file: whatever the reader says, it is not taken
        return None


def decode_image(data: bytes, name: str = "") -> pygame.Surface:
    """A package picture as a surface, at most :data:`MAX_IMAGE_SIDE` on its longest side.

    Raises :class:`MediaError` for a file too large, a format other than
    PNG/JPEG/GIF/BMP/WebP, a declared size over :data:`MAX_IMAGE_PIXELS`, or
    anything the decoder refuses.
    """
    import pygame

    if len(data) > MAX_IMAGE_BYTES:
        raise MediaError(f"{name}: {len(data)} bytes, over the limit of {MAX_IMAGE_BYTES}")
    size = image_size(data)
    if size is None:
        raise MediaError(f"{name}: not a PNG, JPEG, GIF, BMP or WebP picture")
    width, height = size  # never 0: the reader refuses a picture that declares no pixels
    if width * height > MAX_IMAGE_PIXELS:
        raise MediaError(
            f"{name}: {width}×{height} pixels, over the limit of {MAX_IMAGE_PIXELS} pixels"
        )
    try:
        image = pygame.image.load(io.BytesIO(data), name or "image")
    except (pygame.error, ValueError, OSError, MemoryError) as exc:
        raise MediaError(f"{name}: the picture cannot be decoded ({exc})") from exc
    w, h = image.get_size()
    if w <= 0 or h <= 0:
        raise MediaError(f"{name}: the picture is empty")
    # 32 bits with alpha: what smoothscale takes and what blits fastest onto the board.
    flat = pygame.Surface((w, h), pygame.SRCALPHA, 32)
    flat.blit(image, (0, 0))
    longest = max(w, h)
    if longest > MAX_IMAGE_SIDE:
        factor = MAX_IMAGE_SIDE / longest
        flat = pygame.transform.smoothscale(
            flat, (max(1, round(w * factor)), max(1, round(h * factor)))
        )
    return flat


# -- sound ---------------------------------------------------------------------------------


class AudioBackend(Protocol):
    """What the board needs of a player for one question's sound (a seam for tests)."""

    def start(self, data: bytes, name: str, volume: float) -> None:
        """Load ``data`` (a whole sound file; ``name`` hints its format) and play it from
        the start. Raises :class:`MediaError` when it cannot."""

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def stop(self) -> None: ...


class MixerMusic:
    """:class:`AudioBackend` on ``pygame.mixer.music``: streams MP3, OGG, WAV, FLAC …

    The cues (:mod:`display.sounds`) play on the mixer's channels; this plays
    on its music stream, so a press's ding is heard over a question's tune.
    """

    def __init__(self) -> None:
        #: The file being played: pygame reads it while it plays, so it is kept.
        self._file: io.BytesIO | None = None

    def start(self, data: bytes, name: str, volume: float) -> None:
        import pygame

        if not pygame.mixer.get_init():
            raise MediaError("no audio output (the mixer did not start)")
        file = io.BytesIO(data)
        try:
            pygame.mixer.music.load(file, name.rpartition(".")[2].lower())
            pygame.mixer.music.set_volume(volume)
            pygame.mixer.music.play()
        except (pygame.error, ValueError, OSError) as exc:
            self._file = None
            raise MediaError(f"{name}: the sound cannot be played ({exc})") from exc
        self._file = file

    def pause(self) -> None:
        self._call("pause")

    def resume(self) -> None:
        self._call("unpause")

    def stop(self) -> None:
        self._call("stop")
        self._call("unload")
        self._file = None

    @staticmethod
    def _call(name: str) -> None:
        import pygame

        if pygame.mixer.get_init():
            with contextlib.suppress(pygame.error):
                getattr(pygame.mixer.music, name)()


#: What a question's sound should be doing.
PLAY = "play"
PAUSE = "pause"
STOP = "stop"


def audio_wanted(snapshot: GameSnapshot | None) -> str:
    """Play, pause or stop the current question's sound, from the snapshot alone.

    It plays while the question is read and the buttons are open (SIGame's
    order: the sound *is* the question), holds while someone answers (so a
    wrong answer gives the others the rest of the tune), and stops when the
    question is over. A special question (cat, sponsor, stake) has no
    reading phase: its sound plays while it is asked, as does the final's.
    """
    if not snapshot:
        return STOP
    wanted = _audio_for_stage(snapshot)
    if wanted == PLAY and snapshot.get("paused_at") is not None:
        return PAUSE  # A-G-D1: the host paused the game: the tune holds until the resume
    return wanted


def _audio_for_stage(snapshot: GameSnapshot) -> str:
    stage = snapshot.get("stage")
    if stage == "question":
        phase = snapshot.get("phase")
        if phase in ("reading", "open"):
            return PLAY
        if phase == "answering":
            return PAUSE
        return STOP
    if stage in ("special", "final_judging"):
        return PLAY
    return STOP


# -- the board's media ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shown:
    """The package's part of a scene (see :class:`display.scene.Scene`'s fields)."""

    text: str | None = None
    images: tuple[pygame.Surface | None, ...] = ()
    notes: tuple[str, ...] = ()
    cat: CatParams | None = None
    answer: str | None = None


def _is_link(ref: MediaRef) -> bool:
    inline = (ref.inline or "").strip().lower()
    return inline.startswith(("http://", "https://", "//", "www."))


class BoardMedia:
    """The current question's media, following the snapshots (the main thread's job).

    ``audio`` is None for a board without sound (a screenshot): the question
    still says it has a sound, but nothing is played or reported as failed.
    """

    def __init__(
        self, texts: PackageTexts, audio: AudioBackend | None = None, volume: float = 1.0
    ) -> None:
        self.texts = texts
        self.audio = audio
        self.volume = volume
        self._key: tuple[str | int, ...] | None = None
        self._images: tuple[pygame.Surface | None, ...] = ()
        self._decoded = False
        self._audio_state = STOP
        self._audio_started = False
        self._audio_failed = False
        #: Why media could not be shown or played, newest last (for the log and tests).
        self.errors: list[str] = []

    def update(self, snapshot: GameSnapshot | None) -> Shown:
        """What to show for ``snapshot``; starts, pauses and stops the sound on the way."""
        found = self.texts.on_board(snapshot) if snapshot else None
        key = found.key if found is not None else None
        if key != self._key:
            self._stop_audio()
            self._key = key
            self._images = ()
            self._decoded = False
            self._audio_started = False
            self._audio_failed = False
        if found is None:
            return Shown()
        if found.media and not self._decoded:
            self._decoded = True
            self._images = self._decode(found)
        self._follow_audio(found, audio_wanted(snapshot))
        return Shown(
            text=found.text,
            images=self._images if found.media else (),
            notes=self._notes(found) if found.media else (),
            cat=found.cat,
            answer=found.answer,
        )

    def close(self) -> None:
        """Stop any sound (the board is closing)."""
        self._stop_audio()

    # -- internals ---------------------------------------------------------------------------

    def _decode(self, found: OnBoard) -> tuple[pygame.Surface | None, ...]:
        refs = [r for r in found.media if r.kind is MediaKind.IMAGE and not _is_link(r)]
        out: list[pygame.Surface | None] = []
        for ref in refs[:MAX_IMAGES]:
            label = ref.name or "inline picture"
            try:
                if ref.name is None:
                    raise MediaError(f"{label}: inline picture content is not a file")
                data = self.texts.media_bytes(ref, MAX_IMAGE_BYTES)
                out.append(decode_image(data, ref.name))
            except (MediaError, PackageError) as exc:
                self.errors.append(str(exc))
                out.append(None)
        return tuple(out)

    def _notes(self, found: OnBoard) -> tuple[str, ...]:
        notes: list[str] = []
        for ref in found.media:
            if _is_link(ref):
                note = screens.NOTE_LINK
            elif ref.kind is MediaKind.AUDIO:
                note = screens.NOTE_AUDIO_FAILED if self._audio_failed else screens.NOTE_AUDIO
            elif ref.kind is MediaKind.VIDEO:
                note = screens.NOTE_VIDEO
            elif ref.kind is MediaKind.HTML:
                note = screens.NOTE_HTML
            else:
                continue
            if note not in notes:
                notes.append(note)
        return tuple(notes)

    def _follow_audio(self, found: OnBoard, wanted: str) -> None:
        audio = self.audio
        ref = next(
            (r for r in found.media if r.kind is MediaKind.AUDIO and r.name is not None), None
        )
        if audio is None or ref is None or self._audio_failed:
            return
        if wanted == self._audio_state:
            return
        if wanted == PLAY:
            if not self._audio_started:
                self._audio_started = True
                try:
                    assert ref.name is not None
                    data = self.texts.media_bytes(ref, MAX_AUDIO_BYTES)
                    audio.start(data, ref.name, self.volume)
                except (MediaError, PackageError) as exc:
                    self.errors.append(str(exc))
                    self._audio_failed = True
                    self._audio_state = STOP
                    return
            else:
                audio.resume()
        elif wanted == PAUSE:
            if self._audio_state == PLAY:
                audio.pause()
            else:
                return  # not started yet: nothing to hold
        else:
            audio.stop()
        self._audio_state = wanted

    def _stop_audio(self) -> None:
        if self.audio is not None and self._audio_state != STOP:
            self.audio.stop()
        self._audio_state = STOP
