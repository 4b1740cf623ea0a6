"""Issue 36 item 2: a PIN the technician chooses has 6 digits, like the random one.

The overall budget lets the whole /24 try 520 PINs in a night (docs/panel.md,
Security): a 4-digit PIN would fall with a 5 % chance. ``svoyak run`` refuses a
shorter PIN from ``--pin``, ``$SVOYAK_PIN`` or ``[panel] pin`` before anything
starts (no journal, no panel, no PIN file), says why and how to pick one, and
never echoes the PIN it refused.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from buzzer.panel.auth import MAX_DIGITS, MIN_DIGITS, PinGuard, check_pin, new_pin

RUN = [sys.executable, "-m", "buzzer.cli", "run", "--headless", "--host", "127.0.0.1"]


def _env(tmp_path: Path, **more: str) -> dict[str, str]:
    env = {**os.environ, **more}
    env.pop("SVOYAK_PIN", None)
    env.update(more)
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    return env


def _refused(done: subprocess.CompletedProcess[str], pin: str, tmp_path: Path) -> None:
    assert done.returncode == 2, done
    assert done.stdout == ""  # nothing started: no panel address, no PIN printed
    err = done.stderr
    assert f"has {len(pin)} digits, too few to be safe; it must have 6 digits" in err, err
    assert "why: anyone on the Wi-Fi can try up to 520 PINs in a game night" in err
    assert "docs/panel.md" in err
    assert "what to do: choose 6 digits at random" in err
    assert "secrets.randbelow(10**6)" in err  # a way to pick one, ready to paste
    assert "or set no PIN" in err
    assert pin not in err  # the refused PIN is not repeated where others may see it
    # No journal, no PIN file: the run stopped before anything was made.
    assert not (tmp_path / "data").exists() and not (tmp_path / "state").exists()
    assert not (tmp_path / "game.sqlite").exists()


@pytest.mark.parametrize("pin", ["9317", "93172"])
def test_a_short_pin_on_the_command_line_is_refused_before_anything_starts(
    tmp_path: Path, pin: str
) -> None:
    done = subprocess.run(
        [*RUN, "--port", "0", "--pin", pin],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(tmp_path),
    )
    _refused(done, pin, tmp_path)
    assert f"a {len(pin)}-digit PIN falls with a {5.2 if len(pin) == 4 else 0.52} % chance" in (
        done.stderr
    )


def test_a_short_pin_from_the_environment_or_the_config_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [*RUN, "--port", "0", "--journal", str(tmp_path / "game.sqlite")],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(tmp_path, SVOYAK_PIN="9317"),
    )
    _refused(done, "9317", tmp_path)
    config = tmp_path / "svoyak.toml"
    config.write_text('[panel]\npin = "93172"\nport = 0\n', encoding="utf-8")
    done = subprocess.run(
        [*RUN, "--config", str(config), "--journal", str(tmp_path / "game.sqlite")],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(tmp_path),
    )
    _refused(done, "93172", tmp_path)


def test_check_pin_takes_six_digits_only() -> None:
    assert (MIN_DIGITS, MAX_DIGITS) == (6, 6)  # the panel's pad takes 6 digits
    assert check_pin("093172") == "093172"
    for pin in ("1", "9317", "93172"):
        with pytest.raises(ValueError, match="too few to be safe"):
            check_pin(pin)
    with pytest.raises(ValueError, match="the panel's number pad takes at most 6"):
        check_pin("9317204")
    for pin in ("", "93172a", "９３１７２０", " 93172", "-93172", "931.72"):
        with pytest.raises(ValueError, match="0-9 only"):
            check_pin(pin)
    with pytest.raises(ValueError, match="too few"):
        PinGuard("9317")
    assert PinGuard("093172").pin == "093172"


def test_the_random_pin_has_six_digits() -> None:
    for _ in range(200):
        pin = new_pin()
        assert len(pin) == 6 and check_pin(pin) == pin
    with pytest.raises(ValueError):
        new_pin(4)
