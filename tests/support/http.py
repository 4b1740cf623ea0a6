"""The tests' HTTP client: one place that knows how long to keep a connection.

uvicorn closes a kept-alive connection after ``ConnectionLimits.keep_alive_s``
(5 s) of silence. A client that reuses such a connection in the same instant
the server closes it gets "Server disconnected without sending a response" for
a POST it may not retry (seen once in CI after a test spent 5 s taking
Chromium screenshots between two commands). The tests' clients drop an idle
connection after 1 s, well before the server does, so the race cannot happen;
what the tests check (answers, statuses, cookies) does not depend on reuse.
"""

from __future__ import annotations

from typing import Any

import httpx

#: Seconds an idle connection is kept: well under the server's 5 s.
KEEP_ALIVE_S = 1.0


def http_client(**kwargs: Any) -> httpx.Client:
    """An ``httpx.Client`` whose idle connections expire before the server's do."""
    kwargs.setdefault("limits", httpx.Limits(keepalive_expiry=KEEP_ALIVE_S))
    return httpx.Client(**kwargs)
