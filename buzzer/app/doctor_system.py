"""``svoyak doctor``'s checks of the machine: groups, the service, the disk, the power, the LAN.

And the set-up they judge against: the config file, the service's own
command line (``systemctl show``), what the technician passed. Each check
reads the machine only through :class:`buzzer.app.doctor.Host`.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import re
import shlex
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from buzzer.app.doctor import (
    FAIL,
    PASS,
    WARN,
    DoctorOptions,
    GpioChip,
    Host,
    Ran,
    Setup,
    Verdict,
    Words,
    skipped,
)

#: The appliance's systemd unit (deploy/svoyak.service).
UNIT = "svoyak"
#: What deploy/svoyak.service asks for every thread: round-robin, priority 10.
RT_POLICY = 2  # SCHED_RR (sched(7))
RT_PRIORITY = 10
POLICY_NAMES = {0: "OTHER", 1: "FIFO", 2: "RR", 3: "BATCH", 5: "IDLE", 6: "DEADLINE"}
#: The panel's port when nothing sets another (svoyak run's default).
DEFAULT_PORT = 8000

#: The journal's disk: one small record written and fsynced this many times...
FSYNC_RECORD = b"svoyak doctor: a journal line's worth of bytes, fsynced as SQLite commits it\n"
#: ... and judged by its p99 (ms): within PASS the lamp of a decision still looks
#: instant (a lamp within 20 ms does: docs/wire-protocol.md, the edge → lamp
#: budget, whose journal commit is 1–10 ms on an SD card); beyond FAIL every
#: decision that hits a stall shows a tenth of a second late.
FSYNC_P99_PASS_MS = 20.0
FSYNC_P99_FAIL_MS = 100.0
#: Free space on the journal's disk (MB): a game's journal is a few MB.
DISK_FAIL_MB = 100
DISK_WARN_MB = 1024

#: ``vcgencmd get_throttled``'s bits (Raspberry Pi documentation, *vcgencmd*).
THROTTLED_BITS: dict[int, Words] = {
    0: Words("пониженное напряжение сейчас", "under-voltage now"),
    1: Words("частота ARM ограничена сейчас", "ARM frequency capped now"),
    2: Words("процессор замедлен сейчас", "throttled now"),
    3: Words("мягкий температурный предел сейчас", "soft temperature limit now"),
    16: Words("было пониженное напряжение", "under-voltage has occurred"),
    17: Words("частота ARM ограничивалась", "ARM frequency capping has occurred"),
    18: Words("процессор замедлялся", "throttling has occurred"),
    19: Words("был мягкий температурный предел", "soft temperature limit has occurred"),
}
UNDERVOLTAGE_BITS = frozenset({0, 16})


# -- the real machine (doctor.system_host) -------------------------------------------


def process_groups() -> frozenset[str]:
    import grp

    names = set()
    for gid in {os.getegid(), *os.getgroups()}:
        try:
            names.add(grp.getgrgid(gid).gr_name)
        except KeyError:
            names.add(str(gid))
    return frozenset(names)


def user_name() -> str:
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


def listed_groups() -> frozenset[str]:
    import grp

    user = user_name()
    listed = {g.gr_name for g in grp.getgrall() if user in g.gr_mem}
    with contextlib.suppress(KeyError):
        import pwd

        listed.add(grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name)
    return frozenset(listed)


#: GPIO_GET_CHIPINFO_IOCTL: _IOR(0xB4, 0x01, struct gpiochip_info), the struct being
#: char name[32], char label[32], __u32 lines (linux/gpio.h): what gpiodetect asks.
_CHIPINFO_IOCTL = 0x8044B401
_CHIPINFO_SIZE = 68


def list_gpiochips(dev: str = "/dev") -> list[GpioChip]:
    """Every ``/dev/gpiochipN`` with the name, label and line count its driver gives."""
    import fcntl
    import glob
    import struct

    chips = []
    for path in glob.glob(os.path.join(dev, "gpiochip*")):
        suffix = os.path.basename(path)[len("gpiochip") :]
        if not suffix.isdigit():
            continue
        real = os.path.realpath(path)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                raw = fcntl.ioctl(fd, _CHIPINFO_IOCTL, bytes(_CHIPINFO_SIZE))
            finally:
                os.close(fd)
        except OSError as exc:
            chips.append(GpioChip(int(suffix), path, real, error=exc.strerror or str(exc)))
            continue
        name, label, lines = struct.unpack("32s32sI", raw)
        chips.append(
            GpioChip(
                int(suffix),
                path,
                real,
                name.split(b"\0")[0].decode("ascii", "replace"),
                label.split(b"\0")[0].decode("ascii", "replace"),
                lines,
            )
        )
    return sorted(chips, key=lambda chip: chip.number)


def run_command(argv: Sequence[str]) -> Ran | None:
    """Run ``argv`` (a few seconds at most); None when it is not installed."""
    import subprocess

    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=10, check=False)
    except FileNotFoundError:
        return None
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Ran(127, "", str(exc))
    return Ran(done.returncode, done.stdout, done.stderr)


def board_model(host: Host) -> str | None:
    """The board's model (``Raspberry Pi 5 Model B Rev 1.0``), or None when unknown."""
    try:
        raw = (host.proc / "device-tree" / "model").read_bytes()
    except OSError:
        return None
    return raw.rstrip(b"\0").decode("utf-8", "replace").strip() or None


