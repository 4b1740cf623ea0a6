"""Run a netlist of ``hardware/circuits/`` in ngspice and read its named results.

The electrical figures of docs/raspberry-pi-gpio.md (edge delays, the clamp
current of a shorted lamp wire, the lamp driver's drain peak, the gate at boot)
are simulated, not asserted: each comes from a ``.meas`` line of a netlist, and
``tests/hardware/test_circuits.py`` holds the guide to them. This module is the
one way to get them: ngspice in batch mode (``ngspice -b``, Debian's
``ngspice`` package) in a temporary folder, its ``name = value`` lines parsed
into floats.

Only the measurements a netlist declares are read, and every one of them must
come back: a measurement ngspice could not take (``failed``, or missing because
its ``WHEN`` never happened) is an error naming it, never a silent gap that
would let a guide's number go unchecked.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from buzzer.errors import SvoyakError

#: The netlists and their shared device models (``models.lib``), shipped with the package.
CIRCUITS = Path(__file__).with_name("circuits")

#: A ``.meas`` / ``.measure`` line's analysis and name (ngspice reports names in lower case).
_MEAS_LINE = re.compile(
    r"^\s*\.meas(?:ure)?\s+(?:tran|dc|ac|op|sp|noise)\s+(\w+)", re.IGNORECASE | re.MULTILINE
)
#: A result line of ngspice's batch output: ``name   =  1.234e-07 ...``
#: (a name of 20 characters or more is followed by ``=`` with no space).
_RESULT_LINE = re.compile(r"^(\w+)\s*=\s*(\S+)", re.MULTILINE)


class SpiceUnavailable(SvoyakError, RuntimeError):
    """ngspice is not installed here; the message says how to install it."""


class SpiceError(SvoyakError, RuntimeError):
    """A netlist did not run, or a measurement it declares was not taken."""


def netlist_path(name: str) -> Path:
    """The netlist ``name`` (``"boot_gate"`` or ``"boot_gate.cir"``) of :data:`CIRCUITS`."""
    path = CIRCUITS / (name if name.endswith(".cir") else f"{name}.cir")
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in CIRCUITS.glob("*.cir")))
        raise SpiceError(f"no netlist {path.name} in {CIRCUITS}: the netlists are {known}")
    return path


def netlist_names() -> list[str]:
    """Every netlist shipped in :data:`CIRCUITS`, by name (without ``.cir``)."""
    return sorted(p.stem for p in CIRCUITS.glob("*.cir"))


def declared_measures(netlist_text: str) -> list[str]:
    """The names of a netlist's ``.meas`` lines, in order, lower case (as ngspice prints them)."""
    return [name.lower() for name in _MEAS_LINE.findall(netlist_text)]


def parse_results(stdout: str, declared: list[str]) -> tuple[dict[str, float], list[str]]:
    """The declared measurements found in ngspice's output, and those missing or failed."""
    found: dict[str, float] = {}
    for name, value in _RESULT_LINE.findall(stdout):
        key = name.lower()
        if key not in declared:
            continue
        try:
            found[key] = float(value)
        except ValueError:  # ngspice prints "failed" for a measurement it could not take
            continue
    return found, [name for name in declared if name not in found]


def find_ngspice(ngspice: str | None = None) -> str:
    """The ngspice executable, or :class:`SpiceUnavailable` saying how to install it."""
    found = shutil.which(ngspice or "ngspice")
    if found is None:
        raise SpiceUnavailable(
            f"ngspice was not found ({ngspice or 'ngspice'} is not on PATH): the wiring "
            "guide's electrical figures are simulated with it. Install Debian's package: "
            "sudo apt-get install ngspice (./scripts/test does)"
        )
    return found


def run(
    name: str | Path, *, ngspice: str | None = None, timeout_s: float = 60.0
) -> dict[str, float]:
    """Run one netlist in batch mode and return its measurements by name (SI units, floats).

    ``name`` is a netlist of :data:`CIRCUITS` or a path. The netlist and the
    ``.lib`` files beside it (its ``.include``\\ s) are copied to a temporary
    folder, where ngspice runs, so a run never writes into the package.
    """
    path = Path(name) if isinstance(name, Path) else netlist_path(name)
    text = path.read_text(encoding="utf-8")
    declared = declared_measures(text)
    if not declared:
        raise SpiceError(f"{path.name} declares no .meas line: nothing to read")
    executable = find_ngspice(ngspice)
    with tempfile.TemporaryDirectory(prefix="svoyak-spice-") as tmp:
        work = Path(tmp)
        for lib in path.parent.glob("*.lib"):
            shutil.copyfile(lib, work / lib.name)
        shutil.copyfile(path, work / path.name)
        try:
            done = subprocess.run(
                [executable, "-b", path.name],
                cwd=work,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise SpiceError(f"ngspice ran {path.name} for more than {timeout_s:g} s") from None
    if done.returncode != 0:
        raise SpiceError(
            f"ngspice failed on {path.name} (exit status {done.returncode}): "
            f"{_tail(done.stderr or done.stdout)}"
        )
    results, missing = parse_results(done.stdout, declared)
    if missing:
        raise SpiceError(
            f"{path.name}: ngspice did not take the measurement(s) {', '.join(missing)}: "
            f"{_tail(done.stderr) or 'no message'}"
        )
    return results


def _tail(text: str, lines: int = 6) -> str:
    """The last few non-empty lines of an ngspice message, on one line."""
    kept = [line.strip() for line in text.splitlines() if line.strip()]
    return " | ".join(kept[-lines:])
