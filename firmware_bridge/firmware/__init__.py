"""The Pico's firmware: ``main.py`` (hardware glue, MicroPython only) and
``logic.py`` (pure, shared with the host's emulator and tests).

On the Pico both files sit flat in the root of its file system; this
``__init__`` exists only so that the host can import ``logic``.
"""
