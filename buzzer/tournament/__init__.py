"""The tournament's adapters: its SQLite database, the CLI, the rooms' HTTP server.

The rules themselves (registration, stages, the draw, advancement, team
points, the superfinal) are pure and live in :mod:`rules.tournament`; this
package stores, serves and commands them. Its SQLite database
(:mod:`~buzzer.tournament.store`) calls the pure planning of a draw
(:mod:`~buzzer.tournament.planning`), the tables
(:mod:`~buzzer.tournament.standings`) and the replay of a reported journal
(:mod:`~buzzer.tournament.results`), never the reverse.
"""
