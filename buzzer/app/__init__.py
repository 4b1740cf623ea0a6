"""``svoyak run``'s composition root: the one place that wires the adapters.

The runtime (:mod:`buzzer.runtime`) owns time and knows no device; the
adapters (GPIO in :mod:`hardware`, the Pico in :mod:`firmware_bridge`, the
board in :mod:`display`, the panel in :mod:`buzzer.panel`) each know one device
and nothing of the others. Something has to pick the adapters a machine has and
plug them into one runtime: that is this package, and only this package (the
layer contract in ``pyproject.toml``, docs/design.md). ``run_command`` is the
command itself, ``inputs`` attaches buttons and lamps (GPIO or the Pico),
``board`` runs the pygame window on the main thread beside the panel.
"""
