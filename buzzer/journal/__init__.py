"""The game journal: the docs/journal-contract.md JSON Lines format (``codec``)."""