def is_raspberry_pi(host: Host) -> bool:
    return "raspberry pi" in (board_model(host) or "").lower()


# -- the service -----------------------------------------------------------------


@dataclass(frozen=True)
class Service:
    """The svoyak unit as systemd knows it."""

    installed: bool
    #: The main process while it runs, else None.
    pid: int | None
    #: Its ExecStart's command line (empty when not installed).
    argv: tuple[str, ...] = ()

    def option(self, name: str) -> str | None:
        """The value of ``--name`` on the service's command line, if it has one."""
        flag = f"--{name}"
        args = self.argv
        for i, arg in enumerate(args):
            if arg == flag and i + 1 < len(args):
                return args[i + 1]
            if arg.startswith(flag + "="):
                return arg[len(flag) + 1 :]
        return None


def query_service(host: Host) -> Service | None:
    """What systemd says of the svoyak unit; None when there is no systemd to ask."""
    ran = host.run(
        ["systemctl", "show", UNIT, "--property=LoadState,ActiveState,MainPID,ExecStart"]
    )
    if ran is None or ran.returncode != 0:
        return None
    values: dict[str, str] = {}
    for line in ran.stdout.splitlines():
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip()
    installed = values.get("LoadState", "not-found") not in ("not-found", "")
    try:
        pid = int(values.get("MainPID", "0"))
    except ValueError:
        pid = 0
    argv: tuple[str, ...] = ()
    match = re.search(r"argv\[\]=(.*?)\s;", values.get("ExecStart", ""))
    if match:
        with contextlib.suppress(ValueError):
            argv = tuple(shlex.split(match.group(1)))
    return Service(installed, pid if pid > 0 else None, argv)


def service_holds(setup: Setup) -> bool:
    """Whether the svoyak service runs now (so it holds the pins and the Pico's port)."""
    service = setup.service
    return service is not None and service.pid is not None


STOP_SERVICE = Words(
    "чтобы проверить здесь: sudo systemctl stop svoyak; svoyak doctor; sudo systemctl start svoyak",
    "to check it here: sudo systemctl stop svoyak; svoyak doctor; sudo systemctl start svoyak",
)


# -- the config and the set-up ------------------------------------------------------


#: In :func:`read_config`'s values: the config exists but this user cannot read it.
UNREADABLE = "unreadable"


