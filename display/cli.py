"""``svoyak display …``: the board screen's subcommands (see ``buzzer.cli._COMMAND_MODULES``).

Keep this module light: it is imported every time ``svoyak`` parses its
arguments, so the handlers import pygame and the rest when they run.

- ``svoyak display replay JOURNAL`` — play a journal on the screen in its own time;
- ``svoyak display shot JOURNAL OUT.png`` — one frame of a journal as a PNG
  (``--screen start``: the start screen of its game, with ``--url``'s QR code);
- ``svoyak display sounds`` — play the four cues (a speaker check).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from display.packages import PackageTexts
    from display.replay import JournalPlayer


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must be WIDTHxHEIGHT, got {text!r}") from None
    if not (160 <= width <= 8192 and 120 <= height <= 8192):
        raise argparse.ArgumentTypeError(f"size out of range: {text}")
    return width, height


def add_commands(subparsers: Any) -> None:
    """Register ``svoyak display`` on ``svoyak``'s subparsers."""
    display = subparsers.add_parser(
        "display",
        help="the board screen: replay a journal on it, take screenshots, test the sounds",
        description="The board screen (pygame). SDL_VIDEODRIVER=kmsdrm runs it full screen "
        "on a Raspberry Pi without a desktop; elsewhere it opens a window.",
    )
    actions = display.add_subparsers(dest="display_command", metavar="ACTION")
    actions.required = True

    replay = actions.add_parser("replay", help="play a game journal on the screen in its own time")
    replay.add_argument("journal", help="JSON Lines journal or a game's SQLite journal")
    replay.add_argument("--speed", type=float, default=1.0, help="time factor (2 = twice as fast)")
    _screen_options(replay)
    replay.add_argument(
        "--url", help="show the start screen first, with this panel address and its QR code"
    )
    replay.add_argument("--mute", action="store_true", help="no sounds")
    replay.add_argument("--volume", type=float, default=0.8, help="0..1 (default 0.8)")
    replay.add_argument("--hold", type=float, default=3.0, help="seconds to stay after the end")
    replay.set_defaults(handler=_cmd_replay)

    shot = actions.add_parser("shot", help="one frame of a journal as a PNG image")
    shot.add_argument("journal", help="JSON Lines journal or a game's SQLite journal")
    shot.add_argument("output", help="the PNG file to write")
    shot.add_argument(
        "--line",
        type=int,
        help="after this journal line is applied (line 1 is the header; default: the whole "
        "journal)",
    )
    shot.add_argument("--at", type=float, help="at this game time in seconds instead")
    shot.add_argument("--size", type=_size, default=(1920, 1080), help="WIDTHxHEIGHT")
    shot.add_argument("--lang", choices=("ru", "en"), default="ru")
    shot.add_argument("--font", help="a TTF file instead of the bundled font")
    shot.add_argument(
        "--screen",
        choices=("game", "start"),
        default="game",
        help="game: the journal's moment (default); start: the start screen of its game",
    )
    shot.add_argument("--url", help="the panel address the start screen shows (with its QR)")
    shot.set_defaults(handler=_cmd_shot)

    sounds = actions.add_parser("sounds", help="play the four cues one after another")
    sounds.add_argument("--volume", type=float, default=0.8, help="0..1 (default 0.8)")
    sounds.set_defaults(handler=_cmd_sounds)


def _screen_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", type=_size, default=(1280, 720), help="window size WIDTHxHEIGHT")
    parser.add_argument("--fullscreen", action="store_true", default=None, help="full screen")
    parser.add_argument("--lang", choices=("ru", "en"), default="ru")
    parser.add_argument("--font", help="a TTF file instead of the bundled font")


