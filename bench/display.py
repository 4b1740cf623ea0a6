#!/usr/bin/env python3
"""Benchmark of the board screen: milliseconds per frame at 1920×1080 (figures in BENCHMARKS.md).

Run from the repository root::

    .venv/bin/python bench/display.py              # a table
    .venv/bin/python bench/display.py --json       # the same figures as JSON
    .venv/bin/python bench/display.py --frames 300 # a quick look

The busiest screen is the question screen during a race for the button:
a long question fitted to the screen, a running press-window countdown,
four podiums, a false-start lamp blinking, then the answering player's lamp,
the margin of the win and the answer timer. Each scenario draws ``--frames``
frames (after a warm-up) with the real :class:`display.renderer.Renderer`
onto a 1920×1080 display surface (SDL's dummy video driver unless
``SDL_VIDEODRIVER`` says otherwise) and calls ``pygame.display.update`` with
the changed rectangles, as :class:`display.app.BoardApp` does. Every frame
advances the game clock by 1/60 s. Per frame: ``time.perf_counter_ns``
around draw + update; median and p99 reported.

Scenarios:

- ``changed``: the snapshot changes every frame — it alternates between the
  open window (seat 2 locked out by a false start) and seat 1 answering
  (margins, the answer timer), so the status line, the podiums, the bar and
  the digits are repainted each frame;
- ``changed+new text``: as ``changed``, and a score goes up every frame, so
  one podium's score is text never rendered before (a text-cache miss);
- ``unchanged, animating``: the same snapshot every frame while the
  countdown runs and the lamp blinks (what most frames of a question are);
- ``unchanged, static``: the board between questions: nothing to draw;
- ``full redraw, cached``: the whole screen repainted each frame, text from
  the cache (a change of screen);
- ``naive``: the whole screen repainted and every text rendered again each
  frame (caches cleared): the baseline the caching is measured against;
- ``reference``: no drawing, a fixed pure-Python loop of about half a
  millisecond: the machine's own jitter, to read the p99 figures against
  (on a shared virtual machine it is the p99, not the renderer).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame

from display.renderer import Renderer
from display.scene import Scene

NS = 1_000_000_000
FRAME_NS = NS // 60
SIZE = (1920, 1080)

QUESTION = (
    "В 1869 году этот химик, профессор Петербургского университета, разослал коллегам "
    "листок «Опыт системы элементов, основанной на их атомном весе и химическом сходстве», "
    "оставив в нём пустые клетки для ещё не открытых элементов — галлия, скандия и германия, "
    "свойства которых он предсказал. Назовите учёного."
)


def snapshots(now: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The race for the button: the open window, then seat 1 answering."""
    common: dict[str, Any] = {
        "rules": "tv-modern",
        "players": ["Анна", "Борис", "Вера", "Григорий"],
        "stage": "question",
        "round": 2,
        "round_name": "Второй раунд",
        "themes": ["Кино", "Музыка", "Химия", "Литература", "Спорт", "История"],
        "prices": [200, 400, 600, 800, 1000],
        "played": [[1, 200], [3, 600]],
        "cell": [3, 800],
        "special": None,
        "scores": {"1": 1200, "2": -400, "3": 2600, "4": 0},
        "chooser": 3,
        "recognized_at": None,
        "answered": [],
        "bidding": None,
        "value": None,
        "special_deadline": None,
        "final": None,
        "shootout": None,
        "winner": None,
        "over": False,
    }
    window = dict(
        common,
        phase="open",
        answering=None,
        closes_at=now + 3 * NS,
        answer_deadline=None,
        locked_until={"2": now + 2 * NS},
        margins_us={},
    )
    answering = dict(
        common,
        phase="answering",
        answering=1,
        closes_at=None,
        answer_deadline=now + 5 * NS,
        locked_until={"2": now + 2 * NS},
        margins_us={"3": 412, "4": 2950},
    )
    return window, answering


def board(now: int) -> dict[str, Any]:
    window, _ = snapshots(now)
    return dict(window, stage="board", cell=None, phase="closed", closes_at=None, locked_until={})