def read_config(
    options: DoctorOptions, host: Host, service: Service | None
) -> tuple[Verdict, dict[str, Any]]:
    """The config file ``svoyak run`` reads ([hardware], [journal], [panel]) and its verdict;
    its values by option name (``{UNREADABLE: True}`` when this user cannot read it)."""
    import tomllib

    from buzzer.app.run_command import _CONFIG_KEYS

    named = options.config or (service.option("config") if service is not None else None)
    if named is not None:
        path = Path(named)
        where = (
            Words("--config", "--config")
            if options.config
            else Words("из команды службы svoyak", "from the svoyak service's command line")
        )
    elif host.config_file.is_file():
        path, where = host.config_file, Words("по умолчанию", "the default")
    else:
        return (
            skipped(
                "config",
                Words(
                    f"файла {host.config_file} нет: svoyak run берёт значения по умолчанию",
                    f"no {host.config_file}: svoyak run takes its defaults",
                ),
            ),
            {},
        )
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except PermissionError:
        return (
            Verdict(
                "config",
                WARN,
                Words(
                    f"{path} не читается пользователем {host.user} (в нём PIN ведущего): "
                    "его [hardware] и [journal] здесь не известны",
                    f"{host.user} cannot read {path} (it holds the host's PIN): its "
                    "[hardware] and [journal] settings are unknown here",
                ),
                Words(
                    "запустите через sudo (sudo /opt/svoyak/.venv/bin/svoyak doctor) или "
                    "укажите --serial, --journal",
                    "run it with sudo (sudo /opt/svoyak/.venv/bin/svoyak doctor), or pass "
                    "--serial and --journal",
                ),
                {"path": str(path)},
            ),
            {UNREADABLE: True},
        )
    except FileNotFoundError:
        return _config_failed(path, Words("файла нет", "no such file")), {}
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return _config_failed(path, Words(reason, reason)), {}
    except tomllib.TOMLDecodeError as exc:
        return _config_failed(path, Words(f"это не TOML: {exc}", f"not valid TOML: {exc}")), {}
    found: dict[str, Any] = {}
    unknown = []
    for section, table in data.items():
        if not isinstance(table, dict):
            unknown.append(f"[{section}]")
            continue
        for key, value in table.items():
            option = _CONFIG_KEYS.get((section, key))
            if option is None:
                unknown.append(f"[{section}] {key}")
            else:
                found[option] = value
    if unknown:
        return _config_failed(
            path,
            Words(
                f"неизвестные ключи {', '.join(unknown)} (svoyak run не запустится)",
                f"unknown key(s) {', '.join(unknown)} (svoyak run refuses it)",
            ),
        ), found
    if "pin" in found:
        from buzzer.panel.auth import check_pin

        try:
            check_pin(str(found["pin"]))
        except ValueError as exc:  # a PIN svoyak run refuses (4 digits, letters): say so now
            first = str(exc).splitlines()[0]
            return _config_failed(
                path,
                Words(
                    f"[panel] pin не годится (svoyak run не запустится): {first}",
                    f"[panel] pin is refused (svoyak run will not start): {first}",
                ),
            ), found
    used = [
        f"{key} {found[option]}"
        for key, option in (("pins", "pins"), ("serial", "serial"), ("journal", "journal"))
        if option in found
    ]
    about = ", ".join(used)
    return (
        Verdict(
            "config",
            PASS,
            Words(
                f"{path} ({where.ru}){': ' + about if about else ''}",
                f"{path} ({where.en}){': ' + about if about else ''}",
            ),
            None,
            {"path": str(path), **{k: str(v) for k, v in found.items() if k != "pin"}},
        ),
        found,
    )


def _config_failed(path: Path, why: Words) -> Verdict:
    return Verdict(
        "config",
        FAIL,
        Words(f"{path}: ", f"{path}: ") + why,
        Words(
            "исправьте файл; ключи: [game] rules, players, package; [panel] port, host, pin; "
            "[hardware] pins, serial; [journal] path (docs/raspberry-pi.md)",
            "fix the file; its keys: [game] rules, players, package; [panel] port, host, pin; "
            "[hardware] pins, serial; [journal] path (docs/raspberry-pi.md)",
        ),
        {"path": str(path)},
    )