def _load(path: str) -> tuple[JournalPlayer, PackageTexts] | None:
    """The journal's player and its package's texts, or None after printing the error."""
    import display  # noqa: F401  (quiet pygame)
    from buzzer.journal.codec import JournalError
    from display.packages import PackageTexts
    from display.replay import JournalPlayer, read_journal

    source = Path(path)
    try:
        lines = read_journal(source)
        player = JournalPlayer(lines, source.resolve().parent)
    except OSError as exc:
        print(f"svoyak display: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return None
    except JournalError as exc:
        print(f"svoyak display: {path}: {exc}", file=sys.stderr)
        return None
    except Exception as exc:  # a broken SQLite file, a bad package
        print(f"svoyak display: {path}: {exc}", file=sys.stderr)
        return None
    return player, PackageTexts.from_header(lines[0], source.resolve().parent)


def _cmd_shot(args: argparse.Namespace) -> int:
    loaded = _load(args.journal)
    if loaded is None:
        return 2
    player, texts = loaded
    import pygame

    from display.media import BoardMedia
    from display.renderer import render
    from display.scene import Scene, StartInfo

    if args.screen == "start":
        # Before the first input: the players are known, the game not begun.
        pygame.font.init()
        start = StartInfo(url=args.url, title=player.setup.rules.title)
        scene = Scene(player.snapshot(), start=start)
        return _save(render(scene, args.size, 0, args.lang, args.font), args.output)
    if args.at is not None:
        player.advance(round(args.at * 1e9))
    elif args.line is not None:
        player.through(args.line)
    else:
        player.advance(player.end)
    snapshot = player.snapshot()
    pygame.font.init()
    # The package's side, as the live board shows it; nothing is played in a picture.
    media = BoardMedia(texts)
    shown = media.update(snapshot)
    for error in media.errors:
        print(f"svoyak display shot: {error}", file=sys.stderr)
    scene = Scene(
        snapshot,
        player.facts(),
        question_text=shown.text,
        final_theme_names=texts.final_themes,
        images=shown.images,
        media_notes=shown.notes,
        cat=shown.cat,
        answer_text=shown.answer,
    )
    return _save(render(scene, args.size, player.now, args.lang, args.font), args.output)


def _save(surface: Any, output: str) -> int:
    import pygame

    try:
        pygame.image.save(surface, output)
    except (pygame.error, OSError) as exc:
        print(f"svoyak display shot: cannot write {output}: {exc}", file=sys.stderr)
        return 2
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    loaded = _load(args.journal)
    if loaded is None:
        return 2
    player, texts = loaded
    import time

    from display.app import BoardApp, DisplayConfig
    from display.scene import StartInfo

    if args.speed <= 0:
        print("svoyak display replay: --speed must be positive", file=sys.stderr)
        return 2
    try:
        config = DisplayConfig.from_mapping(
            {
                "lang": args.lang,
                "fullscreen": args.fullscreen,
                "size": list(args.size),
                "font": args.font,
                "sound": {"volume": args.volume, "mute": args.mute},
            }
        )
    except ValueError as exc:
        print(f"svoyak display replay: {exc}", file=sys.stderr)
        return 2
    start = StartInfo(url=args.url, title=player.setup.rules.title) if args.url else None
    started = time.monotonic_ns()
    speed = float(args.speed)

    def game_time() -> int:
        return round((time.monotonic_ns() - started) * speed)

    app = BoardApp(config, start=start, clock=game_time)
    app.open()
    app.use_package(texts)
    app.publish(list(player.core.started), player.snapshot(), player.host_options())
    finished_at: list[int] = []

    def step() -> bool:
        decisions = player.advance(game_time())
        if decisions:
            app.publish(decisions, player.snapshot(), player.host_options())
        if player.done and not finished_at:
            finished_at.append(time.monotonic_ns())
        return bool(finished_at) and time.monotonic_ns() - finished_at[0] > args.hold * 1e9

    try:
        app.run(until=step)
    except KeyboardInterrupt:
        pass
    finally:
        app.close()
    return 0


def _cmd_sounds(args: argparse.Namespace) -> int:
    import time

    import pygame

    import display  # noqa: F401
    from display.sounds import CUES, DURATIONS, Sounds

    try:
        sounds = Sounds({"volume": args.volume})
    except ValueError as exc:
        print(f"svoyak display sounds: {exc}", file=sys.stderr)
        return 2
    if sounds.error is not None:
        print(f"svoyak display sounds: no audio: {sounds.error}", file=sys.stderr)
        return 1
    for cue in CUES:
        print(cue, file=sys.stderr)
        sounds.play(cue)
        time.sleep(DURATIONS[cue] + 0.4)
    pygame.mixer.quit()
    return 0


__all__ = ["add_commands"]
