"""A machine for ``svoyak doctor``'s tests: every probe of :class:`buzzer.app.doctor.Host` faked.

Nothing here reads the test machine's own groups, disks, GPIO chips, systemd
or power: a Pi 5 with its header's chip, the service's threads in a fake
``/proc``, ``vcgencmd`` and ``systemctl`` answering what the test says, a
clock that only an ``fsync`` moves, and gpiozero's mock pins. A test changes
what it is about (``FakeMachine`` fields) and calls :meth:`FakeMachine.host`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import serial  # type: ignore[import-untyped]

from buzzer.app.doctor import GpioChip, Host, Ran
from firmware_bridge.pico_devices import Places
from hardware.mockpins import mock_factory

#: The threads of a running svoyak (names as /proc/PID/task/TID/comm shows them).
SERVICE_THREADS = ("svoyak", "svoyak-buttons", "bridge-reader", "bridge-keeper", "runtime")
SERVICE_PID = 4242
PI5_CHIP = GpioChip(0, "/dev/gpiochip0", "/dev/gpiochip0", "gpiochip0", "pinctrl-rp1", 54)


def stat_line(tid: int, name: str, policy: int, priority: int) -> str:
    """A /proc/PID/task/TID/stat line (proc(5)): field 40 rt_priority, field 41 policy."""
    fields = ["S", *["0"] * 36, str(priority), str(policy), *["0"] * 11]
    return f"{tid} ({name}) " + " ".join(fields) + "\n"


def write_threads(proc: Path, pid: int, threads: Sequence[tuple[str, int, int]]) -> None:
    """``threads``: (name, policy, priority); SCHED_RR is 2, SCHED_OTHER 0."""
    tasks = proc / str(pid) / "task"
    if tasks.exists():
        shutil.rmtree(tasks)
    for i, (name, policy, priority) in enumerate(threads):
        tid = pid + i
        folder = tasks / str(tid)
        folder.mkdir(parents=True)
        (folder / "stat").write_text(stat_line(tid, name, policy, priority))
        (folder / "comm").write_text(name + "\n")


@dataclass
class Usage:
    total: int
    used: int
    free: int


class FakeClock:
    """Monotonic ns that move only when told (each ``fsync`` moves it)."""

    def __init__(self) -> None:
        self.now = 1_000_000_000

    def __call__(self) -> int:
        return self.now


@dataclass
class FakeMachine:
    """What the machine is; :meth:`host` turns it into the doctor's :class:`Host`."""

    root: Path
    groups: frozenset[str] = frozenset({"pi", "gpio", "dialout"})
    listed: frozenset[str] = frozenset({"pi", "gpio", "dialout"})
    is_root: bool = False
    chips: list[GpioChip] = field(default_factory=lambda: [PI5_CHIP])
    #: The pin factory the doctor opens (gpiozero's mock pins, said to be chip 0).
    factory: Any = None
    #: Why the factory does not open (a FactoryUnavailable), if it does not.
    factory_error: BaseException | None = None
    #: What `systemctl show svoyak` says: None, no systemd; else its lines.
    systemctl: str | None = (
        "LoadState=loaded\nActiveState=active\nMainPID=4242\n"
        "ExecStart={ path=/opt/svoyak/.venv/bin/svoyak ; argv[]=/opt/svoyak/.venv/bin/svoyak "
        "run --resume ; ignore_errors=no ; start_time=[n/a] ; pid=4242 ; code=(null) }"
    )
    #: `vcgencmd get_throttled`'s answer; None, not installed.
    throttled: str | None = "throttled=0x0\n"
    model: str | None = "Raspberry Pi 5 Model B Rev 1.0"
    threads: Sequence[tuple[str, int, int]] = tuple((n, 2, 10) for n in SERVICE_THREADS)
    #: ns each fsync takes, in turn (cycled); the clock moves by it.
    fsync_ns: Sequence[int] = (2_000_000,)
    free_bytes: int = 20_000_000_000
    addresses: list[str] = field(default_factory=lambda: ["192.168.1.23"])
    env: dict[str, str] = field(default_factory=dict)
    #: Every command the doctor ran.
    ran: list[tuple[str, ...]] = field(default_factory=list)
    fsyncs: int = 0

    def __post_init__(self) -> None:
        if self.factory is None:
            self.factory = mock_factory()
            self.factory.chip = 0
        self.clock = FakeClock()

    @property
    def by_id(self) -> Path:
        return self.root / "dev" / "serial" / "by-id"

    @property
    def games(self) -> Path:
        return self.root / "games"

    def run(self, argv: Sequence[str]) -> Ran | None:
        self.ran.append(tuple(argv))
        if argv[0] == "systemctl":
            return None if self.systemctl is None else Ran(0, self.systemctl)
        if argv[0] == "vcgencmd":
            return None if self.throttled is None else Ran(0, self.throttled)
        return None

    def fsync(self, fd: int) -> None:
        self.clock.now += self.fsync_ns[self.fsyncs % len(self.fsync_ns)]
        self.fsyncs += 1

    def open_factory(self, simulate: bool, chip: int | None) -> Any:
        if self.factory_error is not None and not simulate:
            raise self.factory_error
        return self.factory

    def host(self) -> Host:
        proc = self.root / "proc"
        proc.mkdir(parents=True, exist_ok=True)
        if self.model is not None:
            (proc / "device-tree").mkdir(exist_ok=True)
            (proc / "device-tree" / "model").write_bytes(self.model.encode() + b"\0")
        write_threads(proc, SERVICE_PID, self.threads)
        self.by_id.mkdir(parents=True, exist_ok=True)
        places = Places(
            mount_globs=(),
            by_id=self.by_id,
            by_label=self.root / "dev" / "disk" / "by-label",
            tty_glob=str(self.root / "dev" / "ttyACM*"),
        )
        free = self.free_bytes
        chips = self.chips
        addresses = self.addresses
        usage: Callable[[str], Usage] = lambda path: Usage(64_000_000_000, 0, free)  # noqa: E731
        return Host(
            groups=lambda: self.groups,
            listed_groups=lambda: self.listed,
            user="pi",
            is_root=self.is_root,
            gpiochips=lambda: list(chips),
            open_factory=self.open_factory,
            places=places,
            serial_factory=serial.serial_for_url,
            run=self.run,
            proc=proc,
            fsync=self.fsync,
            clock=self.clock,
            sleep=lambda s: None,
            disk_usage=usage,
            lan_addresses=lambda: list(addresses),
            config_file=self.root / "etc" / "svoyak" / "svoyak.toml",
            system_pinmap=self.root / "etc" / "svoyak" / "pins.toml",
            games_dir=lambda: self.games,
            env=self.env,
        )
