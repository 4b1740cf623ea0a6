"""``svoyak doctor`` through the real command line (``buzzer.cli.main``): output and exit status.

The machine is faked (tests/support/doctor_host.py) by replacing
``buzzer.app.doctor.system_host``, the one place the command reads the real one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from buzzer.app import doctor
from buzzer.app.doctor import STATUSES, TITLES
from buzzer.cli import main
from hardware.pinmap import example_path
from tests.support.doctor_host import FakeMachine

EXAMPLE = str(example_path())


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeMachine:
    fake = FakeMachine(tmp_path)
    monkeypatch.setattr(doctor, "system_host", fake.host)
    return fake


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["doctor", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_is_one_object_per_check_in_order(
    machine: FakeMachine, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "--json", "--pins", EXAMPLE, "--lang", "en")
    assert status == 0
    rows: list[dict[str, Any]] = json.loads(out)
    assert [row["check"] for row in rows] == list(TITLES)
    for row in rows:
        assert set(row) == {"check", "title", "status", "found", "fix", "data"}
        assert row["status"] in STATUSES
        assert row["title"] == TITLES[row["check"]].en
        assert isinstance(row["found"], str) and row["found"]
        assert isinstance(row["data"], dict)
        if row["status"] == "pass":
            assert row["fix"] is None
    fsync = next(row for row in rows if row["check"] == "fsync")
    assert {"median_ms", "p99_ms", "pass_p99_ms", "fail_p99_ms"} <= set(fsync["data"])


def test_a_failed_check_exits_1_and_its_json_says_what_to_do(
    machine: FakeMachine, capsys: pytest.CaptureFixture[str]
) -> None:
    machine.throttled = "throttled=0x1\n"
    status, out, _ = run(capsys, "--json", "--pins", EXAMPLE)
    assert status == 1
    power = next(row for row in json.loads(out) if row["check"] == "power")
    assert power["status"] == "fail"
    assert power["found"].startswith("пониженное напряжение сейчас")  # Russian by default
    assert "5 В 3 А" in power["fix"]


def test_warnings_and_skips_do_not_fail(
    machine: FakeMachine, capsys: pytest.CaptureFixture[str]
) -> None:
    machine.throttled = "throttled=0x80000\n"  # a soft temperature limit since boot
    machine.systemctl = None  # no systemd: the priority is skipped
    status, out, _ = run(capsys, "--json", "--pins", EXAMPLE)
    rows = {row["check"]: row["status"] for row in json.loads(out)}
    assert rows["power"] == "warn" and rows["realtime"] == "skip"
    assert "fail" not in rows.values()
    assert status == 0


def test_the_text_report_in_russian_and_english(
    machine: FakeMachine, capsys: pytest.CaptureFixture[str]
) -> None:
    machine.addresses = ["127.0.0.1"]
    status, out, _ = run(capsys, "--pins", EXAMPLE)
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == "svoyak doctor: готов ли ящик к игре"
    assert len(lines) == 1 + len(TITLES) + 1 + 1  # a line per check, one fix, the result
    assert any(line.startswith("[ОШИБКА]") and "нет сети" in line for line in lines)
    assert any("что сделать: подключите Wi-Fi" in line for line in lines)
    assert lines[-1].startswith("итог: НЕ ГОТОВ — ошибок: 1 (сеть)")
    status, out, _ = run(capsys, "--pins", EXAMPLE, "--lang", "en")
    assert status == 1
    assert "[FAIL] network" in out
    assert out.splitlines()[-1].startswith("result: NOT READY — 1 failed (network)")


def test_a_ready_box_says_so(machine: FakeMachine, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--simulate", "--lang", "en")
    assert status == 0
    assert "[ok]   buttons" in out
    assert out.splitlines()[-1].startswith("result: ready for a game")


def test_a_bad_option_exits_2(machine: FakeMachine, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "--clock-s", "0")
    assert status == 2
    assert "--clock-s must be positive" in err
