"""The panel's mDNS advertisement, played inside a private LAN (``private_lan.py``).

``python -m tests.support.mdns_scenarios NAME``: each scenario asserts, and
prints ``ok`` at the end; ``tests/buzzer/app/test_run_network.py`` runs them
in a network namespace of their own, so nothing but the scenario's own
processes answers there.
"""

from __future__ import annotations

import socket
import sys

from zeroconf import (  # type: ignore[attr-defined]
    AddressResolverIPv4,
    IPVersion,
    ServiceInfo,
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


SCENARIOS = {"advertised": advertised, "conflict": conflict}


def main(argv: list[str]) -> int:
    assert lan_addresses() == [ADDRESS], f"not in the private LAN: {lan_addresses()}"
    SCENARIOS[argv[0]]()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