def resolve(
    options: DoctorOptions, host: Host, service: Service | None, config: dict[str, Any]
) -> Setup:
    """What the box uses: the technician's options first, then what the service is
    started with (its command line, then its config file), then svoyak run's defaults."""
    from hardware.pinmap import example_path

    def service_option(name: str) -> str | None:
        return service.option(name) if service is not None else None

    simulate = options.simulate or host.env.get("GPIOZERO_PIN_FACTORY") == "mock"
    pins: str | None = None
    pins_from = ""
    for value, where in (
        (options.pins, "--pins"),
        (host.env.get("SVOYAK_PINS"), "$SVOYAK_PINS"),
        (service_option("pins"), "the service's --pins"),
        (config.get("pins"), "[hardware] pins"),
    ):
        if value:
            pins, pins_from = str(value), where
            break
    else:
        if host.system_pinmap.is_file():
            pins, pins_from = str(host.system_pinmap), "the system's"
        elif simulate:
            pins, pins_from = str(example_path()), "the example (--simulate)"
    serial: str | None = None
    serial_from = ""
    for value, where in (
        (options.serial, "--serial"),
        (host.env.get("SVOYAK_SERIAL"), "$SVOYAK_SERIAL"),
        (service_option("serial"), "the service's --serial"),
        (config.get("serial"), "[hardware] serial"),
    ):
        if value:
            serial, serial_from = str(value), where
            break
    journal: Path | None = None
    journal_from = ""
    for value, where in (
        (options.journal, "--journal"),
        (service_option("journal"), "the service's --journal"),
        (config.get("journal"), "[journal] path"),
    ):
        if value:
            given = Path(str(value)).expanduser()
            journal = given if given.is_dir() else given.parent
            journal_from = where
            break
    if journal is None:
        journal, journal_from = host.games_dir(), "svoyak run's default"
    port = DEFAULT_PORT
    for value in (service_option("port"), config.get("port")):
        if value is not None:
            with contextlib.suppress(ValueError, TypeError):
                port = int(value)
            break
    return Setup(
        pins=pins,
        pins_from=pins_from,
        serial=serial,
        serial_from=serial_from,
        journal_dir=journal,
        journal_from=journal_from,
        panel_port=port,
        simulate=simulate,
        config_unknown=bool(config.get(UNREADABLE)),
        gpiochip=options.gpiochip,
        service=service,
    )


# -- groups --------------------------------------------------------------------------

_GROUP_USE = {
    "gpio": Words("пины GPIO", "the GPIO pins"),
    "dialout": Words("порт Pico", "the Pico's serial port"),
}


def check_groups(setup: Setup, host: Host, pico_port: str | None) -> Verdict:
    """The groups this process has against those the set-up needs: gpio for a GPIO pin
    map on the Pi's pins, dialout for a Pico on a serial port."""
    needed = []
    if setup.pins is not None and not setup.simulate:
        needed.append("gpio")
    if pico_port is not None:
        needed.append("dialout")
    have = host.groups()
    data = {"user": host.user, "needed": needed, "have": sorted(have)}
    if not needed:
        return skipped(
            "groups",
            Words(
                "ни пины GPIO, ни Pico здесь не нужны (имитация или нет ни карты пинов, ни Pico)",
                "neither GPIO pins nor a Pico are needed here (simulated, or no pin map "
                "and no Pico)",
            ),
            **data,
        )
    if host.is_root:
        return Verdict(
            "groups",
            PASS,
            Words(
                "запущено от root: ему открыто всё (служба работает от svoyak со своими "
                "группами, SupplementaryGroups)",
                "running as root, to which every device is open (the service runs as svoyak "
                "with its own SupplementaryGroups)",
            ),
            None,
            data,
        )
    missing = [group for group in needed if group not in have]
    if not missing:
        return Verdict(
            "groups",
            PASS,
            Words(
                f"у процесса есть {', '.join(needed)}",
                f"the process has {', '.join(needed)}",
            ),
            None,
            data,
        )
    listed = host.listed_groups()
    later = [group for group in missing if group in listed]
    absent = [group for group in missing if group not in listed]
    what = Words(
        ", ".join(f"{g} ({_GROUP_USE[g].ru})" for g in missing),
        ", ".join(f"{g} ({_GROUP_USE[g].en})" for g in missing),
    )
    if absent:
        fix = Words(
            f"sudo usermod -aG {','.join(missing)} {host.user}, затем выйдите из системы и "
            "войдите снова (или перезагрузите Pi)",
            f"sudo usermod -aG {','.join(missing)} {host.user}, then log out and back in "
            "(or reboot the Pi)",
        )
    else:
        fix = Words(
            f"{host.user} уже в {', '.join(later)}, но этот сеанс начат раньше: выйдите из "
            "системы и войдите снова (или перезагрузите Pi)",
            f"{host.user} is in {', '.join(later)} since after this login: log out and back "
            "in (or reboot the Pi)",
        )
    return Verdict(
        "groups",
        FAIL,
        Words(f"у процесса нет групп: {what.ru}", f"the process lacks the group(s) {what.en}"),
        fix,
        {**data, "missing": missing},
    )


