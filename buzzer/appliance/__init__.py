"""The Raspberry Pi appliance around a game: the pieces ``svoyak run`` and ``svoyak doctor`` add.

A game needs none of them: the runtime (:mod:`buzzer.runtime`) owns time and
decides, and replay decides the same without a network. These are what make a
Pi on a club's LAN an appliance a host can walk up to:

- :mod:`buzzer.appliance.addresses` — the panel's addresses: this machine's LAN
  IPv4 addresses, the one on the default route first (what a tablet types, and
  the board's QR code);
- :mod:`buzzer.appliance.mdns` — its mDNS name: ``http://svoyak.local:P/``
  advertised through zeroconf, a taken name left to its owner;
- :mod:`buzzer.appliance.hostpin` — the PIN file ``svoyak pin`` reads: the host's
  PIN and the panel's addresses in a ``0600`` file, never on the board.

Its own layer beside the runtime (the layer contract in ``pyproject.toml``,
docs/design.md): neither imports the other, and nothing in the pure core
imports it.
"""
