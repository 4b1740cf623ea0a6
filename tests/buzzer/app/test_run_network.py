"""The panel's address on the LAN: the interfaces' real IPv4 addresses (not the
127.0.1.1 Debian's host name resolves to), and ``svoyak.local`` through mDNS —
advertised for real and resolved by a second, independent zeroconf instance,
as a tablet would. The advertiser's own scenarios (advertised, withdrawn, a
name another machine defends) and the real ``svoyak run`` advertising its
panel run in a LAN of their own (a network namespace,
tests/support/private_lan.py): nothing there answers but the test's processes,
so they depend neither on this machine's network nor on its neighbours."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from buzzer.appliance.addresses import default_route_ipv4, is_loopback, lan_addresses, rank
from buzzer.appliance.mdns import PanelAdvertiser, host_names, service_info
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


def test_svoyak_run_prints_the_lan_address_and_svoyak_local() -> None:
    """The real process on every interface of a LAN of its own: the LAN address first
    (the board's QR code), the PIN, then, once claimed, the mDNS name; both reach the
    panel; stopping withdraws the name (tests/support/mdns_scenarios.svoyak_run)."""
    in_private_lan("svoyak_run")


def test_no_mdns_means_none_is_advertised(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    args = ("--headless", "--port", "0", "--no-journal", "--no-mdns")
    with served(*args, env=env) as (_url, out):
        assert "mDNS" not in "".join(out) and ".local" not in "".join(out)