# -- the service's real-time priority ---------------------------------------------------


@dataclass(frozen=True)
class ThreadPriority:
    tid: int
    name: str
    policy: int
    priority: int

    def describe(self) -> str:
        return f"{self.name} ({POLICY_NAMES.get(self.policy, str(self.policy))} {self.priority})"


def read_threads(proc: Path, pid: int) -> list[ThreadPriority]:
    """Every thread of ``pid`` with its scheduling policy and real-time priority.

    From ``/proc/PID/task/TID/stat`` (proc(5)): after the command name in
    parentheses, field 40 is ``rt_priority`` and field 41 ``policy``.
    """
    threads = []
    for task in sorted((proc / str(pid) / "task").iterdir(), key=lambda p: p.name):
        if not task.name.isdigit():
            continue
        try:
            stat = (task / "stat").read_text(encoding="utf-8", errors="replace")
            name = (task / "comm").read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue  # the thread ended while being read
        fields = stat[stat.rindex(")") + 2 :].split()
        threads.append(ThreadPriority(int(task.name), name, int(fields[38]), int(fields[37])))
    return threads


def check_realtime(setup: Setup, host: Host) -> Verdict:
    """Whether every thread of the running service has the unit's round-robin priority."""
    service = setup.service
    if service is None:
        return skipped(
            "realtime",
            Words(
                "здесь нет systemd (systemctl не отвечает): приоритет задаёт только служба",
                "no systemd here (systemctl does not answer): only the service sets the priority",
            ),
        )
    if not service.installed:
        return skipped(
            "realtime",
            Words(
                "служба svoyak не установлена (docs/raspberry-pi.md, «Installing»)",
                "the svoyak service is not installed (docs/raspberry-pi.md, Installing)",
            ),
        )
    if service.pid is None:
        return skipped(
            "realtime",
            Words(
                "служба svoyak не запущена: приоритет её потоков проверяется на работающей "
                "(sudo systemctl start svoyak, потом svoyak doctor)",
                "the svoyak service is not running: its threads' priority is checked on a "
                "running one (sudo systemctl start svoyak, then svoyak doctor)",
            ),
        )
    pid = service.pid
    try:
        threads = read_threads(host.proc, pid)
    except (OSError, ValueError, IndexError) as exc:
        return Verdict(
            "realtime",
            WARN,
            Words(
                f"потоки службы (pid {pid}) не прочитаны: {exc}",
                f"the service's threads (pid {pid}) could not be read: {exc}",
            ),
            Words("запустите svoyak doctor снова", "run svoyak doctor again"),
            {"pid": pid},
        )
    wrong = [t for t in threads if (t.policy, t.priority) != (RT_POLICY, RT_PRIORITY)]
    data = {
        "pid": pid,
        "expected": f"RR {RT_PRIORITY}",
        "threads": [
            {"tid": t.tid, "name": t.name, "policy": POLICY_NAMES.get(t.policy, str(t.policy)),
             "priority": t.priority}
            for t in threads
        ],
    }  # fmt: skip
    if threads and not wrong:
        return Verdict(
            "realtime",
            PASS,
            Words(
                f"все {len(threads)} потоков службы (pid {pid}) — RR {RT_PRIORITY}",
                f"all {len(threads)} threads of the service (pid {pid}) at RR {RT_PRIORITY}",
            ),
            None,
            data,
        )
    listed = ", ".join(t.describe() for t in wrong[:6]) + (" …" if len(wrong) > 6 else "")
    return Verdict(
        "realtime",
        FAIL,
        Words(
            f"{len(wrong)} из {len(threads)} потоков службы (pid {pid}) не RR {RT_PRIORITY}: "
            f"{listed}",
            f"{len(wrong)} of {len(threads)} threads of the service (pid {pid}) are not at RR "
            f"{RT_PRIORITY}: {listed}",
        ),
        Words(
            "установленный юнит не из этой версии: нужны CPUSchedulingPolicy=rr, "
            "CPUSchedulingPriority=10, CPUSchedulingResetOnFork=no — sudo cp "
            "/opt/svoyak/deploy/svoyak.service /etc/systemd/system/ && sudo systemctl "
            "daemon-reload && sudo systemctl restart svoyak",
            "the installed unit is not this release's: it needs CPUSchedulingPolicy=rr, "
            "CPUSchedulingPriority=10, CPUSchedulingResetOnFork=no — sudo cp "
            "/opt/svoyak/deploy/svoyak.service /etc/systemd/system/ && sudo systemctl "
            "daemon-reload && sudo systemctl restart svoyak",
        ),
        data,
    )


