"""The panel's mDNS advertisement, played inside a private LAN (``private_lan.py``).

``python -m tests.support.mdns_scenarios NAME``: each scenario asserts, and
prints ``ok`` at the end; ``tests/buzzer/app/test_run_network.py`` runs them
in a network namespace of their own, so nothing but the scenario's own
processes answers there.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from zeroconf import (  # type: ignore[attr-defined]
    AddressResolverIPv4,
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
)

from buzzer.appliance.addresses import lan_addresses
from buzzer.appliance.mdns import SERVICE_TYPE, PanelAdvertiser
from tests.support.private_lan import ADDRESS

#: Longer than the product's 1 s of listening after the last probe: in a LAN of
#: our own the defender answers at once, and the slack is for a loaded machine,
#: whose threads (the defender's is one of this process) may wait their turn.
PROBE_S = 3.0


def advertised() -> None:
    """Advertised, resolved by name and service, and withdrawn with a goodbye."""
    base = "svoyak-test"
    browser = Zeroconf(ip_version=IPVersion.V4Only)
    advertiser = PanelAdvertiser(8123, [ADDRESS], base=base, instance=base, probe_s=PROBE_S)
    try:
        advertiser.start()
        assert advertiser.wait(30) and advertiser.error is None, advertiser.error
        assert advertiser.host == f"{base}.local"
        assert advertiser.url == f"http://{base}.local:8123/"
        found = browser.get_service_info(SERVICE_TYPE, f"{base}.{SERVICE_TYPE}", timeout=10_000)
        assert found is not None, "the service was not resolved over mDNS"
        assert found.port == 8123 and found.server == f"{base}.local."
        assert found.parsed_addresses() == [ADDRESS]
        assert found.properties[b"path"] == b"/"
        host = AddressResolverIPv4(f"{base}.local.")
        assert host.request(browser, 10_000), "the host name was not resolved over mDNS"
        assert host.parsed_addresses() == [ADDRESS]
    finally:
        advertiser.close()
        browser.close()
    # The goodbye: a fresh listener no longer finds it (nothing else here could answer).
    late = Zeroconf(ip_version=IPVersion.V4Only)
    try:
        assert late.get_service_info(SERVICE_TYPE, f"{base}.{SERVICE_TYPE}", timeout=1500) is None
        assert not AddressResolverIPv4(f"{base}.local.").request(late, 1500)
    finally:
        late.close()


def conflict() -> None:
    """A host name another machine answers for is left to it: the next one is taken."""
    base = "svoyak"
    browser = Zeroconf(ip_version=IPVersion.V4Only)
    # "Another machine" already answers for svoyak.local, with an address not ours.
    other = ServiceInfo(
        "_workstation._tcp.local.",
        f"{base}-other._workstation._tcp.local.",
        port=9,
        addresses=[socket.inet_aton("192.0.2.250")],
        server=f"{base}.local.",
    )
    browser.register_service(other)
    advertiser = PanelAdvertiser(8124, [ADDRESS], base=base, instance=base, probe_s=PROBE_S)
    try:
        advertiser.start()
        assert advertiser.wait(60) and advertiser.error is None, advertiser.error
        assert advertiser.host == f"{base}-2.local", advertiser.host
        host = AddressResolverIPv4(f"{base}-2.local.")
        assert host.request(browser, 10_000)
        assert host.parsed_addresses() == [ADDRESS]
        # And the other machine's name still answers with its own address.
        theirs = AddressResolverIPv4(f"{base}.local.")
        assert theirs.request(browser, 10_000)
        assert theirs.parsed_addresses() == ["192.0.2.250"]
    finally:
        advertiser.close()
        browser.unregister_service(other)
        browser.close()


def svoyak_run() -> None:
    """The real ``svoyak run`` on every interface: its LAN address first (the board's QR
    code), the PIN, and then, once claimed, the mDNS name; both reach the panel;
    stopping withdraws the name."""
    with tempfile.TemporaryDirectory() as state:
        env = {**os.environ, "XDG_STATE_HOME": state}
        argv = ["run", "--headless", "--port", "0", "--no-journal", "--pin", "271828"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "buzzer.cli", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        printed: list[str] = []
        threading.Thread(target=lambda: printed.extend(proc.stdout or ()), daemon=True).start()
        browser = Zeroconf(ip_version=IPVersion.V4Only)
        try:
            text = _until(lambda: "PIN:" in "".join(printed), printed, "the PIN")
            found = re.search(rf"http://{re.escape(ADDRESS)}:(\d+)/", text)
            assert found and "127.0.0.1" not in text, text
            port = int(found.group(1))
            # The name is printed once claimed, after the PIN: the start waits for nothing.
            mdns_line = rf"http://(svoyak(?:-\d+)?)\.local:{port}/\s+\(mDNS\)"
            assert re.search(mdns_line, text) is None, "the start waited for the mDNS name"
            text = _until(lambda: re.search(mdns_line, "".join(printed)), printed, "the name")
            named = re.search(mdns_line, text)
            assert named and named.group(1) == "svoyak", text  # nobody else in this LAN
            # `svoyak pin` reads the name too, once claimed.
            published = json.loads((Path(state) / "svoyak" / "panel.json").read_text())
            assert f"http://svoyak.local:{port}/" in published["urls"], published
            host = AddressResolverIPv4("svoyak.local.")
            assert host.request(browser, 10_000), "svoyak.local did not resolve"
            assert host.parsed_addresses() == [ADDRESS]
            answer = httpx.get(f"http://{ADDRESS}:{port}/api/state", timeout=10)
            assert answer.status_code == 200 and answer.json()["snapshot"]["players"]
            assert port in _panel_ports(browser)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)
            browser.close()
    late = Zeroconf(ip_version=IPVersion.V4Only)
    try:
        assert port not in _panel_ports(late)  # withdrawn when the game stopped
    finally:
        late.close()


def _until(
    check: Callable[[], object], printed: list[str], what: str, timeout_s: float = 60
) -> str:
    """What ``svoyak run`` printed, once ``check()`` holds (a failure shows it all)."""
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, f"no {what}:\n" + "".join(printed)
        time.sleep(0.05)
    return "".join(printed)


def _panel_ports(zc: Zeroconf) -> set[int]:
    """The ports of the _http._tcp services a short browse of this LAN finds."""
    names: list[str] = []

    def changed(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Added:
            names.append(name)

    browsing = ServiceBrowser(zc, SERVICE_TYPE, handlers=[changed])
    time.sleep(2.0)  # the browser's first queries and their answers
    browsing.cancel()
    infos = (zc.get_service_info(SERVICE_TYPE, name, timeout=2000) for name in names)
    return {info.port for info in infos if info is not None and info.port is not None}


SCENARIOS = {"advertised": advertised, "conflict": conflict, "svoyak_run": svoyak_run}


def main(argv: list[str]) -> int:
    assert lan_addresses() == [ADDRESS], f"not in the private LAN: {lan_addresses()}"
    SCENARIOS[argv[0]]()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
