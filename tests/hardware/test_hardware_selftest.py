"""``svoyak selftest --simulate`` and ``svoyak check-buttons --simulate``, end to end."""

from __future__ import annotations

import json
import re
import struct
import sys
import time
import types
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest

from buzzer.arbiter.events import Press
from buzzer.cli import main
from hardware.histogram import legend, legend_swatches, write_histogram
from hardware.report import SOFTWARE_ONLY, FairnessRow, GlitchRow, LatencyRow, SelftestReport
from hardware.selftest import default_png_path
from tests.support.selftest_cli import TWO_SEATS_PINS

QUICK = [
    "--simulate",
    "--count",
    "4",
    "--trials",
    "2",
    "--hold-off-ms",
    "10",
    "--stuck-s",
    "0.1",
]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", data[16:24])
    (crc,) = struct.unpack(">I", data[29:33])
    assert crc == zlib.crc32(data[12:29])
    return width, height


@pytest.mark.serial  # the self-test measures this machine's timing: the sequential phase
def test_selftest_simulate_json_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "latency.png"
    status = main(["selftest", *QUICK, "--json", "--png", str(png)])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    # every check passes on mock pins, and the exit status says so (else: the rows that failed)
    failed = {
        check: [row for row in rows if isinstance(row, dict) and row.get("ok") is False]
        for check, part in report.items()
        if isinstance(part, dict | list)
        for rows in (
            part if isinstance(part, list) else part.get("rows") or part.get("buttons") or [],
        )
    }
    # A bounce burst this machine's load stretched in every try is no verdict, and the
    # row says so (``stretched``); any other failed row is the feature broken.
    unexplained = {
        check: [row for row in rows if not (check == "bounce" and row.get("stretched"))]
        for check, rows in failed.items()
    }
    assert not any(unexplained.values()), unexplained
    assert status == (0 if report["ok"] else 1) and report["ok"] is not any(failed.values())
    assert report["mode"] == "simulate" and report["software_only"] is True
    buttons = report["latency"]["buttons"]
    assert [b["key"] for b in buttons] == [
        "1", "2", "3", "4", "reading_start", "reading_end", "correct", "wrong",
    ]  # fmt: skip
    for button in buttons:
        assert button["n"] == 4 and button["missed"] == 0
        assert 0 < button["min_us"] <= button["median_us"] <= button["p99_us"] <= button["max_us"]
    rows = report["fairness"]["rows"]
    assert [r["offset_us"] for r in rows] == [0, 10, 100, 1000]
    assert report["fairness"]["rules"] == "tv-modern"
    # two writes one after the other: the offsets are not exact, and the report says so
    assert report["fairness"]["offsets_exact"] is False
    for row in rows:
        assert row["trials"] == 2 and row["missed"] == 0
        assert row["first_won"] + row["second_won"] + row["ties"] + row["late"] == 2
        # A stalled machine may make a press arrive too late to be ordered (the arbiter
        # then says "late"); the later press never wins.
        if row["offset_us"] >= 100:
            assert row["second_won"] == 0 and row["ties"] == 0
    assert all(b["presses"] == 1 and b["first_edge_stamp"] for b in report["bounce"])
    glitch = report["glitch"]
    assert glitch["run"] and glitch["check_ms"] == 1.0 and report["glitch_ms"] == 1.0
    assert [b["key"] for b in glitch["buttons"]] == [b["key"] for b in buttons]
    # a spike far shorter than the check, and no press came of it
    assert all(b["presses"] == 0 and 0 < b["width_us"] < 1000 for b in glitch["buttons"])
    stuck = report["stuck"]
    assert stuck["threshold_s"] == 0.1 and stuck["held_at_start"] == []
    assert all(b["reported"] and b["excluded"] and b["freed"] for b in stuck["buttons"])
    assert report["png"] == str(png)
    width, height = png_size(png)
    assert width == 960 and height > 8 * 60
    assert "%" in captured.err  # the progress bar


