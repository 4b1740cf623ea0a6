"""The panel's address on the LAN: the interfaces' real IPv4 addresses (not the
127.0.1.1 Debian's host name resolves to), and ``svoyak.local`` through mDNS —
advertised for real and resolved by a second, independent zeroconf instance,
as a tablet would. The advertiser's own scenarios (advertised, withdrawn, a
name another machine defends) run in a LAN of their own (a network namespace,
tests/support/private_lan.py): nothing there answers but the test's processes,
so they depend neither on this machine's network nor on its neighbours."""

from __future__ import annotations

import json
import os
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from zeroconf import (  # type: ignore[attr-defined]
    AddressResolverIPv4,
    IPVersion,
    ServiceBrowser,
    ServiceStateChange,
    Zeroconf,
)

from buzzer.appliance.addresses import default_route_ipv4, is_loopback, lan_addresses, rank
from buzzer.appliance.mdns import SERVICE_TYPE, PanelAdvertiser, host_names, service_info
from tests.buzzer.panel.test_panel_cli import served
from tests.support import private_lan


def test_the_default_route_comes_first_and_virtual_interfaces_are_left_out() -> None:
    interfaces = [
        ("lo", "127.0.0.1"),
        ("docker0", "172.17.0.1"),
        ("br-5f2a", "172.18.0.1"),
        ("veth12", "10.200.0.1"),
        ("eth0", "169.254.10.20"),  # no DHCP answer: link-local, no tablet there
        ("eth0", "10.0.0.7"),
        ("wlan0", "192.168.1.23"),
    ]
    assert rank(interfaces, "192.168.1.23") == ["192.168.1.23", "10.0.0.7"]
    assert rank(interfaces, None) == ["10.0.0.7", "192.168.1.23"]
    # The kernel's route source counts even if the interface list missed it.
    assert rank([("lo", "127.0.0.1")], "10.1.2.3") == ["10.1.2.3"]
    # No network at all: this computer only, as the last resort.
    assert rank([("lo", "127.0.0.1"), ("docker0", "172.17.0.1")], None) == ["127.0.0.1"]


def test_this_machines_lan_addresses_are_its_own_and_the_routes_first() -> None:
    found = lan_addresses("0.0.0.0")
    assert found
    route = default_route_ipv4()
    if route is not None:
        assert found[0] == route
    if found != ["127.0.0.1"]:
        assert not any(is_loopback(a) for a in found)
    for address in found:  # an address one can bind to is this machine's own
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind((address, 0))


def test_an_explicit_listening_address_is_the_only_one() -> None:
    assert lan_addresses("127.0.0.1") == ["127.0.0.1"]
    assert lan_addresses("::1") == ["[::1]"]
    assert is_loopback("127.0.0.1") and is_loopback("[::1]") and is_loopback("localhost")
    assert not is_loopback("192.168.1.5") and not is_loopback("0.0.0.0")


def lan() -> list[str]:
    found = [a for a in lan_addresses() if not is_loopback(a)]
    assert found, "this machine has no LAN address: mDNS cannot be tested"
    return found


@pytest.fixture
def browser() -> Iterator[Zeroconf]:
    """Another zeroconf instance on this machine: the tablet's side of the LAN."""
    zc = Zeroconf(ip_version=IPVersion.V4Only)
    yield zc
    zc.close()


def test_the_service_record_says_where_the_panel_is() -> None:
    info = service_info(8123, ["192.168.1.23", "10.0.0.7"], "svoyak")
    assert info.type == "_http._tcp.local."
    assert info.name == "Своя игра — пульт ведущего._http._tcp.local."
    assert info.server == "svoyak.local." and info.port == 8123
    assert info.parsed_addresses() == ["192.168.1.23", "10.0.0.7"]
    assert info.properties[b"path"] == b"/" and info.properties[b"viewer"] == b"/view"
    assert host_names("svoyak", 3) == ["svoyak", "svoyak-2", "svoyak-3"]


def in_private_lan(scenario: str) -> None:
    """A scenario of tests/support/mdns_scenarios.py in a network namespace of its own:
    not the machine's real network (no LAN address, a multicast-deaf interface,
    another svoyak nearby) and nobody's answers but the scenario's own."""
    done = private_lan.run("tests.support.mdns_scenarios", scenario)
    assert done.returncode == 0 and done.stdout.rstrip().endswith("ok"), done.stdout


def test_the_panel_is_advertised_resolved_and_withdrawn() -> None:
    in_private_lan("advertised")


def test_a_host_name_another_machine_answers_for_is_left_to_it() -> None:
    in_private_lan("conflict")


def test_no_lan_address_is_a_warning_not_a_crash() -> None:
    advertiser = PanelAdvertiser(8125, []).start()
    assert advertiser.wait(5)
    assert advertiser.host is None and advertiser.url is None
    assert "no LAN address" in (advertiser.error or "")
    advertiser.close()


def test_svoyak_run_prints_the_lan_address_and_svoyak_local(
    tmp_path: Path, browser: Zeroconf
) -> None:
    """The real process on every interface: the LAN address first (the board's QR
    code), the PIN, and then, once claimed, the mDNS name; both reach the panel;
    stopping withdraws the name."""
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    args = ("--headless", "--port", "0", "--no-journal", "--pin", "271828")
    with served(*args, env=env) as (url, out):
        printed = "".join(out)
        assert "127.0.0.1" not in printed or lan_addresses() == ["127.0.0.1"]
        assert url.startswith(f"http://{lan()[0]}:")
        port = int(url.rsplit(":", 1)[1])
        # The name is printed once claimed, after the PIN: the start waits for nothing.
        mdns_line = rf"http://(svoyak(?:-\d+)?)\.local:{port}/\s+\(mDNS\)"
        assert re.search(mdns_line, printed) is None, "the start waited for the mDNS name"
        deadline = time.monotonic() + 15
        while (named := re.search(mdns_line, "".join(out))) is None:
            assert time.monotonic() < deadline, "".join(out)
            time.sleep(0.1)
        # `svoyak pin` reads the name too, once claimed.
        published = json.loads((tmp_path / "state" / "svoyak" / "panel.json").read_text())
        assert f"http://{named.group(1)}.local:{port}/" in published["urls"], published
        host = AddressResolverIPv4(f"{named.group(1)}.local.")
        assert host.request(browser, 5000), "svoyak.local did not resolve"
        resolved = host.parsed_addresses()
        assert set(resolved) <= set(lan())
        state = httpx.get(f"http://{resolved[0]}:{port}/api/state", timeout=10)
        assert state.status_code == 200 and state.json()["snapshot"]["players"]
        assert port in panel_ports(browser)
    late = Zeroconf(ip_version=IPVersion.V4Only)
    try:
        assert port not in panel_ports(late)  # withdrawn when the game stopped
    finally:
        late.close()


def panel_ports(zc: Zeroconf) -> set[int]:
    """The ports of the _http._tcp services a short browse of the LAN finds."""
    names: list[str] = []

    def changed(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Added:
            names.append(name)

    browser = ServiceBrowser(zc, SERVICE_TYPE, handlers=[changed])
    time.sleep(2.0)  # the browser's first queries and their answers
    browser.cancel()
    infos = (zc.get_service_info(SERVICE_TYPE, name, timeout=2000) for name in names)
    return {info.port for info in infos if info is not None and info.port is not None}


def test_no_mdns_means_none_is_advertised(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    args = ("--headless", "--port", "0", "--no-journal", "--no-mdns")
    with served(*args, env=env) as (_url, out):
        assert "mDNS" not in "".join(out) and ".local" not in "".join(out)
