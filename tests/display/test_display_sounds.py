"""The synthesised cues: length, format, loudness; which decisions call for which cue."""

from __future__ import annotations

import math
from array import array

import pygame
import pytest

from display.sounds import (
    CUES,
    DURATIONS,
    FALSE_START,
    PEAK,
    PRESS,
    ROUND_END,
    ROUND_WARNING,
    TIME_UP,
    SoundConfig,
    Sounds,
    cues_for,
    pcm,
    synthesize,
)
from tests.support.display_support import full_game

RATE = 22050


@pytest.mark.parametrize("cue", CUES)
def test_each_cue_has_its_length_and_no_clicks(cue: str) -> None:
    samples = synthesize(cue, RATE)
    assert len(samples) == round(DURATIONS[cue] * RATE)
    peak = max(abs(s) for s in samples)
    assert peak == pytest.approx(PEAK)
    assert all(-1.0 <= s <= 1.0 for s in samples)
    edge = round(0.002 * RATE)  # the first and last 2 ms fade from and to silence
    assert max(abs(s) for s in samples[:3]) < 0.05
    assert max(abs(s) for s in samples[-edge:]) < 0.1
    energy = math.sqrt(sum(s * s for s in samples) / len(samples))
    assert energy > 0.05  # not silent


def test_cues_differ() -> None:
    a, b = synthesize(PRESS, RATE), synthesize(TIME_UP, RATE)[: len(synthesize(PRESS, RATE))]
    assert a != b
    with pytest.raises(ValueError):
        synthesize("applause", RATE)


@pytest.mark.parametrize(
    ("size", "channels", "code"),
    [
        (-16, 2, "h"),
        (-16, 1, "h"),
        (16, 2, "H"),
        (8, 1, "B"),
        (-8, 2, "b"),
        (32, 2, "f"),
        (-32, 1, "i"),
    ],
)
def test_pcm_formats(size: int, channels: int, code: str) -> None:
    samples = [0.0, 0.5, -0.5, 1.0, -1.0]
    data = pcm(samples, size, channels)
    frames = array(code)
    frames.frombytes(data)
    assert len(frames) == len(samples) * channels
    left = list(frames[::channels])
    if channels == 2:
        assert list(frames[1::2]) == left  # the same on both channels
    if code == "f":
        assert left == pytest.approx(samples)
    else:
        assert left[0] in (0, 128, 32768)  # silence: zero, or the unsigned midpoint
        assert left[1] > left[0] > left[2]
    with pytest.raises(ValueError):
        pcm(samples, 24, 1)


def test_sounds_through_the_mixer() -> None:
    sounds = Sounds({"volume": 0.5, "cues": {TIME_UP: 0.5}})
    assert sounds.error is None, sounds.error
    rate, size, channels = pygame.mixer.get_init()
    for cue in CUES:
        sound = sounds.sounds[cue]
        frames = round(DURATIONS[cue] * rate)
        assert len(sound.get_raw()) == frames * channels * abs(size) // 8
        assert sound.get_length() == pytest.approx(DURATIONS[cue], abs=0.001)
    assert sounds.sounds[PRESS].get_volume() == pytest.approx(0.5, abs=0.01)
    assert sounds.sounds[TIME_UP].get_volume() == pytest.approx(0.25, abs=0.01)
    assert sounds.play(PRESS) and sounds.played == [PRESS]
    sounds.set_config(SoundConfig.from_mapping({"mute": True}))
    assert not sounds.play(PRESS) and sounds.played == [PRESS]
    assert sounds.sounds[PRESS].get_volume() == 0
    pygame.mixer.quit()


def test_config_is_checked() -> None:
    assert SoundConfig.from_mapping(None) == SoundConfig()
    assert SoundConfig.from_mapping({"mute": True}).volume_of(PRESS) == 0
    assert SoundConfig.from_mapping({"cues": {PRESS: 0}}).volume_of(PRESS) == 0
    for bad in ({"volume": 2}, {"volume": True}, {"mute": "yes"}, {"cues": {"x": 1}}, {"loud": 1}):
        with pytest.raises(ValueError):
            SoundConfig.from_mapping(bad)


def test_which_decisions_call_for_which_cue() -> None:
    question = {"stage": "question", "round": 1, "themes": ["a"], "prices": [10, 20], "played": []}
    special = dict(question, stage="special")
    assert cues_for([{"type": "recognized", "seat": 1}], question, question) == [PRESS]
    # A designated answerer (stake, cat, sponsor) pressed nothing.
    assert cues_for([{"type": "recognized", "seat": 1}], question, special) == []
    assert cues_for([{"type": "false_start", "seat": 2}], question, question) == [FALSE_START]
    assert cues_for([{"type": "window_closed"}], question, question) == [TIME_UP]
    done = dict(question, stage="board", played=[[1, 10], [1, 20]])
    half = dict(question, stage="board", played=[[1, 10]])
    assert cues_for([{"type": "score"}], half, done) == [ROUND_END]
    assert cues_for([], done, done) == []  # once per round
    assert cues_for([{"type": "round_time_up"}], half, done) == [ROUND_END]
    assert cues_for([{"type": "round_warning", "round": 1}], half, half) == [ROUND_WARNING]
    assert cues_for([{"type": "game_over", "winner": 1}], done, dict(done, stage="over")) == [
        ROUND_END
    ]


def test_a_whole_game_calls_for_every_cue() -> None:
    game = full_game("tv-modern")
    heard: list[str] = []
    before = None
    for frame in game.frames:
        heard += cues_for(frame.decisions, before, frame.snapshot)
        before = frame.snapshot
    # tv-modern has no round clock, so no warning (TV-H-2001-09 removed it)
    assert set(heard) == set(CUES) - {ROUND_WARNING}
    assert heard.count(ROUND_END) >= 2  # the board's end, and the game's
