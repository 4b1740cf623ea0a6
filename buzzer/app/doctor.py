"""``svoyak doctor``: the technician's one command before a game.

Each check is a small function that takes what it needs, finds one thing out
and returns a :class:`Verdict`: ``pass``, ``fail``, ``warn`` or ``skip``
(with the reason it could not or need not run), what it found and, when
something is wrong, what to do, in Russian and English. Everything a check
touches outside the process comes through :class:`Host` — the pin factory,
the serial ports, a command runner for ``vcgencmd`` and ``systemctl``, the
``/proc`` root, ``fsync`` and the clock — so the tests run every check on
mock pins, a fake Pico on a pty, fake command output and a clock that a
stalling disk moves, never on the test machine's own groups and disks.

The checks, in the order they are printed (docs/run.md, *svoyak doctor*):

=============  ==============================================================
``config``     the config file the service reads (``/etc/svoyak/svoyak.toml``)
``groups``     the process's groups against what the set-up needs (gpio, dialout)
``pinmap``     the GPIO pin map loads and is valid (:mod:`hardware.pinmap`)
``gpiochip``   the chip svoyak opens is the 40-pin header's (by its label)
``buttons``    every GPIO button up: none held, stuck or shorted
``lamps``      every GPIO lamp dark while undriven, and driven off
``pico``       the Pico's port, by its stable ``/dev/serial/by-id`` name
``firmware``   the Pico runs this release's firmware (its HELLO's identity)
``pico_buttons`` no Pico button held at its power-up (the HELLO) nor down now
``pico_lamps`` the Pico's lamps switched off, acknowledged
``clock``      the Pi↔Pico clock fit after a few seconds of pings
``realtime``   the service's threads run at the unit's real-time priority
``fsync``      the journal's disk: write+fsync latency, median and p99
``disk``       free space on the journal's disk
``power``      under-voltage or throttling now or since boot (``vcgencmd``)
``lan``        the panel's LAN address, for the host's tablet
=============  ==============================================================

Exit status (:func:`exit_status`): 0 when no check failed — a warning is
something to know, and a skip says why a check did not apply; 1 when one
did; 2 when the command could not run at all (a bad option).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from buzzer.words import tr

PASS = "pass"
WARN = "warn"
FAIL = "fail"
SKIP = "skip"
STATUSES = (PASS, WARN, FAIL, SKIP)
LANGUAGES = ("ru", "en")


@dataclass(frozen=True)
class Words:
    """One text in both languages."""

    ru: str
    en: str

    def __call__(self, lang: str) -> str:
        return self.en if lang == "en" else self.ru

    def __add__(self, other: Words) -> Words:
        return Words(self.ru + other.ru, self.en + other.en)

    @classmethod
    def of(cls, key: str, /, **fields: object) -> Words:
        """A catalogue text (``doctor.*`` in :mod:`buzzer.words`) in both languages,
        its fields filled: a verdict is found once and printed in the language
        asked for later (``--lang``, ``--json``), so it carries both. A field that
        is itself :class:`Words` is filled in each language with its own text."""

        def fill(lang: str) -> str:
            values = {k: v(lang) if isinstance(v, Words) else v for k, v in fields.items()}
            return tr(key, lang, **values)

        return cls(fill("ru"), fill("en"))


@dataclass(frozen=True)
class Verdict:
    """What one check found: its ``status``, in words, and what to do (``fix``)."""

    check: str
    status: str
    found: Words
    fix: Words | None = None
    #: The measured values, for ``--json`` (numbers, names, paths).
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")
        if self.check not in TITLES:
            raise ValueError(f"unknown check {self.check!r}")


#: Each check's name as the technician reads it, in the order they run.
TITLES: Mapping[str, Words] = {
    "config": Words.of("doctor.title.config"),
    "groups": Words.of("doctor.title.groups"),
    "pinmap": Words.of("doctor.title.pinmap"),
    "gpiochip": Words.of("doctor.title.gpiochip"),
    "buttons": Words.of("doctor.title.buttons"),
    "lamps": Words.of("doctor.title.lamps"),
    "pico": Words.of("doctor.title.pico"),
    "firmware": Words.of("doctor.title.firmware"),
    "pico_buttons": Words.of("doctor.title.pico_buttons"),
    "pico_lamps": Words.of("doctor.title.pico_lamps"),
    "clock": Words.of("doctor.title.clock"),
    "realtime": Words.of("doctor.title.realtime"),
    "fsync": Words.of("doctor.title.fsync"),
    "disk": Words.of("doctor.title.disk"),
    "power": Words.of("doctor.title.power"),
    "lan": Words.of("doctor.title.lan"),
}


def skipped(check: str, why: Words, **data: Any) -> Verdict:
    return Verdict(check, SKIP, why, None, data)


# -- what a check may touch ------------------------------------------------------


@dataclass(frozen=True)
class Ran:
    """A command's exit status and output (:attr:`Host.run`)."""

    returncode: int
    stdout: str
    stderr: str = ""


