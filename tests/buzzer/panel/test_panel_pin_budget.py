"""The overall PIN budget (issue 36, item 2): wrong PINs from many addresses on
127.0.0.0/8 through a real uvicorn; fresh addresses gain nothing, the host's open
session keeps working, and the whole server's backoff grows."""

from __future__ import annotations

import sys
from itertools import count
from pathlib import Path

import httpx
import pytest

from buzzer.panel.auth import COOKIE, OVERALL_FAILURES, PinGuard
from tests.support.http import http_client
from tests.support.panel_support import PIN, Rig, panel_rig

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="127.0.0.0/8 is loopback on Linux only"
)

WRONG = "000000" if PIN != "000000" else "111111"
_fresh = count(1)


def from_address(rig: Rig, pin: str) -> httpx.Response:
    """One login from an address never used before (127.0.N.M)."""
    n = next(_fresh)
    source = f"127.0.{n // 250 + 10}.{n % 250 + 2}"
    transport = httpx.HTTPTransport(local_address=source)
    with http_client(base_url=rig.url, timeout=10.0, transport=transport) as client:
        return client.post("/api/login", json={"pin": pin})


def spend_the_budget(rig: Rig) -> httpx.Response:
    """Wrong PINs, one per fresh address (the per-address limit never bites), until 429."""
    for _ in range(OVERALL_FAILURES):
        assert from_address(rig, WRONG).status_code == 401
    refused = from_address(rig, PIN)  # a fresh address, the right PIN
    assert refused.status_code == 429, refused.text
    return refused


def test_many_addresses_guessing_lock_new_logins_not_the_host(tmp_path: Path) -> None:
    # The guard's clock is stepped, not slept: on a loaded machine ten logins could
    # take longer than the window, and the budget would never be spent.
    clock = Clock()
    with panel_rig(tmp_path, pin_window_s=1.0, pin_clock=clock) as rig:
        host = rig.client()  # the host logged in before the attack
        try:
            waits = []
            for _ in range(3):
                refused = spend_the_budget(rig)
                waits.append(int(refused.headers["Retry-After"]))
                # the host's open session keeps working throughout
                assert host.get("/api/commands").status_code == 200
                assert host.cookies[COOKIE]
                clock.now += waits[-1]
            assert waits[0] >= 1 and waits[0] < waits[1] < waits[2], waits  # it grows
            assert rig.panel.guard.backoffs == 3
            # the backoff over, the right PIN gets in (and starts the backoff over)
            assert from_address(rig, PIN).status_code == 200
            assert rig.panel.guard.backoffs == 0
        finally:
            host.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_overall_backoff_doubles_up_to_its_cap() -> None:
    clock = Clock()
    guard = PinGuard("123456", window_s=60.0, overall_failures=10, max_backoff_s=900.0, clock=clock)
    expected = [60, 120, 240, 480, 900, 900]
    for k, lock in enumerate(expected, 1):
        for i in range(10):
            assert guard.retry_after(f"10.0.{k}.{i}") == 0
            assert guard.login(f"10.0.{k}.{i}", "000000") is None
        assert guard.backoffs == k
        assert guard.retry_after("192.168.1.1") == lock + 1  # a fresh address waits too
        clock.now += lock - 1
        assert guard.retry_after("192.168.1.1") > 0
        clock.now += 1
        assert guard.retry_after("192.168.1.1") == 0
    assert guard.login("192.168.1.1", "123456") is not None
    assert guard.backoffs == 0
    assert guard.backoff_s(1) == 60
    assert guard.backoff_s(10**6) == 900  # no overflow after days of guessing
