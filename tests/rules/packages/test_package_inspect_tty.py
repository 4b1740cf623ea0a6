"""``svoyak package inspect`` on a real terminal: a hostile package's names
reach the pty with their control characters as visible escapes.

A .siq is built here (a zip with content.xml): XML 1.0 refuses ESC itself,
but not DEL, the C1 controls (0x9b is a one-byte CSI for some terminals) or
the bidirectional overrides; the project's own .json package carries ESC.
The command runs as a subprocess on the slave end of ``os.openpty``, and
every byte the terminal would get is read from the master end.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from rules.packages.siq_content import NS_V5

ROOT = Path(__file__).resolve().parents[3]
HOSTILE_SIQ = "Пакет \x9b2J\x9b8m\x7f\u202eконец"
HOSTILE_JSON = "Пакет \x1b]0;pwned\x07\x1b[2J\x1b[8mскрыто"
THEME = "Тема \x9b31m"


def _siq(path: Path) -> Path:
    question = (
        '<question price="100"><params><param name="question" type="content">'
        "<item>Q</item></param></params><right><answer>Ответ \x9b0m</answer></right>"
        "</question>"
    )
    xml = (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<package name="{HOSTILE_SIQ}" version="5" xmlns="{NS_V5}"><rounds>'
        f'<round name="Раунд"><themes><theme name="{THEME}"><questions>{question}'
        "</questions></theme></themes></round></rounds></package>"
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("content.xml", xml)
    return path


def _own_json(path: Path) -> Path:
    document = {
        "format": "svoyak-package",
        "version": 1,
        "name": HOSTILE_JSON,
        "rounds": [
            {
                "name": "Раунд \x1b[H",
                "themes": [
                    {"name": "Реки", "questions": [{"price": 100, "text": "Q", "answer": "Нил"}]}
                ],
            }
        ],
    }
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def _on_a_pty(*argv: str) -> tuple[int, bytes]:
    """Run ``svoyak ARGV`` with stdout and stderr on a pty; every byte it wrote."""
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from buzzer.cli import main; sys.exit(main())",
                *argv,
            ],
            stdin=subprocess.DEVNULL,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        )
    finally:
        os.close(slave)
    out = bytearray()
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 30)
            if not ready:
                proc.kill()
                pytest.fail("svoyak package inspect wrote nothing for 30 s")
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the pty
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
    return proc.wait(timeout=30), bytes(out)


def _controls(data: bytes) -> set[str]:
    """The control characters the terminal got, but the pty's own line ends."""
    text = data.decode("utf-8").replace("\r\n", "\n")
    return {
        ch
        for ch in text
        if ch != "\n" and (not ch.isprintable() or ch in "\u202a\u202b\u202c\u202d\u202e")
    }


@pytest.mark.parametrize("as_json", [False, True])
def test_a_hostile_siq_reaches_the_terminal_escaped(tmp_path: Path, as_json: bool) -> None:
    path = _siq(tmp_path / "hostile.siq")
    status, out = _on_a_pty("package", "inspect", str(path), *(["--json"] if as_json else []))
    assert status == 0, out
    assert _controls(out) == set()
    text = out.decode("utf-8")
    if as_json:
        data = json.loads(text.replace("\r\n", "\n"))
        assert data["name"] == HOSTILE_SIQ  # the same name, as JSON escapes
    else:
        assert "Пакет \\x9b2J\\x9b8m\\x7f\\u202eконец" in text
        assert "Тема \\x9b31m" in text
        assert "Ответ \\x9b0m" in text


def test_a_hostile_json_package_reaches_the_terminal_escaped(tmp_path: Path) -> None:
    status, out = _on_a_pty("package", "inspect", str(_own_json(tmp_path / "own.json")))
    assert status == 0, out
    assert b"\x1b" not in out and b"\x07" not in out
    assert _controls(out) == set()
    text = out.decode("utf-8")
    assert "Пакет \\x1b]0;pwned\\x07\\x1b[2J\\x1b[8mскрыто" in text
    assert "Раунд \\x1b[H" in text


def test_a_hostile_error_message_reaches_the_terminal_escaped(tmp_path: Path) -> None:
    # A package that cannot be played: its name in the one line on stderr.
    path = tmp_path / "broken.siq"
    xml = (
        '<?xml version="1.0" encoding="utf-8"?>'
        f'<package name="x" version="5" xmlns="{NS_V5}"><rounds><round name="R">'
        f'<themes><theme name="{THEME}"><questions><question price="1x0"><params />'
        "<right /></question></questions></theme></themes></round></rounds></package>"
    )
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("content.xml", xml)
    status, out = _on_a_pty("package", "inspect", str(path))
    assert status == 2
    assert _controls(out) == set()
    assert out.decode("utf-8").count("\n") == 1
    assert "Тема \\x9b31m" in out.decode("utf-8")
