"""A LAN of the test's own: a network namespace with one interface, for the mDNS tests.

mDNS on the machine's real network depends on things a test cannot hold
still: whether there is a LAN address at all, a multicast-deaf interface,
another svoyak (or anything) answering nearby, the timing of strangers'
answers. Inside a fresh network namespace (``unshare --net``; with
``--user --map-root-user`` when not root, unprivileged on current kernels)
there is a loopback and one veth interface, ``lan0`` at :data:`ADDRESS`
with the default route on it, and nobody else: every mDNS packet there is
one the test's own processes sent (multicast is looped back to this
machine's sockets, as on a real LAN).

The scenario runs as ``python -m MODULE ARGS`` in the namespace; its exit
status and output are the test's to check.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from tests.support.paths import REPO

#: This "machine's" one LAN address inside the namespace.
ADDRESS = "10.99.0.10"

_SETUP = (
    "ip link set lo up"
    " && ip link add lan0 type veth peer name lan1"
    " && ip link set lan1 up && ip link set lan0 up"
    f" && ip addr add {ADDRESS}/24 dev lan0"
    " && ip route add default via 10.99.0.1 dev lan0"
)


def command(argv: list[str]) -> list[str]:
    """``argv`` run inside a fresh network namespace set up as the module says."""
    missing = [tool for tool in ("unshare", "ip") if shutil.which(tool) is None]
    if missing:
        raise RuntimeError(f"a private LAN needs util-linux's unshare and iproute2's ip: {missing}")
    userns = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    return ["unshare", *userns, "--net", "sh", "-c", f'{_SETUP} && exec "$@"', "lan", *argv]


def run(module: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m module args`` in a private LAN; stdout and stderr together."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        command([sys.executable, "-m", module, *args]),
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
        check=False,
    )