@dataclass(frozen=True)
class GpioChip:
    """One ``/dev/gpiochipN`` as the kernel names it (``label`` None: unreadable, ``error``)."""

    number: int
    path: str
    #: The device it is (a symlink such as gpiochip4 → gpiochip0 on some Pi 5 images).
    real: str
    name: str | None = None
    label: str | None = None
    lines: int | None = None
    error: str | None = None


@dataclass
class Host:
    """Everything outside the process the checks use; :func:`system_host` is the real one."""

    #: The names of the groups this process has (its gid and supplementary groups).
    groups: Callable[[], frozenset[str]]
    #: The names of the groups the group database lists this user in (a group
    #: added after this login is there, not in :attr:`groups`).
    listed_groups: Callable[[], frozenset[str]]
    user: str
    is_root: bool
    #: Every /dev/gpiochip* with its label.
    gpiochips: Callable[[], list[GpioChip]]
    #: ``(simulate, chip)`` → a gpiozero pin factory (``hardware.factory.open_pin_factory``).
    open_factory: Callable[[bool, int | None], Any]
    #: Where a Pico shows up (``firmware_bridge.pico_devices.Places``).
    places: Any
    #: Opens a serial port (``firmware_bridge.serial_port.open_port``, as the game does).
    serial_factory: Callable[..., Any]
    #: Runs a command; None when it is not installed here.
    run: Callable[[Sequence[str]], Ran | None]
    #: The root of /proc (the service's threads, the board's model).
    proc: Path
    fsync: Callable[[int], None]
    #: Monotonic ns.
    clock: Callable[[], int]
    sleep: Callable[[float], None]
    #: ``shutil.disk_usage``: (total, used, free) in bytes.
    disk_usage: Callable[[str], Any]
    #: The panel's LAN addresses, the best first (``buzzer.appliance.addresses``).
    lan_addresses: Callable[[], list[str]]
    #: The config file the service reads, and the pin map it falls back to.
    config_file: Path
    system_pinmap: Path
    #: Where ``svoyak run`` journals a game when nothing says otherwise.
    games_dir: Callable[[], Path]
    env: Mapping[str, str]


def system_host() -> Host:
    """The real machine."""
    import shutil

    from buzzer.app import doctor_system as system
    from buzzer.app.run_command import _games_dir
    from buzzer.appliance.addresses import lan_addresses
    from firmware_bridge.pico_devices import Places
    from firmware_bridge.serial_port import open_port
    from hardware.factory import SYSTEM_PINMAP, open_pin_factory

    return Host(
        groups=system.process_groups,
        listed_groups=system.listed_groups,
        user=system.user_name(),
        is_root=os.geteuid() == 0,
        gpiochips=system.list_gpiochips,
        open_factory=open_pin_factory,
        places=Places(),
        serial_factory=open_port,
        run=system.run_command,
        proc=Path("/proc"),
        fsync=os.fsync,
        clock=time.monotonic_ns,
        sleep=time.sleep,
        disk_usage=shutil.disk_usage,
        lan_addresses=lambda: lan_addresses("0.0.0.0"),
        config_file=Path("/etc/svoyak/svoyak.toml"),
        system_pinmap=SYSTEM_PINMAP,
        games_dir=_games_dir,
        env=os.environ,
    )


# -- what the doctor is asked ----------------------------------------------------


@dataclass(frozen=True)
class DoctorOptions:
    """The technician's options (``svoyak doctor --help``)."""

    pins: str | None = None
    serial: str | None = None
    config: str | None = None
    journal: str | None = None
    gpiochip: int | None = None
    simulate: bool = False
    #: How long the Pico may take to answer, and how long its clock is listened to.
    pico_timeout_s: float = 5.0
    clock_s: float = 3.0
    #: How many write+fsync rounds measure the journal's disk.
    fsync_count: int = 50


