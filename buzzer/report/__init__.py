"""``svoyak report``: a game's journal as one self-contained HTML page for after the game.

- :mod:`buzzer.report.model` — the journal replayed → the report's data (pure);
- :mod:`buzzer.report.svg` — the pictures: press timelines, the score chart, reaction times;
- :mod:`buzzer.report.html` — the page: header and seal, the pictures, the tables, print CSS;
- :mod:`buzzer.report.words` — its words in Russian and English;
- :mod:`buzzer.report.cli` — the ``svoyak report`` subcommand.

It sits above the adapters in the import layers (pyproject.toml): it draws in
the board's palette (:mod:`display.palette`) and opens SQLite journals
(:mod:`buzzer.journal.store`); the app layer may call it, the adapters not.
"""
