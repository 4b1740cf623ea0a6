"""``svoyak …`` in this test process: the same ``buzzer.cli.main`` a user's shell
runs, without a new interpreter for every command.

Why: a fresh ``python -m buzzer.cli`` costs about 0.3 s of CPU before it does
anything (the interpreter, then the engine's imports), and the CLI tests ran
hundreds of them; on two cores that was a minute of the suite. What a command
prints, the status it exits with, an argparse refusal (its ``SystemExit``) and
an uncaught exception (status 1 with the traceback on stderr, as the
interpreter would print it) all come back in a ``CompletedProcess``, so a test
reads the same fields either way.

What this cannot show, and why each entry point keeps one test through a real
process (:func:`tests.support.live_run.svoyak`, ``subprocess``): the console
script's wiring, the interpreter's own encoding of stdout, signals, and a
crash that takes the process down. Commands that start servers, threads or a
game (``svoyak run``) always run in a real process.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from buzzer.cli import main


class _Stream(io.TextIOWrapper):
    """A text stream over bytes, UTF-8 like a pipe's under ``PYTHONIOENCODING=utf-8``,
    with a ``buffer`` for the commands that write bytes (``svoyak report -o -``)."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", newline="\n", write_through=True)

    def text(self) -> str:
        self.flush()
        raw = self.buffer
        assert isinstance(raw, io.BytesIO)
        return raw.getvalue().decode("utf-8", errors="replace")


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    """``env`` replaces the whole environment, as ``subprocess.run(env=...)`` does."""
    if env is None:
        yield
        return
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def svoyak_here(
    *args: str | Path | int,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | bytes = b"",
) -> subprocess.CompletedProcess[str]:
    """Run ``svoyak ARGS`` in this process; ``cwd``/``env`` as for ``subprocess.run``."""
    argv = [str(arg) for arg in args]
    out, err = _Stream(), _Stream()
    status: int
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(_environment(env))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        saved_stdin = sys.stdin
        data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
        sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
        stack.callback(setattr, sys, "stdin", saved_stdin)
        try:
            status = main(argv)
        except SystemExit as exit_:
            code = exit_.code
            if code is None:
                status = 0
            elif isinstance(code, int):
                status = code
            else:
                print(code, file=sys.stderr)
                status = 1
        except Exception:  # the interpreter would print it and exit 1
            traceback.print_exc()
            status = 1
    return subprocess.CompletedProcess(["svoyak", *argv], status, out.text(), err.text())


def svoyak_here_bytes(
    *args: str | Path | int,
    cwd: str | Path | None = None,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """:func:`svoyak_here` for tests that read the output as bytes, as from a pipe."""
    done = svoyak_here(*args, cwd=cwd, stdin=stdin or b"")
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.encode("utf-8"), done.stderr.encode("utf-8")
    )


def checked(
    done: subprocess.CompletedProcess[Any],
) -> subprocess.CompletedProcess[Any]:
    """``done`` after asserting it exited 0 (``subprocess.run(check=True)``'s promise),
    with its stderr as the failure's message."""
    assert done.returncode == 0, done.stderr
    return done
