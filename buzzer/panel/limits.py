"""The panel's request bodies: the limits per route and the words of its 413.

Every body the panel takes is a few dozen bytes of JSON (a PIN, a command with
a 200-character reason at most). Without a bound, one 10 MB body of a million
keys to ``POST /api/login`` is read whole, parsed and validated on the event
loop: every host command waits behind it for seconds. The bound is
:class:`buzzer.web_limits.BodyLimit` (shared with the tournament server),
outside everything else of the app.

At these sizes the JSON itself is cheap: 8 KB nested as deep as it can go
is refused by the parser's recursion guard in microseconds, and 8 KB of keys
is about a thousand of them (a millisecond of validation).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from buzzer.panel import messages

#: Bytes of body a route takes: the PIN (32 characters at most) and the host's
#: commands (an id of 100, a reason of 200 characters, even \\u-escaped).
ROUTE_LIMITS: Mapping[str, int] = {
    "/api/login": 1024,
    "/api/command": 8192,
}
#: Every other route (logout, alerts, the simulated buttons).
DEFAULT_LIMIT = 4096

TOO_LARGE = messages.Message("too_large", *messages.say("too_large"))
#: The 413's JSON body.
TOO_LARGE_BODY = json.dumps(TOO_LARGE.body(), ensure_ascii=False).encode()
