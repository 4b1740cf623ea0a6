"""Mock pins whose level changes before their edge is stamped, as a real line's does.

On the Pi the line's level changes first and the kernel stamps the edge in
its interrupt handler after it. The GPIO source proves its watermark from
that order (:meth:`hardware.buttons.ButtonBank.proven_until`: read the time,
then the levels). gpiozero's ``MockPin`` stamps first and changes its level
a few bytecodes later, a window in which a reader of the level could see the
old one for an edge already stamped. :class:`LevelFirstMockPin` shows the new
level for the whole of that window, so a simulated game (``--simulate``, the
tests, the benchmarks) keeps the order the hardware has. Everything else is
gpiozero's own ``MockPin``.
"""

from __future__ import annotations

from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin  # type: ignore[import-untyped]


class LevelFirstMockPin(MockPin):  # type: ignore[misc]
    """A ``MockPin`` whose new level is visible before the change is stamped."""

    _changing: bool | None = None

    def _change_state(self, value: bool) -> bool:
        self._changing = bool(value)  # the line moves ...
        try:
            return bool(super()._change_state(value))  # ... then the edge gets its stamp
        finally:
            self._changing = None

    def _get_state(self) -> Any:
        changing = self._changing
        return self._state if changing is None else changing


def mock_factory() -> Any:
    """gpiozero's ``MockFactory`` making :class:`LevelFirstMockPin` pins by default."""
    return MockFactory(pin_class=LevelFirstMockPin)
