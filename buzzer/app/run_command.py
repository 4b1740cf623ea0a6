"""``svoyak run``: the composition root of a live game.

It builds the controller (the journal, the core), the runtime that owns
time (``runtime.py``), the hardware sources (GPIO, the Pico), the host's
panel and the board window, and wires them together. This module is
imported by the CLI at start-up: it imports nothing heavy at module level.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
from pathlib import Path
from typing import Any

from buzzer.app import both
from buzzer.terminal import shown
from rules.packages.demo import BUILTIN_DEMO


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = subparsers.add_parser(
        "run",
        help="play a game: the board window, the keyboard as buttons, the host's panel",
        description="Play a game: the board screen in a window (full screen on a Pi with "
        "no desktop), the keyboard as buttons (1–9 players; Enter reading, Space the "
        "signal, Y/N correct/wrong), and the host's tablet panel and viewer page. The "
        "panel's LAN address is printed and shown on the board with a QR code, and "
        "advertised as http://svoyak.local:PORT/ (mDNS); the host's PIN is printed here "
        "only (never on the board: the players see it), and `svoyak pin` prints it again. "
        "--headless: no window, the panel only (with simulated buttons, "
        "POST /api/simulate/press, unless GPIO or a Pico gives real ones).",
    )
    run.add_argument(
        "--headless",
        action="store_true",
        help="no board window: the panel only, with simulated buttons unless --pins or "
        "--serial gives real ones (servers, tests)",
    )
    # No parser defaults for these two: an option given on the command line must
    # beat the --config file even when it equals the default (see _apply_config).
    run.add_argument("--port", type=int, help="TCP port (default 8000; 0: a free one)")
    run.add_argument(
        "--host",
        help="the address to listen on (default 0.0.0.0: every interface, so that a tablet "
        "on the club's Wi-Fi can reach it; 127.0.0.1: this computer only)",
    )
    run.add_argument(
        "--no-mdns",
        action="store_true",
        help="do not advertise the panel as svoyak.local on the LAN (mDNS)",
    )
    run.add_argument("--rules", help="a rules id (see `svoyak rules`; default tv-modern)")
    run.add_argument(
        "--config",
        help="a TOML file: [game] rules, players, package; [panel] port, host, pin; "
        "[hardware] pins, serial; [journal] path (the command line wins)",
    )
    run.add_argument("--players", help="player names, comma-separated (default: Анна,Борис,Вера)")
    run.add_argument(
        "--start-scores",
        metavar="S1,S2,...",
        help="each player's score at the start, comma-separated (a series game whose scores "
        "carry over, SER-CARRY: `svoyak tournament series show` prints them); default 0",
    )
    run.add_argument(
        "--package",
        help=f"the question package (.siq, or the project's .json; {BUILTIN_DEMO}: the "
        f"built-in demo package); default: {BUILTIN_DEMO} with the board window, a small "
        "demo board with --headless",
    )
    run.add_argument(
        "--journal",
        help="the game's SQLite journal; a journal that already holds a game is resumed",
    )
    run.add_argument(
        "--pins",
        default=os.environ.get("SVOYAK_PINS"),
        help="the GPIO pin map (TOML, see hardware/pinmap.example.toml): the buttons and "
        "lamps of a Raspberry Pi (default: $SVOYAK_PINS, else /etc/svoyak/pins.toml if "
        "present, else no GPIO). GPIOZERO_PIN_FACTORY=mock runs it on mock pins.",
    )
    from hardware.factory import GPIOCHIP_HELP, chip_number

    run.add_argument("--gpiochip", type=chip_number, metavar="N", help=GPIOCHIP_HELP)
    run.add_argument(
        "--serial",
        default=os.environ.get("SVOYAK_SERIAL"),
        help="the Raspberry Pi Pico's serial port, as a pyserial URL "
        "(/dev/serial/by-id/usb-…-if00, stabler than /dev/ttyACM0; or the path "
        "`svoyak emulate` prints); default: $SVOYAK_SERIAL, else none. A Pico that "
        "does not answer within 5 s is an error (exit status 2)",
    )
    run.add_argument(
        "--wait-bound-ms",
        type=float,
        default=None,
        metavar="MS",
        help="how long a decision may wait for an input source's watermark (default 100); "
        "a source further behind is a fault, and presses it delivers later are late. Raise "
        "it only for a slow source: the chip model (`svoyak emulate --chip`) runs the "
        "Pico's CPU several times slower than a Pico",
    )
    run.add_argument(
        "--resume",
        action="store_true",
        help="go on with the game in --journal, or with the latest journaled game "
        "(a journal that holds a game is resumed anyway)",
    )
    run.add_argument(
        "--no-journal",
        action="store_true",
        help="keep no journal (a demo that may be lost); by default every game is "
        "journaled under $XDG_DATA_HOME/svoyak/games/",
    )
    run.add_argument(
        "--pin",
        default=os.environ.get("SVOYAK_PIN"),
        help="the host's PIN, 6 digits (default: $SVOYAK_PIN, else [panel] pin of "
        "--config, else a random one). Printed here, never shown on the board",
    )
    run.set_defaults(handler=_cmd_run)

    pin = subparsers.add_parser(
        "pin",
        help="print the running game's host PIN and panel addresses (for the technician)",
        description="Print the host's PIN and the panel's addresses of the `svoyak run` "
        "running as this user (from $XDG_STATE_HOME/svoyak/panel.json, a file only this "
        "user can read). For the appliance's service: "
        "sudo -u svoyak -H svoyak pin (the install links svoyak into /usr/local/bin). "
        "Exit status 2 when no game is running.",
    )
    pin.set_defaults(handler=_cmd_pin)


def _fail(message: str, status: int = 2) -> int:
    for line in message.splitlines():
        print(f"svoyak run: {shown(line)}", file=sys.stderr)
    return status


def _cmd_pin(args: argparse.Namespace) -> int:
    from buzzer.appliance import hostpin

    try:
        data = hostpin.read()
    except FileNotFoundError as exc:
        where = exc.filename or hostpin.panel_file()
        detail = str(where) if exc.filename else str(exc)
        print(both.lines("run.pin.no_game", detail=detail), file=sys.stderr)
        return 2
    except (OSError, ValueError) as exc:
        print(f"svoyak pin: {exc}", file=sys.stderr)
        return 2
    for url in data.get("urls") or ():
        print(f"  {both.slashed('run.host_panel')}:  {url}")
    print(f"PIN: {data['pin']}")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from buzzer.panel.auth import check_pin, new_pin
    from buzzer.panel.demo import DEMO_PLAYERS
    from rules.profiles import RULE_SYSTEMS

    if args.config is not None:
        try:
            _apply_config(args, Path(args.config))
        except (OSError, ValueError) as exc:
            return _fail(f"config {args.config}: {exc}")
    _apply_defaults(args)
    if args.rules is None:
        args.rules = "tv-modern"
    if args.rules not in RULE_SYSTEMS:
        return _fail(f"unknown rules id {args.rules!r}; known: {', '.join(RULE_SYSTEMS)}")
    players = DEMO_PLAYERS
    if args.players is not None:
        players = tuple(p.strip() for p in args.players.split(","))
        if not 1 <= len(players) <= 16 or not all(players):
            return _fail("--players needs 1 to 16 non-empty names, comma-separated")
    if args.start_scores is not None:
        try:
            scores = [int(x) for x in args.start_scores.split(",")]
        except ValueError:
            scores = []
        if len(scores) != len(players) or any(abs(x) > 1_000_000 for x in scores):
            return _fail(
                f"--start-scores needs {len(players)} whole numbers (-1000000..1000000), one "
                f"per player in the order of --players, comma-separated, e.g. "
                f"{','.join(['0'] * len(players))}"
            )
    try:
        pin = check_pin(args.pin) if args.pin else new_pin()
    except ValueError as exc:
        return _fail(str(exc))
    fresh = None  # a journal of the games folder this run is about to create
    if args.journal is None and not args.no_journal:
        # Every game is journaled unless asked otherwise: a crash must never lose one.
        try:
            args.journal = str(_latest_game() if args.resume else _new_game_path())
        except OSError as exc:
            return _fail(str(exc), EXIT_STORAGE)
        if not Path(args.journal).exists():
            fresh = Path(args.journal)
    if not 0 <= args.port <= 65535:
        return _fail("--port must be 0..65535")
    with contextlib.ExitStack() as cleanup:
        if fresh is not None:
            # Runs last: a start that failed (a missing Pico, a taken port) or a game
            # stopped before anything happened leaves no journal that `--resume`
            # would take for the last game night.
            cleanup.callback(_drop_if_unplayed, fresh)
        return _serve(args, players, pin, cleanup, fresh=fresh is not None)


def _drop_if_unplayed(path: Path) -> None:
    """Remove a journal this run created if it holds nothing but its header."""
    if _played(path) is False:
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def _played(path: Path) -> bool | None:
    """Does the journal hold any input after its header? None: it cannot be read as one."""
    import sqlite3

    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT COUNT(*) FROM journal").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return int(row[0]) > 1


def _serve(
    args: argparse.Namespace,
    players: tuple[str, ...],
    pin: str,
    cleanup: contextlib.ExitStack,
    *,
    fresh: bool = False,
) -> int:
    """Build the game, its hardware and its panel, serve until stopped; ``cleanup`` undoes it.

    ``fresh``: the journal is one this run created (removed on the way out if unplayed)."""
    import json
    import socket

    import uvicorn

    from buzzer.app.inputs import PicoUnavailable, attach_bridge
    from buzzer.app.start_signals import StartSignals
    from buzzer.appliance import hostpin
    from buzzer.appliance.addresses import is_loopback, lan_addresses
    from buzzer.journal.codec import JournalError
    from buzzer.journal.store import JournalStore, JournalStoreError
    from buzzer.panel.app import create_app
    from buzzer.panel.connections import LOW_FDS, limits_for, panel_config, raise_fd_limit
    from buzzer.runtime.controller import Controller
    from buzzer.runtime.runtime import Runtime

    store = None
    resumed = False
    try:
        if args.journal:
            # Checked before anything is written: a journal that is read-only, damaged or
            # another program's database is refused; --resume refuses one with no game.
            store = JournalStore(Path(args.journal), resume=args.resume)
            cleanup.callback(store.close)
            if len(store):
                try:
                    controller = Controller.resume(store)
                except JournalError as exc:
                    return _unreplayable(Path(args.journal), exc)
                resumed = True
            else:
                controller = Controller.new(_header(args, players), store)
        else:
            controller = Controller.new(_header(args, players))
    except JournalStoreError as exc:
        return _fail(str(exc), EXIT_STORAGE)
    except (JournalError, ValueError) as exc:
        return _fail(str(exc))

    # Every connection is a file descriptor: the soft limit (often 1,024) goes up to the
    # hard one, and the panel's connection limits fit in what there is.
    fds = raise_fd_limit()[1]
    limits = limits_for(fds)
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say so
    # (without it every response would wait ~40 ms for the client's delayed ACK).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    cleanup.callback(sock.close)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
        sock.listen(limits.backlog)  # connections wait here until uvicorn accepts them
    except OSError as exc:
        return _fail(f"cannot listen on {args.host}:{args.port}: {exc.strerror}")
    port = sock.getsockname()[1]
    hosts = lan_addresses(args.host)
    # mDNS beside the rest of the start-up (its probes take about two seconds).
    advertiser = None
    if not args.no_mdns and not is_loopback(args.host) and ":" not in args.host:
        from buzzer.appliance.mdns import PanelAdvertiser

        lan = [h for h in hosts if not is_loopback(h)]
        advertiser = PanelAdvertiser(port, lan).start()
        cleanup.callback(advertiser.close)

    runtime = Runtime(controller, **_wait_bound(args))
    cleanup.callback(runtime.stop)
    # The simulated buttons only when no real ones are attached: with GPIO or a Pico
    # /api/simulate/* is not served (404), a press comes from a real button only.
    from buzzer.app.game_report import ReportWriter, report_page, report_path

    app = create_app(
        runtime,
        pin,
        simulate=not _real_buttons(args),
        report=lambda lang: report_page(controller, lang),
    )
    writer = None
    if store is not None:
        # The report beside the journal once the game is over (and after a later change).
        writer = ReportWriter(controller, report_path(store.path)).start()
        cleanup.callback(writer.close)
    header = json.loads(next(iter(store.lines()))) if resumed and store else None
    texts = _package_texts(store, args, players)
    app.state.panel.hub.question_lookup = texts.host_view
    from hardware.pinmap import PinMapError

    try:
        gpio = _gpio(args.pins, runtime, app.state.panel, args.gpiochip)
    except PinMapError as exc:
        _fail(f"GPIO: {exc}")
        return EXIT_BAD_CONFIG
    except (OSError, ValueError, RuntimeError) as exc:
        return _fail(f"GPIO: {exc}")
    if gpio is not None:
        cleanup.callback(gpio.close)
    bridge = None
    if args.serial:
        try:
            bridge = attach_bridge(runtime, args.serial, required=True)
        except PicoUnavailable as exc:
            return _fail(str(exc))
        cleanup.callback(bridge.close)
    # connections.panel_config: timeouts and caps on connections, no X-Forwarded-For.
    server = uvicorn.Server(panel_config(app, limits=limits))
    # A Ctrl-C from here on stops the start cleanly instead of raising half-way.
    signals = StartSignals().install(cleanup, server)
    runtime.start()

    urls = [f"http://{host}:{port}/" for host in hosts]
    # A resumed journal whose game is over is served as it ended (run_end.over_lines).
    over = resumed and controller.snapshot().get("stage") == "over"
    started = both.slashed("run.over.started" if over else "run.started")
    print(f"svoyak run: {started}", flush=True)
    # The package's name, the players, the paths: control characters as visible escapes.
    for line in _banner(args, controller, header or _header(args, players), texts, gpio, bridge):
        print(f"  {shown(line)}")
    if over:
        from buzzer.app.run_end import over_lines

        print(f"  {both.slashed('run.journal')}: {shown(args.journal)}")
        for line in over_lines(Path(args.journal), report_path(Path(args.journal))):
            print(f"  {line}")
    elif resumed:
        print(f"  {both.slashed('run.journal_resumed')}: {shown(args.journal)}")
    elif args.journal:
        print(f"  {both.slashed('run.journal')}: {shown(args.journal)}")
    else:
        print(f"  {both.slashed('run.not_journaled')}")
    if hosts == ["127.0.0.1"] and not is_loopback(args.host):
        print(f"  {both.slashed('run.no_network')}")
    if fds is not None and fds < LOW_FDS:
        print(f"  {both.slashed('run.few_fds', fds=fds)}")
    for url in urls:
        print(f"  {both.slashed('run.host_panel')}:  {url}")
        print(f"  {both.slashed('run.viewer')}:   {url}view")
    try:
        hostpin.publish(pin, urls)
        cleanup.callback(hostpin.withdraw)
        where = "svoyak pin"
    except OSError as exc:
        where = f"svoyak pin {both.slashed('run.pin.unavailable')}: {exc}"
    print(f"  {both.slashed('run.pin.here_only', where=where)}")
    print(f"  PIN: {pin}", flush=True)
    if advertiser is not None:
        # The name is told once claimed (its probes take two to three seconds): the
        # panel serves by its address meanwhile, and the start waits for nothing.
        announcer = MdnsAnnouncer(advertiser, pin, urls).start()
        cleanup.callback(announcer.stop)
    status = 0
    try:
        if args.headless:
            if not signals.requested:
                server.run(sockets=[sock])
        else:
            from buzzer.app.board import run_with_board

            signals.hand_over()
            if not signals.requested:
                status = run_with_board(server, sock, runtime, urls[0], texts)
    except KeyboardInterrupt:
        pass  # Ctrl-C: uvicorn has already shut down cleanly
    if status == 0:
        from buzzer.app.run_end import stopped_lines

        if writer is not None:
            writer.close()  # the last report first: the stop's lines name it
        over = controller.snapshot().get("stage") == "over"
        played = store is None or not fresh or len(store) > 1
        report = report_path(store.path) if store is not None else None
        report = report if report is not None and report.is_file() else None
        journal = Path(args.journal) if store is not None else None
        for line in stopped_lines(journal, over=over, played=played, report=report):
            print(line, flush=True)
    return status


#: `svoyak run`'s exit status for a journal that holds a line it cannot replay: the
#: technician must act (deploy/svoyak.service: RestartPreventExitStatus, no restart loop).
#: Not 2, which a missing Pico also gives and for which systemd retries until it is there.
EXIT_UNREPLAYABLE = 65  # EX_DATAERR (sysexits.h)
#: ...and for a pin map that cannot be used (a pin twice, GPIO2/3 with pull = "none",
#: bad TOML): restarting every 2 s would meet the same file; the technician fixes it.
EXIT_BAD_CONFIG = 78  # EX_CONFIG (sysexits.h)
#: ...and for a journal's storage that cannot be used (a full or read-only disk, a
#: damaged file, another program's database: ``JournalStoreError``). Not 2 either:
#: a restart every 2 s would meet the same disk; the technician frees space or
#: fixes the disk, then restarts. (Mid-game a full disk stops nothing: the runtime
#: refuses and counts what it cannot record, and goes on once space is freed.)
EXIT_STORAGE = 74  # EX_IOERR (sysexits.h)


def _unreplayable(path: Path, exc: Any) -> int:
    """The resume met a line it cannot replay: say which, and how to go on; never loop."""
    import shlex

    from buzzer.words import tr

    line, why = exc.line, exc.message
    where = shlex.quote(str(path))
    way = "run.resume.restore_header" if line <= 1 else "run.resume.repair"
    for lang in ("ru", "en"):
        text = tr(
            "run.resume.unreplayable",
            lang,
            path=path,
            line=line,
            why=why,
            way=tr(way, lang, line=line, where=where),
        )
        print(f"svoyak run: {shown(text)}", file=sys.stderr)
    return EXIT_UNREPLAYABLE


def _banner(
    args: argparse.Namespace,
    controller: Any,
    header: dict[str, Any],
    texts: Any,
    gpio: Any,
    bridge: Any,
) -> list[str]:
    """What is really being played: the package, the rules, the players, the buttons."""
    setup = controller.core.setup
    package = header.get("package")
    loaded = texts.package
    if package == BUILTIN_DEMO:
        name = f"«{loaded.name}» " if loaded is not None else ""
        what = f"{name}({both.slashed('run.banner.demo_package')}, {BUILTIN_DEMO})"
    elif isinstance(package, str):
        if loaded is not None:
            what = f"«{loaded.name}» — {package}"
        else:
            what = f"{package} ({both.slashed('run.banner.texts_unreadable')})"
    else:
        what = both.slashed("run.banner.demo_board")
    players = ", ".join(setup.players)
    lines = [
        f"{both.slashed('run.banner.package')}: {what}",
        f"{both.slashed('run.banner.rules')}: {setup.rules.id} — {setup.rules.title}",
    ]
    if loaded is not None and loaded.final is None and setup.rules.final is not None:
        # The rules play a final; without the package's, its themes are numbers and
        # its question is the host's own: said before the game, not found at its end.
        lines.append(f"  {both.slashed('run.banner.no_final')}")
    lines += [
        f"{both.slashed('run.banner.players')}: {players}",
        f"{both.slashed('run.banner.buttons')}:",
    ]
    if not args.headless:
        keys = min(len(setup.players), 9)
        keys_ru = "1" if keys == 1 else f"1–{keys}"
        lines.append(
            f"  {both.slashed('run.banner.keyboard')}: {keys_ru} — "
            f"{both.slashed('run.banner.players')}; Enter, {both.slashed('run.banner.space')}, "
            f"Y/N — {both.slashed('run.banner.host')}"
        )
    if gpio is not None:
        pinmap = gpio.pinmap
        lines.append(
            f"  GPIO: {pinmap.source} — {both.slashed('run.banner.players_buttons')}: "
            f"{len(pinmap.players)}, {both.slashed('run.banner.lamps')}: "
            f"{len(pinmap.podium_lamps) + (pinmap.signal_lamp is not None)}"
        )
    if bridge is not None:
        device = bridge.link.device
        about = ""
        if device is not None:
            board = device.board_id.rstrip(b"\0").decode("ascii", "replace")
            firmware = ".".join(str(v) for v in device.firmware)
            about = (
                f" ({board}, {both.slashed('run.banner.firmware')} {firmware}, "
                f"{both.slashed('run.banner.button_count')}: {device.buttons})"
            )
        lines.append(f"  Pico: {args.serial}{about}")
    if gpio is None and bridge is None:
        lines.append(f"  {both.slashed('run.banner.simulated')}")
    return lines


#: [section] key → the option it sets (when the command line did not).
_CONFIG_KEYS = {
    ("game", "rules"): "rules",
    ("game", "players"): "players",
    ("game", "package"): "package",
    ("panel", "port"): "port",
    ("panel", "host"): "host",
    ("panel", "pin"): "pin",
    ("hardware", "pins"): "pins",
    ("hardware", "serial"): "serial",
    ("journal", "path"): "journal",
}
#: Applied after the config file, to what neither the command line nor the file set.
_DEFAULTS = {"port": 8000, "host": "0.0.0.0"}


def _apply_config(args: argparse.Namespace, path: Path) -> None:
    """Fill the options the command line left unset from the TOML file."""
    import tomllib

    with path.open("rb") as handle:
        data = tomllib.load(handle)
    for section, table in data.items():
        if not isinstance(table, dict):
            raise ValueError(f"[{section}] must be a table")
        for key, value in table.items():
            option = _CONFIG_KEYS.get((section, key))
            if option is None:
                known = ", ".join(f"[{s}] {k}" for s, k in _CONFIG_KEYS)
                raise ValueError(f"unknown key [{section}] {key}; the keys are: {known}")
            if option == "players" and isinstance(value, list):
                value = ",".join(str(v) for v in value)
            if getattr(args, option) is None:  # the command line wins, whatever its value
                setattr(args, option, value if option == "port" else str(value))


def _apply_defaults(args: argparse.Namespace) -> None:
    """The defaults of what neither the command line nor the config file set."""
    for option, value in _DEFAULTS.items():
        if getattr(args, option) is None:
            setattr(args, option, value)


def _package_texts(store: Any, args: argparse.Namespace, players: tuple[str, ...]) -> Any:
    """The questions' texts and answers of the game's package (none for the demo board)."""
    import json

    from display.packages import PackageTexts

    if store is not None and len(store):
        header = next(iter(store.lines()))
        return PackageTexts.from_header(header, store.path.resolve().parent)
    return PackageTexts.from_header(json.dumps(_header(args, players)), None)


def _wait_bound(args: argparse.Namespace) -> dict[str, int]:
    """``Runtime``'s ``wait_bound_ns`` from ``--wait-bound-ms`` (none given: its default)."""
    ms = getattr(args, "wait_bound_ms", None)
    if ms is None:
        return {}
    if ms <= 0:
        print("svoyak run: --wait-bound-ms must be positive", file=sys.stderr)
        raise SystemExit(2)
    return {"wait_bound_ns": round(ms * 1_000_000)}


