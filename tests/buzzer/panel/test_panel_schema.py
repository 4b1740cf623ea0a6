"""Schemathesis against the panel's own OpenAPI schema, on a real server.

Without the PIN: no request may cause a 5xx, and every route that can act is
refused (401) whatever it is sent. With the host's session: still no 5xx,
whatever commands are thrown at the game (most are refused with a 409).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.support.panel_support import PIN, Rig, panel_rig  # noqa: E402

SAFE = {"GET", "HEAD", "OPTIONS"}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
FUZZ = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture(scope="module")
def anonymous_rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    with panel_rig(Path(tmp_path_factory.mktemp("anonymous"))) as rig:
        yield rig


@pytest.fixture(scope="module")
def host_rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    with panel_rig(Path(tmp_path_factory.mktemp("host"))) as rig:
        yield rig


@pytest.fixture(scope="module")
def host_cookies(host_rig: Rig) -> dict[str, str]:
    client = host_rig.client()
    return {"svoyak_session": client.cookies["svoyak_session"]}


def fuzz(
    rig: Rig,
    mode: Any,
    body: Any,
    exclude: tuple[str, ...] = (),
    examples: int = 120,
) -> None:
    """Run ``body(case, response)`` on cases generated for every operation of the schema."""
    from hypothesis import given

    schema = schemathesis.openapi.from_url(rig.url + "/openapi.json")
    if exclude:
        schema = schema.exclude(path=list(exclude))

    @settings(FUZZ, max_examples=examples)
    @given(case=schema.as_strategy(generation_mode=mode))
    def run(case: Any) -> None:
        body(case)

    run()


MODES = [
    pytest.param(schemathesis.GenerationMode.POSITIVE, id="positive"),
    pytest.param(schemathesis.GenerationMode.NEGATIVE, id="negative"),
]


@pytest.mark.parametrize("mode", MODES)
def test_without_the_pin_nothing_acts_and_nothing_breaks(anonymous_rig: Rig, mode: Any) -> None:
    rig = anonymous_rig
    lines = len(rig.store)

    def check(case: Any) -> None:
        response = case.call()
        case.validate_response(response, checks=CHECKS)
        if case.method.upper() not in SAFE:
            if case.path == "/api/login":
                # 413: a generated body over the login route's 1 KB (limits.py) is refused
                # unread, which is right; it happens when the fuzzer draws a long "pin".
                assert response.status_code in (401, 413, 422, 429) or (
                    response.status_code == 200 and case.body == {"pin": PIN}
                )
            else:
                assert response.status_code == 401, (case.method, case.path, response.text)
        if case.path == "/api/commands":
            assert response.status_code == 401

    fuzz(rig, mode, check)
    assert len(rig.store) == lines  # nothing journaled


@pytest.mark.parametrize("mode", MODES)
def test_with_the_pin_no_command_breaks_the_server(
    host_rig: Rig, host_cookies: dict[str, str], mode: Any
) -> None:
    def check(case: Any) -> None:
        response = case.call(cookies=host_cookies)
        case.validate_response(response, checks=CHECKS)
        assert response.status_code != 401, (case.path, response.text)

    fuzz(host_rig, mode, check, exclude=("/api/logout", "/api/login"))
