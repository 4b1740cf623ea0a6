"""The panel's HTTP API and WebSocket against a real uvicorn on a loopback port."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from buzzer.panel.app import create_app
from tests.support.panel_support import PIN, Commands, Rig, panel_rig, wait_for


@pytest.fixture
def rig(tmp_path: Path):
    with panel_rig(tmp_path) as rig:
        yield rig


def mutating_routes(rig: Rig) -> list[tuple[str, str]]:
    """Every route of the OpenAPI schema that can act (all but GET)."""
    schema = httpx.get(rig.url + "/openapi.json").json()
    return [
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method in item
        if method.upper() not in ("GET", "HEAD", "OPTIONS")
    ]


def recv(ws: Any) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(ws.recv(timeout=15))
    return message


def recv_until(ws: Any, predicate: Any, what: str) -> dict[str, Any]:
    for _ in range(500):
        message = recv(ws)
        if predicate(message):
            return message
    raise AssertionError(f"no WebSocket message with {what}")


def test_login_sets_an_httponly_strict_session_cookie(rig: Rig) -> None:
    client = rig.client(login=False)
    assert client.get("/api/session").json() == {"host": False}
    wrong = client.post("/api/login", json={"pin": "0000" if PIN != "0000" else "1111"})
    assert wrong.status_code == 401
    assert wrong.json()["detail"]["code"] == "wrong_pin"
    response = client.post("/api/login", json={"pin": PIN})
    assert response.status_code == 200
    cookie = response.headers["set-cookie"].lower()
    assert "svoyak_session=" in cookie and "httponly" in cookie and "samesite=strict" in cookie
    assert client.get("/api/session").json() == {"host": True}
    assert client.post("/api/logout").status_code == 200
    assert client.get("/api/session").json() == {"host": False}


def test_pin_attempts_are_rate_limited_per_client(tmp_path: Path) -> None:
    with panel_rig(tmp_path, max_pin_failures=3) as rig:
        attacker = rig.client(login=False)
        for _ in range(3):
            assert attacker.post("/api/login", json={"pin": "999999"}).status_code == 401
        limited = attacker.post("/api/login", json={"pin": PIN})  # even the right PIN
        assert limited.status_code == 429
        assert int(limited.headers["retry-after"]) > 0
        assert limited.json()["detail"]["code"] == "rate_limited"
        # Another client (another source address on the loopback) is not affected.
        host = rig.client(login=False, transport=httpx.HTTPTransport(local_address="127.0.0.2"))
        assert host.post("/api/login", json={"pin": PIN}).status_code == 200


def test_every_mutating_route_is_refused_without_the_pin(rig: Rig) -> None:
    routes = mutating_routes(rig)
    assert ("POST", "/api/command") in routes and ("POST", "/api/simulate/press") in routes
    anonymous = rig.client(login=False)
    lines = len(rig.store)
    for method, path in routes:
        if path == "/api/login":
            continue
        for body in (
            {"id": "x", "command": {"type": "correction", "seat": 1, "delta": 5, "reason": "r"}},
            {"seat": 1},
            {},
        ):
            response = anonymous.request(method, path, json=body)
            assert response.status_code == 401, (path, response.text)
            assert response.json()["detail"]["code"] == "pin_required"
        garbage = anonymous.request(method, path, content=b"\xff not json")
        assert garbage.status_code == 401, path
    assert anonymous.get("/api/commands").status_code == 401
    # A forged session cookie is no better.
    forged = rig.client(login=False, cookies={"svoyak_session": "forged"})
    assert forged.post("/api/simulate/press", json={"seat": 1}).status_code == 401
    assert len(rig.store) == lines
    # The read-only state needs no PIN.
    assert anonymous.get("/api/state").status_code == 200
    assert anonymous.get("/view").status_code == 200


def test_a_command_from_another_sites_page_is_refused(rig: Rig) -> None:
    client = rig.client()
    response = client.post(
        "/api/command",
        json={"id": "x1", "command": {"type": "pause"}},
        headers={"Origin": "http://evil.example"},
    )
    assert response.status_code == 403
    assert response.json()["detail"]["code"] == "foreign_origin"
    same = client.post(
        "/api/command",
        json={"id": "x2", "command": {"type": "pause"}},
        headers={"Origin": rig.url},
    )
    assert same.status_code == 200


def test_a_double_tap_is_applied_once(rig: Rig) -> None:
    commands = Commands(rig.client())
    version = rig.state()["version"]
    body = {"type": "select", "theme": 1, "price": 100}
    first = commands.send(body, version=version, id="tap-1")
    second = commands.send(body, version=version, id="tap-1")
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert second.headers.get("x-svoyak-repeat") == "1"
    assert "x-svoyak-repeat" not in first.headers
    assert [line["type"] for line in rig.lines()].count("select") == 1
    line = first.json()["line"]
    assert rig.lines()[line - 1]["type"] == "select"


def test_a_refused_command_is_a_409_and_nothing_is_journaled(rig: Rig) -> None:
    commands = Commands(rig.client())
    before = rig.lines()
    response = commands.send({"type": "judge", "verdict": "correct"})
    assert response.status_code == 409
    detail = response.json()["detail"]
    assert detail["code"] == "refused"
    assert detail["message"] == "Сейчас никто не отвечает — оценивать нечего."
    assert detail["message_en"].startswith("Nobody is answering")
    assert rig.lines() == before
    # A stale tap: the host chose from a board that has since moved on.
    version = rig.state()["version"]
    commands.ok({"type": "select", "theme": 1, "price": 100}, version=version)
    rig.wait_state(lambda s: s["stage"] == "question", "the question")
    before = rig.lines()
    stale = commands.send({"type": "select", "theme": 2, "price": 100}, version=version)
    assert stale.status_code == 409
    assert stale.json()["detail"]["code"] == "stale"
    assert rig.lines() == before


def test_requests_are_validated_with_clear_422s(rig: Rig) -> None:
    client = rig.client()
    cases: list[Any] = [
        {"command": {"type": "pause"}},  # no id
        {"id": "a", "command": {"type": "shout"}},
        {"id": "a", "command": {"type": "bid", "seat": 0, "amount": 100}},
        {"id": "a b", "command": {"type": "pause"}},
        {"id": "a", "command": {"type": "correction", "seat": 1, "delta": 5, "reason": ""}},
        {"id": "a", "command": {"type": "pause", "extra": 1}},
    ]
    for body in cases:
        response = client.post("/api/command", json=body)
        assert response.status_code == 422, body
        payload = response.json()
        assert payload["detail"] and payload["message"].startswith("Неверный запрос")
    no_seat = client.post(
        "/api/command", json={"id": "a", "command": {"type": "objection", "seat": 9}}
    )
    assert no_seat.status_code == 422
    assert "Нет игрока номер 9" in no_seat.json()["message"]
    assert client.post("/api/simulate/press", json={"seat": 7}).status_code == 422


def test_a_question_played_through_the_api_and_undone(rig: Rig) -> None:
    client = rig.client()
    commands = Commands(client)
    commands.ok({"type": "select", "theme": 3, "price": 200})
    commands.ok({"type": "reading_start"})
    rig.wait_state(lambda s: s["phase"] == "reading", "the reading")
    commands.ok({"type": "reading_end"})
    rig.wait_state(lambda s: s["phase"] == "open", "the open window")
    assert client.post("/api/simulate/press", json={"seat": 2}).status_code == 200
    rig.wait_state(lambda s: s["answering"] == 2, "seat 2 recognized")
    judged = commands.ok({"type": "judge", "verdict": "correct"})
    rig.wait_state(lambda s: s["scores"]["2"] == 200, "the score")
    log = client.get("/api/commands").json()["commands"]
    assert log[0]["type"] == "judge" and log[0]["line"] == judged["line"]
    commands.ok({"type": "undo", "line": judged["line"]})
    state = rig.wait_state(lambda s: s["scores"]["2"] == 0, "the undone score")
    assert state["answering"] == 2  # back to judging seat 2's answer
    log = client.get("/api/commands").json()["commands"]
    assert log[0]["undone"] is True
    again = commands.send({"type": "undo", "line": judged["line"]})
    assert again.status_code == 409 and "нельзя отменить" in again.json()["detail"]["message"]


def test_websocket_snapshot_on_connect_then_updates(rig: Rig) -> None:
    client = rig.client()
    cookie = f"svoyak_session={client.cookies['svoyak_session']}"
    with (
        connect(rig.ws_url) as viewer,
        connect(rig.ws_url, additional_headers={"Cookie": cookie}) as host,
    ):
        first = recv(viewer)
        assert first["type"] == "state" and first["snapshot"]["stage"] == "board"
        assert "commands" not in first["panel"]
        host_first = recv(host)
        assert host_first["type"] == "state" and host_first["panel"]["commands"] == []
        commands = Commands(client)
        result = commands.ok({"type": "select", "theme": 1, "price": 300})
        update = recv_until(
            viewer, lambda m: m["type"] == "update" and m["snapshot"]["stage"] == "question", "q"
        )
        assert any(d["type"] == "question" for d in update["decisions"])
        assert update["version"] >= result["version"]
        host_update = recv_until(
            host, lambda m: m["type"] == "update" and m["snapshot"]["stage"] == "question", "q"
        )
        assert host_update["panel"]["commands"][0]["line"] == result["line"]
        # A stuck button, raised by the hardware layer through the panel's API.
        rig.panel.stuck_button(2, held_ms=5000)
        alert = recv_until(viewer, lambda m: m["type"] == "panel", "the alert")
        assert alert["panel"]["alerts"][-1]["kind"] == "stuck"
        assert alert["panel"]["alerts"][-1]["seat"] == 2
        # Anything a viewer sends is ignored but a resync or a ping.
        viewer.send(json.dumps({"type": "command", "command": {"type": "timeout"}}))
        viewer.send(json.dumps({"type": "resync"}))
        again = recv_until(viewer, lambda m: m["type"] == "state", "the resync")
        assert again["snapshot"]["stage"] == "question"
    # A reconnect resynchronizes: the current state at once.
    with connect(rig.ws_url) as viewer:
        state = recv(viewer)
        assert state["type"] == "state" and state["snapshot"]["cell"] == [1, 300]
        assert state["version"] == rig.controller.version


def test_a_false_start_raises_an_alert(rig: Rig) -> None:
    client = rig.client()
    commands = Commands(client)
    commands.ok({"type": "select", "theme": 1, "price": 100})
    commands.ok({"type": "reading_start"})
    rig.wait_state(lambda s: s["phase"] == "reading", "the reading")
    with connect(rig.ws_url) as viewer:
        recv(viewer)
        client.post("/api/simulate/press", json={"seat": 3})  # tv-modern: a false start
        update = recv_until(
            viewer,
            lambda m: any(d["type"] == "false_start" for d in m.get("decisions", [])),
            "the false start",
        )
        assert update["panel"]["alerts"][-1]["kind"] == "false_start"
        assert update["snapshot"]["locked_until"]["3"] > update["snapshot"]["now"] - 10**9


def test_pause_is_broadcast_and_holds_the_game(rig: Rig) -> None:
    commands = Commands(rig.client())
    with connect(rig.ws_url) as viewer:
        recv(viewer)
        assert commands.ok({"type": "pause"})["paused"] is True
        # a journaled input (A-G-D1): its update carries the panel's state
        message = recv_until(viewer, lambda m: m.get("panel", {}).get("paused"), "the pause")
        assert message["panel"]["paused"] is True
        refused = commands.send({"type": "select", "theme": 1, "price": 100})
        assert refused.status_code == 409 and refused.json()["detail"]["code"] == "paused"
        commands.ok({"type": "resume"})
        message = recv_until(
            viewer, lambda m: m.get("panel", {}).get("paused") is False, "the resume"
        )
        assert message["panel"]["paused"] is False


def test_the_openapi_schema_is_published(rig: Rig) -> None:
    schema = httpx.get(rig.url + "/openapi.json").json()
    assert schema["openapi"].startswith("3.")
    assert {"/api/command", "/api/login", "/api/state"} <= set(schema["paths"])


def test_without_simulate_there_are_no_simulated_buttons(tmp_path: Path) -> None:
    with panel_rig(tmp_path, simulate=False) as rig:
        client = rig.client()
        assert client.post("/api/simulate/press", json={"seat": 1}).status_code in (404, 405)
        assert "/api/simulate/press" not in httpx.get(rig.url + "/openapi.json").json()["paths"]


def test_a_bad_pin_is_refused_at_start(tmp_path: Path) -> None:
    from buzzer.panel.demo import demo_header
    from buzzer.runtime.controller import Controller

    with pytest.raises(ValueError):
        create_app(Controller.new(demo_header()), "12ab")
    wait_for(lambda: True)