def run(name: str, frames: int, warmup: int, step: Callable[[int], None]) -> dict[str, Any]:
    times: list[int] = []
    gc.collect()
    gc.disable()
    try:
        for i in range(warmup + frames):
            start = time.perf_counter_ns()
            step(i)
            elapsed = time.perf_counter_ns() - start
            if i >= warmup:
                times.append(elapsed)
    finally:
        gc.enable()
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return {
        "scenario": name,
        "frames": frames,
        "median_ms": statistics.median(times) / 1e6,
        "p99_ms": p99 / 1e6,
        "max_ms": times[-1] / 1e6,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=60)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    pygame.display.init()
    pygame.font.init()
    screen = pygame.display.set_mode(SIZE)
    start_now = 10 * NS
    window, answering = snapshots(start_now)
    results = []

    def fresh() -> Renderer:
        renderer = Renderer(screen)
        renderer.draw(Scene(window, question_text=QUESTION), start_now)  # first full frame
        return renderer

    def frame(renderer: Renderer, scene: Scene, now: int) -> None:
        dirty = renderer.draw(scene, now)
        if dirty:
            pygame.display.update(dirty)

    renderer = fresh()
    scenes = (Scene(window, question_text=QUESTION), Scene(answering, question_text=QUESTION))

    def changed(i: int) -> None:
        frame(renderer, scenes[i % 2], start_now + i * FRAME_NS % NS)

    results.append(run("changed", args.frames, args.warmup, changed))

    renderer = fresh()

    def changed_new_text(i: int) -> None:
        snapshot = dict(scenes[i % 2].snapshot or {})
        snapshot["scores"] = dict(snapshot["scores"], **{"3": 2600 + 100 * i})
        frame(renderer, Scene(snapshot, question_text=QUESTION), start_now + i * FRAME_NS % NS)

    results.append(run("changed+new text", args.frames, args.warmup, changed_new_text))

    renderer = fresh()

    def animating(i: int) -> None:
        # The countdown of a 3 s window, over and over: always running.
        frame(renderer, scenes[0], start_now + (i * FRAME_NS) % (2 * NS))

    results.append(run("unchanged, animating", args.frames, args.warmup, animating))

    renderer = fresh()
    still = Scene(board(start_now))

    def static(i: int) -> None:
        frame(renderer, still, start_now)

    results.append(run("unchanged, static", args.frames, args.warmup, static))

    renderer = fresh()

    def full_cached(i: int) -> None:
        renderer.invalidate()
        frame(renderer, scenes[i % 2], start_now + i * FRAME_NS % NS)

    results.append(run("full redraw, cached", args.frames, args.warmup, full_cached))

    renderer = fresh()

    def naive(i: int) -> None:
        renderer.invalidate()
        renderer.paint.clear_text()
        frame(renderer, scenes[i % 2], start_now + i * FRAME_NS % NS)

    results.append(run("naive", max(200, args.frames // 5), 10, naive))

    def reference(i: int) -> None:
        total = 0
        for k in range(10_000):
            total += k

    results.append(run("reference", args.frames, args.warmup, reference))

    info = {
        "size": f"{SIZE[0]}x{SIZE[1]}",
        "video_driver": pygame.display.get_driver(),
        "python": platform.python_version(),
        "pygame": pygame.version.ver,
        "sdl": ".".join(map(str, pygame.get_sdl_version())),
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
    }
    if args.json:
        print(json.dumps({"info": info, "results": results}, indent=2))
    else:
        print(
            f"board screen at {info['size']}, SDL video driver {info['video_driver']}, "
            f"pygame-ce {info['pygame']} (SDL {info['sdl']}), Python {info['python']}"
        )
        print(f"{'scenario':24} {'frames':>7} {'median ms':>10} {'p99 ms':>8} {'max ms':>8}")
        for r in results:
            print(
                f"{r['scenario']:24} {r['frames']:7d} {r['median_ms']:10.3f} "
                f"{r['p99_ms']:8.3f} {r['max_ms']:8.3f}"
            )
    pygame.display.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
