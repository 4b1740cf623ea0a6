"""The board screen's loop: a window on a laptop, full screen on a Pi without a desktop.

The controller calls :meth:`BoardApp.publish` (a controller listener) from
whatever thread applied an input, with the engine's host options for that
snapshot (whose turn it is in the final, the cat's value options: the board
shows them, as the host's panel does, and works neither out itself); the
pygame loop on the main thread picks up the latest snapshot, draws what
changed, updates only those rectangles, and plays the cues. Between
snapshots it keeps drawing only while something animates (a countdown, a
blinking lamp); otherwise a frame costs the comparison of the widgets' keys.

The video driver is SDL's choice unless ``SDL_VIDEODRIVER`` is set: on
Raspberry Pi OS Lite that is ``kmsdrm`` (full screen at the mode's
resolution), on a laptop ``x11``/``wayland``/``cocoa``/``windows`` (a
window). See ``docs/display.md``.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pygame

from display.i18n import LANGUAGES
from display.media import AudioBackend, BoardMedia, MixerMusic, Shown
from display.packages import PackageTexts
from display.renderer import Renderer
from display.scene import AfterGame, Facts, Memory, Scene, StartInfo, is_check
from display.sounds import SoundConfig, Sounds, cues_for
from rules.snapshot import HostOptions, LiveSnapshot

if TYPE_CHECKING:
    from buzzer.runtime.controller import Controller

#: Drivers that have no windows: always full screen at the display's own mode.
FULLSCREEN_DRIVERS = frozenset({"kmsdrm", "KMSDRM", "fbcon", "directfb"})

#: SDL's hint: whether the window's surface reaches the screen through an
#: OpenGL texture (SDL2's default under X11) or X11's own shared-memory image.
FRAMEBUFFER_ACCELERATION = "SDL_FRAMEBUFFER_ACCELERATION"
#: The drivers told to skip that texture (unless the hint is set already): under
#: X11 it loads the OpenGL stack (Mesa, its llvmpipe and libLLVM: about 115 MB
#: resident at 1920×1080) to show a surface the board paints in software anyway,
#: and without a GPU each ``display.update`` redraws the whole texture (44 ms for
#: two small rectangles, against 0.02 ms; ``bench/board_memory.py``, BENCHMARKS.md).
#: The pixels are the same (the surface's format is too). kmsdrm and Wayland have
#: no other way to show the surface: they keep SDL's default.
SOFTWARE_FRAMEBUFFER_DRIVERS = frozenset({"x11"})


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    """The screen's settings, from the config's ``display`` mapping.

    ``{"lang": "ru", "fullscreen": null, "size": [1280, 720], "fps": 60,
    "font": null, "sound": {"volume": 0.8, "mute": false}}``
    """

    lang: str = "ru"
    #: None: full screen under a driver without windows (kmsdrm), a window elsewhere.
    fullscreen: bool | None = None
    size: tuple[int, int] = (1280, 720)
    fps: int = 60
    #: A TTF file instead of pygame's bundled font.
    font: str | None = None
    sound: SoundConfig = field(default_factory=SoundConfig)

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any] | None) -> DisplayConfig:
        config = dict(config or {})
        known = {"lang", "fullscreen", "size", "fps", "font", "sound"}
        unknown = set(config) - known
        if unknown:
            raise ValueError(f"unknown display settings: {', '.join(sorted(unknown))}")
        lang = config.get("lang", "ru")
        if lang not in LANGUAGES:
            raise ValueError(f"display lang must be one of {', '.join(LANGUAGES)}, got {lang!r}")
        fullscreen = config.get("fullscreen")
        if fullscreen is not None and not isinstance(fullscreen, bool):
            raise ValueError("display fullscreen must be true, false or null")
        size = tuple(config.get("size", (1280, 720)))
        if len(size) != 2 or not all(isinstance(v, int) and 160 <= v <= 8192 for v in size):
            raise ValueError(f"display size must be [width, height] in pixels, got {size!r}")
        fps = config.get("fps", 60)
        if isinstance(fps, bool) or not isinstance(fps, int) or not 1 <= fps <= 240:
            raise ValueError(f"display fps must be 1..240, got {fps!r}")
        font = config.get("font")
        if font is not None and not isinstance(font, str):
            raise ValueError("display font must be a path to a TTF file")
        return cls(
            lang=lang,
            fullscreen=fullscreen,
            size=(int(size[0]), int(size[1])),
            fps=fps,
            font=font,
            sound=SoundConfig.from_mapping(config.get("sound")),
        )


class BoardApp:
    """The board screen: open it, feed it snapshots, run its loop."""

    def __init__(
        self,
        config: DisplayConfig | Mapping[str, Any] | None = None,
        start: StartInfo | None = None,
        clock: Callable[[], int] | None = None,
        sounds: bool = True,
    ) -> None:
        self.config = (
            config if isinstance(config, DisplayConfig) else DisplayConfig.from_mapping(config)
        )
        #: Shown until the first input of the game (and on the S key).
        self.start = start
        self.show_start = start is not None
        #: The game-over screen's report address and seal, asked for at the game's end.
        self.after: Callable[[], AfterGame] | None = None
        #: Game time in ns; the controller's ``now`` when attached.
        self.clock = clock
        self._want_sounds = sounds
        self._lock = threading.Lock()
        self._pending: list[tuple[list[Any], LiveSnapshot, HostOptions | None]] = []
        self._memory = Memory()
        self.snapshot: LiveSnapshot | None = None
        self.facts: Facts = Facts()
        self._snapshot_at = 0  # monotonic ns when the snapshot arrived
        self.question_text: str | None = None
        self.image: pygame.Surface | None = None
        self.final_theme_names: tuple[str, ...] = ()
        #: The package's media for the current snapshot (see :meth:`use_package`).
        self.media: BoardMedia | None = None
        self._shown = Shown()
        self.renderer: Renderer | None = None
        self.sounds: Sounds | None = None
        self.screen: pygame.Surface | None = None
        self.running = False
        #: Called with every pygame event the board does not handle itself
        #: (e.g. the laptop's keyboard as buttons: stamp ``event`` and submit a Press).
        self.on_event: Callable[[pygame.event.Event], None] | None = None

    # -- the controller's side (any thread) ---------------------------------------------

    def publish(
        self,
        decisions: Sequence[Any],
        snapshot: LiveSnapshot,
        options: HostOptions | None = None,
    ) -> None:
        """What was decided, the state after it, and what the host may do in that state
        (``GameCore.host_options``; None: nobody said, and the board shows no final
        turn and no cat's choice rather than guess them from the decisions)."""
        with self._lock:
            self._pending.append((list(decisions), snapshot.copy(), options))

    def attach(self, controller: Controller) -> None:
        """Follow a :class:`buzzer.runtime.controller.Controller`: its clock, its snapshots
        and their host options.

        The options are asked for by the listener, on the thread that published the
        snapshot and before it applies another input, so they are the snapshot's own
        (the controller keeps them per version: the panel's hub asks for the same ones).
        The board's lock is not held meanwhile: nothing waits for it while holding the
        controller's.
        """
        self.clock = controller.now

        def listener(decisions: list[Any], snapshot: LiveSnapshot) -> None:
            self.publish(decisions, snapshot, controller.host_options())

        with controller.lock:  # the current state first, then every change after it
            controller.subscribe(listener)
            self.publish([], controller.snapshot(), controller.host_options())

    def set_question(self, text: str | None, image: pygame.Surface | None = None) -> None:
        """The current question's text and picture, by hand (without :meth:`use_package`)."""
        with self._lock:
            self.question_text = text
            self.image = image

    def use_package(self, texts: PackageTexts, audio: AudioBackend | None = None) -> None:
        """Show the package's side of every snapshot: the question's text and pictures,
        its sound played here, a cat's package theme and price, the final's answer.

        Call it before :meth:`run`, on the main thread. The pictures are decoded
        and the sound started on the main thread too, as snapshots arrive
        (:class:`display.media.BoardMedia`). ``audio`` replaces the player of
        ``pygame.mixer.music`` (tests); a board without sounds or muted plays none.
        """
        if audio is None and self._want_sounds and not self.config.sound.mute:
            audio = MixerMusic()
        if self.media is not None:
            self.media.close()
        self.media = BoardMedia(texts, audio, self.config.sound.volume)
        self.final_theme_names = texts.final_themes
        self._shown = self.media.update(self.snapshot)

    # -- the screen's side (the main thread) ----------------------------------------------

    def open(self) -> pygame.Surface:
        """Start pygame's display (and mixer), full screen or in a window."""
        pygame.display.init()
        pygame.font.init()
        driver = pygame.display.get_driver()
        if driver in SOFTWARE_FRAMEBUFFER_DRIVERS:
            # Read by SDL when the window's surface is made (set_mode, F11), not before.
            os.environ.setdefault(FRAMEBUFFER_ACCELERATION, "0")
        fullscreen = self.config.fullscreen
        if fullscreen is None:
            fullscreen = driver in FULLSCREEN_DRIVERS
        if fullscreen:
            screen = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
            pygame.mouse.set_visible(False)
        else:
            screen = pygame.display.set_mode(self.config.size, pygame.RESIZABLE)
        pygame.display.set_caption("Своя игра")
        self.screen = screen
        self.renderer = Renderer(screen, self.config.lang, self.config.font)
        if self._want_sounds:
            self.sounds = Sounds(self.config.sound)
        return screen

    def now(self) -> int:
        """Game time: the controller's clock, or the last snapshot's ``now`` plus time since."""
        if self.clock is not None:
            return self.clock()
        snapshot = self.snapshot
        base = int(snapshot.get("now") or 0) if snapshot is not None else 0
        return base + (time.monotonic_ns() - self._snapshot_at if self._snapshot_at else 0)

    def scene(self) -> Scene:
        start = self.start if self.show_start else None
        snapshot = self.snapshot
        over = snapshot is not None and snapshot.get("stage") == "over"
        after = self.after() if over and self.after is not None else None
        if self.media is not None:
            shown = self._shown
            return Scene(
                self.snapshot,
                self.facts,
                question_text=shown.text,
                final_theme_names=self.final_theme_names,
                start=start,
                images=shown.images,
                media_notes=shown.notes,
                cat=shown.cat,
                answer_text=shown.answer,
                after=after,
            )
        return Scene(
            self.snapshot,
            self.facts,
            question_text=self.question_text,
            image=self.image,
            final_theme_names=self.final_theme_names,
            start=start,
            after=after,
        )

    def _take_pending(self) -> list[str]:
        with self._lock:
            pending, self._pending = self._pending, []
        cues: list[str] = []
        for decisions, snapshot, options in pending:
            before = self.snapshot
            self.facts = self._memory.feed(decisions).with_options(options)
            cues.extend(cues_for(decisions, before, snapshot))
            self.snapshot = snapshot
            self._snapshot_at = time.monotonic_ns()
            version = snapshot.get("version")
            if version is None:
                begun = bool(decisions)
            elif before is None:
                begun = int(version) > 0  # a resumed game
            else:
                # The first input of the game, but not a button check (A-G-D2): players
                # check their buttons while the host still scans the start screen's code.
                begun = int(version) > 0 and not all(is_check(d) for d in decisions)
            if begun and self.show_start:
                self.show_start = False  # the first input of the game: the start screen goes
        if pending and self.media is not None:
            self._shown = self.media.update(self.snapshot)
        return cues

    def handle(self, event: pygame.event.Event) -> None:
        quit_key = event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE
        if event.type == pygame.QUIT or quit_key:
            self.running = False
        elif event.type == pygame.KEYDOWN and event.key == pygame.K_F11:
            # A driver without windows (kmsdrm) is always full screen: nothing to toggle.
            with contextlib.suppress(pygame.error):
                pygame.display.toggle_fullscreen()
            self._resized()
        elif event.type == pygame.KEYDOWN and event.key == pygame.K_s and self.start is not None:
            self.show_start = not self.show_start
        elif event.type in (pygame.VIDEORESIZE, pygame.WINDOWSIZECHANGED):
            self._resized()
        elif event.type == pygame.WINDOWEXPOSED and self.renderer is not None:
            self.renderer.invalidate()
        elif self.on_event is not None:
            self.on_event(event)

    def _resized(self) -> None:
        surface = pygame.display.get_surface()
        if surface is not None and self.renderer is not None:
            self.screen = surface
            self.renderer.resize(surface)

    def frame(self) -> list[pygame.Rect]:
        """One frame: events, new snapshots, drawing, sounds. The rectangles updated."""
        for event in pygame.event.get():
            self.handle(event)
        cues = self._take_pending()
        renderer = self.renderer
        assert renderer is not None, "open() first"
        dirty = renderer.draw(self.scene(), self.now())
        if dirty:
            pygame.display.update(dirty)
        if self.sounds is not None:
            for cue in cues:
                self.sounds.play(cue)
        return dirty

    def run(self, until: Callable[[], bool] | None = None) -> None:
        """The loop, until the window closes, Escape, or ``until()`` says so."""
        if self.renderer is None:
            self.open()
        clock = pygame.time.Clock()
        self.running = True
        while self.running:
            self.frame()
            if until is not None and until():
                break
            clock.tick(self.config.fps)

    def close(self) -> None:
        if self.media is not None:
            self.media.close()
        if pygame.mixer.get_init():
            pygame.mixer.quit()
        pygame.display.quit()


def video_driver_hint() -> str:
    """What SDL will be asked for: ``SDL_VIDEODRIVER`` or SDL's own choice."""
    return os.environ.get("SDL_VIDEODRIVER", "auto")