@dataclass(frozen=True)
class Setup:
    """What the box is set up to use, and where each came from (``where``: a phrase)."""

    pins: str | None
    pins_from: str
    serial: str | None
    serial_from: str
    #: The folder the game's journal is (or will be) in.
    journal_dir: Path
    journal_from: str
    panel_port: int
    simulate: bool
    #: The config file exists but this user cannot read it: what it names is unknown.
    config_unknown: bool
    gpiochip: int | None
    #: The svoyak service: ``None`` when there is no systemd here.
    service: Any


def run_doctor(
    options: DoctorOptions, host: Host, report: Callable[[Verdict], None] | None = None
) -> list[Verdict]:
    """Every check in order; ``report`` hears each verdict as soon as it is known."""
    from buzzer.app import doctor_gpio, doctor_pico, doctor_system

    verdicts: list[Verdict] = []

    def out(found: Iterable[Verdict]) -> None:
        for verdict in found:
            verdicts.append(verdict)
            if report is not None:
                report(verdict)

    service = doctor_system.query_service(host)
    config_verdict, config = doctor_system.read_config(options, host, service)
    setup = doctor_system.resolve(options, host, service, config)
    out([config_verdict])
    pico = doctor_pico.find_port(setup, host)
    out([doctor_system.check_groups(setup, host, pico.port)])
    out(doctor_gpio.check_gpio(setup, host, pico))
    out(doctor_pico.check_pico(setup, host, pico, options))
    out([doctor_system.check_realtime(setup, host)])
    out(doctor_system.check_journal_disk(setup, host, options.fsync_count))
    out([doctor_system.check_power(host)])
    out([doctor_system.check_lan(setup, host)])
    return verdicts


def exit_status(verdicts: Sequence[Verdict]) -> int:
    """0 when no check failed (warnings and skips do not fail), else 1."""
    return 1 if any(v.status == FAIL for v in verdicts) else 0


# -- output ------------------------------------------------------------------------

_TAGS: Mapping[str, Words] = {
    PASS: Words.of("doctor.status.pass"),
    WARN: Words.of("doctor.status.warn"),
    FAIL: Words.of("doctor.status.fail"),
    SKIP: Words.of("doctor.status.skip"),
}
_TAG_WIDTH = {lang: max(len(tag(lang)) for tag in _TAGS.values()) + 2 for lang in LANGUAGES}
_TITLE_WIDTH = {lang: max(len(title(lang)) for title in TITLES.values()) for lang in LANGUAGES}


def heading(lang: str) -> str:
    return tr("doctor.heading", lang)


def verdict_lines(verdict: Verdict, lang: str) -> list[str]:
    """One verdict as the technician reads it: a line, and what to do under it."""
    tag = f"[{_TAGS[verdict.status](lang)}]".ljust(_TAG_WIDTH[lang])
    title = TITLES[verdict.check](lang).ljust(_TITLE_WIDTH[lang])
    lines = [f"{tag} {title}  {verdict.found(lang)}"]
    if verdict.fix is not None:
        indent = " " * (_TAG_WIDTH[lang] + 1 + _TITLE_WIDTH[lang] + 2)
        todo = tr("doctor.todo", lang)
        lines.append(f"{indent}{todo}{verdict.fix(lang)}")
    return lines


def summary(verdicts: Sequence[Verdict], lang: str) -> str:
    """The last line: ready or not, and what the counts were."""
    count = {status: sum(1 for v in verdicts if v.status == status) for status in STATUSES}
    failed = [TITLES[v.check](lang) for v in verdicts if v.status == FAIL]
    notes = tr("doctor.notes", lang, warned=count[WARN], skipped=count[SKIP])
    if failed:
        return tr(
            "doctor.not_ready", lang, failed=count[FAIL], checks=", ".join(failed), notes=notes
        )
    return tr("doctor.ready", lang, notes=notes)


def render_json(verdicts: Sequence[Verdict], lang: str) -> str:
    """The machine-readable list: one object per check, in order."""
    rows = [
        {
            "check": v.check,
            "title": TITLES[v.check](lang),
            "status": v.status,
            "found": v.found(lang),
            "fix": None if v.fix is None else v.fix(lang),
            "data": dict(v.data),
        }
        for v in verdicts
    ]
    return json.dumps(rows, ensure_ascii=False, indent=2)


__all__ = [
    "FAIL",
    "PASS",
    "SKIP",
    "TITLES",
    "WARN",
    "DoctorOptions",
    "GpioChip",
    "Host",
    "Ran",
    "Setup",
    "Verdict",
    "Words",
    "exit_status",
    "render_json",
    "run_doctor",
    "summary",
    "system_host",
    "verdict_lines",
]