def _real_buttons(args: argparse.Namespace) -> bool:
    """Whether the game has real buttons: a Pico (--serial) or GPIO (as :func:`_gpio`)."""
    from hardware.factory import SYSTEM_PINMAP

    return bool(args.serial) or args.pins is not None or SYSTEM_PINMAP.is_file()


def _gpio(pins: str | None, runtime: Any, panel: Any, chip: int | None = None) -> Any:
    """The Pi's buttons and lamps, when a pin map is given or installed; else None."""
    from hardware.factory import SYSTEM_PINMAP, open_pin_factory

    if pins is None and not SYSTEM_PINMAP.is_file():
        return None
    from buzzer.app.inputs import attach_gpio
    from hardware.pinmap import load_pinmap

    pinmap = load_pinmap(pins or SYSTEM_PINMAP)
    factory = open_pin_factory(os.environ.get("GPIOZERO_PIN_FACTORY") == "mock", chip)
    return attach_gpio(runtime, pinmap, factory, panel)


def _games_dir() -> Path:
    """``$XDG_DATA_HOME/svoyak/games`` (platformdirs: a relative value is ignored)."""
    import platformdirs

    return platformdirs.user_data_path("svoyak") / "games"


def _new_game_path() -> Path:
    import time

    folder = _games_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(
            f"cannot create the games folder {folder} ({exc.strerror}): make it writable, "
            "set XDG_DATA_HOME to a writable folder, or give --journal PATH"
        ) from None
    return folder / time.strftime("game-%Y%m%d-%H%M%S.sqlite")


