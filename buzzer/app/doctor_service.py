"""``svoyak doctor``'s view of the svoyak service: what systemd says of it, its threads' priority.

The unit's command line (``systemctl show``) is part of the set-up the other
checks judge against (:mod:`.doctor_config`), whether it runs decides if the
GPIO and Pico checks may open what it holds (:func:`service_holds`), and its
threads must run at the real-time priority deploy/svoyak.service asks for
(:func:`check_realtime`).
"""

from __future__ import annotations

import contextlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from buzzer.app.doctor import (
    FAIL,
    PASS,
    WARN,
    Host,
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


STOP_SERVICE = Words.of("doctor.service.check_it_here_sudo")


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
            Words.of("doctor.service.no_systemd_here_systemctl"),
        )
    if not service.installed:
        return skipped(
            "realtime",
            Words.of("doctor.service.svoyak_service_not_installed"),
        )
    if service.pid is None:
        return skipped(
            "realtime",
            Words.of("doctor.service.svoyak_service_not_running"),
        )
    pid = service.pid
    try:
        threads = read_threads(host.proc, pid)
    except (OSError, ValueError, IndexError) as exc:
        return Verdict(
            "realtime",
            WARN,
            Words.of("doctor.service.service_s_threads_pid", pid=pid, exc=exc),
            Words.of("doctor.service.run_svoyak_doctor_again"),
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
            Words.of(
                "doctor.service.all_threads_service_pid",
                threads=len(threads),
                pid=pid,
                r_t__p_r_i_o_r_i_t_y=RT_PRIORITY,
            ),
            None,
            data,
        )
    listed = ", ".join(t.describe() for t in wrong[:6]) + (" …" if len(wrong) > 6 else "")
    return Verdict(
        "realtime",
        FAIL,
        Words.of(
            "doctor.service.threads_service_pid_not",
            wrong=len(wrong),
            threads=len(threads),
            pid=pid,
            r_t__p_r_i_o_r_i_t_y=RT_PRIORITY,
            listed=listed,
        ),
        Words.of("doctor.service.installed_unit_not_release"),
        data,
    )