# -- the journal's disk ------------------------------------------------------------------


def quantile(ordered: Sequence[int], q: float) -> int:
    """The nearest-rank ``q`` quantile of sorted samples."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _existing(folder: Path) -> Path:
    """``folder``, or the nearest folder above it that exists (svoyak run creates the rest)."""
    for candidate in (folder, *folder.parents):
        if candidate.is_dir():
            return candidate
    return Path("/")


def _probe_file(folder: Path) -> tuple[Path, int] | None:
    try:
        fd, name = tempfile.mkstemp(dir=folder, prefix=".svoyak-doctor-", suffix=".fsync")
    except OSError:
        return None
    return Path(name), fd


def check_journal_disk(setup: Setup, host: Host, count: int) -> list[Verdict]:
    """The journal's disk: fsync latency (median, p99) and free space."""
    target = setup.journal_dir
    base = _existing(target)
    data: dict[str, Any] = {"journal_dir": str(target), "from": setup.journal_from}
    fsync = _measure_fsync(base, host, count, data)
    return [fsync, _free_space(base, host, data)]


def _measure_fsync(base: Path, host: Host, count: int, data: dict[str, Any]) -> Verdict:
    opened = _probe_file(base)
    where = base
    if opened is None:
        # Not this user's folder (the service's /var/lib/svoyak): the same disk elsewhere.
        try:
            device = base.stat().st_dev
        except OSError:
            device = None
        for other in (Path(tempfile.gettempdir()), Path("/var/tmp"), Path.home()):
            try:
                same = other.is_dir() and other.stat().st_dev == device
            except OSError:
                same = False
            if same and (opened := _probe_file(other)) is not None:
                where = other
                break
    if opened is None:
        return skipped(
            "fsync",
            Words(
                f"{host.user} не может писать ни в {base}, ни в другую папку на том же диске",
                f"{host.user} cannot write in {base} nor anywhere else on the same disk",
            ),
            **data,
        )
    path, fd = opened
    times: list[int] = []
    try:
        for _ in range(count):
            start = host.clock()
            os.write(fd, FSYNC_RECORD)
            host.fsync(fd)
            times.append(host.clock() - start)
    except OSError as exc:
        return Verdict(
            "fsync",
            FAIL,
            Words(
                f"запись в {where} не удалась: {exc.strerror or exc}",
                f"writing in {where} failed: {exc.strerror or exc}",
            ),
            _CARD_FIX if exc.errno == errno.EIO else _SPACE_FIX,
            data,
        )
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
    ordered = sorted(times)
    median_ms = quantile(ordered, 0.5) / 1e6
    p99_ms = quantile(ordered, 0.99) / 1e6
    max_ms = ordered[-1] / 1e6
    data.update(
        measured_in=str(where),
        count=count,
        median_ms=round(median_ms, 3),
        p99_ms=round(p99_ms, 3),
        max_ms=round(max_ms, 3),
        pass_p99_ms=FSYNC_P99_PASS_MS,
        fail_p99_ms=FSYNC_P99_FAIL_MS,
    )
    elsewhere = Words("", "")
    if where != base:
        elsewhere = Words(
            f" (в {where}: тот же диск, в {base} {host.user} писать не может)",
            f" (in {where}: the same disk; {host.user} cannot write in {base})",
        )
    figures = Words(
        f"запись+fsync ×{count}: медиана {median_ms:.1f} мс, p99 {p99_ms:.1f} мс, "
        f"максимум {max_ms:.1f} мс",
        f"write+fsync ×{count}: median {median_ms:.1f} ms, p99 {p99_ms:.1f} ms, "
        f"max {max_ms:.1f} ms",
    )
    if p99_ms <= FSYNC_P99_PASS_MS:
        return Verdict("fsync", PASS, figures + elsewhere, None, data)
    status = WARN if p99_ms <= FSYNC_P99_FAIL_MS else FAIL
    limit = FSYNC_P99_PASS_MS if status == WARN else FSYNC_P99_FAIL_MS
    return Verdict(
        "fsync",
        status,
        figures
        + Words(
            f" — больше {limit:g} мс: журнал задержит лампу решения",
            f" — over {limit:g} ms: the journal will hold a decision's lamp back",
        )
        + elsewhere,
        _CARD_FIX,
        data,
    )


