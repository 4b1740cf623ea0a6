"""The live runtime: the one place that owns time in a running game.

Everything between the input adapters (GPIO, the Pico link, the keyboard,
the panel) and the pure core lives here: the controller (journal first, then
decide), the event-time clock (per-source watermarks), the command gate
(host commands tried on a copy before they are journaled), the input pumps,
the lamp policy, and ``svoyak run``'s composition root.
"""
