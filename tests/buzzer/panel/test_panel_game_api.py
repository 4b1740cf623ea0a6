"""What the server tells the host in a game night (issue 12): the host's view of
every stage (``PackageTexts.host_view``, sent to the host's panel only) and the
refusal of a final stake above the score.

The lookup is tested on its own (plain snapshots) and through a real uvicorn
on 127.0.0.1: the host's WebSocket carries it, a viewer's never does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

from display.packages import PackageTexts
from rules.packages.own import parse_json
from tests.support.panel_game import (
    CAT_CELL,
    FINAL_THEMES,
    STAKE_CELL,
    STILL,
    answer_of,
    board_package,
    comment_of,
    final_answer,
    final_package,
    final_text,
    package_rig,
    remove_to_one,
    text_of,
    to_final,
)
from tests.support.panel_support import Commands, Rig


def texts(package: dict[str, Any]) -> PackageTexts:
    return PackageTexts(parse_json(package))


def cell_snapshot(stage: str, cell: tuple[int, int], special: str | None = None) -> dict[str, Any]:
    return {"stage": stage, "round": 1, "cell": list(cell), "special": special, "shootout": None}


def final_snapshot(stage: str, left: list[int]) -> dict[str, Any]:
    final = {"seats": [1, 2], "themes_left": left, "staked": [], "judge_order": [1, 2]}
    return {"stage": stage, "round": 1, "cell": None, "final": final, "shootout": None}


def test_the_host_sees_the_question_in_every_stage_of_a_cell_specials_included() -> None:
    lookup = texts(board_package()).host_view
    for stage in ("question", "bidding", "special"):
        view = lookup(cell_snapshot(stage, STAKE_CELL, "stake"))
        assert view is not None, stage
        assert view["text"] == text_of(*STAKE_CELL)
        assert view["answer"] == answer_of(*STAKE_CELL)
        assert view["comment"] == comment_of(*STAKE_CELL)
        assert view["cat"] is None
    for stage in ("cat_give", "cat_price", "special"):
        view = lookup(cell_snapshot(stage, CAT_CELL, "cat"))
        assert view is not None and view["text"] == text_of(*CAT_CELL), stage
        assert view["cat"] == {"theme": "КОРАБЛИ", "price": 700, "range": None, "announce": "after"}
    # Between questions, and in a shootout, there is nothing to read.
    assert lookup({"stage": "board", "round": 1, "cell": None}) is None
    assert lookup({**cell_snapshot("question", (1, 100)), "shootout": {"seats": [1, 2]}}) is None
    assert PackageTexts().host_view(cell_snapshot("question", (1, 100))) is None


def test_a_cat_s_range_or_the_round_s_extremes_as_the_package_states_them() -> None:
    package = board_package()
    cat = package["rounds"][0]["themes"][CAT_CELL[0] - 1]["questions"][3]
    cat["cat"] = {"theme": "МЁРТВЫЕ ДУШИ", "price": {"min": 500, "max": 1000}, "announce": "before"}
    view = texts(package).host_view(cell_snapshot("cat_give", CAT_CELL, "cat"))
    assert view is not None
    assert view["cat"] == {
        "theme": "МЁРТВЫЕ ДУШИ",
        "price": None,
        "range": [500, 1000, 0],
        "announce": "before",
    }
    cat["cat"] = {"price": None}
    view = texts(package).host_view(cell_snapshot("cat_give", CAT_CELL, "cat"))
    assert view is not None
    assert view["cat"] == {"theme": None, "price": None, "range": None, "announce": "after"}


def test_the_final_names_its_themes_and_shows_its_question_once_the_stakes_are_in() -> None:
    lookup = texts(final_package()).host_view
    removing = lookup(final_snapshot("final_remove", [1, 2, 3, 4, 5, 6, 7]))
    assert removing == {"final_themes": FINAL_THEMES}
    staking = lookup(final_snapshot("final_stakes", [4]))
    assert staking == {"final_themes": FINAL_THEMES}  # no question while stakes are written
    judging = lookup(final_snapshot("final_judging", [4]))
    assert judging is not None
    assert judging["final_themes"] == FINAL_THEMES
    assert judging["text"] == final_text(4) and judging["answer"] == [final_answer(4)]
    assert judging["comment"] == "Комментарий к финалу 4."
    assert lookup({"stage": "over", "final": None}) is None


def host_and_viewer(rig: Rig, client: Any) -> tuple[Any, Any]:
    cookie = f"svoyak_session={client.cookies['svoyak_session']}"
    return connect(rig.ws_url, additional_headers={"Cookie": cookie}), connect(rig.ws_url)


def recv_until(ws: Any, predicate: Any, what: str) -> dict[str, Any]:
    for _ in range(500):
        message: dict[str, Any] = json.loads(ws.recv(timeout=15))
        if predicate(message):
            return message
    raise AssertionError(f"no WebSocket message with {what}")


def test_only_the_host_s_socket_carries_what_the_host_reads(tmp_path: Path) -> None:
    with package_rig(tmp_path, board_package(), game_options=STILL) as rig:
        client = rig.client()
        commands = Commands(client)
        host_socket, viewer_socket = host_and_viewer(rig, client)
        with host_socket as host, viewer_socket as viewer:
            commands.ok({"type": "select", "theme": CAT_CELL[0], "price": CAT_CELL[1]})
            stage = lambda m: m.get("snapshot", {}).get("stage") == "cat_give"  # noqa: E731
            update = recv_until(host, stage, "the cat on the host's socket")
            question = update["panel"]["question"]
            assert question["text"] == text_of(*CAT_CELL)
            assert question["cat"]["theme"] == "КОРАБЛИ" and question["cat"]["price"] == 700
            seen = recv_until(viewer, stage, "the cat on the viewer's socket")
            assert "question" not in seen["panel"]
            assert "КОРАБЛИ" not in json.dumps(seen, ensure_ascii=False)
            viewer.send(json.dumps({"type": "resync"}))
            state = recv_until(viewer, lambda m: m["type"] == "state", "the resync")
            assert "question" not in state["panel"]
        assert "question" not in client.get("/api/state").json()["panel"]


def test_a_final_stake_above_the_score_is_refused_and_not_journaled(tmp_path: Path) -> None:
    with package_rig(tmp_path, final_package(), game_options=STILL) as rig:
        commands = Commands(rig.client())
        to_final(rig, commands)
        remove_to_one(rig, commands)
        state = rig.wait_state(lambda s: s["stage"] == "final_stakes", "the stakes")
        score = state["scores"]["2"]
        lines = len(rig.store)
        response = commands.send({"type": "final_stake", "seat": 2, "amount": score + 1})
        assert response.status_code == 409
        detail = response.json()["detail"]
        assert detail["code"] == "stake_above_score"
        assert f"не больше {score}" in detail["message"]
        assert f"at most {score}" in detail["message_en"]
        assert len(rig.store) == lines
        assert rig.state()["final"]["staked"] == []
        # The score itself is the all-in, accepted.
        commands.ok({"type": "final_stake", "seat": 2, "amount": score})
        rig.wait_state(lambda s: s["final"]["staked"] == [2], "the stake in")
        # Any other refusal stays the engine's (a stake below the minimum).
        low = commands.send({"type": "final_stake", "seat": 2, "amount": 0})
        assert low.status_code == 409 and low.json()["detail"]["code"] == "refused"
