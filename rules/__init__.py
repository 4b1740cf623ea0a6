"""svoyak's rules: rule systems as data, the board and the game engine (pure)."""
