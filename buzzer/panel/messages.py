"""What the panel itself tells the host (the PIN, the origin, the demo): Russian first.

A refused host command's sentences are the host-command service's
(``buzzer/runtime/refusals.py``), whichever entrance the command came by; the
panel only says what is its own: the session, the request's origin, the demo's
routes. The sentences are the catalogue's ``refusal`` namespace
(``buzzer/words/*.json``).
"""

from __future__ import annotations

from buzzer.runtime.refusals import Message, no_such_seat, say

__all__ = [
    "FOREIGN_ORIGIN",
    "NOT_DEMO",
    "PIN_REQUIRED",
    "WRONG_PIN",
    "Message",
    "no_such_seat",
    "rate_limited",
    "say",
]

PIN_REQUIRED = Message("pin_required", *say("pin_required"))
WRONG_PIN = Message("wrong_pin", *say("wrong_pin"))
FOREIGN_ORIGIN = Message("foreign_origin", *say("foreign_origin"))
NOT_DEMO = Message("not_demo", *say("not_demo"))


def rate_limited(seconds: int) -> Message:
    return Message("rate_limited", *say("rate_limited", seconds=seconds))