def _latest_game() -> Path:
    """The newest journal that holds a game: one with only a header (a start that was
    killed before anything happened) has nothing to resume and is passed over."""
    games = sorted(_games_dir().glob("game-*.sqlite"))
    played = [game for game in games if _played(game) is not False]
    if not played:
        raise FileNotFoundError(f"no journaled game to resume in {_games_dir()}")
    return played[-1]


def _header(args: argparse.Namespace, players: tuple[str, ...]) -> dict[str, object]:
    """The new game's journal header, with the ``--start-scores`` of a series game."""
    header = _board_header(args, players)
    if args.start_scores is not None:  # checked by _cmd_run
        header["start_scores"] = [int(x) for x in args.start_scores.split(",")]
    return header


def _board_header(args: argparse.Namespace, players: tuple[str, ...]) -> dict[str, object]:
    """The new game's journal header: the demo board, or the package asked for."""
    from pathlib import Path

    from buzzer.panel.demo import demo_header

    # settle_ms 0: the live runtime hands the core its inputs in event-time order
    # (proven by the sources' watermarks), so the core need hold nothing back.
    if args.package is None:
        if not args.headless:
            # A new user's first game: the built-in demo package, texts and all.
            return {
                "rules": args.rules,
                "players": list(players),
                "package": BUILTIN_DEMO,
                "settle_ms": 0,
            }
        return {**demo_header(args.rules, players), "settle_ms": 0}
    package = args.package
    if package != BUILTIN_DEMO:
        package = str(Path(package).resolve())
    return {"rules": args.rules, "players": list(players), "package": package, "settle_ms": 0}


