"""The game journal: the JOURNAL.md JSON Lines format (``codec``)."""
