"""Subcommands this package adds to ``svoyak`` (see ``buzzer.cli._COMMAND_MODULES``).

Keep this module light: it is imported every time ``svoyak`` parses its
arguments, so handlers import their heavy dependencies when they run.
"""

from __future__ import annotations

import argparse
from typing import Any


def add_commands(subparsers: Any) -> None:
    """Register this package's subcommands on ``svoyak``'s subparsers."""
    del subparsers  # nothing yet


__all__ = ["add_commands", "argparse"]