@pytest.mark.serial  # the self-test measures this machine's timing: the sequential phase
def test_selftest_table_championship(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        [
            "selftest",
            *QUICK,
            "--rules",
            "championship-2003",
            "--checks",
            "latency,fairness",
            "--offsets",
            "100",
            "--pair",
            "2,3",
            "--png",
            str(tmp_path / "h.png"),
            "--no-progress",
        ]
    )
    out = capsys.readouterr()
    assert out.err == ""
    table = out.out
    assert "latency (µs): input edge stamp − output drive time" in table
    assert "seat 2 and seat 3 pressed an offset apart" in table
    assert "into a running championship-2003 game (wait bound 100 ms, SQLite journal)" in table
    assert "bounce" not in table
    assert status == 0, table
    verdict = "all checks passed"
    # Mock pins: the report says, at the top and in its verdict, what it cannot prove.
    assert table.rstrip().endswith(f"{verdict} ({SOFTWARE_ONLY})")
    assert f"NOTE: {SOFTWARE_ONLY}." in table.splitlines()[:3]
    assert png_size(tmp_path / "h.png")[0] == 960


LATENCY_ONLY = [*QUICK, "--checks", "latency", "--no-progress"]


def test_selftest_png_goes_to_the_state_folder_not_the_current_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"  # does not exist yet: created for the picture
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.chdir(work)
    main(["selftest", *LATENCY_ONLY, "--json"])
    report = json.loads(capsys.readouterr().out)
    png = Path(report["png"])
    assert png.is_absolute()
    assert png.parent == state / "svoyak" / "selftest"
    assert re.fullmatch(r"selftest-latency-\d{8}-\d{6}\.png", png.name), png.name
    assert png_size(png)[0] == 960
    assert list(work.iterdir()) == []  # nothing left where the command was started

    # The table names the same absolute path.
    main(["selftest", *LATENCY_ONLY])
    table = capsys.readouterr().out
    written = [line for line in table.splitlines() if line.startswith("histogram: ")]
    assert len(written) == 1
    path = Path(written[0].removeprefix("histogram: "))
    assert path.is_absolute() and path.parent == state / "svoyak" / "selftest"
    assert path.is_file()


def test_default_png_path_follows_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    moment = time.mktime((2025, 3, 1, 19, 5, 9, 0, 0, -1))
    expected = tmp_path / ".local" / "state" / "svoyak" / "selftest"
    assert default_png_path(moment) == expected / "selftest-latency-20250301-190509.png"
    # The XDG spec: a relative value is invalid and must be ignored.
    monkeypatch.setenv("XDG_STATE_HOME", "relative/state")
    assert default_png_path(moment).parent == expected
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "s"))
    assert default_png_path(moment).parent == tmp_path / "s" / "svoyak" / "selftest"


def test_a_relative_png_is_reported_by_its_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    main(["selftest", *LATENCY_ONLY, "--json", "--png", "h.png"])
    report = json.loads(capsys.readouterr().out)
    assert report["png"] == str(tmp_path / "h.png")
    assert png_size(tmp_path / "h.png")[0] == 960


@pytest.mark.parametrize("where", ["missing-folder", "a-folder"])
def test_a_png_path_that_cannot_be_written_is_refused_before_the_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    target = tmp_path / "nowhere" / "h.png" if where == "missing-folder" else tmp_path
    status = main(["selftest", *QUICK, "--png", str(target)])
    out = capsys.readouterr()
    assert status == 2
    assert out.out == "" and "%" not in out.err  # refused before pressing anything
    assert out.err.startswith("svoyak selftest: --png: ")
    assert ("no such folder" if where == "missing-folder" else "is a folder") in out.err


