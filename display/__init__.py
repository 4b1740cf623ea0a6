"""The pygame board screen, podium lamps, timers and sounds.

It renders state snapshots and never decides anything: what the game
engine put in ``Game.snapshot()`` (and, for a few facts the snapshot does not
carry, the decisions the controller published) is drawn as it is.

Modules (see ``docs/display.md``):

- :mod:`display.scene` — a snapshot plus what the screen needs besides it;
- :mod:`display.renderer` — composes a scene's screen as widgets, redraws what changed;
- :mod:`display.widgets` — how each widget paints its key, with :mod:`display.grid`,
  :mod:`display.question` and :mod:`display.start` for the board, the question and the
  start screen; :mod:`display.paint` — the drawing primitives and their caches;
- :mod:`display.layout`, :mod:`display.text`, :mod:`display.palette`, :mod:`display.i18n`;
- :mod:`display.qr` — a small QR encoder (byte mode) for the panel address;
- :mod:`display.sounds` — synthesised cues through ``pygame.mixer``;
- :mod:`display.packages`, :mod:`display.media` — the package's side of the board:
  texts, pictures decoded safely, the question's sound, a cat's theme, the final;
- :mod:`display.app` — the window / full-screen loop; :mod:`display.cli` — ``svoyak display``.

Importing this package does not import pygame.
"""

from __future__ import annotations

import os

# pygame prints a greeting on import unless told not to; a board screen has no console.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
