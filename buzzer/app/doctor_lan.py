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
            Words(
                "нет сети: только 127.0.0.1, планшет ведущего не подключится",
                "no network: only 127.0.0.1, the host's tablet cannot connect",
            ),
            Words(
                "подключите Wi-Fi (sudo nmtui) или кабель, затем sudo systemctl restart svoyak "
                "(адрес читается при старте)",
                "join the Wi-Fi (sudo nmtui) or plug a cable in, then sudo systemctl restart "
                "svoyak (it reads the address at start)",
            ),
            data,
        )
    urls = [f"http://{address}:{port}/" for address in lan]
    data["urls"] = urls
    also = ", ".join(urls[1:])
    return Verdict(
        "lan",
        PASS,
        Words(
            f"панель ведущего: {urls[0]}{' (и ' + also + ')' if also else ''}; "
            f"по mDNS: http://svoyak.local:{port}/",
            f"the host's panel: {urls[0]}{' (and ' + also + ')' if also else ''}; "
            f"by mDNS: http://svoyak.local:{port}/",
        ),
        None,
        data,
    )
