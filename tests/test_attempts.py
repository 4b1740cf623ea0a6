"""``buzzer.attempts.FailureLimit``: the one policy for wrong secrets, and the
panel's PIN guard counting through it (bounded memory)."""

from __future__ import annotations

from buzzer.attempts import FailureLimit
from buzzer.panel.auth import PinGuard


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_per_address_then_overall_then_the_window_ages_out() -> None:
    clock = Clock()
    limit = FailureLimit(per_client=2, overall=5, window_s=60.0, clock=clock)
    limit.failed("a")
    assert limit.retry_after("a") == 0
    limit.failed("a")
    assert limit.retry_after("a") == 61 and limit.retry_after("b") == 0
    for client in "bcd":
        limit.failed(client)
    assert limit.retry_after("fresh") == 61  # five in all: everyone waits
    clock.now += 30
    assert limit.retry_after("fresh") == 31
    clock.now += 30
    assert limit.retry_after("fresh") == 0 and limit.retry_after("a") == 0


def test_success_forgets_the_address_but_not_the_overall_count() -> None:
    limit = FailureLimit(per_client=2, overall=3, window_s=60.0, clock=Clock())
    limit.failed("a")
    limit.failed("a")
    limit.succeeded("a")
    assert limit.retry_after("a") == 0
    limit.failed("b")
    assert limit.retry_after("a") > 0


def test_no_overall_budget() -> None:
    limit = FailureLimit(per_client=2, overall=None, window_s=60.0, clock=Clock())
    for n in range(1000):
        limit.failed(f"c{n}")
    assert limit.retry_after("fresh") == 0


def test_the_panels_pin_guard_counts_through_it_with_bounded_memory() -> None:
    # overall budget out of the way: this test is about the per-address records
    guard = PinGuard(
        "123456",
        max_failures=5,
        window_s=60.0,
        max_clients=50,
        overall_failures=10_000,
        clock=Clock(),
    )
    for n in range(6600):
        assert guard.login(f"10.{n // 65536}.{n // 256 % 256}.{n % 256}", "000000") is None
    assert guard._failures.clients == 50
    for _ in range(5):
        guard.login("192.168.1.9", "000000")
    assert guard.retry_after("192.168.1.9") > 0
    assert guard.retry_after("192.168.1.10") == 0
    assert guard.login("192.168.1.10", "123456") is not None
