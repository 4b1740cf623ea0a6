"""The simulated self-test's command lines, shared by the self-test's test files."""

from __future__ import annotations

from pathlib import Path

#: A pin map of two seats and the host's two reading buttons (the simulated rig's).
TWO_SEATS_PINS = "[players]\n1 = 17\n2 = 27\n[host]\nreading_start = 5\nreading_end = 6\n"


def bounce_args(tmp_path: Path) -> list[str]:
    """``svoyak selftest --simulate`` of the bounce check alone, on :data:`TWO_SEATS_PINS`."""
    pins = tmp_path / "pins.toml"
    pins.write_text(TWO_SEATS_PINS)
    return ["selftest", "--simulate", "--pins", str(pins), "--checks", "bounce", "--no-png"]
