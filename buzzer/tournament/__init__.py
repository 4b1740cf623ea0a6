"""The tournament's adapters: its SQLite database, the CLI, the rooms' HTTP server.

The rules themselves (registration, stages, the draw, advancement, team
points, the superfinal) are pure and live in :mod:`rules.tournament`; this
package stores, serves and commands them.
"""
