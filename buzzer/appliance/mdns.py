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

Whether a host name is taken is asked the way RFC 6762 (section 8.1) says a
name is claimed: probes (a question for the name with the records this
machine proposes in the Authority section), three of them 250 ms apart, and
any answer for the name heard from the first probe until ``probe_s`` after
the last is the owner defending it. A responder answers a probe at once, not
held back by the once-a-second limit on multicasting a record (section 6)
that may delay an ordinary question's answer by a second. The probes ask for
multicast answers (no "QU" bit): a unicast answer reaches only one of the
sockets bound to port 5353 on this computer (an Avahi, another zeroconf
program), maybe not this one, so a program that may not be the only mDNS
responder here must not ask for them (section 15.1).

The registration (the probes, then zeroconf's own probes of the service
name: about three seconds) runs in its own thread, beside the rest of the
start-up (the Pico's handshake, the board window).
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
#: Probes of a host name, and the time between them (RFC 6762 section 8.1).
PROBES = 3
PROBE_INTERVAL_S = 0.25
#: The host records' TTL, as zeroconf gives them (RFC 6762 section 10: 120 s).
HOST_TTL = 120
# DNS numbers (RFC 1035 section 3.2): zeroconf keeps its constants private.
_TYPE_A = 1
_TYPE_ANY = 255
_CLASS_IN = 1


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

    ``probe_s``: how long to listen, after the last probe of a host name, for
    another machine defending it before taking it (RFC 6762 asks 250 ms; a
    responder answers a probe at once, the rest is room for a busy machine
    and a slow Wi-Fi).
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
        """Does another machine answer for ``host``.local? (This one's own Avahi does not count.)

        An answer counts when it gives the name an IPv4 address that is not
        one of ours; a goodbye (TTL 0) is the owner letting the name go.
        """
        # DNS* are zeroconf's public names (its docs, its own examples), though
        # missing from its __all__.
        from zeroconf import (  # type: ignore[attr-defined]
            DNSAddress,
            DNSOutgoing,
            DNSQuestion,
            RecordUpdate,
            RecordUpdateListener,
            Zeroconf,
        )

        name = f"{host}.local."
        ours = set(self.addresses)
        defended = threading.Event()

        class Defence(RecordUpdateListener):
            """Every record of every response this zeroconf hears, in its event loop."""

            def async_update_records(
                self, zc: Zeroconf, now: float, records: list[RecordUpdate]
            ) -> None:
                for update in records:
                    record = update.new
                    if (
                        isinstance(record, DNSAddress)
                        and record.type == _TYPE_A
                        and record.ttl > 0
                        and record.name.lower() == name.lower()
                        and socket.inet_ntoa(record.address) not in ours
                    ):
                        defended.set()

        # A query (id 0, RFC 6762 section 18.1) for any record of the name, multicast
        # answers asked (QM); the Authority section makes it a probe. The name's A
        # record is asked too: zeroconf answers no ANY question for a host name.
        probe = DNSOutgoing(0)
        probe.add_question(DNSQuestion(name, _TYPE_ANY, _CLASS_IN))
        probe.add_question(DNSQuestion(name, _TYPE_A, _CLASS_IN))
        for address in self.addresses:
            proposed = DNSAddress(name, _TYPE_A, _CLASS_IN, HOST_TTL, socket.inet_aton(address))
            # Into the list itself: zeroconf's add_authorative_answer takes a PTR record
            # alone (its compiled code checks), and the list is annotated alike; any
            # record is written from it all the same.
            probe.authorities.append(proposed)  # type: ignore[arg-type]
        listener = Defence()
        # Both go through the event loop in this order: listening before the first probe.
        zc.add_listener(listener, None)
        try:
            for sent in range(1, PROBES + 1):
                zc.send(probe)
                if defended.wait(PROBE_INTERVAL_S if sent < PROBES else self.probe_s):
                    return True
            return False
        finally:
            zc.remove_listener(listener)

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
