"""The lockout arbiter: pure, deterministic, no clock and no I/O.

Inputs (:mod:`.events`) carry their source timestamps in integer
nanoseconds; the :class:`ReorderBuffer` (:mod:`.sequencer`) turns arrival
order into time order; the :class:`Arbiter` (:mod:`.machine`) turns
time-ordered inputs into decisions (:mod:`.decisions`) under the
:class:`ButtonRules` (:mod:`.params`) of the rule system in force.
"""

from buzzer.arbiter.machine import Arbiter, Phase, SequenceError
from buzzer.arbiter.params import ButtonRules, EarlyPress, ResumeMode, WindowAfterWrong
from buzzer.arbiter.sequencer import ReorderBuffer

__all__ = [
    "Arbiter",
    "ButtonRules",
    "EarlyPress",
    "Phase",
    "ReorderBuffer",
    "ResumeMode",
    "SequenceError",
    "WindowAfterWrong",
]
