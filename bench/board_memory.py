"""Benchmark of the board window's memory: ``svoyak run`` with its window under X.

A script, not a test: ``python bench/board_memory.py [--repeat N] [--json] [--stages]``.

It starts its own X server (Debian's ``Xvfb :N -screen 0 1920x1080x24``),
then the real ``svoyak run`` (the board window, the demo package, the panel on
loopback, a throwaway ``XDG_DATA_HOME``), and reads the process's VmRSS
(``/proc/PID/status``):

- *ready*: the panel's first ``GET /api/state`` answered (the start screen is up);
- *first question*: the host logs in, selects the next cell, ends the reading,
  a simulated press, «Верно», back to the board;
- *after N questions*: the same for the next questions of the first round.

The same runs again with ``SDL_VIDEODRIVER=dummy`` (no X) for comparison.

``--stages`` measures, in one process of its own under the same X server,
where the memory goes: RSS after each step of the board's start-up
(``import pygame``, the display, the window, the fonts, the first frames of
each screen), with tracemalloc's count of the Python side.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

PIN = "123487"
SIZE = (1920, 1080)
FIGURES = ("ready", "first_question", "questions")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextlib.contextmanager
def x_server() -> Iterator[str]:
    """A fresh Xvfb at 1920×1080×24: its DISPLAY."""
    if shutil.which("Xvfb") is None:
        raise SystemExit("Xvfb not found: apt-get install -y xvfb")
    for number in range(90, 140):
        if (
            not Path(f"/tmp/.X11-unix/X{number}").exists()
            and not Path(f"/tmp/.X{number}-lock").exists()
        ):
            break
    else:
        raise SystemExit("no free X display number")
    display = f":{number}"
    proc = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", f"{SIZE[0]}x{SIZE[1]}x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while not Path(f"/tmp/.X11-unix/X{number}").exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"Xvfb {display} did not start")
            time.sleep(0.02)
        yield display
    finally:
        proc.terminate()
        proc.wait(timeout=10)


#: The tree whose ``svoyak`` is measured (``--root``: another checkout, e.g. the one before).
ROOT = Path(__file__).resolve().parent.parent


def in_root(env: dict[str, str], root: Path) -> dict[str, str]:
    return {**env, "PYTHONPATH": str(root)}


def spawn_board(env: dict[str, str], root: Path) -> tuple[subprocess.Popen[str], str]:
    """``svoyak run`` with its board window; the process and its panel URL."""
    command = [
        sys.executable,
        "-m",
        "buzzer.cli",
        "run",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--no-mdns",
        "--pin",
        PIN,
    ]
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=in_root(env, root),
        cwd=root,
    )
    assert proc.stdout is not None
    url = None
    seen: list[str] = []
    for line in proc.stdout:
        seen.append(line)
        found = re.search(r"http://\d+\.\d+\.\d+\.\d+:\d+", line)
        url = url or (found.group(0) if found else None)
        if line.strip().startswith("PIN:"):
            break
    if url is None:
        proc.kill()
        raise RuntimeError("svoyak run did not print its panel's URL:\n" + "".join(seen))
    # Keep reading its output so that it never blocks on a full pipe.
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    return proc, url


def command(client: httpx.Client, kind: str, **fields: object) -> None:
    answer = client.post(
        "/api/command", json={"id": uuid.uuid4().hex, "command": {"type": kind, **fields}}
    )
    if answer.status_code != 200:
        raise RuntimeError(f"{kind}: {answer.status_code} {answer.text[:300]}")


def stage(client: httpx.Client) -> str:
    return str(client.get("/api/state").json()["snapshot"].get("stage"))


#: The demo package's first round without its cat (Наука 300) and sponsor (Кино 400)
#: questions, in the board's reading order: (theme, price).
CELLS = [
    (theme, price)
    for price in (100, 200, 300, 400, 500)
    for theme in (1, 2, 3, 4)
    if (theme, price) not in ((3, 300), (4, 400))
]


def one_question(client: httpx.Client, cell: tuple[int, int], seat: int) -> None:
    """Select ``cell``, the signal, a press, «Верно»: back on the board."""
    command(client, "select", theme=cell[0], price=cell[1])
    command(client, "reading_end")
    client.post("/api/simulate/press", json={"seat": seat}).raise_for_status()
    time.sleep(0.05)  # the press is decided on the runtime's thread
    command(client, "judge", verdict="correct")


def settle(pid: int) -> float:
    """RSS once the board has drawn what it was sent (a few frames at 60 fps)."""
    time.sleep(0.5)
    return rss_mb(pid)


def one_run(env: dict[str, str], questions: int, root: Path) -> dict[str, float]:
    env = {**env, "XDG_DATA_HOME": tempfile.mkdtemp(prefix="svoyak-bench-")}
    proc, url = spawn_board(env, root)
    try:
        client = httpx.Client(base_url=url, timeout=10)
        while True:
            try:
                if client.get("/api/state").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.01)
        out = {"ready": settle(proc.pid)}
        client.post("/api/login", json={"pin": PIN}).raise_for_status()
        one_question(client, CELLS[0], 1)
        out["first_question"] = settle(proc.pid)
        for i in range(1, questions):
            one_question(client, CELLS[i], 1 + i % 3)
        if stage(client) != "board":
            raise RuntimeError("the game did not come back to the board")
        out["questions"] = settle(proc.pid)
        return out
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def medians(runs: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    return {
        k: {
            "median": round(statistics.median(r[k] for r in runs), 1),
            "min": round(min(r[k] for r in runs), 1),
            "max": round(max(r[k] for r in runs), 1),
        }
        for k in FIGURES
    }


# -- stage by stage, in one process -----------------------------------------------------------

STAGES_CODE = r"""
import json, os, sys, time, tracemalloc
def rss():
    for line in open(f"/proc/{os.getpid()}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
tracemalloc.start()
out = []
def mark(name):
    out.append((name, round(rss(), 1), round(tracemalloc.get_traced_memory()[0] / 2**20, 1)))
mark("python")
import pygame
mark("import pygame")
from display.app import BoardApp
from display.scene import StartInfo
from display.packages import PackageTexts
mark("import display (+rules)")
pygame.display.init()
mark("pygame.display.init()")
info = {"driver": pygame.display.get_driver()}
import display.app as app  # what BoardApp.open() does between init and set_mode
if info["driver"] in getattr(app, "SOFTWARE_FRAMEBUFFER_DRIVERS", ()):
    os.environ.setdefault(app.FRAMEBUFFER_ACCELERATION, "0")
mode = os.environ.get("BENCH_MODE", "window")
if mode == "fullscreen":
    screen = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
else:
    screen = pygame.display.set_mode((1920, 1080), pygame.RESIZABLE)
mark(f"set_mode 1920x1080 {mode}")
pygame.font.init()
mark("pygame.font.init()")
board = BoardApp(start=StartInfo(url="http://192.168.1.20:8000/", title="Своя игра"))
board.screen = screen
from display.renderer import Renderer
board.renderer = Renderer(screen, board.config.lang, board.config.font)
mark("Renderer")
from display.sounds import Sounds
board.sounds = Sounds(board.config.sound)
mark("Sounds (mixer + 5 cues)")
board.frame(); pygame.display.flip()
mark("first frame (start screen)")
from display.scene import Scene
# Every question of the demo package on the question screen, then the board:
# what a whole game leaves in the caches (rendered text, fonts, fittings).
package = json.load(open("rules/packages/demo/demo.json"))
texts = [q["text"] for r in package["rounds"] for t in r["themes"] for q in t["questions"]]
snapshot = {
    "rules": "tv-modern", "players": ["Анна", "Борис", "Вера"], "stage": "question",
    "round": 1, "round_name": "Первый раунд", "themes": ["География", "Кино"],
    "prices": [100, 200], "played": [], "cell": [1, 200], "special": None,
    "scores": {"1": 0, "2": 300, "3": -100}, "chooser": 2, "phase": "reading",
    "answering": None, "closes_at": None, "answer_deadline": None, "locked_until": {},
    "answered": [], "margins_us": {}, "bidding": None, "value": None,
    "special_deadline": None, "final": None, "shootout": None, "winner": None,
    "over": False, "now": 0,
}
renderer = board.renderer
for i, text in enumerate(texts):
    renderer.draw(Scene(dict(snapshot), question_text=text), 0)
    renderer.draw(Scene({**snapshot, "stage": "board"}), 0)
    pygame.display.flip()
    if i == 0:
        mark("first question drawn")
paint = renderer.paint
mark(f"{len(texts)} questions drawn")
info["text_cache"] = {"entries": len(paint.text._surfaces), "mb": round(
    sum(s.get_pitch() * s.get_height() for s in paint.text._surfaces.values()) / 2**20, 1)}
info["fonts"] = len(paint.fonts._fonts)
info["fits"] = len(paint._fits)
sys.stdout.write(json.dumps({"stages": out, "info": info}) + "\n")
"""


def stages(display: str | None, mode: str, root: Path) -> dict[str, Any]:
    env = in_root({**os.environ, "BENCH_MODE": mode}, root)
    if display is None:
        env["SDL_VIDEODRIVER"] = "dummy"
    else:
        env["DISPLAY"] = display
        env.pop("SDL_VIDEODRIVER", None)
    done = subprocess.run(
        [sys.executable, "-c", STAGES_CODE],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--questions", type=int, default=16, help=f"at most {len(CELLS)} (the first round)"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--stages", action="store_true", help="where the memory goes")
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the svoyak tree to measure (default: this one)"
    )
    args = parser.parse_args()
    if not 1 <= args.questions <= len(CELLS):
        parser.error(f"--questions must be 1..{len(CELLS)}")
    root = args.root.resolve()
    base = {k: v for k, v in os.environ.items() if k not in ("SDL_VIDEODRIVER", "DISPLAY")}
    result: dict[str, Any] = {"repeat": args.repeat, "questions": args.questions}
    result["root"] = str(root)
    with x_server() as display:
        if args.stages:
            result["stages"] = {
                "x11 window": stages(display, "window", root),
                "x11 fullscreen": stages(display, "fullscreen", root),
                "dummy": stages(None, "window", root),
            }
        else:
            x11 = [
                one_run({**base, "DISPLAY": display}, args.questions, root)
                for _ in range(args.repeat)
            ]
            dummy = [
                one_run({**base, "SDL_VIDEODRIVER": "dummy"}, args.questions, root)
                for _ in range(args.repeat)
            ]
            result["x11"] = medians(x11)
            result["dummy"] = medians(dummy)
            result["runs"] = {"x11": x11, "dummy": dummy}
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    if args.stages:
        for name, found in result["stages"].items():
            info = found["info"]
            print(
                f"{name} (driver {info['driver']}; at the end: {info['text_cache']['entries']} "
                f"text surfaces, {info['text_cache']['mb']} MB; {info['fonts']} font sizes open; "
                f"{info['fits']} fitted texts):"
            )
            for label, rss, traced in found["stages"]:
                print(f"  {label:<34} {rss:7.1f} MB RSS  {traced:6.1f} MB Python")
        return
    print("| figure (VmRSS, median of the runs, min–max) | X11 (a 1920×1080 screen) | SDL dummy |")
    print("|---|---:|---:|")
    labels = {
        "ready": "ready",
        "first_question": "after the first question",
        "questions": f"after {args.questions} questions",
    }
    for key in FIGURES:
        x = result["x11"][key]
        d = result["dummy"][key]
        print(
            f"| {labels[key]} | {x['median']:.1f} MB ({x['min']:.1f}–{x['max']:.1f}) "
            f"| {d['median']:.1f} MB ({d['min']:.1f}–{d['max']:.1f}) |"
        )


if __name__ == "__main__":
    main()
