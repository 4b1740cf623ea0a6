"""The live runtime: the one place that owns time in a running game.

Everything between the input adapters (GPIO, the Pico link, the keyboard,
the panel) and the pure core lives here: the controller (journal first, then
decide), the event-time clock (per-source watermarks), the host-command
service (every entrance's host commands: ids, the pause, staleness, tried on a
copy before they are journaled, the refusal's sentence), the input pumps and
the lamp policy. It imports no adapter: ``svoyak run``'s composition root,
which wires the adapters to it, is :mod:`buzzer.app`.
"""
