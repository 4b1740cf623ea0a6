"""The host's PIN, the session cookie, and the limit on PIN attempts.

A phone on the club's Wi-Fi must not be able to judge its owner's answer:
every host action needs the PIN. ``POST /api/login`` trades the PIN for a
session cookie (HttpOnly, SameSite=Strict: a page's script cannot read it,
and another site cannot make the browser send it). Wrong PINs are counted
per client address: after ``max_failures`` within ``window_s`` seconds that
client is refused (429) until the oldest failure ages out, whatever PIN it
sends, so the 10⁶ six-digit PINs cannot be tried in a game's time. The
counting is ``buzzer/attempts.py``'s ``FailureLimit`` (the tournament
server's rooms' tokens use it too), with at most ``max_clients`` (4,096)
addresses remembered.

Fresh addresses gain nothing: besides the per-address limit, an **overall**
budget counts every address's wrong PINs together. ``overall_failures`` (10)
within ``window_s`` and every *new* login is refused (429) for a backoff that
doubles each time the budget is spent again — ``window_s`` × 2^(k−1) for the
k-th time, at most ``max_backoff_s`` (15 min) — until a right PIN starts it
over. Sessions already open are never touched: the host logged in keeps
playing; only a new login waits. docs/panel.md gives the arithmetic.

At most ``max_sessions`` sessions are open at once: a login past that ends the
oldest. A session ended (a logout, ``logout_all``, the oldest evicted) is told
to ``on_end`` (the hub closes that session's host sockets at once, 1008).
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable, Collection

from buzzer.attempts import FailureLimit

COOKIE = "svoyak_session"
#: Wrong PINs from all addresses together within the window before every new login waits.
OVERALL_FAILURES = 10
#: The longest the whole server's backoff grows to (seconds).
MAX_BACKOFF_S = 15 * 60.0
#: Host sessions open at once (the host's tablet, a phone, a laptop, a spare): a
#: login past this ends the oldest session.
MAX_SESSIONS = 4


#: The fewest digits a PIN may have. The overall budget lets the whole /24 try at
#: most 520 PINs in 12 h (docs/panel.md, Security): against the 10⁶ PINs of 6 digits
#: that is a 0.05 % chance in a game night; against 10⁴ (4 digits) it was 5 %.
MIN_DIGITS = 6
#: The most digits a PIN may have: what the panel's number pad takes (host.js stops
#: at 6 digits), so every PIN accepted here can be typed there. Longer PINs need both.
MAX_DIGITS = 6
#: How many PINs the whole /24 may try in a 12 h night, at worst (docs/panel.md).
NIGHT_GUESSES = 520


def _digits_wanted() -> str:
    if MIN_DIGITS == MAX_DIGITS:
        return f"{MIN_DIGITS} digits"
    return f"{MIN_DIGITS} to {MAX_DIGITS} digits"


def new_pin(digits: int = MIN_DIGITS) -> str:
    """A random PIN of ``digits`` digits (:data:`MIN_DIGITS` to :data:`MAX_DIGITS`)."""
    if not MIN_DIGITS <= digits <= MAX_DIGITS:
        raise ValueError(f"a PIN has {_digits_wanted()}")
    return f"{secrets.randbelow(10**digits):0{digits}d}"


def check_pin(pin: str) -> str:
    """A PIN someone chose (``--pin``, ``$SVOYAK_PIN``, ``[panel] pin``): the digits
    0–9 only, :data:`MIN_DIGITS` to :data:`MAX_DIGITS` of them. Else a ValueError of
    three lines a technician can act on: what is wrong, why, what to do. It never
    repeats the PIN (it may be printed where others see it), only its length."""
    digits_only = pin.isascii() and pin.isdigit()
    if digits_only and MIN_DIGITS <= len(pin) <= MAX_DIGITS:
        return pin
    where = "the host's PIN (--pin, $SVOYAK_PIN or [panel] pin of --config)"
    wanted = _digits_wanted()
    how = (
        f"choose {wanted} at random (not a date, not 123456, not 000000), e.g. "
        "python3 -c 'import secrets; "
        f'print(f"{{secrets.randbelow(10**{MIN_DIGITS}):0{MIN_DIGITS}d}}")\', '
        "or set no PIN: svoyak run then draws a random one and prints it"
    )
    if not digits_only:
        what = f"{where} must be {wanted}, 0-9 only"
        why = "the host types it on the panel's number pad"
    elif len(pin) > MAX_DIGITS:
        what = f"{where} has {len(pin)} digits; it must have {wanted}"
        why = f"the panel's number pad takes at most {MAX_DIGITS}"
    else:
        what = f"{where} has {len(pin)} digits, too few to be safe; it must have {wanted}"
        why = (
            f"anyone on the Wi-Fi can try up to {NIGHT_GUESSES} PINs in a game night "
            f"despite the limits: a {len(pin)}-digit PIN falls with a "
            f"{NIGHT_GUESSES / 10 ** len(pin) * 100:.2g} % chance, a {MIN_DIGITS}-digit "
            f"one with {NIGHT_GUESSES / 10**MIN_DIGITS * 100:.2g} % (docs/panel.md, Security)"
        )
    raise ValueError(f"{what}\nwhy: {why}\nwhat to do: {how}")


class PinGuard:
    """Sessions and the rate limit; thread-safe."""

    def __init__(
        self,
        pin: str,
        *,
        max_failures: int = 5,
        window_s: float = 60.0,
        max_clients: int = 4096,
        overall_failures: int = OVERALL_FAILURES,
        max_backoff_s: float = MAX_BACKOFF_S,
        session_s: float = 12 * 3600.0,
        max_sessions: int = MAX_SESSIONS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pin = check_pin(pin)
        self.max_failures = max_failures
        self.window_s = window_s
        self.session_s = session_s
        self.max_sessions = max(1, max_sessions)
        #: told the tokens of sessions that ended (called outside the lock)
        self.on_end: Callable[[Collection[str]], None] | None = None
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: dict[str, float] = {}
        self.max_backoff_s = max(window_s, max_backoff_s)
        #: times the overall budget was spent since the last right PIN
        self.backoffs = 0
        self._locked_until = 0.0
        # Wrong PINs: buzzer/attempts.py's one policy (per address and overall, bounded).
        self._failures = FailureLimit(
            per_client=max_failures,
            overall=overall_failures,
            window_s=window_s,
            max_clients=max_clients,
            clock=clock,
        )

    def retry_after(self, client: str) -> int:
        """Seconds until ``client`` may try a PIN again (0: now)."""
        wait = self._failures.retry_after(client)
        with self._lock:
            left = self._locked_until - self._clock()
        return max(wait, int(left) + 1) if left > 0 else wait

    def backoff_s(self, k: int) -> float:
        """How long every new login waits the ``k``-th time the overall budget is spent."""
        return min(self.window_s * 2.0 ** min(k - 1, 32), self.max_backoff_s)

    def login(self, client: str, pin: str) -> str | None:
        """A new session token for the right PIN, else None (the failure is counted).
        Call :meth:`retry_after` first: a limited client must not be let through."""
        if not hmac.compare_digest(pin.encode(), self.pin.encode()):
            self._failures.failed(client)
            if self._failures.overall_retry_after():  # the budget is spent: back off
                with self._lock:
                    now = self._clock()
                    if self._locked_until <= now:
                        self.backoffs += 1
                        self._locked_until = now + self.backoff_s(self.backoffs)
            return None
        self._failures.succeeded(client)
        with self._lock:
            self.backoffs = 0
            token = secrets.token_urlsafe(32)
            now = self._clock()
            ended = [t for t, e in self._sessions.items() if e <= now]
            # dicts keep insertion order: the first is the oldest login
            live = [t for t in self._sessions if t not in ended]
            ended += live[: max(0, len(live) + 1 - self.max_sessions)]
            for gone in ended:
                del self._sessions[gone]
            self._sessions[token] = now + self.session_s
        self._ended(ended)
        return token

    def valid(self, token: str | None) -> bool:
        if not token:
            return False
        with self._lock:
            expires = self._sessions.get(token)
            if expires is None:
                return False
            if expires <= self._clock():
                del self._sessions[token]
                return False
            return True

    def logout(self, token: str | None) -> None:
        if token:
            with self._lock:
                self._sessions.pop(token, None)
            self._ended([token])

    def logout_all(self) -> None:
        """End every session ("log out everywhere")."""
        with self._lock:
            ended = list(self._sessions)
            self._sessions.clear()
        self._ended(ended)

    @property
    def sessions(self) -> int:
        with self._lock:
            return len(self._sessions)

    def _ended(self, tokens: Collection[str]) -> None:
        if tokens and self.on_end is not None:
            self.on_end(tokens)