_CARD_FIX = Words(
    "карта памяти тормозит: поставьте карту A1/A2 известной марки (или SSD на USB 3), "
    "проверьте снова; каждое решение ждёт записи журнала",
    "the SD card stalls: use an A1/A2 card of a known make (or an SSD on USB 3), then check "
    "again; every decision waits for the journal's write",
)
_SPACE_FIX = Words(
    "освободите место или укажите другой --journal", "free some space or give another --journal"
)


def _free_space(base: Path, host: Host, data: dict[str, Any]) -> Verdict:
    try:
        usage = host.disk_usage(str(base))
    except OSError as exc:
        return Verdict(
            "disk",
            WARN,
            Words(
                f"свободное место в {base} не узнать: {exc.strerror or exc}",
                f"cannot tell the free space in {base}: {exc.strerror or exc}",
            ),
            None,
            {"dir": str(base)},
        )
    free_mb = usage.free / 1e6
    found = Words(
        f"свободно {_size(usage.free, 'ru')} на диске журнала ({data['journal_dir']})",
        f"{_size(usage.free, 'en')} free on the journal's disk ({data['journal_dir']})",
    )
    facts = {
        "dir": str(base),
        "free_mb": round(free_mb, 1),
        "fail_mb": DISK_FAIL_MB,
        "warn_mb": DISK_WARN_MB,
    }
    if free_mb >= DISK_WARN_MB:
        return Verdict("disk", PASS, found, None, facts)
    return Verdict(
        "disk",
        WARN if free_mb >= DISK_FAIL_MB else FAIL,
        found,
        Words(
            "освободите место: старые журналы игр (сохраните их: svoyak journal export), "
            "sudo apt clean; или карта побольше",
            "free some space: old games' journals (keep them first: svoyak journal export), "
            "sudo apt clean; or a bigger card",
        ),
        facts,
    )


def _size(count: float, lang: str) -> str:
    if count >= 1e9:
        return f"{count / 1e9:.1f} {'ГБ' if lang == 'ru' else 'GB'}"
    return f"{count / 1e6:.0f} {'МБ' if lang == 'ru' else 'MB'}"


# -- power ---------------------------------------------------------------------------------


