"""GPIO buttons and lamps behind an injected gpiozero pin factory, and the self-test.

Devices here never decide who answers: they stamp edges with the pin
factory's own time of the edge and hand them to the controller.

| module | job |
|---|---|
| ``pinmap`` | the TOML pin map, validated (``pinmap.example.toml``) |
| ``edgeclock`` | a pin factory's edge ``ticks`` → host monotonic ns |
| ``buttons`` | ``ButtonBank``: stamped presses, hold-off, stuck buttons, host buttons |
| ``lamps`` | ``LampBoard``: podium and signal lamps, the shared lamp policy on gpiozero |
| ``selftest``, ``report``, ``histogram`` | ``svoyak selftest`` |
| ``checkbuttons`` | ``svoyak check-buttons`` |
| ``factory`` | choosing the pin factory and the pin map file at the program's edge |
| ``cli`` | the ``svoyak`` subcommands (kept light) |

See ``docs/raspberry-pi-gpio.md``.
"""