def test_the_histogram_has_a_legend_of_its_colours_and_units(tmp_path: Path) -> None:
    import pygame

    png = tmp_path / "h.png"
    samples = [20.0 + i % 7 for i in range(300)] + [10_000.0]  # one beyond the axis
    width, height = write_histogram(png, [("seat 1", samples)], "legend test")
    image = pygame.image.load(str(png))
    assert image.get_size() == (width, height)
    entries = legend()
    colours = [colour for _, colour, _ in entries]
    assert len(set(colours)) == len(colours), "two series share a colour"
    assert any("µs" in label for label, _, _ in entries)  # the unit is named
    swatches = legend_swatches(height)
    assert [(label, colour) for label, colour, _ in swatches] == [
        (label, colour) for label, colour, _ in entries
    ]
    background = tuple(image.get_at((width - 1, height - 1)))[:3]
    plot = {tuple(image.get_at((px, py)))[:3] for px in range(width) for py in range(height - 60)}
    for label, colour, (x, y, w, h) in swatches:
        # The swatch is filled with the series' colour...
        assert tuple(image.get_at((x + w // 2, y + h // 2)))[:3] == colour, label
        # ...and its label is written beside it.
        right = [
            tuple(image.get_at((px, py)))[:3]
            for px in range(x + w + 2, min(width, x + w + 120))
            for py in range(y - 2, min(height, y + h + 2))
        ]
        assert any(sum(p) < 200 for p in right), f"no text beside {label!r}"
        # The same colour is really used in the plot above the legend.
        assert colour in plot, f"{label!r} is in the legend but not in the plot"
    assert background == (255, 255, 255)


class FakeFirmware:
    """What ``firmware_bridge`` is asked to provide: presses stamped at the pin, sent to ``sink``.

    Stands in for the emulator and the link: the stamp is the drive time plus
    a fixed 7 µs, the firmware's hold-off turns a burst into one press, its
    glitch check turns a spike into nothing (unless ``takes_spikes``). Its
    presses are handed over as they are made, so its link's watermark is now;
    its link has said no HELLO, so it has no lamps to switch.
    """

    label = "fake firmware"
    #: As the emulator's: the presses are placed on the device's own clock.
    exact_offsets = True

    #: The hold-off each firmware was started with (the rig's must reach it).
    made: ClassVar[list[int | None]] = []

    def __init__(
        self, keys: tuple[str, ...], sink: Callable[[Any], None], *, hold_off_ns: int | None = None
    ) -> None:
        self.keys = keys
        self.sink = sink
        FakeFirmware.made.append(hold_off_ns)
        self.down: set[str] = set()
        self.link = types.SimpleNamespace(watermark=time.monotonic_ns, device=None)
        self.spikes: list[tuple[str, int]] = []

    def channels(self) -> tuple[str, ...]:
        return self.keys

    def press(self, key: str) -> int:
        t = time.monotonic_ns()
        if key not in self.down:
            self.down.add(key)
            self.sink(Press(t + 7_000, int(key)))
        return t

    def release(self, key: str) -> int:
        self.down.discard(key)
        return time.monotonic_ns()

    def press_pair(self, first: str, second: str, offset_ns: int) -> tuple[int, int]:
        t = time.monotonic_ns()
        self.down |= {first, second}
        self.sink(Press(t + offset_ns + 7_000, int(second)))  # arrives first: order by stamp
        self.sink(Press(t + 7_000, int(first)))
        return t, t + offset_ns

    def burst(self, key: str, edges: int, spacing_ns: int) -> int:
        return self.press(key)

    takes_spikes = False

    def spike(self, key: str, width_ns: int) -> tuple[int, int]:
        self.spikes.append((key, width_ns))
        t = time.monotonic_ns()
        if self.takes_spikes:
            self.sink(Press(t + 7_000, int(key)))
        return t, t + width_ns

    def close(self) -> None:
        self.down.clear()


@pytest.mark.serial  # the self-test measures this machine's timing: the sequential phase
def test_selftest_emulate_through_the_pulse_source_contract(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    emulator = types.ModuleType("firmware_bridge.emulator")
    emulator.selftest_pulse_source = FakeFirmware  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "firmware_bridge.emulator", emulator)
    quick = ["--count", "3", "--trials", "2", "--hold-off-ms", "1", "--no-png", "--no-progress"]
    FakeFirmware.made.clear()
    status = main(["selftest", "--emulate", *quick, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    # The emulated firmware holds off as long as the rig spaces its presses for.
    assert FakeFirmware.made == [1_000_000]
    assert report["mode"] == "emulate" and "fake firmware" in report["source"]
    assert report["software_only"] is False  # the real link and firmware logic ran
    assert [b["key"] for b in report["latency"]["buttons"]] == ["1", "2", "3", "4"]
    assert all(b["median_us"] == pytest.approx(7.0) for b in report["latency"]["buttons"])
    rows = report["fairness"]["rows"]
    assert report["fairness"]["offsets_exact"] is True  # placed on the device's clock
    assert [r["gap_median_us"] for r in rows] == pytest.approx([0, 10, 100, 1000])
    assert rows[0]["ties"] == 2  # equal stamps: a tie, drawn by lot
    assert all(r["first_won"] == 2 for r in rows[1:])
    assert report["stuck"]["buttons"] == []  # the emulator path has no stuck check here
    # The firmware's glitch check runs through it: a 1 µs spike on every button.
    assert report["glitch"]["run"] is True and report["glitch_ms"] == 1.0
    assert [b["key"] for b in report["glitch"]["buttons"]] == ["1", "2", "3", "4"]
    assert all(b["presses"] == 0 for b in report["glitch"]["buttons"])
    # A link that said no HELLO has no lamps: the phantom check says so, never "passed".
    assert report["phantom"]["run"] is False
    assert "no lamps" in report["not_run"]["phantom"]


def test_a_pico_that_takes_a_spike_for_a_press_fails_the_glitch_check(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class SpikyFirmware(FakeFirmware):
        takes_spikes = True

    emulator = types.ModuleType("firmware_bridge.emulator")
    emulator.selftest_pulse_source = SpikyFirmware  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "firmware_bridge.emulator", emulator)
    args = ["selftest", "--emulate", "--checks", "glitch", "--hold-off-ms", "1", "--no-png"]
    assert main([*args, "--no-progress", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert all(b["presses"] == 1 and not b["ok"] for b in report["glitch"]["buttons"])


def test_the_glitch_check_fails_when_spikes_are_taken_for_presses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pins = tmp_path / "pins.toml"
    pins.write_text(
        "[timing]\nglitch_ms = 0\n[players]\n1 = 17\n2 = 27\n"
        "[host]\nreading_start = 5\nreading_end = 6\n"
    )
    args = ["selftest", "--simulate", "--pins", str(pins), "--checks", "glitch", "--no-png"]
    status = main([*args, "--no-progress"])
    table = capsys.readouterr().out
    assert status == 1, table
    assert "glitch check 0 ms" in table
    assert re.search(
        r"seat 1 +a \d+ µs spike, [12] raw edge\(s\) at the pin, 1 press\(es\): FAIL", table
    )
    # with the pin map's default check, the same spikes are no presses
    pins.write_text(pins.read_text().replace("glitch_ms = 0", "glitch_ms = 1"))
    assert main([*args, "--no-progress"]) == 0
    assert "0 press(es): ok" in capsys.readouterr().out


def test_the_glitch_check_fails_when_the_spike_never_reaches_the_pin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34: behind a series resistor and a long cable a short spike may never
    cross V_IL. "No press" then proves nothing: without a raw edge at the pin the
    row fails and says what to rewire. Here the loopback's writes go nowhere."""
    import time

    from hardware.selftest import LoopbackPulses

    monkeypatch.setattr(LoopbackPulses, "press", lambda self, key: time.monotonic_ns())
    monkeypatch.setattr(LoopbackPulses, "release", lambda self, key: time.monotonic_ns())
    pins = tmp_path / "pins.toml"
    pins.write_text(TWO_SEATS_PINS)
    args = ["selftest", "--simulate", "--pins", str(pins), "--checks", "glitch", "--no-png"]
    assert main([*args, "--no-progress", "--json"]) == 1
    rows = json.loads(capsys.readouterr().out)["glitch"]["buttons"]
    assert len(rows) == 4  # two seats, two host buttons
    assert all((r["presses"], r["edges"], r["ok"]) == (0, 0, False) for r in rows)


def test_a_spike_stretched_by_a_busy_machine_is_tried_again_not_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer preempted between on and off makes a 5 ms "spike": longer than
    the 1 ms check, it is rightly a press, and it tests nothing. The check tries
    again (a 4-worker run of the suite saw a 5,178 µs spike fail the row)."""
    from hardware.selftest import LoopbackPulses
    from hardware.selftest.checks import SPIKE_ATTEMPTS

    real_release = LoopbackPulses.release
    stretched: list[str] = []

    def release(self: Any, key: str) -> int:
        if key not in stretched:  # each button's first spike: the thread preempted
            stretched.append(key)
            time.sleep(0.005)
        return real_release(self, key)

    monkeypatch.setattr(LoopbackPulses, "release", release)
    pins = tmp_path / "pins.toml"
    pins.write_text(TWO_SEATS_PINS)
    args = ["selftest", "--simulate", "--pins", str(pins), "--checks", "glitch", "--no-png"]
    assert main([*args, "--no-progress", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["glitch"]["buttons"]
    assert len(stretched) == 4 and SPIKE_ATTEMPTS > 1
    assert all(r["ok"] and r["presses"] == 0 and r["width_us"] < 1_000 for r in rows), rows

    # A machine that never lets a spike be short: the last try stands, and fails.
    stretched.clear()
    monkeypatch.setattr(
        LoopbackPulses, "release", lambda self, key: (time.sleep(0.005), real_release(self, key))[1]
    )
    assert main([*args, "--no-progress", "--json"]) == 1
    rows = json.loads(capsys.readouterr().out)["glitch"]["buttons"]
    assert all(not r["ok"] and r["presses"] == 1 and r["width_us"] >= 1_000 for r in rows), rows


def test_the_report_says_a_spike_that_never_reached_the_pin_proved_nothing() -> None:
    report = SelftestReport("simulate", "x", "p", 20.0, 0.5, glitch_ms=1.0)
    report.glitch = [GlitchRow("1", 17, 30_000, 0, 0), GlitchRow("2", 27, 30_000, 0, 2)]
    table = report.table()
    spike = r"seat 1 +a 30 µs spike, 0 raw edge\(s\) at the pin, 0 press\(es\): FAIL"
    assert re.search(spike, table)
    assert "the spike never reached the pin" in table and "at the pin end" in table
    spike = r"seat 2 +a 30 µs spike, 2 raw edge\(s\) at the pin, 0 press\(es\): ok"
    assert re.search(spike, table)
    assert not report.ok
    # Through the Pico the host sees no raw edge: said so, judged on presses alone.
    pico = GlitchRow("1", 2, 1_000, 0, None)
    assert pico.ok and pico.reached


def test_selftest_on_gpio_without_loopbacks_or_lgpio(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pins = tmp_path / "pins.toml"
    pins.write_text(TWO_SEATS_PINS)
    status = main(["selftest", "--pins", str(pins), "--no-png"])
    assert status == 2
    err = capsys.readouterr().err
    assert "lgpio" in err or "loopback" in err


def test_selftest_bad_pin_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pins = tmp_path / "pins.toml"
    pins.write_text("[players]\n1 = 17\n2 = 17\n")
    assert main(["selftest", "--simulate", "--pins", str(pins)]) == 2
    err = capsys.readouterr().err
    assert f"{pins}: [players] 2: GPIO17 is already used by [players] 1" in err


def test_a_failed_check_fails_the_report() -> None:
    report = SelftestReport("simulate", "x", "p", 20.0, 0.5)
    report.latency = [LatencyRow("1", 17, [1000, 2000])]
    assert report.ok
    report.fairness = [FairnessRow(100, trials=2, first_won=1, second_won=1)]
    assert not report.ok
    assert "SOME CHECKS FAILED" in report.table()


def test_check_buttons_lists_a_missing_button(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(
        ["check-buttons", "--simulate", "--simulate-missing", "3,wrong", "--timeout", "0.1"]
    )
    out = capsys.readouterr().out
    assert status == 1
    assert "press seat 1 (GPIO17) … ok" in out
    assert "press seat 3 (GPIO22) … no press" in out
    assert out.rstrip().endswith("missing: seat 3 (GPIO22), host wrong (GPIO19)")


def test_check_buttons_all_present(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-buttons", "--simulate"]) == 0
    assert "all 8 buttons work" in capsys.readouterr().out


def test_check_buttons_lights_each_lamp() -> None:
    import io

    from gpiozero.pins.mock import MockFactory

    from hardware.checkbuttons import check_buttons
    from hardware.pinmap import example_path, load_pinmap

    pinmap = load_pinmap(example_path())
    factory = MockFactory()
    lit: list[int] = []

    def press_and_watch(key: str) -> None:
        if key.isdigit() and lit:
            previous = pinmap.podium_lamps[int(lit[-1])].pin
            assert factory.pin(previous).state  # the last one found stays lit
        factory.pin(pinmap.buttons()[key].pin).drive_low()
        time.sleep(0.005)  # a press, not a glitch: held past the 1 ms level check
        factory.pin(pinmap.buttons()[key].pin).drive_high()
        if key.isdigit():
            lit.append(int(key))

    out = io.StringIO()
    result = check_buttons(pinmap, factory, out=out, timeout_s=1, press=press_and_watch, linger_s=0)
    assert result.ok and result.seen == list(pinmap.buttons())
    assert lit == [1, 2, 3, 4]