def check_power(host: Host) -> Verdict:
    """Under-voltage or throttling now or since boot, from ``vcgencmd get_throttled``."""
    pi = is_raspberry_pi(host)
    ran = host.run(["vcgencmd", "get_throttled"])
    if ran is None:
        if not pi:
            return skipped(
                "power",
                Words("не Raspberry Pi (нет vcgencmd)", "not a Raspberry Pi (no vcgencmd)"),
            )
        return Verdict(
            "power",
            WARN,
            Words(
                "vcgencmd не установлен: питание не проверить",
                "vcgencmd is not installed: the power cannot be checked",
            ),
            Words(
                "sudo apt install raspi-utils (на старых образах libraspberrypi-bin)",
                "sudo apt install raspi-utils (libraspberrypi-bin on older images)",
            ),
        )
    match = re.search(r"throttled=(0x[0-9a-fA-F]+)", ran.stdout)
    if ran.returncode != 0 or match is None:
        answer = (ran.stderr or ran.stdout).strip()[:200]
        return Verdict(
            "power",
            WARN,
            Words(
                f"vcgencmd get_throttled не ответил: {answer}",
                f"vcgencmd get_throttled failed: {answer}",
            ),
            Words(
                f"пользователю {host.user} нужна группа video (/dev/vchiq)",
                f"{host.user} needs the video group (/dev/vchiq)",
            ),
        )
    value = int(match.group(1), 16)
    bits = [bit for bit in THROTTLED_BITS if value >> bit & 1]
    data = {"throttled": match.group(1), "bits": bits}
    if not bits:
        return Verdict(
            "power",
            PASS,
            Words(
                f"ни пониженного напряжения, ни замедления с загрузки ({match.group(1)})",
                f"no under-voltage or throttling since boot ({match.group(1)})",
            ),
            None,
            data,
        )
    said = Words(
        ", ".join(THROTTLED_BITS[b].ru for b in bits), ", ".join(THROTTLED_BITS[b].en for b in bits)
    )
    found = said + Words(f" ({match.group(1)})", f" ({match.group(1)})")
    undervolted = bool(UNDERVOLTAGE_BITS & set(bits))
    now = any(bit < 16 for bit in bits)
    if undervolted:
        fix = Words(
            "блок питания проседает: официальный 5 В 3 А (Pi 4) / 5 А (Pi 5), короткий "
            "толстый кабель, лампы — от своего блока 12 В; затем перезагрузка (флаги «было» "
            "сбрасываются только так)",
            "the supply sags: the official 5 V 3 A (Pi 4) / 5 A (Pi 5) supply, a short thick "
            "cable, the lamps on their own 12 V supply; then reboot (the 'has occurred' bits "
            "clear only then)",
        )
    else:
        fix = Words(
            "Pi перегревается: радиатор или вентилятор, воздух вокруг корпуса; затем "
            "перезагрузка, чтобы сбросить флаги",
            "the Pi runs hot: a heatsink or a fan, air around the case; then reboot to clear "
            "the bits",
        )
    return Verdict("power", FAIL if undervolted or now else WARN, found, fix, data)


# -- the panel's address -------------------------------------------------------------------


def check_lan(setup: Setup, host: Host) -> Verdict:
    """The address a tablet on the club's network reaches the panel at."""
    addresses = host.lan_addresses()
    lan = [a for a in addresses if not a.startswith("127.")]
    port = setup.panel_port
    data = {"addresses": lan, "port": port}
    if not lan:
        return Verdict(
            "lan",
            FAIL,
            Words(
                "нет сети: только 127.0.0.1, планшет ведущего не подключится",
                "no network: only 127.0.0.1, the host's tablet cannot connect",
            ),
            Words(
                "подключите Wi-Fi (sudo nmtui) или кабель, затем sudo systemctl restart svoyak "
                "(адрес читается при старте)",
                "join the Wi-Fi (sudo nmtui) or plug a cable in, then sudo systemctl restart "
                "svoyak (it reads the address at start)",
            ),
            data,
        )
    urls = [f"http://{address}:{port}/" for address in lan]
    data["urls"] = urls
    also = ", ".join(urls[1:])
    return Verdict(
        "lan",
        PASS,
        Words(
            f"панель ведущего: {urls[0]}{' (и ' + also + ')' if also else ''}; "
            f"по mDNS: http://svoyak.local:{port}/",
            f"the host's panel: {urls[0]}{' (and ' + also + ')' if also else ''}; "
            f"by mDNS: http://svoyak.local:{port}/",
        ),
        None,
        data,
    )


__all__ = [
    "DISK_FAIL_MB",
    "DISK_WARN_MB",
    "FSYNC_P99_FAIL_MS",
    "FSYNC_P99_PASS_MS",
    "RT_POLICY",
    "RT_PRIORITY",
    "THROTTLED_BITS",
    "Service",
    "check_groups",
    "check_journal_disk",
    "check_lan",
    "check_power",
    "check_realtime",
    "list_gpiochips",
    "query_service",
    "read_config",
    "resolve",
]