class MdnsAnnouncer:
    """Tells the mDNS name once the advertiser has claimed it, off the start's path.

    It prints the name (or why there is none) and adds it to the file
    ``svoyak pin`` reads. ``stop`` (the game stopping) comes before the PIN
    file is withdrawn, and a name claimed after that is not published.
    """

    WAIT_S = 6.0

    def __init__(self, advertiser: Any, pin: str, urls: list[str]) -> None:
        self.advertiser = advertiser
        self.pin = pin
        self.urls = list(urls)
        self._lock = threading.Lock()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="mdns-announce", daemon=True)

    def start(self) -> MdnsAnnouncer:
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._lock:
            self._stopping = True

    def _run(self) -> None:
        from buzzer.appliance import hostpin

        advertiser = self.advertiser
        if advertiser.wait(self.WAIT_S) and advertiser.url is not None:
            with self._lock:
                if self._stopping:
                    return
                with contextlib.suppress(OSError):  # the start said already if it cannot
                    hostpin.publish(self.pin, [*self.urls, advertiser.url])
                print(f"  {both.slashed('run.host_panel')}:  {advertiser.url}  (mDNS)", flush=True)
            return
        why = advertiser.error or both.slashed("run.mdns.no_answer")
        # The reason is said once, in the Russian half (it is itself in both languages).
        ru, en = both.pair("run.mdns.not_advertised")
        ru_use, en_use = both.pair("run.mdns.use_address")
        print(f"  mDNS: {ru} ({why}): {ru_use} / {en}: {en_use}", flush=True)
