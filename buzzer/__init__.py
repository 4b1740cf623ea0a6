"""svoyak's buzzer: the lockout arbiter (pure), the core, the journal and the CLI."""

__version__ = "0.1.0"
