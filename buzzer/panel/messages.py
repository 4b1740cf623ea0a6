"""What the panel itself tells the host (the PIN, the origin, the demo): Russian first.

A refused host command's sentences are the host-command service's
(``buzzer/runtime/refusals.py``), whichever entrance the command came by; the
panel only says what is its own: the session, the request's origin, the demo's
routes.
"""

from __future__ import annotations

from buzzer.runtime.refusals import Message, no_such_seat

__all__ = [
    "FOREIGN_ORIGIN",
    "NOT_DEMO",
    "PIN_REQUIRED",
    "WRONG_PIN",
    "Message",
    "no_such_seat",
    "rate_limited",
]

PIN_REQUIRED = Message(
    "pin_required",
    "Нужен PIN ведущего: войдите на странице панели.",
    "The host's PIN is needed: log in on the panel page.",
)
WRONG_PIN = Message("wrong_pin", "Неверный PIN.", "Wrong PIN.")
FOREIGN_ORIGIN = Message(
    "foreign_origin",
    "Команда пришла с чужой страницы и отклонена.",
    "The command came from another site's page and was refused.",
)
NOT_DEMO = Message(
    "not_demo",
    "Имитация кнопок есть только в демо-режиме.",
    "Simulated buttons exist only in the demo mode.",
)


def rate_limited(seconds: int) -> Message:
    return Message(
        "rate_limited",
        f"Слишком много попыток ввести PIN: подождите {seconds} с.",
        f"Too many PIN attempts: wait {seconds} s.",
    )
