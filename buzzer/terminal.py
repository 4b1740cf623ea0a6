"""Text for a terminal: the one way a command prints what others wrote.

A package's names, a journal's lines, a player's name from the command
line: any of them may hold control characters (ESC starts a sequence that
sets the window title, clears the screen, hides the text after it). Every
command prints such text through :func:`shown`, which makes each control
character a visible escape (ESC → ``\\x1b``, a newline → ``\\n``) and keeps ordinary Unicode —
Cyrillic, «ёлочки», emoji — as it is. :func:`shown_json` does the same for
JSON a command prints (a JSON escape, ``\\u001b``, so the JSON stays valid).

The bottom layer (pyproject.toml's import-linter contract, with
``buzzer.errors``): every command module — ``buzzer.cli``, ``buzzer.app``,
``buzzer.tournament``, ``rules.packages``, ``display``, ``hardware`` — may
import it, and it imports nothing of the project.
"""

from __future__ import annotations

import json
import re
from typing import Any

# C0 (NUL…US), DEL and C1 (0x80–0x9f: 0x9b is a one-byte CSI for some
# terminals); the bidirectional overrides and isolates that reorder what
# follows (U+202A–U+202E, U+2066–U+2069); U+2028/U+2029 (line breaks); and
# lone surrogates (a file name's undecodable bytes), which cannot be written.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")
_CONTROL_KEEPING_LINES = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
)


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def shown(text: object, *, lines: bool = False, json_text: bool = False) -> str:
    """``text`` with every control character as a visible escape.

    ``lines=True`` keeps the newline (a multi-line table the command built);
    otherwise a newline, a tab and a carriage return are escaped too, so one
    value stays on one line. ``json_text=True``: ``text`` is JSON (or JSON
    Lines) and each escape is JSON's own (``\\u001b``), so it stays the same
    JSON; outside its strings JSON holds no control character but a newline.
    """
    pattern = _CONTROL_KEEPING_LINES if lines else _CONTROL
    return pattern.sub(_json_escape if json_text else _escape, str(text))


def shown_json(data: Any, *, indent: int | None = 2) -> str:
    """``data`` as JSON for a terminal: Unicode kept, no raw control character."""
    # json.dumps escapes C0 itself; DEL, C1, the bidi controls and the line
    # separators it leaves raw.
    return shown(json.dumps(data, ensure_ascii=False, indent=indent), lines=True, json_text=True)
