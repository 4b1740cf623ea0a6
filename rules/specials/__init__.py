"""Special questions (docs/rules.md B.1 C2003-2.4.6, B.2 TV-S-*): pure procedures.

Each procedure decides who answers a special question and what it is worth;
the game engine (:mod:`rules.game`) asks it and scores the verdict.
"""
