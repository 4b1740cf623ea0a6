"""The addresses a tablet can reach the panel at: this machine's LAN IPv4 addresses.

``svoyak run`` listens on every interface, but "every interface" is no
address to type or to put in a QR code. On Debian and Raspberry Pi OS the
host name resolves to 127.0.1.1 (``/etc/hosts``), so asking the resolver
finds nothing a tablet could use. The interfaces themselves are asked
instead (``getifaddrs(3)`` through ``ifaddr``, zeroconf's own dependency),
and the address the kernel would send from on the default route (a UDP
socket ``connect``, which sends nothing) comes first: on a Pi with Wi-Fi and
Ethernet, that is the network the club's router (and its tablets) is on.

Loopback is the last fallback (a machine with no network at all still
serves this computer's own browser); link-local addresses and container
bridges (docker, libvirt, podman) are left out: no tablet is on them.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable

#: Interfaces of containers and virtual machines on this computer: no tablet is there.
VIRTUAL_PREFIXES = ("docker", "br-", "veth", "virbr", "vnet", "lxcbr", "lxdbr", "cni", "podman")

#: A destination off every LAN (TEST-NET-3, RFC 5737): connecting a UDP socket to
#: it asks the kernel for the default route's source address; no packet is sent.
_OFF_LINK = "203.0.113.1"

WILDCARDS = ("0.0.0.0", "::", "")


def default_route_ipv4() -> str | None:
    """The source address of the default route, or None (no default route, no network)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((_OFF_LINK, 9))
            address = str(probe.getsockname()[0])
    except OSError:
        return None
    return None if address == "0.0.0.0" else address


def interface_ipv4() -> list[tuple[str, str]]:
    """Every interface's IPv4 addresses, as (interface name, address), in the OS's order."""
    try:
        import ifaddr
    except ImportError:  # pragma: no cover - a dependency of zeroconf, always installed
        return []
    found: list[tuple[str, str]] = []
    try:
        adapters = ifaddr.get_adapters()
    except OSError:
        return []
    for adapter in adapters:
        for ip in adapter.ips:
            if isinstance(ip.ip, str):  # IPv6 addresses come as tuples
                found.append((str(adapter.nice_name), ip.ip))
    return found


def _usable(name: str, address: str) -> bool:
    ip = ipaddress.IPv4Address(address)
    if ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip.is_multicast:
        return False
    return not name.startswith(VIRTUAL_PREFIXES)


def rank(interfaces: Iterable[tuple[str, str]], route: str | None) -> list[str]:
    """The usable LAN addresses, the default route's first; loopback when there is none.

    ``route`` counts even if the interface list missed it (the kernel said so).
    """
    lan: list[str] = []
    if route is not None and not ipaddress.IPv4Address(route).is_loopback:
        lan.append(route)
    for name, address in interfaces:
        if address not in lan and _usable(name, address):
            lan.append(address)
    return lan or ["127.0.0.1"]


def lan_addresses(host: str = "0.0.0.0") -> list[str]:
    """How the panel listening on ``host`` can be reached, the best address first.

    A wildcard (every interface): this machine's LAN addresses; a given
    address: that one alone (bracketed for IPv6, ready for a URL).
    """
    if host not in WILDCARDS:
        return [f"[{host}]" if ":" in host else host]
    found = rank(interface_ipv4(), default_route_ipv4())
    if found == ["127.0.0.1"]:
        # No interface answered (not Linux/BSD/macOS/Windows?): the resolver's word.
        try:
            infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        except OSError:
            infos = []
        resolved = [("", str(info[4][0])) for info in infos]
        found = rank(resolved, None)
    return found


def is_loopback(host: str) -> bool:
    """True for a listening address only this computer can reach (127.x, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
