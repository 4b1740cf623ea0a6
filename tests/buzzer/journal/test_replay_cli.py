"""``svoyak replay``: bad input, exit statuses, stdout/stderr.

Through ``buzzer.cli.main`` in this process (:mod:`tests.support.cli`), and as a
real process by both entry points (the module and the console script) where
the test takes ``cmd``.

docs/journal-contract.md: a malformed file, an unknown type or a field out of range is a
clear error on stderr naming the line, exit status 2, and nothing printed
as if it were a valid result. A valid journal prints JSON Lines, the
``result`` last.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import svoyak_here_bytes
from tests.support.paths import REPO

ROOT = REPO
SCRIPT = Path(sys.executable).parent / "svoyak"

#: The two ways to run the CLI: the module, and the installed console script.
COMMANDS = [pytest.param([sys.executable, "-m", "buzzer.cli"], id="module")]
if SCRIPT.exists():
    COMMANDS.append(pytest.param([str(SCRIPT)], id="script"))

PLAYERS = ["Аня", "Борис", "Вера"]
HEADER: dict[str, Any] = {"type": "game", "rules": "championship-2003", "players": PLAYERS}


def line_of(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def journal_text(header: dict[str, Any] | None, *events: Any) -> str:
    """Lines of a journal: dicts are dumped as JSON, strings are taken verbatim."""
    rows = [] if header is None else [line_of(header)]
    rows += [e if isinstance(e, str) else line_of(e) for e in events]
    return "\n".join(rows) + "\n"


def replay(
    path: Path | str, cmd: list[str] | None = None, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    if cmd is None:
        return svoyak_here_bytes("replay", path, cwd=ROOT, stdin=stdin)
    return subprocess.run(
        [*cmd, "replay", str(path)],
        input=stdin,
        capture_output=True,
        check=False,
        cwd=ROOT,
        timeout=60,
    )


def write(tmp_path: Path, data: str | bytes, name: str = "game.jsonl") -> Path:
    path = tmp_path / name
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def outputs(proc: subprocess.CompletedProcess[bytes]) -> list[dict[str, Any]]:
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    return [json.loads(x) for x in proc.stdout.decode("utf-8").splitlines()]


def assert_error_on_line(proc: subprocess.CompletedProcess[bytes], line: int) -> None:
    stderr = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, (proc.returncode, stderr)
    assert proc.stdout == b"", "nothing may be printed as if it were a valid result"
    named = re.findall(r"\bline (\d+):", stderr)
    assert named and int(named[0]) == line, stderr


def sel(t: Any, theme: Any = 1, price: Any = 30) -> dict[str, Any]:
    return {"t": t, "type": "select", "theme": theme, "price": price}


def rs(t: Any) -> dict[str, Any]:
    return {"t": t, "type": "reading_start"}


def re_(t: Any) -> dict[str, Any]:
    return {"t": t, "type": "reading_end"}


def pr(t: Any, seat: Any) -> dict[str, Any]:
    return {"t": t, "type": "press", "seat": seat}


def judge(t: Any, verdict: Any) -> dict[str, Any]:
    return {"t": t, "type": "judge", "verdict": verdict}


# -- bad input: exit 2, "line N" on stderr, nothing on stdout -----------------------------

GOOD = (sel(1.0), rs(2.0), re_(6.0))

BAD_JOURNALS: list[Any] = [
    pytest.param(
        journal_text(HEADER, *GOOD, '{"t": 7.0, "type": "press", "seat": 1'), 5, id="malformed-json"
    ),
    pytest.param(journal_text(HEADER, sel(1.0), "[1, 2, 3]"), 3, id="array-line"),
    pytest.param(journal_text(HEADER, sel(1.0), '"press"'), 3, id="string-line"),
    pytest.param(journal_text(HEADER, sel(1.0), "42"), 3, id="number-line"),
    pytest.param(
        journal_text(HEADER, sel(1.0), {"t": 2.0, "type": "buzz", "seat": 1}), 3, id="unknown-type"
    ),
    pytest.param(journal_text(HEADER, sel(1.0), {"t": 2.0, "seat": 1}), 3, id="missing-type"),
    pytest.param(journal_text({**HEADER, "rules": "tv-2099"}, sel(1.0)), 1, id="unknown-rules"),
    pytest.param(journal_text({**HEADER, "rules": None}), 1, id="missing-rules"),
    pytest.param(journal_text(HEADER, *GOOD, pr(7.0, 4)), 5, id="seat-too-high"),
    pytest.param(journal_text(HEADER, *GOOD, pr(7.0, 0)), 5, id="seat-zero"),
    pytest.param(journal_text(HEADER, *GOOD, pr(7.0, "1")), 5, id="seat-string"),
    pytest.param(journal_text(HEADER, *GOOD, pr(7.0, True)), 5, id="seat-bool"),
    pytest.param(journal_text(HEADER, *GOOD, {"t": 7.0, "type": "press"}), 5, id="seat-missing"),
    pytest.param(
        journal_text(HEADER, sel(1.0, 7, 30), rs(2.0), re_(3.0)), 2, id="theme-not-on-board"
    ),
    pytest.param(journal_text(HEADER, sel(1.0, 1, 35)), 2, id="price-not-on-board"),
    pytest.param(journal_text(HEADER, sel(1.0, 0, 30)), 2, id="theme-zero"),
    pytest.param(
        journal_text(HEADER, sel(1.0, 1, 30), {"t": 2.0, "type": "select", "theme": 1}),
        3,
        id="select-no-price",
    ),
    pytest.param(journal_text(HEADER, sel(1.0), rs(-2.0)), 3, id="t-negative"),
    pytest.param(
        journal_text(HEADER, sel(1.0), '{"t": NaN, "type": "reading_start"}'), 3, id="t-nan"
    ),
    pytest.param(
        journal_text(HEADER, sel(1.0), '{"t": Infinity, "type": "reading_start"}'), 3, id="t-inf"
    ),
    pytest.param(
        journal_text(HEADER, sel(1.0), '{"t": 1e400, "type": "reading_start"}'), 3, id="t-overflow"
    ),
    pytest.param(journal_text(HEADER, sel(1.0), rs("2.0")), 3, id="t-string"),
    pytest.param(journal_text(HEADER, sel(1.0), rs(None)), 3, id="t-null"),
    pytest.param(journal_text(HEADER, sel(1.0), {"type": "reading_start"}), 3, id="t-missing"),
    pytest.param(
        journal_text(HEADER, *GOOD, pr(7.0, 1), judge(8.0, "right")), 6, id="verdict-right"
    ),
    pytest.param(journal_text(HEADER, *GOOD, pr(7.0, 1), judge(8.0, True)), 6, id="verdict-bool"),
    pytest.param(
        journal_text(HEADER, *GOOD, pr(7.0, 1), {"t": 8.0, "type": "judge"}),
        6,
        id="verdict-missing",
    ),
    pytest.param(journal_text(None, sel(1.0), rs(2.0)), 1, id="missing-header"),
    pytest.param(journal_text({**HEADER, "type": "gmae"}, sel(1.0)), 1, id="header-wrong-type"),
    pytest.param(journal_text(HEADER, sel(1.0), HEADER, rs(2.0)), 3, id="second-header"),
    pytest.param(journal_text(HEADER, *GOOD, judge(7.0, "wrong")), 5, id="judge-nobody-answering"),
    pytest.param(journal_text(HEADER, judge(0.5, "correct")), 2, id="judge-before-any-question"),
    pytest.param(
        journal_text(HEADER, *GOOD, pr(7.0, 1), sel(8.0, 2, 10)), 6, id="select-while-answering"
    ),
    pytest.param(
        journal_text(
            HEADER,
            *GOOD,
            pr(7.0, 2),
            pr(7.0, 3),
            {"t": 7.0, "type": "draw", "seats": [2, 3], "winner": 1},
        ),
        7,
        id="draw-winner-not-among-seats",
    ),
    pytest.param(
        journal_text(
            HEADER,
            *GOOD,
            pr(7.0, 2),
            pr(7.0, 3),
            {"t": 7.0, "type": "draw", "seats": [2, 4], "winner": 2},
        ),
        7,
        id="draw-seat-out-of-range",
    ),
    pytest.param(
        journal_text(
            HEADER,
            *GOOD,
            pr(7.0, 2),
            pr(7.0, 3),
            {"t": 7.0, "type": "draw", "seats": [1, 3], "winner": 1},
        ),
        7,
        id="draw-other-seats-than-tie",
    ),
    pytest.param(journal_text(HEADER, sel(10.0), rs(5.0)), 3, id="host-out-of-order"),
    pytest.param(
        journal_text(HEADER, sel(1.0), rs(2.0), re_(6.0), rs(5.99)), 5, id="host-4ms-out-of-order"
    ),
    pytest.param(journal_text({**HEADER, "players": []}), 1, id="no-players"),
    pytest.param(journal_text({**HEADER, "chooser": 4}), 1, id="chooser-out-of-range"),
    pytest.param(
        journal_text({**HEADER, "options": {"no_such_option": 1}}), 1, id="unknown-option"
    ),
    pytest.param(journal_text({**HEADER, "settle_ms": -1}), 1, id="settle-negative"),
    pytest.param(journal_text(HEADER, sel(1.0), "", rs(2.0)), 3, id="blank-line"),
]


@pytest.mark.parametrize(("text", "line"), BAD_JOURNALS)
def test_bad_journal_exit_2_names_line_empty_stdout(tmp_path: Path, text: str, line: int) -> None:
    assert_error_on_line(replay(write(tmp_path, text)), line)


@pytest.mark.parametrize("cmd", COMMANDS)
def test_bad_journal_both_entry_points(tmp_path: Path, cmd: list[str]) -> None:
    text = journal_text(HEADER, *GOOD, pr(7.0, 9))
    assert_error_on_line(replay(write(tmp_path, text), cmd), 5)


def test_empty_file_is_error_on_line_1(tmp_path: Path) -> None:
    assert_error_on_line(replay(write(tmp_path, b"")), 1)


def test_invalid_utf8_names_its_line(tmp_path: Path) -> None:
    good = journal_text(HEADER, sel(1.0), rs(2.0)).encode("utf-8")
    data = good + b'{"t": 3.0, "type": "press", "seat": 1, "note": "\xff\xfe"}\n'
    assert_error_on_line(replay(write(tmp_path, data)), 4)


def test_invalid_utf8_in_header(tmp_path: Path) -> None:
    data = b'{"type": "game", "rules": "championship-2003", "players": ["\xc3"]}\n'
    assert_error_on_line(replay(write(tmp_path, data)), 1)


def test_unused_draw_line_is_error(tmp_path: Path) -> None:
    text = journal_text(HEADER, *GOOD, {"t": 7.0, "type": "draw", "seats": [1, 2], "winner": 1})
    assert_error_on_line(replay(write(tmp_path, text)), 5)


def test_missing_file_exit_2_empty_stdout(tmp_path: Path) -> None:
    proc = replay(tmp_path / "no-such-game.jsonl")
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert "no-such-game.jsonl" in proc.stderr.decode("utf-8", "replace")


def test_error_after_many_valid_lines_prints_nothing(tmp_path: Path) -> None:
    # Lots of valid decisions before the bad line: still nothing on stdout.
    events: list[Any] = []
    t = 1.0
    for theme in range(1, 7):
        events += [
            sel(t, theme, 10),
            rs(t + 0.5),
            re_(t + 1.0),
            pr(t + 1.5, 1),
            judge(t + 2, "wrong"),
        ]
        t += 10.0
    events.append(judge(t, "correct"))  # nobody is answering
    assert_error_on_line(replay(write(tmp_path, journal_text(HEADER, *events))), len(events) + 1)


# -- valid journals --------------------------------------------------------------------


@pytest.mark.parametrize("cmd", COMMANDS)
def test_valid_journal_exit_0_result_last(tmp_path: Path, cmd: list[str]) -> None:
    text = journal_text(
        {**HEADER, "chooser": 3},
        sel(1.0, 2, 30),
        rs(2.0),
        pr(4.1, 2),
        judge(7.0, "wrong"),
        rs(7.5),
        re_(12.0),
        pr(15.0, 1),
        judge(16.0, "correct"),
    )
    proc = replay(write(tmp_path, text), cmd)
    assert proc.stderr == b""
    lines = outputs(proc)
    assert lines[-1] == {"type": "result", "scores": {"1": 30, "2": -30, "3": 0}, "chooser": 1}
    assert all("t" in x and "type" in x for x in lines[:-1])
    assert [x["type"] for x in lines].count("result") == 1
    assert {"t": 4.1, "type": "recognized", "seat": 2} in lines
    assert {"t": 16.0, "type": "chooser", "seat": 1} in lines
    # UTF-8 JSON Lines on stdout: every line parses, nothing else is printed.
    assert proc.stdout.endswith(b"\n")


def test_header_only_is_a_valid_game(tmp_path: Path) -> None:
    lines = outputs(replay(write(tmp_path, journal_text({**HEADER, "chooser": 2}))))
    assert lines[-1] == {"type": "result", "scores": {"1": 0, "2": 0, "3": 0}, "chooser": 2}


def test_crlf_and_bom_are_accepted(tmp_path: Path) -> None:
    text = journal_text(
        {**HEADER, "chooser": 1}, sel(1.0), rs(2.0), re_(6.0), pr(7.0, 3), judge(8.0, "correct")
    )
    data = b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8")
    lines = outputs(replay(write(tmp_path, data)))
    assert lines[-1] == {"type": "result", "scores": {"1": 0, "2": 0, "3": 30}, "chooser": 3}


@pytest.mark.parametrize("cmd", COMMANDS)
def test_dash_reads_stdin(cmd: list[str]) -> None:
    text = journal_text(
        {**HEADER, "chooser": 1}, sel(1.0), rs(2.0), re_(6.0), pr(7.0, 2), judge(8.0, "correct")
    )
    lines = outputs(replay("-", cmd, stdin=text.encode("utf-8")))
    assert lines[-1] == {"type": "result", "scores": {"1": 0, "2": 30, "3": 0}, "chooser": 2}


def test_dash_reads_stdin_bad_input(tmp_path: Path) -> None:
    text = journal_text(HEADER, sel(1.0), "not json")
    assert_error_on_line(replay("-", stdin=text.encode("utf-8")), 3)


def test_player_name_with_line_separator_u2028(tmp_path: Path) -> None:
    # JSON Lines end at "\n" only: a JSON string may hold U+2028 / U+2029 /
    # U+0085 raw (json.dumps(..., ensure_ascii=False) writes them so), and they
    # must not be taken for line ends.
    header = {**HEADER, "players": ["Аня\u2028Петрова", "Борис", "Вера"], "chooser": 1}
    text = journal_text(header, sel(1.0), rs(2.0), re_(6.0), pr(7.0, 1), judge(8.0, "correct"))
    assert "\u2028" in text
    lines = outputs(replay(write(tmp_path, text)))
    assert lines[-1] == {"type": "result", "scores": {"1": 30, "2": 0, "3": 0}, "chooser": 1}


# -- ties: draws from the seed, recorded draws ----------------------------------------

TIE = (sel(1.0), rs(2.0), re_(6.0), pr(7.0, 3), pr(7.0, 2))


def tie_winner(tmp_path: Path, seed: Any, *extra: Any) -> int:
    text = journal_text({**HEADER, "chooser": 1, "seed": seed}, *TIE, *extra)
    lines = outputs(replay(write(tmp_path, text, f"tie-{seed}.jsonl")))
    assert [x for x in lines if x["type"] == "tie"] == [{"t": 7.0, "type": "tie", "seats": [2, 3]}]
    won = [x["seat"] for x in lines if x["type"] == "recognized"]
    assert len(won) == 1 and won[0] in (2, 3)
    lost = [x for x in lines if x["type"] == "ignored" and x["t"] == 7.0]
    assert lost == [
        {"t": 7.0, "type": "ignored", "seat": 5 - won[0], "reason": "lost_draw", "behind_us": 0}
    ]
    return won[0]


def test_tie_without_draw_line_drawn_from_seed(tmp_path: Path) -> None:
    seeds = [*range(12), "финал-2003"]
    first = {seed: tie_winner(tmp_path, seed) for seed in seeds}
    # Same seed, same winner, run after run.
    assert {seed: tie_winner(tmp_path, seed) for seed in seeds} == first
    # Across seeds both seats win sometimes.
    assert set(first.values()) == {2, 3}


@pytest.mark.parametrize("winner", [2, 3])
def test_recorded_draw_decides_whatever_the_seed(tmp_path: Path, winner: int) -> None:
    draw = {"t": 7.0, "type": "draw", "seats": [2, 3], "winner": winner}
    for seed in range(6):
        assert tie_winner(tmp_path, seed, draw) == winner


def test_recorded_draw_after_later_press_still_decides(tmp_path: Path) -> None:
    # The live game decided the tie when a later press moved time on; it
    # journaled the draw after that press.
    draw = {"t": 7.01, "type": "draw", "seats": [3, 2], "winner": 3}
    for seed in range(6):
        assert tie_winner(tmp_path, seed, pr(7.01, 1), draw) == 3


# -- the settle window -----------------------------------------------------------------


def settle_journal(settle_ms: float | None) -> str:
    header = {**HEADER, "chooser": 1}
    if settle_ms is not None:
        header["settle_ms"] = settle_ms
    return journal_text(
        header,
        sel(1.0),
        rs(2.0),
        re_(3.0),
        pr(5.0015, 2),  # arrives first
        pr(5.0004, 1),  # pressed 1.1 ms earlier, arrives second
    )


@pytest.mark.parametrize(
    ("settle_ms", "winner"),
    [(None, 1), (3, 1), (2, 1), (1.1, 1), (1, 2), (0.5, 2), (0, 2)],
)
def test_settle_ms_decides_whether_out_of_order_press_wins(
    tmp_path: Path, settle_ms: float | None, winner: int
) -> None:
    lines = outputs(replay(write(tmp_path, settle_journal(settle_ms))))
    assert [x["seat"] for x in lines if x["type"] == "recognized"] == [winner]
    loser = 3 - winner
    (lost,) = [x for x in lines if x["type"] == "ignored"]
    assert lost["seat"] == loser
    if winner == 1:
        assert lost["reason"] == "someone_answering"
        assert lost["behind_us"] == 1100
    else:
        assert lost["reason"] == "late"  # arrived beyond the settle window


def test_host_input_out_of_order_within_settle_is_reordered(tmp_path: Path) -> None:
    # reading_end at 6.000 arrives after a press stamped 6.002: within 3 ms.
    text = journal_text(
        {**HEADER, "rules": "tv-modern", "chooser": 1},
        sel(1.0, 1, 300),
        rs(2.0),
        pr(6.002, 2),
        re_(6.0),
    )
    lines = outputs(replay(write(tmp_path, text)))
    assert [x for x in lines if x["type"] in ("false_start", "recognized", "window_opened")] == [
        {"t": 6.0, "type": "window_opened", "closes_at": 9.0},
        {"t": 6.002, "type": "recognized", "seat": 2},
    ]
