"""``svoyak doctor``'s check of the panel's address on the club's network.

The address a tablet reaches the host's panel at (and the mDNS name), or the
fault that leaves only 127.0.0.1.
"""

from __future__ import annotations

from buzzer.app.doctor import (
    FAIL,
    PASS,
    Host,
    Setup,
    Verdict,
    Words,
)

# -- the panel's address -------------------------------------------------------------------


def check_lan(setup: Setup, host: Host) -> Verdict:
    """The address a tablet on the club's network reaches the panel at."""
    addresses = host.lan_addresses()
    lan = [a for a in addresses if not a.startswith("127.")]
    port = setup.panel_port
    data = {"addresses": lan, "port": port}
    if not lan:
        return Verdict(
            "lan",
            FAIL,
            Words.of("doctor.lan.no_network_only_127"),
            Words.of("doctor.lan.join_wi_fi_sudo"),
            data,
        )
    urls = [f"http://{address}:{port}/" for address in lan]
    data["urls"] = urls
    also = ", ".join(urls[1:])
    return Verdict(
        "lan",
        PASS,
        Words.of(
            "doctor.lan.panel",
            url=urls[0],
            also=Words.of("doctor.lan.also", urls=also) if also else "",
            port=port,
        ),
        None,
        data,
    )
