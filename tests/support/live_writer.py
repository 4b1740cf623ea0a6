"""A stand-in for the live controller, for the crash test: journal first, then apply.

Run as ``python tests/support/live_writer.py DB``: it plays a scripted game, appending
each input line to the SQLite journal *before* pushing it into the core, and
prints the state snapshot after each input. The test kills it with SIGKILL.
"""

from __future__ import annotations

import json
import sys

HEADER = {
    "type": "game",
    "rules": "championship-2003",
    "players": ["Аня", "Борис", "Вера"],
    "seed": 7,
    "board": {"rounds": [{"name": "Марафон", "themes": 60, "prices": [10, 20, 30, 40, 50]}]},
}


def script() -> list[str]:
    """The game's input lines after the header (deterministic)."""
    lines: list[dict[str, object]] = []
    t = 0.0
    n = 0
    for theme in range(1, 61):
        for price in (10, 20, 30, 40, 50):
            n += 1
            t += 1.0
            lines.append({"t": t, "type": "select", "theme": theme, "price": price})
            lines.append({"t": t + 0.1, "type": "reading_start"})
            lines.append({"t": t + 0.3, "type": "press", "seat": 1 + n % 3})
            lines.append({"t": t + 0.3, "type": "press", "seat": 1 + (n + 1) % 3})
            lines.append(
                {"t": t + 0.5, "type": "judge", "verdict": "wrong" if n % 4 else "correct"}
            )
            if n % 4:
                lines.append({"t": t + 0.6, "type": "reading_end"})
                lines.append({"t": t + 0.7, "type": "press", "seat": 1 + (n + 2) % 3})
                lines.append({"t": t + 0.8, "type": "judge", "verdict": "correct"})
    return [json.dumps(x, ensure_ascii=False) for x in lines]


def main(db: str) -> None:
    from buzzer.arbiter.decisions import Decision
    from buzzer.core import GameCore
    from buzzer.journal.codec import InputParser, parse_header
    from buzzer.journal.store import JournalStore

    store = JournalStore(db)
    header = json.dumps(HEADER, ensure_ascii=False)
    store.append_line(header)
    core = GameCore(parse_header(header))
    parser = InputParser(3)
    out: list[Decision] = []
    for number, line in enumerate(script(), 2):
        store.append_line(line)  # journaled first...
        core.push(parser.parse(line, number), out)  # ...then applied
        draw = core.draw_for_pending_tie()
        if draw is not None:
            record = {
                "t": draw.t / 1e9,
                "type": "draw",
                "seats": list(draw.seats),
                "winner": draw.winner,
            }
            store.append(record)
            core.push(draw, out)
        print(json.dumps(core.snapshot(), ensure_ascii=False), flush=True)
        out.clear()


if __name__ == "__main__":
    main(sys.argv[1])
