"""The panel on the LAN by name: ``http://svoyak.local:P/`` through mDNS (zeroconf).

An IP address from the club's DHCP changes from one evening to the next; a
name does not. The panel is advertised as an ``_http._tcp.local.`` service
(a tablet's or a laptop's "network" browser lists it) whose host is
``svoyak.local``, answered with this machine's LAN addresses, so a browser
on Android, iOS, macOS, Windows 10+ or Linux with Avahi opens
``http://svoyak.local:8000/``.

Advertising is best effort, never a reason not to play: no network, a
firewall, a multicast-deaf Wi-Fi are a printed warning, and the panel's IP
address (printed, and in the board's QR code) works regardless. A host name
another machine on the LAN already answers for is left to it: the next free
one is taken (``svoyak-2.local``, ``svoyak-3.local``, …); the service's
instance name is made unique by zeroconf itself. The service is withdrawn
(a goodbye, TTL 0) when the game stops, so tablets' caches drop it at once.

The registration (zeroconf probes its names for about two seconds) runs in
its own thread, beside the rest of the start-up (the Pico's handshake, the
board window).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Sequence
from typing import Any

from buzzer.errors import SvoyakError

#: The host name asked for first; ``svoyak-2`` … when it is taken.
DEFAULT_NAME = "svoyak"
#: The service's instance name: what a service browser lists.
INSTANCE = "Своя игра — пульт ведущего"
SERVICE_TYPE = "_http._tcp.local."
#: Host names tried in turn: svoyak, svoyak-2, … svoyak-9.
ATTEMPTS = 9


class MdnsError(SvoyakError):
    """The panel could not be advertised (the message says why)."""


def host_names(base: str = DEFAULT_NAME, attempts: int = ATTEMPTS) -> list[str]:
    """The host names to try, in order (without ``.local``)."""
    return [base] + [f"{base}-{n}" for n in range(2, attempts + 1)]


def service_info(port: int, addresses: Sequence[str], host: str, instance: str = INSTANCE) -> Any:
    """The service record: ``instance`` at ``host``.local, ``port``, on ``addresses``.

    The TXT record's ``path`` is the standard key of ``_http._tcp`` (the host's
    panel is at ``/``); ``viewer`` names the players' and audience's page.
    """
    from zeroconf import ServiceInfo

    from buzzer import __version__

    return ServiceInfo(
        SERVICE_TYPE,
        f"{instance}.{SERVICE_TYPE}",
        port=port,
        addresses=[socket.inet_aton(a) for a in addresses],
        server=f"{host}.local.",
        properties={"path": "/", "viewer": "/view", "app": "svoyak", "version": __version__},
    )


class PanelAdvertiser:
    """Advertises the panel in a thread; :meth:`wait` for the outcome, :meth:`close` at the end.

    ``probe_s``: how long to listen for another machine answering for a host
    name before taking it (mDNS answers within a few hundred ms).
    """

    def __init__(
        self,
        port: int,
        addresses: Sequence[str],
        *,
        base: str = DEFAULT_NAME,
        instance: str = INSTANCE,
        probe_s: float = 1.0,
    ) -> None:
        self.port = port
        self.addresses = tuple(addresses)
        self.base = base
        self.instance = instance
        self.probe_s = probe_s
        #: The host name advertised (``svoyak.local``), once registered.
        self.host: str | None = None
        #: Why it was not advertised, once that is known.
        self.error: str | None = None
        #: The registered service record (its name as zeroconf made it unique).
        self.info: Any = None
        self._zeroconf: Any = None
        self._lock = threading.Lock()
        self._closed = False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="svoyak-mdns", daemon=True)

    def start(self) -> PanelAdvertiser:
        self._thread.start()
        return self

    def wait(self, timeout: float) -> bool:
        """True once the outcome is known (``host`` or ``error`` set) within ``timeout`` s."""
        return self._done.wait(timeout)

    @property
    def url(self) -> str | None:
        return None if self.host is None else f"http://{self.host}:{self.port}/"

    def _run(self) -> None:
        try:
            self._advertise()
        except MdnsError as exc:
            self.error = str(exc)
        except Exception as exc:  # zeroconf's own errors, sockets: a warning, never a crash
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self._done.set()

    def _advertise(self) -> None:
        from zeroconf import IPVersion, Zeroconf

        if not self.addresses:
            raise MdnsError("no LAN address (is the network up?)")
        try:
            # Every interface: the records name the LAN addresses alone, whichever
            # network a question comes in on (and zeroconf, bound to chosen addresses
            # only, misses the first answers to its own probes for a second or more).
            zc = Zeroconf(ip_version=IPVersion.V4Only)
        except OSError as exc:
            raise MdnsError(f"cannot open the mDNS socket: {exc.strerror or exc}") from exc
        with self._lock:
            if self._closed:
                zc.close()
                return
            self._zeroconf = zc
        for host in host_names(self.base):
            if self._taken(zc, host):
                continue
            info = service_info(self.port, self.addresses, host, self.instance)
            zc.register_service(info, allow_name_change=True)
            with self._lock:
                self.info = info
                self.host = f"{host}.local"
                if self._closed:  # close() came while registering: withdraw at once
                    self._withdraw()
            return
        raise MdnsError(f"{self.base}.local … {host_names(self.base)[-1]}.local are all taken")

    def _taken(self, zc: Any, host: str) -> bool:
        """Does another machine answer for ``host``.local? (This one's own Avahi does not count.)"""
        # Public (zeroconf's docs), though missing from its __all__.
        from zeroconf import AddressResolverIPv4  # type: ignore[attr-defined]

        resolver = AddressResolverIPv4(f"{host}.local.")
        if not resolver.request(zc, self.probe_s * 1000):
            return False
        return not set(resolver.parsed_addresses()) <= set(self.addresses)

    def _withdraw(self) -> None:
        zc, info = self._zeroconf, self.info
        self._zeroconf = self.info = None
        if zc is None:
            return
        try:
            if info is not None:
                zc.unregister_service(info)
        finally:
            zc.close()

    def close(self, timeout: float = 3.0) -> None:
        """Withdraw the service (goodbye packets) and close the sockets; idempotent."""
        with self._lock:
            self._closed = True
            if self._done.is_set() or self.info is not None:
                self._withdraw()
        if self._thread.is_alive():
            self._thread.join(timeout)
        with self._lock:
            if self._zeroconf is not None:
                self._withdraw()
