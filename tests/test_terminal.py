"""``buzzer.terminal.shown``: what others wrote, printed with its controls visible.

Unit tests of the one function every command prints package, journal and
command-line text through (the commands themselves: through a real pty in
tests/rules/packages/test_package_inspect_tty.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from buzzer.terminal import shown, shown_json


@pytest.mark.parametrize(
    ("raw", "seen"),
    [
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),  # the window's title
        ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # clear the screen
        ("\x1b[8mhidden", "\\x1b[8mhidden"),  # hide what follows
        ("\x9b2J", "\\x9b2J"),  # C1: a one-byte CSI
        ("a\x7fb\x00c", "a\\x7fb\\x00c"),
        ("over\rwrite", "over\\rwrite"),
        ("two\nlines\tand a tab", "two\\nlines\\tand a tab"),
        ("\u202eevil", "\\u202eevil"),  # a right-to-left override
        ("\u2066x\u2069", "\\u2066x\\u2069"),
        ("a\u2028b", "a\\u2028b"),
        ("bad \udcff byte", "bad \\udcff byte"),  # a file name's undecodable byte
    ],
)
def test_every_control_character_is_a_visible_escape(raw: str, seen: str) -> None:
    assert shown(raw) == seen
    assert shown(raw).isprintable()


def test_ordinary_unicode_is_kept() -> None:
    text = "Своя игра — «Ёлка» №1, ½ € 日本 🎉 é\u200d"
    assert shown(text) == text
    assert shown(text, lines=True) == text


def test_lines_keeps_the_newline_and_nothing_else() -> None:
    assert shown("a\nb\x1b[2J\tc\r\n", lines=True) == "a\nb\\x1b[2J\\tc\\r\n"


def test_any_object_is_shown_as_its_str() -> None:
    assert shown(ValueError("name \x1b[31mred")) == "name \\x1b[31mred"
    assert shown(42) == "42"


def test_every_code_point_comes_out_printable_or_escaped() -> None:
    # Every C0, DEL, C1 character, whatever surrounds it, comes out printable.
    for code in [*range(0x20), *range(0x7F, 0xA0)]:
        assert shown(f"x{chr(code)}y").isprintable(), hex(code)
    assert all(shown(chr(c)) == chr(c) for c in range(0x20, 0x7F))


def test_json_keeps_its_meaning_and_holds_no_control_character() -> None:
    data = {"name": "Пакет \x1b]0;t\x07 \x9b2J \x7f \u202e", "n": [1, 2]}
    text = shown_json(data)
    assert json.loads(text) == data
    assert "Пакет" in text
    assert all(ch == "\n" or ch.isprintable() for ch in text)


def test_json_text_gets_json_escapes_and_stays_the_same_json() -> None:
    lines = [json.dumps({"name": f"a{chr(c)}b"}, ensure_ascii=False) for c in (0x7F, 0x9B, 0x202E)]
    text = shown("\n".join(lines) + "\n", lines=True, json_text=True)
    assert [json.loads(line) for line in text.splitlines()] == [json.loads(x) for x in lines]
    assert text.isascii() and all(ch == "\n" or ch.isprintable() for ch in text)


def test_replay_prints_a_journals_hostile_names_escaped(tmp_path: Path) -> None:
    """``svoyak replay`` (its summary names the players; its JSON Lines stay JSON)."""
    example = Path(__file__).resolve().parents[1] / "examples" / "championship-2003.jsonl"
    lines = example.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["players"] = ["Аня\x1b]0;t\x07", "Бо\x9bрис", "Вера"]
    journal = tmp_path / "hostile.jsonl"
    journal.write_text(
        "\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8"
    )
    cli = [sys.executable, "-m", "buzzer.cli", "replay"]
    summary = subprocess.run([*cli, "--summary", str(journal)], capture_output=True, timeout=60)
    assert summary.returncode == 0, summary.stderr
    text = summary.stdout.decode("utf-8")
    assert "Аня\\x1b]0;t\\x07" in text and "Бо\\x9bрис" in text
    assert all(ch == "\n" or ch.isprintable() for ch in text)
    plain = subprocess.run([*cli, str(journal)], capture_output=True, timeout=60)
    assert plain.returncode == 0, plain.stderr
    out = plain.stdout.decode("utf-8")
    assert all(ch == "\n" or ch.isprintable() for ch in out)
    assert [json.loads(line)["type"] for line in out.splitlines()][-1] == "result"


def test_the_tournament_cli_prints_a_hostile_name_escaped(tmp_path: Path) -> None:
    db = str(tmp_path / "cup.sqlite")
    cli = [sys.executable, "-m", "buzzer.cli", "tournament"]
    made = subprocess.run([*cli, "new", db], capture_output=True, timeout=60)
    assert made.returncode == 0, made.stderr
    name = "Аня\x1b]0;t\x07\x1b[2J"
    argv = [*cli, "register", db, name, "--born", "2012-01-01", "--team", "К\x9b8m"]
    done = subprocess.run(argv, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode("utf-8")
    assert out.startswith("Аня\\x1b]0;t\\x07\\x1b[2J: ") and "team К\\x9b8m" in out
    twice = subprocess.run(argv, capture_output=True, timeout=60)
    assert twice.returncode == 2
    assert b"\x1b" not in twice.stderr and "Аня\\x1b" in twice.stderr.decode("utf-8")
