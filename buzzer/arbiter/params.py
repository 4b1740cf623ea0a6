"""Button rules: the parameters that decide who may answer, as plain data.

Every rule system of ``docs/rules.md`` Part A is one frozen :class:`ButtonRules`
value (see :mod:`rules.profiles`). The arbiter reads these fields and never
asks *which* rule system it is running: a new variant is new data, not a new
branch in the state machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

NS_PER_S = 1_000_000_000
NS_PER_MS = 1_000_000
NS_PER_US = 1_000

#: Default settle window (A-G1): how long the arbiter waits after a press's
#: timestamp before deciding, so that a press that happened earlier but
#: arrived later (another input path, a USB frame, a busy callback thread)
#: still wins. 3 ms covers a USB full-speed frame (1 ms) plus scheduling
#: jitter on a Pi; the lamp lights that much later, which no player notices.
DEFAULT_SETTLE_NS = 3 * NS_PER_MS

#: The largest settle window accepted: beyond this the delay would be visible.
MAX_SETTLE_NS = 100 * NS_PER_MS


class EarlyPress(Enum):
    """What a press during the reading does (docs/rules.md A.2 P1/P2)."""

    #: Valid; the reading stops and the presser answers now (C2003-2.4.1b, SPORT-A2/A3).
    INTERRUPT = "interrupt"
    #: Valid; the presser holds the right, the reading continues (TV-94-A2).
    HOLD = "hold"
    #: A false start: the button is locked for a while (TV-M-A2, SPORT-A1, jeopardy).
    FALSE_START = "false_start"


class WindowAfterWrong(Enum):
    """The press window after a wrong answer given after the reading (P6, C2003-A-D2)."""

    #: A new full window from the ruling.
    FRESH = "fresh"
    #: The one window that started at the end of the reading keeps running.
    FIXED = "fixed"


class ResumeMode(Enum):
    """How an interrupted reading resumes after a wrong answer (C2003-A-D1).

    The arbiter treats both alike (the buttons stay live during the resumed
    reading); the value tells the host, through the panel, what to do.
    """

    CONTINUE = "continue"
    RESTART = "restart"


@dataclass(frozen=True, slots=True)
class ButtonRules:
    """The button parameters of one rule system (docs/rules.md A.2, P1–P10).

    Times are integer nanoseconds on the one monotonic clock of the game.
    """

    #: P1/P2: what a press during the reading does.
    early_press: EarlyPress
    #: P4: the press window after the end of reading (or the signal).
    window_ns: int
    #: P3: how long a false start locks the button (0: no lockout).
    fs_lockout_ns: int = 0
    #: TV-M-A-D2: does a press during a lockout restart it?
    fs_extend: bool = False
    #: P6: a fresh or a fixed window after a wrong answer given after the reading.
    window_after_wrong: WindowAfterWrong = WindowAfterWrong.FRESH
    #: C2003-A-D1: how an interrupted reading resumes (informational for the host).
    resume_mode: ResumeMode = ResumeMode.CONTINUE
    #: P8: answers per player per question.
    answers_per_question: int = 1
    #: A-G3/P9: the answer timer shown to players and host (never scores by itself).
    answer_time_ns: int = 5 * NS_PER_S
    #: P10: may the recognized player ask what the question seeks (SPORT-A2)?
    clarification: bool = False

    def __post_init__(self) -> None:
        if self.window_ns <= 0:
            raise ValueError("the press window must be longer than 0 s")
        if self.fs_lockout_ns < 0:
            raise ValueError("the false-start lockout cannot be negative")
        if self.answers_per_question < 1:
            raise ValueError("each player must be allowed at least one answer per question")
        if self.answer_time_ns <= 0:
            raise ValueError("the answer time must be longer than 0 s")
