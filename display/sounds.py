"""The five cues, synthesised at start-up and played through ``pygame.mixer``.

No recordings: each cue is a few sine partials under an envelope, computed
into a sample array in the mixer's own format (rate, sample size, channels)
when :class:`Sounds` starts. Which cue a batch of decisions calls for is
:func:`cues_for`'s business; volume and mute come from the config.

- ``press``: a bright two-partial ding, 0.16 s — someone won the button;
- ``false_start``: two low buzzes, 0.5 s;
- ``time_up``: three falling beeps, 0.9 s — the press window ran out;
- ``round_end``: a gong, 1.8 s — a round (or the game) is over;
- ``round_warning``: two rising chimes, 0.6 s — a minute of the round clock
  is left (TV-H-1994-10, the eras that had it).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from buzzer.arbiter.decisions import NoteKind

if TYPE_CHECKING:
    import pygame

    from rules.snapshot import GameSnapshot

PRESS = "press"
FALSE_START = "false_start"
TIME_UP = "time_up"
ROUND_END = "round_end"
ROUND_WARNING = "round_warning"
CUES = (PRESS, FALSE_START, TIME_UP, ROUND_END, ROUND_WARNING)

#: Seconds each cue lasts.
DURATIONS: Mapping[str, float] = {
    PRESS: 0.16,
    FALSE_START: 0.5,
    TIME_UP: 0.9,
    ROUND_END: 1.8,
    ROUND_WARNING: 0.6,
}

PEAK = 0.8  # headroom below full scale


@dataclass(frozen=True, slots=True)
class SoundConfig:
    """``{"volume": 0.0–1.0, "mute": bool, "cues": {"press": 0.0–1.0, …}}``."""

    volume: float = 0.8
    mute: bool = False
    #: Per-cue volume factors (1.0 when not given; 0 silences that cue).
    cues: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_mapping(cls, config: Mapping[str, Any] | None) -> SoundConfig:
        config = dict(config or {})
        unknown = set(config) - {"volume", "mute", "cues"}
        if unknown:
            raise ValueError(f"unknown sound settings: {', '.join(sorted(unknown))}")
        volume = config.get("volume", 0.8)
        if isinstance(volume, bool) or not isinstance(volume, int | float) or not 0 <= volume <= 1:
            raise ValueError(f"sound volume must be a number 0..1, got {volume!r}")
        mute = config.get("mute", False)
        if not isinstance(mute, bool):
            raise ValueError(f"sound mute must be true or false, got {mute!r}")
        cues = dict(config.get("cues") or {})
        for name, value in cues.items():
            if name not in CUES:
                raise ValueError(f"unknown sound cue {name!r}; the cues are: {', '.join(CUES)}")
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise ValueError(f"volume of cue {name} must be 0..1, got {value!r}")
        return cls(float(volume), mute, {k: float(v) for k, v in cues.items()})

    def volume_of(self, cue: str) -> float:
        return 0.0 if self.mute else self.volume * self.cues.get(cue, 1.0)


# -- synthesis ----------------------------------------------------------------------------


def _envelope(t: float, duration: float, attack: float, release: float) -> float:
    """A linear attack and release around a flat top: no clicks at either end."""
    if t < attack:
        return t / attack
    if t > duration - release:
        return max(0.0, (duration - t) / release)
    return 1.0


def _tone(
    rate: int,
    duration: float,
    partials: Iterable[tuple[float, float, float]],
    attack: float = 0.004,
    release: float = 0.02,
) -> list[float]:
    """Sum of (frequency, amplitude, decay time constant) partials under an envelope."""
    partials = list(partials)
    count = round(duration * rate)
    out = [0.0] * count
    two_pi = 2 * math.pi
    for frequency, amplitude, decay in partials:
        step = two_pi * frequency / rate
        fall = math.exp(-1 / (decay * rate)) if decay > 0 else 1.0
        level = amplitude
        for i in range(count):
            out[i] += level * math.sin(step * i)
            level *= fall
    for i in range(count):
        out[i] *= _envelope(i / rate, duration, attack, release)
    return out


def _silence(rate: int, duration: float) -> list[float]:
    return [0.0] * round(duration * rate)


def _normalise(samples: list[float]) -> list[float]:
    peak = max((abs(s) for s in samples), default=0.0)
    if peak == 0:
        return samples
    factor = PEAK / peak
    return [s * factor for s in samples]


def synthesize(cue: str, rate: int) -> list[float]:
    """The cue as mono samples in [-1, 1] at ``rate`` Hz, exactly ``DURATIONS[cue]`` long."""
    if cue == PRESS:
        samples = _tone(rate, 0.16, [(1175.0, 1.0, 0.07), (2350.0, 0.35, 0.04)], release=0.03)
    elif cue == FALSE_START:
        # A square-ish 180 Hz buzz (odd harmonics), twice.
        buzz = [(180.0 * k, 1.0 / k, 0.0) for k in (1, 3, 5, 7)]
        samples = [
            *_tone(rate, 0.2, buzz, attack=0.005, release=0.02),
            *_silence(rate, 0.1),
            *_tone(rate, 0.2, buzz, attack=0.005, release=0.02),
        ]
    elif cue == TIME_UP:
        samples = []
        for frequency in (880.0, 660.0, 440.0):
            samples += _tone(rate, 0.22, [(frequency, 1.0, 0.0), (frequency * 3, 0.15, 0.0)])
            samples += _silence(rate, 0.08)
    elif cue == ROUND_END:
        # A gong: inharmonic partials of 196 Hz decaying at different rates.
        partials = [
            (196.0, 1.0, 0.9),
            (392.0, 0.5, 0.6),
            (541.0, 0.4, 0.45),
            (797.0, 0.25, 0.3),
            (1058.0, 0.15, 0.2),
        ]
        samples = _tone(rate, 1.8, partials, attack=0.003, release=0.3)
    elif cue == ROUND_WARNING:
        samples = []
        for frequency in (660.0, 990.0):
            samples += _tone(rate, 0.25, [(frequency, 1.0, 0.15), (frequency * 2, 0.3, 0.08)])
            samples += _silence(rate, 0.05)
    else:
        raise ValueError(f"unknown cue {cue!r}; the cues are: {', '.join(CUES)}")
    expected = round(DURATIONS[cue] * rate)
    samples = (samples + [0.0] * expected)[:expected]  # the pieces' rounding
    return _normalise(samples)


_FORMATS = {
    # mixer size → (array typecode, scale, offset)
    -8: ("b", 127, 0),
    8: ("B", 127, 128),
    -16: ("h", 32767, 0),
    16: ("H", 32767, 32768),
    -32: ("i", 2147483647, 0),
    32: ("f", 1.0, 0),
}


def pcm(samples: list[float], size: int, channels: int) -> bytes:
    """Samples as the mixer's raw bytes: ``size`` as ``pygame.mixer.get_init()`` gives it
    (-16 signed 16-bit, 32 float, …), interleaved for ``channels``, native byte order."""
    try:
        typecode, scale, offset = _FORMATS[size]
    except KeyError:
        raise ValueError(f"unsupported mixer sample size {size}") from None
    frames: array[Any]
    if typecode == "f":
        frames = array("f", samples)
    else:
        frames = array(typecode, (round(s * scale) + offset for s in samples))
    if channels == 1:
        return frames.tobytes()
    out: array[Any] = array(frames.typecode, bytes(len(frames) * frames.itemsize * channels))
    for c in range(channels):
        out[c::channels] = frames
    return out.tobytes()


# -- which cue ----------------------------------------------------------------------------


def _kind(decision: Any) -> str:
    if isinstance(decision, Mapping):
        return str(decision.get("type", ""))
    return str(decision.TYPE)


def _round_done(snapshot: GameSnapshot | None) -> tuple[int, bool]:
    if not snapshot or snapshot.get("shootout"):
        return (0, False)
    cells = len(snapshot.get("themes") or ()) * len(snapshot.get("prices") or ())
    return int(snapshot.get("round") or 0), cells > 0 and len(snapshot.get("played") or ()) >= cells


def cues_for(
    decisions: Iterable[Any],
    before: GameSnapshot | None,
    after: GameSnapshot | None,
) -> list[str]:
    """The cues one batch of decisions calls for, each at most once, in a fixed order.

    A press that won the button (``recognized`` on a question with buttons),
    a false start, a press window running out, and the end of a round: the
    round clock's gong, the board's last cell played, or the game over.
    """
    kinds = {_kind(d) for d in decisions}
    found: set[str] = set()
    stage = after.get("stage") if after is not None else None
    if "recognized" in kinds and stage == "question":
        found.add(PRESS)
    if "false_start" in kinds:
        found.add(FALSE_START)
    if "window_closed" in kinds:
        found.add(TIME_UP)
    if kinds & {NoteKind.ROUND_TIME_UP, NoteKind.GAME_OVER}:
        found.add(ROUND_END)
    if NoteKind.ROUND_WARNING in kinds:
        found.add(ROUND_WARNING)
    round_before, done_before = _round_done(before)
    round_after, done_after = _round_done(after)
    if done_after and not (done_before and round_before == round_after):
        found.add(ROUND_END)
    return [cue for cue in CUES if cue in found]


# -- playing ------------------------------------------------------------------------------


class Sounds:
    """The cues as ``pygame.mixer.Sound`` objects; silent if there is no audio device."""

    def __init__(self, config: SoundConfig | Mapping[str, Any] | None = None) -> None:
        import pygame

        self.config = (
            config if isinstance(config, SoundConfig) else SoundConfig.from_mapping(config)
        )
        self.sounds: dict[str, pygame.mixer.Sound] = {}
        self.error: str | None = None
        #: Cues started so far (for tests and the log).
        self.played: list[str] = []
        if not pygame.mixer.get_init():
            try:
                # A short buffer: the press cue should follow the lamp within ~10 ms.
                pygame.mixer.init(frequency=44100, size=-16, channels=2, buffer=512)
            except pygame.error as exc:
                self.error = str(exc)
                return
        init = pygame.mixer.get_init()
        if not init:
            self.error = "the mixer did not start"
            return
        rate, size, channels = init
        for cue in CUES:
            data = pcm(synthesize(cue, rate), size, channels)
            sound = pygame.mixer.Sound(buffer=data)
            sound.set_volume(self.config.volume_of(cue))
            self.sounds[cue] = sound

    def play(self, cue: str) -> bool:
        """Play ``cue`` unless muted (or there is no audio); True if it was started."""
        sound = self.sounds.get(cue)
        if sound is None or self.config.volume_of(cue) <= 0:
            return False
        sound.play()
        self.played.append(cue)
        return True

    def set_config(self, config: SoundConfig) -> None:
        self.config = config
        for cue, sound in self.sounds.items():
            sound.set_volume(config.volume_of(cue))
